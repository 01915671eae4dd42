"""The Snapshots study's charts, one per function: the talk's states over "No snapshot", the local rates and the
control's drift, the comparisons as the kit's forests, copy-on-write space, and the recovery after deletion."""
from __future__ import annotations

import textwrap
from collections.abc import Sequence

import altair as alt
import pandas as pd

from ...book import comparison
from ...inference import evidence
from ...inference.evidence import Comparison
from .analysis import CONTROL, DATA, OPERATIONS, stage_order
from .writes import COW_PHASES, MIB, expected_data_growth

FIO_SOURCE = "source: fio_io, run_labels views"
# A forest's row names stand right-aligned against its axis, measured in the SVG's font; a browser's wider
# sans-serif spills them leftwards past the chart's edge: room on the left as charts.LEGIBLE keeps on the right
FOREST_PADDING = {"left": 30, "top": 5, "right": 24, "bottom": 5}


def chart_seed_ratios(ratios: pd.DataFrame, title: str, source: str) -> alt.Chart:
    """Every printed state over "No snapshot" per column, coloured by the order the states ran in: published
    figures, one value each, so no interval."""
    points = alt.Chart(ratios).mark_point(filled=True, size=40).encode(
        x=alt.X("ratio:Q", title='printed rate / printed rate with "No snapshot" (ratio)', scale=alt.Scale(zero=False)),
        y=alt.Y("column:N", sort=ratios["column"].unique().tolist(), title=None),
        color=alt.Color("order:O", title="run order (1 = first snapshot state)", scale=alt.Scale(scheme="viridis"),
                        legend=alt.Legend(orient="bottom")),
        tooltip=["column", "state", alt.Tooltip("ratio:Q", format=".3f")])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, points, data=ratios).properties(width=420, height=260, title={
        "text": title, "subtitle": textwrap.wrap(f"dashed: 'No snapshot', measured once, first; source: {source}", 70)})


def chart_rates(rates: pd.DataFrame) -> alt.Chart:
    """Every round's rate by the stage it ran beside, data and control side by side, one panel per operation
    (and run, where several are read) under each other, so that a dozen stages fit the page's column at 1280 px
    (three panels side by side were cut there); the panel names the run, so the tooltips do not."""
    order = stage_order(rates.assign(stage=rates["during"]))
    runs = rates["run_id"].nunique() > 1
    data = rates.assign(panel=(rates["run_id"] + " · " if runs else "") + "file " + rates["operation"])
    panels = list(dict.fromkeys(f"{r + ' · ' if runs else ''}file {o}" for r in sorted(rates["run_id"].unique())
                                for o in OPERATIONS))
    base = alt.Chart(data).encode(x=alt.X("during:N", sort=order, title="stage (snapshots taken, then rotations)"),
                                  color=alt.Color("subvolume:N", sort=[DATA, CONTROL], title="subvolume",
                                                  legend=alt.Legend(orient="bottom")))
    points = base.mark_circle(size=40, opacity=0.6).encode(
        y=alt.Y("files_per_s:Q", title="files per second (files/s)"),
        xOffset=alt.XOffset("subvolume:N", sort=[DATA, CONTROL]),
        tooltip=["operation", "during", "subvolume", "repetition",
                 alt.Tooltip("files_per_s:Q", format=",.0f", title="files/s"),
                 alt.Tooltip("runtime_ms:Q", format=",.0f", title="fio runtime (ms)")])
    means = base.mark_line().encode(y="mean(files_per_s):Q")
    return alt.layer(points, means).properties(width=520, height=150).facet(
        facet=alt.Facet("panel:N", sort=panels, title=None, header=alt.Header(labelOrient="top", labelAnchor="start")),
        columns=1,
    ).resolve_scale(y="independent").properties(title={
        "text": "fio file metadata rate per stage on btrfs, data and control",
        "subtitle": f"points: rounds; lines: stage means ({FIO_SOURCE})"})


