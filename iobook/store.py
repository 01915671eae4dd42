"""The DuckDB store: schema from the parsers' record classes, public views from iobook/views/*.sql.

Only `iobook ingest` opens the database for writing (`open_write`); chapters and tests use
`open_read`, which is read-only, and bind every value as a SQL parameter.
"""
from __future__ import annotations

import dataclasses
import os
import tempfile
import types
import typing
from importlib import resources
from pathlib import Path, PurePosixPath

import duckdb
import pyarrow as pa

from .parsers import CsvLoad, all_records

DEFAULT_DB = Path("data/iobook.duckdb")
WRITE_MEMORY_LIMIT = "256MB"

SOURCES_DDL = """
CREATE TABLE IF NOT EXISTS sources (
    source_id   BIGINT PRIMARY KEY,
    path        VARCHAR NOT NULL UNIQUE,  -- absolute, as resolved at ingest
    sha256      VARCHAR NOT NULL,
    bytes       BIGINT NOT NULL,
    format      VARCHAR,                  -- detected from content; null when skipped
    tool        VARCHAR,
    tool_version VARCHAR,
    status      VARCHAR NOT NULL CHECK (status IN ('ok', 'error', 'skipped', 'gone')),  -- gone: no longer
                                          -- in the folders ingested; its records are removed
    error       VARCHAR,                  -- why it failed or was skipped
    error_line  INTEGER                   -- 1-based line of the failure, when known
);
-- Set in the transaction that writes a batch of files, cleared in the one that rebuilds the derived
-- tables: a run killed in between leaves it set, and the next ingest rebuilds them.
CREATE TABLE IF NOT EXISTS ingest_state (key VARCHAR PRIMARY KEY, value VARCHAR);
"""

_SQL_TYPES = {int: "BIGINT", float: "DOUBLE", str: "VARCHAR", bool: "BOOLEAN"}
_ARROW_TYPES = {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}


