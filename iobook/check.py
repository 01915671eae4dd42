"""`iobook check`: a regression gate for CI. The logs are ingested (as `iobook book` would, into the same database),
every history the History chapter searches is searched, and the gate fails when the newest runs of any history show
a decided change in the direction named (slower by default: less bandwidth or rate, a longer clat p99, a fio run's
slowest process further behind its median one). The verdict is the book's (evidence.decide over each measure's
family); the report says which history, at which run, by how much, with its interval and the runs either side, in
Markdown and JSON."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from . import build, evidence, store
from .ingest import ingest
from .studies.history import analysis

DIRECTIONS = ("slower", "faster", "either")
EXIT_REGRESSION = 1


@dataclass(frozen=True, kw_only=True)
class Change:
    history: str
    label: str
    measure: str
    run: int
    started: str
    ratio: float
    low: float
    high: float
    runs_before: int
    runs_after: int
    verdict: str
    slower: bool
    what_else_changed: str


def newest_changes(runs: pd.DataFrame, since: pd.Timestamp | None = None, last: int | None = None) -> list[Change]:
    """Per history and measure, the change points from its last decided one on (all of them when none is decided):
    the newest runs are after those. Only those that start within the window: at or after `since`, or among the
    `last` runs of their history."""
    changes, decided = analysis.history_changes(runs)
    sizes = runs.groupby(["label", "workload"]).size()
    out = []
    for (label, workload, _), group in changes.assign(record=decided).groupby(["label", "workload", "measure"], sort=False):
        group = group.sort_values("run")
        decided_at = [i for i, c in enumerate(group.record) if c.decided]
        for _, row in group.iloc[decided_at[-1] if decided_at else 0:].iterrows():
            c = row.record
            if (since is not None and row.started < since) or (last is not None and row.run <= sizes[(label, workload)] - last):
                continue
            out.append(Change(history=row.history, label=label, measure=row.measure, run=int(row.run),
                              started=f"{row.started:%Y-%m-%d %H:%M:%S}", ratio=c.ratio, low=c.low, high=c.high,
                              runs_before=c.n_baseline, runs_after=c.n, verdict=str(c.verdict),
                              slower=analysis.slower(row.measure, c.ratio), what_else_changed=row["what else changed"]))
    return out


def failing(changes: list[Change], direction: str) -> list[Change]:
    """The decided changes in `direction` (DIRECTIONS): what fails the gate."""
    return [c for c in changes if c.verdict == str(evidence.Verdict.DECIDED)
            and (direction == "either" or c.slower == (direction == "slower"))]


def markdown(changes: list[Change], failed: list[Change], histories: int, direction: str) -> str:
    lines = [f"# iobook check: {'FAILED' if failed else 'passed'}", "",
             f"{histories:,} histories searched; {len(changes):,} change points in their newest runs, "
             f"{len(failed):,} decided and {direction}.", ""]
    if changes:
        lines += ["| history | measure | from run | started | after / before (95 % interval) | runs | verdict | else changed |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += [f"| {c.history.replace('|', '&#124;')} | {c.measure} | {c.run} | {c.started} | {c.ratio:.3g} ({c.low:.3g}–{c.high:.3g}) | "
                  f"{c.runs_after} vs {c.runs_before} | {c.verdict}{' (fails the gate)' if c in failed else ''} | "
                  f"{c.what_else_changed} |" for c in changes]
    return "\n".join(lines) + "\n"


def check(data: list[Path], db: Path | None = None, *, since: str | None = None, last: int | None = None,
          direction: str = "slower", report_md: Path | None = None, report_json: Path | None = None,
          progress: bool = False) -> int:
    """Ingest `data`, search its histories, print the Markdown report (and write it and the JSON where asked):
    EXIT_REGRESSION when a history's newest runs show a decided change in `direction`, else 0."""
    db = db or build.default_db(data)
    db.parent.mkdir(parents=True, exist_ok=True)
    ingest(data, db, progress=progress)
    with store.open_read(db) as con:
        runs = analysis.get_runs(con)
    histories = len(analysis.histories_of(runs)) if len(runs) else 0
    changes = newest_changes(runs, pd.Timestamp(since) if since else None, last) if histories else []
    failed = failing(changes, direction)
    text = markdown(changes, failed, histories, direction)
    print(text, end="")
    if report_md:
        report_md.write_text(text, encoding="utf-8")
    if report_json:
        report_json.write_text(json.dumps({"passed": not failed, "histories": histories, "direction": direction,
                                           "changes": [asdict(c) | {"fails": c in failed} for c in changes]},
                                          indent=1) + "\n", encoding="utf-8")
    return EXIT_REGRESSION if failed else 0
