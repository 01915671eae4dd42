"""Lustre page-cache passthrough (LU-11347, seed 001) and the talk's two other topics, trim recovery (LU-11355)
and the shared-file penalty overstriping addresses (LU-9846): the published profile shares and tested
configuration, beside fio experiments made by scripts/collect_pagecache.py (manifest label `experiment`):
buffered against direct (`modes`: bandwidth over time, its spread, CPU and reclaim per GiB), direct reads
by queue depth and buffered reads by read-ahead (`queue-depth`, `readahead`), write bandwidth over time
after a trim or none (`trim`), and N writers to one file or one file each (`shared-file`)."""
from __future__ import annotations

from collections.abc import Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import published, stats
from ..units import GIB
from . import local_runs

PUBLISHED = "seed001_page_cache_facts"
PHASES = ["write", "read"]
MODES = ["buffered", "direct"]
MEMORY_METRICS = ["cache", "dirty", "writeback"]
EXPERIMENTS = ["modes", "queue-depth", "readahead", "trim", "shared-file"]
# Runs collected before the collector had experiments carry no `experiment` label: they are `modes` runs.
DEFAULT_EXPERIMENT = "modes"


def get_published() -> pd.DataFrame:
    """Seed 001's facts as printed: profile shares, LU-11347's tunables, the tested configuration."""
    return published.load(PUBLISHED)


