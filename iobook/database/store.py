"""The DuckDB store: schema from the parsers' record classes, public views from iobook/database/views/*.sql, its own
SQL (the files' tables, its bookkeeping, the derived tables') in iobook/database/queries/store/. A statement over
each record class's table names it by a placeholder (sql.statement quotes it): a database binds values, never a
table's name, and one template per statement beats one per table.

Only `iobook ingest` opens the database for writing (`open_write`); chapters and tests use
`open_read`, which is read-only, and bind every value as a SQL parameter.
"""
from __future__ import annotations

import os
import tempfile
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import duckdb

from ..parsers import all_records
from .batch import record_columns
from .digest import files_digest
from .root import reader_base
from .sql import query, statement

if TYPE_CHECKING:
    import pandas as pd

    from .batch import Batch

DEFAULT_DB = Path("data/iobook.duckdb")
DATA_PATHS_STATE = "data_paths"  # ingest_state's key of what a pruned store holds: the paths it was pruned to, resolved
# DuckDB's buffer pool defaults to 80 % of RAM and kept the whole growing database in memory (750 MiB at
# 20,000 files); writing needs little of it. The derived tables' queries need more as the tree grows
# (over 96 MB at 82,544 files), and run alone, once the files are written: with 64 MB while writing and
# 128 MB for them, a new database of that tree peaked at 481 MiB RSS. Re-ingesting it into its database (every
# file changed: the derived tables' old rows replaced in the same transaction) ran out of 128 MB and of 256 MB in
# io500_scores.scores_from_logs; with 512 MB it passed, peak 997 MiB RSS (2026-11-27).
WRITE_MEMORY_LIMIT = "64MB"
DERIVED_MEMORY_LIMIT = "512MB"
# A chapter's process holds Python, pandas and Altair (300-700 MiB) beside DuckDB, whose default limit (80 % of
# RAM) let a chapter's queries take ~20 GB at 16 copies of the IO500 archive. Bounded, DuckDB spills joins,
# sorts and aggregates to a temporary folder rather than growing: the process stays under issue 30's 2 GB.
READ_MEMORY_LIMIT = "768MB"
# Each thread builds its own share of a hash table or sort at once: memory grows with threads. Two are this
# machine's cores; chapters' queries gain little from more. IOBOOK_DUCKDB_THREADS sets another count: a page
# must not depend on it (tests/test_reproducible.py executes chapters with one thread).
DUCKDB_THREADS = int(os.environ.get("IOBOOK_DUCKDB_THREADS", 2))

STAT_COLUMNS = ("bytes", "mtime_ns", "ctime_ns", "inode")

_SQL_TYPES = {int: "BIGINT", float: "DOUBLE", str: "VARCHAR", bool: "BOOLEAN"}


def raw_tables() -> list[str]:
    """The tables ingest writes file by file (sources, then one per record class); the rest is derived."""
    return ["sources"] + [cls.TABLE for cls in all_records()]


def create_raw_tables(con: duckdb.DuckDBPyConnection) -> None:
    """sources, ingest_state, file_stats and the record tables: all that replace_sources writes to (a Dask
    worker's in-memory database has just these)."""
    _add_path_bytes(con)
    con.execute(query(__package__, "store/sources_schema"))
    for cls in all_records():
        columns = record_columns(cls)
        existing = [name for (name,) in con.execute(query(__package__, "store/table_columns"), [cls.TABLE]).fetchall()]
        if existing and existing != ["source_id", *(name for name, _ in columns)]:
            # a record class changed (a database of an older iobook): its rows are made again by re-parsing
            # every file, which forgetting the parsers' digest asks of the next ingest, this one included
            con.execute(statement(__package__, "store/drop_table", table=cls.TABLE))
            con.execute(query(__package__, "store/forget_parsers_digest"))
        con.execute(statement(__package__, "store/create_record_table", table=cls.TABLE,
                              columns={name: _SQL_TYPES[t] for name, t in columns}))


