"""mdtest parser and views: exact values from real logs of each version and layout."""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from iobook.database import ingest, store
from iobook.parsers import ParseError, detect, mdtest

FIXTURES = Path(__file__).parent / "fixtures" / "mdtest"
from conftest import SHARED

BUILT = SHARED / "fixtures" / "built-tools" / "mdtest"


@functools.cache
def csv_text() -> str:
    """Built-tools' per-rank CSV (read when a test needs it: the module is imported without the shared folder too)."""
    return (BUILT / "mdtest_saverank_csv_np2.rank.csv").read_text()
AURORA_688 = (SHARED / "io500-submissions" / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023"
              / "submission-688" / "results" / "2023.11.07-03.43.32" / "mdtest-easy-delete.txt")


def parse(path: Path):
    return mdtest.parse_log(path.read_text(encoding="utf-8"))


def summaries(parsed) -> list[mdtest.MdtestSummary]:
    return [r for r in parsed.records if isinstance(r, mdtest.MdtestSummary)]


def row(parsed, operation: str, kind: str = "rate", summary_index: int = 0) -> mdtest.MdtestResult:
    (found,) = [r for r in parsed.records if isinstance(r, mdtest.MdtestResult)
                and (r.summary_index, r.table_kind, r.operation) == (summary_index, kind, operation)]
    return found


def stats(r: mdtest.MdtestResult) -> tuple:
    return r.max, r.min, r.mean, r.stddev


# --- archive logs, oldest first ---------------------------------------------------------------

def test_1_9_3_three_runs_in_one_file():
    p = parse(FIXTURES / "jcahpc-2017-mdt_hard")
    assert p.tool_version == "1.9.3"
    runs = summaries(p)
    assert [s.command.split()[1] for s in runs] == ["-C", "-T", "-r"]
    assert {(s.tasks, s.items, s.item_kind, s.launched_tasks, s.nodes) for s in runs} == {
        (16384, 327680, "files", 16384, 2048)}
    assert [s.started_at for s in runs] == ["2017-11-07 09:01:17", "2017-11-07 09:27:54", "2017-11-07 09:32:46"]
    assert stats(row(p, "File creation", summary_index=0)) == (4140.437, 4140.437, 4140.437, 0.0)
    assert row(p, "File stat", summary_index=1).mean == 61442.918
    assert row(p, "File removal", summary_index=2).mean == 1393.784
    assert row(p, "Tree removal", summary_index=2).mean == 85.677
    assert row(p, "Tree removal", summary_index=2).printed_unit is None  # "SUMMARY:" has no unit


def test_1_9_3_io500_phase_log_2018():
    p = parse(FIXTURES / "sub147-2018-mdtest_easy_stat.txt")
    (s,) = summaries(p)
    assert (s.version, s.tasks, s.items, s.iterations) == ("1.9.3", 80, 18800000, 1)
    assert stats(row(p, "File stat")) == (81840.0, 81840.0, 81840.0, 0.0)  # io500 score 81.840 kiops
    assert len([r for r in p.records if isinstance(r, mdtest.MdtestResult)]) == 6


def test_3_3_stonewall_rows_with_na_and_time_table():
    p = parse(FIXTURES / "sub52-2019-mdtest_hard_write.txt")
    (s,) = summaries(p)
    assert (s.version, s.tasks, s.items) == ("3.3.0+dev", 260, 247000000)
    assert (s.stonewall_items_min, s.stonewall_items_max, s.stonewall_items_avg) == (12554, 12833, 12650.3)
    assert stats(row(p, "File creation")) == (10952.359, 10952.353, 10952.355, 0.001)
    assert stats(row(p, "File create (stonewall)")) == (None, None, 10963.475, None)
    assert stats(row(p, "File create (stonewall)", "time")) == (None, None, 300.004, None)
    assert row(p, "File creation", "time").mean == 304.645


def test_3_4_io500_phase_log_ibm_tucson_679():
    p = parse(FIXTURES / "sub679-2023-mdtest-easy-write.txt")
    (s,) = summaries(p)
    assert (s.version, s.tasks, s.items, s.launched_tasks, s.nodes) == ("3.4.0+dev", 200, 200000000, 200, 10)
    assert row(p, "File creation").mean == 231478.158  # result.txt: score = 231.478158 (kIOPS)
    assert row(p, "File creation", "time").mean == 351.138
    assert row(p, "Tree creation", "time").mean == 0.809


