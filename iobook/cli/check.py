"""`iobook check`: a regression gate for CI. The logs are ingested (as `iobook book` would, into its database),
every history the History chapter searches is searched, and the gate fails when the newest runs of any history show
a decided change in the direction named (slower by default: less bandwidth or rate, a longer clat p99, a fio run's
slowest process further behind its median one). The verdict is the book's (evidence.decide over each measure's
family); the report says which history, at which run, by how much, with its interval and the runs either side, in
Markdown and JSON.

The gate fails closed, as asv, Conbench and pytest do on a run that measured nothing: it passes only when every
history in the data was searched. A path that does not exist, a file that could not be read, no runs at all or a
history with fewer runs than a search needs make it exit EXIT_UNCHECKED, listed in every output."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from ..book import build, present
from ..database import repeated_runs, store
from ..database.ingest import OtherDataError, ingest
from ..inference import change_points, evidence

DIRECTIONS = ("slower", "faster", "either")
EXIT_PASSED = 0  # every history searched, none changed in the direction named
EXIT_REGRESSION = 1  # a decided change in the direction named
EXIT_UNCHECKED = 2  # not everything could be searched: missing paths, unread files, no runs, too few runs
STATUS = {EXIT_PASSED: "passed", EXIT_REGRESSION: "FAILED", EXIT_UNCHECKED: "NOT CHECKED"}
NOT_READ = "not read"  # unread_files.sql's outcome of a file that could not be read


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


@dataclass(frozen=True, kw_only=True)
class History:
    history: str
    label: str
    runs: int
    newest: str  # when its newest run started
    searched: bool  # among change_points.histories_of: at least MIN_RUNS runs


@dataclass(frozen=True, kw_only=True)
class Unread:
    path: str
    outcome: str  # not read | skipped | read in part (queries/unread_files.sql)
    reason: str
    line: int | None


def window_start(since: str | None) -> int | pd.Timestamp | None:
    """--since's RUN (a run number: digits only) or DATE; ValueError for neither."""
    if since is None:
        return None
    return int(since) if since.isdigit() else pd.Timestamp(since)


def newest_changes(runs: pd.DataFrame, since: int | pd.Timestamp | None = None, last: int | None = None) -> list[Change]:
    """Per history and measure, the change points from its last decided one on (all of them when none is decided):
    the newest runs are after those. Only those that start within the window: at or after `since` (a run number or
    a date), or among the `last` runs of their history."""
    changes, decided = change_points.history_changes(runs)
    sizes = runs.groupby(["label", "workload"]).size()
    out = []
    for (label, workload, _), group in changes.assign(record=decided).groupby(["label", "workload", "measure"], sort=False):
        group = group.sort_values("run")
        decided_at = [i for i, c in enumerate(group.record) if c.decided]
        for _, row in group.iloc[decided_at[-1] if decided_at else 0:].iterrows():
            c = row.record
            if (since is not None and (row.run if isinstance(since, int) else row.started) < since) or (last is not None and row.run <= sizes[(label, workload)] - last):
                continue
            out.append(Change(history=row.history, label=label, measure=row.measure, run=int(row.run),
                              started=f"{row.started:%Y-%m-%d %H:%M:%S}", ratio=c.ratio, low=c.low, high=c.high,
                              runs_before=c.n_baseline, runs_after=c.n, verdict=str(c.verdict),
                              slower=change_points.slower(row.measure, c.ratio), what_else_changed=row["what else changed"]))
    return out


def failing(changes: list[Change], direction: str) -> list[Change]:
    """The decided changes in `direction` (DIRECTIONS): what fails the gate."""
    return [c for c in changes if c.verdict == str(evidence.Verdict.DECIDED)
            and (direction == "either" or c.slower == (direction == "slower"))]


def histories(runs: pd.DataFrame) -> list[History]:
    """Every history of the runs (label and workload), searched or not, in the order of their first run."""
    if runs.empty:
        return []
    searched = set(change_points.histories_of(runs).history)  # the History chapter's rule of which are searched
    grouped = runs.groupby(["label", "workload", "history"], sort=False).agg(runs=("run", "size"), newest=("started", "max"))
    return [History(history=h, label=label, runs=int(g.runs), newest=f"{g.newest:%Y-%m-%d %H:%M:%S}",
                    searched=h in searched) for (label, _, h), g in grouped.iterrows()]


