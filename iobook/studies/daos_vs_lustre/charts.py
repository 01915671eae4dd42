"""The DAOS versus Lustre study's charts, one per function: the comparisons by year (comparison.forest), the
families' medians, bandwidth against metadata, phases relative to the field, a few runs' phases, per client node,
and Wolf against Tianhe-2E."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ...book import comparison
from ...book.charts import ROUNDED
from ...database import families
from .analysis import FIRST, PHASES, SECOND, balance
from .nodes import TEN_CLIENTS

AXIS_PHASE = "GiB/s (ior phases) or kIOPS (mdtest, find)"
LEGEND_BELOW = {"orient": "bottom", "columns": 1, "labelLimit": 400}  # long run names, one a line


def colour(names) -> alt.Scale:
    """The book's family colours (iobook.database.families.COLOURS) for these families."""
    domain, range_ = families.colours(names)
    return alt.Scale(domain=domain, range=range_)


def chart_compare_by_year(table: pd.DataFrame, what: str) -> alt.LayerChart:
    """One row per archive year, benchmark generation and FIRST's data protection (its colour): FIRST's geometric mean
    over SECOND's with its interval (comparison.forest: none on fewer than MIN_UNITS machines, filled when decided)."""
    records = list(table.record)
    decided = [c for c in records if c.decided]
    return comparison.forest(
        records, [f"{y} {g}, {p.removesuffix(' data protection')}"
                  for y, g, p in zip(table.year, table.generation, table.protection)],
        title=(f"{FIRST} above {SECOND} in {sum(c.ratio > 1 for c in decided)} of {len(records)} comparisons, "
               f"below in {sum(c.ratio < 1 for c in decided)}"),
        x_title=f"{FIRST} / {SECOND}, {what}", color=list(table.protection), color_title=f"{FIRST} runs")


def chart_medians(med: pd.DataFrame, order: list[str]) -> alt.Chart:
    """Median score per family and archive year, one line per family (a point where a family has one year)."""
    top = med.loc[med.score.idxmax()]
    return alt.Chart(med).mark_line(point=True).encode(
        x=alt.X("period:O", sort=order, title="archive year"),
        y=alt.Y("score:Q", scale=alt.Scale(type="log"), title="median score (√(GiB/s · kIOPS))",
                axis=alt.Axis(format=ROUNDED)),
        color=alt.Color("family:N", scale=colour(med.family), legend=alt.Legend(orient="bottom", columns=4)),
        tooltip=["family", "period", "runs", alt.Tooltip("score:Q", format=".2f"),
                 alt.Tooltip("bw:Q", format=".2f", title="median bw (GiB/s)"),
                 alt.Tooltip("md:Q", format=".2f", title="median md (kIOPS)")],
    ).properties(width=440, height=280, title=alt.TitleParams(
        f"Highest median: {top.family} in {top.period} ({top.score:,.0f}, {top.runs} runs)",
        subtitle="median of the valid runs per family and archive year of this copy"))


def chart_bw_md(chosen: pd.DataFrame) -> alt.Chart:
    """Bandwidth against metadata score, one point per valid run, coloured by family."""
    ratio = balance(chosen).set_index("family").median_md_per_bw
    return alt.Chart(chosen).mark_point(filled=True, opacity=0.7).encode(
        x=alt.X("bw_gib_s:Q", scale=alt.Scale(type="log"), title="bandwidth score (GiB/s)",
                axis=alt.Axis(format=ROUNDED)),
        y=alt.Y("md_kiops:Q", scale=alt.Scale(type="log"), title="metadata score (kIOPS)",
                axis=alt.Axis(format=ROUNDED)),
        color=alt.Color("family:N", scale=colour(chosen.family), legend=alt.Legend(orient="bottom", columns=4)),
        shape=alt.Shape("family:N", legend=None),
        tooltip=["run_key", "institution", "system", "family", "period",
                 alt.Tooltip("score:Q", format=".2f"), alt.Tooltip("bw_gib_s:Q", format=".2f"),
                 alt.Tooltip("md_kiops:Q", format=".2f")],
    ).properties(width=420, height=360, title=alt.TitleParams(
        f"Highest median kIOPS per GiB/s: {ratio.idxmax()} ({ratio.max():,.1f})",
        subtitle=f"{len(chosen)} valid runs; source: io500_scores"))


