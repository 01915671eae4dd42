"""One bad file never costs the others: each case adds one bad input, built from a real log, to a copy of
IBM Tucson's SC23 results folder; every good file's rows must equal a clean ingest's, and the bad one must
be recorded with its reason."""
import shutil
from pathlib import Path

import pytest
from test_ingest import table_rows

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import fio_json
from iobook.parsers.fio_records import FioJob

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

FIO_JSON = Path(__file__).parent / "fixtures" / "fio" / "fio333-multi.json"


@pytest.fixture
def clean(tucson_results, tmp_path_factory):
    """(folder, every table's rows after a clean ingest). Bad inputs are named `zz-*`, so they sort after the
    good files and every good file keeps its source id: the rows compare as they are."""
    db = tmp_path_factory.mktemp("clean") / "clean.duckdb"
    ingest([tucson_results], db, progress=False)
    return tucson_results, _rows(db)


def _rows(db) -> dict:
    return {table: rows for table, rows in table_rows(db).items() if table != "sources"}


def _status(db, name: str) -> tuple:
    con = store.open_read(db)
    try:
        return con.execute("SELECT status, error FROM sources WHERE path LIKE ?", [f"%/{name}"]).fetchone()
    finally:
        con.close()


def ingest_with(folder: Path, tmp_path: Path, *extra: Path):
    db = tmp_path / "bad.duckdb"
    counts = ingest([folder, *extra], db, progress=False)
    return db, counts


def test_a_parser_running_out_of_memory_fails_that_file_only(clean, tmp_path, monkeypatch):
    folder, rows = clean
    shutil.copy(FIO_JSON, folder / "zz-fio.json")

    def exhausted(text):
        raise MemoryError("cannot allocate")

    formats = [f if f.tool != "fio" else type(f)(name=f.name, tool=f.tool, detect=f.detect, parse=exhausted)
               for f in fio_json.FORMATS]
    monkeypatch.setattr(fio_json, "FORMATS", tuple(formats))
    db, counts = ingest_with(folder, tmp_path)
    assert _status(db, "zz-fio.json") == ("error", "MemoryError: cannot allocate")
    assert _rows(db) == rows


@pytest.mark.timeout(120)  # it hung: the int range check walked range(-2**63, 2**63) for a str
def test_records_that_do_not_fit_their_columns_fail_that_file_only(clean, tmp_path, monkeypatch):
    """A parser bug that puts a string in an int field: the file is recorded with the reason, in the same
    batch as the good files, which all land (the batch is converted file by file to find it)."""
    import dataclasses

    folder, rows = clean
    shutil.copy(FIO_JSON, folder / "zz-fio.json")

    def wrong_type(fmt):
        def parse(text):
            parsed = fmt.parse(text)
            job = next(r for r in parsed.records if isinstance(r, FioJob))
            records = [dataclasses.replace(job, iodepth="deep") if r is job else r for r in parsed.records]
            return dataclasses.replace(parsed, records=records)
        return type(fmt)(name=fmt.name, tool=fmt.tool, detect=fmt.detect, parse=parse)

    monkeypatch.setattr(fio_json, "FORMATS", tuple(wrong_type(f) for f in fio_json.FORMATS))
    db, counts = ingest_with(folder, tmp_path)
    status, error = _status(db, "zz-fio.json")
    assert status == "error" and error.startswith("records do not fit the store: ") and counts["failed"] == 1
    assert _rows(db) == rows


def test_a_file_that_vanishes_after_the_scan_is_recorded(clean, tmp_path, monkeypatch):
    folder, rows = clean
    doomed = folder / "zz-copy-of-ior-easy-write.txt"
    shutil.copy(folder / "ior-easy-write.txt", doomed)
    from iobook.database import discovery

    real_find = discovery.find_files

    def find_then_delete(paths):
        found = real_find(paths)
        doomed.unlink()
        return found

    monkeypatch.setattr(discovery, "find_files", find_then_delete)
    db, counts = ingest_with(folder, tmp_path)
    status, error = _status(db, doomed.name)
    assert status == "error" and error.startswith("cannot be read: No such file") and counts["failed"] == 1
    assert _rows(db) == rows


def test_symlinks_out_of_the_tree_and_loops_are_not_followed(clean, tmp_path):
    folder, rows = clean
    (folder / "zz-passwd").symlink_to("/etc/passwd")
    (folder / "zz-loop").symlink_to(folder)
    db, counts = ingest_with(folder, tmp_path)
    assert _status(db, "zz-passwd") == ("skipped", "symlink leading out of the folders ingested")
    con = store.open_read(db)
    assert con.execute("SELECT count(*) FROM sources WHERE path LIKE '%/zz-loop/%'").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM sources WHERE sha256 = ?", [
        __import__("hashlib").sha256(Path("/etc/passwd").read_bytes()).hexdigest()]).fetchone() == (0,)
    con.close()
    assert _rows(db) == rows


