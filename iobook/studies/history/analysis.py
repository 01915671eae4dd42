"""The History study's analysis: every run a centre repeats as one row (fio job, IOR test's write or read, mdtest
phase), grouped into histories that never mix labels (one machine's runs are never another's: iobook.source_labels),
their change points (ruptures' binary segmentation, each split kept only when a permutation test finds it), the runs
either side compared (evidence.compare, decided by evidence.decide over each measure's family), every fio run's
steady-state check from its bw log, and IO500 systems over their archive submissions by the same method."""
from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pandas as pd
import ruptures as rpt

from ... import evidence, present, reference, setups, source_labels, stats, store
from ...digest import table_read
from ...evidence import Replicate

SETUP_YML = "setup.yml"  # how what_changed names a field a setup.yml states (setups.derive_logs)
MIN_RUNS = 2 * evidence.MIN_UNITS  # a change point needs MIN_UNITS runs on each side to be compared at all
PERMUTATIONS = 499  # p resolution 1/500, well below 1 - CONFIDENCE
TIE_TOLERANCE = 1e-9  # relative: gains equal but for rounding are ties
SEED = 0
SEARCH_ROUNDS = 4  # searches with more shuffles (searched_enough), each sized to the last one's splits
# fio's `--steadystate=bw_slope:<limit>%`: steady when the least-squares slope of the bw samples over the window
# (here: the whole run, fio's ss_dur, no ss_ramp) is at most this share of their mean per second.
STEADY_SLOPE_PCT = 30.0
# What a history is searched on: a column of get_runs -> its name, unit and whether more is better. Each measure is
# its own family of change points (evidence.decide).
MEASURES = {"bw_bytes_s": ("bandwidth", "B/s", True), "p99_ns": ("clat p99", "ns", False),
            "ops_s": ("rate", "ops/s", True), "slowest_job": ("slowest job over the median job", "×", True)}
# An IO500 system's histories: its score and, apart, its bandwidth and metadata sub-scores (a change in one can hide
# in the score); each measure its own family of change points. Column -> (name, unit).
IO500_MEASURES = {"score": ("IO500 score", "score"), "bw_gib_s": ("IO500 bandwidth", "GiB/s"),
                  "md_kiops": ("IO500 metadata", "kIOPS")}
# An IO500 system is shown over time from this many archive submissions (a run submitted again counted once)
IO500_MIN_SUBMISSIONS = 3
IO500_COLUMNS = ["system", "score_rule", "submission", "started", "score", "bw_gib_s", "md_kiops", "runs", "io500_version", "procs",
                 "valid", "run_keys", "release", "client_nodes", "api", "protection", "changed_during_run"]
# the setup fields a change point compares (setups.COMPARED) under the submissions' column names
IO500_SETUP_COLUMNS = {"benchmark": "io500_version"}
RUN_COLUMNS = ["tool", "label", "workload", "title", "started", "version", "options", "path", "source_id", "job_id",
               "job_ids", "jobs", *MEASURES, "design"]
IO500_CHANGE_COLUMNS = ["system", "score rule", "measure", "nth", "submission", "started", "permutation p",
                        "submissions before", "submissions after", "what else changed"]
CHANGE_COLUMNS = ["label", "history", "workload", "measure", "run", "started", "permutation p", "runs before",
                  "runs after", "what else changed"]


def _options(**values) -> str:
    """A run's stated setup as the JSON text `what_changed` compares (None: not stated)."""
    return json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in values.items() if pd.notna(v)},
                      sort_keys=True)


def fio_runs(con) -> pd.DataFrame:
    df = store.frame(con, __package__, "fio_runs")
    return pd.DataFrame({
        "tool": "fio", "workload": df.workload, "title": [f"{j} ({r} {b})" for j, r, b in zip(df.jobname, df.rw, df.bs)],
        "started": df.started, "version": df.version, "options": df.options, "path": df.path,
        "source_id": df.source_id, "job_id": df.job_id, "job_ids": df.job_ids, "jobs": df.jobs,
        "bw_bytes_s": df.bw_bytes_s, "p99_ns": df.p99_ns, "slowest_job": df.slowest_job})


