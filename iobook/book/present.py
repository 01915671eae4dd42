"""What a study hands its page, with no notebook in it: names from the data escaped for Markdown, numbers
rounded as slides print them, the files behind a figure (their paths as readers see them: store.reader_paths), and the note a chapter shows
when the database holds none of its data. The notebook layer (nb) turns Prose and Html into what Jupyter shows."""
from __future__ import annotations

import html
import math
import posixpath
import re
import urllib.parse
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd

from ..database import store
from .report import Html, Prose, Table


def constant_columns(frame: pd.DataFrame, keep=()) -> tuple[pd.DataFrame, dict]:
    """A table without the columns holding one value in every row (but those in `keep`), and those columns with
    their value, to be said once; a table of one row keeps its columns."""
    if len(frame) < 2:
        return frame, {}
    constant = [c for c in frame.columns if c not in keep and frame[c].astype(str).nunique() == 1]
    return frame.drop(columns=constant), {c: frame[c].iloc[0] for c in constant}


def said_once(frame: pd.DataFrame, formats: dict[str, str] | None = None) -> Table:
    """A table whose columns holding one value in every row are said once above it (constant_columns), the
    formatted ones (`formats`: the measured numbers) kept as columns. (comparison.table calls constant_columns on
    its descriptors alone: a record's own columns, a measure every row shares included, stay in its table.)"""
    shown, shared = constant_columns(frame, keep=list(formats or {}))
    return Table(frame=shown, formats=formats or {}, shared=shared)


def run_status_table(status: pd.DataFrame, experiment: str = "experiment") -> Table:
    """collector_runs.select_current's status as a table a chapter shows: per experiment (`experiment` names the
    column: the snapshot collector's "part") and run (its folder: the host and its start, UTC), design, rounds (the
    highest repetition), the files it measured and those of the baseline measured again at its end, and its status
    with whether this page reads it, in one column (two took the table past the page's column at 1280 px). One
    experiment is said once above the table."""
    frame = pd.DataFrame({
        experiment: status.experiment, "run": status.run_folder,
        "design": np.where(status.stopping_rule, "rounds, stopping rule", "fixed order"),
        "rounds": status.repetitions.astype(object).where(status.repetitions.notna(), "–"),
        "files": status.files, "end baseline": status.end_files,
        "status": status.status + np.where(status.selected, ", read here", ", not read")})
    shown, shared = constant_columns(frame, keep=[c for c in frame if c != experiment])
    return Table(frame=shown, shared=shared)


def span(values, spec: str = "") -> str:
    """The range of values as printed ('110', '305–333', '0.60–0.99'): lowest and highest in `spec`, one number
    when they print alike."""
    values = list(values)
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}–{high}"


def significant(digits: int):
    """A table's format of numbers to `digits` significant digits as ',.{digits}g' prints them (483.5, 6.52), but
    thousands separated and never in exponent notation from 10**digits on (',.4g' printed a metadata rate of 11,336
    as '1.134e+04': 11,340). Not evidence.number, on purpose: that keeps every digit of a whole number (11,336)."""
    def shown(x: float) -> str:
        if x == 0 or not math.isfinite(x) or abs(float(f"{x:.{digits}g}")) < 10**digits:
            return f"{x:,.{digits}g}"
        return f"{round(x, digits - 1 - math.floor(math.log10(abs(x)))):,.0f}"
    return shown


def half_up(x: float, digits: int) -> float:
    """Round as slides and tools print (0.05 -> 0.1), not as Python's round() does (to even)."""
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def md_escape(text) -> str:
    """Text from the data (a folder, a label, a parameter) made literal in Markdown/MyST: every ASCII
    punctuation character backslash-escaped (CommonMark), line breaks as spaces. For computed sentences a
    chapter glues ({glue:md}), so a name like `<b>` or `**x**` shows as typed."""
    return _MD_PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))


def no_data(kind: str, how_to_add: str) -> Prose:
    """The section a chapter renders instead of its analysis when the database holds none of its data."""
    return Prose(f"```{{note}}\nThis database holds no {kind}, so this chapter has nothing to show.\n"
                    f"{how_to_add}\n```")


def sources(con, source_ids) -> pd.DataFrame:
    """The files behind a figure: path, format, tool version and the first 12 hex digits of its sha256."""
    df = store.frame(con, __package__, "sources", [sorted({int(s) for s in source_ids})])
    df["path"] = store.reader_paths(con, df["path"])
    return df


def files_link(paths: pd.Series, label: str) -> Html:
    """A link to the Data chapter's list of files filtered to the folder holding all of `paths` (as readers see
    them, e.g. from `sources`), or to `paths`' one file."""
    folder = posixpath.commonpath(list(paths)) if len(paths) else ""
    href = f"data.html?files={urllib.parse.quote(folder)}#data-sources"
    return Html(f'<p class="iobook-files-link">{html.escape(label)}: <a href="{html.escape(href)}">the files under '
                f'{html.escape(folder)} in the Data chapter</a> ({len(paths):,} read here)</p>')
