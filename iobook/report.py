"""What a study's `report(con, **params)` returns: everything its chapter shows, built once in Python, so
that a reader in JupyterLab (`r.tables["tab-..."].frame`), a test and the notebook's glue see the same
objects. The notebook only glues it (nb.glue_report)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd


@dataclass(frozen=True, kw_only=True)
class Table:
    """A table as the chapter shows it: its data, and the format spec of columns that need one (',.1f')."""
    frame: pd.DataFrame
    formats: dict[str, str] = field(default_factory=dict)
    searchable: bool = False


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One sentence of the chapter's findings (Markdown), the figure or table (`fig-`/`tab-` name) that shows
    it, and the evidence records its numbers come from."""
    text: str
    target: str | None = None
    evidence: tuple = ()


@dataclass(kw_only=True)
class Report:
    """values: glue key -> text, number, bool (a bool drives the `only-if:<key>` cells) or Markdown;
    tables and figures: glue key (`tab-...`, `fig-...`) -> Table or Altair chart; findings: the chapter's
    opening list, the first its main result; evidence: every record the findings rest on."""
    values: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    evidence: list = field(default_factory=list)

    def keys(self) -> set[str]:
        """Every glue key the chapter's markdown can paste."""
        return {*self.values, *self.tables, *self.figures, "findings"}
