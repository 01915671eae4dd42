"""`pip install .` gives the `iobook` command with its dependencies declared in pyproject.toml, pinned as the lock
that `make venv` installs (requirements.lock) pins them."""
import csv
import html
import importlib
import json
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile

import pytest
from conftest import REPO, copy_checkout

# data/reference/'s tables, which the package reads through iobook.database.reference (issue 37)
REFERENCE_TABLES = ("filesystems.csv", "releases.csv", "io500_archive_runs.csv", "client_links.csv",
                    "network_rates.csv")


def test_console_script_and_dependencies_match_the_lock():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, _, function = project["scripts"]["iobook"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))
    lock = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (REPO / "requirements.lock").read_text(), re.M))
    lock = {name.lower().replace("_", "-"): version for name, version in lock.items()}
    declared = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    pins = dict(d.split("==") for d in declared)
    assert {name: lock.get(name) for name in pins} == pins  # every pin is the lock's version


@pytest.mark.slow
def test_the_command_runs_its_subcommands():
    """The script's function as the console script calls it: `iobook --help` lists ingest, book, new-chapter."""
    shown = subprocess.run([sys.executable, "-c", "import sys; from iobook.cli.main import main; sys.exit(main())",
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


def test_every_package_folder_is_listed():
    """pyproject.toml lists the packages (packages.find cannot add data/reference/ mapped into the package as
    iobook.reference_data): every folder of iobook/ is in the list, so that none is left out of the wheel."""
    from setuptools.discovery import PEP420PackageFinder

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = PEP420PackageFinder.find(str(REPO), include=["iobook*"])
    assert sorted(config["packages"]) == sorted([*found, "iobook.reference_data", "iobook.book_source"])
    assert config["package-dir"] == {"iobook.reference_data": "data/reference", "iobook.book_source": "."}


@pytest.mark.slow
def test_an_installed_wheel_reads_the_reference_tables_and_builds_the_book_elsewhere(tmp_path):
    """Issue 37: `pip install .` (not editable), then `iobook ingest` outside the checkout raised FileNotFoundError
    for site-packages/data/reference/filesystems.csv. The wheel built from this working tree carries the three
    tables of data/reference/ (the checkout's one copy) in iobook/reference_data/, and the installed package
    reads them there: each with the committed file's rows. The build writes into its source folder (setuptools
    builds in place): all it writes there is ignored by git."""
    source = copy_checkout(tmp_path / "checkout")
    before = {p for p in source.rglob("*") if p.is_file()}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--wheel-dir", str(tmp_path / "wheels"), str(source)], check=True, capture_output=True)
    written = sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file() and p not in before)
    ignored = subprocess.run(["git", "-C", str(REPO), "check-ignore", "--no-index", *written],
                             capture_output=True, text=True).stdout.split()
    assert written and ignored == written  # build/ and iobook.egg-info/

    (wheel,) = (tmp_path / "wheels").glob("iobook-*.whl")
    with zipfile.ZipFile(wheel) as z:
        for name in REFERENCE_TABLES:
            assert z.read(f"iobook/reference_data/{name}") == (REPO / "data" / "reference" / name).read_bytes()

    # a venv of its own with the wheel installed, the dependencies from this one (a .pth line, after its own
    # site-packages: this venv's editable iobook is not seen)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                    "--no-index", "--quiet", str(wheel)], check=True, capture_output=True)
    site = venv / "lib" / "python3.11" / "site-packages"
    (site / "dependencies.pth").write_text(
        "\n".join(dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))) + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    loaded = subprocess.run(
        [venv / "bin" / "python", "-c", "import json, iobook;"
         " from iobook.database import families, io500_runs, networks, setups;"
         "print(json.dumps({'package': iobook.__file__, 'paths': [str(families.FILESYSTEMS_CSV),"
         " str(setups.RELEASES_CSV), str(io500_runs.ARCHIVE_RUNS_CSV), str(setups.CLIENT_LINKS_CSV),"
         " str(networks.NETWORK_RATES_CSV)], 'rows': ["
         "sum(map(len, families._rows_by_name().values())), len(setups.curated(setups.RELEASES_CSV, 'release')),"
         " len(io500_runs.archive_runs()), len(setups.curated(setups.CLIENT_LINKS_CSV)), len(networks._rows())]}))"],
        capture_output=True, text=True, cwd=elsewhere)
    assert loaded.returncode == 0, loaded.stderr
    loaded = json.loads(loaded.stdout)
    assert loaded["package"] == str(site / "iobook" / "__init__.py")
    assert loaded["paths"] == [str(site / "iobook" / "reference_data" / name) for name in REFERENCE_TABLES]
    committed = []
    for name in REFERENCE_TABLES:
        with (REPO / "data" / "reference" / name).open(newline="", encoding="utf-8") as f:
            committed.append(sum(1 for _ in csv.DictReader(f)))
    assert loaded["rows"] == committed and min(committed) > 0

    # the console script, as the issue ran it: ingest one run folder (its digest reads the three tables)
    ingested = subprocess.run([venv / "bin" / "iobook", "ingest", "--quiet", "--db", "runs.duckdb",
                               str(REPO / "data" / "examples" / "history" / "steady" / "run01")],
                              capture_output=True, text=True, cwd=elsewhere)
    assert ingested.returncode == 0, ingested.stderr
    assert "parsed 2" in ingested.stdout + ingested.stderr and "failed 0" in ingested.stdout + ingested.stderr

    # the whole book on those logs, from this other folder (issue 37: it crashed for want of notebooks/chapters.yml):
    # the wheel's book sources unpacked into _build/iobook/, the book of the folder under it
    built = subprocess.run([venv / "bin" / "iobook", "book", "--quiet", "--data", str(REPO / "data" / "examples" /
                            "history" / "steady" / "run01")], capture_output=True, text=True, cwd=elsewhere)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    book = elsewhere / "_build" / "iobook"
    assert (book / "notebooks" / "chapters.yml").read_bytes() == (REPO / "notebooks" / "chapters.yml").read_bytes()
    (run01,) = (book / "_build").glob("run01-*")  # build.build_name: the folder's name and a digest of its path
    assert (run01 / "_build" / "html" / "book" / "your_runs.html").is_file()
    # the Data page names the database as the reader who ran the command finds it, from this folder (it named it
    # relative to the unpacked sources: _build/run01/..., a path that is not there)
    (database,) = run01.glob("*.duckdb")
    data_page = (run01 / "_build" / "html" / "book" / "data.html").read_text(encoding="utf-8")
    assert f'duckdb.connect("{database.relative_to(elsewhere)}", read_only=True)' in html.unescape(
        re.sub(r"<[^>]+>", "", data_page))