def _add_path_bytes(con) -> None:
    """A database of an older iobook: its sources table made again with path_bytes, and without the UNIQUE
    on path that a printable path cannot keep (DuckDB drops no constraint in place)."""
    columns = [c for (c,) in con.execute(query(__package__, "store/table_columns"), ["sources"]).fetchall()]
    if not columns or "path_bytes" in columns:
        return
    # one migration, kept whole here: its copy names the old table's columns as the catalogue lists them
    con.begin()
    con.execute(query(__package__, "store/set_aside_sources"))
    con.execute(query(__package__, "store/sources_schema"))
    con.execute(statement(__package__, "store/copy_set_aside_sources", columns=columns))
    con.execute(query(__package__, "store/drop_set_aside_sources"))
    con.commit()


def _create_schema(con: duckdb.DuckDBPyConnection) -> None:
    create_raw_tables(con)
    for derived in _derived_steps():
        if derived.create(con):
            set_derived_stale(con, True)
    create_views(con)


def frame(con: duckdb.DuckDBPyConnection, package: str, name: str, params: list | None = None) -> pd.DataFrame:
    """The rows of a study's query `name` (sql.query) with `params` bound, as a DataFrame."""
    return con.execute(query(package, name), params or []).df()


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """Every views/*.sql file run, and no other view left. A file whose views use another file's views is
    retried once those exist, so cross-format views (e.g. IO500 phases against their IOR logs) need no naming scheme."""
    # a view an older iobook made that these files no longer do (renamed, removed) would stay, listed as data
    for (view,) in con.execute(query(__package__, "store/view_names")).fetchall():
        con.execute(statement(__package__, "store/drop_view", view=view))
    folder = resources.files(__package__) / "views"
    pending = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    while pending:
        failed = []
        for sql_file in pending:
            try:
                con.execute(sql_file.read_text(encoding="utf-8"))
            except duckdb.CatalogException:
                failed.append(sql_file)
        if len(failed) == len(pending):
            con.execute(failed[0].read_text(encoding="utf-8"))  # raises the real error
        pending = failed


def _derived_steps():
    """Tables computed from several sources at once (e.g. IO500 runs from their summary files)."""
    from . import io500_runs, setups

    return (io500_runs, setups)  # in this order: a run's setup reads its attribution


def open_write(db_path: Path | str = DEFAULT_DB) -> duckdb.DuckDBPyConnection:
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(db_path), config={"memory_limit": WRITE_MEMORY_LIMIT})
    bound(con, WRITE_MEMORY_LIMIT)
    schema = schema_digest()
    if _recorded_schema(con) != schema:  # (re)creating it costs imports and DDL an unchanged re-ingest need not pay
        _create_schema(con)
        set_state(con, "schema_digest", schema)
    return con


def schema_digest() -> str:
    """What decides the schema: this module and its SQL, the parsers' record classes, the derived tables, the views."""
    layer = Path(__file__).parent
    return files_digest([*layer.parent.joinpath("parsers").glob("*.py"), *layer.joinpath("views").glob("*.sql"),
                         *layer.joinpath("queries", "store").glob("*.sql"), layer / "io500_runs.py",
                         layer / "setups.py", Path(__file__)], layer.parent)


def _recorded_schema(con) -> str | None:
    try:
        return get_state(con, "schema_digest")
    except duckdb.CatalogException:  # a new database: no ingest_state yet
        return None


def open_read(db_path: Path | str = DEFAULT_DB) -> duckdb.DuckDBPyConnection:
    if not Path(db_path).exists():
        raise FileNotFoundError(f"{db_path}: no database; run `python -m iobook ingest` first")
    return bound(duckdb.connect(str(db_path), read_only=True), READ_MEMORY_LIMIT)