def chart_phase_relative(rel: pd.DataFrame) -> alt.LayerChart:
    """Heat map of phase medians relative to the field, with the ratio printed in each cell."""
    top = rel.loc[rel.relative.idxmax()]
    base = alt.Chart(rel).encode(
        x=alt.X("phase:N", sort=PHASES, title=None), y=alt.Y("family:N", title=None),
        tooltip=["family", "phase", "runs", alt.Tooltip("family_median:Q", format=".2f"),
                 alt.Tooltip("field_median:Q", format=".2f"), alt.Tooltip("relative:Q", format=".2f")])
    cells = base.mark_rect().encode(color=alt.Color(
        "relative:Q", scale=alt.Scale(type="log", scheme="blueorange", domainMid=1),
        title="family median / field median (ratio)", legend=alt.Legend(orient="bottom", format=ROUNDED)))
    return (cells + base.mark_text(fontSize=9).encode(text=alt.Text("relative:Q", format=".1f"))).properties(
        width=460, height=max(60, 24 * rel.family.nunique()), title=alt.TitleParams(
            f"Largest lead: {top.family} in {top.phase}, {top.relative:.1f} × the field median",
            subtitle="source: io500_phases, io500_scores"))


def chart_phases(values: pd.DataFrame, title: list[str]) -> alt.Chart:
    """Phase values of a few runs as points on a log axis, one colour per run, legend below."""
    return alt.Chart(values).mark_point(filled=True, size=70).encode(
        x=alt.X("value:Q", scale=alt.Scale(type="log"), title=AXIS_PHASE, axis=alt.Axis(format=ROUNDED)),
        y=alt.Y("phase:N", sort=PHASES, title=None),
        color=alt.Color("run:N", title=None, legend=alt.Legend(**LEGEND_BELOW)),
        shape=alt.Shape("run:N", title=None),
        tooltip=["run", "phase", alt.Tooltip("value:Q", format=".3f")],
    ).properties(width=400, title=title)


def chart_per_client_node(normalised: pd.DataFrame) -> alt.Chart:
    """Per family, bandwidth against metadata score per client node, one point per run with a known client
    count; filled for the 10-node list, hollow for larger or smaller runs."""
    known = normalised[normalised.client_nodes.notna()].assign(client_nodes=lambda d: d.client_nodes.astype(int))
    med = known.groupby("family").bw_per_client_node.median()
    return alt.Chart(known).mark_point(size=50).encode(
        # powers of ten only: 170 px panels cannot hold the 2, 5 and 20 ticks of a log axis
        x=alt.X("bw_per_client_node:Q", scale=alt.Scale(type="log"), title="bandwidth per client node (GiB/s)",
                axis=alt.Axis(format=ROUNDED, tickCount=4, labelOverlap="greedy")),
        y=alt.Y("md_per_client_node:Q", scale=alt.Scale(type="log"), title="metadata per client node (kIOPS)",
                axis=alt.Axis(format=ROUNDED, tickCount=4, labelOverlap="greedy")),
        color=alt.Color("family:N", scale=colour(known.family), legend=None),
        shape=alt.Shape("list_kind:N", title=None, legend=alt.Legend(orient="bottom")),
        fill=alt.condition(alt.datum.list_kind == TEN_CLIENTS, "family:N", alt.value("transparent"),
                           scale=colour(known.family), legend=None),
        facet=alt.Facet("family:N", columns=3, title=None),
        # types stated: Altair cannot infer one from an empty column (a database without client counts)
        tooltip=["run_key:N", "institution:N", "system:N", "period:N", "client_nodes:Q", "nodes_from:N",
                 alt.Tooltip("bw_per_client_node:Q", format=".3f"), alt.Tooltip("md_per_client_node:Q", format=".2f")],
    ).properties(width=170, height=150, title=alt.TitleParams(
        f"Highest median bandwidth per client node: {med.idxmax()} ({med.max():.2f} GiB/s)" if len(med)
        else "No run here has a known client count",
        subtitle=f"{len(known)} valid runs with a known client count, every year; filled: 10 client nodes"))


def chart_wolf_tianhe(per_node: pd.DataFrame, title: list[str]) -> alt.Chart:
    """Phase values per client node of Wolf and Tianhe-2E runs, one colour per run, log axis."""
    return alt.Chart(per_node).mark_point(filled=True, size=60).encode(
        x=alt.X("per_client_node:Q", scale=alt.Scale(type="log"), title=f"per client node: {AXIS_PHASE}",
                axis=alt.Axis(format=ROUNDED)),
        y=alt.Y("phase:N", sort=PHASES, title=None),
        color=alt.Color("run:N", title=None, legend=alt.Legend(**LEGEND_BELOW)),
        shape=alt.Shape("system:N", title=None),
        tooltip=["run", "phase", alt.Tooltip("value:Q", format=".3f"),
                 alt.Tooltip("per_client_node:Q", format=".4f")],
    ).properties(width=400, title=title)
