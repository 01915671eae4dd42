"""File-system family of an IO500 run, from data/reference/filesystems.csv.

The CSV maps each file-system name (the <file system> folder of
<institution>/<system>/<file system>/<year>/submission-<id>) to a family with the evidence for it; names are
matched exactly, since the archive spells one system many ways. A few names (`scratch`, `work`, ...) are used
by systems of different families: rows that also name an institution, a system and a year override the
name-only row for those runs. The qualifiers nest (a year only with a system, a system only with an
institution), so the matching row with the most qualifiers is the one answer.
"""
import csv
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pandas as pd

FILESYSTEMS_CSV = Path(__file__).resolve().parents[1] / "data" / "reference" / "filesystems.csv"
QUALIFIERS = ("institution", "system", "year")  # empty in a row = any


@cache
def _rows_by_name() -> dict[str, list[dict[str, str]]]:
    rows: dict[str, list[dict[str, str]]] = {}
    with FILESYSTEMS_CSV.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rows.setdefault(row["filesystem"], []).append(row)
    return rows


def lookup(filesystem: str, institution: str | None = None, system: str | None = None,
           year: int | str | None = None) -> dict[str, str]:
    """The CSV row that decides this run's family; KeyError if the name is not in the CSV."""
    rows = _rows_by_name().get(filesystem)
    if rows is None:
        raise KeyError(f"file system {filesystem!r} is not in {FILESYSTEMS_CSV.name}")
    run = {"institution": institution, "system": system, "year": None if year is None else str(year)}
    matching = [r for r in rows if all(r[q] in ("", run[q]) for q in QUALIFIERS)]
    return max(matching, key=lambda r: sum(bool(r[q]) for q in QUALIFIERS))


def family(filesystem: str, institution: str | None = None, system: str | None = None,
           year: int | str | None = None) -> str:
    """The family ("Lustre", "DAOS", ..., "mixed" or "unknown"); KeyError if the name is not in the CSV.

    "mixed" is the answer for a name shared by several families when no row names this run's system."""
    return lookup(filesystem, institution, system, year)["family"]


def uncovered(names: Iterable[str]) -> list[str]:
    """The names (sorted, once each) that the CSV does not map yet."""
    return sorted(set(names) - _rows_by_name().keys())


def resolve(runs: pd.DataFrame) -> pd.DataFrame:
    """`runs` (columns run_id, filesystem, institution, system, year) with each run's family and the reason.

    Runs without a file-system name (files outside the archive layout) or with a name the CSV lacks are
    "unknown", never guessed; the reason says which."""
    def one(run) -> tuple[str, str]:
        if pd.isna(run.filesystem):
            return "unknown", "no file-system name: files outside the <institution>/<system>/<file system> layout"
        if run.filesystem not in _rows_by_name():
            return "unknown", f"name not in data/reference/{FILESYSTEMS_CSV.name}"
        row = lookup(run.filesystem, run.institution, run.system, None if pd.isna(run.year) else int(run.year))
        return row["family"], row["reason"]

    decided = [one(run) for run in runs.itertuples(index=False)]
    return runs.assign(family=[f for f, _ in decided], family_reason=[r for _, r in decided])


# One colour per family in every chart of the book (Tableau 10, as Vega's default scheme): a family keeps its
# colour whichever families a chart shows. Families not listed here share OTHER_COLOUR.
COLOURS = {"Lustre": "#4c78a8", "Storage Scale/GPFS": "#54a24b", "DAOS": "#e45756", "WekaFS": "#f58518",
           "BeeGFS": "#b279a2", "IME": "#72b7b2", "GekkoFS": "#eeca3b", "CephFS": "#9d755d", "VAST": "#ff9da6"}
OTHER_COLOUR = "#bab0ac"


def colours(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """(domain, range) for a chart's colour scale over these families, in the order given:
    `alt.Scale(domain=domain, range=range_)`."""
    domain = list(dict.fromkeys(names))
    return domain, [COLOURS.get(name, OTHER_COLOUR) for name in domain]
