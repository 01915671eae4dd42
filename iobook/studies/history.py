"""When did it change? The runs of one fio workload over time (each run's time from fio's own JSON), its change
points (ruptures' binary segmentation, each split kept only when a permutation test finds it), the runs either
side compared (evidence.compare, decided by evidence.decide), and every run flagged steady or not from its bw
log with fio's own `--steadystate` slope criterion (the chapter `history`, issue 29)."""
from __future__ import annotations

import json
import re

import altair as alt
import numpy as np
import pandas as pd
import ruptures as rpt

from .. import evidence, nb
from ..evidence import Replicate
from ..report import Finding, Report, Table

# What makes two fio runs the same workload (a history is every run of one, in the order fio started them): its
# name, these options and the target it reads or writes (directory or file). Other options (runtime, log
# settings, ...) may change along a history and are reported as what changed. A collector's runs (their targets
# in a folder of their own) are thus histories of their own, never pooled across designs.
WORKLOAD_OPTIONS = ["rw", "bs", "iodepth", "numjobs", "direct", "ioengine", "size"]
TARGET_OPTIONS = ["directory", "filename", "filename_format"]
# A change point needs MIN_UNITS runs on each side to be compared at all.
MIN_RUNS = 2 * evidence.MIN_UNITS
PERMUTATIONS = 499  # p resolution 1/500, well below 1 - CONFIDENCE
SEED = 0
# fio's `--steadystate=bw_slope:<limit>%`: steady when the least-squares slope of the bw samples over the window
# (here: the whole run, fio's ss_dur, no ss_ramp) is at most this share of their mean per second.
STEADY_SLOPE_PCT = 30.0
FAMILY = "change points"
HOW_TO_ADD = ("Run the same fio job many times with `--output-format=json` (and `--write_bw_log=bw "
              "--log_avg_msec=100` for the steady-state check), one folder per run, and ingest the folders; "
              "`scripts/collect_history.sh` makes such a history.")


def get_runs(con) -> pd.DataFrame:
    """One row per fio job that did I/O without error (a failed run is no rate): its workload key, start (fio's own timestamp), total
    bandwidth over its directions (bytes/s), fio version, options and file."""
    return con.execute(
        """
        SELECT j.job_id, j.started, j.version, j.options, s.path, j.jobname, j.rw, j.bs,
               j.jobname || ': ' || concat_ws(' ', {workload}) AS workload, sum(io.bw_bytes_s) AS bw_bytes_s
        FROM fio_jobs j JOIN fio_io io USING (job_id) JOIN sources s USING (source_id)
        WHERE j.started IS NOT NULL AND j.error = 0
        GROUP BY ALL ORDER BY j.started, j.job_id
        """.format(workload=", ".join([*(f"'{o}=' || j.{o}" for o in WORKLOAD_OPTIONS),
                                        *(f"'{o}=' || json_extract_string(j.options, '$.{o}')"
                                          for o in TARGET_OPTIONS)]))).df()


def steady_state(con, job_ids, slope_limit_pct: float = STEADY_SLOPE_PCT) -> pd.DataFrame:
    """Per job with a bw log: fio's two steady-state measures over the whole run, as --steadystate defines them
    (the slope of the least-squares line through the samples, and the largest deviation of a sample from their
    mean, each as % of the mean; slope per second), and whether the slope criterion holds."""
    series = con.execute(
        "SELECT job_id, t_ms, value FROM fio_series WHERE kind = 'bw' AND job_id IN (SELECT unnest(?)) "
        "ORDER BY job_id, t_ms", [list(map(int, job_ids))]).df()
    rows = []
    for job_id, log in series.groupby("job_id"):
        mean = log.value.mean()
        slope = np.polyfit(log.t_ms / 1000, log.value, 1)[0] if len(log) > 1 and mean > 0 else np.nan
        rows.append({"job_id": job_id, "samples": len(log), "slope_pct_s": 100 * slope / mean,
                     "range_pct": 100 * (log.value - mean).abs().max() / mean,
                     "steady": bool(abs(100 * slope / mean) <= slope_limit_pct)})
    return pd.DataFrame(rows, columns=["job_id", "samples", "slope_pct_s", "range_pct", "steady"])


def _split_gain(x: np.ndarray) -> tuple[int, float]:
    """The best single split of x (ruptures' binary segmentation, least squares, at least MIN_UNITS a side):
    its index (first value after) and how much it lowers the sum of squares."""
    algo = rpt.Binseg(model="l2", min_size=evidence.MIN_UNITS, jump=1).fit(x)
    split = algo.predict(n_bkps=1)[0]
    return split, float(algo.cost.error(0, len(x)) - algo.cost.sum_of_costs([split, len(x)]))


