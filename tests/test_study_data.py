"""The Data chapter (iobook/studies/data/, notebooks/data.ipynb) on the four test databases."""
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import BUILT_TOOLS, DATABASES, REPO, SHARED, execute_chapter

from iobook.book.report import FIRST_FINDING_WORDS
from iobook.studies import data, your_runs
from iobook.studies.data import analysis, findings, views

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

SNAPSHOT_RUN = "data/raw/snapshots/vm-20261121T132957Z"


def files_on_disk(name: str) -> int:
    return sum(1 for root in DATABASES[name] for p in Path(root).rglob("*") if p.is_file())


def test_every_public_view_is_described(any_db):
    _, con = any_db
    shown = views.get_views(con)
    assert shown["one row per"].notna().all(), shown.loc[shown["one row per"].isna(), "view"].tolist()
    assert set(shown["view"]) == set(views.VIEW_ROWS)  # no description of a view that no longer exists
    assert shown["view"].iloc[0] == "sources"
    fio = shown.set_index("view").loc["fio_io", "columns"]
    assert fio.startswith("job_id, ") and "iops" in fio.split(", ")


def test_counts_on_each_database(any_db):
    name, con = any_db
    status = analysis.get_status_counts(con)
    by_kind = analysis.get_files_by_kind(con)
    assert analysis.source_count(con) == sum(status.values()) == by_kind["files"].sum() == files_on_disk(name)
    assert status["gone"] == 0  # each test database is ingested once
    # read since they have parsers: built_tools io500/run1-.../verify.log (io500 --verify) and find.csv (pfind);
    # other_io500 the 5 find*.csv of OTHER_SUBMISSIONS (`find ... -name "find*.csv"`), and the 4 files describing a
    # system in io500_info lines (`grep -l "^io500_info_"`: Janelia's submission-177/io500.sh, 194, 198 and 203's
    # io500.cfg): io500-system-information
    expected = {"empty": {"ok": 0, "error": 0, "skipped": 0}, "built_tools": {"ok": 45, "error": 2, "skipped": 5},
                "other_io500": {"ok": 263, "error": 0, "skipped": 46}}.get(name)
    if expected is not None:
        assert {k: status[k] for k in expected} == expected
    runs = analysis.get_run_counts(con)
    assert runs["IO500"] == {"empty": 0, "built_tools": 1, "other_io500": 16}.get(name, runs["IO500"])
    if name == "default":  # each run once: data/raw stores 12 IO500 runs twice (io500_duplicate_runs' rows)
        stored, again = con.execute("SELECT count(*), count(*) FILTER (WHERE run_id IN "
                                    "(SELECT run_id FROM io500_duplicate_runs)) FROM io500_runs").fetchone()
        assert again == 12 and runs["IO500"] == stored - again
        assert analysis.get_copies(con) == again  # and no fio, IOR or mdtest log is stored twice there
    if name == "default":
        # a collector run is a folder of data/raw/<study>/ holding the manifest.json the collector wrote
        assert {k: runs[k] for k in ("checksum", "pagecache", "snapshots")} == {
            study: len(list((REPO / "data" / "raw" / study).glob("*/manifest.json")))
            for study in ("checksum", "pagecache", "snapshots")}
    other = analysis.get_result_logs(con)
    table = analysis.run_table(runs, other)
    assert table.columns.tolist() == ["what", "count"] and table["count"].tolist() == [*runs.values(), *other.values()]


