"""The book rebuilds incrementally: ingest keeps its database between builds and drops files gone from the
folders, a run killed between writing files and rebuilding the derived tables is completed by the next,
and a chapter's inputs digest changes exactly when files of a tool it reads change."""
import json
import shutil
import subprocess
import sys

import pytest
from conftest import BUILT_TOOLS, REPO

from iobook.book import chapters
from iobook.database import store
from iobook.database.ingest import ingest
from iobook.database.sql import query


@pytest.mark.slow
def test_files_gone_from_the_folders_drop_out_and_come_back(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False, prune=True)
    summary = tucson_results / "result_summary.txt"
    kept = summary.read_bytes()
    summary.unlink()
    counts = ingest([tucson_results], db, progress=False, prune=True)
    con = store.open_read(db)
    (source_id, status), = con.execute("SELECT source_id, status FROM sources WHERE path = ?", [str(summary)]).fetchall()
    assert counts["gone"] == 1 and status == "gone"
    assert con.execute("SELECT count(*) FROM raw_io500_phases WHERE source_id = ?", [source_id]).fetchone() == (0,)
    # result.txt still describes the run: it stays, now without the summary among its files
    assert con.execute("SELECT count(*) FROM io500_run_files WHERE source_id = ?", [source_id]).fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM io500_runs").fetchone() == (1,)
    # the Data chapter lists the files of this build; a gone file is only counted there
    from iobook.studies import data, your_runs

    listed = data.get_sources(con)
    status = data.get_status_counts(con)
    assert not listed.path.str.endswith("/result_summary.txt").any() and status["gone"] == 1
    # its totals count this build's files only: the folder's files on disk, not the gone one beside them
    on_disk = sum(1 for p in tucson_results.rglob("*") if p.is_file())
    assert data.get_files_by_kind(con)["files"].sum() == len(listed) == on_disk
    outcome = data.findings.chapter_findings(
        status, data.get_failed(con), data.get_run_counts(con), data.get_views(con), data.get_result_logs(con),
        your_runs.get_failed_phases(con), data.get_copies(con), data.get_setup_fields(con))[0].text
    assert outcome.startswith(f"{status['ok']:,} of the {on_disk:,} files ingested were parsed")
    con.close()
    summary.write_bytes(kept)
    counts = ingest([tucson_results], db, progress=False, prune=True)
    con = store.open_read(db)
    assert counts["changed"] == 1 and counts["gone"] == 0
    assert con.execute("SELECT status FROM sources WHERE path = ?", [str(summary)]).fetchone() == ("ok",)
    # the score line of result_summary.txt: "[SCORE ] Bandwidth 74.197... GiB/s : IOPS 250.6... kiops : TOTAL 136.4..."
    assert round(con.execute("SELECT score FROM io500_scores").fetchone()[0], 1) == 136.4


