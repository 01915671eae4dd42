"""The page-cache study's frames from the database (queries/*.sql, database.collector_runs): the runs of each experiment with
their memory cgroup, fio's steps and bandwidth logs, the cgroup's memory and reclaim counters, each buffered read's
seconds by the state of the cgroup's cache, and what each buffered write left dirty for the step after it."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ...database import collector_runs, published, store
from ...inference.units import GIB

PUBLISHED = "seed001_page_cache_facts"
STUDY = "pagecache"
# Runs collected before the collector had experiments carry no `experiment` label: they are `modes` runs.
DEFAULT_EXPERIMENT = "modes"
MEMORY_METRICS = ["cache", "dirty", "writeback"]
# Experiments whose buffered reads are sequential 1 MiB psync reads of the same kind of file (the readahead
# experiment reads a loop device instead).
FILE_READ_EXPERIMENTS = ["modes", "queue-depth"]
# The proc sampler starts 1 s before its step (scripts/collectlib.py, Monitors' settle_s) and fio's clock up to
# about a second after the step: fio's bucket [t, t + w) lies within [t + 1, t + w + 2) of the sampler's clock.
SAMPLER_LEAD_S = (1.0, 2.0)
FULL_SHARE = 0.95  # of the cgroup's memory limit, at which its page cache counts as full
# fio's first second is its start-up (it logs fewer of its 100 ms entries there): left out of a step's spread, which
# is the steady swing of dirty pages cycling against the limit (issue 46: the CV counted it)
RAMP_UP_S = 1.0
CACHE_STATES = ["filling", "full"]


def get_published() -> pd.DataFrame:
    """Seed 001's facts as printed: profile shares, LU-11347's tunables, the tested configuration."""
    return published.load(PUBLISHED)


def select_runs(con, run_folders: Iterable[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the pagecache runs the chapter reads, by default the current run of each experiment
    (collector_runs.select_current: the newest made with the newest collector design), else those named by run
    folder; with their `experiment` (the manifest label; 'modes' for runs made before it existed) and the
    memory cgroup the collector made: its mechanism and its limit in MiB. `status`: every run's."""
    runs, status = collector_runs.select_current(con, STUDY, run_folders, "experiment", DEFAULT_EXPERIMENT)
    cgroup = store.frame(con, __package__, "run_cgroup", [runs.run_id.tolist()])
    experiment = status.groupby("run_id").experiment.first().reset_index()
    runs = runs.merge(cgroup, on="run_id", how="left").merge(experiment, on="run_id", how="left")
    runs["experiment"] = runs.experiment.fillna(DEFAULT_EXPERIMENT)
    return runs, status


def run_ids(runs: pd.DataFrame, experiment: str) -> list[str]:
    """The run ids of one experiment."""
    return runs.loc[runs.experiment == experiment, "run_id"].tolist()


def get_buckets(con, ids: Iterable[str], bucket_ms: int) -> pd.DataFrame:
    """fio's bandwidth logs of each step (queries/bandwidth_buckets.sql) with the step's labels: one row per step
    and bucket, t_s = bucket start in seconds since fio started, mib_s."""
    steps = collector_runs.get_step_labels(con, ids)
    columns = ["run_id", "step_index", "step", "phase", "t_s", "mib_s", "log_entries", "log_source_id"]
    if steps.empty or "phase" not in steps:
        return pd.DataFrame(columns=columns)
    buckets = store.frame(con, __package__, "bandwidth_buckets",
                          [bucket_ms, bucket_ms, steps.source_id.astype(int).tolist(), bucket_ms, bucket_ms])
    df = steps.drop(columns=["step_s", "file"]).merge(buckets, on=["source_id", "phase"]).drop(columns="source_id")
    if "repetition" in df:
        df["repetition"] = df.repetition.astype(int)
    return df.sort_values(["run_id", "step_index", "t_s"]).reset_index(drop=True)


def get_steps(con, ids: Iterable[str], buckets: pd.DataFrame) -> pd.DataFrame:
    """One row per fio step (collector_runs.get_fio_steps: bandwidth, CPU per GiB, machine CPU) with the
    spread of its bucket means from RAMP_UP_S on: count, mean, sample standard deviation, coefficient of variation
    (standard deviation / mean), 5th and 95th percentile, lowest."""
    steps = collector_runs.get_fio_steps(con, ids)
    if steps.empty:
        return steps
    spread = buckets[buckets.t_s >= RAMP_UP_S].groupby(["run_id", "step_index"]).mib_s.agg(
        buckets="size", bucket_mean_mib_s="mean", stddev_mib_s="std", p5_mib_s=lambda x: x.quantile(0.05),
        p95_mib_s=lambda x: x.quantile(0.95), min_mib_s="min").reset_index()
    spread["cv"] = spread.stddev_mib_s / spread.bucket_mean_mib_s
    return steps.merge(spread, on=["run_id", "step_index"], how="left")


def get_memory(con, ids: Iterable[str]) -> pd.DataFrame:
    """The memory cgroup's page cache, dirty and write-back MiB per step and second (queries/memory.sql)."""
    return store.frame(con, __package__, "memory", [list(ids), MEMORY_METRICS])


def get_reclaim(con, ids: Iterable[str]) -> pd.DataFrame:
    """Per step, how much the reclaim counters rose (queries/reclaim.sql)."""
    return store.frame(con, __package__, "reclaim", [list(ids)])


