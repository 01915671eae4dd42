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

from .. import evidence, present, published
from ..report import Finding, Report, Table
from ..units import GIB
from . import local_runs

PUBLISHED = "seed001_page_cache_facts"
PHASES = ["write", "read"]
MODES = ["buffered", "direct"]
MEMORY_METRICS = ["cache", "dirty", "writeback"]
EXPERIMENTS = ["modes", "queue-depth", "readahead", "trim", "shared-file"]
# Runs collected before the collector had experiments carry no `experiment` label: they are `modes` runs.
DEFAULT_EXPERIMENT = "modes"
TRIM_QUANTITY = "write bandwidth, after a trim ÷ after none"
SHARED_QUANTITY = "write bandwidth, one shared file ÷ one file each"


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


# buffered ÷ direct: measure -> (column of get_steps, unit)
MODE_RATIOS = {"bandwidth": ("bw_mib_s", "MiB/s"), "coefficient of variation": ("cv", "1"),
               "fio system CPU per GiB": ("fio_sys_cpu_s_per_gib", "CPU-s/GiB")}
RECORD_KEYS = ["run_id", "phase", "measure", "record"]


def compare_modes(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, phase and measure (MODE_RATIOS: fio's bandwidth, the coefficient of variation of its
    bucket means, fio's system CPU-seconds per GiB): buffered over direct, rounds as units, a run's
    comparisons one family (runs of different designs never pooled); undecided until evidence.decide.
    Columns RECORD_KEYS."""
    rows = []
    for (run_id, phase), part in steps.groupby(["run_id", "phase"], sort=True) if len(steps) else ():
        buffered, direct = part[part["mode"] == "buffered"], part[part["mode"] == "direct"]
        for measure, (column, unit) in MODE_RATIOS.items() if len(buffered) and len(direct) else ():
            rows.append({"run_id": run_id, "phase": phase, "measure": measure, "record": evidence.compare(
                buffered[column].to_numpy(), direct[column].to_numpy(), quantity=f"{phase} {measure}, buffered ÷ "
                "direct", unit=unit, replicate=evidence.Replicate.ROUND, family=f"{run_id}: buffered ÷ direct",
                label=f"buffered {phase}s", baseline_label=f"direct {phase}s")})
    return pd.DataFrame(rows, columns=RECORD_KEYS)


def mode_record(modes: pd.DataFrame, run_id: str, phase: str, measure: str):
    """One buffered ÷ direct comparison of compare_modes (its record)."""
    return modes.set_index(["run_id", "phase", "measure"]).record[(run_id, phase, measure)]


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


def get_mode_costs(steps: pd.DataFrame, reclaim: pd.DataFrame) -> pd.DataFrame:
    """Buffered and direct per run and phase: fio bandwidth, the coefficient of variation of the bucket
    means, fio's system CPU-seconds per GiB and the cgroup's pgpgout events per GiB moved, each estimated
    over the rounds (estimates)."""
    df = steps.merge(reclaim[["run_id", "step_index", "cgroup_pgpgout_events"]], on=["run_id", "step_index"],
                     how="left")
    df["cgroup_pgpgout_per_gib"] = df.cgroup_pgpgout_events / df.gib
    return estimates(df, ["run_id", "phase", "mode"], MODE_MEASURES)


def estimates(df: pd.DataFrame, by: list[str], measures: dict[str, str]) -> pd.DataFrame:
    """Per group of `by` and measure (`measures`: column -> name shown), the geometric mean over the rounds
    with its interval (evidence.estimate), long format: repetitions, mean, low, high; no interval where the
    rounds cannot tell (evidence.as_shown)."""
    rows = []
    for keys, part in df.groupby(by, sort=True) if len(df) else ():
        for column, name in measures.items():
            values = part[column].dropna().to_numpy(dtype=float)
            if not len(values):
                continue
            e = evidence.as_shown(evidence.estimate(values, quantity=name, unit="", replicate=evidence.Replicate.ROUND))
            rows.append({**dict(zip(by, keys if isinstance(keys, tuple) else (keys,))), "measure": name,
                         "repetitions": e.n, "mean": e.value, "low": np.nan if e.low is None else e.low,
                         "high": np.nan if e.high is None else e.high})
    return pd.DataFrame(rows, columns=[*by, "measure", "repetitions", "mean", "low", "high"])


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


def get_read_settings(con, depth_runs: Iterable[str], readahead_runs: Iterable[str]) -> pd.DataFrame:
    """Sequential read bandwidth by setting, geometric mean over the rounds with its interval (estimates): the
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
    out = estimates(df, ["run_id", "experiment", "series", "value_key"],
                    {"bw_mib_s": "bandwidth (MiB/s)", "clat_mean_ms": "completion latency (ms)",
                     "fio_sys_cpu_s_per_gib": "fio system CPU (s/GiB)"})
    out["value"] = out.pop("value_key").replace(-1, np.nan)
    return out


def get_trim_recovery(buckets: pd.DataFrame) -> pd.DataFrame:
    """The trim runs' sequential writes after a trim or none: per run, condition and second, the geometric
    mean bandwidth over the rounds with its interval (estimates)."""
    if "trim" not in buckets:
        return estimates(pd.DataFrame(columns=["run_id", "trim", "t_s", "mib_s"]), ["run_id", "trim", "t_s"], {})
    after = buckets[buckets.phase == "write"]
    return estimates(after, ["run_id", "trim", "t_s"], {"mib_s": "bandwidth (MiB/s)"})


def compare_groups(df: pd.DataFrame, by: list[str], label: str, sample: str, baseline: str, column: str,
                   quantity: str, unit: str = "MiB/s") -> pd.DataFrame:
    """Per group of `by` (its first key the run): `column` of the rows whose `label` is `sample` over those
    whose label is `baseline`, rounds as units, a run's comparisons of one quantity one family; with the
    geometric means `sample_mean` and `baseline_mean`. Undecided until evidence.decide."""
    rows = []
    for keys, part in df.groupby(by, sort=True) if len(df) else ():
        keys = keys if isinstance(keys, tuple) else (keys,)
        a, b = part.loc[part[label] == sample, column], part.loc[part[label] == baseline, column]
        if a.empty or b.empty:
            continue
        rows.append({**dict(zip(by, keys)), "sample_mean": evidence.geometric_mean(a),
                     "baseline_mean": evidence.geometric_mean(b), "record": evidence.compare(
                         a.to_numpy(), b.to_numpy(), quantity=quantity, unit=unit, replicate=evidence.Replicate.ROUND,
                         family=f"{keys[0]}: {quantity}", label=" ".join(str(k) for k in (*keys[1:], sample)),
                         baseline_label=" ".join(str(k) for k in (*keys[1:], baseline)))})
    return pd.DataFrame(rows, columns=[*by, "sample_mean", "baseline_mean", "record"])


def get_trim_effect(buckets: pd.DataFrame, first_s: float) -> pd.DataFrame:
    """Write bandwidth after a trim over that after none, per run, for the first `first_s` seconds and
    for the whole step: per round the mean of its buckets, then compare_groups."""
    if "trim" not in buckets:
        return compare_groups(pd.DataFrame(columns=["run_id", "window", "trim", "mib_s"]), ["run_id", "window"],
                              "trim", "trim", "none", "mib_s", TRIM_QUANTITY)
    after = buckets[buckets.phase == "write"]
    rows = []
    for window, part in [(f"first {first_s:g} s", after[after.t_s < first_s]), ("whole step", after)]:
        per_rep = part.groupby(["run_id", "trim", "repetition"]).mib_s.mean().reset_index()
        per_rep["window"] = window
        rows.append(per_rep)
    per_rep = pd.concat(rows, ignore_index=True)
    return compare_groups(per_rep, ["run_id", "window"], "trim", "trim", "none", "mib_s", TRIM_QUANTITY)


def get_shared_file(con, run_ids: Iterable[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The shared-file runs' writes: per step the bandwidth of all writers summed (get_fio_results), and
    per run and mode one file shared by the writers over one file per writer (compare_groups)."""
    steps = get_fio_results(con, run_ids)
    if steps.empty:
        return steps, compare_groups(pd.DataFrame(columns=["run_id", "mode", "layout", "bw_mib_s"]),
                                     ["run_id", "mode"], "layout", "shared", "per-file", "bw_mib_s", SHARED_QUANTITY)
    steps = steps[steps.phase == "write"].reset_index(drop=True)
    return steps, compare_groups(steps, ["run_id", "mode"], "layout", "shared", "per-file", "bw_mib_s",
                                 SHARED_QUANTITY)


# The labels that name a configuration the collector measures again at the end of a run (drift_check=end).
END_BASELINE_CONFIG = ["phase", "mode", "ioengine", "iodepth", "layout", "trim"]


def compare_end_baseline(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """Drift: per run and configuration measured again at the end (END_BASELINE_CONFIG), its bandwidth (all
    jobs summed) over that configuration's rounds during the run, a family per run; with the run's experiment,
    the configuration as text and both geometric means. The end step is never among the rounds."""
    during, end = get_fio_results(con, run_ids), get_fio_results(con, run_ids, end_baseline=True)
    rows = []
    config = [c for c in END_BASELINE_CONFIG if c in end]
    for _, last in end.groupby(["run_id", *config], dropna=False, sort=True) if len(end) else ():
        first = last.iloc[0]
        keys = {c: first[c] for c in config if not pd.isna(first[c])}
        match = during.run_id == first.run_id
        for c, v in keys.items():
            match &= during[c] == v if c in during else False
        base = during.loc[match, "bw_mib_s"]
        if base.empty:
            continue
        configuration = ", ".join(f"{c} {v}" for c, v in keys.items())
        rows.append({"run_id": first.run_id, "experiment": first.get("experiment", DEFAULT_EXPERIMENT),
                     "configuration": configuration, "during_mean": evidence.geometric_mean(base),
                     "end_mean": evidence.geometric_mean(last.bw_mib_s), "record": evidence.compare(
                         last.bw_mib_s.to_numpy(), base.to_numpy(), quantity="bandwidth at the end ÷ during the run",
                         unit="MiB/s", replicate=evidence.Replicate.ROUND, family=f"{first.run_id}: drift",
                         label=f"{configuration} at the end", baseline_label=f"{configuration} during the run")})
    out = pd.DataFrame(rows, columns=["run_id", "experiment", "configuration", "during_mean", "end_mean", "record"])
    return out.assign(experiment=out.experiment.fillna(DEFAULT_EXPERIMENT))


# Experiments whose buffered reads are sequential 1 MiB psync reads of the same kind of file (the readahead
# experiment reads a loop device instead).
FILE_READ_EXPERIMENTS = ["modes", "queue-depth"]
# The proc sampler starts 1 s before its step (scripts/collectlib.py, Monitors' settle_s) and fio's clock up to
# about a second after the step: fio's bucket [t, t + w) lies within [t + 1, t + w + 2) of the sampler's clock.
SAMPLER_LEAD_S = (1.0, 2.0)
FULL_SHARE = 0.95  # of the cgroup's memory limit, at which its page cache counts as full
FILLED_QUANTITY = "buffered reads of {run} after which the cgroup's cache was full"
FILLING_QUANTITY = "buffered reads of {run} that filled the cgroup's cache while they ran"
DIRTY_LEFT_SHARE = 0.05  # of the cgroup's limit: dirty pages a buffered write leaves to the next step
DIRTY_QUANTITY = "buffered writes leaving dirty pages to the next step"
SATURATED_IDLE_PCT = 1  # vmstat's idle CPU at or below which the machine had no CPU to spare
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


def compare_fill(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run (each collector run its own experiment, never pooled), buffered read bandwidth once the cgroup's cache
    was full over while it was filling, paired by read: each read that had seconds in both states gives one ratio of
    its bucket means (a read that was full throughout is in no pair), tested against 1 (compare_to_reference: the
    one-sample t of the log ratios). Columns run_id, experiment, record."""
    rows = []
    for run_id, part in steps.groupby("run_id", sort=True) if len(steps) else ():
        paired = part[part.full_mib_s.notna() & part.filling_mib_s.notna()]
        if len(paired):
            rows.append({"run_id": run_id, "experiment": part.experiment.iloc[0], "record": evidence.compare_to_reference(
                (paired.full_mib_s / paired.filling_mib_s).to_numpy(), 1.0,
                quantity="buffered read bandwidth, full ÷ filling cache, paired by read", unit="MiB/s",
                replicate=evidence.Replicate.ROUND, family=f"{run_id}: cache", label="seconds with the cache full",
                reference_label="the same read's seconds while it filled")})
    return pd.DataFrame(rows, columns=["run_id", "experiment", "record"])


def filled_counts(steps: pd.DataFrame) -> dict:
    """Per run, a census of its buffered reads: how many brought the cgroup's cache to FULL_SHARE of its limit
    (FILLED_QUANTITY), and how many filled it during the read (seconds both filling and full: FILLING_QUANTITY)."""
    if not len(steps):
        return {}
    return {run_id: (evidence.count(int((part.cache_peak_mib >= FULL_SHARE * part.memory_limit_mib).sum()), len(part),
                                    quantity=FILLED_QUANTITY.format(run=run_id), of=evidence.Replicate.ROUND),
                     evidence.count(int((part.full_mib_s.notna() & part.filling_mib_s.notna()).sum()), len(part),
                                    quantity=FILLING_QUANTITY.format(run=run_id), of=evidence.Replicate.ROUND))
            for run_id, part in steps.groupby("run_id", sort=True)}


def get_dirty_left(con, steps: pd.DataFrame) -> pd.DataFrame:
    """Per buffered write step (`steps`: get_steps), the cgroup's dirty MiB at the first sample of the step
    after it: what the write, which ends without fsync, left to write back while the next step ran."""
    writes = steps[(steps.phase == "write") & (steps["mode"] == "buffered")]
    if writes.empty:
        return pd.DataFrame(columns=["run_id", "step_index", "step", "next_step", "dirty_mib", "memory_limit_mib"])
    memory = get_memory(con, writes.run_id.unique().tolist())
    first = (memory[memory.metric == "dirty"].sort_values("t_s").groupby(["run_id", "step_index"])
             .agg(next_step=("step", "first"), dirty_mib=("mib", "first")).reset_index())
    first["step_index"] -= 1  # the step before
    return writes[["run_id", "step_index", "step"]].merge(first, on=["run_id", "step_index"])


def dirty_count(left: pd.DataFrame, limit_mib: float):
    """A census of the buffered writes: how many left more than DIRTY_LEFT_SHARE of the cgroup's limit dirty
    for the next step (DIRTY_QUANTITY)."""
    return evidence.count(int((left.dirty_mib > DIRTY_LEFT_SHARE * limit_mib).sum()), len(left),
                          quantity=DIRTY_QUANTITY, of=evidence.Replicate.ROUND)


def get_reads_by_run(con, run_ids_: Iterable[str]) -> pd.DataFrame:
    """The modes runs' sequential reads per run and mode: rounds, geometric mean bandwidth with its interval
    (estimates), and the mean of fio's completion latency per 1 MiB request (ms), which sets a direct psync
    read's bandwidth (one request in flight)."""
    results = get_fio_results(con, run_ids_)
    columns = ["run_id", "mode", "repetitions", "mean", "low", "high", "clat_mean_ms"]
    if results.empty:
        return pd.DataFrame(columns=columns)
    reads = results[results.phase == "read"]
    bw = estimates(reads, ["run_id", "mode"], {"bw_mib_s": "bandwidth (MiB/s)"})
    clat = reads.groupby(["run_id", "mode"]).clat_mean_ms.mean().reset_index()
    return bw.merge(clat, on=["run_id", "mode"])[columns]


def modes_finding(record, limit_mib: float) -> str:
    """The chapter's first finding: how much more buffered writes swing than direct ones in the modes run read."""
    return (f"In the VM, buffered writes under a {limit_mib:,.0f} MiB cgroup varied second to second {evidence.phrase(record)} "
            "as much as direct ones")


def fill_finding(compared: pd.DataFrame, filled: dict, idle_max_pct: float) -> str:
    """Buffered reads once the cgroup's cache was full over while it filled, per run, paired by read, with how many
    of its reads left it full and how many filled it while they ran; the confound of a read's first seconds, and
    the machine's saturation, which leaves load neither excluded nor measured."""
    per_run = "; ".join(f"{r.experiment} run {evidence.phrase(r.record)}: {evidence.phrase(filled[r.run_id][1])} "
                        f"filled it while they ran, {evidence.phrase(filled[r.run_id][0])} left it full"
                        for r in compared.itertuples())
    return (f"Buffered reads ran faster once fio's cgroup cache was full ({FULL_SHARE:.0%} of its limit) than while "
            f"it filled, read by read: {per_run}. Filling is always a read's first seconds, when fio ramps up and "
            f"read-ahead grows, so those may make the difference as well as the cache; the CPUs were never idle (at "
            f"most {idle_max_pct:.0f} %), so load is neither excluded nor measured as a cause")


def dirty_finding(record, left: pd.DataFrame) -> str:
    """What buffered writes, which end without fsync, left dirty for the step after them."""
    return (f"Buffered writes end without fsync: in {evidence.phrase(record)} more than {DIRTY_LEFT_SHARE:.0%} of the "
            f"cgroup's limit was still dirty when the next step started ({left.dirty_mib.iloc[0]:,.0f} MiB after the "
            f"first write, up to {left.dirty_mib.max():,.0f})")


def runs_text(side: pd.DataFrame) -> str:
    """Buffered ÷ direct reads of each modes run, side by side (each run decided within itself)."""
    return "; ".join(f"{r.run_id} ({r.status}): {evidence.phrase(r.record)}" for r in side.itertuples())


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


def trim_finding(record, target: pd.Series, first_s: float) -> str:
    """Write bandwidth right after a trim over after none (a get_trim_effect row), said to be the backing file
    system's work: a trim of a loop device (`target`, a get_trim_targets row) punches holes in its image file,
    which the writes after it must allocate again."""
    return (f"In the first {first_s:g} s after a trim of {trim_target_text(target)}, writes ran at "
            f"{evidence.phrase(record)} the write bandwidth after none"
            + f": the trim punches holes in the image file, so this measures {target.image_filesystem} allocating "
              "them again, not an SSD's garbage collection")


def shared_finding(records: dict, writers: int) -> str:
    """N writers to one shared file over one file each, per mode."""
    return "; ".join(f"{writers} {mode} writers to one shared file: {evidence.phrase(r)} the bandwidth of one file each"
                     for mode, r in records.items())


def published_finding(share: pd.Series) -> Finding:
    """The talk's profile shares, as printed; each printed share is its record."""
    off, on = "pagecache passthrough off", "pagecache passthrough on"
    printed = ((off, "Find_or_create_page"), (off, "I/O done by ofd_commitrw"), (on, "I/O done by ofd_commitrw"))
    figures = tuple(evidence.described(share[mode, row], quantity=f"{row}, {mode}", unit="% of profile", n=1,
                                       replicate=evidence.Replicate.PUBLISHED, how="one figure the slide prints")
                    for mode, row in printed)
    return Finding(text=f"The talk's profile of a Lustre 2.12.2 OSS: `find_or_create_page` "
                        f"{share[off, 'Find_or_create_page']:g} %, `ofd_commitrw` {share[off, 'I/O done by ofd_commitrw']:g} %; "
                        f"with LU-11347's passthrough on, `ofd_commitrw` {share[on, 'I/O done by ofd_commitrw']:g} % "
                        "{cite:p}`delbary2019` [one profile each, no spread]", target="tab-pagecache-published",
                   evidence=figures)


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


def chart_mode_costs(costs: pd.DataFrame, title: str) -> alt.Chart:
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
        "text": title, "subtitle": [f"point: geometric mean over the repetitions; line: {evidence.CONFIDENCE:.0%} t interval on the "
                                    "log scale (log axes);", "runs side by side (source: fio_io, fio_series, monitor_series)"]})


def chart_read_settings(reads: pd.DataFrame, title: str) -> alt.Chart:
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
        "text": title, "subtitle": [f"point: geometric mean over the repetitions; line: {evidence.CONFIDENCE:.0%} t interval on the "
                                    "log scale (log axes);", "dashed with band: the reference read (source: fio_io, run_labels)"]})


