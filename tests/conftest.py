import functools
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    """The shared folder (seeds, IO500 archive, built-tools runs): $IOBOOK_SHARED, else `shared/` beside this
    checkout (as CI has it), else beside the checkout this one was cloned from (`git clone . /tmp/x`)."""
    if os.environ.get("IOBOOK_SHARED"):
        return Path(os.environ["IOBOOK_SHARED"])
    beside = REPO.parent / "shared"
    origin = subprocess.run(["git", "-C", str(REPO), "remote", "get-url", "origin"],
                            capture_output=True, text=True).stdout.strip()
    if beside.is_dir() or not origin or not Path(origin).is_dir():
        return beside
    return Path(origin).resolve().parent / "shared"


# Fuzz budgets: `make test` runs the bounded profile (every property test of the suite within ~30 s),
# `make fuzz` the long one (HYPOTHESIS_PROFILE=fuzz). No test pins its own max_examples, which would win over
# the profile (tests/test_hypothesis_profile.py).
settings.register_profile("bounded", max_examples=30, deadline=None)
settings.register_profile("fuzz", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "bounded"))

SHARED = _shared().resolve()  # ingest stores resolved paths; ../shared may be a symlink
ARCHIVE = SHARED / "io500-submissions"
BUILT_TOOLS = SHARED / "fixtures" / "built-tools"
TUCSON_SC23 = (ARCHIVE / "IBM Tucson" / "Arches Storage Scale System 3500" / "IBM Storage Scale" / "2023"
               / "submission-679")


@pytest.fixture
def tucson_results(tmp_path) -> Path:
    """A copy of IBM Tucson's SC23 results folder (seed 000's 136.4 run), safe to modify."""
    import shutil

    dest = tmp_path / "submission-679"
    shutil.copytree(TUCSON_SC23 / "results" / "2023.10.22-06.40.20", dest)
    return dest


# Twenty real IO500 submissions whose full folders are not in data/raw (only their summaries are, or
# nothing): the five the curated copy lacks, and fifteen spread over the archive's years and file systems.
OTHER_SUBMISSIONS = [
    "Georgia Institute of Technology/PACE-Phoenix/lustre/2021/submission-551",
    "Janelia Research Campus, HHMI/Vast/Qumulo Core/2019/submission-177",
    "Janelia Research Campus, HHMI/nrs/Qumulo Core/2019/submission-194",
    "Janelia Research Campus, HHMI/qflash/Qumulo Core/2019/submission-198",
    "Janelia Research Campus, HHMI/qflash/Qumulo Core/2019/submission-203",
    "ACC Cyfronet AGH/Helios/Lustre/2024/submission-708",
    "CSIRO/bracewell/scratch2/2020/submission-49",
    "Clemson University/Palmetto/scratch4/2019/submission-191",
    "DDN/AI400X2-I/EXAScaler/2023/submission-657",
    "EPCC/Archer 2 (test system)/Work/2020/submission-472",
    "Howard Hughes Medical Institute Janelia Research Campus/Janelia Compute Cluster/Vast/2023/submission-693",
    "JNIST and HUST PDSL/Cheeloo-1 with OceanStor Pacific/OceanFS2/2023/submission-663",
    "Janelia Research Campus, HHMI/VastTest/Vast/2020/submission-197",
    "LNCC/SDumont/scratch/2020/submission-212",
    "NLHPC/Guacolda/ESS/2021/submission-589",
    "Nemours/nas6/GS7K/2019/submission-218",
    "Pengcheng Laboratory/Pengcheng Cloudbrain-II on Atlas 900/MadFS/2020/submission-452",
    "SPbPU/Polytechnic RSC Tornado/RSC Storage on demand Polytechnic/2020/submission-73",
    "TACC/Frontera/DAOS/2020/submission-13",
    "University of Cambridge/Data Accelerator/dac/2019/submission-78",
]

# The database the published chapters (book/*.ipynb) were executed on and nbval executes them on again: their
# db_path. pytest_sessionstart ingests data/raw into it before any test runs.
PUBLISHED_DB = REPO / "data" / "iobook.duckdb"

# The four databases every chapter is tested on: what each was ingested from.
DATABASES = {
    "empty": [],
    "built_tools": [BUILT_TOOLS],
    "other_io500": [ARCHIVE / s for s in OTHER_SUBMISSIONS],
    "default": [REPO / "data" / "raw"],
}


# The book's numbers must not depend on the machine that computes them (issue 37: on another CPU, numpy's vector
# paths and OpenBLAS's kernel changed last digits, so chart ids and download names). A chapter's kernel computes on
# every CPU's baseline (iobook.book.kernel); the tests' own process and every kernel they start do too, and with one
# DuckDB thread where `make book` wrote the committed chapters with two: nbval comparing the two is the check
# (tests/test_reproducible.py). Set before xdist starts its workers, which inherit it.
def baseline_only() -> dict[str, str]:
    from iobook.book import kernel

    return {**kernel.baseline_environment(), "IOBOOK_DUCKDB_THREADS": "1"}


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        os.environ.update(baseline_only())
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(ByFileScheduling())


