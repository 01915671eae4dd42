"""The chapter's charts: the sweeps (one panel per sweep), the labels compared (the comparison kit's forest) and the
whole curves compared (one panel per curve). Panels two a row, legible within the 660 px a chart's box has at
1280 px (issue 37: 140 x 120 px panels with 10 px text)."""
from __future__ import annotations

import textwrap

import altair as alt
import pandas as pd

from ...book import comparison
from ...database import source_labels
from ...inference import evidence
from .parameters import BYTE_PARAMETERS, SHOWN_NAMES, configuration_names

MAX_SWEEP_PANELS = 24  # ~19 KB of SVG a panel: 36 put the sweep example's page over 1.5 MB; the rest are in the table
PANEL_WIDTH, PANEL_HEIGHT = 250, 170  # two a row with their axes within the 660 px box
PANELS_A_ROW = 2
TITLE_CHARACTERS = 38  # a panel's title wrapped to its width at the theme's 11 px (iobook.book.charts.TEXT_PX)
# Vega drops tick labels closer than this (where it drops overlapping ones: log axes, and the axes that say so):
# browsers draw the SVG's text in their own, wider sans-serif ("9" and "10" ran together on the forest's axis)
LABEL_GAP_PX = 6
ROW_PX, X_AXIS_PX, LABEL_CHAR_PX = 22, 60, 5.3  # the forest's row (its alt.Step), its x axis with title, a character


def legible(chart, **legend):
    """A chart with its axis labels whole (no label cut at Vega's 180 px) and tick labels LABEL_GAP_PX apart at
    least (the book's theme sets every text to 11 px or more: iobook.book.charts.LEGIBLE); `legend`: the legends'
    placement."""
    return chart.configure_axis(labelLimit=0, labelSeparation=LABEL_GAP_PX).configure_legend(**legend)


def _panel_title(name: str) -> str:
    """A panel's title in lines that fit its width (Vega draws a list as lines): each ' · ' part a line or more."""
    return "\n".join(line for part in name.split(" · ") for line in textwrap.wrap(part, TITLE_CHARACTERS))


def _x_axis(xs: pd.Series, title: str, log: bool) -> alt.X:
    """The x axis of a group of panels: ticks at the values measured (greedy: of labels that would overlap, as 5,000
    beside 10,000 on a log axis, every other is left out), over the same span in every panel of the group."""
    values = sorted(xs.unique().tolist())
    domain = [values[0], values[-1]]
    scale = alt.Scale(type="log", nice=False, domain=domain) if log else alt.Scale(zero=False, nice=False,
                                                                                    domain=domain)
    return alt.X("x:Q", title=title, scale=scale,
                 axis=alt.Axis(values=values, labelAngle=0, labelOverlap="greedy",
                               format=",.0f" if (xs % 1 == 0).all() else ",.3~f"))


def sweep_order(sweeps: pd.DataFrame) -> pd.DataFrame:
    """Sweeps in the order they are drawn: by tool (TOOLS), mdtest's file phases before its directory and tree
    phases, then workload and label, so that panels of one workload on every label stand together."""
    phase = sweeps["workload"].map(lambda w: 2 if w.startswith("Tree ") else 1 if w.startswith("Directory ") else 0)
    keys = pd.DataFrame({"tool": sweeps["tool"].map(source_labels.TOOLS.index), "phase": phase,
                         "workload": sweeps["workload"], "label": sweeps["label"], "sweep": sweeps["sweep"]})
    return sweeps.loc[keys.sort_values(list(keys.columns)).index]


def chart_sweeps(sweeps: pd.DataFrame, points: pd.DataFrame):
    """One panel per sweep (the first MAX_SWEEP_PANELS in sweep_order): the main measure's geometric mean over the
    swept parameter, one line per combination of the other differing parameters, its interval (where the rule gives
    one: evidence.MIN_UNITS runs) as a vertical rule. Panels with the same x parameter and measure form one chart,
    each panel with its own y axis."""
    shown = sweep_order(sweeps).head(MAX_SWEEP_PANELS)
    charts = []
    for (x_name, measure, log_x), s in shown.groupby(["x", "measure", "log_x"], sort=False):
        data = points[points["sweep"].isin(s["sweep"])].drop(
            columns=["x_name", "measure", "tool", "workload", "config", "design"])
        data["title"] = data["sweep"].map(_panel_title)
        top, bottom = data["high"].fillna(data["mean"]).max(), data["low"].fillna(data["mean"]).min()
        log_y = bool(top >= 100 * bottom)  # intervals of a few repetitions span decades: a log axis keeps them readable
        xs = _x_axis(data["x"], x_name, log_x)
        ys = alt.Y("mean:Q", title=measure + (" (log scale)" if log_y else ""),
                   scale=alt.Scale(type="log") if log_y else alt.Scale(zero=True))
        color = alt.Color("line:N", title=" / ".join(s["lines"].unique()),
                          legend=alt.Legend(orient="bottom", columns=2))
        tooltip = ["sweep:N", "line:N", alt.Tooltip("x_shown:N", title=x_name),
                   alt.Tooltip("mean:Q", format=",.4g"), alt.Tooltip("low:Q", format=",.4g"),
                   alt.Tooltip("high:Q", format=",.4g"), "n:Q"]
        base = alt.Chart()
        layer = alt.layer(
            base.mark_line().encode(xs, ys, color),
            base.mark_rule(clip=True).encode(xs, alt.Y("low:Q"), alt.Y2("high:Q"), color),
            base.mark_point(filled=True, size=40).encode(xs, ys, color, tooltip=tooltip),
            data=data,
        ).properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)
        facet = alt.Facet("title:N", title=None, sort=s["sweep"].map(_panel_title).tolist(),
                          header=alt.Header(labelExpr="split(datum.value, '\\n')"))
        charts.append(layer.facet(facet=facet, columns=PANELS_A_ROW).resolve_scale(x="independent", y="independent"))
    chart = charts[0] if len(charts) == 1 else alt.vconcat(*charts).resolve_scale(color="independent").resolve_legend(
        color="independent")
    return legible(chart)


