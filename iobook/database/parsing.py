"""Ingest's parsing: a file's bytes to its outcome (decoded, its format detected from content, parsed, its values
checked), and the worker processes that parse files in chunks, ahead of the one writer (writing.py).

Nothing here writes the store: a fio log too large to read whole is left to the writer, which streams it.
"""
from __future__ import annotations

import bz2
import codecs
import ctypes
import functools
import hashlib
import lzma
import math
import multiprocessing
import os
import re
import signal
import time
import zlib
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..parsers import DETECT_BYTES, ParseError, detect, parse_outputs
from .batch import Batch, record_columns
from .discovery import stat_signature, trusted_stat

PARALLEL_FROM = 64  # fewer files than this are parsed in this process
CHUNK_BYTES = 1 << 20  # files a worker parses at a time: about this many bytes of them,
CHUNK_FILES = 64  # or this many files, whichever comes first
CHUNKS_AHEAD = 32  # chunks parsed ahead of the writer at most: enough to keep the workers busy while it writes


@dataclass(kw_only=True)
class Outcome:
    row: dict
    records: list
    tables: dict  # record class -> Arrow table of its rows (the parsers' bulk formats)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def parse_bytes(path: str, data: bytes) -> Outcome:
    """Decode, detect and parse one file. Never raises: whatever goes wrong with one file (bad content, a
    parser's RecursionError or MemoryError, a value that is not finite) is recorded as that file's error."""
    row = {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    try:
        return _parse(row, data)
    except Exception as e:  # one file's failure must never stop the others: record it, with its type
        return Outcome(row={**row, "status": "error", "error": f"{type(e).__name__}: {e}"[:500]}, records=[], tables={})


# A file is read, decoded, parsed and loaded whole: a real 82 MiB fio bw log peaked at 1,972 MiB, a 1.25 GiB
# one at over 7 GiB (benchmarks/bench_big_files.py). Larger files are refused before they are read, so
# that one file stays under 1 GiB; the largest real log in data/raw and the archive is under 20 MB. fio's
# bw/iops/lat logs are the exception: one line per I/O (log_avg_msec=0) makes them any size, and their
# lines are independent, so a large one is streamed into the store piece by piece (writing.stream_fio_log).
MAX_FILE_BYTES = 32 << 20
STREAM_FROM_BYTES = 16 << 20  # fio logs larger than this are streamed (in pieces of writing.STREAM_PIECE_BYTES)
STREAM_HEAD_BYTES = DETECT_BYTES  # what of a large file tells whether it is a fio log
MAX_DECOMPRESSED = MAX_FILE_BYTES  # a compressed log larger than this unpacked is refused, not unpacked
_MAGIC = {b"\x1f\x8b": "gzip", b"\xfd7zXZ\x00": "xz", b"BZh": "bzip2", b"\x28\xb5\x2f\xfd": "zstd"}


def _decompressed(data: bytes) -> bytes:
    """The log inside a gzip, xz, bzip2 or zstd file (as a tool's output is often archived), at most
    MAX_DECOMPRESSED bytes of it; other bytes as they are. A stream cut before its end marker is refused:
    a cut log inside it could otherwise end on a whole line and pass for complete."""
    kind = next((k for magic, k in _MAGIC.items() if data.startswith(magic)), None)
    if kind is None:
        return data
    if kind == "gzip":
        unpacker = zlib.decompressobj(wbits=47)
    elif kind == "xz":
        unpacker = lzma.LZMADecompressor()
    elif kind == "bzip2":
        unpacker = bz2.BZ2Decompressor()
    else:
        import zstandard  # here: an unchanged re-ingest reads no file and should not pay for the import

        unpacker = zstandard.ZstdDecompressor().decompressobj()
    out = unpacker.decompress(data, MAX_DECOMPRESSED + 1) if kind != "zstd" else _zstd_bounded(unpacker, data)
    if len(out) > MAX_DECOMPRESSED:
        raise ValueError(f"{kind} file unpacks to more than {MAX_DECOMPRESSED >> 20} MiB")
    if not unpacker.eof:
        raise ValueError(f"{kind} file cut short: its stream ends before its end marker")
    return out


def _zstd_bounded(unpacker, data: bytes) -> bytes:
    """zstandard's decompressobj takes no output limit: feed it in pieces and stop past the bound."""
    out = bytearray()
    for start in range(0, len(data), 1 << 16):
        out += unpacker.decompress(data[start:start + (1 << 16)])
        if len(out) > MAX_DECOMPRESSED or unpacker.eof:
            break
    return bytes(out)


def _text_bytes(data: bytes) -> bytes:
    """UTF-8 bytes of a log however an editor or a crash left it: UTF-16 with its BOM re-encoded, a UTF-8
    BOM dropped, the NUL padding a crash leaves at the end of a file cut off, CRLF line ends made LF."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = data.decode("utf-16").encode("utf-8")
    data = data.removeprefix(b"\xef\xbb\xbf")
    text = data.rstrip(b"\0")
    if b"\n" in text:  # a text log with a NUL tail; a binary file keeps its NULs and is skipped as binary
        data = text
    return data.replace(b"\r\n", b"\n") if b"\r" in data else data  # the check reads; replace copies


TRUNCATED = "truncated: "  # how a loaded file's note starts when its last line was cut
INVALID_BYTES_COUNTED = 1000  # a file with more invalid UTF-8 than this is no text log: counting stops there
INVALID_LINES_SHOWN = 5


def _invalid_utf8(data: bytes) -> list[int]:
    """Offsets of the bytes that are not UTF-8 (each start of an invalid sequence), at most INVALID_BYTES_COUNTED.
    Each decode stops at the next invalid byte and reads a view, not a copy: one pass over the data."""
    found, at, view = [], 0, memoryview(data)
    while len(found) < INVALID_BYTES_COUNTED:
        try:
            codecs.utf_8_decode(view[at:], "strict", True)
            break
        except UnicodeDecodeError as e:
            found.append(at + e.start)
            at += e.end
    return found


def truncated(row: dict) -> bool:
    """A file loaded but for its last, cut line (an ok row whose note says so)."""
    return row["status"] == "ok" and str(row.get("error") or "").startswith(TRUNCATED)


def _parse(row: dict, data: bytes) -> Outcome:
    data = _text_bytes(_decompressed(data))
    nul = data.find(b"\0", 0, DETECT_BYTES)
    if nul >= 0:
        return Outcome(row={**row, "status": "skipped", "error": "binary file (NUL byte)",
                        "error_line": _line_of(data, nul)}, records=[], tables={})
    try:
        text, invalid = data.decode("utf-8"), []
    except UnicodeDecodeError:
        # a few bytes that are not UTF-8 (a corrupted header, a host name in Latin-1) cost the log nothing: shown
        # as U+FFFD, their lines recorded
        text, invalid = data.decode("utf-8", "replace"), _invalid_utf8(data)
    fmt = detect(text[:DETECT_BYTES])
    if fmt is None:
        return Outcome(row={**row, "status": "skipped", "error": "not a log format iobook reads"}, records=[],
                       tables={})
    row.update(format=fmt.name, tool=fmt.tool)
    cut_line = None
    if fmt.ends_in_newline and not text.endswith("\n"):  # every real log ends in a newline: this one was cut
        cut_line = text.count("\n") + 1
        text = text[: text.rfind("\n") + 1]
    cut = (f"{TRUNCATED}line {cut_line} ends without a newline, so it was cut short; " if cut_line else "")
    loaded = "the lines before it were loaded" if cut_line else "the log was loaded"
    if invalid:
        lines = sorted({_line_of(data, at) for at in invalid})
        shown = ", ".join(map(str, lines[:INVALID_LINES_SHOWN])) + (", ..." if len(lines) > INVALID_LINES_SHOWN else "")
        cut += (f"not valid UTF-8: byte 0x{data[invalid[0]]:02x} and {len(invalid) - 1:,} more on line"
                f"{'s' if len(lines) > 1 else ''} {shown}, shown as U+FFFD; ") if len(invalid) > 1 else (
                f"not valid UTF-8: byte 0x{data[invalid[0]]:02x} on line {lines[0]}, shown as U+FFFD; ")
        cut_line = cut_line or lines[0]
    try:
        parsed = parse_outputs(fmt, text)
    except ParseError as e:
        return Outcome(row={**row, "status": "error",
                            "error": (cut + "the lines before it do not parse: " if cut else "") + e.reason,
                            "error_line": cut_line or e.line}, records=[], tables={})
    bad = _bad_value(parsed.records, text) or _non_finite_in_tables(parsed.tables)
    if bad:
        return Outcome(row={**row, "status": "error", "error": bad[0], "error_line": bad[1]}, records=[], tables={})
    row.update(format=parsed.format, tool=parsed.tool, tool_version=parsed.tool_version, status="ok")
    if cut:
        row.update(error=cut + loaded, error_line=cut_line)
    return Outcome(row=row, records=parsed.records, tables=parsed.tables)


INT64 = range(-(1 << 63), 1 << 63)  # DuckDB's BIGINT, which every int column is
_NON_FINITE = re.compile(r"(?i)(?<![\w.])[-+]?(?:inf(?:inity)?|nan)(?!\w)")


def _bad_value(records: list, text: str) -> tuple[str, int | None] | None:
    """(reason, line) for the first value the store must not hold: a float that is inf or nan (not a
    measurement) or an int outside BIGINT (DuckDB refuses it with no word of where). The line is the
    record's own, else the first line of the text showing such a value."""
    for rec in records:
        cls = type(rec)
        for name in _float_fields(cls):
            value = getattr(rec, name)
            if value is not None and not math.isfinite(value):
                return _where(f"non-finite value {value} in {cls.__name__}.{name}", rec, text, _NON_FINITE)
        for name in _int_fields(cls):
            value = getattr(rec, name)
            # only ints: `in range` walks the range for anything else (a str hung ingest); a value of the
            # wrong type fails the file when its batch is made
            if isinstance(value, int) and value not in INT64:
                return _where(f"integer {value} out of range (64 bits) in {cls.__name__}.{name}", rec, text,
                              re.compile(rf"(?<!\d){value}(?!\d)"))
    return None


def _non_finite_in_tables(tables: dict) -> tuple[str, None] | None:
    """_bad_value's non-finite check for the parsers' Arrow tables, one vectorized check a column."""
    import numpy as np
    import pyarrow.compute as pc

    for cls, table in tables.items():
        for name in _float_fields(cls):
            if name not in table.column_names:
                continue
            finite = pc.fill_null(pc.is_finite(table.column(name)), True).to_numpy(zero_copy_only=False)
            if not finite.all():
                i = int(np.argmin(finite))
                return f"non-finite value {table.column(name)[i].as_py()} in {cls.__name__}.{name} (row {i + 1})", None
    return None


def _where(reason: str, rec, text: str, shown: re.Pattern) -> tuple[str, int | None]:
    line = getattr(rec, "line", None)
    if not isinstance(line, int):
        m = shown.search(text)
        line = text.count("\n", 0, m.start()) + 1 if m else None
    return f"{reason} (line {line})" if line else reason, line


@functools.cache
def _float_fields(cls: type) -> tuple[str, ...]:
    """The float columns of a record class (checking every field of every record cost 6 s an archive)."""
    return tuple(name for name, t in record_columns(cls) if t is float)


@functools.cache
def _int_fields(cls: type) -> tuple[str, ...]:
    return tuple(name for name, t in record_columns(cls) if t is int)


def failed_outcome(path: str, reason: str) -> Outcome:
    """A file that could not be parsed for a reason outside its content (unreadable, its worker lost)."""
    return Outcome(row={"path": path, "sha256": "", "bytes": 0, "status": "error", "error": reason}, records=[],
                   tables={})


def _parse_file(path: str) -> Outcome:
    try:
        with open(path, "rb") as f:
            before, read_ns = os.fstat(f.fileno()), time.time_ns()
            head = b""
            if before.st_size > STREAM_FROM_BYTES:
                head = f.read(STREAM_HEAD_BYTES)
                if _fio_log_head(head):  # streamed by the writer, which alone may write the store
                    return Outcome(row={"path": path, "sha256": "", "bytes": before.st_size, "status": "stream"},
                                   records=[], tables={})
            if before.st_size > MAX_FILE_BYTES:  # refused unread; hashed in pieces, from the same open file
                f.seek(0)
                return Outcome(row={"path": path, "sha256": hashlib.file_digest(f, "sha256").hexdigest(),
                                "bytes": before.st_size, "status": "error",
                                "error": f"{before.st_size / 2**20:,.0f} MiB: larger than the "
                                         f"{MAX_FILE_BYTES >> 20} MiB iobook reads in one file (split it; a fio "
                                         "bw/iops/lat log is read whatever its size)"}, records=[], tables={})
            data = head + f.read()
            after = os.fstat(f.fileno())
    except OSError as e:  # vanished since the scan, unreadable, ...
        return failed_outcome(path, f"cannot be read: {e.strerror or e}")
    outcome = parse_bytes(path, data)
    if stat_signature(before) == stat_signature(after) and before.st_size == len(data):  # not written meanwhile
        outcome.row["stat"] = trusted_stat(before, read_ns)
        if outcome.row["stat"] is None:  # written just before the read: hashed again once its window has passed
            outcome.row["racy_stat"] = stat_signature(before)
    return outcome


def _fio_log_head(head: bytes) -> bool:
    """Whether a file's first bytes are a fio bw/iops/lat log's (its whole lines)."""
    try:
        text = head[: head.rfind(b"\n") + 1].decode("utf-8")
    except UnicodeDecodeError:
        return False
    fmt = detect(text)
    return fmt is not None and fmt.name == "fio-log"


def _start_worker(parent_pid: int) -> None:
    """Worker initializer. A worker outlives a killed ingest otherwise (Linux; elsewhere a no-op); a parent
    killed while this worker was starting is gone before the signal is armed: then exit now. Then the
    parsers' imports (a spawned worker's), before the first file arrives."""
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() != parent_pid:
        os._exit(1)
    from ..parsers import all_formats

    all_formats()


def fork_is_safe() -> bool:
    """Whether this process may fork workers: it runs one thread only. A fork copies no other thread, and a
    lock or runtime one held is broken in the child: a test process that had drawn charts in vl-convert's
    runtime forked workers that crashed collecting garbage (Fatal Python error: Segmentation fault). The
    threads of a native library (DuckDB's, vl-convert's) are not Python's, so the kernel's list is read."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc: no way to know
        return False


class Workers:
    """Parse worker processes, started when first needed, or before the database is opened when it is
    known they will be (a new database: every file is parsed). Started before, and when this process runs no
    other thread (fork_is_safe), they are forked: copies of this process with the parsers imported, where a
    spawned worker spends ~1 s of CPU importing them. Otherwise they are spawned (once DuckDB is open, its
    threads run). Either way they are this process's children, which _start_worker ties to it (a
    forkserver's workers outlived a killed ingest with their server)."""

    def __init__(self):
        self.pool: ProcessPoolExecutor | None = None

    def start(self, fork: bool = False) -> ProcessPoolExecutor:
        if self.pool is None:
            fork = fork and fork_is_safe()
            if fork:
                from ..parsers import all_formats

                all_formats()
            self.pool = ProcessPoolExecutor(max_workers=os.cpu_count(), initializer=_start_worker,
                                            mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
                                            initargs=(os.getpid(),))
            for _ in range(os.cpu_count()):  # a spawned worker starts when a task finds none idle
                self.pool.submit(int)
        return self.pool

    def batches(self, chunks: list[list[tuple[int, str]]]):
        """Batches of parsing the chunks, in order: in the workers when there are enough files to repay
        starting them, at most CHUNKS_AHEAD chunks ahead of the one consumed (workers running ahead of the
        writer held every parsed file in memory: 7 GiB at 82,000 files)."""
        if self.pool is None and sum(map(len, chunks)) < PARALLEL_FROM:
            yield from map(parse_batch, chunks)
            return
        pool = self.start()
        pending = deque(pool.submit(parse_batch, chunk) for chunk in chunks[:CHUNKS_AHEAD])
        for chunk in chunks[CHUNKS_AHEAD:]:
            done = pending.popleft().result()
            pending.append(pool.submit(parse_batch, chunk))
            yield done
        while pending:
            yield pending.popleft().result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


def parse_batch(items: list[tuple[int, str]]) -> Batch:
    """Parse files (source_id, path) into one batch: what a worker process or a Dask task hands the writer.
    A file whose records do not fit the store's columns (an error in a parser) is recorded as failed."""
    parsed = [(source_id, o.row, o.records, o.tables) for source_id, path in items for o in [_parse_file(path)]]
    try:
        return Batch.of(parsed)
    except Exception:
        batch = Batch()
        for source_id, row, records, tables in parsed:
            try:
                batch.extend(Batch.of([(source_id, row, records, tables)]))
            except Exception as e:
                error = f"records do not fit the store: {type(e).__name__}: {e}"[:500]
                batch.extend(Batch.of([(source_id, {**row, "status": "error", "error": error}, [], {})]))
        return batch


def in_chunks(todo: list[tuple[str, int]], sizes: dict[str, int]) -> list[list[tuple[int, str]]]:
    """(source_id, path) items in chunks of about CHUNK_BYTES or CHUNK_FILES: a worker's unit of work."""
    chunks, chunk, size = [], [], 0
    for path, source_id in todo:
        chunk.append((source_id, path))
        size += sizes[path]
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            chunks.append(chunk)
            chunk, size = [], 0
    return chunks + [chunk] if chunk else chunks