def chart_drift(drift: pd.DataFrame, title: str) -> alt.Chart:
    """The control's rounds over its first stage's geometric mean, by the stage they ran beside (log axis)."""
    order = stage_order(drift.assign(stage=drift["during"]))
    base = alt.Chart(drift).encode(x=alt.X("during:N", sort=order, title="stage the control ran beside"),
                                   color=alt.Color("operation:N", sort=OPERATIONS, legend=alt.Legend(orient="bottom")))
    points = base.mark_circle(size=35, opacity=0.7).encode(
        y=alt.Y("ratio:Q", title="control rate / its rate beside stage none (ratio)", scale=alt.Scale(type="log")),
        tooltip=["run_id", "operation", "during", "repetition", alt.Tooltip("ratio:Q", format=".2f"),
                 alt.Tooltip("files_per_s:Q", format=",.0f")])
    means = base.mark_line().encode(y="mean(ratio):Q")
    one = alt.Chart(drift).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return alt.layer(one, points, means).properties(width=460, height=220).facet(
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": title, "subtitle": ["points: control rounds; lines: stage means", f"({FIO_SOURCE})"]})


def _run_prefix(runs: Sequence[str]) -> list[str]:
    """'<run> · ' before each label where the chart holds more than one run, else nothing."""
    return [f"{r} · " if len(set(runs)) > 1 else "" for r in runs]


def chart_stage_ratios(records: Sequence[Comparison], keys: pd.DataFrame, title: str) -> alt.Chart:
    """Each stage's rate on data over its concurrent control (the kit's forest: log axis, filled when decided),
    one row per operation and stage, coloured by operation."""
    labels = [f"{p}{o} · stage {s}" for p, o, s in zip(_run_prefix(keys["run_id"]), keys["operation"], keys["stage"])]
    return comparison.forest(records, labels, title=title, x_title="data rate / concurrent control rate (ratio)",
                             color=list(keys["operation"]), color_title="operation",
                             source=FIO_SOURCE).properties(padding=FOREST_PADDING)


def chart_cow_latency(records: Sequence[Comparison], keys: pd.DataFrame, title: str) -> alt.Chart:
    """Write latency with k snapshots over with none (the kit's forest), one row per phase, measure and snapshot
    count, coloured by phase and measure."""
    measures = [f"{p} {m}" for p, m in zip(keys["phase"], keys["latency"])]
    labels = [f"{p}{m} · {evidence.plural(int(k), 'snapshot')}"
              for p, m, k in zip(_run_prefix(keys["run_id"]), measures, keys["snapshots"])]
    chart = comparison.forest(records, labels, title=title, x_title="latency ÷ latency with no snapshot (ratio)",
                              color=measures, color_title="completion latency",
                              source=f"fio direct 4 KiB writes on btrfs; {FIO_SOURCE}")
    return chart.properties(padding=FOREST_PADDING)


def _by_phase_and_run(layer: alt.LayerChart, title: str, subtitle: list[str]) -> alt.FacetChart:
    """The copy-on-write space chart's layout: a panel per write phase (columns) and run (rows)."""
    return layer.properties(width=200, height=220).facet(
        column=alt.Column("phase:N", sort=COW_PHASES, title=None),
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": title, "subtitle": subtitle})


def chart_cow_space(growth: pd.DataFrame, title: str) -> alt.Chart:
    """Data and metadata growth of each write step per snapshot count, beside what the data must grow by."""
    data = growth.assign(
        expected_mib=[expected_data_growth(p, k, w) / MIB for p, k, w in zip(growth["phase"], growth["snapshots"],
                                                                              growth["written"])],
        data_mib=growth["data_growth"] / MIB, metadata_mib=growth["metadata_growth"] / MIB)[
        ["run_id", "phase", "snapshots", "repetition", "expected_mib", "data_mib", "metadata_mib"]]
    long = data.melt(id_vars=["run_id", "phase", "snapshots", "repetition", "expected_mib"],
                     value_vars=["data_mib", "metadata_mib"], var_name="part", value_name="mib")
    long["part"] = long["part"].map({"data_mib": "data", "metadata_mib": "metadata"})
    x = alt.X("snapshots:O", title="snapshots present (count)")
    points = alt.Chart().mark_circle(size=30, opacity=0.6).encode(
        x=x, y=alt.Y("mib:Q", title="growth of btrfs Used per write step (MiB)"),
        color=alt.Color("part:N", title="block groups", legend=alt.Legend(orient="bottom")),
        tooltip=["phase", "snapshots", "repetition", "part", alt.Tooltip("mib:Q", format=".4f"),
                 alt.Tooltip("expected_mib:Q", format=".4f", title="data expected (MiB)")])
    expected = alt.Chart().mark_tick(thickness=2, size=22, color="black").encode(x=x, y="expected_mib:Q")
    return _by_phase_and_run(alt.layer(expected, points, data=long), title, [
        "points: each write step (data, metadata);", "black tick: the data growth copy-on-write requires",
        "(source: monitor_series, run_labels views: btrfs filesystem usage -b)"])


def chart_recovery(recovery: pd.DataFrame, summary: pd.DataFrame, title: str) -> alt.VConcatChart:
    """Space used and overwrite latency per sample after the snapshots were deleted, with the moment
    `btrfs subvolume sync` returned."""
    sync = summary[["run_id", "sync waited (s)"]].rename(columns={"sync waited (s)": "t_s"})
    x = alt.X("t_s:Q", title="seconds since the snapshots were deleted (s)")
    returned = alt.Chart(sync).mark_rule(strokeDash=[4, 3], color="gray").encode(x="t_s:Q")
    color = alt.Color("run_id:N", title=None, legend=alt.Legend(orient="bottom"))
    space = alt.Chart(recovery).mark_line(point=True).encode(
        x=x, y=alt.Y("used_mib:Q", title="btrfs Used (MiB)"), color=color,
        tooltip=["run_id", "sample", alt.Tooltip("t_s:Q", format=".1f"), alt.Tooltip("used_mib:Q", format=",.1f")])
    latency = alt.Chart(recovery).encode(x=x, color=color)
    spread = latency.mark_rule(opacity=0.5).encode(y=alt.Y("clat_p50_us:Q", title="overwrite latency (µs)",
                                                          scale=alt.Scale(type="log")), y2="clat_p99_us:Q")
    means = latency.mark_point(filled=True).encode(
        y="clat_mean_us:Q", tooltip=["run_id", "sample", alt.Tooltip("t_s:Q", format=".1f"),
                                     alt.Tooltip("clat_mean_us:Q", format=",.0f"),
                                     alt.Tooltip("clat_p50_us:Q", format=",.0f"),
                                     alt.Tooltip("clat_p99_us:Q", format=",.0f")])
    return alt.vconcat(
        alt.layer(space, returned).properties(width=460, height=160),
        alt.layer(spread, means, returned).properties(width=460, height=160),
    ).properties(title={
        "text": title,
        "subtitle": ["dashed: sync returned; points: mean latency, bars: p50 to p99 of each sample",
                     "(source: monitor_series, fio_io, run_steps views)"]})