@pytest.mark.slow
def test_plain_ingest_adds_without_pruning(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    counts = ingest([BUILT_TOOLS / "ior"], db, progress=False)
    con = store.open_read(db)
    assert counts["gone"] == 0
    assert con.execute("SELECT count(*) FROM sources WHERE status = 'gone'").fetchone() == (0,)


@pytest.mark.slow
def test_derived_tables_left_stale_by_a_crash_are_rebuilt(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    con = store.open_write(db)  # what a kill -9 after a batch's commit leaves: records in, derived tables not
    con.execute("DELETE FROM io500_run_info")
    store.set_derived_stale(con, True)
    con.close()
    counts = ingest([tucson_results], db, progress=False)
    con = store.open_read(db)
    assert counts["unchanged"] == counts["seen"]
    assert con.execute("SELECT count(*) FROM io500_runs").fetchone() == (1,)
    assert not store.derived_stale(con)


@pytest.mark.slow
def test_files_that_failed_before_are_still_reported(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    (tucson_results / "ior-easy-write.txt").write_bytes(b"IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n\xff\n")
    first = ingest([tucson_results], db, progress=False)
    second = ingest([tucson_results], db, progress=False)
    assert first["failed"] == 1 and second["failed"] == 0 and second["failed before"] == 1
    out = subprocess.run([sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), str(tucson_results)],
                         capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 1 and "failed before 1" in out.stdout


@pytest.mark.slow
def test_a_chapter_digest_changes_only_with_the_tools_it_reads(tmp_path):
    registry = {c.name: c for c in chapters.load_registry()}
    db = tmp_path / "t.duckdb"
    ingest([BUILT_TOOLS / "ior"], db, progress=False)

    def digests():
        con = store.open_read(db)
        try:
            return {name: chapters.inputs_digest(c, c.parameters, chapters.files_read(con, c), "code")
                    for name, c in registry.items()}
        finally:
            con.close()

    before = digests()
    fio_log = REPO / "tests" / "fixtures" / "fio" / "fio333-multi.json"
    (tmp_path / "logs").mkdir()
    shutil.copy(fio_log, tmp_path / "logs" / fio_log.name)
    ingest([tmp_path / "logs"], db, progress=False)
    after = digests()
    changed = {name for name in registry if before[name] != after[name]}
    assert changed == {name for name, c in registry.items() if "fio" in c.reads or "*" in c.reads}
    assert "io500_score" not in changed and "checksum_cost" in changed


@pytest.mark.slow
def test_a_chapter_digest_is_the_same_in_a_checkout_at_another_path(tucson_results, tmp_path, monkeypatch):
    """A fresh clone elsewhere (with its shared folder beside it) digests the same inputs: its committed
    chapters are current there, and `make book` executes none of them."""
    import shutil

    chapter = {c.name: c for c in chapters.load_registry()}["io500_score"]
    digests = []
    for checkout in (tmp_path / "a" / "iobook", tmp_path / "a-much-longer-path" / "x" / "iobook"):
        shutil.copytree(tucson_results, checkout / "data" / "raw" / "submission-679")  # inside the checkout
        shutil.copytree(tucson_results, checkout.parent / "shared" / "submission-679")  # beside it
        db = checkout / "data" / "t.duckdb"
        ingest([checkout / "data" / "raw", checkout.parent / "shared"], db, progress=False)
        con = store.open_read(db)
        with monkeypatch.context() as m:
            m.setattr(chapters, "REPO_ROOT", checkout)
            files = chapters.files_read(con, chapter)
        con.close()
        # relative to the checkout, and to the folder above the one holding the files outside it
        assert {f[0].split("submission-679/")[0] for f in files} == {"data/raw/", ""}
        digests.append(chapters.inputs_digest(chapter, chapter.parameters, files, "tables"))
    assert digests[0] == digests[1]


def test_generated_files_match_the_registry():
    """_toc.yml, the README's chapter table and the landing page's are generated from notebooks/chapters.yml."""
    stale = [path.relative_to(REPO).as_posix() for path, text in chapters.generated_files(chapters.load_registry()).items()
             if path.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date with notebooks/chapters.yml (run `python -m iobook registry`): {stale}"
    # the methods page (how the book decides) before the chapters, the References page after them
    assert ["methods"] + [c.name for c in chapters.load_registry()] + ["references"] == [
        line.split("book/", 1)[1] for line in (REPO / "_toc.yml").read_text().splitlines() if "- file: book/" in line]


@pytest.mark.slow
def test_new_parsers_reparse_unchanged_files(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    con = store.open_write(db)  # as left by an older iobook whose parsers differed
    store.set_state(con, "parsers_digest", "older parsers")
    con.close()
    counts = ingest([tucson_results], db, progress=False)
    assert counts["changed"] == counts["seen"] and counts["unchanged"] == 0
    again = ingest([tucson_results], db, progress=False)
    assert again["unchanged"] == again["seen"]


@pytest.mark.slow
def test_landing_page_headlines_come_from_each_chapters_findings(tmp_path, monkeypatch):
    import nbformat

    from iobook.book import build, chapters, nb

    monkeypatch.setattr(chapters, "REPO_ROOT", tmp_path)
    (tmp_path / "book").mkdir()
    registry = [chapters.Chapter(name=n, title=f"Title {n}", about="", data="", reads=["*"]) for n in ("a", "b", "c")]
    findings = nb.finding_lines([("247 of the 250 runs agree.", "fig-recomputed"), ("second", "tab-x")])
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
        "display_data", data={"application/papermill.record/text/markdown": findings},
        metadata={"scrapbook": {"name": "findings"}})])])
    nbformat.write(notebook, tmp_path / "book" / "a.ipynb")
    nbformat.write(nbformat.v4.new_notebook(), tmp_path / "book" / "b.ipynb")  # no findings: not listed
    target = build.write_headlines(registry)  # c not executed: not listed
    assert target.read_text() == "- **[Title a](a)**: 247 of the 250 runs agree. ({numref}`fig-recomputed`)\n"
    stamp = target.stat().st_mtime_ns
    build.write_headlines(registry)
    assert target.stat().st_mtime_ns == stamp  # unchanged: not rewritten, so Sphinx rebuilds nothing