def get_fio_results(con, ids: Iterable[str], end_baseline: bool = False) -> pd.DataFrame:
    """One row per fio step of the runs (collector_runs.get_fio_steps) with every job summed: bandwidth
    (bw_mib_s), bytes (gib), fio's system CPU-seconds per GiB, mean completion latency over the jobs
    (clat_mean_ms), jobs; labels kept. `end_baseline`: the baseline's steps at the end of the run instead."""
    steps = collector_runs.get_fio_steps(con, ids, end_baseline=end_baseline)
    if steps.empty:
        return steps
    clat = store.frame(con, __package__, "completion_latency", [steps.source_id.astype(int).unique().tolist()])
    labels = [c for c in steps.columns if c not in collector_runs.FIO_STEP_MEASURES]
    steps = steps.assign(sys_cpu_s=steps.sys_cpu_pct / 100 * steps.cpu_runtime_s)
    summed = steps.groupby(labels, dropna=False, sort=False).agg(
        jobs=("bw_bytes_s", "size"), bw_bytes_s=("bw_bytes_s", "sum"), io_bytes=("io_bytes", "sum"),
        runtime_s=("runtime_s", "max"), sys_cpu_s=("sys_cpu_s", "sum")).reset_index()
    summed["bw_mib_s"] = summed.bw_bytes_s / 2**20
    summed["gib"] = summed.io_bytes / GIB
    summed["fio_sys_cpu_s_per_gib"] = summed.sys_cpu_s / summed.gib
    return summed.merge(clat, on=["source_id", "phase"], how="left").sort_values(
        ["run_id", "step_index"]).reset_index(drop=True)


def get_trim_targets(con, ids: Iterable[str]) -> pd.DataFrame:
    """Per trim run, the loop device trimmed, its image file's size, and the file system and device holding the
    image (queries/trim_targets.sql)."""
    return store.frame(con, __package__, "trim_targets", [list(ids)])


def get_source_ids(con, ids: Iterable[str]) -> list[int]:
    """Every ingested file of the runs (queries/run_sources.sql)."""
    return [int(i) for i in store.frame(con, __package__, "run_sources", [list(ids)]).source_id]


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
    vmstat saw (collector_runs.get_step_vmstat: run queue, idle %, least free memory)."""
    if fill.empty:
        return pd.DataFrame()
    ids = fill.run_id.unique().tolist()
    by = ["run_id", "step_index"]
    per_state = fill[fill.cache.isin(CACHE_STATES)].pivot_table(
        index=by, columns="cache", values="mib_s", aggfunc=["mean", "size"])
    per_state.columns = [f"{state}_{'mib_s' if agg == 'mean' else 'buckets'}" for agg, state in per_state.columns]
    steps = collector_runs.get_fio_steps(con, ids).merge(fill[by].drop_duplicates(), on=by)
    memory = get_memory(con, ids)
    cache = memory[memory.metric == "cache"].sort_values("t_s").groupby(by).mib.agg(
        cache_start_mib="first", cache_peak_mib="max")
    out = (steps.merge(per_state.reset_index(), on=by, how="left").merge(cache.reset_index(), on=by, how="left")
           .merge(get_reclaim(con, ids)[[*by, "cgroup_pgpgin_events"]], on=by, how="left")
           .merge(collector_runs.get_step_vmstat(con, ids), on=by, how="left")
           .merge(runs[["run_id", "experiment", "memory_limit_mib"]], on="run_id", suffixes=("_label", "")))
    out["charges_per_gib"] = out.cgroup_pgpgin_events / out.gib
    for state in CACHE_STATES:
        for column in (f"{state}_mib_s", f"{state}_buckets"):
            if column not in out:
                out[column] = np.nan
    return out.sort_values(by).reset_index(drop=True)


def get_dirty_left(con, runs: pd.DataFrame) -> pd.DataFrame:
    """Per buffered write step of the runs (the baseline measured again at the end included: its write-back reaches
    the drift check after it), the cgroup's dirty MiB at the first sample of the step after it: what the write,
    which ends without fsync, left to write back while the next step ran. With the run's experiment and memory
    limit and the next step's name."""
    columns = ["run_id", "experiment", "step_index", "step", "next_step", "dirty_mib", "memory_limit_mib"]
    ids = runs.run_id.tolist()
    labels = pd.concat([collector_runs.get_step_labels(con, ids), collector_runs.get_step_labels(con, ids, end_baseline=True)])
    if labels.empty or not {"phase", "mode"} <= set(labels):
        return pd.DataFrame(columns=columns)
    writes = labels[(labels.phase == "write") & (labels["mode"] == "buffered")].drop_duplicates(["run_id", "step_index"])
    if writes.empty:
        return pd.DataFrame(columns=columns)
    memory = get_memory(con, writes.run_id.unique().tolist())
    first = (memory[memory.metric == "dirty"].sort_values("t_s").groupby(["run_id", "step_index"])
             .agg(next_step=("step", "first"), dirty_mib=("mib", "first")).reset_index())
    first["step_index"] -= 1  # the step before
    left = writes[["run_id", "step_index", "step"]].merge(first, on=["run_id", "step_index"]).merge(
        runs[["run_id", "experiment", "memory_limit_mib"]], on="run_id")
    return left[columns].sort_values(["run_id", "step_index"]).reset_index(drop=True)
