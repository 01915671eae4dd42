"""Ingest: find files, detect their format from content, parse, and write them to the store.

Re-ingesting a tree changes nothing; a file whose bytes changed has its records replaced in one
transaction; a file that fails is recorded with its error and line while the rest still land.
"""
from __future__ import annotations

import bz2
import codecs
import ctypes
import functools
import hashlib
import json
import lzma
import math
import multiprocessing
import os
import re
import signal
import stat
import time
import zlib
from collections import Counter, deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..parsers import DETECT_BYTES, ParseError, detect, parse_outputs
from . import store
from .batch import Batch, conformed, record_columns
from .digest import files_digest

# Records written in one transaction, in Arrow bytes. A commit costs ~80 ms (DuckDB checkpoints its
# row groups): 11 commits of 500 files took 1.7 s of the archive's writes, 2 commits 0.6 s.
BATCH_BYTES = 32 << 20
PARALLEL_FROM = 64  # fewer files than this are parsed in this process
CHUNK_BYTES = 1 << 20  # files a worker parses at a time: about this many bytes of them,
CHUNK_FILES = 64  # or this many files, whichever comes first
CHUNKS_AHEAD = 32  # chunks parsed ahead of the writer at most: enough to keep the workers busy while it writes

INGEST_COUNTS = ("seen", "new", "changed", "unchanged", "gone", "parsed", "truncated", "skipped", "failed",
                 "failed before")


def format_ingest(counts) -> str:
    return "ingest: " + ", ".join(f"{k} {counts[k]}" for k in INGEST_COUNTS)


@dataclass(kw_only=True)
class Outcome:
    row: dict
    records: list
    tables: dict  # record class -> Arrow table of its rows (the parsers' bulk formats)


def find_files(paths: list[Path]) -> tuple[dict[str, os.stat_result], dict[str, str], dict[str, str]]:
    """Every regular file under the given files/folders, absolute and sorted so ids are reproducible, with
    its stat (which tells an unchanged file without reading it); the entries that are not read, each with
    its reason: symlinks leading out of the given tree or to a folder (a loop is such a link), FIFOs,
    sockets and devices (reading one can block forever); and the entries that failed, each with its
    reason: a path given that does not exist, a folder that cannot be listed. One scandir and one lstat a
    file: listing is most of an unchanged re-ingest."""
    found: dict[str, os.stat_result] = {}
    refused: dict[str, str] = {}
    failed: dict[str, str] = {}
    for root in paths:
        root = Path(root).resolve()
        try:
            is_dir, exists = root.is_dir(), root.exists()
        except OSError as e:  # a folder above it that cannot be searched
            failed[str(root)] = f"cannot be read: {e.strerror or e}"
            continue
        if is_dir:
            _scan(str(root), root, found, refused, failed)
        elif exists:
            reason = _refusal(root, root.parent)
            if reason:
                refused[str(root)] = reason
            else:
                found[str(root)] = root.stat()
        else:
            failed[str(root)] = "no such file or folder"
    return tuple({path: d[path] for path in sorted(d, key=_path_order)} for d in (found, refused, failed))


def _path_order(path: str) -> list[str]:
    return path.split(os.sep)  # as Path objects sort: by their parts


def _scan(folder: str, root: Path, found: dict, refused: dict, failed: dict) -> None:
    """os.walk's walk (folder symlinks are not followed), keeping the stat scandir already holds; a folder
    that cannot be listed is a failure, with its reason."""
    try:
        with os.scandir(folder) as entries:
            entries = list(entries)
    except OSError as e:
        failed[folder] = f"folder cannot be read: {e.strerror or e}"
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir()  # follows symlinks, as os.walk sorts them; a link to a folder is not entered
        except OSError:  # a symlink loop: refused below with its reason
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                _scan(entry.path, root, found, refused, failed)
            continue
        if entry.is_symlink():
            reason = _refusal(Path(entry.path), root)
            try:
                st = None if reason else os.stat(entry.path)
            except OSError as e:
                reason = f"cannot be read: {e.strerror}"
        else:
            try:
                st = entry.stat(follow_symlinks=False)
                reason = None if stat.S_ISREG(st.st_mode) else "not a regular file (FIFO, socket or device)"
            except OSError as e:
                reason = f"cannot be read: {e.strerror}"
        if reason:
            refused[entry.path] = reason
        else:
            found[entry.path] = st