def test_landing_page_shows_results_never_an_inventory_line():
    """The Data chapter's first finding counts files ("4,176 of the 4,414 files ingested were parsed"): an
    inventory, not a result, so the registry keeps it off the landing page; every study is on it."""
    from iobook.book import build, chapters

    registry = chapters.load_registry()
    on_landing = [c.name for c in registry if c.headline]
    assert "data" not in on_landing and {"io500_score", "checksum_cost", "your_runs"} <= set(on_landing)
    text = build.write_headlines(registry).read_text(encoding="utf-8")
    assert "(data)" not in text and "files ingested" not in text
    assert all(f"]({name})" in text for name in on_landing)  # the published chapters all have findings


@pytest.mark.slow
def test_a_database_of_an_older_record_layout_is_reparsed(tucson_results, tmp_path):
    """A record class that gained a column (IorTest's stonewall pairs): an older database's table is made
    again and every file re-parsed, in the first ingest that opens it."""
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    con = store.open_write(db)
    con.execute("ALTER TABLE raw_ior_tests DROP COLUMN stonewall_pairs_max")  # as an older iobook made it,
    store.set_state(con, "schema_digest", "an older iobook's")                  # with its own schema
    con.close()
    counts = ingest([tucson_results], db, progress=False)
    assert counts["changed"] == counts["seen"] and counts["unchanged"] == 0
    con = store.open_read(db)
    # ior-easy-write.txt line 34: "stonewalling pairs accessed min: 19673 max: 22355"
    assert con.execute("SELECT stonewall_pairs_min, stonewall_pairs_max FROM ior_tests t JOIN sources s "
                       "USING (source_id) WHERE s.path LIKE '%ior-easy-write.txt'").fetchall() == [(19673, 22355)]
def _age(folder, seconds: int = 3600) -> None:
    """Files last modified `seconds` ago (an hour, as an archive's are: their stat is recorded)."""
    import os
    import time

    for f in folder.iterdir():
        os.utime(f, ns=(time.time_ns() - seconds * 10**9,) * 2)


