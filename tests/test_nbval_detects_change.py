"""nbval guards the published book: on a copy of the repository (the files a commit of this checkout would
hold, at another path), the published chapter passes `make test`'s nbval step as it is, and fails once one
published number changes without the chapter being updated. Judged by nbval's exit status and pytest's count
of failed cells (JUnit XML), not by how nbval words a difference."""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

CHAPTER = "io500_score"
# IBM's SC23 table (seed 000, slide "IO500 submissions from IBM for SC23"): IBM Tucson's ior-easy-write, 106.6
# GiB/s, which the chapter shows beside the value recomputed from the run's own summary.
PUBLISHED = Path("data/published/seed000_sc23_io500.csv")
ROW = "sc23_ibm_io500,ior-easy-write,IBM Tucson,106.6,106.6,GiB/s,"
CHANGED = "sc23_ibm_io500,ior-easy-write,IBM Tucson,106.7,106.7,GiB/s,"


def run(copy: Path, *args: str) -> subprocess.CompletedProcess:
    """A command in the copy, with the copy's package first on the path (the kernels inherit it)."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The checkout's files as a commit would hold them (tracked and new, not ignored), data/raw ingested as
    `make test` does."""
    dest = tmp_path_factory.mktemp("copy") / "iobook"
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.exists() or source.is_symlink():  # a tracked file deleted in the checkout is not copied
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name, follow_symlinks=False)
    assert (dest / PUBLISHED).read_text(encoding="utf-8").count(ROW) == 1
    ingested = run(dest, "-m", "iobook", "ingest", "--quiet", "--prune", "--db", "data/iobook.duckdb", "data/raw")
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    return dest


def nbval(copy: Path) -> tuple[int, int, int]:
    """(exit status, cells checked, cells failed) of nbval on the copy's published chapter."""
    report = copy / "nbval.xml"
    result = run(copy, "-m", "pytest", "-p", "no:cacheprovider", "--nbval", "--nbval-sanitize-with",
                 str(copy / "tests" / "nbval-sanitize.cfg"), f"--junitxml={report}", f"book/{CHAPTER}.ipynb")
    suite = ET.parse(report).getroot().find("testsuite")
    failed = int(suite.get("failures")) + int(suite.get("errors"))
    return result.returncode, int(suite.get("tests")), failed


def code_cells() -> int:
    import nbformat

    return sum(c.cell_type == "code" for c in nbformat.read(REPO / "book" / f"{CHAPTER}.ipynb", 4).cells)


def test_the_published_chapter_passes_as_it_is(copy):
    status, checked, failed = nbval(copy)
    assert (status, failed) == (0, 0) and checked == code_cells()


def test_one_changed_published_number_fails(copy):
    csv = copy / PUBLISHED
    original = csv.read_text(encoding="utf-8")
    csv.write_text(original.replace(ROW, CHANGED), encoding="utf-8")
    try:
        status, checked, failed = nbval(copy)
    finally:
        csv.write_text(original, encoding="utf-8")
    assert status == 1 and 1 <= failed < checked == code_cells()
