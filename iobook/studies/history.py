"""When did it change? The runs of one fio workload over time (each run's time from fio's own JSON), the change
points of its bandwidth and of its completion-latency p99 (ruptures' binary segmentation, each split kept only
when a permutation test finds it), the runs either side compared (evidence.compare, decided by evidence.decide),
every run flagged steady or not from its bw log with fio's own `--steadystate` slope criterion, and IO500 systems
submitted to several submissions as histories of their scores by the same method (the chapter `history`, issue 29)."""
from __future__ import annotations

import json
import math
import re
import textwrap

import altair as alt
import numpy as np
import pandas as pd
import ruptures as rpt

from .. import evidence, nb, stats
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
TIE_TOLERANCE = 1e-9  # relative: gains equal but for rounding are ties
SEED = 0
# fio's `--steadystate=bw_slope:<limit>%`: steady when the least-squares slope of the bw samples over the window
# (here: the whole run, fio's ss_dur, no ss_ramp) is at most this share of their mean per second.
STEADY_SLOPE_PCT = 30.0
# What a fio history is searched on: a column of get_runs -> the name and unit its change points are read in. Each
# is its own family of change points (evidence.decide).
HISTORY_MEASURES = {"bw_bytes_s": ("bandwidth", "B/s"), "p99_ns": ("clat p99", "ns")}
IO500_MEASURE = ("IO500 score", "score")
IO500_PANELS_A_ROW = 2  # three of 200 px with their axes were wider than the page's text column (cut at 1280 px)
# An IO500 system (institution + system + file system, iobook.labels) is shown over time from this many submissions (its
# archive submissions, a run submitted again counted once: io500_runs.counted); searched from MIN_RUNS.
IO500_MIN_SUBMISSIONS = 3
HOW_TO_ADD = ("Run the same fio job many times with `--output-format=json` (and `--write_bw_log=bw "
              "--log_avg_msec=100` for the steady-state check), one folder per run, and ingest the folders; "
              "`scripts/collect_history.sh` makes such a history.")


