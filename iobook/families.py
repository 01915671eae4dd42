"""File-system family of an IO500 archive file-system name, from data/reference/filesystems.csv.

The CSV maps each name (the <file system> folder of <institution>/<system>/<file system>/<year>/submission-<id>)
to a family with the evidence for it; names are matched exactly, since the archive spells one system many ways.
"""
import csv
from collections.abc import Iterable
from functools import cache
from pathlib import Path

FILESYSTEMS_CSV = Path(__file__).resolve().parents[1] / "data" / "reference" / "filesystems.csv"


@cache
def _family_by_name() -> dict[str, str]:
    with FILESYSTEMS_CSV.open(newline="", encoding="utf-8") as f:
        return {row["filesystem"]: row["family"] for row in csv.DictReader(f)}


def family(filesystem_name: str) -> str:
    """The family ("Lustre", "DAOS", ..., "mixed" or "unknown"); KeyError if the name is not in the CSV."""
    families = _family_by_name()
    if filesystem_name not in families:
        raise KeyError(f"file system {filesystem_name!r} is not in {FILESYSTEMS_CSV.name}")
    return families[filesystem_name]


def uncovered(names: Iterable[str]) -> list[str]:
    """The names (sorted, once each) that the CSV does not map yet."""
    return sorted(set(names) - _family_by_name().keys())