def bound(con: duckdb.DuckDBPyConnection, memory_limit: str) -> duckdb.DuckDBPyConnection:
    """DuckDB's memory and threads bounded, spilling to one folder per process under the system's temporary folder
    (a read-only database's default, `<db>.tmp` beside it, may not be writable; DuckDB removes the folder it made
    when the database closes). Set, not passed to connect: a second connection to the same file with another
    config is refused, and the settings hold for every connection to it."""
    spill = Path(tempfile.gettempdir()) / f"iobook-duckdb-{os.getpid()}"
    con.execute(query(__package__, "store/set_memory_limit"), [memory_limit])
    con.execute(query(__package__, "store/set_threads"), [DUCKDB_THREADS])
    con.execute(query(__package__, "store/set_temp_directory"), [str(spill)])
    return con


def stored_path(path: str) -> tuple[str, bytes | None]:
    """A path as the store keeps it: printable, and its bytes when its name is not UTF-8. Python holds such a
    name's bytes as lone surrogates (os.fsdecode), which no UTF-8 column takes; the printable form shows
    each of those bytes as \\xNN."""
    try:
        path.encode("utf-8")
        return path, None
    except UnicodeEncodeError:
        raw = os.fsencode(path)
        return raw.decode("utf-8", "backslashreplace"), raw


def printable_path(path: str) -> str:
    return stored_path(path)[0]


def known_sources(con) -> dict[str, tuple[int, str, str, str | None]]:
    """path (as os.fsdecode gives it: the file system's name) -> (source_id, sha256, status, error) of every
    entry already in the store."""
    return {os.fsdecode(raw) if raw is not None else p: (i, h, st, e) for i, p, raw, h, st, e in
            con.execute(query(__package__, "store/known_sources")).fetchall()}


def file_stats(con) -> dict[int, tuple[int, int, int, int]]:
    """source_id -> (bytes, mtime_ns, ctime_ns, inode) of the files whose stat was recorded."""
    return {i: (size, mtime, ctime, inode) for i, size, mtime, ctime, inode in
            con.execute(query(__package__, "store/file_stats")).fetchall()}


def set_file_stats(con, stats: list[tuple[int, tuple[int, int, int, int]]]) -> None:
    """Record (source_id, (bytes, mtime_ns, ctime_ns, inode)) of files found unchanged by their hash."""
    import pyarrow as pa

    ids = [i for i, _ in stats]
    con.execute(query(__package__, "store/delete_file_stats"), [ids])
    columns = {"source_id": ids} | {c: [st[k] for _, st in stats] for k, c in enumerate(STAT_COLUMNS)}
    con.register("_stats", pa.table(columns))
    con.execute(query(__package__, "store/insert_file_stats"))
    con.unregister("_stats")


def mark_gone(con, source_ids: list[int]) -> None:
    """Files no longer in the folders ingested: their records go, their sources rows stay as 'gone'."""
    con.execute(query(__package__, "store/delete_file_stats"), [source_ids])
    for cls in all_records():
        con.execute(statement(__package__, "store/delete_records", table=cls.TABLE), [source_ids])
    con.execute(query(__package__, "store/mark_gone"), [source_ids])


def get_state(con, key: str) -> str | None:
    row = con.execute(query(__package__, "store/get_state"), [key]).fetchone()
    return row[0] if row else None


def set_state(con, key: str, value: str) -> None:
    con.execute(query(__package__, "store/set_state"), [key, value])


def set_derived_stale(con, stale: bool) -> None:
    set_state(con, "derived_stale", str(stale).lower())


def derived_stale(con) -> bool:
    return get_state(con, "derived_stale") == "true"


def outside_base(con, repo_root: Path, paths: list[str] | None = None) -> PurePosixPath | None:
    """The folder above the deepest one holding every source (or every one of `paths`) outside `repo_root`:
    the part of their paths that depends on the machine (None when every one is inside it)."""
    root = repo_root.resolve().as_posix()
    if paths is None:
        paths = [p for (p,) in con.execute(query(__package__, "store/source_paths")).fetchall()]
    folders = [str(PurePosixPath(p).parent) for p in paths if not PurePosixPath(p).is_relative_to(root)]
    return PurePosixPath(os.path.commonpath(folders)).parent if folders else None


