"""One bad file never costs the others: each case adds one bad input, built from a real log, to a copy of
IBM Tucson's SC23 results folder; every good file's rows must equal a clean ingest's, and the bad one must
be recorded with its reason."""
import os
import shutil
from pathlib import Path

import pytest

from iobook import store
from iobook.ingest import ingest
from iobook.parsers import fio

from test_ingest import table_rows

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


def test_infinity_in_a_fio_json_is_refused(clean, tmp_path):
    folder, rows = clean
    text = FIO_JSON.read_text().replace('"iops" : 32000.000000,', '"iops" : Infinity,', 1)
    (folder / "zz-fio-inf.json").write_text(text)
    db, counts = ingest_with(folder, tmp_path)
    status, error = _status(db, "zz-fio-inf.json")
    assert status == "error" and "non-finite value inf" in error and counts["failed"] == 1
    assert _rows(db) == rows


def test_nan_in_a_fio_json_is_refused(clean, tmp_path):
    folder, rows = clean
    (folder / "zz-fio-nan.json").write_text(FIO_JSON.read_text().replace('"iops" : 32000.000000,', '"iops" : NaN,', 1))
    db, _ = ingest_with(folder, tmp_path)
    assert _status(db, "zz-fio-nan.json")[0] == "error" and _rows(db) == rows