@pytest.mark.slow
def test_a_view_an_older_iobook_made_and_this_one_does_not_is_dropped(tmp_path):
    """A view renamed or removed since the database was made (this version's duplicate_logs was briefly
    duplicate_sources) is gone after the next ingest: the Data chapter lists every view of the database."""
    db = tmp_path / "t.duckdb"
    con = store.open_write(db)
    con.execute("CREATE VIEW duplicate_sources AS SELECT source_id FROM sources")  # as an older iobook made it
    store.set_state(con, "schema_digest", "an older iobook's")
    con.close()
    ingest([], db, progress=False)
    con = store.open_read(db)
    views = {v for (v,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    assert "duplicate_sources" not in views and "duplicate_logs" in views


@pytest.mark.slow
def test_a_file_whose_stat_is_unchanged_is_not_read_again(tucson_results, tmp_path, monkeypatch):
    from iobook.database import discovery

    _age(tucson_results)
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    con = store.open_read(db)
    assert con.execute("SELECT count(*) FROM file_stats").fetchone() == con.execute(
        "SELECT count(*) FROM sources").fetchone()
    con.close()
    monkeypatch.setattr(discovery, "same_bytes", lambda *a: pytest.fail("an unchanged file was read"))
    counts = ingest([tucson_results], db, progress=False)
    assert counts["unchanged"] == counts["seen"] == len(list(tucson_results.iterdir()))


@pytest.mark.slow
def test_a_file_just_written_is_hashed_next_time_then_trusted(tucson_results, tmp_path):
    _age(tucson_results, -60)  # mtime a minute ahead (a file server's clock): within RACY_NS of any read
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)  # no stat recorded
    con = store.open_read(db)
    assert con.execute("SELECT count(*) FROM file_stats").fetchone() == (0,)
    con.close()
    _age(tucson_results)  # a new mtime: each file is hashed, found the same, and its stat recorded
    counts = ingest([tucson_results], db, progress=False)
    con = store.open_read(db)
    assert counts["unchanged"] == counts["seen"] and con.execute("SELECT count(*) FROM file_stats").fetchone()[0] > 0
    con.close()


@pytest.mark.slow
def test_bytes_changed_under_a_restored_mtime_are_seen(tucson_results, tmp_path):
    """Same size, same mtime (set back, as `touch -d` or a careless copy does): the ctime still differs."""
    import os

    _age(tucson_results)
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    csv = tucson_results / "ior-easy-write.csv"
    st = csv.stat()
    # rank 0's first field, "3.2759371901e+02" (runtime-with-openclose) becomes "4.2759371901e+02"
    csv.write_bytes(csv.read_bytes().replace(b"write,0,3.2759371901e+02", b"write,0,4.2759371901e+02", 1))
    os.utime(csv, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert csv.stat().st_size == st.st_size and csv.stat().st_mtime_ns == st.st_mtime_ns
    counts = ingest([tucson_results], db, progress=False)
    con = store.open_read(db)
    assert counts["changed"] == 1
    assert con.execute("SELECT time_with_openclose_s FROM raw_ior_ranks r JOIN sources s USING (source_id) "
                       "WHERE s.path = ? AND rank = 0", [str(csv)]).fetchone() == (427.59371901,)
    con.close()


@pytest.mark.slow
def test_a_database_of_an_older_iobook_gets_path_bytes(tucson_results, tmp_path):
    """Its sources table had no path_bytes and a UNIQUE path: made again with both, its rows kept."""
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    con = store.open_write(db)
    before = con.execute("SELECT * EXCLUDE (path_bytes) FROM sources ORDER BY source_id").fetchall()
    con.execute("CREATE TABLE old_sources AS SELECT * EXCLUDE (path_bytes) FROM sources")
    con.execute("DROP TABLE sources")
    old_ddl = query("iobook.database", "store/sources_schema").replace("path_bytes  BLOB,", "")
    con.execute(old_ddl.replace("VARCHAR NOT NULL,", "VARCHAR NOT NULL UNIQUE,", 1))
    con.execute("INSERT INTO sources SELECT * FROM old_sources")
    con.execute("DROP TABLE old_sources")
    store.set_state(con, "schema_digest", "an older iobook's")
    con.close()
    counts = ingest([tucson_results], db, progress=False)
    assert counts["unchanged"] == counts["seen"]
    con = store.open_read(db)
    assert con.execute("SELECT * EXCLUDE (path_bytes) FROM sources ORDER BY source_id").fetchall() == before
    assert con.execute("SELECT count(*) FROM sources WHERE path_bytes IS NOT NULL").fetchone() == (0,)
    con.close()


def _rows_by_path(db) -> dict:
    """table -> sorted rows of the files the database holds (not gone), each keyed by its path, not its id."""
    con = store.open_read(db)
    try:
        out = {"sources": sorted(con.execute("SELECT path, sha256, status, error FROM sources "
                                             "WHERE status <> 'gone'").fetchall())}
        for table in store.raw_tables()[1:]:
            out[table] = sorted(map(repr, con.execute(f"SELECT s.path, t.* EXCLUDE (source_id) FROM {table} t "
                                                      "JOIN sources s USING (source_id)").fetchall()))
        out["io500_runs"] = sorted(con.execute("SELECT * EXCLUDE (run_id) FROM io500_runs").fetchall())
        return out
    finally:
        con.close()


@pytest.mark.slow
def test_ingest_prune_makes_the_database_hold_exactly_the_tree(tucson_results, tmp_path):
    """`python -m iobook ingest --prune`: after a folder is renamed and a file deleted, the database holds what a
    clean ingest of the tree holds; a plain ingest keeps the old folder's rows too."""
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "iobook", "ingest", "--quiet", *map(str, args)], cwd=REPO,
                              capture_output=True, text=True)

    db, kept = tmp_path / "t.duckdb", tmp_path / "kept.duckdb"
    assert cli("--db", db, tucson_results).returncode == 0
    shutil.copyfile(db, kept)
    renamed = tucson_results.rename(tucson_results.with_name("submission-679-rerun"))
    (renamed / "ior-easy-read.txt").unlink()
    assert cli("--db", kept, renamed).returncode == 0
    result = cli("--prune", "--db", db, renamed)
    assert result.returncode == 0 and f"gone {len(list(renamed.iterdir())) + 1}," in result.stdout
    assert cli("--db", tmp_path / "clean.duckdb", renamed).returncode == 0
    clean = _rows_by_path(tmp_path / "clean.duckdb")
    assert _rows_by_path(db) == clean
    # a plain ingest holds the old folder's rows beside the new one's: its 4 IOR results (ior-easy-read.txt's
    # included) and the renamed folder's 3
    assert len(_rows_by_path(kept)["raw_ior_iterations"]) == 2 * len(clean["raw_ior_iterations"]) + 1 > 1