def _refusal(entry: Path, root: Path) -> str | None:
    """Why `entry` is not read as a log, or None when it is a regular file inside `root`."""
    try:
        if entry.is_symlink():
            target = entry.resolve(strict=True)
            if not target.is_relative_to(root):
                return "symlink leading out of the folders ingested"
            if target.is_dir():
                return "symlink to a folder (not followed)"
        mode = entry.stat().st_mode
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop on older Pythons
        return f"cannot be read: {e.strerror if isinstance(e, OSError) else e}"
    if not stat.S_ISREG(mode):
        return "not a regular file (FIFO, socket or device)"
    return None


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
# lines are independent, so a large one is streamed into the store piece by piece (stream_fio_log).
MAX_FILE_BYTES = 32 << 20
STREAM_FROM_BYTES = 16 << 20  # fio logs larger than this are streamed, in pieces of
STREAM_PIECE_BYTES = 8 << 20  # this many bytes (~350,000 lines): a 1 GiB log peaked at 342 MiB RSS (455 MiB
# with 16 MiB pieces, 1.9 GiB read whole before this streaming)
MAX_LOG_LINE_BYTES = 1 << 20  # a fio log line is under 100 bytes: a longer one is no log line
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


def _truncated(row: dict) -> bool:
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


def refused_row(path: str, reason: str) -> dict:
    """The sources row of an entry find_files refused: recorded as skipped, never read."""
    return {"path": path, "sha256": "", "bytes": 0, "status": "skipped", "error": reason}


def failed_entry_row(path: str, reason: str) -> dict:
    """The sources row of a path given that does not exist or a folder that cannot be listed: a failure
    (the exit status says so) of an entry that holds no bytes of its own."""
    return {"path": path, "sha256": "", "bytes": 0, "status": "error", "error": reason}


ENTRY_FAILURES = ("no such file or folder", "folder cannot be read: ", "cannot be read: ")


def _entries_read_now(known: dict, paths: list[Path], present, gone: list[int]) -> list[int]:
    """The ids of failed entries (a missing path, a folder that could not be listed) under `paths` that this
    ingest found readable: a folder now listed, a path now there. Their failure is gone; a file that now
    exists at the path is in `present` and replaces the row itself."""
    roots = [Path(p).resolve() for p in paths]
    return [i for p, (i, sha, status, error) in known.items()
            if status == "error" and not sha and p not in present and i not in gone
            and error and error.startswith(ENTRY_FAILURES) and any(Path(p).is_relative_to(r) for r in roots)
            and os.path.isdir(p)]


def failed_outcome(path: str, reason: str) -> Outcome:
    """A file that could not be parsed for a reason outside its content (unreadable, its worker lost)."""
    return Outcome(row={"path": path, "sha256": "", "bytes": 0, "status": "error", "error": reason}, records=[],
                   tables={})


RACY_NS = 2 * 10**9  # a stat is recorded only for a file last modified this long before it was read,
FINE_RACY_NS = 20 * 10**6  # or this long when its mtime has a fraction of a second (the kernel stamps those
# from a clock ticking every 1-10 ms; whole seconds may be a file system's granularity: FAT, some NFS)


def stat_signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def racy_window(mtime_ns: int) -> int:
    return RACY_NS if mtime_ns % 10**9 == 0 else FINE_RACY_NS


def trusted_stat(st: os.stat_result, read_ns: int) -> tuple[int, int, int, int] | None:
    """The signature to record for bytes read at `read_ns` from a file of stat `st`, or None. A write after
    the read sets mtime to the time of that write; when st's mtime is older than the read by more than
    the clock's granularity, any later write changes it. A file modified within that window of its read is
    hashed again once it has passed (git's "racily clean" entries; _verify_racy)."""
    return stat_signature(st) if st.st_mtime_ns < read_ns - racy_window(st.st_mtime_ns) else None


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