def test_4_1_time_in_ms_op_label_holds_seconds():
    p = parse(FIXTURES / "sub785-2025-mdtest-easy-write.txt")
    assert row(p, "File creation").mean == 506842.778
    creation = row(p, "File creation", "time")
    assert (creation.mean, creation.printed_unit) == (325.65, "ms/op")  # a 300 s stonewalled phase
    # one tree directory at 1.449 ops/s took 0.690 s: the time table is seconds, not ms/op
    assert (row(p, "Tree creation").mean, row(p, "Tree creation", "time").mean) == (1.449, 0.69)


def test_4_1_time_in_ops_sec_label_holds_seconds():
    p = parse(FIXTURES / "sub704-2024-mdtest-easy-delete.txt")
    removal = row(p, "File removal", "time")
    assert (removal.mean, removal.printed_unit) == (277.276, "ops/sec")
    assert row(p, "File removal").mean == 480056.342
    assert summaries(p)[0].items == 850000000


def test_62_thousand_character_nodemap_is_read():
    """Aurora's 688 prints a Nodemap of 62,409 characters on one line; its speed: benchmarks/bench_long_lines.py."""
    text = AURORA_688.read_text(encoding="utf-8")
    assert max(len(line) for line in text.split("\n")) == 62409
    p = mdtest.parse_log(text)
    assert summaries(p)[0].tasks == 62400
    assert row(p, "File removal").mean == 57648437.192


# --- mdtest 4.1.0+dev built here --------------------------------------------------------------

def test_built_basic_three_iterations():
    p = parse(BUILT / "mdtest_n1000_i3_np2.log")
    (s,) = summaries(p)
    assert (s.version, s.tasks, s.items, s.item_kind, s.iterations) == (
        "4.1.0+dev", 2, 2000, "files/directories", 3)
    assert s.command == "mdtest '-n' '1000' '-i' '3' '-d' '/tmp/bench/data/md/basic'"
    assert stats(row(p, "Directory creation")) == (22258.093, 6175.241, 14510.097, 8057.471)
    assert row(p, "Tree removal").stddev == 171.945


def test_built_time_layout_z():
    p = parse(BUILT / "mdtest_time_Z_np2.log")
    results = [r for r in p.records if isinstance(r, mdtest.MdtestResult)]
    assert {r.table_kind for r in results} == {"time"}
    assert stats(row(p, "Directory creation", "time")) == (1.977, 1.751, 1.864, 0.159)


def test_built_task_scaling_two_summaries():
    p = parse(BUILT / "mdtest_scaling_f1_l2_np2.log")
    assert [(s.summary_index, s.tasks, s.items, s.launched_tasks) for s in summaries(p)] == [
        (0, 1, 500, 2), (1, 2, 1000, 2)]
    assert row(p, "File creation", summary_index=0).mean == 1348.31
    assert row(p, "File creation", summary_index=1).mean == 977.202


def test_built_rank_statistics_layout():
    p = parse(BUILT / "mdtest_rankstats_np2.log")
    assert len(summaries(p)) == 1  # the rate and time tables of one test
    d = row(p, "Directory creation")
    assert (d.rank_max, d.rank_min, d.rank_mean) == (654.635, 474.839, 553.81)
    assert stats(d) == (1162.202, 948.398, 1055.3, 151.182)
    t = row(p, "Tree removal", "time")
    assert (t.rank_max, t.rank_min, t.rank_mean, *stats(t)) == (0.005, 0.003, 0.004, 0.005, 0.003, 0.004, 0.001)


def test_built_verbose_lines_are_skipped():
    p = parse(BUILT / "mdtest_verbose_vv_np2.log")
    (s,) = summaries(p)
    assert (s.line, s.items, s.started_at) == (82, 100, "2026-11-21 12:35:47")
    assert row(p, "Tree creation").mean == 581.331
    assert len([r for r in p.records if isinstance(r, mdtest.MdtestResult)]) == 10


def test_built_stonewall_w():
    p = parse(BUILT / "mdtest_stonewall_W2_np2.log")
    (s,) = summaries(p)
    assert (s.items, s.item_kind, s.stonewall_items_min, s.stonewall_items_max, s.stonewall_items_avg) == (
        400000, "files", 959, 1047, 1003.0)
    assert row(p, "File creation").mean == 1007.53


def test_built_error_run_fails_at_its_failed_line():
    with pytest.raises(ParseError) as e:
        parse(BUILT / "mdtest_error_multi_dir_shared_np2.log")
    assert e.value.line == 5
    assert "shared directory mode is not compatible with multiple directory paths" in e.value.reason


