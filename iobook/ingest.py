"""Ingest: find files, detect their format from content, parse, and write them to the store.

Re-ingesting a tree changes nothing; a file whose bytes changed has its records replaced in one
transaction; a file that fails is recorded with its error and line while the rest still land.
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from . import store
from .parsers import DETECT_BYTES, ParseError, detect

BATCH_FILES = 500  # files per write transaction: big enough to amortise commits, small enough to see progress
PARALLEL_FROM = 64  # fewer files than this are parsed in this process


@dataclass
class Outcome:
    row: dict
    records: list
    csv_loads: list


def find_files(paths: list[Path]) -> list[Path]:
    """Every regular file under the given files/folders, absolute, sorted so ids are reproducible."""
    found = set()
    for p in paths:
        p = Path(p).resolve()
        if p.is_dir():
            for dirpath, _dirs, files in os.walk(p):
                found.update(Path(dirpath, f) for f in files)
        elif p.is_file():
            found.add(p)
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    return sorted(f for f in found if f.is_file())


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def parse_bytes(path: str, data: bytes) -> Outcome:
    """Decode, detect and parse one file; never raises for bad content, it records it instead."""
    row = {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    nul = data.find(b"\0", 0, DETECT_BYTES)
    if nul >= 0:
        return Outcome({**row, "status": "skipped", "error": "binary file (NUL byte)",
                        "error_line": _line_of(data, nul)}, [], [])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fmt = detect(data[: e.start].decode("utf-8"))
        return Outcome({**row, "status": "error" if fmt else "skipped",
                        "format": fmt.name if fmt else None, "tool": fmt.tool if fmt else None,
                        "error": f"not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}",
                        "error_line": _line_of(data, e.start)}, [], [])
    fmt = detect(text[:DETECT_BYTES])
    if fmt is None:
        return Outcome({**row, "status": "skipped", "error": "not a log format iobook reads"}, [], [])
    row.update(format=fmt.name, tool=fmt.tool)
    try:
        parsed = fmt.parse(text)
    except ParseError as e:
        return Outcome({**row, "status": "error", "error": e.reason, "error_line": e.line}, [], [])
    row.update(format=parsed.format, tool=parsed.tool, tool_version=parsed.tool_version, status="ok")
    return Outcome(row, parsed.records, parsed.csv_loads)


def _parse_file(path: str) -> Outcome:
    return parse_bytes(path, Path(path).read_bytes())


@contextmanager
def _outcomes(paths: list[str]):
    """Outcomes of parsing `paths`, in order: in worker processes when there are enough files to repay
    starting them (parsing is most of ingest's time). forkserver, because forking a process whose DuckDB
    connection runs threads is unsafe."""
    if len(paths) < PARALLEL_FROM:
        yield map(_parse_file, paths)
        return
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=os.cpu_count(), mp_context=context) as pool:
        yield pool.map(_parse_file, paths, chunksize=8)


def ingest(paths: list[Path], db_path: Path, progress: bool = True, prune: bool = False) -> Counter:
    """Parse new and changed files under `paths` into the store. With `prune`, files the store holds that
    are no longer under `paths` are marked gone and their records removed: the store then shows exactly
    what the folders hold (the book's builds), while plain ingests add to it."""
    files = find_files(paths)
    counts = Counter(seen=len(files))
    con = store.open_write(db_path)
    try:
        known = store.known_sources(con)
        next_id = store.next_source_id(con)
        todo: list[tuple[str, int]] = []  # (path, source_id) of new and changed files
        for f in files:
            path = str(f)
            prior = known.get(path)
            if prior and prior[2] != "gone" and prior[1] == hashlib.sha256(f.read_bytes()).hexdigest():
                counts["unchanged"] += 1
                counts["failed before"] += prior[2] == "error"
            elif prior:
                counts["changed"] += 1
                todo.append((path, prior[0]))
            else:
                counts["new"] += 1
                todo.append((path, next_id))
                next_id += 1
        present = {str(f) for f in files}
        gone = [i for p, (i, _, status) in known.items() if prune and status != "gone" and p not in present]
        counts["gone"] = len(gone)
        if gone:
            _in_transaction(con, lambda: (store.mark_gone(con, gone), store.set_derived_stale(con, True)))
        pending: list[tuple[int, Outcome]] = []
        with _outcomes([path for path, _ in todo]) as outcomes:
            for (path, source_id), outcome in tqdm(zip(todo, outcomes), total=len(todo), desc="ingest",
                                                   unit="file", disable=not progress):
                counts[{"ok": "parsed", "error": "failed", "skipped": "skipped"}[outcome.row["status"]]] += 1
                if outcome.row["status"] == "error":
                    tqdm.write(f"error: {path}:{outcome.row.get('error_line') or ''}: {outcome.row['error']}")
                pending.append((source_id, outcome))
                if len(pending) >= BATCH_FILES:
                    counts.update(_write(con, pending))
                    pending = []
        counts.update(_write(con, pending))
        if store.derived_stale(con):
            _in_transaction(con, lambda: (store.rebuild_derived(con), store.set_derived_stale(con, False)))
    finally:
        con.close()
    return counts


def _in_transaction(con, work) -> None:
    con.execute("BEGIN")
    try:
        work()
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _write(con, pending: list[tuple[int, Outcome]]) -> Counter:
    """Write a batch in one transaction; if the database refuses one file (e.g. a CSV that
    read_csv cannot load), write the batch again file by file and record that one as failed."""
    moved = Counter()
    if not pending:
        return moved
    try:
        _transaction(con, pending)
    except Exception:
        for source_id, o in pending:
            try:
                _transaction(con, [(source_id, o)])
            except Exception as e:
                row = {**o.row, "status": "error", "error": f"could not load into DuckDB: {e}"}
                _transaction(con, [(source_id, Outcome(row, [], []))])
                tqdm.write(f"error: {o.row['path']}: {row['error']}")
                moved.update(failed=1, parsed=-1)
    return moved


def _transaction(con, pending: list[tuple[int, Outcome]]) -> None:
    def write():
        store.replace_sources(con, [(source_id, o.row, o.records, o.csv_loads) for source_id, o in pending])
        store.set_derived_stale(con, True)

    _in_transaction(con, write)