FAST_TIER = "not slow"  # `make test-fast`'s marker expression (Makefile)


def pytest_sessionstart(session):
    """PUBLISHED_DB brought up to date with data/raw, as `make book` does (nothing to parse after a build),
    once and before pytest-xdist starts its workers (its own sessionstart runs last): only ingest writes
    DuckDB, and the chapters of every worker read this file at once."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller has done it
        return
    if session.config.option.markexpr == FAST_TIER:  # it reads no published database: no data/raw ingest
        return
    from iobook.database.ingest import ingest

    ingest(DATABASES["default"], PUBLISHED_DB, progress=False, prune=True)


# `make test` runs the tests in two pytest-xdist workers (-n 2), a file at a time, so that a module's fixtures
# (a book built, a collection run) are made once. nbval's run of the published chapters writes their downloads
# into book/, from which conftest.book_site builds the HTML that the page tests read: one worker runs them all,
# in that order (collection order: testpaths puts book/ first). Not xdist's `--dist loadgroup`: it renames
# node ids through an attribute pytest 9 no longer has, and groups nothing.
PUBLISHED_GROUP = "published-book"


class ByFileScheduling:
    """The xdist hook, registered only where pytest-xdist is loaded (pytest_configure): `pytest -p no:xdist` has no
    such hook, and a conftest defining it stopped at collection."""
    @staticmethod
    def pytest_xdist_make_scheduler(config, log):
        from xdist.scheduler import LoadScopeScheduling

        class ByFile(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                path = nodeid.split("::", 1)[0]
                return PUBLISHED_GROUP if path.startswith("book/") or path == "tests/test_book_pages.py" else path

        return ByFile(config, log)


# Two tiers, declared in the tests: a test that runs a kernel, builds the book, drives Chromium, runs a real tool,
# ingests a tree of files or draws hypothesis examples carries the `slow` marker (a module's `pytestmark` where
# every test of it does); `make test-fast` (-m "not slow") leaves those to `make test` (and `make fuzz`). nbval's
# items, the published chapters, are slow.
#
# A third tier, `shared`: the tests that read the shared folder (the IO500 archive, the built-tools logs, the seeds'
# text, the MLPerf corpus: what is large or not ours, shared/README.md). A test module belongs to it when it names
# that folder or what conftest builds from it (SHARED_NAMES); on a clone without the folder those tests are skipped,
# and the run ends saying which tier it left out and how to get it.
SHARED_NAMES = re.compile(r"\b(SHARED|ARCHIVE|BUILT_TOOLS|TUCSON_SC23|OTHER_SUBMISSIONS|tucson_results|built_tools|"
                          r"other_io500)\b")
SHARED_DATABASES = ("built_tools", "other_io500")  # DATABASES ingested from the shared folder
SHARED_MISSING = (f"needs the shared folder, not found at {SHARED}: set IOBOOK_SHARED to it, or put it at ../shared "
                  "(the IO500 archive from github.com/IO500/submission-data, the built-tools logs and the seeds; "
                  "README.md, 'Tests')")


def has_shared() -> bool:
    return ARCHIVE.is_dir() and BUILT_TOOLS.is_dir()


@functools.cache
def _names_shared(path: Path) -> bool:
    return bool(SHARED_NAMES.search(path.read_text(encoding="utf-8")))


def needs_shared(item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    return (item.path.suffix == ".py" and _names_shared(item.path)) or any(
        v in SHARED_DATABASES for v in params.values() if isinstance(v, str))


def pytest_collection_modifyitems(config, items):
    missing = not has_shared()
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
        if needs_shared(item):
            item.add_marker(pytest.mark.shared)
            if missing:
                item.add_marker(pytest.mark.skip(reason=SHARED_MISSING))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not has_shared():
        left = sum(1 for r in terminalreporter.stats.get("skipped", []) if SHARED_MISSING in str(r.longrepr))
        terminalreporter.write_line(f"shared tier left out: {left} tests {SHARED_MISSING}", yellow=True, bold=True)


@pytest.fixture(scope="session", autouse=True)
def own_working_folder(tmp_path_factory):
    """Each test process works in a folder of its own: a study writes its downloads into ./_static/downloads,
    as a kernel does beside its chapter, and the Data chapter's export removes the exports of other database
    contents there; two xdist workers in the checkout's folder deleted each other's files (and left them in the
    checkout)."""
    previous = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("cwd"))
    yield
    os.chdir(previous)


@pytest.fixture(scope="session")
def databases(tmp_path_factory) -> dict[str, Path]:
    """name -> path of a database ingested from DATABASES[name], built once per test session (per xdist
    worker); "default" is PUBLISHED_DB, which pytest_sessionstart brought up to date."""
    from iobook.database import store
    from iobook.database.ingest import ingest

    folder = tmp_path_factory.mktemp("databases")
    built = {"default": PUBLISHED_DB}
    for name, paths in DATABASES.items():
        if name == "default" or (name in SHARED_DATABASES and not has_shared()):
            continue
        built[name] = folder / f"{name}.duckdb"
        if paths:
            ingest(paths, built[name], progress=False)
        else:
            store.open_write(built[name]).close()
    return built


@pytest.fixture(scope="session", params=list(DATABASES))
def any_db(request, databases):
    """(name, read-only connection) for each of the four databases in turn."""
    from iobook.database import store

    con = store.open_read(databases[request.param])
    yield request.param, con
    con.close()


@functools.cache
def chapter_report(chapter: str, db: Path = PUBLISHED_DB):
    """A study's report on a test database (PUBLISHED_DB unless given) with the study's own defaults, computed once
    per test process: a report is a function of the database and its parameters, and the tests only read it (page
    cache's takes ~4 s on data/raw and 13 of its tests read it)."""
    import importlib

    from iobook.book import nb

    study = importlib.import_module(f"iobook.studies.{chapter}")
    with nb.setup(db) as con:
        return study.report(con)


def execute_chapter(name: str, db: Path, folder: Path, *, kernel: bool = False, **parameters) -> list[str]:
    """The text of every code-cell output of notebooks/<name>.ipynb run on `db` with `parameters` (markdown,
    html, plain text and streams of one output joined), in order. `kernel`: executed by papermill in a kernel into
    `folder` as `make book` does (~10 s a run under load; a failing cell raises PapermillExecutionError), for the
    tests that need the executed notebook file or papermill's error; else run in this process's IPython shell,
    cell by cell as the kernel runs them (the parameters cell, then papermill's injected one, then the template's
    code), in `folder`: the same outputs in ~1 s, a cell's error raised, its warnings returned as a kernel's stderr
    shows them. Every chapter runs in a kernel on data/raw (nbval) and in the books the tests build (own logs,
    anonymised)."""
    if kernel:
        import nbformat

        from iobook.book import kernel as chapter_kernel

        out = folder / f"{name}.ipynb"
        chapter_kernel.execute(REPO / "notebooks" / f"{name}.ipynb", out, {"db_path": str(db), **parameters}, folder)
        return ["\n".join([*map(str, o.get("data", {}).values()), o.get("text", "")])
                for cell in nbformat.read(out, 4).cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    import contextlib
    import warnings

    import nbformat
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    cells = [c.source for c in nbformat.read(REPO / "notebooks" / f"{name}.ipynb", 4).cells if c.cell_type == "code"]
    injected = "\n".join(f"{key} = {value!r}" for key, value in {"db_path": str(db), **parameters}.items())
    shell = InteractiveShell.instance()
    with contextlib.chdir(folder), capture_output() as captured, warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        for source in [cells[0], injected, *cells[1:]]:
            shell.run_cell(source, store_history=False).raise_error()
    # a warning, which a kernel prints into the cell's stderr output (and the page shows)
    return (["\n".join(map(str, o.data.values())) for o in captured.outputs] + [captured.stdout]
            + [f"{w.category.__name__}: {w.message}" for w in warned])


@pytest.fixture(scope="session")
def book_site() -> Path:
    """_build/html built by Jupyter Book from the chapters in book/ as they are, executing none. In `make test`
    nbval has executed and compared each chapter before (testpaths puts book/ first), writing the downloads
    they link to, which git does not keep."""
    from iobook.book import build

    assert PUBLISHED_DB.exists(), f"no {PUBLISHED_DB}: pytest_sessionstart ingests data/raw into it first"
    assert build.build_site(PUBLISHED_DB) == 0, "jupyter-book build failed (its output is above)"
    return build.HTML


def database_digest(db: Path) -> dict[str, tuple[int, str]]:
    """table -> (rows, sha256 of its sorted rows), for every table of the database (sources included) but
    file_stats: the stat cache of the machine that ingested (inodes, ctimes), which a load from Parquet
    starts without."""
    import hashlib

    from iobook.database import store

    con = store.open_read(db)
    try:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_type = 'BASE TABLE' AND table_name <> 'file_stats' "
                                           "ORDER BY 1").fetchall()]
        out = {}
        for name in names:
            rows = sorted(repr(r) for r in con.execute(f"SELECT * FROM {name}").fetchall())
            out[name] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest())
        return out
    finally:
        con.close()


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, written out here for the tests that recompute a chapter's verdicts
    (the package's own is iobook.inference.stats.holm)."""
    order = sorted(range(len(p)), key=p.__getitem__)
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def copy_checkout(dest: Path) -> Path:
    """This working tree's files (tracked and new, as they are now), without data/raw, in the folder `dest`: a
    checkout of its own for a test that builds or writes into it."""
    import shutil

    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for rel in listed:
        if rel.startswith("data/raw/") or not (REPO / rel).is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, dest / rel)
    return dest
