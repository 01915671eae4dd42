"""Parsed files as the store takes them: each file's `sources` row, and one Arrow table per record class
holding every file's records with their source_id.

Workers build batches (ingest's processes, Dask tasks) and the writer inserts them whole: a batch crosses
between processes as a few Arrow tables, where the files' record objects cost seconds to pickle, and the
writer does no conversion of its own. This module imports no DuckDB, which a worker need not load.
"""
from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


def _base_type(annotation) -> type:
    """int | None -> int; the record classes use only int, float, str, bool and their optionals."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        (base,) = [a for a in typing.get_args(annotation) if a is not type(None)]
        return base
    return annotation


def record_columns(cls: type) -> list[tuple[str, type]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, _base_type(hints[f.name])) for f in dataclasses.fields(cls)]


@functools.cache
def arrow_schema(cls: type) -> pa.Schema:
    """The Arrow form of a record class's table: source_id, then its fields."""
    import pyarrow as pa

    types_ = {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}
    return pa.schema([("source_id", pa.int64()), *((name, types_[t]) for name, t in record_columns(cls))])


@dataclass(kw_only=True)
class Batch:
    rows: list[tuple[int, dict]] = field(default_factory=list)  # (source_id, sources row) of each file
    tables: dict[type, pa.Table] = field(default_factory=dict)  # record class -> rows of every file
    nbytes: int = 0  # of the tables' buffers, kept as batches are added: Table.nbytes over 100 chunks cost seconds

    @classmethod
    def of(cls, parsed: list[tuple[int, dict, list, dict]]) -> Batch:
        """The batch of parsed files (source_id, sources row, records, parsers' Arrow tables). Raises when a
        record does not fit its column (an error in a parser)."""
        import pyarrow as pa

        records: dict[type, tuple[list, list]] = {}
        parts: dict[type, list] = {}
        for source_id, _, file_records, tables in parsed:
            for rec in file_records:
                ids, rows = records.setdefault(type(rec), ([], []))
                ids.append(source_id)
                rows.append(rec)
            for record_cls, table in tables.items():
                parts.setdefault(record_cls, []).append(conformed(record_cls, table, source_id))
        for record_cls, (ids, rows) in records.items():
            schema = arrow_schema(record_cls)
            columns = zip(*map(operator.attrgetter(*schema.names[1:]), rows))  # every record class has 2+ fields
            parts.setdefault(record_cls, []).append(pa.Table.from_arrays(
                [pa.array(ids, pa.int64()), *(pa.array(c, t) for c, t in zip(columns, schema.types[1:]))],
                schema=schema))
        # One chunk a column: a table of many chunks pickles chunk by chunk, at ~0.5 ms each.
        tables = {record_cls: pa.concat_tables(t).combine_chunks() for record_cls, t in parts.items()}
        return cls(rows=[(source_id, row) for source_id, row, _, _ in parsed], tables=tables,
                   nbytes=sum(t.get_total_buffer_size() for t in tables.values()))

    def extend(self, other: Batch) -> None:
        import pyarrow as pa

        self.rows += other.rows
        self.nbytes += other.nbytes
        for record_cls, table in other.tables.items():
            mine = self.tables.get(record_cls)
            self.tables[record_cls] = table if mine is None else pa.concat_tables([mine, table])

    def only(self, source_id: int) -> Batch:
        """The part of this batch that is one file's."""
        import pyarrow.compute as pc

        return Batch(rows=[r for r in self.rows if r[0] == source_id],
                     tables={c: t.filter(pc.equal(t.column("source_id"), source_id)) for c, t in self.tables.items()})


def conformed(cls: type, table: pa.Table, source_id: int) -> pa.Table:
    """A parser's table of `cls` rows with its source_id, every column of the class (null where it has none)
    and the class's types; a column of another type is an error in the parser."""
    import pyarrow as pa

    schema = arrow_schema(cls)
    columns = [table.column(f.name) if f.name in table.column_names else pa.nulls(len(table), f.type)
               for f in schema][1:]
    return pa.Table.from_arrays([pa.repeat(pa.scalar(source_id, pa.int64()), len(table)), *columns], schema=schema)
