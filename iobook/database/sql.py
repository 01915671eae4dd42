"""SQL kept in files: a package's `queries/<name>.sql`, read as it stands and run with its values bound (?).

Every module reads its SQL here: the studies' queries, the commands', the book's, and the store's own (its schema,
its bookkeeping and the derived tables ingest builds: queries/store/, which the schema's and the parsers' digests
cover, as they covered that SQL in the store's modules). Here at the foot of the database layer, so that the derived
tables' modules, which the store runs, read theirs without importing the store. A statement over a table named at
run time (one per record class) keeps that name as a placeholder its caller fills with a quoted identifier
(statement), the one thing a database binds no parameter for.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources


def query(package: str, name: str) -> str:
    """The SQL of the query `name` (`queries/<name>.sql` beside `package`'s modules; `name` may name a folder in
    it, as "store/known_sources"): queries are files a reader runs as they stand, parameters bound (?)."""
    return (resources.files(package) / "queries" / f"{name}.sql").read_text(encoding="utf-8")


def identifier(name: str) -> str:
    """`name` quoted as a SQL identifier ("a""b"), whatever it holds."""
    return '"' + name.replace('"', '""') + '"'


def statement(package: str, name: str, **names: str | Sequence[str] | Mapping[str, str]) -> str:
    """The SQL of `name` (query) with its named placeholders ({table}) filled by identifiers, each quoted
    (identifier): a table or column name, which no database binds as a parameter (values are bound, ?). A
    sequence fills its placeholder with its names quoted and comma-separated, a mapping with "name" TYPE pairs (a
    table's column definitions; the types are the caller's own words, never data)."""
    def filled(value) -> str:
        if isinstance(value, str):
            return identifier(value)
        if isinstance(value, Mapping):
            return ", ".join(f"{identifier(column)} {sql_type}" for column, sql_type in value.items())
        return ", ".join(identifier(v) for v in value)
    return query(package, name).format_map({key: filled(value) for key, value in names.items()})