def ior_runs(con) -> pd.DataFrame:
    """One row per IOR test's write or read: the geometric mean of its iterations (they share one invocation's
    placement and caches: one run), started when IOR says it began."""
    df = store.frame(con, __package__, "ior_runs")
    if df.empty:
        return pd.DataFrame(columns=RUN_COLUMNS)
    rows = []
    for (test_id, access), t in df.groupby(["test_id", "access"], sort=False):
        first = t.iloc[0]
        on = f" on {first.host}" if pd.notna(first.host) else ""  # rank 0's node: one machine's history
        rows.append({
            "tool": "ior", "workload": f"IOR {access}{on}: {first.command}",
            "title": f"IOR {access} ({first.api}, {first.tasks} tasks{on})", "started": pd.to_datetime(
                first.began, format="%a %b %d %H:%M:%S %Y", errors="coerce"),
            "version": first.version, "options": _options(api=first.api, tasks=first.tasks, nodes=first.nodes,
                                                          transfer=first.transfer_bytes, block=first.block_bytes,
                                                          segments=first.segments, file_per_proc=first.file_per_proc),
            "path": first.path, "source_id": first.source_id,
            "bw_bytes_s": evidence.geometric_mean(t.bw_mib_s) * 2**20})
    return pd.DataFrame(rows)


def mdtest_runs(con) -> pd.DataFrame:
    df = store.frame(con, __package__, "mdtest_runs")
    return pd.DataFrame({
        "tool": "mdtest", "workload": "mdtest " + df.operation + ": " + df.command.fillna(""),
        "title": [f"mdtest {o} ({i:,} items, {t} tasks)" if pd.notna(i) else f"mdtest {o}"
                  for o, i, t in zip(df.operation, df["items"], df.tasks)],
        "started": df.started_at, "version": df.version,
        "options": [_options(tasks=t, nodes=n, items=i) for t, n, i in zip(df.tasks, df.nodes, df["items"])],
        "path": df.path, "source_id": df.source_id, "ops_s": df.ops_s})


def get_runs(con) -> pd.DataFrame:
    """Every run with a start time, one row each (fio job, IOR test's write or read, mdtest phase), its label
    (iobook.source_labels), workload key and title, and each measure it has (NaN where it has none); numbered
    `run` within its history (label and workload) in the order the runs started."""
    parts = [p for p in (fio_runs(con), ior_runs(con), mdtest_runs(con)) if len(p)]
    runs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=RUN_COLUMNS)
    runs = runs.reindex(columns=RUN_COLUMNS)
    runs = runs[runs.started.notna()]
    if runs.empty:
        return runs.assign(run=pd.Series(dtype="int64"), history=pd.Series(dtype=str))
    labelled = source_labels.label_sources(con, runs.source_id)[0].set_index("source_id")
    runs = runs.assign(label=runs.source_id.map(labelled.label), by_folder=runs.source_id.map(labelled.labelled_by) == "folder",
                       started=pd.to_datetime(runs.started))
    # one folder a run (run01/, run02/, ...): a folder that holds one run of a workload names the run, not a machine,
    # so a workload whose folder labels each hold one of its runs is one history, named after the data's folder
    per_folder = runs[runs.by_folder].groupby(["workload", "label"]).size().groupby("workload").max()
    run_folders = runs.by_folder & runs.workload.map(per_folder).eq(1) & runs.workload.map(runs.workload.value_counts()).gt(1)
    root = source_labels.data_root(con)
    runs.loc[run_folders, "label"] = root.name if root is not None else "runs"
    runs = runs.drop(columns="by_folder")
    runs["design"] = runs.source_id.map(source_labels.designs(con, runs.source_id))
    runs["options"] = with_stated_setup(con, runs)
    runs = runs.sort_values(["started", "job_id", "source_id"], kind="stable").reset_index(drop=True)
    runs["history"] = runs.label + " · " + runs.title
    runs["run"] = runs.groupby(["label", "workload"], sort=False).cumcount() + 1
    return runs