def select_runs(con, run_folders: Iterable[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the pagecache runs the chapter reads, by default the current run of each experiment
    (local_runs.select_current: the newest made with the newest collector design), else those named by run
    folder; with their `experiment` (the manifest label; 'modes' for runs made before it existed) and the
    memory cgroup the collector made: its mechanism and its limit in MiB. `status`: every run's."""
    runs, status = local_runs.select_current(con, "pagecache", run_folders, "experiment", DEFAULT_EXPERIMENT)
    cgroup = con.execute(
        """
        SELECT run_id, any_value(value) FILTER (key = 'facts.cgroup.mechanism') AS cgroup,
               CAST(any_value(value) FILTER (key = 'facts.cgroup.memory_limit_bytes') AS BIGINT) / 2^20
                   AS memory_limit_mib
        FROM run_facts WHERE list_contains(?, run_id) GROUP BY run_id
        """,
        [runs.run_id.tolist()],
    ).df()
    experiment = status.groupby("run_id").experiment.first().reset_index()
    runs = runs.merge(cgroup, on="run_id", how="left").merge(experiment, on="run_id", how="left")
    runs["experiment"] = runs.experiment.fillna(DEFAULT_EXPERIMENT)
    return runs, status


def get_runs(con, run_folders: Iterable[str] | None = None) -> pd.DataFrame:
    """The runs of select_runs."""
    return select_runs(con, run_folders)[0]


def run_ids(runs: pd.DataFrame, experiment: str) -> list[str]:
    """The run ids of one experiment."""
    return runs.loc[runs.experiment == experiment, "run_id"].tolist()


def get_buckets(con, run_ids: Iterable[str], bucket_ms: int) -> pd.DataFrame:
    """fio's bandwidth logs of each step (view fio_series, KiB/s, the phase's direction; every job's log,
    summed) averaged into buckets of bucket_ms, keeping only buckets wholly inside the job's runtime:
    one row per step and bucket with the step's labels, t_s = bucket start in seconds since fio started,
    mib_s."""
    steps = local_runs.get_step_labels(con, run_ids)
    columns = ["run_id", "step_index", "step", "phase", "t_s", "mib_s", "log_entries", "log_source_id"]
    if steps.empty or "phase" not in steps:
        return pd.DataFrame(columns=columns)
    buckets = con.execute(
        """
        WITH per_job AS (
            SELECT j.source_id, j.job_index, f.direction AS phase, floor(f.t_ms / ?) * ? / 1000 AS t_s,
                   avg(f.value) AS kib_s, count(*) AS log_entries
            FROM fio_jobs j
            JOIN fio_series f ON f.job_id = j.job_id AND f.kind = 'bw'
            WHERE list_contains(?, j.source_id) AND f.t_ms < floor(j.runtime_s * 1000 / ?) * ?
            GROUP BY ALL
        )
        SELECT source_id, phase, t_s, round(sum(kib_s) / 1024, 6) AS mib_s,
               sum(log_entries) AS log_entries, source_id AS log_source_id
        FROM per_job GROUP BY source_id, phase, t_s
        """,
        [bucket_ms, bucket_ms, steps.source_id.astype(int).tolist(), bucket_ms, bucket_ms],
    ).df()
    df = steps.drop(columns=["step_s", "file"]).merge(buckets, on=["source_id", "phase"]).drop(columns="source_id")
    if "repetition" in df:
        df["repetition"] = df.repetition.astype(int)
    return df.sort_values(["run_id", "step_index", "t_s"]).reset_index(drop=True)


def get_steps(con, run_ids: Iterable[str], buckets: pd.DataFrame) -> pd.DataFrame:
    """One row per fio step (local_runs.get_fio_steps: bandwidth, CPU per GiB, machine CPU) with the
    spread of its bucket means: count, mean, sample standard deviation, coefficient of variation
    (standard deviation / mean), 5th and 95th percentile, lowest."""
    steps = local_runs.get_fio_steps(con, run_ids)
    if steps.empty:
        return steps
    spread = buckets.groupby(["run_id", "step_index"]).mib_s.agg(
        buckets="size", bucket_mean_mib_s="mean", stddev_mib_s="std", p5_mib_s=lambda x: x.quantile(0.05),
        p95_mib_s=lambda x: x.quantile(0.95), min_mib_s="min").reset_index()
    spread["cv"] = spread.stddev_mib_s / spread.bucket_mean_mib_s
    return steps.merge(spread, on=["run_id", "step_index"], how="left")


MODE_RATIOS = {"bandwidth": "bw_mib_s", "coefficient of variation": "cv",
               "fio system CPU per GiB": "fio_sys_cpu_s_per_gib"}  # buffered ÷ direct


def compare_modes(steps: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per run, phase and measure (MODE_RATIOS: fio's bandwidth, the coefficient of variation of its
    bucket means, fio's system CPU-seconds per GiB): buffered over direct on the log scale, with the
    interval, Welch's p (stats.ratio_row) and the verdicts of a run's comparisons read together
    (stats.add_verdicts)."""
    rows = []
    for (run_id, phase), part in steps.groupby(["run_id", "phase"], sort=True):
        buffered, direct = part[part["mode"] == "buffered"], part[part["mode"] == "direct"]
        if buffered.empty or direct.empty:
            continue
        for measure, column in MODE_RATIOS.items():
            rows.append({"run_id": run_id, "phase": phase, "measure": measure,
                         **stats.ratio_row(buffered[column], direct[column], confidence)})
    columns = ["run_id", "phase", "measure", *stats.RATIO_COLUMNS]
    return stats.add_verdicts(pd.DataFrame(rows, columns=columns), confidence, ["run_id"])


def get_memory(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """The memory cgroup's page cache, dirty and write-back bytes per step and second (collector's proc
    sampler of memory.stat, view monitor_series), in MiB; t_s = seconds since the sampler started."""
    return con.execute(
        """
        SELECT l.run_id, l.step_index, s.name AS step, m.source_id, round(m.t_s) AS t_s, m.metric,
               max(m.value) / 2^20 AS mib
        FROM (SELECT DISTINCT run_id, step_index, source_id FROM run_labels WHERE list_contains(?, run_id)) l
        JOIN run_steps s USING (run_id, step_index)
        JOIN monitor_series m ON m.source_id = l.source_id
        WHERE m.tool = 'proc' AND ends_with(m.instance, '/memory.stat') AND list_contains(?, m.metric)
          AND m.unit = 'bytes'
        GROUP BY ALL
        ORDER BY l.run_id, l.step_index, t_s, m.metric
        """,
        [list(run_ids), MEMORY_METRICS],
    ).df()


def get_reclaim(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """Per step, how much reclaim counters rose (last sample - first): the cgroup's pgpgin and pgpgout
    (charge and uncharge events: a page, or a large folio, entering or leaving it), global reclaim scanned
    (vmstat pgscan_kswapd + pgscan_direct), and all reclaim including
    cgroups' (vmstat pgscan_file, pgsteal_file)."""
    return con.execute(
        """
        WITH counters AS (
            SELECT l.run_id, l.step_index, m.source_id,
                   CASE WHEN ends_with(m.instance, '/memory.stat') THEN 'cgroup ' ELSE 'vmstat ' END || m.metric
                       AS counter,
                   max(m.value) - min(m.value) AS increase
            FROM (SELECT DISTINCT run_id, step_index, source_id FROM run_labels WHERE list_contains(?, run_id)) l
            JOIN monitor_series m ON m.source_id = l.source_id
            WHERE m.tool = 'proc'
              AND m.metric IN ('pgpgin', 'pgpgout', 'pgscan_kswapd', 'pgscan_direct', 'pgscan_file', 'pgsteal_file')
              AND (ends_with(m.instance, '/memory.stat') OR m.instance = '/proc/vmstat')
            GROUP BY ALL
        )
        SELECT run_id, step_index, any_value(source_id) AS source_id,
               max(increase) FILTER (counter = 'cgroup pgpgin') AS cgroup_pgpgin_events,
               max(increase) FILTER (counter = 'cgroup pgpgout') AS cgroup_pgpgout_events,
               max(increase) FILTER (counter = 'vmstat pgscan_kswapd')
                   + max(increase) FILTER (counter = 'vmstat pgscan_direct') AS global_reclaim_scanned_pages,
               max(increase) FILTER (counter = 'vmstat pgscan_file') AS all_reclaim_scanned_file_pages,
               max(increase) FILTER (counter = 'vmstat pgsteal_file') AS all_reclaim_stolen_file_pages
        FROM counters GROUP BY ALL ORDER BY run_id, step_index
        """,
        [list(run_ids)],
    ).df()


MODE_MEASURES = {"bw_mib_s": "bandwidth (MiB/s)", "cv": "coefficient of variation per second",
                 "fio_sys_cpu_s_per_gib": "fio system CPU (s/GiB)",
                 "cgroup_pgpgout_per_gib": "cgroup pgpgout (events/GiB)"}


def get_mode_costs(steps: pd.DataFrame, reclaim: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Buffered and direct per run and phase: fio bandwidth, the coefficient of variation of the bucket
    means, fio's system CPU-seconds per GiB and the cgroup's pgpgout events per GiB moved, each as the
    geometric mean over the repetitions with its t interval on the log scale (stats.intervals)."""
    df = steps.merge(reclaim[["run_id", "step_index", "cgroup_pgpgout_events"]], on=["run_id", "step_index"],
                     how="left")
    df["cgroup_pgpgout_per_gib"] = df.cgroup_pgpgout_events / df.gib
    return stats.intervals(df, ["run_id", "phase", "mode"], MODE_MEASURES, confidence, log=True)


def get_fio_results(con, run_ids: Iterable[str], end_baseline: bool = False) -> pd.DataFrame:
    """One row per fio step of the runs (local_runs.get_fio_steps) with every job summed: bandwidth
    (bw_mib_s), bytes (gib), fio's system CPU-seconds per GiB, mean completion latency over the jobs
    (clat_mean_ms), jobs; labels kept. `end_baseline`: the baseline's steps at the end of the run instead."""
    steps = local_runs.get_fio_steps(con, run_ids, end_baseline=end_baseline)
    if steps.empty:
        return steps
    clat = con.execute(
        "SELECT j.source_id, io.direction AS phase, avg(io.clat_mean_ns) / 1e6 AS clat_mean_ms "
        "FROM fio_jobs j JOIN fio_io io USING (job_id) WHERE list_contains(?, j.source_id) AND io.bw_bytes_s > 0 "
        "GROUP BY ALL",
        [steps.source_id.astype(int).unique().tolist()],
    ).df()
    labels = [c for c in steps.columns if c not in local_runs.FIO_STEP_MEASURES]
    steps = steps.assign(sys_cpu_s=steps.sys_cpu_pct / 100 * steps.runtime_s)
    summed = steps.groupby(labels, dropna=False, sort=False).agg(
        jobs=("bw_bytes_s", "size"), bw_bytes_s=("bw_bytes_s", "sum"), io_bytes=("io_bytes", "sum"),
        runtime_s=("runtime_s", "max"), sys_cpu_s=("sys_cpu_s", "sum")).reset_index()
    summed["bw_mib_s"] = summed.bw_bytes_s / 2**20
    summed["gib"] = summed.io_bytes / GIB
    summed["fio_sys_cpu_s_per_gib"] = summed.sys_cpu_s / summed.gib
    return summed.merge(clat, on=["source_id", "phase"], how="left").sort_values(
        ["run_id", "step_index"]).reset_index(drop=True)


def get_read_settings(con, depth_runs: Iterable[str], readahead_runs: Iterable[str],
                      confidence: float = 0.95) -> pd.DataFrame:
    """Sequential read bandwidth by setting, geometric mean over the repetitions with its t interval on the
    log scale (stats.intervals): the
    queue-depth runs' direct reads per engine and iodepth beside their buffered psync read at depth 1,
    and the readahead runs' buffered reads of the loop device per read-ahead (KiB) beside its direct
    read at depth 1. `setting` names the varied value; `value` is it as a number (iodepth or KiB)."""
    frames = []
    depth = get_fio_results(con, depth_runs)
    if not depth.empty:
        depth = depth[depth.phase == "read"].copy()
        depth["series"] = np.where(depth["mode"] == "direct", "direct " + depth.ioengine, "buffered psync, depth 1")
        depth["value"] = np.where(depth["mode"] == "direct", depth.iodepth.astype(float), np.nan)
        depth["experiment"] = "queue-depth"
        frames.append(depth)
    ahead = get_fio_results(con, readahead_runs)
    if not ahead.empty:
        ahead = ahead[ahead.phase == "read"].copy()
        ahead["series"] = np.where(ahead["mode"] == "direct", "direct psync, depth 1", "buffered psync")
        ahead["value"] = pd.to_numeric(ahead.readahead_kb).astype("Int64")
        ahead["experiment"] = "readahead"
        frames.append(ahead)
    if not frames:
        return pd.DataFrame(columns=["run_id", "experiment", "series", "value", "measure", "repetitions", "mean",
                                     "low", "high"])
    df = pd.concat(frames, ignore_index=True)
    df["value"] = df["value"].astype(float)  # NaN: the reference series has no varied value
    df["value_key"] = df["value"].fillna(-1)
    out = stats.intervals(df, ["run_id", "experiment", "series", "value_key"],
                    {"bw_mib_s": "bandwidth (MiB/s)", "clat_mean_ms": "completion latency (ms)",
                     "fio_sys_cpu_s_per_gib": "fio system CPU (s/GiB)"}, confidence, log=True)
    out["value"] = out.pop("value_key").replace(-1, np.nan)
    return out


def get_trim_recovery(buckets: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """The trim runs' sequential writes after a trim or none: per run, condition and second, the mean
    bandwidth over the repetitions (geometric) with its t interval on the log scale."""
    if "trim" not in buckets:
        return stats.intervals(pd.DataFrame(columns=["run_id", "trim", "t_s", "mib_s"]), ["run_id", "trim", "t_s"], {})
    after = buckets[buckets.phase == "write"]
    return stats.intervals(after, ["run_id", "trim", "t_s"], {"mib_s": "bandwidth (MiB/s)"}, confidence, log=True)


def compare_groups(df: pd.DataFrame, by: list[str], label: str, sample: str, baseline: str, column: str,
                   confidence: float = 0.95, family: list[str] | None = None) -> pd.DataFrame:
    """Per group of `by`: `column` of the rows whose `label` is `sample` over those whose label is
    `baseline`, on the log scale (stats.ratio_row, geometric means `sample_mean` and `baseline_mean`),
    with the verdicts of the groups read together within each `family` (stats.add_verdicts)."""
    rows = []
    for keys, part in df.groupby(by, sort=True):
        a, b = part.loc[part[label] == sample, column], part.loc[part[label] == baseline, column]
        if a.empty or b.empty:
            continue
        rows.append({**dict(zip(by, keys)), "sample_mean": float(np.exp(np.log(a).mean())),
                     "baseline_mean": float(np.exp(np.log(b).mean())), **stats.ratio_row(a, b, confidence)})
    out = pd.DataFrame(rows, columns=[*by, "sample_mean", "baseline_mean", *stats.RATIO_COLUMNS])
    return stats.add_verdicts(out, confidence, family)


def get_trim_effect(buckets: pd.DataFrame, first_s: float, confidence: float = 0.95) -> pd.DataFrame:
    """Write bandwidth after a trim over that after none, per run, for the first `first_s` seconds and
    for the whole step: per repetition the mean of its buckets, then compare_groups."""
    if "trim" not in buckets:
        return compare_groups(pd.DataFrame(columns=["run_id", "window", "trim", "mib_s"]), ["run_id", "window"],
                              "trim", "trim", "none", "mib_s")
    after = buckets[buckets.phase == "write"]
    rows = []
    for window, part in [(f"first {first_s:g} s", after[after.t_s < first_s]), ("whole step", after)]:
        per_rep = part.groupby(["run_id", "trim", "repetition"]).mib_s.mean().reset_index()
        per_rep["window"] = window
        rows.append(per_rep)
    per_rep = pd.concat(rows, ignore_index=True)
    return compare_groups(per_rep, ["run_id", "window"], "trim", "trim", "none", "mib_s", confidence, ["run_id"])


def get_shared_file(con, run_ids: Iterable[str], confidence: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The shared-file runs' writes: per step the bandwidth of all writers summed (get_fio_results), and
    per run and mode one file shared by the writers over one file per writer (compare_groups)."""
    steps = get_fio_results(con, run_ids)
    if steps.empty:
        return steps, compare_groups(pd.DataFrame(columns=["run_id", "mode", "layout", "bw_mib_s"]),
                                     ["run_id", "mode"], "layout", "shared", "per-file", "bw_mib_s")
    steps = steps[steps.phase == "write"].reset_index(drop=True)
    return steps, compare_groups(steps, ["run_id", "mode"], "layout", "shared", "per-file", "bw_mib_s", confidence,
                                 ["run_id"])


# The labels that name a configuration the collector measures again at the end of a run (drift_check=end).
END_BASELINE_CONFIG = ["phase", "mode", "ioengine", "iodepth", "layout", "trim"]


def get_end_baseline(con, run_ids: Iterable[str], confidence: float = 0.95) -> pd.DataFrame:
    """Drift: per run and configuration measured again at the end, its bandwidth (all jobs summed) over
    that configuration's repetitions during the run (local_runs.compare_end_baseline), with the run's
    experiment."""
    during, end = get_fio_results(con, run_ids), get_fio_results(con, run_ids, end_baseline=True)
    drift = local_runs.compare_end_baseline(during, end, END_BASELINE_CONFIG, "bw_mib_s", confidence)
    experiment = during.groupby("run_id").experiment.first() if "experiment" in during else pd.Series(dtype=str)
    return drift.assign(experiment=drift.run_id.map(experiment).fillna(DEFAULT_EXPERIMENT))


# Experiments whose buffered reads are sequential 1 MiB psync reads of the same kind of file (the readahead
# experiment reads a loop device instead).
FILE_READ_EXPERIMENTS = ["modes", "queue-depth"]
# The proc sampler starts 1 s before its step (scripts/collectlib.py, Monitors' settle_s) and fio's clock up to
# about a second after the step: fio's bucket [t, t + w) lies within [t + 1, t + w + 2) of the sampler's clock.
SAMPLER_LEAD_S = (1.0, 2.0)
FULL_SHARE = 0.95  # of the cgroup's memory limit, at which its page cache counts as full
CACHE_STATES = ["filling", "full"]


def get_read_fill(con, runs: pd.DataFrame, bucket_ms: int) -> pd.DataFrame:
    """The buffered reads of a file (FILE_READ_EXPERIMENTS) bucket by bucket, each bucket labelled by the
    state of fio's memory cgroup's page cache (memory.stat `cache`, sampled every second): 'filling' when
    the whole bucket lies before the first sample at FULL_SHARE of the limit or more (or the cache never
    got there), 'full' when it lies after it, 'unclear' across the moment (SAMPLER_LEAD_S: the clocks are
    a second apart). `full_at_s`: that sample's time on the sampler's clock, NaN when never full."""
    ids = [r for e in FILE_READ_EXPERIMENTS for r in run_ids(runs, e)]
    buckets = get_buckets(con, ids, bucket_ms)
    columns = ["run_id", "experiment", "step_index", "step", "repetition", "t_s", "mib_s", "full_at_s", "cache"]
    if buckets.empty or "mode" not in buckets:
        return pd.DataFrame(columns=columns)
    reads = buckets[(buckets["mode"] == "buffered") & (buckets.phase == "read")]
    cache = get_memory(con, ids)
    cache = cache[cache.metric == "cache"].merge(runs[["run_id", "memory_limit_mib"]], on="run_id")
    full = cache[cache.mib >= FULL_SHARE * cache.memory_limit_mib].groupby(["run_id", "step_index"]).t_s.min()
    reads = reads.merge(full.rename("full_at_s").reset_index(), on=["run_id", "step_index"], how="left")
    width, (early, late) = bucket_ms / 1000, SAMPLER_LEAD_S
    # before: the bucket ends (late clock) before the last sample below the limit; after: it starts (early
    # clock) at or after the first sample at the limit
    before = reads.full_at_s.isna() | (reads.t_s + width + late <= reads.full_at_s - 1)
    after = reads.t_s + early >= reads.full_at_s
    reads["cache"] = np.where(before, "filling", np.where(after, "full", "unclear"))
    reads = reads.drop(columns="experiment", errors="ignore").merge(runs[["run_id", "experiment"]], on="run_id")
    return reads[columns].reset_index(drop=True)


def get_fill_steps(con, fill: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Per buffered read of get_read_fill: fio's bandwidth over the whole step, the mean bandwidth of its
    buckets while the cgroup's cache was filling and once it was full (with their bucket counts), the
    cache at the step's start and its peak (MiB, memory.stat), the cgroup's charge events per GiB read
    (pgpgin: one per page or large folio entering the cache), fio's system CPU-seconds per GiB, and what
    vmstat saw (local_runs.get_step_vmstat: run queue, idle %, least free memory)."""
    if fill.empty:
        return pd.DataFrame()
    ids = fill.run_id.unique().tolist()
    by = ["run_id", "step_index"]
    per_state = fill[fill.cache.isin(CACHE_STATES)].pivot_table(
        index=by, columns="cache", values="mib_s", aggfunc=["mean", "size"])
    per_state.columns = [f"{state}_{'mib_s' if agg == 'mean' else 'buckets'}" for agg, state in per_state.columns]
    steps = local_runs.get_fio_steps(con, ids).merge(fill[by].drop_duplicates(), on=by)
    memory = get_memory(con, ids)
    cache = memory[memory.metric == "cache"].sort_values("t_s").groupby(by).mib.agg(
        cache_start_mib="first", cache_peak_mib="max")
    out = (steps.merge(per_state.reset_index(), on=by, how="left").merge(cache.reset_index(), on=by, how="left")
           .merge(get_reclaim(con, ids)[[*by, "cgroup_pgpgin_events"]], on=by, how="left")
           .merge(local_runs.get_step_vmstat(con, ids), on=by, how="left")
           .merge(runs[["run_id", "experiment", "memory_limit_mib"]], on="run_id", suffixes=("_label", "")))
    out["charges_per_gib"] = out.cgroup_pgpgin_events / out.gib
    for state in CACHE_STATES:
        for column in (f"{state}_mib_s", f"{state}_buckets"):
            if column not in out:
                out[column] = np.nan
    return out.sort_values(by).reset_index(drop=True)


def compare_fill(steps: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Buffered read bandwidth once the cgroup's cache was full over while it was filling, each step's
    bucket mean taken as one repetition (stats.ratio_row, stats.add_verdicts); one row."""
    full, filling = steps.full_mib_s.dropna(), steps.filling_mib_s.dropna()
    rows = [] if full.empty or filling.empty else [stats.ratio_row(full, filling, confidence)]
    return stats.add_verdicts(pd.DataFrame(rows, columns=stats.RATIO_COLUMNS), confidence)


def get_reads_by_run(con, run_ids_: Iterable[str], confidence: float = 0.95) -> pd.DataFrame:
    """The modes runs' sequential reads per run and mode: repetitions, geometric mean bandwidth with its
    t interval on the log scale, and the mean of fio's completion latency per 1 MiB request (ms), which
    sets a direct psync read's bandwidth (one request in flight)."""
    results = get_fio_results(con, run_ids_)
    columns = ["run_id", "mode", "repetitions", "mean", "low", "high", "clat_mean_ms"]
    if results.empty:
        return pd.DataFrame(columns=columns)
    reads = results[results.phase == "read"]
    bw = stats.intervals(reads, ["run_id", "mode"], {"bw_mib_s": "bandwidth (MiB/s)"}, confidence, log=True)
    clat = reads.groupby(["run_id", "mode"]).clat_mean_ms.mean().reset_index()
    return bw.merge(clat, on=["run_id", "mode"])[columns]


def compare_runs(con, run_ids_: Iterable[str], confidence: float = 0.95) -> pd.DataFrame:
    """Each later modes run's sequential reads over the first run's, per mode (compare_groups on the
    runs' read steps, one family), so that a buffered ÷ direct ratio that differs between runs can be
    traced to the mode whose bandwidth moved."""
    results = get_fio_results(con, run_ids_)
    columns = ["mode", "run_id", "first_run", "sample_mean", "baseline_mean", *stats.RATIO_COLUMNS]
    if results.empty or results.run_id.nunique() < 2:
        return stats.add_verdicts(pd.DataFrame(columns=columns), confidence)
    reads = results[results.phase == "read"]
    first = reads.run_id.min()
    frames = []
    for run in sorted(set(reads.run_id) - {first}):
        pair = reads[reads.run_id.isin([first, run])].assign(pair=run)
        frames.append(compare_groups(pair, ["mode", "pair"], "run_id", run, first, "bw_mib_s", confidence))
    out = pd.concat(frames, ignore_index=True).rename(columns={"pair": "run_id"}).assign(first_run=first)
    return stats.add_verdicts(out[columns], confidence)


def main_modes_run(modes: pd.DataFrame) -> str | None:
    """The modes run the chapter leads with: the latest whose buffered and direct writes both have the
    most repetitions."""
    if modes.empty:
        return None
    writes = modes[modes.phase == "write"]
    if writes.empty:
        return None
    most = writes.assign(reps=writes[["n", "n_baseline"]].min(axis=1))
    return most.sort_values(["reps", "run_id"]).run_id.iloc[-1]


def mode_row(modes: pd.DataFrame, run_id: str, phase: str, measure: str) -> pd.Series:
    """One buffered ÷ direct comparison of compare_modes."""
    return modes.set_index(["run_id", "phase", "measure"]).loc[(run_id, phase, measure)]


def modes_finding(modes: pd.DataFrame, runs: pd.DataFrame, confidence: float) -> str:
    """The chapter's first finding: how much more buffered writes swing than direct ones in the lead run."""
    run = main_modes_run(modes)
    cv = mode_row(modes, run, "write", "coefficient of variation")
    limit = runs.set_index("run_id").memory_limit_mib[run]
    return (f"Buffered writes under a {limit:,.0f} MiB cgroup varied second to second "
            + local_runs.ratio_text(cv, confidence, "as much as direct ones"))


def cpu_finding(modes: pd.DataFrame, confidence: float) -> str:
    """fio's system CPU per GiB, buffered over direct writes, in the lead run."""
    run = main_modes_run(modes)
    sys_cpu = mode_row(modes, run, "write", "fio system CPU per GiB")
    return ("Buffered writes cost fio " + local_runs.ratio_text(sys_cpu, confidence, "the system CPU per GiB of direct "
                                                                "ones") + f" ({run})")


def fill_finding(fill_steps: pd.DataFrame, compared: pd.DataFrame, confidence: float) -> str | None:
    """Why the same buffered read ran at very different rates: the cgroup's cache filling or full, with the
    slowest and the fastest run's geometric means and their CPUs' idle share (not load)."""
    if compared.empty:
        return None
    per_run = fill_steps.groupby("run_id").agg(
        bw=("bw_mib_s", lambda x: float(np.exp(np.log(x).mean()))), seconds=("runtime_s", "max"),
        peak=("cache_peak_mib", "max"), limit=("memory_limit_mib", "max"), idle=("idle_pct", "mean"))
    slow, fast = per_run.loc[per_run.bw.idxmin()], per_run.loc[per_run.bw.idxmax()]
    return ("Buffered reads ran " + local_runs.ratio_text(compared.iloc[0], confidence, "faster once fio's cgroup "
                                                           "cache was full than while it filled")
            + f"; the {slow.seconds:.0f}-s reads ({slow.bw:,.0f} MiB/s) never filled it (peak {slow.peak:,.0f} of "
              f"{slow.limit:,.0f} MiB), the {fast.seconds:.0f}-s ones ({fast.bw:,.0f}) did; CPUs idle "
              f"{slow.idle:.0f} % in the slow reads, {fast.idle:.0f} % in the fast")


def compare_read_modes(con, run_ids_: Iterable[str], bucket_ms: int, confidence: float = 0.95) -> pd.DataFrame:
    """Per modes run, buffered ÷ direct read bandwidth as compare_modes gives it (its interval, repetitions and
    verdict, Holm over the run's comparisons), for runs compared with each other."""
    ids = list(run_ids_)
    modes = compare_modes(get_steps(con, ids, get_buckets(con, ids, bucket_ms)), confidence)
    return modes[(modes.phase == "read") & (modes.measure == "bandwidth")].reset_index(drop=True)


def runs_finding(by_run: pd.DataFrame, compared: pd.DataFrame, read_modes: pd.DataFrame,
                 confidence: float) -> str | None:
    """A comparison of runs with each other, on purpose: buffered ÷ direct reads per modes run, each with its
    interval and repetitions (compare_read_modes), traced to the mode whose bandwidth moved between the runs."""
    if compared.empty or len(read_modes) < 2:
        return None
    ratios = " and ".join(f"{local_runs.ratio_text(r, confidence)} ({r.run_id})"
                          for _, r in read_modes.sort_values("run_id").iterrows())
    moved = compared.loc[(np.log(compared.ratio)).abs().idxmax()]
    held = compared.loc[(np.log(compared.ratio)).abs().idxmin()]
    clat = by_run[by_run["mode"] == moved["mode"]].set_index("run_id").clat_mean_ms
    return (f"Comparing runs with each other, superseded ones included: buffered ÷ direct reads were {ratios}; "
            f"{moved['mode']} reads moved " + local_runs.ratio_text(moved, confidence)
            + f" ({moved.run_id} over {moved.first_run}, {clat[moved.first_run]:.2f} then {clat[moved.run_id]:.2f} ms "
              f"per 1 MiB request), {held['mode']} ones " + local_runs.ratio_text(held, confidence))


def end_baseline_finding(drift: pd.DataFrame, confidence: float) -> str | None:
    """Drift over the runs read: the baselines measured again at their ends against their repetitions."""
    if drift.empty:
        return None
    return local_runs.end_baseline_text(drift, confidence, "the bandwidth of their repetitions during the run")


def get_trim_targets(con, run_ids_: Iterable[str]) -> pd.DataFrame:
    """Per trim run, the device trimmed and what lies under it (manifest facts.loop, target): the loop device,
    its image file's size, and the file system and device holding the image."""
    return con.execute(
        """
        SELECT f.run_id, any_value(f.value) FILTER (f.key = 'facts.loop.device') AS loop_device,
               any_value(f.value) FILTER (f.key = 'facts.loop.image_size') AS image_size,
               any_value(r.target_filesystem) AS image_filesystem, any_value(r.target_device) AS image_device
        FROM run_facts f JOIN runs r USING (run_id) WHERE list_contains(?, f.run_id) GROUP BY f.run_id ORDER BY f.run_id
        """,
        [list(run_ids_)]).df()


def trim_target_text(target: pd.Series) -> str:
    """The trimmed device as the manifest records it: '/dev/loop0, a loop device over an image file of 8G in ext4
    on /dev/vda'."""
    return (f"{target.loop_device}, a loop device over an image file of {target.image_size} in "
            f"{target.image_filesystem} on {target.image_device}")


def trim_finding(row: pd.Series, target: pd.Series, first_s: float, confidence: float) -> str:
    """Write bandwidth right after a trim over after none (a get_trim_effect row), said to be the backing file
    system's work: a trim of a loop device (`target`, a get_trim_targets row) punches holes in its image file,
    which the writes after it must allocate again."""
    return (f"In the first {first_s:g} s after a trim of {trim_target_text(target)}, writes ran at "
            + local_runs.ratio_text(row, confidence, "the write bandwidth after none")
            + f": the trim punches holes in the image file, so this measures {target.image_filesystem} allocating "
              "them again, not an SSD's garbage collection")


def group_finding(row: pd.Series, confidence: float, what: str, prefix: str) -> str:
    """A compare_groups row as a finding: `prefix`, then the ratio with `what` it is of, and its bracket."""
    return f"{prefix} " + local_runs.ratio_text(row, confidence, what)


def published_finding(share: pd.Series) -> str:
    """The talk's profile shares, as printed."""
    off, on = "pagecache passthrough off", "pagecache passthrough on"
    return (f"In the talk's profile of a Lustre 2.12.2 OSS, `find_or_create_page` took "
            f"{share[off, 'Find_or_create_page']:g} % "
            f"and `ofd_commitrw` {share[off, 'I/O done by ofd_commitrw']:g} %; with LU-11347's passthrough on, "
            f"`ofd_commitrw` took {share[on, 'I/O done by ofd_commitrw']:g} % {{cite:p}}`delbary2019` [one profile "
            "each, no spread]")


def _where(chart: alt.Chart, where: dict) -> alt.Chart:
    """The chart's rows whose columns take the given values. Every panel filters one shared data frame,
    so a multi-panel chart embeds (and offers for download) its data once."""
    for column, value in where.items():
        chart = chart.transform_filter(alt.FieldEqualPredicate(field=column, equal=value))
    return chart


def _interval_layers(data: pd.DataFrame, where: dict, x: alt.X, color: alt.Color, y_title: str,
                     **encodings) -> alt.LayerChart:
    """A point at each mean and a rule over its interval, for the rows of `data` selected by `where`."""
    enc = {"x": x, "color": color, **encodings}
    # log axis: the intervals are on the log scale, and with few repetitions they span a wide range
    rules = _where(alt.Chart(data), where).mark_rule(strokeWidth=2).encode(
        **{k: v for k, v in enc.items() if k != "shape"}, y=alt.Y("low:Q", title=y_title, scale=alt.Scale(type="log")),
        y2="high:Q")
    points = _where(alt.Chart(data), where).mark_point(filled=True, size=50).encode(
        **enc, y="mean:Q",
        tooltip=[*(c for c in data.columns if c not in ("mean", "low", "high", "x", "kind")),
                 alt.Tooltip("mean:Q", format=",.3g"), alt.Tooltip("low:Q", format=",.3g"),
                 alt.Tooltip("high:Q", format=",.3g")])
    return alt.layer(rules, points)


def chart_mode_costs(costs: pd.DataFrame, title: str, confidence: float = 0.95) -> alt.Chart:
    """Buffered against direct per phase: each measure's mean over the repetitions with its t interval,
    one panel per measure (own scale), runs side by side (shape)."""
    data = costs.round({"mean": 6, "low": 6, "high": 6})
    color = alt.Color("mode:N", title="I/O mode", sort=MODES, legend=alt.Legend(orient="bottom"))
    panels = [_interval_layers(data, {"measure": m}, alt.X("phase:N", title=None, sort=PHASES), color, m,
                               xOffset=alt.XOffset("run_id:N"),
                               shape=alt.Shape("run_id:N", title="run", legend=alt.Legend(orient="bottom")),
                               ).properties(width=180, height=150)
              for m in MODE_MEASURES.values() if (data.measure == m).any()]
    rows = [alt.hconcat(*panels[i:i + 2]).resolve_scale(y="independent") for i in range(0, len(panels), 2)]
    return alt.vconcat(*rows).resolve_scale(y="independent").properties(title={
        "text": title, "subtitle": [f"point: geometric mean over the repetitions; line: {confidence:.0%} t interval on the "
                                    "log scale (log axes);", "runs side by side (source: fio_io, fio_series, monitor_series)"]})


def chart_read_settings(reads: pd.DataFrame, title: str, confidence: float = 0.95) -> alt.Chart:
    """Read bandwidth by iodepth (direct, per engine) and by read-ahead (buffered), each with its
    reference series as a dashed line and band, means with t intervals."""
    data = reads[reads.measure == "bandwidth (MiB/s)"].drop(columns="measure").round(
        {"mean": 3, "low": 3, "high": 3})
    data = data.assign(kind=np.where(data.value.isna(), "reference", "varied"), x=data.value.clip(lower=1))
    color = alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom", columns=2))
    panels = []
    for experiment, x_title in [("queue-depth", "iodepth (I/Os in flight)"),
                                ("readahead", "read-ahead of the loop device (KiB, 0 drawn at 1)")]:
        values = sorted(data.loc[(data.experiment == experiment) & (data.kind == "varied"), "x"].unique())
        if not values:
            continue
        x = alt.X("x:Q", title=x_title, scale=alt.Scale(type="log"), axis=alt.Axis(values=values, format=",.0f"))
        varied = {"experiment": experiment, "kind": "varied"}
        reference = {"experiment": experiment, "kind": "reference"}
        layers = [_where(alt.Chart(data), varied).mark_line(opacity=0.5).encode(
                      x=x, y="mean:Q", color=color, detail="run_id:N"),
                  _interval_layers(data, varied, x, color, "read bandwidth (MiB/s)"),
                  _where(alt.Chart(data), reference).mark_rect(opacity=0.15).encode(y="low:Q", y2="high:Q",
                                                                                    color=color),
                  _where(alt.Chart(data), reference).mark_rule(strokeDash=[4, 3]).encode(y="mean:Q", color=color)]
        panels.append(alt.layer(*layers).properties(width=200, height=200, title=experiment))
    return alt.hconcat(*panels).properties(title={
        "text": title, "subtitle": [f"point: geometric mean over the repetitions; line: {confidence:.0%} t interval on the "
                                    "log scale (log axes);", "dashed with band: the reference read (source: fio_io, run_labels)"]})


def chart_trim_recovery(recovery: pd.DataFrame, title: str, confidence: float = 0.95) -> alt.Chart:
    """Sequential write bandwidth per second after a trim or none: the mean over the repetitions and its
    t interval as a band."""
    data = recovery.drop(columns="measure").round({"mean": 3, "low": 3, "high": 3})
    color = alt.Color("trim:N", title="before the write", sort=["trim", "none"],
                      scale=alt.Scale(domain=["trim", "none"]), legend=alt.Legend(orient="bottom"))
    x = alt.X("t_s:Q", title="seconds since the write started (s)")
    band = alt.Chart(data).mark_area(opacity=0.25).encode(x=x, y="low:Q", y2="high:Q", color=color)
    line = alt.Chart(data).mark_line(point=True).encode(
        x=x, y=alt.Y("mean:Q", title="write bandwidth (MiB/s, 1 s mean)"), color=color,
        tooltip=["run_id", "trim", "t_s", "repetitions", alt.Tooltip("mean:Q", format=",.0f"),
                 alt.Tooltip("low:Q", format=",.0f"), alt.Tooltip("high:Q", format=",.0f")])
    return alt.layer(band, line).properties(width=380, height=220).facet(
        row=alt.Row("run_id:N", title=None)).properties(title={
            "text": title, "subtitle": f"line: geometric mean over the repetitions; band: {confidence:.0%} t interval on "
                                       "the log scale (source: fio_series)"})


def chart_shared_file(steps: pd.DataFrame, title: str, confidence: float = 0.95) -> alt.Chart:
    """Bandwidth of all writers together, one shared file against one file each, one panel per mode (own
    scale): mean over the repetitions with its t interval, each repetition as a small point, runs side by
    side."""
    summary = stats.intervals(steps, ["run_id", "mode", "layout", "writers"], {"bw_mib_s": "bandwidth"}, confidence,
                              log=True)
    data = pd.concat([summary.drop(columns="measure").assign(kind="mean"),
                      steps[["run_id", "mode", "layout", "repetition", "bw_mib_s"]].rename(
                          columns={"bw_mib_s": "mean"}).assign(kind="repetition")], ignore_index=True).round(
        {"mean": 3, "low": 3, "high": 3})
    x = alt.X("layout:N", title=None, sort=["shared", "per-file"])
    color = alt.Color("layout:N", title="files", sort=["shared", "per-file"], legend=None)
    panels = []
    for mode in [m for m in MODES if m in set(steps["mode"])]:
        points = _where(alt.Chart(data), {"mode": mode, "kind": "repetition"}).mark_point(
            size=15, opacity=0.6).encode(x=x, xOffset="run_id:N", y="mean:Q", color=color)
        panels.append(alt.layer(
            _interval_layers(data, {"mode": mode, "kind": "mean"}, x, color, "write bandwidth, all writers (MiB/s)",
                             xOffset=alt.XOffset("run_id:N")), points).properties(width=170, height=200, title=mode))
    return alt.hconcat(*panels).resolve_scale(y="independent").properties(title={
        "text": title, "subtitle": [f"large point: geometric mean over the repetitions; line: {confidence:.0%} t "
                                    "interval on the log scale (log axis);", "small points: repetitions (source: fio_io)"]})


def chart_read_fill(fill: pd.DataFrame, title: str) -> alt.Chart:
    """Buffered read bandwidth second by second, coloured by the state of fio's cgroup's page cache, one
    line per read, one panel per run (log axis: the two states differ several-fold)."""
    data = fill[["run_id", "step", "repetition", "t_s", "mib_s", "cache"]].round({"mib_s": 3})
    return alt.Chart(data).mark_point(filled=True, size=25).encode(
        x=alt.X("t_s:Q", title="seconds since fio started (s)"),
        y=alt.Y("mib_s:Q", title="MiB/s (1 s mean)", scale=alt.Scale(type="log")),
        color=alt.Color("cache:N", title="cgroup page cache", sort=[*CACHE_STATES, "unclear"],
                        scale=alt.Scale(domain=[*CACHE_STATES, "unclear"]), legend=alt.Legend(orient="bottom")),
        detail="step:N",
        tooltip=["run_id", "step", "t_s", alt.Tooltip("mib_s:Q", format=",.0f", title="MiB/s"), "cache"],
    ).properties(width=420, height=110).facet(
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": title, "subtitle": "buffered sequential psync reads of one file; log axis; cache state "
                                                   "from the cgroup's memory.stat (source: fio_series, monitor_series)"})


def get_source_ids(con, run_ids: Iterable[str]) -> list[int]:
    """Every ingested file of the runs (view run_sources): manifests, fio output and logs, monitors."""
    return [int(i) for (i,) in con.execute(
        "SELECT source_id FROM run_sources WHERE list_contains(?, run_id) ORDER BY source_id", [list(run_ids)]
    ).fetchall()]


def chart_bandwidth_over_time(buckets: pd.DataFrame, bucket_ms: int, title: str) -> alt.Chart:
    """Bandwidth per bucket over each step, buffered against direct, per phase and run: lines without a point
    a bucket (a thousand points with their tooltips took a third of the page's bytes; the download has them)."""
    data = buckets[["run_id", "step_index", "step", "phase", "mode", "repetition", "t_s", "mib_s"]]
    return alt.Chart(data).mark_line().encode(
        x=alt.X("t_s:Q", title="seconds since fio started (s)"),
        y=alt.Y("mib_s:Q", title=f"bandwidth (MiB/s, {bucket_ms} ms mean)"),
        color=alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom")),
        strokeDash=alt.StrokeDash("repetition:O", title="repetition", legend=alt.Legend(orient="bottom")),
        detail="step:N",
        tooltip=["step", "mode", "repetition", alt.Tooltip("t_s:Q", title="s"),
                 alt.Tooltip("mib_s:Q", format=",.0f", title="MiB/s")],
    ).properties(width=215, height=200).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES), row=alt.Row("run_id:N", title=None),
    ).properties(title={"text": title, "subtitle": f"fio bandwidth log in {bucket_ms} ms buckets "
                                                   "(source: fio_series view)"})


def chart_memory(memory: pd.DataFrame, runs: pd.DataFrame, title: str) -> alt.Chart:
    """The cgroup's page cache, dirty and write-back MiB over each step, with the cgroup's limit dashed."""
    data = memory.drop(columns="source_id").merge(runs[["run_id", "memory_limit_mib"]], on="run_id", how="left")
    base = alt.Chart(data)
    limit = base.mark_rule(strokeDash=[4, 3], color="gray").encode(
        y="max(memory_limit_mib):Q", tooltip=[alt.Tooltip("max(memory_limit_mib):Q", title="cgroup limit (MiB)")])
    lines = base.mark_line().encode(
        x=alt.X("t_s:Q", title="seconds since the sampler started (s)"),
        y=alt.Y("mib:Q", title="MiB in the cgroup"),
        color=alt.Color("metric:N", title="memory.stat", legend=alt.Legend(orient="bottom")),
        tooltip=["step", "metric", "t_s", alt.Tooltip("mib:Q", format=",.0f", title="MiB")])
    return alt.layer(lines, limit).properties(width=230, height=120).facet(
        facet=alt.Facet("step:N", title=None, sort=alt.SortField("step_index")), columns=2,
    ).properties(title={"text": title, "subtitle": "dashed: the cgroup's memory limit (source: monitor_series, "
                                                   "cgroup memory.stat)"})
