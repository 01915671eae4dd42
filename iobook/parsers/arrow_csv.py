"""Per-rank and time-series CSVs split, checked and converted by Arrow: no Python loop over their rows."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"  # decimal ASCII, finite: no inf, nan, hex or blanks
COUNT = r"[0-9]{1,18}"  # fits a BIGINT
NULL_STRING = pa.scalar(None, pa.string())
_UNQUOTED = pcsv.ParseOptions(quote_char=False)  # IOR and mdtest quote nothing: a quote is a field's character


@dataclass(frozen=True, kw_only=True)
class CsvRows:
    """The rows of a CSV after its header, split at commas by Arrow: ``fields`` holds ``width`` strings a row
    (row-major; null where a row has fewer fields), ``counts`` the fields each row really has, ``lines`` each
    row's 1-based line. Blank lines are no rows (as csv.reader skips them)."""

    header: str
    fields: pa.Array
    counts: np.ndarray
    lines: np.ndarray
    width: int

    def __len__(self) -> int:
        return len(self.lines)

    def column(self, j: int) -> pa.Array:
        return self.fields.take(pa.array(np.arange(j, len(self) * self.width, self.width)))

    def columns_from(self, j: int) -> pa.Array:
        """The fields of columns j to the last, row-major (``width - j`` a row)."""
        return self.fields.take(pa.array((np.arange(len(self))[:, None] * self.width + np.arange(j, self.width)).ravel()))

    def row(self, i: int) -> list[str]:
        """Row i as csv.reader gives it (for error messages: its fields beyond ``width`` are not kept)."""
        return [f for f in self.fields[i * self.width:(i + 1) * self.width].to_pylist() if f is not None]


def csv_rows(text: str, width: int) -> CsvRows:
    """Split a CSV of unquoted fields (what IOR and mdtest write) without a Python loop over its rows."""
    head, _, body = text.partition("\n")
    lines = pc.split_pattern(pa.array([body], pa.string()), "\n").values
    filled = pc.greater(pc.binary_length(lines), 0)
    numbers = np.flatnonzero(filled.to_numpy(zero_copy_only=False)) + 2
    split = pc.split_pattern(lines.filter(filled), ",")
    padded = pc.list_slice(split, 0, width, return_fixed_size_list=True)
    return CsvRows(header=head, fields=padded.values, counts=pc.list_value_length(split).to_numpy(), lines=numbers,
                   width=width)


def read_typed(body: str, types: dict[str, pa.DataType]) -> pa.Table | None:
    """The rows of a CSV after its header, typed by Arrow's CSV reader in one pass (several times faster than
    csv_rows and casts), empty fields null; None where the reader might read them otherwise than csv_rows and a
    cast, or cannot read them: then the caller takes that slower way, which says what is wrong and where. The
    reader trims spaces and tabs around a number and ends lines at \\r too, so text holding them gets None."""
    if not body.isascii() or " " in body or "\t" in body or "\r" in body:
        return None
    data = body.encode("ascii")
    # One block and no threads: a per-rank CSV is ~80 KB, too small for the reader's threads to pay off.
    options = pcsv.ReadOptions(column_names=list(types), use_threads=False, block_size=len(data) + 1)
    convert = pcsv.ConvertOptions(column_types=types, null_values=[""], strings_can_be_null=False)
    try:
        return pcsv.read_csv(pa.py_buffer(data), read_options=options, parse_options=_UNQUOTED,
                             convert_options=convert)
    except pa.ArrowInvalid:
        return None


def finite_columns(table: pa.Table, start: int, nulls: bool) -> np.ndarray | None:
    """Columns `start` to the last of a read_typed table as floats, row-major, NaN where null; None when
    one is not finite (the reader, like a cast, reads 'inf', 'nan' and '1e500') or is null unless `nulls`."""
    columns = table.columns[start:]
    out = np.full((len(table), len(columns)), np.nan)
    for j, column in enumerate(columns):
        if column.null_count < len(column):  # most columns of an mdtest per-rank CSV are empty
            out[:, j] = column.to_numpy()
    null = sum(c.null_count for c in columns)
    return out if np.count_nonzero(np.isfinite(out)) + null == out.size and (nulls or not null) else None


def is_count(values: pa.Array) -> np.ndarray:
    """all_match(values, COUNT) for strings without nulls, several times faster than the regex."""
    digits = pc.ascii_is_decimal(values)  # false for ""
    return pc.and_(digits, pc.less_equal(pc.binary_length(values), 18)).to_numpy(zero_copy_only=False)


def all_match(values: pa.Array, regex: str) -> np.ndarray:
    """Whether each string matches `regex` as a whole (nulls match), vectorized by Arrow's RE2."""
    return pc.fill_null(pc.match_substring_regex(values, f"^(?:{regex})$"), True).to_numpy(zero_copy_only=False)


def floats(values: pa.Array) -> np.ndarray | None:
    """Fields as floats, NaN where empty or null; None when one is not a finite number. Arrow's cast reads
    every field NUMBER matches (and a few more ways of writing a number): the caller finds the bad field
    with NUMBER only when this says there is one."""
    try:
        out = pc.cast(pc.if_else(pc.equal(values, ""), NULL_STRING, values), pa.float64())
    except pa.ArrowInvalid:
        return None
    if pc.all(pc.is_finite(out)).as_py() is False:
        return None
    return out.to_numpy(zero_copy_only=False)


def float_array(values: np.ndarray) -> pa.Array:
    """Floats with NaN (an empty field, see floats) as null."""
    return pa.array(values, pa.float64(), mask=np.isnan(values))