def stream_fio_log(con, source_id: int, path: str) -> dict:
    """Parse a large fio log into the store piece by piece, one transaction a piece (DuckDB holds a
    transaction's inserts in memory: 13 million rows in one took 930 MiB), and return its sources row. Until
    the last piece is in, its sources row says ingest stopped while streaming it and holds no hash: a run
    killed meanwhile leaves a file that the next ingest parses again, whose replace drops the pieces in."""
    from ..parsers import fio

    row = {"path": path, "sha256": "", "bytes": 0, "format": "fio-log", "tool": "fio", "status": "error",
           "error": "ingest stopped while streaming this file: the next ingest reads it again"}
    _transaction(con, Batch(rows=[(source_id, row)]))  # the file's old rows go
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
                        ncols = ncols or fio.log_columns(text)
                        table = conformed(fio.FioLogSample, fio.log_table(text, ncols, lines + 1), source_id)
                        lines += data.count(b"\n")
                        _in_transaction(con, lambda: store.insert_rows(con, fio.FioLogSample, table))
                if not lines:
                    raise ParseError("no whole fio log line", 1)
            except ParseError as e:
                while piece := f.read(STREAM_PIECE_BYTES):  # its hash: unchanged, it is not parsed again
                    digest.update(piece)
                    size += len(piece)
                row.update(sha256=digest.hexdigest(), bytes=size, error=e.reason, error_line=e.line)
                _in_transaction(con, lambda: store.finish_source(con, source_id, row, drop=fio.FioLogSample))
                return row
            after = os.fstat(f.fileno())
    except OSError as e:  # vanished or unreadable since the scan
        row.update(error=f"cannot be read: {e.strerror or e}")
        _in_transaction(con, lambda: store.finish_source(con, source_id, row, drop=fio.FioLogSample))
        return row
    row.update(sha256=digest.hexdigest(), bytes=size, status="ok", error=None)
    if rest.rstrip(b"\0"):  # a NUL tail is a crash's padding; anything else is a line cut short
        row.update(error=f"{TRUNCATED}line {lines + 1} ends without a newline, so it was cut short; the lines "
                         "before it were loaded", error_line=lines + 1)
    if stat_signature(before) == stat_signature(after) and size == before.st_size:
        row["stat"] = trusted_stat(before, read_ns)
        if row["stat"] is None:
            row["racy_stat"] = stat_signature(before)
    _in_transaction(con, lambda: store.finish_source(con, source_id, row))
    return row


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


class _Workers:
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


def _chunks(todo: list[tuple[str, int]], sizes: dict[str, int]) -> list[list[tuple[int, str]]]:
    """(source_id, path) items in chunks of about CHUNK_BYTES or CHUNK_FILES: a worker's unit of work."""
    chunks, chunk, size = [], [], 0
    for path, source_id in todo:
        chunk.append((source_id, path))
        size += sizes[path]
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            chunks.append(chunk)
            chunk, size = [], 0
    return chunks + [chunk] if chunk else chunks


class OtherDataError(Exception):
    """A pruned ingest into a store that holds other data: it would drop that data's records (another book's)."""

    def __init__(self, db_path: Path, held: list[str]):
        super().__init__(f"{db_path} holds the book of other data ({', '.join(held)}): not replaced "
                         "(--replace replaces it; --db names another database)")