def _base_type(annotation) -> type:
    """int | None -> int; the record classes use only int, float, str, bool and their optionals."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        (base,) = [a for a in typing.get_args(annotation) if a is not type(None)]
        return base
    return annotation


def record_columns(cls: type) -> list[tuple[str, type]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, _base_type(hints[f.name])) for f in dataclasses.fields(cls)]


def raw_tables() -> list[str]:
    """The tables ingest writes file by file (sources, then one per record class); the rest is derived."""
    return ["sources"] + [cls.TABLE for cls in all_records()]


def create_raw_tables(con: duckdb.DuckDBPyConnection) -> None:
    """sources, ingest_state and the record tables: all that replace_sources writes to (a Dask worker's
    in-memory database has just these)."""
    con.execute(SOURCES_DDL)
    for cls in all_records():
        columns = record_columns(cls)
        existing = [name for (name,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
            [cls.TABLE]).fetchall()]
        if existing and existing != ["source_id", *(name for name, _ in columns)]:
            # a record class changed (a database of an older iobook): its rows are made again by re-parsing
            # every file, which forgetting the parsers' digest asks of the next ingest, this one included
            con.execute(f"DROP TABLE {cls.TABLE}")
            con.execute("DELETE FROM ingest_state WHERE key = 'parsers_digest'")
        cols = ", ".join(f'"{name}" {_SQL_TYPES[t]}' for name, t in columns)
        con.execute(f"CREATE TABLE IF NOT EXISTS {cls.TABLE} (source_id BIGINT NOT NULL, {cols})")


def _create_schema(con: duckdb.DuckDBPyConnection) -> None:
    create_raw_tables(con)
    for derived in _derived_steps():
        derived.create(con)
    create_views(con)


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """Run every views/*.sql file. A file whose views use another file's views is retried once those
    exist, so cross-format views (e.g. IO500 phases against their IOR logs) need no naming scheme."""
    folder = resources.files("iobook") / "views"
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
    from . import io500_runs

    return (io500_runs,)


def open_write(db_path: Path | str = DEFAULT_DB) -> duckdb.DuckDBPyConnection:
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    # DuckDB's buffer pool defaults to 80 % of RAM and kept the whole growing database in memory (750 MiB
    # at 20,000 files); ingest writes it out and reads back little.
    con = duckdb.connect(str(db_path), config={"memory_limit": WRITE_MEMORY_LIMIT})
    _create_schema(con)
    return con


def open_read(db_path: Path | str = DEFAULT_DB) -> duckdb.DuckDBPyConnection:
    if not Path(db_path).exists():
        raise FileNotFoundError(f"{db_path}: no database; run `python -m iobook ingest` first")
    return duckdb.connect(str(db_path), read_only=True)


def known_sources(con) -> dict[str, tuple[int, str, str, str | None]]:
    """path -> (source_id, sha256, status, error) of every file already in the store."""
    return {p: (i, h, st, e) for i, p, h, st, e in
            con.execute("SELECT source_id, path, sha256, status, error FROM sources").fetchall()}


def mark_gone(con, source_ids: list[int]) -> None:
    """Files no longer in the folders ingested: their records go, their sources rows stay as 'gone'."""
    for cls in all_records():
        con.execute(f"DELETE FROM {cls.TABLE} WHERE list_contains(?, source_id)", [source_ids])
    con.execute("UPDATE sources SET status = 'gone', error = NULL, error_line = NULL "
                "WHERE list_contains(?, source_id)", [source_ids])


def get_state(con, key: str) -> str | None:
    row = con.execute("SELECT value FROM ingest_state WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def set_state(con, key: str, value: str) -> None:
    con.execute("INSERT OR REPLACE INTO ingest_state VALUES (?, ?)", [key, value])


def set_derived_stale(con, stale: bool) -> None:
    set_state(con, "derived_stale", str(stale).lower())


def derived_stale(con) -> bool:
    return get_state(con, "derived_stale") == "true"


def outside_base(con, repo_root: Path) -> PurePosixPath | None:
    """The folder above the deepest one holding every source outside `repo_root`: the part of their paths
    that depends on the machine (None when every source is inside it)."""
    root = repo_root.resolve().as_posix()
    folders = [str(PurePosixPath(p).parent) for (p,) in con.execute("SELECT path FROM sources").fetchall()
               if not PurePosixPath(p).is_relative_to(root)]
    return PurePosixPath(os.path.commonpath(folders)).parent if folders else None


def next_source_id(con) -> int:
    return con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchone()[0]


def _arrow_tables(items: list[tuple[int, list]]) -> dict[type, pa.Table]:
    """Records of many files, one Arrow table per record class, each row prefixed with its source_id."""
    by_class: dict[type, tuple[list, list]] = {}
    for source_id, records in items:
        for rec in records:
            ids, rows = by_class.setdefault(type(rec), ([], []))
            ids.append(source_id)
            rows.append(rec)
    tables = {}
    for cls, (ids, rows) in by_class.items():
        arrays = {"source_id": pa.array(ids, pa.int64())}
        for name, t in record_columns(cls):
            arrays[name] = pa.array([getattr(r, name) for r in rows], _ARROW_TYPES[t])
        tables[cls] = pa.table(arrays)
    return tables


SOURCE_COLUMNS = ("source_id", "path", "sha256", "bytes", "format", "tool", "tool_version", "status", "error",
                  "error_line")


def replace_sources(con, files: list[tuple[int, dict, list, list[CsvLoad]]]) -> None:
    """Write files' rows and records (source_id, sources row, records, csv loads), replacing whatever the
    store held for them. One statement per table for the whole batch: per-file statements dominated ingest.

    The caller wraps calls in a transaction, so a file's old records never outlive its new ones.
    """
    ids = [source_id for source_id, *_ in files]
    for table in raw_tables():
        con.execute(f"DELETE FROM {table} WHERE list_contains(?, source_id)", [ids])
    rows = [{**row, "source_id": source_id} for source_id, row, _, _ in files]
    incoming = pa.table({c: [r.get(c) for r in rows] for c in SOURCE_COLUMNS})
    con.register("_incoming", incoming)
    con.execute("INSERT INTO sources BY NAME SELECT * FROM _incoming")
    for cls, table in _arrow_tables([(source_id, records) for source_id, _, records, _ in files]).items():
        con.register("_incoming", table)
        con.execute(f"INSERT INTO {cls.TABLE} BY NAME SELECT * FROM _incoming")
    con.unregister("_incoming")
    # One read_csv over all of a batch's files that share a load's table, columns and options (one call
    # per file cost ~9 ms each), read from the text that was parsed, written under names of our own (a
    # log's own name may hold glob characters, and the file may have changed since it was hashed).
    by_load: dict[tuple, list[tuple[int, str]]] = {}
    for source_id, _row, _, csv_loads in files:
        for load in csv_loads:
            key = (load.table, load.select, _csv_options(load.options))
            by_load.setdefault(key, []).append((source_id, load.text))
    with tempfile.TemporaryDirectory(prefix="iobook-csv-") as tmp:
        for n, ((table, select, options), members) in enumerate(by_load.items()):
            names = []
            for source_id, text in members:
                names.append(str(Path(tmp, f"{n}-{source_id}.csv")))
                Path(names[-1]).write_text(text, encoding="utf-8")
            con.register("_csv_sources", pa.table({"_path": names, "_source_id": [i for i, _ in members]}))
            con.execute(
                f"INSERT INTO {table} BY NAME SELECT s._source_id AS source_id, {select} "
                f"FROM read_csv(?, filename = true, {options}) JOIN _csv_sources s ON filename = s._path",
                [names],
            )
            con.unregister("_csv_sources")


def _csv_options(options: dict) -> str:
    """read_csv keyword options as SQL literals; the values come from parser code, never from files."""
    def literal(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, dict):
            return "{" + ", ".join(f"'{k}': {literal(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(literal(x) for x in v) + "]"
        return "'" + str(v).replace("'", "''") + "'"

    return ", ".join(f"{k} = {literal(v)}" for k, v in options.items()) or "auto_detect = true"


def rebuild_derived(con) -> None:
    for derived in _derived_steps():
        derived.rebuild(con)