def with_stated_setup(con, runs: pd.DataFrame) -> pd.Series:
    """Each run's options with what a setup.yml states of its log ('setup.yml <field>': queries/log_setup.sql), so
    that what_changed names a change the logs cannot state (a new file system, release or link)."""
    stated = store.frame(con, __package__, "log_setup", [sorted({int(i) for i in runs.source_id})])
    by_source = {source_id: {f"{SETUP_YML} {f}": v for f, v in zip(g.field, g.value)}
                 for source_id, g in stated.groupby("source_id")}
    return pd.Series([json.dumps({**json.loads(o or "{}"), **by_source[i]}, sort_keys=True) if i in by_source else o
                      for o, i in zip(runs.options, runs.source_id)], index=runs.index, dtype=object)


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


def shuffles_for(tests: int) -> int:
    """The shuffles each split of a family of `tests` splits is tested against: PERMUTATIONS, or more, so that the
    smallest p a split can have, 1 / (shuffles + 1), still passes Holm's correction over all of them."""
    return max(PERMUTATIONS, math.ceil(tests / (1 - evidence.CONFIDENCE)))


def searched_enough(search) -> tuple[list[dict], list]:
    """`search(permutations)` -> (rows, comparisons), run again with more shuffles until every family's splits could
    pass Holm's correction (shuffles_for: binary segmentation searches each side of a split again, so how many
    splits a family tests is known only after a search; mdtest's ten phases of one history made 1/500 too coarse).
    A search with more shuffles may test other splits: at most a few rounds settle it."""
    permutations = PERMUTATIONS
    for _ in range(SEARCH_ROUNDS):
        rows, comparisons = search(permutations)
        tests = max(Counter(c.family for c in comparisons).values(), default=0)
        if shuffles_for(tests) <= permutations:
            break
        permutations = shuffles_for(tests)
    return rows, comparisons