@pytest.mark.slow
def test_a_failed_path_that_is_read_later_fails_no_more(tucson_results, tmp_path, monkeypatch):
    """A folder given before it existed, and one that could not be listed: once ingest reads them, their
    failure is gone from sources (not counted as failed again) and their files land."""
    import os

    db = tmp_path / "t.duckdb"
    later = tmp_path / "later"
    assert ingest([later, tucson_results], db, progress=False)["failed"] == 1
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path=".": (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                        if os.fspath(path) == str(tucson_results) else real(path))
    later.mkdir()
    shutil.copyfile(BUILT_TOOLS / "ior" / "ior_posix_fpp_1m_np2_i3.log", later / "ior.log")
    counts = ingest([later, tucson_results], db, progress=False, prune=True)
    assert counts["failed"] == 1 and counts["gone"] == 1  # `later`'s failure; tucson's files are not called gone
    con = store.open_read(db)
    assert con.execute("SELECT status, error FROM sources WHERE path = ?", [str(tucson_results)]).fetchone() == (
        "error", "folder cannot be read: Permission denied")
    assert con.execute("SELECT count(*) FROM sources WHERE status = 'ok' AND starts_with(path, ?)",
                       [f"{tucson_results}/"]).fetchone()[0] > 0
    con.close()
    monkeypatch.setattr(os, "scandir", real)
    counts = ingest([later, tucson_results], db, progress=False)
    assert counts["failed"] == counts["failed before"] == 0 and counts["gone"] == 1
    con = store.open_read(db)
    assert dict(con.execute("SELECT path, status FROM sources WHERE path IN (?, ?, ?)",
                            [str(later), str(tucson_results), str(later / "ior.log")]).fetchall()) == {
        str(later): "gone", str(tucson_results): "gone", str(later / "ior.log"): "ok"}
    con.close()


@pytest.mark.slow  # reads the published database, ingested from data/raw
def test_chapter_parameters_are_checked_naming_the_key_and_the_nearest_valid_values():
    """One check of every chapter's parameters before it runs (chapters.check_parameters): an unknown key, a
    value of another type than the template's default, and a selection
    the data does not hold (Your runs' baseline_label: data/raw's labels are its top folders checksum, io500,
    pagecache and snapshots) each name the key and the nearest valid values, instead of a silent build or
    SciPy's message."""
    from conftest import PUBLISHED_DB

    registry = {c.name: c for c in chapters.load_registry()}
    your_runs, checksum = registry["your_runs"], registry["checksum_cost"]
    con = store.open_read(PUBLISHED_DB)
    try:
        chapters.check_parameters(con, your_runs, {"baseline_label": "checksum"})
        chapters.check_parameters(con, checksum, {"run_folders": ["vm-20261125T030550Z"]})
        cases = [
            (your_runs, "baseline_label: 'checksumm' is not a label of this data; nearest: ['checksum']",
             {"baseline_label": "checksumm"}),
            (checksum, "confidence: not a parameter of checksum_cost; nearest: ['db_path', 'labels', 'run_folders']",
             {"confidence": 0.95}),  # the book's level is evidence.CONFIDENCE, not a chapter's to set (issue 36)
            (checksum, "run_folder: not a parameter of checksum_cost; nearest: ['run_folders']", {"run_folder": []}),
            (your_runs, "baseline_label: 7 is a int, the template's default '' a str", {"baseline_label": 7}),
        ]
        for chapter, message, parameters in cases:
            with pytest.raises(chapters.ParameterError) as e:
                chapters.check_parameters(con, chapter, parameters)
            assert str(e.value) == f"{chapter.name}: {message}"
    finally:
        con.close()


