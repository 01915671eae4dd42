"""The DuckDB store: schema from the parsers' record classes, public views from iobook/views/*.sql.

Only `iobook ingest` opens the database for writing (`open_write`); chapters and tests use
`open_read`, which is read-only, and bind every value as a SQL parameter.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa

from .parsers import CsvLoad, all_records

DEFAULT_DB = Path("data/iobook.duckdb")

SOURCES_DDL = """
CREATE TABLE IF NOT EXISTS sources (
    source_id   INTEGER PRIMARY KEY,
    path        VARCHAR NOT NULL UNIQUE,  -- absolute, as resolved at ingest
    sha256      VARCHAR NOT NULL,
    bytes       BIGINT NOT NULL,
    format      VARCHAR,                  -- detected from content; null when skipped
    tool        VARCHAR,
    tool_version VARCHAR,
    status      VARCHAR NOT NULL CHECK (status IN ('ok', 'error', 'skipped')),
    error       VARCHAR,                  -- why it failed or was skipped
    error_line  INTEGER                   -- 1-based line of the failure, when known
)
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


def _create_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(SOURCES_DDL)
    for cls in all_records():
        cols = ", ".join(f'"{name}" {_SQL_TYPES[t]}' for name, t in record_columns(cls))
        con.execute(f"CREATE TABLE IF NOT EXISTS {cls.TABLE} (source_id INTEGER NOT NULL, {cols})")
    for derived in _derived_steps():
        derived.create(con)
    create_views(con)


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    views = resources.files("iobook") / "views"
    for sql_file in sorted(views.iterdir(), key=lambda p: p.name):
        if sql_file.name.endswith(".sql"):
            con.execute(sql_file.read_text(encoding="utf-8"))


def _derived_steps():
    """Tables computed from several sources at once (e.g. IO500 runs from their summary files)."""
    from . import io500_runs

    return (io500_runs,)


def open_write(db_path: Path | str = DEFAULT_DB) -> duckdb.DuckDBPyConnection:
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(db_path))
    _create_schema(con)
    return con


def open_read(db_path: Path | str = DEFAULT_DB) -> duckdb.DuckDBPyConnection:
    if not Path(db_path).exists():
        raise FileNotFoundError(f"{db_path}: no database; run `python -m iobook ingest` first")
    return duckdb.connect(str(db_path), read_only=True)


def known_sources(con) -> dict[str, tuple[int, str]]:
    """path -> (source_id, sha256) of every file already in the store."""
    return {p: (i, h) for i, p, h in con.execute("SELECT source_id, path, sha256 FROM sources").fetchall()}


def next_source_id(con) -> int:
    return con.execute("SELECT coalesce(max(source_id), 0) + 1 FROM sources").fetchone()[0]


def _record_table(records: list, source_id: int) -> dict[type, pa.Table]:
    by_class: dict[type, list] = {}
    for rec in records:
        by_class.setdefault(type(rec), []).append(rec)
    tables = {}
    for cls, rows in by_class.items():
        cols = record_columns(cls)
        arrays = {"source_id": pa.array([source_id] * len(rows), pa.int32())}
        for name, t in cols:
            arrays[name] = pa.array([getattr(r, name) for r in rows], _ARROW_TYPES[t])
        tables[cls] = pa.table(arrays)
    return tables


def replace_source(con, source_id: int, row: dict, records: list, csv_loads: list[CsvLoad]) -> None:
    """Write one file's row and records, replacing whatever the store held for it.

    The caller wraps calls in a transaction, so a file's old records never outlive its new ones.
    """
    for cls in all_records():
        con.execute(f"DELETE FROM {cls.TABLE} WHERE source_id = ?", [source_id])
    con.execute("DELETE FROM sources WHERE source_id = ?", [source_id])
    con.execute(
        "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [source_id, row["path"], row["sha256"], row["bytes"], row.get("format"), row.get("tool"),
         row.get("tool_version"), row["status"], row.get("error"), row.get("error_line")],
    )
    for cls, table in _record_table(records, source_id).items():
        con.register("_incoming", table)
        con.execute(f"INSERT INTO {cls.TABLE} BY NAME SELECT * FROM _incoming")
        con.unregister("_incoming")
    for load in csv_loads:
        names = list(load.constants)
        consts = "".join(f", ? AS {n}" for n in names)
        con.execute(
            f"INSERT INTO {load.table} BY NAME SELECT ? AS source_id{consts}, {load.select} "
            f"FROM read_csv(?, {_csv_options(load.options)})",
            [source_id, *load.constants.values(), row["path"]],
        )


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
