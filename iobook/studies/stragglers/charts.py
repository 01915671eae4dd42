"""The Stragglers study's charts, one Altair chart a function, from the analysis's frames: the null model of crowded
phases against the count observed, the worst positions within a node, and every tested phase's nodes."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ...book import charts
from ...inference.evidence import flag_note
from .analysis import worst_groups

# counts of crowded phases less likely than this under random placement draw no bar (no mark, no tooltip, in the page)
SHOWN_PROBABILITY = 1e-4

def chart_null(model: dict) -> alt.Chart:
    """How many tested phases would have their slow ranks crowded on one node by chance (bars: the probability
    of each count under random placement) against the count observed (red rule)."""
    pmf = pd.DataFrame({"phases": np.arange(len(model["pmf"])), "probability": model["pmf"]})
    shown = pmf[pmf.probability > SHOWN_PROBABILITY]
    x = alt.X("phases:Q", title=f"phases of {model['tested']} with slow ranks crowded on one node",
              scale=alt.Scale(domain=[0, max(model["tested"], 1)], nice=False))
    bars = alt.Chart(shown).mark_bar(color="#7f8c8d").encode(
        x=x, y=alt.Y("probability:Q", title="probability under random placement"),
        tooltip=["phases", alt.Tooltip("probability:Q", format=".4f")])
    # the observed count as a datum on the data aggregated to one row: one mark, and no second dataset
    one = alt.Chart(shown).transform_aggregate(rows="count()")
    observed = one.mark_rule(color="#c0392b", size=2).encode(x=alt.datum(model["observed"]))
    label = one.mark_text(align="right", dx=-4, baseline="top", color="#c0392b").encode(
        x=alt.datum(model["observed"]), y=alt.value(4), text=alt.datum(f"observed: {model['observed']}"))
    return (bars + observed + label).properties(width=440, height=260, title=alt.TitleParams(
        [f"Slow ranks crowd onto one node in {model['observed']} of {model['tested']} phases;",
         f"random placement gives {model['expected']:.0f} ({model['low']}–{model['high']})"],
        subtitle="bars: the count under random placement"))


def chart_positions(positions: pd.DataFrame, n_runs: int = 3) -> alt.Chart:
    """Position within a node against the median time of the ranks at that position (one on each node)
    relative to the phase median, for the n_runs phases whose worst position stands out most; the title names the
    worst one's validity flag where it has one (`positions`' validity_flags)."""
    worst = worst_groups(positions, "position").head(n_runs)
    shown = positions[positions.run.isin(worst.run)]
    top = worst.iloc[0]
    # lines only: a point a position would put hundreds of marks, each with its tooltip, into the page
    return alt.Chart(shown).mark_line(strokeWidth=1.5).encode(
        x=alt.X("position:Q", title="position within the node (0 = the node's first rank)"),
        y=alt.Y("relative:Q", title="median over nodes / phase median", scale=alt.Scale(zero=False)),
        color=alt.Color("run:N", title=None, sort=list(worst.run), legend=alt.Legend(orient="bottom", columns=1)),
        tooltip=["run", "position", "ranks", "rank_list",
                 alt.Tooltip("median_s:Q", format=".2f", title="median rank time (s)"),
                 alt.Tooltip("relative:Q", format=".3f", title="relative to phase median")],
    ).properties(width=440, height=260, title=alt.TitleParams(
        [f"Worst position: {top.run},", f"position {top.position} of every node at {top.relative:.2f}× the median",
         *filter(None, [flag_note(top).strip()])],
        subtitle="the median over the nodes of the ranks at each position"))


EVERY_RUN_MARKS = 3  # a rule, a point and a label per phase
# a row per phase, 13 px each: 120 rows is a 1,560 px chart. 738 rows (the shared archive) took vl-convert 169 s.
EVERY_RUN_ROWS = 120
LABELS_PADDING = {"left": 40, "top": 5, "right": 24, "bottom": 5}


def chart_every_run(spread: pd.DataFrame) -> tuple[alt.Chart, str]:
    """Every phase over several nodes on one row (up to EVERY_RUN_ROWS: the phases whose slowest node stands
    out most): the range of its nodes' relative times as a line, its slowest node as a labelled point. Returns
    the chart and the sentence its caption adds when phases were left out. The title names the worst phase's
    validity flag where it has one (`spread`'s validity_flags)."""
    shown, note = charts.within_mark_cap(spread, marks_per_row=EVERY_RUN_MARKS, what="phases",
                                         max_rows=EVERY_RUN_ROWS)
    base = alt.Chart(shown).encode(y=alt.Y("run:N", sort=list(shown.run), title=None,
                                           axis=alt.Axis(labelLimit=220)))
    scale = alt.Scale(zero=False)
    ranges = base.mark_rule(color="#999").encode(
        x=alt.X("lowest:Q", scale=scale, title="node's median rank time / phase median (range over its nodes)"),
        x2="relative:Q")
    tooltip = ["run", "label", "rank_list", "nodes",
               alt.Tooltip("relative:Q", format=".3f", title="slowest node / phase median"),
               alt.Tooltip("lowest:Q", format=".3f", title="fastest node / phase median")]
    points = base.mark_point(filled=True, size=30, color="#c0392b").encode(x=alt.X("relative:Q", scale=scale),
                                                                          tooltip=tooltip)
    labels = base.mark_text(align="left", dx=6, fontSize=9).encode(x=alt.X("relative:Q", scale=scale),
                                                                   text="label:N")
    top = shown.iloc[0]
    drawn = f"{len(shown):,} of {len(spread):,}" if len(shown) < len(spread) else f"{len(spread):,}"
    # the phases' names left of the axis, measured in the chart's font and drawn wider in a browser's sans-serif:
    # room for them on the left (charts.LEGIBLE leaves it on the right only), or their first letters are cut
    chart = (ranges + points + labels).properties(width=340, height=alt.Step(13), padding=LABELS_PADDING,
                                                  title=alt.TitleParams(
        [f"The slowest node of each of {drawn} phases;", f"worst: {top.run}, {top.label} at {top.relative:.2f}×",
         *filter(None, [flag_note(top).strip()])],
        subtitle="one row per phase: its nodes' range and its slowest node"))
    return chart, note