def test_result_logs_are_counted_as_your_runs_reads_them(databases):
    """Every built-tools IOR and mdtest log with a result, its own run's or an io500 phase's (MANIFEST.tsv: tool
    `ior...` or `mdtest...`, a .log or .txt), but the two failed ones and mdtest -Z (it prints times, no rate):
    the Data chapter counts the files the Your runs chapter reads, whatever run they belong to."""
    import csv

    from iobook.database import store

    with open(BUILT_TOOLS / "MANIFEST.tsv", newline="") as f:
        manifest = list(csv.DictReader(f, delimiter="\t"))
    no_result = {"ior/ior_error_nonexistent_dir_np2.log", "mdtest/mdtest_error_multi_dir_shared_np2.log",
                 "mdtest/mdtest_time_Z_np2.log"}
    expected = {}
    for row in manifest:
        tool = row["tool"].split()[0]
        if tool in ("ior", "mdtest") and row["file"].endswith((".log", ".txt")) and row["file"] not in no_result:
            expected[tool] = expected.get(tool, 0) + 1
    with store.open_read(databases["built_tools"]) as con:
        logs = analysis.get_result_logs(con)
        found = findings.chapter_findings(analysis.get_status_counts(con), analysis.get_failed(con), analysis.get_run_counts(con),
                              views.get_views(con), logs, your_runs.get_failed_phases(con), analysis.get_copies(con),
                              analysis.get_setup_fields(con))
        read = your_runs.get_runs(con)
    assert logs == {"IOR": expected["ior"], "mdtest": expected["mdtest"]} == {"IOR": 12, "mdtest": 13}
    assert sum(logs.values()) == read.source_id.nunique()  # the same files Your runs reads
    described = next(f.text for f in found if f.target == "tab-data-runs")
    assert f"IOR {expected['ior']}, mdtest {expected['mdtest']}" in described
    with store.open_read(databases["empty"]) as con:
        assert analysis.get_result_logs(con) == {}


def test_empty_database_has_nothing_to_list(databases):
    from iobook.database import store

    with store.open_read(databases["empty"]) as con:
        assert analysis.source_count(con) == 0
        assert analysis.get_files_by_kind(con).empty and analysis.get_failed(con).empty and analysis.get_sources(con).empty
        assert analysis.get_run_counts(con) == {"IO500": 0}


def test_failed_files_with_reason_and_line(databases):
    from iobook.database import store

    with store.open_read(databases["built_tools"]) as con:
        failed = analysis.get_failed(con)
    # ior/ior_error_nonexistent_dir_np2.log line 34: 'ERROR: open64("/tmp/bench/data/does/not/exist/testfile", ...'
    # mdtest/mdtest_error_multi_dir_shared_np2.log line 5: '... FAILED in md_validate_tests_rank0, shared directory ...'
    assert failed["path"].tolist() == ["built-tools/ior/ior_error_nonexistent_dir_np2.log",
                                       "built-tools/mdtest/mdtest_error_multi_dir_shared_np2.log"]
    assert failed["line"].tolist() == [34, 5]
    assert failed["format"].tolist() == ["ior-text", "mdtest-text"]
    assert "does/not/exist/testfile" in failed["reason"].iloc[0]
    assert "shared directory mode is not compatible" in failed["reason"].iloc[1]


def test_paths_are_never_absolute(any_db):
    name, con = any_db
    sources = analysis.get_sources(con)
    assert not sources["path"].str.startswith("/").any()
    assert sources["path"].is_unique and sources["path"].is_monotonic_increasing
    if name == "default":
        row = sources.set_index("path").loc[f"{SNAPSHOT_RUN}/manifest.json"]
        # the manifest's size on disk (stat -c %s)
        assert (row["format"], row["status"], row["size (bytes)"]) == (
            "iobook-manifest", "ok", (REPO / SNAPSHOT_RUN / "manifest.json").stat().st_size)
        assert analysis.get_skip_reasons(con).set_index("reason")["files"].sum() == analysis.get_status_counts(con)["skipped"]
    if name == "other_io500":
        assert sources["path"].str.startswith("io500-submissions/").all()


@pytest.mark.parametrize("name", list(DATABASES))
def test_notebook_executes(name, databases, tmp_path):
    text = "\n".join(execute_chapter("data", databases[name], tmp_path))  # glued values included
    assert str(REPO) not in text and str(SHARED) not in text
    if name == "empty":
        assert "This database holds no ingested files" in text and "python -m iobook book --data DIR" in text
        assert "<table" not in text and "were parsed" not in text
    else:
        assert "were parsed" in text and 'class="iobook-searchable"' in text and "<table" in text
        assert ("No file in a format iobook reads failed to parse." in text) == (name != "built_tools")


@pytest.mark.parametrize("name", ["built_tools", "other_io500", "default"])  # empty: the no-data note instead
def test_findings_each_link_a_table_and_the_first_is_short(name, databases):
    from iobook.database import store

    con = store.open_read(databases[name])
    found = findings.chapter_findings(analysis.get_status_counts(con), analysis.get_failed(con), analysis.get_run_counts(con),
                          views.get_views(con), analysis.get_result_logs(con), your_runs.get_failed_phases(con), analysis.get_copies(con),
                          analysis.get_setup_fields(con))
    assert 3 <= len(found) <= 7 and all(f.target.startswith("tab-data-") for f in found)
    assert len(found[0].text.split()) <= FIRST_FINDING_WORDS
    status = analysis.get_status_counts(con)
    assert found[0].text.startswith(f"{status['ok']:,} of the {sum(status.values()):,} files ingested were parsed")
    con.close()


