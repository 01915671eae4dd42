"""Lustre page-cache passthrough (LU-11347, seed 001): the published profile shares and tested configuration,
beside fio runs through the page cache (buffered) and around it (direct) made by scripts/collect_pagecache.py:
bandwidth over time, its spread, CPU per GiB, and the cgroup's dirty/write-back pages and reclaim."""
from __future__ import annotations

from collections.abc import Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import published, stats
from . import local_runs

PUBLISHED = "seed001_page_cache_facts"
PHASES = ["write", "read"]
MEMORY_METRICS = ["cache", "dirty", "writeback"]


def get_published() -> pd.DataFrame:
    """Seed 001's facts as printed: profile shares, LU-11347's tunables, the tested configuration."""
    return published.load(PUBLISHED)


def get_runs(con, run_folders: Iterable[str] | None = None) -> pd.DataFrame:
    """The pagecache runs named by run folder (all when empty, local_runs.select_runs), with the memory
    cgroup the collector made: its mechanism and its limit in MiB."""
    runs = local_runs.select_runs(con, "pagecache", run_folders)
    cgroup = con.execute(
        """
        SELECT run_id, any_value(value) FILTER (key = 'facts.cgroup.mechanism') AS cgroup,
               CAST(any_value(value) FILTER (key = 'facts.cgroup.memory_limit_bytes') AS BIGINT) / 2^20
                   AS memory_limit_mib
        FROM run_facts WHERE list_contains(?, run_id) GROUP BY run_id
        """,
        [runs.run_id.tolist()],
    ).df()
    return runs.merge(cgroup, on="run_id", how="left")


def get_buckets(con, run_ids: Iterable[str], bucket_ms: int) -> pd.DataFrame:
    """fio's 100 ms bandwidth log of each step (view fio_series, KiB/s, the phase's direction) averaged
    into buckets of bucket_ms, keeping only buckets wholly inside the job's runtime: one row per step and
    bucket, t_s = bucket start in seconds since fio started, mib_s."""
    steps = local_runs.get_step_labels(con, run_ids)
    if steps.empty:
        return pd.DataFrame(columns=["run_id", "step_index", "step", "phase", "mode", "repetition", "t_s",
                                     "mib_s", "log_entries", "log_source_id"])
    buckets = con.execute(
        """
        SELECT j.source_id, f.direction AS phase, floor(f.t_ms / ?) * ? / 1000 AS t_s,
               round(avg(f.value) / 1024, 6) AS mib_s, count(*) AS log_entries, j.source_id AS log_source_id
        FROM fio_jobs j
        JOIN fio_series f ON f.job_id = j.job_id AND f.kind = 'bw'
        WHERE list_contains(?, j.source_id) AND f.t_ms < floor(j.runtime_s * 1000 / ?) * ?
        GROUP BY ALL
        """,
        [bucket_ms, bucket_ms, steps.source_id.astype(int).tolist(), bucket_ms, bucket_ms],
    ).df()
    df = steps[["run_id", "step_index", "step", "phase", "mode", "repetition", "source_id"]].merge(
        buckets, on=["source_id", "phase"]).drop(columns="source_id")
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