MDTEST_CSV = Path(__file__).parent / "fixtures" / "mdtest" / "sub679-2023-mdtest-easy-write.csv"


def _rank_rows(db, table: str, name: str) -> list:
    con = store.open_read(db)
    try:
        return con.execute(f"SELECT * EXCLUDE (source_id) FROM {table} WHERE source_id = "
                           "(SELECT source_id FROM sources WHERE path LIKE ?) ORDER BY ALL", [f"%/{name}"]).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("csv, table", [(MDTEST_CSV, "raw_mdtest_ranks")])
def test_a_rank_csv_cut_inside_its_last_number_loads_the_whole_lines(csv, table, tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir(), cut.mkdir()
    data = csv.read_bytes()
    (whole / "ranks.csv").write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 1])  # without its last line
    last_line = data.count(b"\n")
    (cut / "ranks.csv").write_bytes(data.rstrip(b"\n")[:-7])  # a wall-time kill inside the last row's numbers
    ingest([whole], tmp_path / "whole.duckdb", progress=False)
    counts = ingest([cut], tmp_path / "cut.duckdb", progress=False)
    assert counts["truncated"] == 1 and counts["failed"] == 0
    assert _rank_rows(tmp_path / "cut.duckdb", table, "ranks.csv") == _rank_rows(tmp_path / "whole.duckdb", table, "ranks.csv")
    assert _rank_rows(tmp_path / "cut.duckdb", table, "ranks.csv")
    con = store.open_read(tmp_path / "cut.duckdb")
    status, error, line = con.execute("SELECT status, error, error_line FROM sources").fetchone()
    assert status == "ok" and error.startswith("truncated: line") and line == last_line


def test_what_is_hashed_is_what_is_loaded(tmp_path, monkeypatch):
    """A CSV rewritten between parsing and loading: the rows stored are those of the bytes hashed."""
    from iobook.database import writing

    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "ranks.csv"
    shutil.copy(MDTEST_CSV, log)
    real_write = writing.write

    def write_after_rewrite(con, pending):
        log.write_text(MDTEST_CSV.read_text().replace("3.2863976192e+02", "9.9999999999e+02"))
        return real_write(con, pending)

    monkeypatch.setattr(writing, "write", write_after_rewrite)
    ingest([folder], tmp_path / "t.duckdb", progress=False)
    con = store.open_read(tmp_path / "t.duckdb")
    assert con.execute("SELECT sha256 FROM sources").fetchone()[0] == __import__("hashlib").sha256(MDTEST_CSV.read_bytes()).hexdigest()
    values = {round(v, 6) for (v,) in con.execute("SELECT time FROM raw_mdtest_ranks WHERE time IS NOT NULL").fetchall()}
    assert 328.639762 in values and 999.999999 not in values


def test_a_compressed_bomb_is_refused(tmp_path, monkeypatch):
    import gzip

    from iobook.database import parsing

    monkeypatch.setattr(parsing, "MAX_DECOMPRESSED", 1 << 20)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "big.gz").write_bytes(gzip.compress(b"IOR-3.3.0: MPI Coordinated Test\n" * 100_000))
    counts = ingest([tmp_path / "logs"], tmp_path / "t.duckdb", progress=False)
    con = store.open_read(tmp_path / "t.duckdb")
    assert counts["failed"] == 1
    assert con.execute("SELECT status, error FROM sources").fetchone() == (
        "error", "ValueError: gzip file unpacks to more than 1 MiB")


def test_an_unchanged_tree_with_a_refused_entry_is_not_written_again(clean, tmp_path, monkeypatch):
    from iobook.database import writing

    folder, rows = clean
    (folder / "zz-passwd").symlink_to("/etc/passwd")
    db, _ = ingest_with(folder, tmp_path)
    writes = []
    monkeypatch.setattr(writing, "replace_files", lambda con, pending: writes.append(pending))
    rebuilt = []
    monkeypatch.setattr(store, "rebuild_derived", lambda con: rebuilt.append(con))
    counts = ingest([folder], db, progress=False)
    assert counts["unchanged"] == counts["seen"] - 1 and counts["skipped"] == 1
    assert writes == [] and rebuilt == []
    assert _status(db, "zz-passwd") == ("skipped", "symlink leading out of the folders ingested")
