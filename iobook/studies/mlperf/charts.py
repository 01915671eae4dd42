"""The MLPerf Storage study's charts, one per function, from the analysis's frames: each run's AU margin, each run's
share of its hosts' links against the hosts, and each result's MiB/s per simulated accelerator beside the rate its
workload's config allows."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ...inference import evidence
from .analysis import AU_MARGIN

BENCHMARK = alt.Y("benchmark:N", title=None, sort="ascending")
WORKLOAD = alt.Color("workload:N", title="workload", legend=alt.Legend(orient="bottom"))


def chart_au_margin(runs: pd.DataFrame, within: evidence.Count) -> alt.Chart:
    """One point per run: its AU above its workload's minimum, in points, by workload and accelerator type; a rule at
    one point (au_within_one_point)."""
    data = runs[["result", "run", "benchmark", "workload", "au_mean_pct", "au_min_pct", "au_margin"]]
    points = alt.Chart(data).mark_point(filled=True, opacity=0.5, size=30).encode(
        x=alt.X("au_margin:Q", title="AU above the workload's minimum (points)"), y=BENCHMARK, color=WORKLOAD,
        tooltip=["result", "run", alt.Tooltip("au_mean_pct:Q", format=".2f", title="AU (%)"),
                 alt.Tooltip("au_min_pct:Q", title="minimum (%)"),
                 alt.Tooltip("au_margin:Q", format=".2f", title="margin (points)")])
    rule = alt.Chart(pd.DataFrame({"au_margin": [AU_MARGIN]})).mark_rule(strokeDash=[4, 3], color="gray").encode(
        x="au_margin:Q")
    return (rule + points).properties(width=460, title=alt.TitleParams(
        f"{within.k:,} of {within.n:,} runs meet their AU minimum by less than {AU_MARGIN:g} point",
        subtitle="source: mlperf_runs (DLIO's train_au_mean_percentage); dashed: one point"))


def chart_links(runs: pd.DataFrame, reaching: evidence.Count) -> alt.Chart:
    """One point per run whose system's description states its clients' links: the share of them it read against its
    hosts (log axis)."""
    data = runs[runs.link_share.notna()][["result", "run", "benchmark", "workload", "hosts", "mb_per_s",
                                          "client_link_gbps", "link_share"]]
    return alt.Chart(data).mark_point(filled=True, opacity=0.6, size=40).encode(
        x=alt.X("hosts:Q", scale=alt.Scale(type="log"), title="client hosts"),
        y=alt.Y("link_share:Q", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1]),
                title="share of the hosts' links read"),
        color=WORKLOAD,
        tooltip=["result", "run", "benchmark", "hosts", alt.Tooltip("mb_per_s:Q", format=",.0f", title="MiB/s"),
                 alt.Tooltip("client_link_gbps:Q", title="Gbit/s a host"),
                 alt.Tooltip("link_share:Q", format=".1%", title="of links")],
    ).properties(width=460, height=280, title=alt.TitleParams(
        f"{reaching.k:,} of {reaching.n:,} runs read at least half of their hosts' links",
        subtitle="source: mlperf_runs, mlperf_systems (links as each system's description states them)"))


def chart_per_accelerator(results: pd.DataFrame, workloads: pd.DataFrame) -> alt.Chart:
    """One point per result: its mean MiB/s per simulated accelerator, by workload and accelerator type (log axis),
    with a tick at the rate the workload's config allows at 100 % AU."""
    data = results[["result", "benchmark", "workload", "accelerators", "per_accelerator"]]
    full = workloads.assign(benchmark=workloads.workload + " " + workloads.accelerator.fillna(""))[
        ["benchmark", "full_au"]]
    x = alt.X("per_accelerator:Q", scale=alt.Scale(type="log"), title="MiB/s per simulated accelerator")
    points = alt.Chart(data).mark_point(filled=True, opacity=0.6, size=40).encode(
        x=x, y=BENCHMARK, color=WORKLOAD,
        tooltip=["result", "accelerators", alt.Tooltip("per_accelerator:Q", format=",.0f", title="MiB/s each")])
    ticks = alt.Chart(full).mark_tick(color="black", thickness=2, size=18).encode(
        x=alt.X("full_au:Q", scale=alt.Scale(type="log")), y=BENCHMARK,
        tooltip=["benchmark", alt.Tooltip("full_au:Q", format=",.0f", title="MiB/s at 100 % AU")])
    return (points + ticks).properties(width=460, title=alt.TitleParams(
        "MiB/s per accelerator is set by the workload and accelerator type",
        subtitle="source: mlperf_runs; black tick: the config's record x batch / computation time (100 % AU)"))