def chart_trim_recovery(recovery: pd.DataFrame, title: str) -> alt.Chart:
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
            "text": title, "subtitle": f"line: geometric mean over the repetitions; band: {evidence.CONFIDENCE:.0%} t interval on "
                                       "the log scale (source: fio_series)"})


def chart_shared_file(steps: pd.DataFrame, title: str) -> alt.Chart:
    """Bandwidth of all writers together, one shared file against one file each, one panel per mode (own
    scale): mean over the repetitions with its t interval, each repetition as a small point, runs side by
    side."""
    summary = estimates(steps, ["run_id", "mode", "layout", "writers"], {"bw_mib_s": "bandwidth"})
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
        "text": title, "subtitle": [f"large point: geometric mean over the repetitions; line: {evidence.CONFIDENCE:.0%} t "
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


# The columns of a comparisons table a reader sees (local_runs.record_frame), intervals as shown (evidence.as_shown).
SHOWN = {"run_id": "run", "status": "status", "experiment": "experiment", "phase": "phase", "measure": "measure",
         "mode": "mode", "window": "window", "configuration": "configuration", "sample_mean": "sample (MiB/s)",
         "baseline_mean": "baseline (MiB/s)", "during_mean": "during (MiB/s)", "end_mean": "end (MiB/s)",
         "ratio": "ratio", "low": "low", "high": "high", "n": "n", "n_baseline": "n baseline",
         "p_adjusted": "Holm p", "verdict": "verdict"}
SHOWN_FORMATS = {"ratio": ".3g", "low": ".3g", "high": ".3g", "Holm p": ".2g", "sample (MiB/s)": ",.0f",
                 "baseline (MiB/s)": ",.0f", "during (MiB/s)": ",.0f", "end (MiB/s)": ",.0f"}


def shown(rows: pd.DataFrame) -> Table:
    """Decided comparison rows as a table (SHOWN columns), each as shown (local_runs.record_frame)."""
    frame = local_runs.record_frame(rows.dropna(axis=1, how="all"))
    return Table(frame=frame[[c for c in SHOWN if c in frame]].rename(columns=SHOWN), formats=SHOWN_FORMATS)


def interval_table(frame: pd.DataFrame, formats: dict[str, str], **names: str) -> Table:
    """An estimates frame as a table, columns renamed by `names`."""
    return Table(frame=frame.rename(columns=names), formats=formats)


def pick(rows: pd.DataFrame, mask) -> pd.DataFrame:
    """The rows of a decided frame where `mask` (a function of a record) holds."""
    return rows[rows.record.map(mask)] if len(rows) else rows


def report(con, *, run_folders: Iterable[str] = (), bucket_ms: int = 1000, first_s: float = 5) -> Report:
    """The chapter: the talk's published profile, then the VM demonstration of the method on the build machine,
    experiment by experiment (the current run of each; the modes runs' reads side by side), every verdict by
    evidence.decide."""
    facts = get_published()
    share = facts[facts.unit == "% of profile"].set_index(["row", "column"])["value"]
    runs, status = select_runs(con, run_folders)
    values = {"published_slides": "; ".join(f"'{s}'" for s in sorted({s.split(': ', 1)[1] for s in facts.source})),
              "min_units": evidence.MIN_UNITS, "confidence_pct": 100 * evidence.CONFIDENCE, "bucket_ms": bucket_ms,
              "full_pct": 100 * FULL_SHARE, "first_s": first_s}
    tables = {"tab-pagecache-published": Table(frame=facts[["row", "column", "printed", "unit"]].rename(
        columns={"column": "column on the slide"}))}
    figures, findings, counts = {}, [], []

    # 1. buffered against direct; and every modes run's reads side by side (superseded ones too)
    modes_ids = run_ids(runs, "modes")
    every_modes = status.loc[(status.experiment == "modes") & (status.selected | (not list(run_folders))), "run_id"]
    all_steps = get_steps(con, every_modes.tolist(), get_buckets(con, every_modes.tolist(), bucket_ms))
    buckets = get_buckets(con, modes_ids, bucket_ms)
    steps = all_steps[all_steps.run_id.isin(modes_ids)] if len(all_steps) else all_steps
    # 1b. the same buffered read with the cgroup's cache filling or full, per run
    fill = get_read_fill(con, runs, bucket_ms)
    fill_steps = get_fill_steps(con, fill, runs)
    # 3., 4. trim and shared file
    trim_buckets = get_buckets(con, run_ids(runs, "trim"), bucket_ms)
    shared, shared_rows = get_shared_file(con, run_ids(runs, "shared-file"))
    rows = local_runs.decide_rows(pd.concat([
        compare_modes(all_steps).assign(kind="modes"), compare_fill(fill_steps).assign(kind="fill"),
        get_trim_effect(trim_buckets, first_s).assign(kind="trim"), shared_rows.assign(kind="shared"),
        compare_end_baseline(con, runs.run_id).assign(kind="drift")], ignore_index=True))
    records = list(rows.record)

    values["has_modes"] = has_modes = not steps.empty
    if has_modes:
        modes = rows[(rows.kind == "modes") & rows.run_id.isin(modes_ids)]
        lead = max(modes_ids)
        limit = float(runs.set_index("run_id").memory_limit_mib[lead])
        cv, sys_cpu = (mode_record(modes, lead, "write", m) for m in ("coefficient of variation",
                                                                      "fio system CPU per GiB"))
        findings.append(Finding(text=modes_finding(cv, limit), target="tab-pagecache-modes", evidence=(cv,)))
        memory, reclaim = get_memory(con, modes_ids), get_reclaim(con, modes_ids)
        first = steps[(steps.repetition == 1) & (steps.run_id == lead)][["run_id", "step_index"]]
        first_memory = memory.merge(first, on=["run_id", "step_index"])
        peaks = memory.pivot_table(index=["run_id", "step_index"], columns="metric", values="mib", aggfunc="max")
        table = reclaim.merge(steps[["run_id", "step_index", "step", "mode", "gib"]], on=["run_id", "step_index"]).merge(
            peaks.add_prefix("peak_").reset_index(), on=["run_id", "step_index"], how="left")
        table["pgpgout_per_gib"] = table.cgroup_pgpgout_events / table.gib
        buffered_pgpgout = table[table["mode"] == "buffered"].cgroup_pgpgout_events
        left = get_dirty_left(con, steps[steps.run_id == lead])
        dirty = dirty_count(left, limit)
        counts.append(dirty)
        side = pick(rows[rows.kind == "modes"], lambda r: r.quantity == "read bandwidth, buffered ÷ direct").merge(
            status[["run_id", "status"]], on="run_id")
        values |= {
            "lead_run": lead, "buckets": len(buckets), "log_entries": int(buckets.log_entries.sum()),
            "mode_steps": len(steps), "mode_runs": steps.run_id.nunique(), "cpu_text": evidence.phrase(sys_cpu),
            "global_scan_max": float(table.global_reclaim_scanned_pages.max()),
            "pgpgout_low": float(buffered_pgpgout.min()), "pgpgout_high": float(buffered_pgpgout.max()),
            "dirty_left_first_mib": float(left.dirty_mib.iloc[0]), "dirty_left_max_mib": float(left.dirty_mib.max()),
            "dirty_text": dirty_finding(dirty, left), "runs_text": runs_text(side),
            "has_runs_compared": len(side) > 1}
        figures |= {
            "fig-pagecache-overtime": chart_bandwidth_over_time(
                buckets, bucket_ms, f"Buffered writes swing {cv.ratio:.2f}× as much as direct ones, second to second"),
            "fig-pagecache-modes": chart_mode_costs(
                get_mode_costs(steps, reclaim), f"Through the page cache, writes cost {sys_cpu.ratio:.2f}× the system "
                f"CPU per GiB ({sys_cpu.verdict})"),
            "fig-pagecache-memory": chart_memory(
                first_memory, runs, f"Dirty pages in fio's cgroup peak at "
                f"{first_memory[first_memory.metric == 'dirty'].mib.max():,.0f} MiB ({lead}, first round)")}
        tables |= {
            "tab-pagecache-modes": shown(modes),
            "tab-pagecache-steps": Table(
                frame=steps[["run_id", "step", "bw_mib_s", "cv", "p5_mib_s", "p95_mib_s", "fio_sys_cpu_s_per_gib",
                             "busy_cpus_before"]].rename(columns={
                    "run_id": "run", "bw_mib_s": "MiB/s", "cv": "CV", "p5_mib_s": "5th pct", "p95_mib_s": "95th pct",
                    "fio_sys_cpu_s_per_gib": "sys s/GiB", "busy_cpus_before": "busy CPUs before"}),
                formats={"MiB/s": ",.0f", "CV": ".3f", "5th pct": ",.0f", "95th pct": ",.0f", "sys s/GiB": ".3f",
                         "busy CPUs before": ".2f"}),
            "tab-pagecache-dirty": Table(frame=left.drop(columns=["step_index"]).rename(columns={
                "run_id": "run", "step": "buffered write", "next_step": "next step", "dirty_mib": "dirty at its start (MiB)"}),
                formats={"dirty at its start (MiB)": ",.0f"}),
            "tab-pagecache-reclaim": Table(
                frame=table[["run_id", "step", "cgroup_pgpgout_events", "pgpgout_per_gib", "global_reclaim_scanned_pages",
                             "all_reclaim_scanned_file_pages", "peak_cache", "peak_dirty"]].rename(columns={
                    "run_id": "run", "cgroup_pgpgout_events": "pgpgout", "pgpgout_per_gib": "pgpgout/GiB",
                    "global_reclaim_scanned_pages": "global scan", "all_reclaim_scanned_file_pages": "pgscan_file",
                    "peak_cache": "cache (MiB)", "peak_dirty": "dirty (MiB)"}),
                formats={c: ",.0f" for c in ["pgpgout", "pgpgout/GiB", "global scan", "pgscan_file", "cache (MiB)",
                                             "dirty (MiB)"]}),
            "tab-pagecache-reads-by-run": interval_table(
                get_reads_by_run(con, every_modes.tolist()), {"MiB/s": ",.0f", "low": ",.0f", "high": ",.0f",
                                                               "ms per request": ".3f"},
                run_id="run", repetitions="n", mean="MiB/s", clat_mean_ms="ms per request"),
            "tab-pagecache-runs-compared": shown(side)}
    else:
        values["has_runs_compared"] = False

    fill_rows = rows[rows.kind == "fill"]
    values["has_fill"] = has_fill = not fill_rows.empty
    if has_fill:
        filled = filled_counts(fill_steps)
        counts += [c for pair in filled.values() for c in pair]
        idle_max = float(fill_steps.idle_pct.max())
        said_fill = fill_finding(fill_rows, filled, idle_max)
        findings.append(Finding(text=said_fill, target="fig-pagecache-fill",
                                evidence=(*fill_rows.record, *(c for pair in filled.values() for c in pair))))
        values |= {"fill_text": said_fill, "free_min_gib": float(fill_steps.free_gib.min()),
                   "reads_idle_max_pct": idle_max, "reads_saturated": idle_max <= SATURATED_IDLE_PCT}
        figures["fig-pagecache-fill"] = chart_read_fill(
            fill, f"Buffered reads: {fill_steps.filling_mib_s.median():,.0f} MiB/s while the cgroup's cache fills, "
                  f"{fill_steps.full_mib_s.median():,.0f} once it is full (medians of the reads)")
        tables["tab-pagecache-fill"] = Table(
            frame=fill_steps[["run_id", "repetition", "bw_mib_s", "filling_mib_s", "full_mib_s", "cache_start_mib",
                              "cache_peak_mib", "charges_per_gib", "fio_sys_cpu_s_per_gib", "idle_pct",
                              "run_queue"]].rename(columns={
                "run_id": "run", "repetition": "round", "bw_mib_s": "MiB/s", "filling_mib_s": "filling",
                "full_mib_s": "full", "cache_start_mib": "cache at start", "cache_peak_mib": "peak",
                "charges_per_gib": "charges/GiB", "fio_sys_cpu_s_per_gib": "sys s/GiB", "idle_pct": "idle %",
                "run_queue": "run queue"}),
            formats={"MiB/s": ",.0f", "filling": ",.0f", "full": ",.0f", "cache at start": ",.0f", "peak": ",.0f",
                     "charges/GiB": ",.0f", "sys s/GiB": ".2f", "idle %": ".0f", "run queue": ".1f"})
    if has_modes:
        findings.append(Finding(text=values["dirty_text"], target="tab-pagecache-dirty", evidence=(dirty,)))

    # 2. reads by queue depth and read-ahead
    reads = get_read_settings(con, run_ids(runs, "queue-depth"), run_ids(runs, "readahead"))
    read_bw = reads[reads.measure == "bandwidth (MiB/s)"]
    values["has_reads"] = has_reads = not read_bw.empty
    if has_reads:
        qd = read_bw[(read_bw.experiment == "queue-depth") & read_bw.value.notna()]
        title = (f"Direct reads: {qd[qd.value == qd.value.min()]['mean'].max():,.0f} MiB/s at depth "
                 f"{qd.value.min():.0f}, {qd['mean'].max():,.0f} at the best depth (geometric means)"
                 if not qd.empty else "Buffered reads by read-ahead")
        wide = reads.pivot(index=["run_id", "experiment", "series", "value"], columns="measure",
                           values=["repetitions", "mean", "low", "high"])
        wide.columns = [f"{m} {s}" for s, m in wide.columns]
        wide = wide.reset_index()
        bw, lat = "bandwidth (MiB/s)", "completion latency (ms)"
        figures["fig-pagecache-reads"] = chart_read_settings(reads, title)
        tables["tab-pagecache-reads"] = Table(
            frame=wide[["run_id", "series", "value", f"{bw} repetitions", f"{bw} mean", f"{bw} low", f"{bw} high",
                        f"{lat} mean"]].rename(columns={
                "run_id": "run", "value": "depth or KiB", f"{bw} repetitions": "n", f"{bw} mean": "MiB/s",
                f"{bw} low": "low", f"{bw} high": "high", f"{lat} mean": "latency (ms)"}),
            formats={"depth or KiB": ",.0f", "MiB/s": ",.0f", "low": ",.0f", "high": ",.0f", "latency (ms)": ".3f"})

    trim = rows[rows.kind == "trim"]
    values["has_trim"] = has_trim = not trim.empty
    if has_trim:
        latest = trim[trim.run_id == trim.run_id.max()].set_index("window")
        t = latest.record[f"first {first_s:g} s"]
        target = get_trim_targets(con, [trim.run_id.max()]).iloc[0]
        findings.append(Finding(text=trim_finding(t, target, first_s), target="fig-pagecache-trim", evidence=(t,)))
        values["trim_target"] = trim_target_text(target)
        figures["fig-pagecache-trim"] = chart_trim_recovery(
            get_trim_recovery(trim_buckets), f"First {first_s:g} s after a trim: {t.ratio:.2f}× the write bandwidth "
                                             f"after none, {t.verdict}")
        tables["tab-pagecache-trim"] = shown(trim)

    shared_rows = rows[rows.kind == "shared"]
    values["has_shared"] = has_shared = not shared_rows.empty
    if has_shared:
        writers = int(shared.writers.astype(int).max())
        latest = shared_rows[shared_rows.run_id == shared_rows.run_id.max()].set_index("mode").record
        by_mode = {m: latest[m] for m in MODES if m in latest.index}
        findings.append(Finding(text=shared_finding(by_mode, writers), target="fig-pagecache-shared",
                                evidence=tuple(by_mode.values())))
        values["writers"] = writers
        figures["fig-pagecache-shared"] = chart_shared_file(
            shared, "One shared file: " + ", ".join(f"{m} {r.ratio:.2f}×" for m, r in by_mode.items())
            + " the bandwidth of one file each")
        tables["tab-pagecache-shared"] = shown(shared_rows)

    drift = rows[rows.kind == "drift"]
    values["has_drift"] = has_drift = not drift.empty
    if has_drift:
        values["drift_text"] = "; ".join(f"{r.run_id}, {r.configuration}: {evidence.phrase(r.record)}" for r in drift.itertuples())
        tables["tab-pagecache-drift"] = shown(drift)

    findings.append(published_finding(share))
    values["has_data"] = has_data = bool(has_modes or has_reads or has_trim or has_shared or has_fill)
    values["no_data"] = not has_data
    if has_data:
        values |= {"runs": len(runs), "experiments": ", ".join(
                       f"{n} {e}" for e, n in runs.experiment.value_counts().sort_index().items()),
                   "files_link": present.files_link(present.sources(con, get_source_ids(con, runs.run_id)).path,
                                               "The files behind the local figures")}
        tables |= {"tab-pagecache-status": Table(frame=local_runs.status_table(status)),
                   "tab-pagecache-runs": Table(
                       frame=runs[["run_folder", "experiment", "kernel", "target_filesystem", "load_avg_1m",
                                   "memory_limit_mib"]].rename(columns={
                           "run_folder": "run", "target_filesystem": "file system", "load_avg_1m": "load (1 min)",
                           "memory_limit_mib": "cgroup limit (MiB)"}),
                       formats={"load (1 min)": ".2f", "cgroup limit (MiB)": ",.0f"})}
    else:
        values["no_data_note"] = present.no_data(
            "fio page-cache runs (scripts/collect_pagecache.py)",
            "Make some on a Linux machine with fio where you may create a memory cgroup (root, or systemd): "
            "`python3 scripts/collect_pagecache.py` (from the repository root; `--help` for its options) writes a "
            'run folder under `data/raw/pagecache/`; then `make book DATA="data/raw your/runs"` ingests it and '
            "rebuilds this chapter.")
    return Report(values=values, tables=tables, figures=figures, findings=findings[:6], evidence=records + counts)
