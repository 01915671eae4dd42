"""The History study's findings, each one claim: the largest change point (decided ones first), the span of every
change point with how many fall where a new collector run began, the histories with none by label, the runs that form
no history, the unsteady fio runs, and the IO500 systems' largest change with what else changed there."""
from __future__ import annotations

import math

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding
from ...inference import evidence
from ...inference.change_points import MIN_RUNS
from .analysis import IO500_HISTORY

QUIET_NAMED = 6  # labels of the histories without a change point named in the finding; the table lists each


def changed(c: evidence.Comparison) -> str:
    """The verb of a change point's finding: only a decided one is said to have changed."""
    return "changed" if c.decided else "may have changed"


def largest_first(changes: pd.DataFrame, decided: list) -> list[tuple[pd.Series, evidence.Comparison]]:
    """The change points (rows and records), decided ones first, each group by its ratio's distance from 1."""
    return sorted(((row, c) for (_, row), c in zip(changes.iterrows(), decided)),
                  key=lambda rc: (not rc[1].decided, -abs(math.log(rc[1].ratio))))


def largest_finding(changes: pd.DataFrame, decided: list) -> Finding:
    """The chapter's main result: the largest change point, decided ones first, with its run and when it started."""
    row, c = largest_first(changes, decided)[0]
    return Finding(text=f"{present.md_escape(row['history'])}: {row['measure']} {changed(c)} to {evidence.phrase(c)} "
                        f"at run {row['run']}, {row['started']:%Y-%m-%d %H:%M}.",
                   target="tab-history-changes", evidence=(c,))


def changes_finding(changes: pd.DataFrame, decided: list, searched: pd.DataFrame) -> Finding:
    """Every change point as one span (comparison.range_sentence), in how many histories, and how many of them fall
    where a new collector run began (`changes`' new_collector_run): another machine state, not the storage alone."""
    where = evidence.count(int(changes.new_collector_run.sum()), len(changes), of=evidence.Replicate.CENSUS,
                           quantity="change points at the first run of a new collector run")
    histories = changes.groupby(["label", "workload"]).ngroups
    measures = " and ".join(dict.fromkeys(changes.measure))
    text = (f"Change points ({measures}) in {histories:,} of {len(searched):,} histories: "
            f"{comparison.range_sentence(decided, 'change points')}")
    if where.k:
        text += f"; {where.k:,} of the {where.n:,} fall where a new collector run began, another machine state"
    return Finding(text=text + ".", target="tab-history-changes", evidence=(*decided, where))


def quiet_finding(changes: pd.DataFrame, searched: pd.DataFrame) -> Finding | None:
    """The searched histories (change_points.histories_of) without a change point, by label, and how many of them
    are the steps of one collector run (repetitions of one experiment, not a system over time)."""
    with_change = set(zip(changes.label, changes.workload))
    quiet = searched[[key not in with_change for key in zip(searched.label, searched.workload)]]
    if quiet.empty:
        return None
    # by label (a machine, a node, a system): which of them never changed; the figure names every history
    per_label = quiet.groupby("label", sort=False).size()
    names = [f"{present.md_escape(label)} ({n:,})" for label, n in per_label.items()]
    shown = ", ".join(names[:QUIET_NAMED]) + (f" and {len(names) - QUIET_NAMED:,} more" if len(names) > QUIET_NAMED else "")
    without = evidence.count(len(quiet), len(searched), of=evidence.Replicate.CENSUS,
                             quantity="histories without a change point")
    steps = evidence.count(int(searched.one_collector_run.sum()), len(searched), of=evidence.Replicate.CENSUS,
                           quantity="histories that are the steps of one collector run")
    of_steps = (f"; {steps.k:,} of the {steps.n:,} are the steps of one collector run each: repetitions of one "
                "experiment, not a system over time" if steps.k else "")
    return Finding(text=f"No change point in {without.k:,} of {without.n:,} histories, by label: {shown}{of_steps}.",
                   target="tab-history-histories", evidence=(without, steps))


