"""`pip install .` gives the `iobook` command with its dependencies declared in pyproject.toml, pinned as the lock
that `make venv` installs (requirements.lock) pins them."""
import importlib
import re
import subprocess
import sys
import tomllib

from conftest import REPO


def test_console_script_and_dependencies_match_the_lock():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, _, function = project["scripts"]["iobook"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))
    lock = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (REPO / "requirements.lock").read_text(), re.M))
    lock = {name.lower().replace("_", "-"): version for name, version in lock.items()}
    declared = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    pins = dict(d.split("==") for d in declared)
    assert {name: lock.get(name) for name in pins} == pins  # every pin is the lock's version


def test_the_command_runs_its_subcommands():
    """The script's function as the console script calls it: `iobook --help` lists ingest, book, new-chapter."""
    shown = subprocess.run([sys.executable, "-c", "import sys; from iobook.__main__ import main; sys.exit(main())",
                            "--help"], capture_output=True, text=True, cwd=REPO)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: iobook")
    assert all(command in shown.stdout for command in ("ingest", "book", "new-chapter"))


def test_the_environment_leaves_out_what_the_overrides_remove():
    """requirements-overrides.txt removes rfc3987-syntax (jsonschema compiles ~35 Lark grammars at import when it
    is there: 2 s in every kernel). `make venv` resolves the lock again when it installs: without the overrides
    it installed it anyway (the fresh clone's kernels ran 1.5x slower)."""
    import importlib.util

    removed = re.findall(r"^([A-Za-z0-9_.-]+) *;", (REPO / "requirements-overrides.txt").read_text(), re.M)
    assert removed == ["rfc3987-syntax"]
    assert all(importlib.util.find_spec(name.replace("-", "_")) is None for name in removed)
