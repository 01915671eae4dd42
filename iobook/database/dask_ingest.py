"""Scale-out ingest on Dask: the same parsing as `iobook ingest`, as Dask tasks, into Parquet.

    python -m iobook ingest --engine dask [--scheduler ADDRESS] [--workers N] --parquet DIR PATH...
    python -m iobook ingest --from-parquet DIR --db FILE

The client lists the files (discovery.find_files) and numbers them exactly as a local ingest numbers them on a
fresh database: the sorted files get source ids 1..n, the entries it refuses (FIFOs, symlinks out of the
tree, ...) the ids after them. Each task takes a batch of files, parses them with parsing.parse_batch (what the
local ingest's workers run), and writes them with writing.write (the local ingest's writer) into an
in-memory DuckDB holding the raw tables, whose rows it then writes as DIR/<table>/part-<batch>.parquet. So a file's rows, its failure and the reason for it are the ones a local
ingest stores; loading the parts into a fresh database and rebuilding the derived tables gives the database
a local ingest gives.

Workers read the files by the paths the client found and write DIR: both must be on a file system every
worker sees under the same names. Its SQL: queries/dask_ingest/ (a raw table's name filled in by sql.statement).
"""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import duckdb
from tqdm import tqdm

from . import discovery, parsing, store, writing
from .batch import Batch
from .ingest import parsers_digest
from .sql import query, statement

FILES_PER_TASK = 200  # ~0.5-1 s of parsing per task: scheduler overhead (~1 ms a task) stays negligible


def plan(paths: list[Path]) -> tuple[list[tuple[int, str]], Batch]:
    """(source_id, path) of every file to parse, and the batch of every refused entry, with the ids a local
    ingest into a fresh database assigns."""
    files, refused, failed = discovery.find_files(paths)
    todo = [(i, str(f)) for i, f in enumerate(files, 1)]
    entries = [discovery.refused_row(f, reason) for f, reason in refused.items()]
    entries += [discovery.failed_entry_row(f, reason) for f, reason in failed.items()]
    return todo, Batch(rows=[(len(files) + n, row) for n, row in enumerate(entries, 1)])


def part_name(batch: int) -> str:
    return f"part-{batch:07d}.parquet"


def write_batch(number: int, batch: Batch, out_dir: str) -> dict:
    """Write parsed files as Parquet parts, through the local ingest's own write path (writing.write:
    one transaction, and file by file with the refused one recorded as failed if DuckDB refuses the batch).
    Rewriting a batch replaces its parts, so a task Dask runs again leaves no stale rows."""
    con = duckdb.connect(":memory:")
    try:
        store.create_raw_tables(con)
        writing.write(con, batch)
        for table in store.raw_tables():
            target = Path(out_dir, table, part_name(number))
            if not con.execute(statement(__package__, "dask_ingest/count_rows", table=table)).fetchone()[0]:
                target.unlink(missing_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            con.execute(statement(__package__, "dask_ingest/write_part", table=table), [str(tmp)])
            os.replace(tmp, target)
        return _summary(con)
    finally:
        con.close()


def ingest_batch(batch: int, items: list[tuple[int, str]], out_dir: str) -> dict:
    """The Dask task: parse files (source_id, path) and write their parts. parse_bytes never raises; should
    anything else fail (the Parquet write, ...), the batch's files are recorded as failed with the reason."""
    try:
        return write_batch(batch, parsing.parse_batch(items), out_dir)
    except Exception as e:
        reason = f"batch failed on its Dask worker: {type(e).__name__}: {e}"[:500]
        return write_batch(batch, _failed(items, reason), out_dir)


def _failed(items: list[tuple[int, str]], reason: str) -> Batch:
    return Batch(rows=[(i, parsing.failed_outcome(p, reason).row) for i, p in items])


def _summary(con) -> dict:
    counts = Counter()
    for status, truncated, n in con.execute(query(__package__, "dask_ingest/status_counts")).fetchall():
        counts[{"ok": "parsed", "error": "failed", "skipped": "skipped"}[status]] += n
        counts["truncated"] += n if truncated else 0
    errors = con.execute(query(__package__, "dask_ingest/errors")).fetchall()
    return {"counts": dict(counts), "errors": errors}


def dask_ingest(paths: list[Path], out_dir: Path, client=None, scheduler: str | None = None, workers: int = 2,
                files_per_task: int = FILES_PER_TASK, progress: bool = True) -> Counter:
    """Parse `paths` on Dask into Parquet parts under `out_dir` (which must be new or empty). On `client`,
    else on the scheduler at `scheduler`, else on a LocalCluster of `workers` single-threaded processes."""
    out_dir = Path(out_dir).resolve()
    if out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir}: not empty; Parquet parts go to a new or empty folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    todo, skipped = plan(paths)
    counts = Counter(seen=len(todo) + len(skipped.rows), new=len(todo))
    batches = [todo[i: i + files_per_task] for i in range(0, len(todo), files_per_task)]
    if client is not None:
        _run(client, batches, out_dir, counts, progress)
    else:
        from distributed import Client, LocalCluster

        if scheduler:
            with Client(scheduler) as own:
                _run(own, batches, out_dir, counts, progress)
        else:
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as own:
                _run(own, batches, out_dir, counts, progress)
    if skipped.rows:  # after every file, as a local ingest numbers them
        counts.update(write_batch(len(batches) + 1, skipped, str(out_dir))["counts"])
    return counts