def test_failed_phases_are_listed_with_file_line_and_reason(tmp_path):
    """The mdtest phases that printed their operations' failure (tests/fixtures/mdtest/SOURCES.md: submissions 699,
    733, 661) are listed in the Data chapter as Your runs lists them, and a finding counts them."""
    from iobook.database import ingest, store

    db = tmp_path / "t.duckdb"
    ingest.ingest([REPO / "tests" / "fixtures" / "mdtest"], db, progress=False)
    con = store.open_read(db)
    r = data.report(con)
    assert r.tables["tab-data-failed-phases"].frame.equals(your_runs.get_failed_phases(con))
    assert r.values["phases_failed"] == 5
    (finding,) = [f for f in r.findings if f.target == "tab-data-failed-phases"]
    assert finding.text.startswith("5 phases (mdtest) say they failed")


def test_setup_fields_are_a_census_of_the_runs_stating_them(databases):
    from iobook.database import store

    with store.open_read(databases["default"]) as con:
        fields = analysis.get_setup_fields(con).set_index("field")
        runs = analysis.get_run_counts(con)["IO500"]
        finding = findings.setup_finding(analysis.get_setup_fields(con), runs)[0].text
    # every IO500 run of data/raw has a family (io500_runs); the six IBM runs whose find_script changes Storage
    # Scale's settings while they run (651, 679, 687, 690, 722, 731: tests/test_setups.py), each counted once
    assert fields.loc["family", "IO500 runs stating it"] == runs
    assert fields.loc["changed_during_run", "IO500 runs stating it"] == 6
    assert fields.loc["protection", "IO500 runs stating it"] == 30  # the DAOS runs naming object classes
    assert finding.startswith(f"Of the {runs:,} IO500 runs, ") and "30 their data protection" in finding
    # a run's list from the IO500 site's record where it holds the run's submission (data/reference/
    # io500_site_lists.csv's ids against the runs' submission folders), and submission-689, a copy of 548's run
    # (issue 46), takes 548's; the rest inferred from the archive's year and the run's start
    site = set(pd.read_csv(REPO / "data" / "reference" / "io500_site_lists.csv").id)
    with store.open_read(databases["default"]) as con:
        submissions = [s for (s,) in con.execute("SELECT submission FROM io500_runs WHERE counted").fetchall()]
    recorded = sum(s in site for s in submissions) + 1
    listed = fields.loc["list", "IO500 runs stating it"]
    assert fields.loc["list", "from (runs)"] == f"IO500 site record: {recorded}; inferred: {listed - recorded}"


def test_the_chapter_names_the_database_it_read(databases, tmp_path):
    """Issue 36: the chapter told readers to open data/iobook.duckdb whatever database it was executed on. A build on
    other data keeps its database in _build/<name>/iobook.duckdb (iobook/book/build.py, default_db), a user's may be
    anywhere: the chapter names the one it read, relative to the repository when inside it."""
    from iobook.database import store

    with store.open_read(REPO / "data" / "iobook.duckdb") as con:
        assert analysis.database_path(con) == "data/iobook.duckdb"
    build = REPO / "_build" / f"test-data-chapter-{os.getpid()}"
    build.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copy(databases["built_tools"], build / "iobook.duckdb")
        with store.open_read(build / "iobook.duckdb") as con:
            r = data.report(con)
        assert r.values["database"] == f"_build/{build.name}/iobook.duckdb"
        assert r.values["open_database"].startswith(
            f'Open the database yourself, read-only, with `duckdb.connect("_build/{build.name}/iobook.duckdb", '
            'read_only=True)`')
        text = "\n".join(execute_chapter("data", build / "iobook.duckdb", tmp_path))  # glued values included
        assert f'duckdb.connect("_build/{build.name}/iobook.duckdb"' in text and "data/iobook.duckdb" not in text
    finally:
        shutil.rmtree(build)
    with store.open_read(databases["other_io500"]) as con:  # outside the repository: its own path
        assert analysis.database_path(con) == str(Path(databases["other_io500"]).resolve())