def change_points(values, *, seed: int = SEED) -> list[tuple[int, float]]:
    """Change points of a series (log bandwidths in run order) as (index of the first run after, permutation p):
    binary segmentation, each split kept when its gain is larger than that of the best split of the segment
    shuffled, in all but 1 - CONFIDENCE of PERMUTATIONS shuffles; kept splits are searched again on each side."""
    rng = np.random.default_rng(seed)
    found: list[tuple[int, float]] = []

    def search(start: int, end: int) -> None:
        x = np.asarray(values[start:end], dtype=float)
        if len(x) < MIN_RUNS or np.ptp(x) == 0:
            return
        split, gain = _split_gain(x)
        null = [_split_gain(rng.permutation(x))[1] for _ in range(PERMUTATIONS)]
        p = (1 + sum(g >= gain for g in null)) / (PERMUTATIONS + 1)
        if p < 1 - evidence.CONFIDENCE:
            found.append((start + split, p))
            search(start, start + split)
            search(start + split, end)

    search(0, len(values))
    return sorted(found)


def what_changed(before: pd.Series, after: pd.Series) -> str:
    """What the logs state differently in the last run before and the first run after a change point: fio's
    version and every job option."""
    a, b = json.loads(before.options or "{}"), json.loads(after.options or "{}")
    changed = [f"{k}: {a.get(k, '–')} → {b.get(k, '–')}" for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    if before.version != after.version:
        changed.insert(0, f"fio {before.version} → {after.version}")
    return "; ".join(changed) or "nothing the fio JSON states"


def history_changes(runs: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per history (workload with at least MIN_RUNS runs): its change points, each with the runs of the segment
    before and after compared (ratio of geometric means, Replicate.RUN), decided together by evidence.decide."""
    rows, comparisons = [], []
    for workload, h in runs.groupby("workload", sort=False):
        if len(h) < MIN_RUNS:
            continue
        h = h.reset_index(drop=True)
        points = change_points(np.log(h.bw_bytes_s.to_numpy()))
        edges = [0, *(i for i, _ in points), len(h)]
        for k, (i, p) in enumerate(points):
            before, after = h.bw_bytes_s[edges[k]:i], h.bw_bytes_s[i:edges[k + 2]]
            comparisons.append(evidence.compare(after, before, quantity="bandwidth", unit="B/s",
                                                replicate=Replicate.RUN, family=FAMILY, label=f"runs {i + 1}–{edges[k + 2]}",
                                                baseline_label=f"runs {edges[k] + 1}–{i}"))
            rows.append({"workload": workload, "label": f"{h.jobname[i]} ({h.rw[i]} {h.bs[i]})", "run": i + 1, "started": h.started[i], "permutation p": p,
                         "runs before": len(before), "runs after": len(after),
                         "what else changed": nb.md_escape(what_changed(h.iloc[i - 1], h.iloc[i]))})
    decided = evidence.decide(comparisons)
    changes = pd.DataFrame(rows, columns=["workload", "label", "run", "started", "permutation p", "runs before", "runs after",
                                          "what else changed"])
    record = evidence.frame(decided)
    if len(changes):
        changes = changes.assign(ratio=record.ratio, low=record.low, high=record.high, verdict=record.verdict)
    return changes, decided


def chart_history(runs: pd.DataFrame, changes: pd.DataFrame) -> alt.Chart:
    """Every run's bandwidth over time, one panel per history (titled by its job, rw and bs, its workload key in
    the tooltip), unsteady runs marked, change points as dashed rules."""
    time = alt.X("started:T", title="run started (UTC, from fio's JSON)", scale=alt.Scale(type="utc"),
                 axis=alt.Axis(format="%m-%d %H:%M:%S", labelAngle=-30))
    panels = []
    for workload, h in runs.groupby("workload", sort=False):
        data = h.assign(MiB_s=h.bw_bytes_s / 2**20, state=np.where(h.steady.fillna(True).astype(bool), "steady", "not steady"))
        data = data[["workload", "run", "started", "MiB_s", "state"]]
        points = alt.Chart(data).mark_point(filled=True).encode(
            x=time, y=alt.Y("MiB_s:Q", scale=alt.Scale(type="log"), title="bandwidth (MiB/s, log)"),
            shape=alt.Shape("state:N", title="bw log"), color=alt.Color("state:N", title="bw log"),
            tooltip=["workload:N", "run:Q", alt.Tooltip("started:T", format="%Y-%m-%d %H:%M:%S"),
                     alt.Tooltip("MiB_s:Q", format=",.1f"), "state:N"])
        at = changes.loc[changes.workload == workload, ["run", "started"]]
        rules = alt.Chart(at).mark_rule(strokeDash=[4, 3], color="black").encode(x=time, tooltip=["run:Q"])
        target = re.search(r"(?:directory|filename|filename_format)=(\S+)", workload)
        where = f", target {target.group(1).rstrip('/').rsplit('/', 1)[-1]}" if target else ""
        title = f"{h.jobname.iloc[0]} ({h.rw.iloc[0]} {h.bs.iloc[0]}){where}, {len(h):,} runs"
        panels.append(alt.layer(points, rules).properties(title=title, width=460, height=160))
    return alt.vconcat(*panels)


def report(con, *, steady_slope_pct: float = STEADY_SLOPE_PCT, confidence: float = evidence.CONFIDENCE) -> Report:
    """The chapter: every history's runs over time with their steady-state flags, its change points with the
    runs either side compared, findings first."""
    if confidence != evidence.CONFIDENCE:
        raise ValueError(f"confidence is the book's ({evidence.CONFIDENCE}): evidence.CONFIDENCE")
    runs = get_runs(con)
    if runs.empty:
        return Report(values={"has_data": False}, note=nb.no_data("fio runs with a start time", HOW_TO_ADD))
    runs["run"] = runs.groupby("workload", sort=False).cumcount() + 1
    runs = runs.merge(steady_state(con, runs.job_id, steady_slope_pct), on="job_id", how="left")
    sizes = runs.groupby("workload", sort=False).size()
    histories = sizes[sizes >= MIN_RUNS].index
    changes, decided = history_changes(runs[runs.workload.isin(histories)])
    logged = runs[runs.steady.notna()]
    unsteady = evidence.count(int((~logged.steady.astype(bool)).sum()), len(logged), of=Replicate.CENSUS,
                              quantity=f"runs whose bw log fails fio's bw_slope:{steady_slope_pct:g}%")
    found = []
    # the main result first: decided changes before undecided ones, the largest first
    for (_, row), c in sorted(zip(changes.iterrows(), decided), key=lambda rc: (not rc[1].decided, -abs(np.log(rc[1].ratio)))):
        found.append(Finding(text=f"{nb.md_escape(row['label'])}: bandwidth changed to {evidence.phrase(c)} at run "
                                  f"{row['run']}, {row['started']:%Y-%m-%d %H:%M:%S} UTC; else changed: "
                                  f"{row['what else changed']}.", target="tab-history-changes", evidence=(c,)))
    quiet = histories.difference(changes.workload)
    if len(quiet):
        found.append(Finding(text=f"No change point in {len(quiet):,} of {len(histories):,} histories "
                                  f"({', '.join(f'{sizes[w]:,}' for w in quiet)} runs).", target="fig-history"))
    found.append(Finding(text=f"{evidence.phrase(unsteady)} with a bw log are not steady by fio's slope criterion.",
                         target="tab-history-runs", evidence=(unsteady,)))
    shown = runs.assign(MiB_s=runs.bw_bytes_s / 2**20, file=nb.reader_paths(con, runs.path))[
        ["workload", "run", "started", "MiB_s", "version", "samples", "slope_pct_s", "range_pct", "steady", "file"]]
    changes = changes.drop(columns="label")
    return Report(
        values={"has_data": True, "histories": len(histories), "runs": len(runs), "min_runs": MIN_RUNS,
                "permutations": PERMUTATIONS, "steady_slope_pct": steady_slope_pct, "has_changes": len(changes) > 0,
                "unsteady": unsteady.k, "logged": unsteady.n},
        tables={"tab-history-changes": Table(frame=changes, formats={"permutation p": ".3f", "ratio": ".3g",
                                                                       "low": ".3g", "high": ".3g"}),
                "tab-history-runs": Table(frame=shown, formats={"MiB_s": ",.1f", "slope_pct_s": ".1f",
                                                                "range_pct": ".0f"}, searchable=True)},
        figures={"fig-history": chart_history(runs[runs.workload.isin(histories)], changes)},
        findings=found, evidence=[*decided, unsteady])
