"""Ingest as a user runs it: idempotent, replaces changed files, records bad input and keeps the rest."""
import duckdb
import pytest

from iobook.cli.main import main
from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import all_records


def table_rows(db) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = ["sources"] + [cls.TABLE for cls in all_records()]
        names += [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'io500_%'").fetchall()]
        return {n: sorted(con.execute(f"SELECT * FROM {n}").fetchall(), key=repr) for n in sorted(set(names))}
    finally:
        con.close()


@pytest.mark.slow
def test_second_ingest_changes_nothing(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    first = ingest([tucson_results], db, progress=False)
    before = table_rows(db)
    second = ingest([tucson_results], db, progress=False)
    assert first["new"] == first["seen"] == len(list(tucson_results.iterdir()))
    assert second["unchanged"] == second["seen"] and second["new"] == 0
    assert table_rows(db) == before


@pytest.mark.slow
def test_changed_file_replaces_its_records(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([tucson_results], db, progress=False)
    summary = tucson_results / "result_summary.txt"
    lines = summary.read_text().splitlines(keepends=True)
    summary.write_text("".join(lines[:4]))  # the summary cut after its third phase line
    counts = ingest([tucson_results], db, progress=False)
    assert counts["changed"] == 1 and counts["unchanged"] == counts["seen"] - 1
    con = store.open_read(db)
    (source_id, status), = con.execute("SELECT source_id, status FROM sources WHERE path = ?", [str(summary)]).fetchall()
    phases = con.execute("SELECT phase FROM raw_io500_phases WHERE source_id = ? ORDER BY line", [source_id]).fetchall()
    assert status == "ok" and phases == [("ior-easy-write",), ("mdtest-easy-write",), ("timestamp",)]


@pytest.mark.slow
def test_binary_and_non_utf8_are_recorded_and_the_rest_lands(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    (tucson_results / "core.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00")
    log = tucson_results / "ior-easy-write.txt"
    data = log.read_bytes()
    cut = data.index(b"Options:")
    log.write_bytes(data[:cut] + b"\xff\xfe" + data[cut:])  # a corrupted byte in a real log
    line = data[:cut].count(b"\n") + 1
    counts = ingest([tucson_results], db, progress=False)
    con = store.open_read(db)
    rows = dict((p.rsplit("/", 1)[1], (s, e, l)) for p, s, e, l in
                con.execute("SELECT path, status, error, error_line FROM sources").fetchall())
    assert rows["core.bin"] == ("skipped", "binary file (NUL byte)", 1)
    # the log is kept (issue 36: a few bad bytes in an IOR header lost the whole log), the bytes' line recorded
    assert rows["ior-easy-write.txt"] == ("ok", f"not valid UTF-8: byte 0xff and 1 more on line {line}, shown as "
                                                "U+FFFD; the log was loaded", line)
    assert rows["result.txt"][0] == "ok" and rows["result_summary.txt"][0] == "ok"
    assert counts["failed"] == 0 and counts["truncated"] == 0
    (source_id,) = [i for (i,) in con.execute("SELECT source_id FROM sources WHERE path LIKE '%ior-easy-write.txt'").fetchall()]
    assert con.execute("SELECT count(*) FROM ior_tests WHERE source_id = ?", [source_id]).fetchone()[0] == 1


@pytest.mark.slow
def test_identical_bytes_at_two_paths_are_both_listed(tucson_results, tmp_path):
    db = tmp_path / "t.duckdb"
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "result_summary.txt").write_bytes((tucson_results / "result_summary.txt").read_bytes())
    ingest([tucson_results, copy], db, progress=False)
    con = store.open_read(db)
    rows = con.execute("SELECT count(*), count(DISTINCT path) FROM sources WHERE sha256 = "
                       "(SELECT sha256 FROM sources WHERE path = ?)", [str(copy / "result_summary.txt")]).fetchone()
    assert rows == (2, 2)


def test_cli_exit_status_is_1_when_a_file_failed(tucson_results, tmp_path, capsys):
    db = tmp_path / "t.duckdb"
    assert main(["ingest", "--quiet", "--db", str(db), str(tucson_results)]) == 0
    summary = tucson_results / "result_summary.txt"  # a phase's rate that is no measurement: the file fails
    summary.write_bytes(summary.read_bytes().replace(b"106.612964 GiB/s", b"inf GiB/s", 1))
    assert main(["ingest", "--quiet", "--db", str(db), str(tucson_results)]) == 1
    out = capsys.readouterr().out
    assert "changed 1" in out and "failed 1" in out


def test_ids_derived_from_large_source_ids_do_not_overflow(tmp_path):
    """A full archive has > 2147 sources; views build ids as source_id * 1000000 (was INT32: overflow)."""
    from conftest import TUCSON_SC23

    from iobook.database.batch import Batch
    from iobook.database.parsing import parse_bytes

    log = TUCSON_SC23 / "results" / "2023.10.22-06.40.20" / "mdtest-easy-write.txt"
    outcome = parse_bytes(str(log), log.read_bytes())
    con = store.open_write(tmp_path / "t.duckdb")
    store.replace_sources(con, Batch.of([(2153, outcome.row, outcome.records, outcome.tables)]))
    assert con.execute("SELECT mdtest_id FROM mdtest_runs").fetchall() == [(2153 * 1000000,)]


@pytest.mark.slow
def test_parallel_parsing_gives_the_same_rows_as_serial(tmp_path, monkeypatch):
    from conftest import ARCHIVE

    from iobook.database import discovery, parsing

    tucson = ARCHIVE / "IBM Tucson"  # 142 files: enough to be parsed in worker processes
    parallel, serial = tmp_path / "parallel.duckdb", tmp_path / "serial.duckdb"
    assert len(discovery.find_files([tucson])[0]) >= parsing.PARALLEL_FROM
    ingest([tucson], parallel, progress=False)
    monkeypatch.setattr(parsing, "PARALLEL_FROM", 10**9)
    ingest([tucson], serial, progress=False)
    assert table_rows(parallel) == table_rows(serial)


@pytest.mark.slow
def test_a_fio_log_value_past_bigint_fails_alone_with_its_line(tmp_path):
    """A value past BIGINT (which the parser's line check lets through, and Arrow's int64 refuses) fails its
    file at its line; the other file of the batch still lands."""
    from conftest import REPO

    logs = REPO / "tests" / "fixtures" / "fio" / "logs-raw"
    good, bad = tmp_path / "raw_bw.1.log", tmp_path / "raw_iops.1.log"
    good.write_bytes((logs / "raw_bw.1.log").read_bytes())
    first, rest = (logs / "raw_iops.1.log").read_text().split(", ", 1)
    bad.write_text("99999999999999999999, " + rest)
    db = tmp_path / "t.duckdb"
    counts = ingest([good, bad], db, progress=False)
    con = store.open_read(db)
    rows = dict(con.execute("SELECT path, status FROM sources").fetchall())
    assert rows == {str(good): "ok", str(bad): "error"}
    assert counts["failed"] == 1 and counts["parsed"] == 1
    error, line = con.execute("SELECT error, error_line FROM sources WHERE path = ?", [str(bad)]).fetchone()
    assert error.startswith("a number past the 64-bit integer range: '99999999999999999999, ") and line == 1
    lines = len((logs / "raw_bw.1.log").read_text().splitlines())
    assert con.execute("SELECT count(*) FROM fio_series").fetchone() == (lines,)


def test_a_non_finite_value_in_a_parsers_arrow_table_is_named():
    """The parsers' Arrow tables get the same inf/nan check as their records (the per-rank CSV parsers refuse
    such fields themselves; this guards any parser that returns tables)."""
    import pyarrow as pa
    from conftest import REPO

    from iobook.database.parsing import _non_finite_in_tables
    from iobook.parsers import ior_csv
    from iobook.parsers.ior_records import IorRank

    parsed = ior_csv.parse_rank_csv((REPO / "tests" / "fixtures" / "ior" / "sub679" / "ior-easy-write.csv").read_text())
    table = parsed.tables[IorRank]
    assert _non_finite_in_tables(parsed.tables) is None
    bw = table.column("bw_mib_s").to_pylist()
    bw[3] = float("inf")
    bad = table.set_column(table.column_names.index("bw_mib_s"), "bw_mib_s", pa.array(bw))
    assert _non_finite_in_tables({IorRank: bad}) == ("non-finite value inf in IorRank.bw_mib_s (row 4)", None)


@pytest.mark.slow
def test_cli_a_path_that_does_not_exist_is_one_line_and_exit_status_1(tucson_results, tmp_path):
    """As a user mistypes it: one line naming the path, no traceback, recorded, the other path still read."""
    import subprocess
    import sys

    from conftest import REPO

    missing = tmp_path / "no-such-results"
    run = subprocess.run([sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(tmp_path / "t.duckdb"),
                          str(missing), str(tucson_results)], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 1 and "Traceback" not in run.stderr + run.stdout
    assert [line for line in run.stdout.splitlines() if str(missing) in line] == [
        f"error: {missing}: no such file or folder"]
    con = store.open_read(tmp_path / "t.duckdb")
    assert con.execute("SELECT status, error FROM sources WHERE path = ?", [str(missing)]).fetchall() == [
        ("error", "no such file or folder")]
    assert con.execute("SELECT count(*) FROM sources WHERE status = 'ok'").fetchone()[0] > 0
    con.close()


def test_workers_are_forked_only_from_a_process_of_one_thread():
    """A process running another thread (a notebook's kernel, a test process that drew charts: vl-convert's
    runtime threads) must not fork: a forked parse worker crashed collecting garbage (segmentation fault in
    `make test`). A Python thread stands for any: the kernel's thread list counts native ones as well."""
    import threading

    from iobook.database import parsing

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not parsing.fork_is_safe()
        workers = parsing.Workers()
        pool = workers.start(fork=True)
        assert pool._mp_context.get_start_method() == "spawn"
        workers.close()
    finally:
        stop.set()
        other.join()