def problems(missing: list[Path], refused: str | None, unread: list[Unread], found: list[History]) -> list[str]:
    """Why the gate cannot pass, whatever the changes: each what it could not search (`refused`: why the database
    named was not read)."""
    out = [f"{p}: no such file or folder" for p in missing] + ([refused] if refused else [])
    not_read = [u for u in unread if u.outcome == NOT_READ]
    if not_read:
        out.append(f"{len(not_read):,} file{'s' * (len(not_read) != 1)} could not be read (listed below): a run "
                   "of a history may be among them")
    out += [f"history {h.history}: {h.runs} run{'s' * (h.runs != 1)}, a search needs {change_points.MIN_RUNS}"
            for h in found if not h.searched]
    if not found and not missing and not refused:
        out.append("no dated fio, IOR, mdtest or DLIO runs in the data: nothing to check")
    return out


def markdown(code: int, reasons: list[str], found: list[History], changes: list[Change], failed: list[Change],
             unread: list[Unread], direction: str) -> str:
    searched = [h for h in found if h.searched]
    lines = [f"# iobook check: {STATUS[code]} (exit {code})", "",
             f"{len(searched):,} of {len(found):,} histories searched ({sum(h.runs for h in searched):,} runs); "
             f"{len(changes):,} change points in their newest runs, {len(failed):,} decided and {direction}; "
             f"{sum(u.outcome == NOT_READ for u in unread):,} files not read.", ""]
    if reasons:
        lines += ["## Not checked", "", *(f"- {present.md_escape(r)}" for r in reasons), ""]
    if changes:
        lines += ["## Change points in the newest runs", "",
                  "| history | measure | from run | started | after / before (95 % interval) | runs | verdict | else changed |",
                  "|---|---|---|---|---|---|---|---|"]
        lines += [f"| {present.md_escape(c.history)} | {c.measure} | {c.run} | {c.started} | {c.ratio:.3g} "
                  f"({c.low:.3g}–{c.high:.3g}) | {c.runs_after} vs {c.runs_before} | {c.verdict}"
                  f"{' (fails the gate)' if c in failed else ''} | {present.md_escape(c.what_else_changed)} |" for c in changes]
        lines.append("")
    if found:
        lines += ["## Histories", "", "| history | runs | newest run | searched |", "|---|---|---|---|"]
        lines += [f"| {present.md_escape(h.history)} | {h.runs} | {h.newest} | {'yes' if h.searched else 'no: too few runs'} |"
                  for h in found]
        lines.append("")
    if unread:
        lines += ["## Files not read whole", "", "| file | outcome | reason | line |", "|---|---|---|---|"]
        lines += [f"| {present.md_escape(u.path)} | {u.outcome} | {present.md_escape(u.reason or '')} | {u.line or ''} |"
                  for u in unread]
        lines.append("")
    return "\n".join(lines)


def check(data: list[Path], db: Path | None = None, *, since: str | None = None, last: int | None = None,
          direction: str = "slower", report_md: Path | None = None, report_json: Path | None = None,
          progress: bool = False, replace: bool = False) -> int:
    """Ingest `data`, search its histories, print the Markdown report (and write it and the JSON where asked):
    EXIT_REGRESSION when a history's newest runs show a decided change in `direction`, else EXIT_UNCHECKED when
    not everything could be searched (problems), else EXIT_PASSED."""
    missing = [Path(p) for p in data if not Path(p).exists()]
    present_paths = [Path(p) for p in data if Path(p).exists()]
    refused, runs, unread = None, pd.DataFrame(), []
    if present_paths:
        db = db or build.default_db(present_paths)
        db.parent.mkdir(parents=True, exist_ok=True)
        try:
            ingest(present_paths, db, progress=progress, prune=True, replace=replace)
        except OtherDataError as e:
            refused = str(e)
        else:
            with store.open_read(db) as con:
                runs = repeated_runs.get_runs(con)
                unread = [Unread(path=r.path, outcome=r.outcome, reason=r.reason,
                                 line=None if pd.isna(r.line) else int(r.line))
                          for r in store.frame(con, __package__, "unread_files").itertuples()]
    found = histories(runs)
    reasons = problems(missing, refused, unread, found)
    changes = newest_changes(runs, window_start(since), last) if any(h.searched for h in found) else []
    failed = failing(changes, direction)
    code = EXIT_REGRESSION if failed else EXIT_UNCHECKED if reasons else EXIT_PASSED
    text = markdown(code, reasons, found, changes, failed, unread, direction)
    print(text, end="")
    if report_md:
        report_md.write_text(text, encoding="utf-8")
    if report_json:
        report = {"exit": code, "passed": code == EXIT_PASSED, "status": STATUS[code], "not_checked": reasons,
                  "direction": direction, "histories": [asdict(h) for h in found],
                  "changes": [asdict(c) | {"fails": c in failed} for c in changes],
                  "unread": [asdict(u) for u in unread]}
        report_json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return code