# --- truncation and other bad input -----------------------------------------------------------

def test_log_cut_inside_a_table():
    lines = (FIXTURES / "sub679-2023-mdtest-easy-write.txt").read_text().split("\n")
    with pytest.raises(ParseError) as e:
        mdtest.parse_log("\n".join(lines[:17]))  # SUMMARY, column header, dashes, 2 of 6 rate rows
    assert (e.value.line, e.value.reason) == (17, "log ends inside a SUMMARY table (truncated)")


def test_log_cut_inside_a_row():
    text = (FIXTURES / "sub679-2023-mdtest-easy-write.txt").read_text()
    cut = text.index("231478.158     231") + len("231478.158     231")
    with pytest.raises(ParseError) as e:
        mdtest.parse_log(text[:cut])
    assert (e.value.line, e.value.reason) == (16, "SUMMARY row: expected an operation and 4 values")


def test_log_cut_before_the_summary():
    lines = (FIXTURES / "sub679-2023-mdtest-easy-write.txt").read_text().split("\n")
    with pytest.raises(ParseError) as e:
        mdtest.parse_log("\n".join(lines[:9]))
    assert (e.value.line, e.value.reason) == (9, "no SUMMARY table: the log ends before mdtest printed results")


def test_summary_header_without_rows():
    lines = (FIXTURES / "sub679-2023-mdtest-easy-write.txt").read_text().split("\n")
    with pytest.raises(ParseError) as e:
        mdtest.parse_log("\n".join(lines[:13] + [""] + lines[-2:]))  # SUMMARY, then a blank line
    assert (e.value.line, e.value.reason) == (14, "SUMMARY table has no rows")


# --- per-rank CSV -----------------------------------------------------------------------------

def load_rank_csv(path: Path) -> list[tuple]:
    table = mdtest.parse_rank_csv(path.read_text()).tables[mdtest.MdtestRankRow]
    return [tuple(row.values()) for row in table.to_pylist()]


def test_rank_csv_io500_200_ranks():
    rows = load_rank_csv(FIXTURES / "sub679-2023-mdtest-easy-write.csv")
    assert (None, True, 406404, "File creation", 2.3147815763e+05, 3.5113809800e+02) in rows
    assert (None, True, 406404, "Tree creation", 2.3419809299e+02, 8.5397791862e-01) in rows
    assert (0, False, None, "File creation", 1.2723257272e+03, 3.1941820502e+02) in rows
    assert len([r for r in rows if r[3] == "File creation" and not r[1]]) == 200
    assert {r[3] for r in rows} == {"File creation", "Tree creation"}  # empty operations left out


def test_rank_csv_built():
    rows = load_rank_csv(BUILT / "mdtest_saverank_csv_np2.rank.csv")
    assert (1, False, None, "File removal", 6.2110232489e+04, 8.0502033234e-03) in rows
    assert (None, True, 500, "Directory read", 5.24288e+08, 1.9073486328e-06) in rows
    assert len(rows) == 11 + 2 * 9  # the rank rows have no tree phases


def test_rank_csv_bad_number():
    text = (FIXTURES / "sub679-2023-mdtest-easy-write.csv").read_text()
    with pytest.raises(ParseError) as e:
        mdtest.parse_rank_csv(text.replace("1.2723257272e+03", "1.27x3257272e+03"))
    assert e.value.line == 3


@pytest.mark.parametrize("path", [FIXTURES / "sub679-2023-mdtest-easy-write.csv",
                                  BUILT / "mdtest_saverank_csv_np2.rank.csv"])
def test_rank_csv_fast_read_agrees_with_the_checked_one(path, monkeypatch):
    text = path.read_text()
    assert mdtest._read_fast(text.partition("\n")[2]) is not None
    fast = mdtest.parse_rank_csv(text).tables[mdtest.MdtestRankRow]
    monkeypatch.setattr(mdtest, "_read_fast", lambda body: None)
    assert mdtest.parse_rank_csv(text).tables[mdtest.MdtestRankRow].equals(fast)