def _run(client, batches: list[list[tuple[int, str]]], out_dir: Path, counts: Counter, progress: bool) -> None:
    from distributed import as_completed

    futures = client.map(ingest_batch, range(1, len(batches) + 1), batches, out_dir=str(out_dir), pure=False)
    batch_of = {f.key: (n, items) for f, n, items in zip(futures, range(1, len(batches) + 1), batches)}
    with tqdm(total=sum(map(len, batches)), desc="ingest (dask)", unit="file", disable=not progress) as bar:
        for future in as_completed(futures):
            n, items = batch_of[future.key]
            try:
                result = future.result()
            except Exception as e:  # the task's worker died (KilledWorker after retries), ...: recorded here
                reason = f"Dask task lost: {type(e).__name__}: {e}"[:500]
                result = write_batch(n, _failed(items, reason), str(out_dir))
            counts.update(result["counts"])
            for path, line, error in result["errors"]:
                tqdm.write(f"error: {path}:{line or ''}: {error}")
            bar.update(len(items))
            future.release()


def load_parquet(folder: Path, db_path: Path) -> Counter:
    """Load the parts under `folder` into a fresh database and rebuild the derived tables, in one transaction."""
    folder = Path(folder)
    if not (folder / "sources").is_dir():
        raise FileNotFoundError(f"{folder}: no sources/ parts; write them with `ingest --engine dask --parquet`")
    con = store.open_write(db_path)
    try:
        if _files(con):
            raise FileExistsError(f"{db_path}: already holds files; --from-parquet loads into a new database")

        def work():
            for table in store.raw_tables():
                parts = sorted(str(p) for p in (folder / table).glob("part-*.parquet"))
                if parts:
                    con.execute(statement(__package__, "dask_ingest/insert_parts", table=table), [parts])
            if _files(con):  # as ingest: rebuilt once files were written
                store.rebuild_derived(con)
                store.set_derived_stale(con, False)
                store.set_state(con, "parsers_digest", parsers_digest())  # the workers run this package

        writing.in_transaction(con, work)
        counts = Counter(_summary(con)["counts"])
        counts["seen"], counts["new"] = con.execute(query(__package__, "dask_ingest/seen_and_read")).fetchone()
    finally:
        con.close()
    return counts


def _files(con) -> int:
    """How many entries the sources table holds."""
    return con.execute(statement(__package__, "dask_ingest/count_rows", table="sources")).fetchone()[0]