def ingest(paths: list[Path], db_path: Path, progress: bool = True, prune: bool = False,
           replace: bool = False) -> Counter:
    """Parse new and changed files under `paths` into the store. With `prune`, files the store holds that
    are no longer under `paths` are marked gone and their records removed: the store then shows exactly
    what the folders hold (the book's builds), while plain ingests add to it. A pruned store remembers its
    paths: pruning it to other paths raises OtherDataError unless `replace`."""
    files, refused, failed = find_files(paths)
    counts = Counter(seen=len(files) + len(refused) + len(failed), failed=len(failed))
    for path, reason in failed.items():
        print(f"error: {store.printable_path(path)}: {reason}")
    workers = _Workers()
    if not Path(db_path).exists() and len(files) >= PARALLEL_FROM:  # a new database: every file is parsed
        workers.start(fork=True)
    try:
        con = store.open_write(db_path)
    except BaseException:
        workers.close()
        raise
    try:
        held = store.get_state(con, store.DATA_PATHS_STATE)
        wanted = json.dumps(sorted(str(Path(p).resolve()) for p in paths))
        if prune and held is not None and held != wanted and not replace:
            raise OtherDataError(Path(db_path), json.loads(held))
        if prune and held != wanted:  # before any write: a crash leaves a store the next ingest of these paths completes
            store.set_state(con, store.DATA_PATHS_STATE, wanted)
        known = store.known_sources(con)
        next_id = store.next_source_id(con)
        # Records are what the parsers made of a file: new parsers re-parse every file, changed or not.
        parsers = parsers_digest()
        same_parsers = store.get_state(con, "parsers_digest") == parsers
        todo: list[tuple[str, int]] = []  # (path, source_id) of new and changed files
        stats = store.file_stats(con) if same_parsers else {}
        refresh = []  # (source_id, stat) of files whose stat changed but bytes did not (touched, copied back)
        racy: list[tuple[int, str, tuple, str]] = []  # (source_id, path, stat, sha256) read within their window
        for path, st in files.items():
            prior = known.get(path)
            if prior and prior[2] != "gone" and same_parsers and (
                    stats.get(prior[0]) == stat_signature(st) or _same_bytes(path, st, prior, refresh, racy)):
                counts["unchanged"] += 1
                counts["failed before"] += prior[2] == "error"
            elif prior:
                counts["changed"] += 1
                todo.append((path, prior[0]))
            else:
                counts["new"] += 1
                todo.append((path, next_id))
                next_id += 1
        if refresh:
            _in_transaction(con, lambda: store.set_file_stats(con, refresh))
        entries = []  # recorded, never read; written only when new or for a new reason
        for path, row in [*((p, refused_row(p, r)) for p, r in refused.items()),
                          *((p, failed_entry_row(p, r)) for p, r in failed.items())]:
            prior = known.get(path)
            counts["skipped"] += row["status"] == "skipped"
            if prior and prior[2:] == (row["status"], row["error"]):
                continue
            entries.append((prior[0] if prior else next_id, row))
            next_id += not prior
        if entries:
            _transaction(con, Batch(rows=entries))
        present = files.keys() | refused.keys() | failed.keys()
        unlisted = tuple(folder + os.sep for folder in failed)  # what they hold is unknown, not gone
        gone = [i for p, (i, _, status, _) in known.items()
                if prune and status != "gone" and p not in present and not p.startswith(unlisted)]
        gone += _entries_read_now(known, paths, present, gone)
        counts["gone"] = len(gone)
        if gone:
            _in_transaction(con, lambda: (store.mark_gone(con, gone), store.set_derived_stale(con, True)))
        if todo:
            _parse_and_write(con, workers, _chunks(todo, {path: files[path].st_size for path, _ in todo}), counts,
                             racy, progress)
            workers.close()
            _release_arrow_memory()  # what the batches held, before the derived tables' queries need memory
        if racy:
            _verify_racy(con, racy)
        if store.derived_stale(con):
            _in_transaction(con, lambda: (store.rebuild_derived(con), store.set_derived_stale(con, False)))
        if not same_parsers:
            store.set_state(con, "parsers_digest", parsers)
    finally:
        workers.close()
        con.close()
    return counts


def _parse_and_write(con, workers: _Workers, chunks: list[list[tuple[int, str]]], counts: Counter,
                     racy: list, progress: bool) -> None:
    from tqdm import tqdm  # here, as zstandard: start-up is most of an unchanged re-ingest

    pending = Batch()
    with tqdm(total=sum(map(len, chunks)), desc="ingest", unit="file", disable=not progress) as bar:
        for batch in workers.batches(chunks):
            for source_id, row in batch.rows:
                if row["status"] == "stream":
                    continue  # counted by _write once it is streamed
                counts[{"ok": "parsed", "error": "failed", "skipped": "skipped"}[row["status"]]] += 1
                if row.get("racy_stat"):
                    racy.append((source_id, row["path"], row["racy_stat"], row["sha256"]))
                counts["truncated"] += _truncated(row)
                if row["status"] == "error":
                    tqdm.write(f"error: {store.printable_path(row['path'])}:{row.get('error_line') or ''}: "
                               f"{row['error']}")
            pending.extend(batch)
            bar.update(len(batch.rows))
            if pending.nbytes >= BATCH_BYTES:
                counts.update(_write(con, pending))
                pending = Batch()
                _release_arrow_memory()
    counts.update(_write(con, pending))