# Arrow's CSV reader trims spaces and tabs around a number and ends a line at \r; a cast does neither:
# such a field is refused as before, at its line.
@pytest.mark.parametrize("old, new, reason", [
    ("0,,5.1530507314e+02", "0,, 5.1530507314e+02", "' 5.1530507314e+02' is not a number"),
    ("5.1530507314e+02,", "5.1530507314e+02\t,", "'5.1530507314e+02\\t' is not a number"),
    ("9.7029900551e-01,", "9.7029900551e-01\r", "'9.7029900551e-01\\r4.1494895133e+05' is not a number"),
    ("\n0,,", "\n0, ,", "items ' ' is not a count"),
])
def test_rank_csv_refuses_what_a_csv_reader_would_trim(old, new, reason):
    with pytest.raises(ParseError) as e:
        mdtest.parse_rank_csv(csv_text().replace(old, new))
    assert (e.value.line, e.value.reason) == (3, reason)


def test_rank_csv_reads_what_a_cast_reads():
    """A cast to float reads '+515.3' and '.6596e+03' (and a blank line is no row): read as before."""
    text = csv_text().replace("0,,5.1530507314e+02", "0,,+515.30507314").replace(
        "\n1,,6.5966202714e+02", "\n\n1,,.65966202714e+03")
    rows = [tuple(r.values()) for r in mdtest.parse_rank_csv(text).tables[mdtest.MdtestRankRow].to_pylist()]
    assert (0, False, None, "Directory creation", 515.30507314, 9.7029900551e-01) in rows
    assert (1, False, None, "Directory creation", 6.5966202714e+02, 7.5796389580e-01) in rows
    assert len(rows) == 11 + 2 * 9


# --- detection and the store ------------------------------------------------------------------

@pytest.mark.parametrize("path, name", [
    (FIXTURES / "jcahpc-2017-mdt_hard", "mdtest-text"),
    (FIXTURES / "sub785-2025-mdtest-easy-write.txt", "mdtest-text"),
    (BUILT / "mdtest_verbose_vv_np2.log", "mdtest-text"),
    (FIXTURES / "sub679-2023-mdtest-easy-write.csv", "mdtest-rank-csv"),
])
def test_detect_by_content(path, name):
    assert detect(path.read_text()[:65536]).name == name