def test_a_table_executes_only_the_chapters_that_read_it(tmp_path, monkeypatch):
    """The Checksum chapter reads one published table (book/checksum_cost.ipynb glues
    data/published/seed000_checksum_cpu_memory.csv): its digest moves when that table changes, not when seed 002's
    SC19 list does, which every chapter's digest followed before (17 of the last 100 commits rewrote book/)."""
    for folder in ("data/published", "data/reference"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    monkeypatch.setattr(chapters, "REPO_ROOT", tmp_path)
    read = chapters.tables_of(json.loads((REPO / "book" / "checksum_cost.ipynb").read_text()))
    assert read == ["data/published/seed000_checksum_cpu_memory.csv"]
    before = chapters.tables_digest(read)
    with (tmp_path / "data/published/seed002_sc19_list.csv").open("a") as f:
        f.write("\n")
    assert chapters.tables_digest(read) == before
    assert chapters.tables_digest(None) != before  # a chapter that never ran digests every table
    with (tmp_path / "data/published/seed000_checksum_cpu_memory.csv").open("a") as f:
        f.write("\n")
    assert chapters.tables_digest(read) != before


def test_a_change_to_one_study_executes_only_its_chapter(tmp_path, monkeypatch):
    """A chapter's code digest covers the modules its study imports (the Checksum study imports the store's collector_runs and its queries; the Data
    chapter imports Your runs), the notebook layer and what makes the database; an edit to the snapshot study moves
    only the Snapshots chapter's digest."""
    def source(module: str) -> str:
        return chapters._module_file(f"iobook.{module}").relative_to(chapters.CODE_BASE).as_posix()

    def shown(chapter: str) -> set[str]:
        return {f.relative_to(chapters.CODE_BASE).as_posix() for f in chapters.code_files(chapter)}

    checksum, data = shown("checksum_cost"), shown("data")
    assert {source("studies.checksum_cost"), source("database.collector_runs"),
            "iobook/database/queries/collector_runs/fio_steps.sql", "iobook/book/nb.py", "iobook/inference/evidence.py",
            "iobook/parsers/fio_json.py", "iobook/database/views/fio.sql", "requirements.lock"} <= checksum
    assert source("studies.snapshots") not in checksum and "iobook/book/build.py" not in checksum
    assert source("studies.your_runs") in data
    assert {"iobook/database/queries/fio_runs.sql", "iobook/studies/history/analysis.py"} <= shown("history")
    assert not any("io500_archive" in f for f in shown("history"))  # a sibling package's queries are not its own

    copy = tmp_path / "repo"
    shutil.copytree(REPO / "iobook", copy / "iobook", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "requirements.lock", copy)
    monkeypatch.setattr(chapters, "CODE_BASE", copy)
    before = {c: chapters.code_digest(c) for c in ("snapshots", "checksum_cost", "pagecache", "data")}
    with chapters._module_file("iobook.studies.snapshots").open("a") as f:
        f.write("\n# an edit\n")
    after = {c: chapters.code_digest(c) for c in before}
    assert [c for c in before if before[c] != after[c]] == ["snapshots"]


def test_every_module_and_sql_file_of_the_database_layer_decides_what_is_derived():
    """The digest that re-parses and re-derives every file when the code changes listed the database layer's modules by
    name; issue 46's split moved derivations out of setups.py and io500_runs.py into machines.py, client_bounds.py,
    io500_lists.py and io500_scores.py, which it did not list, so a change of the client-link rule derived nothing
    again (`make book`: 'parsed 0', the flags as before)."""
    from iobook.database import ingest

    layer = REPO / "iobook" / "database"
    assert {*layer.rglob("*.py"), *layer.rglob("*.sql")} <= set(ingest.derived_from())
    assert {layer / "machines.py", layer / "client_bounds.py"} <= set(ingest.derived_from())