def get_runs(con) -> pd.DataFrame:
    """One row per fio job that did I/O without error (a failed run is no rate): its workload key, start (fio's own timestamp), total
    bandwidth over its directions (bytes/s), completion-latency p99 (ns; the longer of its directions'), fio
    version, options and file."""
    return con.execute(
        """
        SELECT j.job_id, j.started, j.version, j.options, s.path, j.jobname, j.rw, j.bs,
               j.jobname || ': ' || concat_ws(' ', {workload}) AS workload, sum(io.bw_bytes_s) AS bw_bytes_s,
               max(io.lat_p99_ns) AS p99_ns
        FROM fio_jobs j JOIN fio_io io USING (job_id) JOIN sources s USING (source_id)
        WHERE j.started IS NOT NULL AND j.error = 0
          AND {not_a_copy}
        GROUP BY ALL ORDER BY j.started, j.job_id
        """.format(not_a_copy=nb.not_a_copy("j.source_id"), workload=", ".join([*(f"'{o}=' || j.{o}" for o in WORKLOAD_OPTIONS),
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


class RunningSumsL2(rpt.base.BaseCost):
    """ruptures' least-squares cost (CostL2: a segment's sum of squared deviations from its mean) from running
    sums: one subtraction a segment instead of a pass over it. The permutation test asks for every split of
    PERMUTATIONS shuffles of every segment (CostL2 took ~8 s of History's ~11 s)."""
    model = "l2_running_sums"
    min_size = 1

    def fit(self, signal) -> "RunningSumsL2":
        self.signal = np.asarray(signal, dtype=float).reshape(len(signal), -1)  # what Binseg reads its length from
        x = self.signal.ravel()
        x = x - x.mean()  # centred: the sums of squares keep their precision
        self.sums = np.concatenate([[0.0], np.cumsum(x)])
        self.squares = np.concatenate([[0.0], np.cumsum(x * x)])
        return self

    def error(self, start: int, end: int) -> float:
        total = self.sums[end] - self.sums[start]
        return max(float(self.squares[end] - self.squares[start] - total * total / (end - start)), 0.0)


def _split_gain(x: np.ndarray, cost: rpt.base.BaseCost | None = None) -> tuple[int, float]:
    """The best single split of x (ruptures' binary segmentation, least squares, at least MIN_UNITS a side):
    its index (first value after) and how much it lowers the sum of squares. `cost`: RunningSumsL2 unless given
    (benchmarks/bench_change_points.py gives ruptures' CostL2, its baseline)."""
    algo = rpt.Binseg(custom_cost=cost or RunningSumsL2(), min_size=evidence.MIN_UNITS, jump=1).fit(x)
    split = algo.predict(n_bkps=1)[0]
    return split, float(algo.cost.error(0, len(x)) - algo.cost.sum_of_costs([split, len(x)]))


def shuffles_for(histories: int) -> int:
    """The shuffles each split of a family of `histories` is tested against: PERMUTATIONS, or more, so that the
    smallest p a split can have, 1 / (shuffles + 1), still passes Holm's correction over twice as many tests (a
    history's first split, and the splits of its sides)."""
    return max(PERMUTATIONS, math.ceil(2 * histories / (1 - evidence.CONFIDENCE)))


def change_points(values, *, permutations: int = PERMUTATIONS, seed: int = SEED) -> list[tuple[int, float]]:
    """Every split binary segmentation tests in a series (log bandwidths in run order), as (index of the first run
    after, permutation p), in order: a segment's best split, its p the share of `permutations` shuffles of the
    segment whose best split gains as much (a tie counts against it); a split with p below 1 - CONFIDENCE has each
    side searched again. Which are change points is its family's correction's to say (evidence.decide)."""
    rng = np.random.default_rng(seed)
    tested: list[tuple[int, float]] = []

    def search(start: int, end: int) -> None:
        x = np.asarray(values[start:end], dtype=float)
        if len(x) < MIN_RUNS or np.ptp(x) == 0:
            return
        split, gain = _split_gain(x)
        null = np.array([_split_gain(rng.permutation(x))[1] for _ in range(permutations)])
        # a shuffle that leaves the same values either side of the split ties with the series: it counts against
        # the change, whichever way rounding tipped its sums
        p = (1 + np.count_nonzero(null >= gain * (1 - TIE_TOLERANCE))) / (permutations + 1)
        tested.append((start + split, p))
        if p < 1 - evidence.CONFIDENCE:
            search(start, start + split)
            search(start + split, end)

    search(0, len(values))
    return sorted(tested)


def what_changed(before: pd.Series, after: pd.Series) -> str:
    """What the logs state differently in the last run before and the first run after a change point: fio's
    version and every job option."""
    a, b = json.loads(before.options or "{}"), json.loads(after.options or "{}")
    changed = [f"{k}: {a.get(k, '–')} → {b.get(k, '–')}" for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    if before.version != after.version:
        changed.insert(0, f"fio {before.version} → {after.version}")
    return "; ".join(changed) or "nothing the fio JSON states"


def segment_changes(h: pd.DataFrame, column: str, quantity: str, unit: str, family: str,
                    permutations: int) -> tuple[list[dict], list]:
    """Every split change_points tests in one history of one column (its runs in time order, the column known and
    positive), each with the runs either side of it up to the next splits below 1 - CONFIDENCE compared (ratio of
    geometric means, Replicate.RUN, p the larger of Welch's and the permutation test's; undecided until
    evidence.decide): (rows of what each is, `found` when its p alone is below 1 - CONFIDENCE; their Comparisons)."""
    h = h[h[column] > 0].reset_index(drop=True)
    if len(h) < MIN_RUNS:
        return [], []
    tested = change_points(stats.log(h[column].to_numpy(dtype=float)), permutations=permutations)
    edges = sorted({0, len(h), *(i for i, p in tested if p < 1 - evidence.CONFIDENCE)})
    rows, comparisons = [], []
    for i, p in tested:
        start, end = max(e for e in edges if e < i), min(e for e in edges if e > i)
        before, after = h[column][start:i], h[column][i:end]
        comparisons.append(evidence.compare(after, before, quantity=quantity, unit=unit, replicate=Replicate.RUN,
                                            family=family, label=f"runs {i + 1}–{end}", baseline_label=f"runs {start + 1}–{i}",
                                            selection_p=p))
        rows.append({"measure": quantity, "run": int(h.run[i]), "started": h.started[i], "permutation p": p,
                     "runs before": len(before), "runs after": len(after), "at": i,
                     "found": p < 1 - evidence.CONFIDENCE})
    return rows, comparisons


def found_only(rows: list[dict], decided: list) -> tuple[list[dict], list]:
    """The splits whose p alone is below 1 - CONFIDENCE, with their records: the ones shown (each decided over every
    split tested in its family)."""
    kept = [(row, c) for row, c in zip(rows, decided) if row["found"]]
    return [row for row, _ in kept], [c for _, c in kept]


CHANGE_COLUMNS = ["workload", "label", "measure", "run", "started", "permutation p", "runs before", "runs after",
                  "what else changed"]


def history_changes(runs: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per history (workload with at least MIN_RUNS runs) and measure (HISTORY_MEASURES, each its own family): its
    change points, each with the runs of the segment before and after compared, decided by evidence.decide."""
    rows, comparisons = [], []
    permutations = shuffles_for(runs.workload.nunique())
    for column, (quantity, unit) in HISTORY_MEASURES.items():
        for workload, h in runs.groupby("workload", sort=False):
            found, records = segment_changes(h, column, quantity, unit, f"change points: {quantity}", permutations)
            known = h[h[column] > 0].reset_index(drop=True)
            rows += [{**row, "workload": workload, "label": f"{known.jobname[row['at']]} ({known.rw[row['at']]} "
                                                             f"{known.bs[row['at']]})",
                      "what else changed": nb.md_escape(what_changed(known.iloc[row["at"] - 1], known.iloc[row["at"]]))}
                     for row in found]
            comparisons += records
    rows, decided = found_only(rows, evidence.decide(comparisons))
    changes = pd.DataFrame(rows, columns=CHANGE_COLUMNS)
    record = evidence.frame(decided)
    if len(changes):
        changes = changes.assign(ratio=record.ratio, low=record.low, high=record.high, verdict=record.verdict)
    return changes, decided


# The y axis of a fio history's panels, per measure: column shown, its title, factor from get_runs' column.
CHART_MEASURES = {"bw_bytes_s": ("MiB_s", "bandwidth (MiB/s, log)", 2**-20), "p99_ns": ("p99_ms", "clat p99 (ms, log)", 1e-6)}


def chart_history(runs: pd.DataFrame, changes: pd.DataFrame, column: str = "bw_bytes_s") -> alt.Chart:
    """Every run's bandwidth (or clat p99: `column`) over time, one panel per history (titled by its job, rw and bs,
    its workload key in the tooltip), unsteady runs marked, that measure's change points as dashed rules."""
    shown, title_y, factor = CHART_MEASURES[column]
    quantity = HISTORY_MEASURES[column][0]
    time = alt.X("started:T", title="run started (UTC, from fio's JSON)", scale=alt.Scale(type="utc"),
                 axis=alt.Axis(format="%m-%d %H:%M:%S", labelAngle=-30))
    panels = []
    for workload, h in runs.groupby("workload", sort=False):
        data = h.assign(**{shown: h[column] * factor}, state=np.where(h.steady.fillna(True).astype(bool), "steady", "not steady"))
        data = data[["workload", "run", "started", shown, "state"]]
        points = alt.Chart(data).mark_point(filled=True).encode(
            x=time, y=alt.Y(f"{shown}:Q", scale=alt.Scale(type="log"), title=title_y),
            shape=alt.Shape("state:N", title="bw log"), color=alt.Color("state:N", title="bw log"),
            tooltip=["workload:N", "run:Q", alt.Tooltip("started:T", format="%Y-%m-%d %H:%M:%S"),
                     alt.Tooltip(f"{shown}:Q", format=",.3g"), "state:N"])
        at = changes.loc[(changes.workload == workload) & (changes.measure == quantity), ["run", "started"]]
        rules = alt.Chart(at).mark_rule(strokeDash=[4, 3], color="black").encode(x=time, tooltip=["run:Q"])
        target = re.search(r"(?:directory|filename|filename_format)=(\S+)", workload)
        where = f", target {target.group(1).rstrip('/').rsplit('/', 1)[-1]}" if target else ""
        title = f"{h.jobname.iloc[0]} ({h.rw.iloc[0]} {h.bs.iloc[0]}){where}, {len(h):,} runs"
        panels.append(alt.layer(points, rules).properties(title=title, width=460, height=160))
    return alt.vconcat(*panels)


# --- the IO500 archive as history -----------------------------------------------------------------------------

IO500_COLUMNS = ["system", "score_rule", "submission", "started", "score", "runs", "io500_version", "procs",
                 "valid", "run_keys", "release", "client_nodes", "api", "protection", "changed_during_run"]
# what a change point's "what else changed" compares, submission against submission: the runs' own files' setup
IO500_SETUP_COMPARED = (("io500_version", "IO500 version"), ("procs", "processes"), ("release", "release"),
                        ("client_nodes", "client nodes"), ("api", "API"), ("protection", "data protection"),
                        ("changed_during_run", "changed during the run"))


def io500_submissions(con) -> pd.DataFrame:
    """One row per IO500 system (institution · system · file system, as attributed: iobook.io500_runs.attribute)
    and archive submission, for systems with at least IO500_MIN_SUBMISSIONS submissions under one
    score rule: when the run started (the run's own timestamp, in the system's local time), the score (the
    geometric mean of the submission's counted runs, recomputed from their phases: io500_scores), the IO500
    version(s) and processes, whether every run is valid, and the runs' keys. A run submitted again is counted
    once (io500_runs.counted); scores of different rules (sc17-product, product, sqrt) are never one history."""
    df = con.execute(
        """
        WITH runs AS (
            SELECT r.institution || ' · ' || r.system || ' · ' || r.filesystem AS system, s.score_rule, r.submission,
                   try_strptime(r.started, ['%Y.%m.%d-%H.%M.%S', '%Y-%m-%d %H:%M:%S']) AS started, s.score,
                   r.io500_version, r.procs, s.valid, r.run_key, g.release, g.client_nodes, g.api, g.protection,
                   g.changed_during_run
            FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN setups g USING (run_id)
            WHERE r.counted AND s.score > 0 AND r.system IS NOT NULL AND r.submission IS NOT NULL
        ), submissions AS (
            SELECT system, score_rule, submission, min(started) AS started, exp(avg(ln(score))) AS score,
                   count(*) AS runs, string_agg(DISTINCT io500_version, ', ') AS io500_version,
                   string_agg(DISTINCT procs::VARCHAR, ', ') AS procs, bool_and(valid) AS valid,
                   string_agg(run_key, ', ' ORDER BY run_key) AS run_keys,
                   string_agg(DISTINCT release, ', ' ORDER BY release) AS release,
                   string_agg(DISTINCT client_nodes::VARCHAR, ', ' ORDER BY client_nodes::VARCHAR) AS client_nodes,
                   string_agg(DISTINCT api, ', ' ORDER BY api) AS api,
                   string_agg(DISTINCT protection, ', ' ORDER BY protection) AS protection,
                   string_agg(DISTINCT changed_during_run, '; ' ORDER BY changed_during_run) AS changed_during_run
            FROM runs WHERE started IS NOT NULL GROUP BY ALL
        )
        SELECT * FROM submissions
        QUALIFY count(*) OVER (PARTITION BY system, score_rule) >= ?
        ORDER BY system, score_rule, started, submission
        """, [IO500_MIN_SUBMISSIONS]).df()
    return df[IO500_COLUMNS]


def io500_what_changed(before: pd.Series, after: pd.Series) -> str:
    """What the runs' setups state differently in the last submission before and the first after a change point
    (IO500_SETUP_COMPARED: IO500 version, processes, release, client nodes, API, data protection, what changed
    during the run; 'not stated' where a run's files do not say)."""
    def stated(value) -> str:
        return "not stated" if pd.isna(value) else str(value)

    changed = [f"{name} {stated(before[k])} → {stated(after[k])}" for k, name in IO500_SETUP_COMPARED
               if stated(before[k]) != stated(after[k])]
    return "; ".join(changed) or "none of " + ", ".join(name for _, name in IO500_SETUP_COMPARED)


def io500_changes(submissions: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per system and score rule with at least MIN_RUNS submissions: its score's change points (change_points on the
    submissions in time order, each one run: their runs' geometric mean), the submissions either side compared,
    decided by evidence.decide."""
    rows, comparisons = [], []
    permutations = shuffles_for(int((submissions.groupby(["system", "score_rule"]).size() >= MIN_RUNS).sum()))
    for (system, rule), h in submissions.groupby(["system", "score_rule"], sort=False):
        h = h.reset_index(drop=True).assign(run=lambda d: d.index + 1)
        found, records = segment_changes(h, "score", *IO500_MEASURE, family="change points: IO500 score",
                                         permutations=permutations)
        rows += [{"system": system, "score rule": rule, "nth": row["run"],
                  "submission": f"submission-{h.submission[row['at']]}", "started": row["started"],
                  "permutation p": row["permutation p"], "submissions before": row["runs before"], "submissions after": row["runs after"],
                  "what else changed": nb.md_escape(io500_what_changed(h.iloc[row["at"] - 1], h.iloc[row["at"]])),
                  "found": row["found"]} for row in found]
        comparisons += records
    rows, decided = found_only(rows, evidence.decide(comparisons))
    changes = pd.DataFrame(rows, columns=["system", "score rule", "nth", "submission", "started", "permutation p", "submissions before",
                                          "submissions after", "what else changed"])
    record = evidence.frame(decided)
    if len(changes):
        changes = changes.assign(ratio=record.ratio, low=record.low, high=record.high, verdict=record.verdict)
    return changes, decided


def chart_io500(submissions: pd.DataFrame, changes: pd.DataFrame) -> alt.FacetChart:
    """Each system's score at every archive submission, one panel per system and score rule (log scale),
    change points as dashed rules."""
    data = submissions.assign(history=[textwrap.fill(f"{s} ({r})", 40) for s, r in zip(submissions.system, submissions.score_rule)],
                        change=[(s, r, t) in set(zip(changes.system, changes["score rule"], changes.started))
                                for s, r, t in zip(submissions.system, submissions.score_rule, submissions.started)])
    data = data[["history", "started", "score", "submission", "io500_version", "valid", "change"]]
    time = alt.X("started:T", title="run started (its own timestamp)",
                 axis=alt.Axis(format="%Y-%m-%d", labelAngle=-30, labelOverlap="greedy"))
    base = alt.Chart()
    layer = alt.layer(
        base.mark_line(point=True).encode(time, alt.Y("score:Q", scale=alt.Scale(type="log"), title="IO500 score (log)"),
                                          tooltip=["history:N", alt.Tooltip("started:T", format="%Y-%m-%d %H:%M"),
                                                   alt.Tooltip("score:Q", format=",.4g"), "submission:Q",
                                                   "io500_version:N", "valid:N"]),
        base.mark_rule(strokeDash=[4, 3], color="black").encode(time).transform_filter("datum.change"),
        data=data).properties(width=200, height=120)
    header = alt.Header(labelFontSize=10, labelExpr="split(datum.value, '\\n')")  # the title in lines that fit
    return layer.facet(facet=alt.Facet("history:N", title=None, header=header),
                       columns=IO500_PANELS_A_ROW).resolve_scale(x="independent", y="independent")


def changed(c: evidence.Comparison) -> str:
    """The verb of a change point's finding: only a decided one is said to have changed."""
    return "changed" if c.decided else "may have changed"


def fio_findings(changes: pd.DataFrame, decided: list, histories: pd.Index, sizes: pd.Series,
                 unsteady: evidence.Count) -> list[Finding]:
    """The fio histories' findings: decided changes before undecided ones, the largest first; the histories with
    none; the unsteady runs."""
    found = []
    for (_, row), c in sorted(zip(changes.iterrows(), decided), key=lambda rc: (not rc[1].decided, -abs(math.log(rc[1].ratio)))):
        found.append(Finding(text=f"{nb.md_escape(row['label'])}: {row['measure']} {changed(c)} to {evidence.phrase(c)} at run "
                                  f"{row['run']}, {row['started']:%Y-%m-%d %H:%M:%S} UTC; else changed: "
                                  f"{row['what else changed']}.", target="tab-history-changes", evidence=(c,)))
    quiet = histories.difference(changes.workload)
    if len(quiet):
        found.append(Finding(text=f"No change point ({' or '.join(q for q, _ in HISTORY_MEASURES.values())}) in "
                                  f"{len(quiet):,} of {len(histories):,} histories "
                                  f"({', '.join(f'{sizes[w]:,}' for w in quiet)} runs).", target="fig-history"))
    found.append(Finding(text=f"{evidence.phrase(unsteady)} with a bw log are not steady by fio's slope criterion.",
                         target="tab-history-runs", evidence=(unsteady,)))
    return found


def io500_findings(submissions: pd.DataFrame, changes: pd.DataFrame, decided: list) -> list[Finding]:
    """The IO500 histories' findings: each change point, decided ones and the largest first, then how many systems
    were searched and shown."""
    found = []
    for (_, row), c in sorted(zip(changes.iterrows(), decided), key=lambda rc: (not rc[1].decided, -abs(math.log(rc[1].ratio)))):
        found.append(Finding(text=f"IO500: {nb.md_escape(row['system'])}'s score {changed(c)} to {evidence.phrase(c)} at its "
                                  f"submission {row['nth']} ({row['submission']}, {row['started']:%Y-%m-%d}); else changed: {row['what else changed']}.",
                             target="tab-history-io500-changes", evidence=(c,)))
    sizes = submissions.groupby(["system", "score_rule"]).size()
    searched = int((sizes >= MIN_RUNS).sum())
    found.append(Finding(text=f"IO500: {len(sizes):,} systems have {IO500_MIN_SUBMISSIONS} or more archive submissions with a "
                              f"score (a run submitted again counted once); {searched:,} of them {MIN_RUNS} or more, enough "
                              f"to search for a change point; {len(changes):,} found, {sum(c.decided for c in decided):,} "
                              f"decided.", target="fig-history-io500"))
    return found


def report(con, *, steady_slope_pct: float = STEADY_SLOPE_PCT, confidence: float = evidence.CONFIDENCE) -> Report:
    """The chapter: every fio history's runs over time with their steady-state flags, its change points of bandwidth
    and clat p99 with the runs either side compared, and IO500 systems over the submissions they were submitted to,
    findings first."""
    if confidence != evidence.CONFIDENCE:
        raise ValueError(f"confidence is the book's ({evidence.CONFIDENCE}): evidence.CONFIDENCE")
    runs = get_runs(con)
    submissions = io500_submissions(con)
    if runs.empty and submissions.empty:
        return Report(values={"has_data": False, "has_fio": False, "has_io500": False},
                      note=nb.no_data("fio runs with a start time", HOW_TO_ADD))
    values = {"has_data": True, "has_fio": not runs.empty, "has_io500": not submissions.empty, "min_runs": MIN_RUNS,
              "permutations": PERMUTATIONS, "steady_slope_pct": steady_slope_pct, "io500_min_submissions": IO500_MIN_SUBMISSIONS,
              "has_histories": False, "has_changes": False, "has_p99_changes": False, "has_io500_changes": False}
    tables, figures, found, records = {}, {}, [], []
    if not runs.empty:
        runs["run"] = runs.groupby("workload", sort=False).cumcount() + 1
        runs = runs.merge(steady_state(con, runs.job_id, steady_slope_pct), on="job_id", how="left")
        sizes = runs.groupby("workload", sort=False).size()
        histories = sizes[sizes >= MIN_RUNS].index
        changes, decided = history_changes(runs[runs.workload.isin(histories)])
        logged = runs[runs.steady.notna()]
        unsteady = evidence.count(int((~logged.steady.astype(bool)).sum()), len(logged), of=Replicate.CENSUS,
                                  quantity=f"runs whose bw log fails fio's bw_slope:{steady_slope_pct:g}%")
        found += fio_findings(changes, decided, histories, sizes, unsteady)
        shown = runs.assign(MiB_s=runs.bw_bytes_s / 2**20, p99_ms=runs.p99_ns / 1e6, file=nb.reader_paths(con, runs.path))[
            ["workload", "run", "started", "MiB_s", "p99_ms", "version", "samples", "slope_pct_s", "range_pct", "steady",
             "file"]]
        p99 = HISTORY_MEASURES["p99_ns"][0]
        changed = runs[runs.workload.isin(changes.workload[changes.measure == p99])]
        values |= {"histories": len(histories), "runs": len(runs), "has_histories": len(histories) > 0,
                   "has_changes": len(changes) > 0,
                   "has_p99_changes": len(changed) > 0, "unsteady": unsteady.k, "logged": unsteady.n}
        tables |= {"tab-history-changes": Table(frame=changes.drop(columns="label"),
                                                formats={"permutation p": ".3f", "ratio": ".3g", "low": ".3g", "high": ".3g"}),
                   "tab-history-runs": Table(frame=shown, formats={"MiB_s": ",.1f", "p99_ms": ",.3g", "slope_pct_s": ".1f",
                                                                   "range_pct": ".0f"}, searchable=True)}
        if len(histories):
            figures["fig-history"] = chart_history(runs[runs.workload.isin(histories)], changes)
        if len(changed):
            figures["fig-history-p99"] = chart_history(changed, changes, "p99_ns")
        records += [*decided, unsteady]
    if not submissions.empty:
        io500, io500_decided = io500_changes(submissions)
        found += io500_findings(submissions, io500, io500_decided)
        values |= {"io500_systems": int(submissions.groupby(["system", "score_rule"]).ngroups),
                   "has_io500_changes": len(io500) > 0}
        # the setup fields that are long text stay in the change points' "what else changed", not every row
        tables |= {"tab-history-io500": Table(frame=submissions.drop(columns=["api", "protection", "changed_during_run"]),
                                              formats={"score": ",.4g"}, searchable=True),
                   "tab-history-io500-changes": Table(frame=io500, formats={"permutation p": ".3f", "ratio": ".3g",
                                                                            "low": ".3g", "high": ".3g"})}
        figures["fig-history-io500"] = chart_io500(submissions, io500)
        records += io500_decided
    return Report(values=values, tables=tables, figures=figures, findings=found, evidence=records)
