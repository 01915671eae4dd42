"""Ingest's writing: the one process that writes the store. A batch of parsed files goes in one transaction (file by
file when DuckDB refuses it, the refused file recorded as failed); a fio log too large to read whole is streamed in
a piece a transaction; the stats of files read within their racy window are recorded once it has passed.

Each transaction leaves the store one that the next ingest completes: a run killed at any point loses no file.
"""
from __future__ import annotations

import hashlib
import os
import time
from collections import Counter

from ..parsers import ParseError
from . import store
from .batch import Batch, conformed
from .discovery import RACY_NS, file_sha256, racy_window, stat_signature, trusted_stat
from .parsing import TRUNCATED, truncated

STREAM_PIECE_BYTES = 8 << 20  # a streamed fio log is read this many bytes (~350,000 lines) a piece: a 1 GiB log
# peaked at 342 MiB RSS (455 MiB with 16 MiB pieces, 1.9 GiB read whole before this streaming)
MAX_LOG_LINE_BYTES = 1 << 20  # a fio log line is under 100 bytes: a longer one is no log line


def write(con, batch: Batch) -> Counter:
    """Write a batch in one transaction; if the database refuses one file (a value its column cannot hold),
    write the batch again file by file and record that one as failed. Then stream the large fio logs the
    workers left to the writer, and count them."""
    from tqdm import tqdm

    moved = Counter()
    streams = [(source_id, row) for source_id, row in batch.rows if row["status"] == "stream"]
    if streams:
        batch = Batch(rows=[r for r in batch.rows if r[1]["status"] != "stream"], tables=batch.tables,
                      nbytes=batch.nbytes)
    try:
        if batch.rows:
            replace_files(con, batch)
    except Exception:
        for source_id, row in batch.rows:
            try:
                replace_files(con, batch.only(source_id))
            except Exception as e:
                row = {**row, "status": "error", "error": f"could not load into DuckDB: {e}"}
                replace_files(con, Batch(rows=[(source_id, row)]))
                tqdm.write(f"error: {store.printable_path(row['path'])}: {row['error']}")
                moved.update(failed=1, parsed=-1)
    for source_id, placeholder in streams:
        row = stream_fio_log(con, source_id, placeholder["path"])
        moved[{"ok": "parsed", "error": "failed"}[row["status"]]] += 1
        moved["truncated"] += truncated(row)
        if row["status"] == "error":
            tqdm.write(f"error: {store.printable_path(row['path'])}:{row.get('error_line') or ''}: {row['error']}")
        if row.get("racy_stat"):
            verify_racy(con, [(source_id, row["path"], row["racy_stat"], row["sha256"])])
    return moved


def replace_files(con, batch: Batch) -> None:
    """The batch's files in one transaction: their rows replace what the store held for them, and the derived
    tables are marked stale (ingest rebuilds them once every file is in)."""
    def work():
        store.replace_sources(con, batch)
        store.set_derived_stale(con, True)

    in_transaction(con, work)


def in_transaction(con, work) -> None:
    con.begin()
    try:
        work()
    except BaseException:
        con.rollback()
        raise
    con.commit()


def stream_fio_log(con, source_id: int, path: str) -> dict:
    """Parse a large fio log into the store piece by piece, one transaction a piece (DuckDB holds a
    transaction's inserts in memory: 13 million rows in one took 930 MiB), and return its sources row. Until
    the last piece is in, its sources row says ingest stopped while streaming it and holds no hash: a run
    killed meanwhile leaves a file that the next ingest parses again, whose replace drops the pieces in."""
    from ..parsers import fio_log
    from ..parsers.fio_records import FioLogSample

    row = {"path": path, "sha256": "", "bytes": 0, "format": "fio-log", "tool": "fio", "status": "error",
           "error": "ingest stopped while streaming this file: the next ingest reads it again"}
    replace_files(con, Batch(rows=[(source_id, row)]))  # the file's old rows go
    digest, size, lines, ncols, rest = hashlib.sha256(), 0, 0, None, b""
    try:
        with open(path, "rb") as f:
            before, read_ns = os.fstat(f.fileno()), time.time_ns()
            try:
                while piece := f.read(STREAM_PIECE_BYTES):
                    digest.update(piece)
                    size += len(piece)
                    data = rest + piece
                    cut = data.rfind(b"\n") + 1
                    data, rest = data[:cut], data[cut:]
                    if len(rest) > MAX_LOG_LINE_BYTES:
                        raise ParseError(f"line {lines + 1} is over {MAX_LOG_LINE_BYTES >> 20} MiB long: no fio log "
                                         "line", lines + 1)
                    if data:
                        text = data.replace(b"\r\n", b"\n").decode("utf-8", "replace")
                        ncols = ncols or fio_log.log_columns(text)
                        table = conformed(FioLogSample, fio_log.log_table(text, ncols, lines + 1), source_id)
                        lines += data.count(b"\n")
                        in_transaction(con, lambda: store.insert_rows(con, FioLogSample, table))
                if not lines:
                    raise ParseError("no whole fio log line", 1)
            except ParseError as e:
                while piece := f.read(STREAM_PIECE_BYTES):  # its hash: unchanged, it is not parsed again
                    digest.update(piece)
                    size += len(piece)
                row.update(sha256=digest.hexdigest(), bytes=size, error=e.reason, error_line=e.line)
                in_transaction(con, lambda: store.finish_source(con, source_id, row, drop=FioLogSample))
                return row
            after = os.fstat(f.fileno())
    except OSError as e:  # vanished or unreadable since the scan
        row.update(error=f"cannot be read: {e.strerror or e}")
        in_transaction(con, lambda: store.finish_source(con, source_id, row, drop=FioLogSample))
        return row
    row.update(sha256=digest.hexdigest(), bytes=size, status="ok", error=None)
    if rest.rstrip(b"\0"):  # a NUL tail is a crash's padding; anything else is a line cut short
        row.update(error=f"{TRUNCATED}line {lines + 1} ends without a newline, so it was cut short; the lines "
                         "before it were loaded", error_line=lines + 1)
    if stat_signature(before) == stat_signature(after) and size == before.st_size:
        row["stat"] = trusted_stat(before, read_ns)
        if row["stat"] is None:
            row["racy_stat"] = stat_signature(before)
    in_transaction(con, lambda: store.finish_source(con, source_id, row))
    return row


def verify_racy(con, racy: list[tuple[int, str, tuple, str]]) -> None:
    """Record the stats of files read within their racy window once it has passed (a wait of at most
    RACY_NS, FINE_RACY_NS on most file systems) and they are found to hold the bytes read: one ingest then
    records every settled file's stat, as two ingests (one of them killed) would. A mtime further ahead is
    another machine's clock: that file is hashed again next time."""
    due = [r for r in racy if r[2][1] + racy_window(r[2][1]) < time.time_ns() + RACY_NS]
    if not due:
        return
    time.sleep(max(0, max(st[1] + racy_window(st[1]) for _, _, st, _ in due) + 1 - time.time_ns()) / 1e9)
    settled = []
    for source_id, path, signature, sha256 in due:
        try:
            read_ns, st = time.time_ns(), os.stat(path)
            if stat_signature(st) == signature and trusted_stat(st, read_ns) and file_sha256(path) == sha256:
                settled.append((source_id, signature))
        except OSError:
            continue  # gone or unreadable since: its row says what was read
    if settled:
        in_transaction(con, lambda: store.set_file_stats(con, settled))
