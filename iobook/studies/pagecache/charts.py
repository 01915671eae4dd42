"""The page-cache study's charts, one Altair chart per function, from the analysis's frames: estimates over the
rounds as points with their intervals (log axes: the intervals are on the log scale), bandwidth and memory over
time, each buffered read's seconds by the state of the cgroup's cache."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ...inference import evidence
from .analysis import MODE_MEASURES, estimates
from .data import CACHE_STATES

PHASES = ["write", "read"]
MODES = ["buffered", "direct"]


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
                               ).properties(width=180, height=180)
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
        y="max(memory_limit_mib):Q",
        tooltip=[alt.Tooltip("max(memory_limit_mib):Q", format=",.0f", title="cgroup limit (MiB)")])
    lines = base.mark_line().encode(
        x=alt.X("t_s:Q", title="seconds since the sampler started (s)"),
        y=alt.Y("mib:Q", title="MiB in the cgroup"),
        color=alt.Color("metric:N", title="memory.stat", legend=alt.Legend(orient="bottom")),
        tooltip=["step", "metric", alt.Tooltip("t_s:Q", format=".0f", title="s"),
                 alt.Tooltip("mib:Q", format=",.0f", title="MiB")])
    return alt.layer(lines, limit).properties(width=230, height=120).facet(
        facet=alt.Facet("step:N", title=None, sort=alt.SortField("step_index")), columns=2,
    ).properties(title={"text": title, "subtitle": "dashed: the cgroup's memory limit (source: monitor_series, "
                                                   "cgroup memory.stat)"})
