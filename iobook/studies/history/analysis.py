"""The History study's analysis beside the histories and their change points (database.repeated_runs,
inference.change_points): every fio run's steady-state check from its bw log, the change-point search's measured
accuracy, and IO500 systems over their archive submissions by the same method."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...database import reference, setups, source_labels, store
from ...database.digest import table_read
from ...inference import evidence
from ...inference.change_points import MEASURES, decided_changes, searched_enough, segment_changes

# fio's `--steadystate=bw_slope:<limit>%`: steady when the least-squares slope of the bw samples over the window
# (here: the whole run, fio's ss_dur, no ss_ramp) is at most this share of their mean per second.
STEADY_SLOPE_PCT = 30.0
# An IO500 system's histories: its score and, apart, its bandwidth and metadata sub-scores (a change in one can hide
# in the score); each measure its own family of change points. Column -> (name, unit).
IO500_MEASURES = {"score": ("IO500 score", "score"), "bw_gib_s": ("IO500 bandwidth", "GiB/s"),
                  "md_kiops": ("IO500 metadata", "kIOPS")}
# The histories a chart draws (drawn_histories); the runs table holds every run of every history
MAX_HISTORY_PANELS = 12
# An IO500 system is shown over time from this many archive submissions (a run submitted again counted once)
IO500_MIN_SUBMISSIONS = 3
# An IO500 system is searched for change points within one score rule and one benchmark generation (the bash script,
# the C app): the methods page never pools generations, and Janelia's "change" at submission-461 set C-app runs
# against a side holding bash-script ones (issue 46)
IO500_HISTORY = ["system", "score_rule", "generation"]
IO500_COLUMNS = ["system", "score_rule", "submission", "started", "score", "bw_gib_s", "md_kiops", "runs", "generation",
                 "io500_version", "procs", "valid", "run_keys", "release", "client_nodes", "api", "protection",
                 "changed_during_run"]
# the setup fields a change point compares: the benchmark's generation (issue 46: Janelia's segments either side of
# submission-461 pooled the bash script and the C app) and setups.COMPARED, under the submissions' column names
IO500_COMPARED = {"generation": "generation", **setups.COMPARED}
IO500_SETUP_COLUMNS = {"benchmark": "io500_version"}
IO500_CHANGE_COLUMNS = ["system", "score rule", "measure", "nth", "submission", "started", "permutation p",
                        "submissions before", "submissions after", "what else changed", "fields changed"]


def steady_state(con, runs: pd.DataFrame, slope_limit_pct: float = STEADY_SLOPE_PCT) -> pd.DataFrame:
    """Per fio run (`runs`' job_id, its first job) whose jobs have bw logs: fio's two steady-state measures over the
    whole run, as --steadystate defines them (the slope of the least-squares line through the samples, and the
    largest deviation of a sample from their mean, each as % of the mean; slope per second), of the job farthest
    from steady, and whether the slope criterion holds for every job of the run."""
    jobs = runs[["job_id", "job_ids"]].dropna().explode("job_ids").rename(columns={"job_ids": "log_job_id"})
    jobs = jobs.astype({"log_job_id": "int64"})
    series = store.frame(con, __package__, "fio_bw_logs", [[int(j) for j in jobs.log_job_id]])
    rows = []
    for job_id, log in series.groupby("job_id"):
        mean = log.value.mean()
        slope = np.polyfit(log.t_ms / 1000, log.value, 1)[0] if len(log) > 1 and mean > 0 else np.nan
        rows.append({"log_job_id": job_id, "samples": len(log), "slope_pct_s": 100 * slope / mean,
                     "range_pct": 100 * (log.value - mean).abs().max() / mean})
    columns = ["job_id", "samples", "slope_pct_s", "range_pct", "steady"]
    if not rows:
        return pd.DataFrame(columns=columns)
    logged = jobs.merge(pd.DataFrame(rows), on="log_job_id")
    logged = logged.assign(steepness=logged.slope_pct_s.abs()).sort_values(
        ["job_id", "steepness"], kind="stable", na_position="first")  # "last": the steepest job's slope
    per_run = logged.groupby("job_id").agg(samples=("samples", "sum"), slope_pct_s=("slope_pct_s", "last"),
                                           range_pct=("range_pct", "max"), steepness=("steepness", "max"))
    return per_run.assign(steady=per_run.steepness <= slope_limit_pct).reset_index()[columns]


def at_new_collector_run(runs: pd.DataFrame, changes: pd.DataFrame) -> list[bool]:
    """Per change point (`changes`: change_points.history_changes), whether its first run after is the first of
    another collector run than the run before it (of its history, among the runs that have its measure): another
    machine state and schedule, which can move a rate as much as the storage can."""
    column = {quantity: c for c, (quantity, _, _) in MEASURES.items()}
    out = []
    for _, row in changes.iterrows():
        h = runs[(runs.label == row.label) & (runs.workload == row.workload) & (runs[column[row.measure]] > 0)]
        at = int(np.flatnonzero(h.run.to_numpy() == row.run)[0])
        before, after = h.design.iloc[at - 1], h.design.iloc[at]
        out.append(bool(before != after and str(after).startswith(source_labels.COLLECTOR_RUN)))
    return out


def drawn_histories(searched: pd.DataFrame, changes: pd.DataFrame, decided: list,
                    most: int = MAX_HISTORY_PANELS) -> list[str]:
    """The histories a chart draws, at most `most` (a panel weighs ~10 KB of SVG: 33 put the page over its 1.5 MB):
    those with a change point first (decided ones, then by the largest ratio), then those with the most runs. Every
    run of every history is in the runs table."""
    size = {name: abs(np.log(c.ratio)) + (100 if c.decided else 0) for name, c in zip(changes.history, decided)}
    ranked = sorted(searched.history, key=lambda h: (-size.get(h, -1), -int(searched.runs[searched.history == h].iloc[0])))
    return ranked[:most]


def detector_accuracy() -> pd.DataFrame:
    """How often this search finds a real change and how many it invents, measured by
    benchmarks/bench_detector_accuracy.py on real run-to-run noise (data/reference/detector_accuracy.csv): per
    detector (this search; Apache Otava's e-divisive at the p its method names), noise source, step and histories
    searched together."""
    table_read("data/reference/detector_accuracy.csv")
    df = pd.read_csv(reference.path("detector_accuracy.csv"))
    level = df.method.str.extract(r"max_pvalue ([\d.]+)", expand=False)
    df["detector"] = df.detector.where(level.isna(), df.detector + " (p " + level + ")")
    return df


def accuracy_table(accuracy: pd.DataFrame) -> pd.DataFrame:
    """One row per detector and noise source: its noise (sd of the log values), the share of histories in which a
    slowdown of each step was found at its run (+-2), and the false changes per unchanged history, searched alone and
    ten together (this search only: Otava has no family correction)."""
    single = accuracy[accuracy.histories_per_family == 1]
    found = single[single.step_pct > 0].pivot_table(index=["detector", "source", "noise_sd_log"], columns="step_pct",
                                                     values="found_share", sort=False)
    found.columns = [f"found at {c:g} %" for c in found.columns]
    false = accuracy[accuracy.step_pct == 0].pivot_table(index=["detector", "source", "noise_sd_log"],
                                                          columns="histories_per_family", values="false_per_history",
                                                          sort=False)
    false.columns = [f"false per unchanged history ({'alone' if c == 1 else f'{c} together'})" for c in false.columns]
    return found.join(false).reset_index().rename(columns={"noise_sd_log": "noise (sd of log)"})


# --- the IO500 archive as history -----------------------------------------------------------------------------

def io500_submissions(con) -> pd.DataFrame:
    """One row per IO500 system (institution · system · file system, as attributed: iobook.database.io500_runs.attribute)
    and archive submission, for systems with at least IO500_MIN_SUBMISSIONS submissions under one score rule: when
    the run started (the run's own timestamp, in the system's local time), the score (the geometric mean of the
    submission's counted runs, recomputed from their phases: io500_scores), the IO500 version(s) and processes,
    whether every run is valid, the runs' keys and their setups. Scores of different rules (sc17-product,
    product, sqrt) are never one history."""
    df = store.frame(con, __package__, "io500_submissions", [IO500_MIN_SUBMISSIONS])
    for column, values in (("score", "scores"), ("bw_gib_s", "bw_values"), ("md_kiops", "md_values")):
        df[column] = [evidence.geometric_mean([v for v in s if v is not None and v == v]) for s in df[values]]
    return df.reindex(columns=IO500_COLUMNS)


def io500_what_changed(before: pd.DataFrame, after: pd.DataFrame) -> dict[str, str]:
    """What the setups of the submissions compared either side of a change point (`before`, `after`: their rows) state
    differently, field by field (IO500_COMPARED): each side's values, 'not stated' among them where a submission's
    files do not say ('client nodes 10, 18, not stated → 10, 40, 48'). Issue 46: Janelia's change at submission-461
    compared the last submission before with the first after and missed that the five before pooled two generations
    and the three after ran on 10 to 48 client nodes."""
    def stated(rows: pd.DataFrame, field: str) -> str:
        values = rows[IO500_SETUP_COLUMNS.get(field, field)]
        shown = sorted({str(v) for v in values.dropna()}, key=lambda v: (len(v), v) if v.isdigit() else (0, v))
        return ", ".join(shown + ([setups.NOT_STATED] if values.isna().any() else []))

    return {name: f"{name} {stated(before, f)} → {stated(after, f)}" for f, name in IO500_COMPARED.items()
            if stated(before, f) != stated(after, f)}


def said(changed: dict[str, str]) -> dict[str, str]:
    """io500_what_changed's fields as a change point's row holds them: every difference ('what else changed') and the
    fields' names alone ('fields changed', for a finding that points to the table for the values)."""
    return {"what else changed": "; ".join(changed.values()) or "no setup field stated differently",
            "fields changed": ", ".join(changed)}


def io500_changes(submissions: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per system, score rule and benchmark generation (IO500_HISTORY) with at least MIN_RUNS submissions, and per
    measure (IO500_MEASURES): its change points (change_points on the submissions in time order, each one run: their
    runs' geometric mean), the submissions either side compared, decided by evidence.decide."""
    def search(permutations: int) -> tuple[list[dict], list]:
        rows, comparisons = [], []
        for column, (quantity, unit) in IO500_MEASURES.items():
            for (system, rule, generation), h in submissions.groupby(IO500_HISTORY, sort=False, dropna=False):
                h = h.reset_index(drop=True).assign(run=lambda d: d.index + 1)
                found, records = segment_changes(h, column, quantity, unit, family=f"change points: {quantity}",
                                                 permutations=permutations)
                known = h[h[column] > 0].reset_index(drop=True)
                rows += [{"system": f"{system} ({generation})", "score rule": rule, "measure": quantity, "nth": row["run"],
                          "submission": f"submission-{known.submission[row['at']]}", "started": row["started"],
                          "permutation p": row["permutation p"], "submissions before": row["runs before"],
                          "submissions after": row["runs after"],
                          **said(io500_what_changed(known.iloc[row["at"] - row["runs before"]:row["at"]],
                                                    known.iloc[row["at"]:row["at"] + row["runs after"]])),
                          "found": row["found"]} for row in found]
                comparisons += records
        return rows, comparisons

    return decided_changes(*searched_enough(search), IO500_CHANGE_COLUMNS)