def _release_arrow_memory() -> None:
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def reference_tables() -> tuple[Path, ...]:
    """The reference tables ingest derives from (IO500 runs' attribution with its families' table, the setup
    record's curated releases, the published row of its client links, the rates of named networks, the IO500 site's
    record of its lists): what the
    database holds depends on them."""
    from .families import FILESYSTEMS_CSV
    from .io500_runs import ARCHIVE_RUNS_CSV
    from .networks import NETWORK_RATES_CSV
    from .setups import CLIENT_LINKS_CSV, RELEASES_CSV, SITE_LISTS_CSV

    return FILESYSTEMS_CSV, ARCHIVE_RUNS_CSV, RELEASES_CSV, CLIENT_LINKS_CSV, NETWORK_RATES_CSV, SITE_LISTS_CSV


def published_tables() -> tuple[str, ...]:
    """The published tables (data/published/<name>.csv) ingest derives from: the talk's words the setup record
    reads the client links of IBM's ESS 3500 runs from."""
    from .setups import PUBLISHED_LINKS

    return (PUBLISHED_LINKS,)


def parsers_digest() -> str:
    """What decides the records a file gives: decoding (this module), the parsers, and the code that
    derives and stores them, with the reference and published tables they derive from."""
    from . import published

    layer = Path(__file__).parent
    tables = [*reference_tables(), *map(published.path, published_tables())]
    return files_digest([*layer.parent.joinpath("parsers").glob("*.py"), layer / "io500_runs.py", layer / "setups.py",
                         layer / "networks.py", layer / "families.py", layer / "labels.py", layer / "store.py",
                         Path(__file__)], layer.parent, extra=b"".join(p.read_bytes() for p in tables))


def _file_sha256(path: str) -> str:
    with open(path, "rb") as stream:  # in pieces: a file may be larger than memory should hold
        return hashlib.file_digest(stream, "sha256").hexdigest()


def _same_bytes(path: str, st: os.stat_result, prior: tuple, refresh: list, racy: list) -> bool:
    """Whether the file still holds the bytes hashed for `prior` (its stat differs, or was not recorded);
    if so its stat joins `refresh` (or `racy`, to be verified), so that the next ingest need not read it."""
    try:
        read_ns = time.time_ns()
        same = _file_sha256(path) == prior[1]
    except OSError:
        return False  # parsed again, which records why it cannot be read
    if same and (signature := trusted_stat(st, read_ns)):
        refresh.append((prior[0], signature))
    elif same:
        racy.append((prior[0], path, stat_signature(st), prior[1]))
    return same


def _verify_racy(con, racy: list[tuple[int, str, tuple, str]]) -> None:
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
            if stat_signature(st) == signature and trusted_stat(st, read_ns) and _file_sha256(path) == sha256:
                settled.append((source_id, signature))
        except OSError:
            continue  # gone or unreadable since: its row says what was read
    if settled:
        _in_transaction(con, lambda: store.set_file_stats(con, settled))


def _in_transaction(con, work) -> None:
    con.execute("BEGIN")
    try:
        work()
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _write(con, batch: Batch) -> Counter:
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
            _transaction(con, batch)
    except Exception:
        for source_id, row in batch.rows:
            try:
                _transaction(con, batch.only(source_id))
            except Exception as e:
                row = {**row, "status": "error", "error": f"could not load into DuckDB: {e}"}
                _transaction(con, Batch(rows=[(source_id, row)]))
                tqdm.write(f"error: {store.printable_path(row['path'])}: {row['error']}")
                moved.update(failed=1, parsed=-1)
    for source_id, placeholder in streams:
        row = stream_fio_log(con, source_id, placeholder["path"])
        moved[{"ok": "parsed", "error": "failed"}[row["status"]]] += 1
        moved["truncated"] += _truncated(row)
        if row["status"] == "error":
            tqdm.write(f"error: {store.printable_path(row['path'])}:{row.get('error_line') or ''}: {row['error']}")
        if row.get("racy_stat"):
            _verify_racy(con, [(source_id, row["path"], row["racy_stat"], row["sha256"])])
    return moved


def _transaction(con, batch: Batch) -> None:
    def write():
        store.replace_sources(con, batch)
        store.set_derived_stale(con, True)

    _in_transaction(con, write)