def next_source_id(con) -> int:
    return con.execute(query(__package__, "store/next_source_id")).fetchone()[0]


SOURCE_COLUMNS = ("source_id", "path", "path_bytes", "sha256", "bytes", "format", "tool", "tool_version", "status",
                  "error", "error_line")


def replace_sources(con, batch: Batch) -> None:
    """Write a batch of files (their sources rows and records), replacing whatever the store held for them.
    One statement per table for the whole batch: per-file statements dominated ingest.

    The caller wraps calls in a transaction, so a file's old records never outlive its new ones.
    """
    import pyarrow as pa

    ids = [source_id for source_id, _ in batch.rows]
    # Only files the store already holds have rows to delete: a first ingest's deletes would scan every
    # record table once a batch for nothing.
    held = [i for (i,) in con.execute(query(__package__, "store/held_sources"), [ids]).fetchall()]
    if held:
        for table in [*raw_tables(), "file_stats"]:
            con.execute(statement(__package__, "store/delete_records", table=table), [held])
    stats = [(source_id, row["stat"]) for source_id, row in batch.rows if row.get("stat")]
    if stats:
        set_file_stats(con, stats)
    paths = [stored_path(row["path"]) for _, row in batch.rows]
    incoming = pa.table({"source_id": pa.array(ids, pa.int64()),
                         "path": pa.array([p for p, _ in paths], pa.string()),
                         "path_bytes": pa.array([raw for _, raw in paths], pa.binary())}
                        | {c: [row.get(c) for _, row in batch.rows] for c in SOURCE_COLUMNS[3:]})
    con.register("_incoming", incoming)
    con.execute(query(__package__, "store/insert_sources"))
    for cls, table in batch.tables.items():
        con.register("_incoming", table.combine_chunks())  # DuckDB scans a batch of 100 small chunks 2x slower
        con.execute(statement(__package__, "store/insert_incoming", table=cls.TABLE))
    con.unregister("_incoming")


def insert_rows(con, cls: type, table) -> None:
    """Append an Arrow table of `cls` rows (with their source_id) to its raw table."""
    con.register("_incoming", table)
    con.execute(statement(__package__, "store/insert_incoming", table=cls.TABLE))
    con.unregister("_incoming")


def finish_source(con, source_id: int, row: dict, drop: type | None = None) -> None:
    """Set a streamed file's sources row to what its reading found (and its stat, when trusted); with `drop`,
    remove the rows of that record class it got before reading failed."""
    if drop is not None:
        con.execute(statement(__package__, "store/delete_file_records", table=drop.TABLE), [source_id])
    con.execute(query(__package__, "store/finish_source"),
                [row["sha256"], row["bytes"], row["status"], row.get("error"), row.get("error_line"), source_id])
    if row.get("stat"):
        set_file_stats(con, [(source_id, row["stat"])])


def rebuild_derived(con) -> None:
    con.execute(query(__package__, "store/set_memory_limit"), [DERIVED_MEMORY_LIMIT])
    try:
        for derived in _derived_steps():
            derived.rebuild(con)
    finally:
        con.execute(query(__package__, "store/set_memory_limit"), [WRITE_MEMORY_LIMIT])


def shown_path(path: str) -> str:
    """A path as the reader should see it: relative to the repository (or the folder an installed iobook ran in)
    when inside it."""
    p, base = Path(path), reader_base()
    return str(p.relative_to(base)) if p.is_relative_to(base) else path


def reader_paths(con, paths: pd.Series) -> pd.Series:
    """Source paths as readers see them, never the build machine's: relative to the repository when inside
    it, else relative to the folder above the deepest one holding every file of the database outside it
    (/x/shared/fixtures/built-tools/ior/a.log -> built-tools/ior/a.log)."""
    shown = paths.map(shown_path)
    outside = shown.str.startswith("/")
    if not outside.any():
        return shown
    base = outside_base(con, reader_base())
    return shown.where(~outside, shown[outside].map(lambda p: str(PurePosixPath(p).relative_to(base))))