def chart_comparisons(comparisons: pd.DataFrame):
    """Each shared configuration's ratio of geometric means over the baseline label (the kit's forest: log scale,
    filled when decided), one colour per label."""
    configuration = configuration_names(comparisons)
    records = list(comparisons["record"])
    baseline = comparisons["baseline"].iloc[0]
    forest = comparison.forest(
        records, configuration, title=f"Labels over {baseline}: {comparison.range_sentence(records)}",
        x_title=f"ratio of geometric means over {baseline} (log scale)", color=list(comparisons["label"]),
        color_title="label")
    # the legend below the chart from its left edge, not from the plot's (whose left the configurations' names
    # take): a long label (the default data's is 98 characters) fits the box then
    names_px = max(map(len, configuration)) * LABEL_CHAR_PX
    below = ROW_PX * len(set(configuration)) + X_AXIS_PX
    return legible(forest, orient="none", legendX=-names_px, legendY=below, columns=1)


def chart_curves(curves: pd.DataFrame, points: pd.DataFrame):
    """One panel per curve (the first MAX_SWEEP_PANELS): each point's ratio over the baseline label's (log scale)
    with its interval as shown (evidence.as_shown), filled when decided, and the summary ratio over the curve as a
    dotted rule. Curves over the same parameter form one chart."""
    shown = curves.head(MAX_SWEEP_PANELS)
    records = [evidence.as_shown(r) for r in points["record"]]
    data = points.assign(low=[r.low for r in records], high=[r.high for r in records],
                         verdict=[str(r.verdict) for r in records])
    data = data[data["curve"].isin(shown["curve"])][["curve", "x", "x_shown", "ratio", "low", "high", "n", "n_baseline",
                                                     "verdict"]]
    data = data.merge(shown[["curve", "ratio", "x_name"]].rename(columns={"ratio": "summary"}), on="curve")
    data["title"] = data["curve"].map(_panel_title)
    y = alt.Y("ratio:Q", title=f"ratio over {shown['baseline'].iloc[0]} (log scale)", scale=alt.Scale(type="log"))
    charts = []
    for x_name, d in data.groupby("x_name", sort=False):
        title = f"{x_name} (KiB)" if x_name in {SHOWN_NAMES.get(b, b) for b in BYTE_PARAMETERS} else x_name
        x = _x_axis(d["x"], title, log=bool(d["x"].max() >= 10 * d["x"].min() > 0))
        tooltip = ["curve:N", alt.Tooltip("x_shown:N", title=x_name), alt.Tooltip("ratio:Q", format=".3g"),
                   alt.Tooltip("low:Q", format=".3g"), alt.Tooltip("high:Q", format=".3g"), "n:Q", "n_baseline:Q",
                   "verdict:N", alt.Tooltip("summary:Q", title="over the curve", format=".3g")]
        base = alt.Chart()
        layer = alt.layer(
            base.mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1)),
            base.mark_rule(strokeDash=[2, 2]).encode(y=alt.Y("summary:Q")),
            base.mark_rule().encode(x, alt.Y("low:Q"), alt.Y2("high:Q")),
            base.mark_point(size=50, strokeWidth=2).encode(x, y, tooltip=tooltip, fill=alt.condition(
                f"datum.verdict == '{evidence.Verdict.DECIDED}'", alt.value("black"), alt.value("white")),
                color=alt.value("black")),
            data=d).properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)
        order = [_panel_title(c) for c in shown["curve"] if c in set(d["curve"])]
        charts.append(layer.facet(facet=alt.Facet("title:N", title=None, sort=order,
                                                  header=alt.Header(labelExpr="split(datum.value, '\\n')")),
                                  columns=PANELS_A_ROW).resolve_scale(x="independent", y="independent"))
    return legible(charts[0] if len(charts) == 1 else alt.vconcat(*charts))