def no_history_finding(alone: evidence.Count) -> Finding | None:
    """The runs whose workload ran fewer than MIN_RUNS times: shown, never searched (issue 46: the page said nothing
    of the 282 page-cache runs none of which formed a history)."""
    if not alone.k:
        return None
    return Finding(text=f"{alone.k:,} of the {alone.n:,} runs ({alone.share:.1%}) form no history: their workload "
                        f"ran fewer than {MIN_RUNS} times, the least a search needs.", target="tab-history-runs",
                   evidence=(alone,))


def run_findings(changes: pd.DataFrame, decided: list, searched: pd.DataFrame, unsteady: evidence.Count,
                 alone: evidence.Count) -> list[Finding]:
    """The histories' findings: the largest change point, every change point's span (where there are several), the
    histories without one, the runs in no history (`alone`) and the unsteady fio runs (`unsteady`)."""
    found = []
    if len(changes):
        found.append(largest_finding(changes, decided))
    if len(changes) > 1:
        found.append(changes_finding(changes, decided, searched))
    if searched.empty:
        none = evidence.count(0, alone.n, of=evidence.Replicate.CENSUS,
                              quantity=f"runs in a workload with {MIN_RUNS} runs or more, the least a search needs")
        found.append(Finding(text=f"No workload here has {MIN_RUNS} runs or more, the least a history is searched on.",
                             target="tab-history-runs", evidence=(none,)))
    found += [f for f in (quiet_finding(changes, searched), no_history_finding(alone) if len(searched) else None)
              if f is not None]
    if unsteady.n:
        found.append(Finding(text=f"{unsteady.k:,} of the {unsteady.n:,} fio runs with a bw log ({unsteady.share:.1%}) "
                                  "are not steady by fio's slope criterion.", target="tab-history-fio",
                             evidence=(unsteady,)))
    return found


def io500_findings(submissions: pd.DataFrame, changes: pd.DataFrame, decided: list) -> list[Finding]:
    """The IO500 histories' finding: the largest change point (decided first), every measure that changed at the same
    submission said in one sentence (evidence.phrases), and which setup fields the submissions compared state
    differently (their values are the table's); without a change point, how many systems were shown and searched."""
    sizes = submissions.groupby(IO500_HISTORY, dropna=False).size()
    searched = evidence.count(int((sizes >= MIN_RUNS).sum()), len(sizes), of=evidence.Replicate.CENSUS,
                              quantity=f"IO500 systems' histories of one benchmark generation with {MIN_RUNS} or more "
                                       "submissions, enough to search")
    if changes.empty:
        return [Finding(text=f"IO500: {searched.k:,} of {searched.n:,} histories of a system's archive submissions "
                             f"of one benchmark generation have the {MIN_RUNS} a search needs (generations are "
                             "never pooled); no change point found.", target="fig-history-io500",
                        evidence=(searched,))]
    row, c = largest_first(changes, decided)[0]
    same = [(r, d) for (_, r), d in zip(changes.iterrows(), decided)
            if (r["system"], r["score rule"], r["submission"]) == (row["system"], row["score rule"], row["submission"])]
    measures = evidence.phrases([(r["measure"].removeprefix("IO500 "), d) for r, d in same])
    fields = row["fields changed"].split(", ") if row["fields changed"] else []
    named = ", ".join(fields[:-1]) + " and " + fields[-1] if len(fields) > 1 else "".join(fields)
    spans = f"; the submissions compared also differ in {present.md_escape(named)}" if fields else ""
    return [Finding(text=f"IO500: {present.md_escape(row['system'])} {changed(c)} at {row['submission']} "
                         f"({row['started']:%Y-%m-%d}): {measures}{spans}.",
                    target="tab-history-io500-changes", evidence=(searched, *(d for _, d in same)))]