def compare_modes(steps: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per run and phase: buffered over direct for fio's bandwidth, the coefficient of variation of the
    bucket means, and fio's CPU-seconds per GiB, each a ratio of means over the repetitions with its
    bootstrap interval and Welch's p (iobook.stats.ratio_of_means; NaN interval with one repetition)."""
    rows = []
    for (run_id, phase), part in steps.groupby(["run_id", "phase"], sort=True):
        buffered, direct = part[part["mode"] == "buffered"], part[part["mode"] == "direct"]
        if buffered.empty or direct.empty:
            continue
        row = {"run_id": run_id, "phase": phase, "buffered_repetitions": len(buffered),
               "direct_repetitions": len(direct)}
        for name, column in [("bw", "bw_mib_s"), ("cv", "cv"), ("cpu", "fio_cpu_s_per_gib")]:
            row[f"buffered_{name}"], row[f"direct_{name}"] = buffered[column].mean(), direct[column].mean()
            if min(len(buffered), len(direct)) < 2:
                r = (row[f"buffered_{name}"] / row[f"direct_{name}"], np.nan, np.nan, np.nan)
            else:
                res = stats.ratio_of_means(buffered[column], direct[column], confidence=confidence)
                r = (res.ratio, res.low, res.high, res.p_welch)
            row.update(dict(zip([f"{name}_ratio", f"{name}_low", f"{name}_high", f"{name}_p"], r)))
        rows.append(row)
    return pd.DataFrame(rows)


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
    """Per step, how much reclaim counters rose (last sample - first): the cgroup's pgpgout (uncharge
    events), global reclaim scanned (vmstat pgscan_kswapd + pgscan_direct), and all reclaim including
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
              AND m.metric IN ('pgpgout', 'pgscan_kswapd', 'pgscan_direct', 'pgscan_file', 'pgsteal_file')
              AND (ends_with(m.instance, '/memory.stat') OR m.instance = '/proc/vmstat')
            GROUP BY ALL
        )
        SELECT run_id, step_index, any_value(source_id) AS source_id,
               max(increase) FILTER (counter = 'cgroup pgpgout') AS cgroup_pgpgout_events,
               max(increase) FILTER (counter = 'vmstat pgscan_kswapd')
                   + max(increase) FILTER (counter = 'vmstat pgscan_direct') AS global_reclaim_scanned_pages,
               max(increase) FILTER (counter = 'vmstat pgscan_file') AS all_reclaim_scanned_file_pages,
               max(increase) FILTER (counter = 'vmstat pgsteal_file') AS all_reclaim_stolen_file_pages
        FROM counters GROUP BY ALL ORDER BY run_id, step_index
        """,
        [list(run_ids)],
    ).df()


def chart_bandwidth_over_time(buckets: pd.DataFrame, bucket_ms: int, title: str) -> alt.Chart:
    """Bandwidth per bucket over each step, buffered against direct, per phase and run."""
    return alt.Chart(buckets.drop(columns=["log_entries", "log_source_id"])).mark_line(point=True).encode(
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


def chart_spread(steps: pd.DataFrame, bucket_ms: int, title: str) -> alt.Chart:
    """Per step: the mean of its buckets (point) and their 5th-95th percentile (line)."""
    data = steps[["run_id", "step_index", "step", "mode", "bucket_mean_mib_s", "stddev_mib_s", "cv", "p5_mib_s",
                  "p95_mib_s", "fio_cpu_s_per_gib"]].round(6)
    x = alt.X("step:N", title=None, sort=alt.SortField("step_index"))
    color = alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom"))
    whiskers = alt.Chart(data).mark_rule().encode(
        x=x, y=alt.Y("p5_mib_s:Q", title=f"bandwidth (MiB/s, {bucket_ms} ms buckets)"), y2="p95_mib_s:Q",
        color=color)
    means = alt.Chart(data).mark_point(filled=True, size=60).encode(
        x=x, y="bucket_mean_mib_s:Q", color=color,
        tooltip=["run_id", "step", alt.Tooltip("bucket_mean_mib_s:Q", format=",.0f", title="mean MiB/s"),
                 alt.Tooltip("stddev_mib_s:Q", format=",.0f", title="std dev MiB/s"),
                 alt.Tooltip("cv:Q", format=".2f", title="coefficient of variation"),
                 alt.Tooltip("p5_mib_s:Q", format=",.0f", title="5th percentile MiB/s"),
                 alt.Tooltip("p95_mib_s:Q", format=",.0f", title="95th percentile MiB/s"),
                 alt.Tooltip("fio_cpu_s_per_gib:Q", format=".3f", title="fio CPU-s/GiB")])
    return alt.layer(whiskers, means).properties(width=480, height=220, title={
        "text": title, "subtitle": "point: mean of the buckets; line: 5th to 95th percentile "
                                   "(source: fio_series, fio_io views)"})


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
