"""File-system family of an IO500 run, from data/reference/filesystems.csv.

The CSV maps each file-system name (the <file system> folder of
<institution>/<system>/<file system>/<year>/submission-<id>) to a family with the evidence for it; names are
matched exactly, since the archive spells one system many ways. A few names (`scratch`, `work`, ...) are used
by systems of different families: rows that also name an institution, a system and a year override the
name-only row for those runs. The qualifiers nest (a year only with a system, a system only with an
institution), so the matching row with the most qualifiers is the one answer.
"""
import csv
import re
from collections.abc import Iterable
from functools import cache

import pandas as pd

from . import reference

FILESYSTEMS_CSV = reference.path("filesystems.csv")
UNSTATED = ("unknown", "mixed")  # the families no evidence decides: no name, or a name several families share
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


# What a run's own files say of its file system, read by iobook.database.io500_runs.attribute: the words of a declared
# file-system name (io500_info_filesystem), and the marks in its IOR/mdtest command lines and file names. The
# first pattern that matches names the family; an API or a tool is stronger than a path, so they come first.
DECLARED_WORDS = (
    (r"\bdaos\b", "DAOS"), (r"lustre", "Lustre"), (r"gpfs|spectrum ?scale|storage ?scale", "Storage Scale/GPFS"),
    (r"\bime\b", "IME"), (r"beegfs|beeond", "BeeGFS"), (r"datawarp", "DataWarp"), (r"weka", "WekaFS"),
    (r"ceph", "CephFS"), (r"\bvast\b", "VAST"), (r"gekko", "GekkoFS"))
COMMAND_MARKS = (
    (r"(?:^|\s|')-a'?\s+'?DFS\b|--dfs\.pool|(?im:^\s*api\s*=\s*DFS\b)", "DAOS", "DFS API (-a DFS, --dfs.pool, API = DFS)"),
    (r"(?:^|\s|')-a'?\s+'?IME\b|\bime://", "IME", "IME API"),
    (r"(?:^|\s|')-a'?\s+'?(?:GPFS|GPFSHINTS)\b|\bmmfind\b", "Storage Scale/GPFS", "GPFS API or mmfind"),
    (r"\blfs\s+set(?:dir)?stripe\b", "Lustre", "lfs setstripe"),
    (r"/gpfs/", "Storage Scale/GPFS", "a path under /gpfs/"),
    (r"/(?:mnt/)?lustre", "Lustre", "a path under /lustre or /mnt/lustre"),
    (r"/cray/dws/", "DataWarp", "a Cray DataWarp mount (/cray/dws/)"),
    (r"/beegfs|/mnt/beeond", "BeeGFS", "a path under /beegfs or /mnt/beeond"))
FILE_MARKS = (("mmfind.sh", "Storage Scale/GPFS", "mmfind.sh (GPFS's find) among its files"),
              ("startup-ime.sh", "IME", "startup-ime.sh among its files"))


def from_declared(name: str | None) -> str | None:
    """The family a declared file-system name states ('Lustre', 'GPFS 5.1', 'DataWarp'), else None."""
    if not name:
        return None
    if name in _rows_by_name() and lookup(name)["family"] not in UNSTATED:
        return lookup(name)["family"]
    return next((fam for pattern, fam in DECLARED_WORDS if re.search(pattern, name, re.IGNORECASE)), None)


def from_marks(commands: Iterable[str], file_names: Iterable[str]) -> tuple[str | None, str]:
    """(family, evidence) that a run's command lines and file names state, when they state one family only;
    (None, what they say) when they state none or disagree."""
    found: dict[str, list[str]] = {}
    for text in commands:
        for pattern, fam, what in COMMAND_MARKS:
            if re.search(pattern, text or ""):
                found.setdefault(fam, []).append(what)
                break
    names = set(file_names)
    for name, fam, what in FILE_MARKS:
        if name in names:
            found.setdefault(fam, []).append(what)
    if len(found) == 1:
        fam, whats = next(iter(found.items()))
        return fam, ", ".join(dict.fromkeys(whats))
    return None, ("its files disagree: " + "; ".join(f"{f} ({', '.join(dict.fromkeys(w))})" for f, w in found.items())
                  if found else "its files state no file system")
