"""Per-rank and time-series CSVs split, checked and converted by Arrow: no Python loop over their rows."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"  # decimal ASCII, finite: no inf, nan, hex or blanks
COUNT = r"[0-9]{1,18}"  # fits a BIGINT
NULL_STRING = pa.scalar(None, pa.string())


@dataclass(frozen=True)
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
    return CsvRows(head, padded.values, pc.list_value_length(split).to_numpy(), numbers, width)


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
