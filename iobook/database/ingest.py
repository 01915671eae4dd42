"""Ingest: find files, detect their format from content, parse, and write them to the store.

Re-ingesting a tree changes nothing; a file whose bytes changed has its records replaced in one
transaction; a file that fails is recorded with its error and line while the rest still land. The stages are
modules of their own: discovery (which files, and which of them changed), parsing (the worker processes that
parse them) and writing (the one writer); `ingest` runs them.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from . import discovery, parsing, store, writing
from .batch import Batch
from .digest import files_digest

# Records written in one transaction, in Arrow bytes. A commit costs ~80 ms (DuckDB checkpoints its
# row groups): 11 commits of 500 files took 1.7 s of the archive's writes, 2 commits 0.6 s.
BATCH_BYTES = 32 << 20

INGEST_COUNTS = ("seen", "new", "changed", "unchanged", "gone", "parsed", "truncated", "skipped", "failed",
                 "failed before")


def format_ingest(counts) -> str:
    return "ingest: " + ", ".join(f"{k} {counts[k]}" for k in INGEST_COUNTS)


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
    files, refused, failed = discovery.find_files(paths)
    counts = Counter(seen=len(files) + len(refused) + len(failed), failed=len(failed))
    for path, reason in failed.items():
        print(f"error: {store.printable_path(path)}: {reason}")
    workers = parsing.Workers()
    if not Path(db_path).exists() and len(files) >= parsing.PARALLEL_FROM:  # a new database: every file is parsed
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
                    stats.get(prior[0]) == discovery.stat_signature(st)
                    or discovery.same_bytes(path, st, prior, refresh, racy)):
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
            writing.in_transaction(con, lambda: store.set_file_stats(con, refresh))
        entries = []  # recorded, never read; written only when new or for a new reason
        for path, row in [*((p, discovery.refused_row(p, r)) for p, r in refused.items()),
                          *((p, discovery.failed_entry_row(p, r)) for p, r in failed.items())]:
            prior = known.get(path)
            counts["skipped"] += row["status"] == "skipped"
            if prior and prior[2:] == (row["status"], row["error"]):
                continue
            entries.append((prior[0] if prior else next_id, row))
            next_id += not prior
        if entries:
            writing.replace_files(con, Batch(rows=entries))
        present = files.keys() | refused.keys() | failed.keys()
        unlisted = tuple(folder + os.sep for folder in failed)  # what they hold is unknown, not gone
        gone = [i for p, (i, _, status, _) in known.items()
                if prune and status != "gone" and p not in present and not p.startswith(unlisted)]
        gone += discovery.entries_read_now(known, paths, present, gone)
        counts["gone"] = len(gone)
        if gone:
            writing.in_transaction(con, lambda: (store.mark_gone(con, gone), store.set_derived_stale(con, True)))
        if todo:
            _parse_and_write(con, workers, parsing.in_chunks(todo, {path: files[path].st_size for path, _ in todo}),
                             counts, racy, progress)
            workers.close()
            _release_arrow_memory()  # what the batches held, before the derived tables' queries need memory
        if racy:
            writing.verify_racy(con, racy)
        if store.derived_stale(con):
            writing.in_transaction(con, lambda: (store.rebuild_derived(con), store.set_derived_stale(con, False)))
        if not same_parsers:
            store.set_state(con, "parsers_digest", parsers)
    finally:
        workers.close()
        con.close()
    return counts


def _parse_and_write(con, workers: parsing.Workers, chunks: list[list[tuple[int, str]]], counts: Counter,
                     racy: list, progress: bool) -> None:
    from tqdm import tqdm  # here, as zstandard: start-up is most of an unchanged re-ingest

    pending = Batch()
    with tqdm(total=sum(map(len, chunks)), desc="ingest", unit="file", disable=not progress) as bar:
        for batch in workers.batches(chunks):
            for source_id, row in batch.rows:
                if row["status"] == "stream":
                    continue  # counted by writing.write once it is streamed
                counts[{"ok": "parsed", "error": "failed", "skipped": "skipped"}[row["status"]]] += 1
                if row.get("racy_stat"):
                    racy.append((source_id, row["path"], row["racy_stat"], row["sha256"]))
                counts["truncated"] += parsing.truncated(row)
                if row["status"] == "error":
                    tqdm.write(f"error: {store.printable_path(row['path'])}:{row.get('error_line') or ''}: "
                               f"{row['error']}")
            pending.extend(batch)
            bar.update(len(batch.rows))
            if pending.nbytes >= BATCH_BYTES:
                counts.update(writing.write(con, pending))
                pending = Batch()
                _release_arrow_memory()
    counts.update(writing.write(con, pending))


def _release_arrow_memory() -> None:
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def reference_tables() -> tuple[Path, ...]:
    """The reference tables ingest derives from (IO500 runs' attribution with its families' table, the setup
    record's curated releases, the published row of its client links, the rates of named networks, the IO500 site's
    record of its lists): what the
    database holds depends on them."""
    from .client_bounds import FASTEST_CLIENT_LINKS_CSV
    from .families import FILESYSTEMS_CSV
    from .io500_lists import SITE_LISTS_CSV
    from .io500_runs import ARCHIVE_RUNS_CSV
    from .networks import NETWORK_RATES_CSV
    from .setups import CLIENT_LINKS_CSV, RELEASES_CSV

    return (FILESYSTEMS_CSV, ARCHIVE_RUNS_CSV, RELEASES_CSV, CLIENT_LINKS_CSV, NETWORK_RATES_CSV, SITE_LISTS_CSV,
            FASTEST_CLIENT_LINKS_CSV)


def published_tables() -> tuple[str, ...]:
    """The published tables (data/published/<name>.csv) ingest derives from: the talk's words the setup record
    reads the client links of IBM's ESS 3500 runs from."""
    from .setups import PUBLISHED_LINKS

    return (PUBLISHED_LINKS,)


def derived_from() -> list[Path]:
    """The code that decides the records a file gives and what ingest derives from them: the parsers and every module
    and SQL file of this layer (its stages, the store, and the derivations split over several modules: io500_runs,
    io500_scores, io500_lists, setups, machines, client_bounds...). The whole layer, not a list of it: a list left out
    the modules split out of setups and io500_runs, and a change of them derived nothing again."""
    layer = Path(__file__).parent
    return sorted([*layer.parent.joinpath("parsers").glob("*.py"), *layer.rglob("*.py"), *layer.rglob("*.sql")])


def parsers_digest() -> str:
    """What decides the records a file gives (derived_from), with the reference and published tables they derive
    from."""
    from . import published

    tables = [*reference_tables(), *map(published.path, published_tables())]
    return files_digest(derived_from(), Path(__file__).parent.parent, extra=b"".join(p.read_bytes() for p in tables))