def test_deeply_nested_json_is_a_recorded_error(clean, tmp_path):
    folder, rows = clean
    head = FIO_JSON.read_text()
    (folder / "zz-fio-deep.json").write_text(head[: head.index('"jobs"')] + '"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    db, counts = ingest_with(folder, tmp_path)
    status, error = _status(db, "zz-fio-deep.json")
    assert status == "error" and error and counts["failed"] == 1
    assert _rows(db) == rows


def test_a_parser_running_out_of_memory_fails_that_file_only(clean, tmp_path, monkeypatch):
    folder, rows = clean
    shutil.copy(FIO_JSON, folder / "zz-fio.json")

    def exhausted(text):
        raise MemoryError("cannot allocate")

    formats = [f if f.tool != "fio" else type(f)(f.name, f.tool, f.detect, exhausted) for f in fio.FORMATS]
    monkeypatch.setattr(fio, "FORMATS", tuple(formats))
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
            job = next(r for r in parsed.records if isinstance(r, fio.FioJob))
            records = [dataclasses.replace(job, iodepth="deep") if r is job else r for r in parsed.records]
            return dataclasses.replace(parsed, records=records)
        return type(fmt)(fmt.name, fmt.tool, fmt.detect, parse)

    monkeypatch.setattr(fio, "FORMATS", tuple(wrong_type(f) for f in fio.FORMATS))
    db, counts = ingest_with(folder, tmp_path)
    status, error = _status(db, "zz-fio.json")
    assert status == "error" and error.startswith("records do not fit the store: ") and counts["failed"] == 1
    assert _rows(db) == rows


def test_a_file_that_vanishes_after_the_scan_is_recorded(clean, tmp_path, monkeypatch):
    folder, rows = clean
    doomed = folder / "zz-copy-of-ior-easy-write.txt"
    shutil.copy(folder / "ior-easy-write.txt", doomed)
    import iobook.ingest as ingest_module

    real_find = ingest_module.find_files

    def find_then_delete(paths):
        found = real_find(paths)
        doomed.unlink()
        return found

    monkeypatch.setattr(ingest_module, "find_files", find_then_delete)
    db, counts = ingest_with(folder, tmp_path)
    status, error = _status(db, doomed.name)
    assert status == "error" and error.startswith("cannot be read: No such file") and counts["failed"] == 1
    assert _rows(db) == rows


def test_fifo_in_the_tree_and_as_an_argument_never_blocks(clean, tmp_path):
    folder, rows = clean
    os.mkfifo(folder / "zz-pipe")
    os.mkfifo(tmp_path / "arg-pipe")
    db, counts = ingest_with(folder, tmp_path, tmp_path / "arg-pipe")
    assert _status(db, "zz-pipe") == ("skipped", "not a regular file (FIFO, socket or device)")
    assert _status(db, "arg-pipe") == ("skipped", "not a regular file (FIFO, socket or device)")
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
IOR_CSV = Path(__file__).parent / "fixtures" / "ior" / "sub679" / "ior-easy-write.csv"


def _rank_rows(db, table: str, name: str) -> list:
    con = store.open_read(db)
    try:
        return con.execute(f"SELECT * EXCLUDE (source_id) FROM {table} WHERE source_id = "
                           "(SELECT source_id FROM sources WHERE path LIKE ?) ORDER BY ALL", [f"%/{name}"]).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("csv, table", [(MDTEST_CSV, "raw_mdtest_ranks"), (IOR_CSV, "raw_ior_ranks")])
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


def test_inf_in_an_mdtest_rank_csv_is_refused_at_its_line(clean, tmp_path):
    folder, rows = clean
    lines = MDTEST_CSV.read_text().splitlines(keepends=True)
    fields = lines[3].split(",")
    fields[2] = "inf"
    lines[3] = ",".join(fields)
    (folder / "zz-ranks.csv").write_text("".join(lines))
    db, counts = ingest_with(folder, tmp_path)
    con = store.open_read(db)
    assert con.execute("SELECT status, error, error_line FROM sources WHERE path LIKE '%zz-ranks.csv'").fetchone() == (
        "error", "'inf' is not a number", 4)
    con.close()
    assert _rows(db) == rows


def test_glob_characters_in_a_name_load_that_file_only(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(MDTEST_CSV, folder / "mdtest-*.csv")
    shutil.copy(MDTEST_CSV, folder / "mdtest-easy.csv")
    ingest([folder], tmp_path / "t.duckdb", progress=False)
    assert len(_rank_rows(tmp_path / "t.duckdb", "raw_mdtest_ranks", "mdtest-*.csv")) == \
        len(_rank_rows(tmp_path / "t.duckdb", "raw_mdtest_ranks", "mdtest-easy.csv")) > 0


def test_what_is_hashed_is_what_is_loaded(tmp_path, monkeypatch):
    """A CSV rewritten between parsing and loading: the rows stored are those of the bytes hashed."""
    import iobook.ingest as ingest_module

    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / "ranks.csv"
    shutil.copy(MDTEST_CSV, log)
    real_write = ingest_module._write

    def write_after_rewrite(con, pending):
        log.write_text(MDTEST_CSV.read_text().replace("3.2863976192e+02", "9.9999999999e+02"))
        return real_write(con, pending)

    monkeypatch.setattr(ingest_module, "_write", write_after_rewrite)
    ingest([folder], tmp_path / "t.duckdb", progress=False)
    con = store.open_read(tmp_path / "t.duckdb")
    assert con.execute("SELECT sha256 FROM sources").fetchone()[0] == __import__("hashlib").sha256(MDTEST_CSV.read_bytes()).hexdigest()
    values = {round(v, 6) for (v,) in con.execute("SELECT time FROM raw_mdtest_ranks WHERE time IS NOT NULL").fetchall()}
    assert 328.639762 in values and 999.999999 not in values


def _variant_cases():
    import bz2
    import gzip
    import lzma

    import zstandard

    return {
        "gzip": gzip.compress, "xz": lzma.compress, "bzip2": bz2.compress,
        "zstd": lambda b: zstandard.ZstdCompressor().compress(b),
        "utf-8 BOM": lambda b: b"\xef\xbb\xbf" + b,
        "utf-16 BOM": lambda b: b.decode().encode("utf-16"),
        "CRLF": lambda b: b.replace(b"\n", b"\r\n"),
        "NUL tail": lambda b: b + b"\0" * 4096,
    }


@pytest.mark.parametrize("variant", list(_variant_cases()))
def test_real_log_variants_give_the_same_rows(variant, tmp_path):
    """Tucson's SC23 ior-easy-write log as archived (compressed), converted by an editor or padded by a
    crash: the same rows as the log itself."""
    from conftest import TUCSON_SC23

    log = next((TUCSON_SC23 / "results").glob("*/ior-easy-write.txt"))
    plain, varied = tmp_path / "plain", tmp_path / "varied"
    plain.mkdir(), varied.mkdir()
    (plain / "ior.txt").write_bytes(log.read_bytes())
    (varied / "ior.txt").write_bytes(_variant_cases()[variant](log.read_bytes()))
    ingest([plain], tmp_path / "plain.duckdb", progress=False)
    counts = ingest([varied], tmp_path / "varied.duckdb", progress=False)
    assert counts["parsed"] == 1
    plain_rows, varied_rows = _rows(tmp_path / "plain.duckdb"), _rows(tmp_path / "varied.duckdb")
    assert varied_rows == plain_rows and plain_rows["raw_ior_iterations"]


def test_a_compressed_bomb_is_refused(tmp_path, monkeypatch):
    import gzip

    import iobook.ingest as ingest_module

    monkeypatch.setattr(ingest_module, "MAX_DECOMPRESSED", 1 << 20)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "big.gz").write_bytes(gzip.compress(b"IOR-3.3.0: MPI Coordinated Test\n" * 100_000))
    counts = ingest([tmp_path / "logs"], tmp_path / "t.duckdb", progress=False)
    con = store.open_read(tmp_path / "t.duckdb")
    assert counts["failed"] == 1
    assert con.execute("SELECT status, error FROM sources").fetchone() == (
        "error", "ValueError: gzip file unpacks to more than 1 MiB")


def test_an_unchanged_tree_with_a_refused_entry_is_not_written_again(clean, tmp_path, monkeypatch):
    import iobook.ingest as ingest_module

    folder, rows = clean
    (folder / "zz-passwd").symlink_to("/etc/passwd")
    db, _ = ingest_with(folder, tmp_path)
    writes = []
    monkeypatch.setattr(ingest_module, "_transaction", lambda con, pending: writes.append(pending))
    rebuilt = []
    monkeypatch.setattr(ingest_module.store, "rebuild_derived", lambda con: rebuilt.append(con))
    counts = ingest([folder], db, progress=False)
    assert counts["unchanged"] == counts["seen"] - 1 and counts["skipped"] == 1
    assert writes == [] and rebuilt == []
    assert _status(db, "zz-passwd") == ("skipped", "symlink leading out of the folders ingested")
