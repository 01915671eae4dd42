"""When did it change? Every fio job, IOR test, mdtest phase and DLIO run a centre repeats, as histories that never mix labels
(analysis), their change points with the runs either side compared, fio runs' steady-state check, and IO500 systems
over their archive submissions (the chapter `history`, issues 29 and 38). Layers: queries/*.sql, analysis, tables,
charts, findings; `report` wires them for the notebook."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Prose, Report, Table
from ...database import repeated_runs, store
from ...inference import change_points, evidence
from ...inference.change_points import MEASURES, MIN_RUNS, PERMUTATIONS
from ...inference.evidence import Replicate
from . import analysis, charts, findings, tables
from .analysis import IO500_MIN_SUBMISSIONS, STEADY_SLOPE_PCT

HOW_TO_ADD = ("Run the same fio job (`--output-format=json`), IOR test, mdtest or DLIO workload many times, one folder "
              "per run, and ingest the folders; `scripts/collect_history.sh`, `scripts/collect_ior_history.sh` and "
              "`scripts/collect_dlio.py` make such histories. Runs under different top folders (or `labels.yml` "
              "labels) are separate histories.")


def others_sentence(accuracy: pd.DataFrame) -> str:
    """What the other detectors measured beside this search decide on the unchanged histories (MyST)."""
    unchanged = accuracy[(accuracy.detector != "iobook") & (accuracy.step_pct == 0)]
    parts = [f"{g.false_per_history.min():.0%} to {g.false_per_history.max():.0%} with {present.md_escape(d)}"
             for d, g in unchanged.groupby("detector", sort=False)]
    return ("On the same unchanged histories, false changes per history: " + "; ".join(parts) + "."
            if parts else "")


def accuracy_values(accuracy: pd.DataFrame) -> dict:
    """The search's measured accuracy as the section says it: the largest step's share found, the false changes per
    unchanged history searched alone and ten together, and the other detectors'."""
    ours = accuracy[accuracy.detector == "iobook"]
    large, unchanged = ours[ours.step_pct == ours.step_pct.max()], ours[ours.step_pct == 0]
    return {"accuracy_step_pct": f"{large.step_pct.iloc[0]:g}",
            "accuracy_found": f"{large.found_share.min():.0%} to {large.found_share.max():.0%}",
            "accuracy_false_alone": f"{unchanged[unchanged.histories_per_family == 1].false_per_history.max():.0%}",
            "accuracy_false_together": f"{unchanged[unchanged.histories_per_family > 1].false_per_history.max():.1%}",
            "accuracy_others": Prose(others_sentence(accuracy))}


def report(con, *, steady_slope_pct: float = STEADY_SLOPE_PCT) -> Report:
    """The chapter: every history's runs over time (fio's with their steady-state flags), its change points of each
    measure with the runs either side compared, and IO500 systems over the submissions they were submitted to,
    findings first."""
    runs = repeated_runs.get_runs(con)
    submissions = analysis.io500_submissions(con)
    if runs.empty and submissions.empty:
        return Report(values={"has_data": False, "has_runs": False, "has_io500": False},
                      note=present.no_data("fio, IOR, mdtest or DLIO runs with a start time", HOW_TO_ADD))
    values = {"has_data": True, "has_runs": not runs.empty, "has_io500": not submissions.empty, "min_runs": MIN_RUNS,
              "permutations": PERMUTATIONS, "steady_slope_pct": steady_slope_pct,
              "io500_min_submissions": IO500_MIN_SUBMISSIONS, "has_histories": False, "has_changes": False,
              "has_p99_changes": False, "has_io500_changes": False}
    tables_, figures, found, records = {}, {}, [], []
    steps_only = False  # every history is a collector run's steps, none changed: the IO500 histories lead
    accuracy = analysis.detector_accuracy()
    values |= accuracy_values(accuracy)
    tables_["tab-history-accuracy"] = Table(frame=analysis.accuracy_table(accuracy), formats={
        "noise (sd of log)": ".2f", **{c: ".0%" for c in ("found at 5 %", "found at 10 %", "found at 20 %", "found at 50 %")},
        "false per unchanged history (alone)": ".0%", "false per unchanged history (10 together)": ".1%"})
    figures["fig-history-accuracy"] = charts.chart_accuracy(accuracy)
    if not runs.empty:
        runs = runs.merge(analysis.steady_state(con, runs, steady_slope_pct), on="job_id", how="left")
        searched = change_points.histories_of(runs)
        changes, decided = change_points.history_changes(runs)
        changes = changes.assign(new_collector_run=analysis.at_new_collector_run(runs, changes))
        logged = runs[runs.steady.notna()]
        unsteady = evidence.count(int((~logged.steady.astype(bool)).sum()), len(logged), of=Replicate.CENSUS,
                                  quantity=f"runs whose bw log fails fio's bw_slope:{steady_slope_pct:g}%")
        alone = tables.alone_count(runs, searched)
        found += findings.run_findings(changes, decided, searched, unsteady, alone)
        steps_only = len(searched) > 0 and bool(searched.one_collector_run.all()) and changes.empty
        files, folder = tables.relative_files(store.reader_paths(con, runs.path))
        p99 = MEASURES["p99_ns"][0]
        p99_changed = set(zip(changes.label[changes.measure == p99], changes.workload[changes.measure == p99]))
        with_p99 = runs[[key in p99_changed for key in zip(runs.label, runs.workload)]]
        values |= {"histories": len(searched), "runs": len(runs), "has_histories": len(searched) > 0,
                   "has_changes": len(changes) > 0, "has_p99_changes": len(with_p99) > 0, "unsteady": unsteady.k,
                   "logged": unsteady.n,
                   "alone": alone.k, "files_folder": folder or ".",
                   "runs_files": present.files_link(store.reader_paths(con, runs.path), "Every run's file in full")}
        tables_ |= {"tab-history-changes": tables.changes_table(changes, decided),
                    "tab-history-runs": tables.runs_table(runs, files),
                    "tab-history-fio": tables.fio_table(runs),
                    "tab-history-histories": tables.histories_table(runs, searched, changes, decided)}
        drawn = analysis.drawn_histories(searched, changes, decided)
        values["history_drawn"] = Prose(
            f"All {len(searched):,} histories are drawn." if len(drawn) == len(searched) else
            f"The {len(drawn):,} of {len(searched):,} histories drawn are those with a change point, then those with "
            "the most runs; every run is in the runs table below.")
        if len(searched):
            figures["fig-history"] = charts.chart_history(runs[runs.history.isin(drawn)], changes)
        if len(with_p99):
            figures["fig-history-p99"] = charts.chart_history(with_p99, changes, "p99_ns")
        records += [*decided, unsteady, alone]
    if not submissions.empty:
        io500, io500_decided = analysis.io500_changes(submissions)
        io500_found = findings.io500_findings(submissions, io500, io500_decided)
        found = io500_found + found if steps_only else found + io500_found
        values |= {"io500_systems": int(submissions.groupby(["system", "score_rule"]).ngroups),
                   "has_io500_changes": len(io500) > 0}
        tables_ |= {"tab-history-io500": tables.io500_table(submissions),
                    "tab-history-io500-changes": tables.changes_table(io500, io500_decided, at="submission")}
        figures["fig-history-io500"] = charts.chart_io500(submissions, io500)
        records += io500_decided
    return Report(values=values, tables=tables_, figures=figures, findings=found, evidence=records)
