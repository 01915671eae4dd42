"""The History study's findings: each change point (decided ones and the largest first), naming its history's label;
the histories with none, by name; the unsteady fio runs; the IO500 systems searched."""
from __future__ import annotations

import math

import pandas as pd

from ...book import present
from ...book.report import Finding
from ...inference import evidence
from ...inference.change_points import MIN_RUNS
from .analysis import IO500_MIN_SUBMISSIONS

QUIET_NAMED = 6  # labels of the histories without a change point named in the finding; the figure shows each


def changed(c: evidence.Comparison) -> str:
    """The verb of a change point's finding: only a decided one is said to have changed."""
    return "changed" if c.decided else "may have changed"


def _largest_first(changes: pd.DataFrame, decided: list):
    return sorted(zip(changes.iterrows(), decided), key=lambda rc: (not rc[1].decided, -abs(math.log(rc[1].ratio))))


def run_findings(changes: pd.DataFrame, decided: list, searched: pd.DataFrame, measures: list[str],
                 unsteady: evidence.Count, workloads: int) -> list[Finding]:
    """The histories' findings: decided changes before undecided ones, the largest first, each naming its history
    (label · job); the searched histories (change_points.histories_of) with none, by label; the unsteady fio runs.
    `measures`: the measures the histories were searched on; `workloads`: how many there are (label and workload)."""
    found = []
    for (_, row), c in _largest_first(changes, decided):
        found.append(Finding(text=f"{present.md_escape(row['history'])}: {row['measure']} {changed(c)} to {evidence.phrase(c)} "
                                  f"at run {row['run']}, {row['started']:%Y-%m-%d %H:%M:%S}; else changed: "
                                  f"{row['what else changed']}.", target="tab-history-changes", evidence=(c,)))
    if searched.empty:
        none = evidence.count(0, workloads, of=evidence.Replicate.CENSUS,
                              quantity=f"workloads with {MIN_RUNS} runs or more, the least a history is searched on")
        found.append(Finding(text=f"No workload here has {MIN_RUNS} runs or more, the least a history is searched on.",
                             target="tab-history-runs", evidence=(none,)))
    with_change = set(zip(changes.label, changes.workload))
    quiet = searched[[key not in with_change for key in zip(searched.label, searched.workload)]]
    if len(quiet):
        # by label (a machine, a node, a system): which of them never changed; the figure names every history
        per_label = quiet.groupby("label", sort=False).size()
        names = [f"{present.md_escape(label)} ({n:,})" for label, n in per_label.items()]
        shown = ", ".join(names[:QUIET_NAMED]) + (f" and {len(names) - QUIET_NAMED:,} more" if len(names) > QUIET_NAMED else "")
        without = evidence.count(len(quiet), len(searched), of=evidence.Replicate.CENSUS,
                                 quantity="histories without a change point")
        steps = evidence.count(int(searched.one_collector_run.sum()), len(searched), of=evidence.Replicate.CENSUS,
                               quantity="histories that are the steps of one collector run")
        of_steps = (f"; {steps.k:,} of the {steps.n:,} are the steps of one collector run each, minutes apart in one "
                    "machine state: repetitions of one experiment, not a system over time" if steps.k else "")
        found.append(Finding(text=f"No change point ({' or '.join(measures)}) in {without.k:,} of {without.n:,} "
                                  f"histories, by label: {shown}{of_steps}.", target="fig-history",
                             evidence=(without, steps)))
    if unsteady.n:
        found.append(Finding(text=f"{evidence.phrase(unsteady)} with a bw log are not steady by fio's slope criterion.",
                             target="tab-history-runs", evidence=(unsteady,)))
    return found


def io500_findings(submissions: pd.DataFrame, changes: pd.DataFrame, decided: list) -> list[Finding]:
    """The IO500 histories' findings: how many systems were shown and searched, then each change point, decided ones
    and the largest first."""
    sizes = submissions.groupby(["system", "score_rule"]).size()
    searched = evidence.count(int((sizes >= MIN_RUNS).sum()), len(sizes), of=evidence.Replicate.CENSUS,
                              quantity=f"IO500 systems with {MIN_RUNS} or more submissions, enough to search")
    settled = evidence.count(sum(c.decided for c in decided), len(changes), of=evidence.Replicate.CENSUS,
                             quantity="IO500 change points decided")
    found = [Finding(text=f"IO500: {len(sizes):,} systems have {IO500_MIN_SUBMISSIONS} or more archive submissions with "
                          f"a score; {searched.k:,} have the {MIN_RUNS} a search needs; {settled.n:,} change points "
                          f"found, {settled.k:,} decided.", target="fig-history-io500", evidence=(searched, settled))]
    for (_, row), c in _largest_first(changes, decided):
        found.append(Finding(text=f"IO500: {present.md_escape(row['system'])}'s {row['measure'].removeprefix('IO500 ')} {changed(c)} to "
                                  f"{evidence.phrase(c)} at its submission {row['nth']} ({row['submission']}, "
                                  f"{row['started']:%Y-%m-%d}); else changed: {row['what else changed']}.",
                             target="tab-history-io500-changes", evidence=(c,)))
    return found
