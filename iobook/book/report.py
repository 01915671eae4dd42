"""What a study's `report(con, **params)` returns: everything its chapter shows, built once in Python, so
that a reader in JupyterLab (`r.tables["tab-..."].frame`), a test and the notebook's glue see the same
objects. The notebook only glues it (nb.glue_report)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

FIRST_FINDING_WORDS = 30  # the chapter's main result, as the landing page and the page check read it
# Any finding: one claim a reader takes in while skimming (its number, interval, verdict, units and pointer); the
# setup, caveats and sources belong to the section it points to (issue 50)
MAX_FINDING_WORDS = 60
MAX_ROWS_SEARCHABLE = 8000  # a searchable table carries its rows as JSON (nb.front_coded) up to this many


class Prose(str):
    """Markdown a chapter pastes ({glue:md}): a computed sentence whose names from the data are escaped
    (present.md_escape). Only the notebook layer turns it into what Jupyter shows (nb.shown)."""


class Html(str):
    """An HTML fragment a chapter pastes as it is (a list of links); every name in it escaped."""


@dataclass(frozen=True, kw_only=True)
class Table:
    """A table as the chapter shows it: its data, and the format spec of columns that need one (',.1f')."""
    frame: pd.DataFrame
    formats: dict[str, object] = field(default_factory=dict)  # a format spec, or a function (present.significant)
    searchable: bool = False
    # columns with one value in every row, said once above the table instead (comparison.table): column -> value
    shared: dict[str, object] = field(default_factory=dict)
    # said once under the table (the legend of its verdicts): what every row would otherwise repeat
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One sentence of the chapter's findings (Markdown), the figure or table (`fig-`/`tab-` name) that shows
    it, and the evidence records its numbers come from."""
    text: str
    target: str | None = None
    evidence: tuple = ()


@dataclass(kw_only=True)
class Report:
    """values: glue key -> text, number, bool (a bool drives the `only-if:<key>` cells), Prose or Html;
    tables and figures: glue key (`tab-...`, `fig-...`) -> Table or Altair chart; findings: the chapter's
    opening list, the first its main result; evidence: every record the findings rest on; note: what the
    chapter shows in place of its analysis (present.no_data when the database holds none of its data); abstract:
    what the landing page leads with for this chapter (the first finding when empty)."""
    values: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    evidence: list = field(default_factory=list)
    note: Any = None
    abstract: list[Finding] = field(default_factory=list)

    def keys(self) -> set[str]:
        """Every glue key the chapter's markdown can paste."""
        return {*self.values, *self.tables, *self.figures, "findings"}
