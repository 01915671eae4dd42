"""The docs name only what exists (issue 49: the README documented a removed check, notebooks/README.md a make target
and a helper that were gone): every package path, make target and iobook command the README, docs/,
notebooks/README.md and data/reference/README.md name is in the checkout, the Makefile and `iobook --help`."""
import re

import pytest
from conftest import REPO

from iobook.cli.main import main

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "notebooks" / "README.md",
        REPO / "data" / "reference" / "README.md"]
PACKAGE_PATH = re.compile(r"(?<![\w/])iobook/[\w/.]+(?:\.py|\.sql|/)")  # placeholders (<name>) are no path
MAKE_TARGET = re.compile(r"`make ([a-z][\w-]*)")
COMMAND = re.compile(r"`(?:python -m )?iobook ([a-z][\w-]*)")
# not in a checkout: the wheel's name for data/reference (pyproject.toml's package-dir), and what the README's
# `iobook new-chapter my_study` example writes
NOT_IN_A_CHECKOUT = {"iobook/reference_data/", "iobook/studies/my_study/"}


def named(pattern: re.Pattern) -> set[str]:
    return {m for doc in DOCS for m in pattern.findall(doc.read_text(encoding="utf-8"))}


def test_every_package_path_the_docs_name_exists():
    paths = named(PACKAGE_PATH) - NOT_IN_A_CHECKOUT
    assert len(paths) >= 10  # the README's layout and the chapter guide name the layers' modules
    assert sorted(p for p in paths if not (REPO / p).exists()) == []


def test_every_make_target_the_docs_name_exists():
    targets = set(re.findall(r"^([a-z][\w-]*):", (REPO / "Makefile").read_text(encoding="utf-8"), re.M))
    assert {"book", "test", "test-fast"} <= named(MAKE_TARGET)
    assert sorted(named(MAKE_TARGET) - targets) == []


def test_every_command_the_docs_name_exists(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    commands = set(re.search(r"\{([\w,-]+)\}", capsys.readouterr().out)[1].split(","))
    assert {"book", "check", "ingest"} <= named(COMMAND)
    assert sorted(named(COMMAND) - commands) == []