@pytest.mark.slow
def test_views(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest.ingest([FIXTURES, BUILT], db, progress=False)
    con = store.open_read(db)
    log = str(FIXTURES / "sub52-2019-mdtest_hard_write.txt")
    assert con.execute(
        "SELECT version, tasks, items, iterations, started_at::VARCHAR FROM mdtest_runs WHERE path = ?",
        [log]).fetchall() == [("3.3.0+dev", 260, 247000000, 1, "2019-11-12 15:29:43")]
    assert con.execute(
        "SELECT table_kind, unit, max, mean, stonewall FROM mdtest_results JOIN mdtest_runs USING (mdtest_id) "
        "WHERE path = ? AND operation = 'File create (stonewall)' ORDER BY table_kind", [log]).fetchall() == [
        ("rate", "ops/s", None, 10963.475, True), ("time", "s", None, 300.004, True)]
    scaling = str(BUILT / "mdtest_scaling_f1_l2_np2.log")
    assert con.execute("SELECT summary_index, tasks FROM mdtest_runs WHERE path = ? ORDER BY 1",
                       [scaling]).fetchall() == [(0, 1), (1, 2)]
    assert con.execute(
        "SELECT count(*), max(rate_ops_per_s), arg_max(rank, rate_ops_per_s) FROM mdtest_ranks "
        "WHERE path LIKE '%sub679%' AND operation = 'File creation' AND NOT all_ranks"
    ).fetchone() == (200, 1.3544189407e+03, 41)
    assert con.execute("SELECT status, error_line FROM sources WHERE path LIKE '%error_multi_dir%'"
                       ).fetchone() == ("error", 5)


# --- phases that reported a failure: failed, never a rate ------------------------------------

def failures(parsed, summary_index: int = 0) -> dict[tuple[str, str], tuple]:
    """(table_kind, operation) -> (failure_line, failure_lines, failure) of every row of one summary."""
    return {(r.table_kind, r.operation): (r.failure_line, r.failure_lines, r.failure) for r in parsed.records
            if isinstance(r, mdtest.MdtestResult) and r.summary_index == summary_index}


def test_3_4_remove_warnings_fail_the_removal_phases_699():
    # sub699-2024-mdtest-easy-delete.txt lines 10-11: "WARNING: Unable to remove directory ...mdtest_tree.0.0/",
    # "WARNING: unable to remove directory ...test-dir.0-0"; line 19 File removal 78262024.955 ops/s (11.2e9 files
    # in 135.662 s: the files were not there), line 21 Tree removal 530.522
    found = failures(parse(FIXTURES / "sub699-2024-mdtest-easy-delete.txt"))
    first = "WARNING: Unable to remove directory ./datafiles/2024.04.30-14.51.21/mdtest-easy/test-dir.0-0/mdtest_tree.0.0/"
    for kind in ("rate", "time"):
        assert found[kind, "File removal"] == found[kind, "Tree removal"] == (10, 2, first)
        # phases the run did not do (printed 0.000) did not fail: they are not rates either way
        assert found[kind, "File creation"] == found[kind, "Tree creation"] == (None, None, None)


def test_4_1_tree_create_warning_fails_the_creation_phases_733():
    # sub733-2024-mdtest-easy-write.txt line 10: "WARNING: unable to create tree directory '...mdtest_tree.0.0/'"
    # (line 8: Used Inodes 100.0 %); line 17 File creation 164213.226, line 21 Tree creation 72.732
    found = failures(parse(FIXTURES / "sub733-2024-mdtest-easy-write.txt"))
    (line, count, text) = found["rate", "File creation"]
    assert (line, count) == (10, 1) and text.startswith("WARNING: unable to create tree directory '/mnt/mycephfs/")
    assert found["rate", "Tree creation"] == found["time", "File creation"] == (line, count, text)
    assert found["rate", "File stat"] == (None, None, None)


def test_error_printed_after_the_tables_fails_the_read_661():
    # sub661-2023-mdtest-hard-read.txt line 31, after both SUMMARY tables: "ERROR: verifying the data on read
    # (633753120 errors)! Take the performance values with care!"; line 16 File read 1990385.045
    found = failures(parse(FIXTURES / "sub661-2023-mdtest-hard-read.txt"))
    assert found["rate", "File read"] == found["time", "File read"] == (
        31, 1, "ERROR: verifying the data on read (633753120 errors)! Take the performance values with care!")


def test_stonewall_status_and_mpi_warnings_fail_no_phase():
    # io500 2019 (CSIRO submission-57) mdtest_easy_stat.txt: line 2 an Open MPI "WARNING: There are more than one
    # active ports", line 25 "WARNING: could not read stonewall status file"; neither says an operation failed
    # (line 33: File stat 869975.379 is the phase's rate)
    log = (SHARED / "io500-submissions" / "CSIRO" / "bracewell" / "unamed at this point" / "2019" / "submission-57"
           / "results" / "mdtest_easy_stat.txt")
    found = failures(parse(log))
    assert found["rate", "File stat"] == (None, None, None)
    assert row(parse(log), "File stat").mean == 869975.379


@pytest.mark.slow
def test_failed_phases_in_the_views(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest.ingest([FIXTURES], db, progress=False)
    con = store.open_read(db)
    assert con.execute(
        "SELECT regexp_extract(path, '[^/]*$'), operation, failed, failure_line FROM mdtest_results "
        "JOIN mdtest_runs USING (mdtest_id) WHERE table_kind = 'rate' AND failed ORDER BY 1, 2").fetchall() == [
        ("sub661-2023-mdtest-hard-read.txt", "File read", True, 31),
        ("sub699-2024-mdtest-easy-delete.txt", "File removal", True, 10),
        ("sub699-2024-mdtest-easy-delete.txt", "Tree removal", True, 10),
        ("sub733-2024-mdtest-easy-write.txt", "File creation", True, 10),
        ("sub733-2024-mdtest-easy-write.txt", "Tree creation", True, 10)]
    assert con.execute("SELECT count(*) FROM mdtest_results WHERE NOT failed").fetchone()[0] > 0


# --- the printed Std Dev: population (1.9.3 to 3.x) or sample (4.1 on) -------------------------------------

def _iteration_values(n: int, maximum: float, minimum: float, mean: float) -> list[float]:
    """A row's iteration values as its Max, Min and Mean give them for 2 or 3 iterations (the third is
    n x mean - max - min)."""
    return [maximum, minimum] if n == 2 else [maximum, n * mean - maximum - minimum, minimum]


@pytest.mark.parametrize("path, kind", [
    (FIXTURES / "fredhutch-2019-1.9.3-beegfs.txt", "population"),  # line 12: 439.763 404.632 422.661 14.357
    (FIXTURES / "fredhutch-2019-1.9.3-nfs.txt", "population"),     # line 13: 7903.923 2275.234 6010.631 2641.407
    (BUILT / "mdtest_n1000_i3_np2.log", "sample"),                  # 4.1.0+dev, -i 3
    (BUILT / "mdtest_rankstats_np2.log", "sample"),                 # 4.1.0+dev, -i 2: Std Dev = (max - min) / sqrt 2
])
@pytest.mark.slow
def test_stddev_formula_follows_the_version(path, kind, tmp_path):
    """The view says which formula a version prints, and the printed Std Dev of every measured rate row is that
    formula over the row's iteration values (and not the other one)."""
    db = tmp_path / "t.duckdb"
    ingest.ingest([path], db, progress=False)
    rows = store.open_read(db).execute(
        "SELECT r.iterations, x.max, x.min, x.mean, x.stddev, x.stddev_kind FROM mdtest_results x "
        "JOIN mdtest_runs r USING (mdtest_id) WHERE x.table_kind = 'rate' AND x.stddev >= 0.1").fetchall()
    assert len(rows) >= 4 and {row[-1] for row in rows} == {kind}
    ddof, other = (0, 1) if kind == "population" else (1, 0)
    for n, maximum, minimum, mean, stddev, _ in rows:
        values = _iteration_values(n, maximum, minimum, mean)
        assert stddev == pytest.approx(float(np.std(values, ddof=ddof)), abs=0.005, rel=1e-5)
        assert stddev != pytest.approx(float(np.std(values, ddof=other)), abs=0.005, rel=1e-5)


# --- fuzz: damaged real logs raise nothing but ParseError --------------------------------------

FUZZ_LOGS = [FIXTURES / "jcahpc-2017-mdt_hard", FIXTURES / "sub52-2019-mdtest_hard_write.txt",
             FIXTURES / "sub785-2025-mdtest-easy-write.txt", BUILT / "mdtest_rankstats_np2.log",
             BUILT / "mdtest_verbose_vv_np2.log"]


@functools.cache
def fuzz_texts() -> tuple[str, ...]:
    return tuple(p.read_text() for p in FUZZ_LOGS)


def damaged(data, text: str) -> str:
    how = data.draw(st.sampled_from(["truncate", "drop line", "flip"]))
    if how == "truncate":
        return text[: data.draw(st.integers(0, len(text)))]
    if how == "drop line":
        lines = text.split("\n")
        del lines[data.draw(st.integers(0, len(lines) - 1))]
        return "\n".join(lines)
    at = data.draw(st.integers(0, len(text) - 1))
    return text[:at] + data.draw(st.characters(codec="utf-8")) + text[at + 1:]


def parse_or_parse_error(parse_text, text: str) -> None:
    try:
        parse_text(text)
    except ParseError as e:
        assert e.line is None or 1 <= e.line <= text.count("\n") + 1


@pytest.mark.slow
@given(st.data())
def test_fuzz_logs(data):
    text = data.draw(st.sampled_from(fuzz_texts()))
    parse_or_parse_error(mdtest.parse_log, damaged(data, text))


@pytest.mark.slow
@given(st.data())
def test_fuzz_rank_csv(data):
    parse_or_parse_error(mdtest.parse_rank_csv, damaged(data, csv_text()))


# --- Nodemap: which ranks share rank 0's node ---------------------------------------------------

@pytest.mark.parametrize("path, ranks, stride", [
    # line 7 "Nodemap: 1000000000100..." (200 ranks on 10 nodes): ranks 0, 10, ..., 190 on rank 0's node
    (FIXTURES / "sub679-2023-mdtest-easy-write.txt", 20, 10),
    # line 5 "Nodemap: 11111111111111111111000..." (400 ranks on 20 nodes): ranks 0-19
    (FIXTURES / "sub785-2025-mdtest-easy-write.txt", 20, 1),
    # line 7: 62,400 ranks on 300 nodes, ranks 0-207 marked
    (AURORA_688, 208, 1),
    # line 6 "Nodemap: 11": both ranks of a run on this machine
    (BUILT / "mdtest_n1000_i3_np2.log", 2, 1),
])
def test_nodemap_ranks_on_rank_0s_node(path, ranks, stride):
    (first, *_) = summaries(parse(path))
    assert (first.nodemap_ranks, first.nodemap_stride) == (ranks, stride)


def test_no_nodemap_leaves_placement_unknown():
    (first, *_) = summaries(parse(FIXTURES / "jcahpc-2017-mdt_hard"))  # mdtest 1.9.3 prints no Nodemap
    assert first.nodemap_ranks is None and first.nodemap_stride is None
