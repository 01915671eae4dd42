"""SQL kept in files: a package's `queries/<name>.sql`, read as it stands and run with its values bound (?).

Every module reads its SQL here: the studies' queries, the commands', the book's, and the store's own (its schema,
its bookkeeping and the derived tables ingest builds: queries/store/, which the schema's and the parsers' digests
cover, as they covered that SQL in the store's modules). Here at the foot of the database layer, so that the derived
tables' modules, which the store runs, read theirs without importing the store.
"""
from __future__ import annotations

from importlib import resources


def query(package: str, name: str) -> str:
    """The SQL of the query `name` (`queries/<name>.sql` beside `package`'s modules; `name` may name a folder in
    it, as "store/known_sources"): queries are files a reader runs as they stand, parameters bound (?)."""
    return (resources.files(package) / "queries" / f"{name}.sql").read_text(encoding="utf-8")
