"""Every study's report on a tiny database, ingested in-process from a few small committed files: one collector run
of each local study (data/raw/pagecache, checksum, snapshots), one IO500 submission (IBM Tucson's SC23 run,
submission-679), one IOR run and one fio run (data/examples). The fast tier's check that every study runs end to
end on little data and pastes only keys its report has; no data/raw ingest, no kernel."""
import importlib

import pytest
from conftest import REPO, TUCSON_SC23
from test_glue_keys import _template, pasted_keys

from iobook.book import chapters
from iobook.database import store
from iobook.database.ingest import ingest

TINY = [REPO / "data/raw/pagecache/vm-20261123T160932Z", REPO / "data/raw/checksum/vm-20261121T131428Z",
        REPO / "data/raw/snapshots/vm-20261121T132957Z", TUCSON_SC23,
        REPO / "data/examples/ior-history/change/run01", REPO / "data/examples/history/steady/run01"]


def opened(paths, db):
    """The database ingested from `paths` with no file failing, open for reading while the fixture lives."""
    assert ingest(paths, db, progress=False)["failed"] == 0
    con = store.open_read(db)
    yield con
    con.close()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    yield from opened(TINY, tmp_path_factory.mktemp("tiny") / "tiny.duckdb")


@pytest.mark.parametrize("database", ["tiny", "killed"])
@pytest.mark.parametrize("chapter", [c.name for c in chapters.load_registry()])
def test_every_study_reports_on_a_tiny_database(chapter, database, request):
    """Every study on the tiny database, and on one whose only IO500 run was killed before its score."""
    registry = {c.name: c for c in chapters.load_registry()}[chapter]
    con = request.getfixturevalue(database)
    report = importlib.import_module(f"iobook.studies.{chapter}").report(con, **registry.parameters)
    missing = pasted_keys(_template(chapter)["cells"], report.values) - report.keys()
    assert not missing, f"{chapter} pastes keys its report lacks on the {database} database: {sorted(missing)}"


def test_a_database_whose_only_io500_run_is_flagged_still_shows_it(tiny):
    """submission-679 changes the file system's settings while it runs (find_script/stop_cont_io500.sh: the audit's
    CHANGED_DURING_RUN): the chapter shows its phases anyway, and says why (it crashed on an empty choice)."""
    from iobook.studies import io500_score

    report = io500_score.report(tiny)
    assert report.values["flagged_runs"] == 1 and report.values["best"].startswith("submission-679")
    assert "every run here carries a validity flag" in report.values["phase_rule"]


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A run killed before its score: submission-679's result.txt up to the end of its [find] phase (line 56 of
    111; its [SCORE] section starts at line 106), as a run stopped during ior-easy-read leaves it."""
    folder = tmp_path_factory.mktemp("killed")
    (folder / "run").mkdir()
    lines = (TUCSON_SC23 / "results" / "2023.10.22-06.40.20" / "result.txt").read_text().splitlines(keepends=True)
    (folder / "run" / "result.txt").write_text("".join(lines[:56]))
    yield from opened([folder / "run"], folder / "killed.duckdb")


def test_a_run_without_a_score_is_counted_and_no_phase_weights_are_made_up(killed):
    from iobook.studies import io500_score

    report = io500_score.report(killed)
    assert report.values["runs"] == 1 and report.values["reproduced"] == 0 and report.values["has_scored"] is False
    assert "tab-io500-weights" not in report.tables and "fig-io500-phases" not in report.figures
