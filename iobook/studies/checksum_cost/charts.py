"""The Checksum study's charts, one per function: bandwidth per checksum with every round, each checksum over none
as the kit's forest, and fio's CPU per GiB."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from ...book import comparison
from ...database import collector_runs
from ...inference.evidence import Comparison
from .analysis import PHASES, verify_order

FIO_SOURCE = "source: fio_io, run_labels views"
# The measures as the forest's labels and legend name them: short, so that a row's label fits beside the axis.
SHORT_MEASURES = {"bandwidth": "bandwidth", "fio CPU per GiB": "CPU/GiB"}
# A forest's row names stand right-aligned against its axis, measured in the SVG's font; a browser's wider
# sans-serif spills them leftwards past the chart's edge: room on the left as charts.LEGIBLE keeps on the right
FOREST_PADDING = {"left": 30, "top": 5, "right": 24, "bottom": 5}


def chart_bandwidth(steps: pd.DataFrame, title: str) -> alt.Chart:
    """fio bandwidth per checksum: one point per repetition (shape: which), a bar for their geometric mean,
    per phase and mode."""
    order = verify_order(steps)
    data = steps[["run_id", "step", "phase", "mode", "verify", "repetition", "bw_mib_s", "runtime_s"]].round(
        {"bw_mib_s": 3})
    base = alt.Chart(data).encode(
        x=alt.X("verify:N", title="fio verify= (checksum)", sort=order),
        xOffset=alt.XOffset("mode:N"),
        color=alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom")))
    bars = base.mark_bar(opacity=0.4).transform_calculate(log_bw="log(datum.bw_mib_s)").transform_joinaggregate(
        mean_log="mean(log_bw)", groupby=["run_id", "phase", "mode", "verify"]).transform_calculate(
        geometric_mean="exp(datum.mean_log)").encode(y=alt.Y("max(geometric_mean):Q", title="bandwidth (MiB/s)"))
    points = base.mark_point(filled=True, size=40).encode(
        y="bw_mib_s:Q", shape=alt.Shape("repetition:N", legend=alt.Legend(orient="bottom")),
        tooltip=["run_id", "step", "repetition", alt.Tooltip("bw_mib_s:Q", format=",.0f", title="MiB/s"),
                 alt.Tooltip("runtime_s:Q", format=".2f", title="fio runtime (s)")])
    return alt.layer(bars, points).properties(width=220, height=200).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES),
        row=alt.Row("run_id:N", title=None),
    ).properties(title={"text": title, "subtitle": "points: repetitions, bars: their geometric mean; 1 MiB "
                                                   f"sequential ({FIO_SOURCE})"})


def chart_ratios(records: Sequence[Comparison], rows: pd.DataFrame, title: str) -> alt.Chart:
    """Each checksum over none, bandwidth and fio's CPU per GiB (`rows`: their phase, mode, checksum and
    measure), as the kit's forest: one row per comparison, coloured by measure."""
    short = rows.measure.map(SHORT_MEASURES)
    labels = [f"{r.phase} {r['mode']} {r.verify}: {m}" for (_, r), m in zip(rows.iterrows(), short)]
    return comparison.forest(records, labels, title=title, x_title="checksum ÷ no checksum (ratio, log scale)",
                             color=list(short), color_title="measure",
                             source="source: fio_io").properties(padding=FOREST_PADDING)


def chart_cpu(steps: pd.DataFrame, title: str) -> alt.Chart:
    """fio's user and system CPU-seconds per GiB, one stacked bar per repetition, per phase and mode."""
    long = steps.melt(id_vars=["step", "phase", "mode", "verify", "repetition", "cpu_runtime_s", "io_bytes"],
                      value_vars=["usr_cpu_pct", "sys_cpu_pct"], var_name="kind", value_name="pct")
    long["cpu_s_per_gib"] = collector_runs.cpu_s_per_gib(long.pct, long.cpu_runtime_s, long.io_bytes).round(6)
    long["kind"] = long.kind.map({"usr_cpu_pct": "user", "sys_cpu_pct": "system"})
    return alt.Chart(long.drop(columns=["pct", "cpu_runtime_s", "io_bytes"])).mark_bar().encode(
        x=alt.X("verify:N", title="fio verify= (checksum)", sort=verify_order(steps)),
        xOffset=alt.XOffset("repetition:O"),
        y=alt.Y("cpu_s_per_gib:Q", title="fio CPU-seconds per GiB", stack="zero"),
        color=alt.Color("kind:N", title="fio CPU", legend=alt.Legend(orient="bottom")),
        tooltip=["step", "kind", alt.Tooltip("cpu_s_per_gib:Q", format=".3f", title="CPU-s/GiB")],
    ).properties(width=220, height=160).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES), row=alt.Row("mode:N", title=None),
    ).properties(title={"text": title, "subtitle": "one bar per repetition (source: fio_jobs usr_cpu/sys_cpu, "
                                                   "fio_io)"})