def change_points(values, *, permutations: int = PERMUTATIONS, seed: int = SEED) -> list[tuple[int, float]]:
    """Every split binary segmentation tests in a series (log values in run order), as (index of the first run
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
    """What the logs state differently in the last run before and the first run after a change point: the tool's
    version and every option (fio's job options; IOR's and mdtest's tasks, nodes and sizes), and what a setup.yml
    states of them (with_stated_setup)."""
    a, b = json.loads(before.options or "{}"), json.loads(after.options or "{}")
    changed = [f"{k}: {a.get(k, '–')} → {b.get(k, '–')}" for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    if before.version != after.version:
        changed.insert(0, f"{before.tool} {before.version} → {after.version}")
    return "; ".join(changed) or f"nothing the {before.tool} output states"


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


def decided_changes(rows: list[dict], comparisons: list, columns: list[str]) -> tuple[pd.DataFrame, list]:
    """The splits whose p alone is below 1 - CONFIDENCE (rows' `found`), each decided over every split tested in its
    family: the change points shown (`columns`, with ratio, interval and verdict) and their records."""
    kept = [(row, c) for row, c in zip(rows, evidence.decide(comparisons)) if row["found"]]
    decided = [c for _, c in kept]
    changes = pd.DataFrame([row for row, _ in kept], columns=columns)
    record = evidence.frame(decided)
    if len(changes):
        changes = changes.assign(ratio=record.ratio, low=record.low, high=record.high, verdict=record.verdict)
    return changes, decided


def histories_of(runs: pd.DataFrame) -> pd.DataFrame:
    """The histories searched: label, workload, name (`history`) and runs of each with at least MIN_RUNS runs, in
    the order of their first run, and `one_collector_run`: its runs are the steps of one collector run (one
    schedule in one machine state, minutes apart: repetitions of one experiment, not a system over time)."""
    one_run = runs.design.str.startswith(source_labels.COLLECTOR_RUN) if "design" in runs else False
    sizes = (runs.assign(one_run=one_run).groupby(["label", "workload", "history"], sort=False)
             .agg(runs=("run", "size"), designs=("design", "nunique"), one_run=("one_run", "all")).reset_index())
    sizes["one_collector_run"] = sizes.one_run & (sizes.designs == 1)
    return sizes[sizes.runs >= MIN_RUNS].drop(columns=["designs", "one_run"]).reset_index(drop=True)


def history_changes(runs: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per history (label and workload with at least MIN_RUNS runs) and measure (MEASURES, each its own family): its
    change points, each with the runs of the segment before and after compared, decided by evidence.decide."""
    shown = histories_of(runs)
    searched = set(zip(shown.label, shown.workload))

    def search(permutations: int) -> tuple[list[dict], list]:
        rows, comparisons = [], []
        for column, (quantity, unit, _) in MEASURES.items():
            for (label, workload), h in runs.groupby(["label", "workload"], sort=False):
                if (label, workload) not in searched:
                    continue
                found, records = segment_changes(h, column, quantity, unit, f"change points: {quantity}", permutations)
                known = h[h[column] > 0].reset_index(drop=True)
                rows += [{**row, "label": label, "workload": workload, "history": known.history[row["at"]],
                          "what else changed": present.md_escape(what_changed(known.iloc[row["at"] - 1], known.iloc[row["at"]]))}
                         for row in found]
                comparisons += records
        return rows, comparisons

    return decided_changes(*searched_enough(search), CHANGE_COLUMNS)


def slower(measure: str, ratio: float) -> bool:
    """Whether a change of `measure` by `ratio` (after over before) is a slowdown: less bandwidth or rate, a longer
    latency."""
    more_is_better = {name: better for name, _, better in MEASURES.values()}[measure]
    return ratio < 1 if more_is_better else ratio > 1


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
    """One row per IO500 system (institution · system · file system, as attributed: iobook.io500_runs.attribute)
    and archive submission, for systems with at least IO500_MIN_SUBMISSIONS submissions under one score rule: when
    the run started (the run's own timestamp, in the system's local time), the score (the geometric mean of the
    submission's counted runs, recomputed from their phases: io500_scores), the IO500 version(s) and processes,
    whether every run is valid, the runs' keys and their setups. Scores of different rules (sc17-product,
    product, sqrt) are never one history."""
    df = store.frame(con, __package__, "io500_submissions", [IO500_MIN_SUBMISSIONS])
    for column, values in (("score", "scores"), ("bw_gib_s", "bw_values"), ("md_kiops", "md_values")):
        df[column] = [evidence.geometric_mean([v for v in s if v is not None and v == v]) for s in df[values]]
    return df.reindex(columns=IO500_COLUMNS)


def io500_what_changed(before: pd.Series, after: pd.Series) -> str:
    """What the runs' setups state differently in the last submission before and the first after a change point
    (setups.differences: 'not stated' where a run's files do not say)."""
    def stated(row: pd.Series) -> dict[str, str | None]:
        return {f: (None if pd.isna(v := row[IO500_SETUP_COLUMNS.get(f, f)]) else str(v)) for f in setups.COMPARED}

    return "; ".join(setups.differences(stated(before), stated(after))) or "none of " + ", ".join(setups.COMPARED.values())


def io500_changes(submissions: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per system and score rule with at least MIN_RUNS submissions, and per measure (IO500_MEASURES): its change
    points (change_points on the submissions in time order, each one run: their runs' geometric mean), the
    submissions either side compared, decided by evidence.decide."""
    def search(permutations: int) -> tuple[list[dict], list]:
        rows, comparisons = [], []
        for column, (quantity, unit) in IO500_MEASURES.items():
            for (system, rule), h in submissions.groupby(["system", "score_rule"], sort=False):
                h = h.reset_index(drop=True).assign(run=lambda d: d.index + 1)
                found, records = segment_changes(h, column, quantity, unit, family=f"change points: {quantity}",
                                                 permutations=permutations)
                known = h[h[column] > 0].reset_index(drop=True)
                rows += [{"system": system, "score rule": rule, "measure": quantity, "nth": row["run"],
                          "submission": f"submission-{known.submission[row['at']]}", "started": row["started"],
                          "permutation p": row["permutation p"], "submissions before": row["runs before"],
                          "submissions after": row["runs after"],
                          "what else changed": present.md_escape(io500_what_changed(known.iloc[row["at"] - 1],
                                                                               known.iloc[row["at"]])),
                          "found": row["found"]} for row in found]
                comparisons += records
        return rows, comparisons

    return decided_changes(*searched_enough(search), IO500_CHANGE_COLUMNS)
