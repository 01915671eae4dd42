"""The chapter's charts: the sweeps (one panel per sweep), the labels compared (the comparison kit's forest) and the
whole curves compared (one panel per curve). Panels two a row, legible within the 660 px a chart's box has at
1280 px (issue 37: 140 x 120 px panels with 10 px text)."""
from __future__ import annotations

import textwrap

import altair as alt
import pandas as pd

from ...book import comparison
from ...book.charts import tooltip_text
from ...database import source_labels
from ...inference.evidence import number
from .parameters import configuration_names

MAX_SWEEP_PANELS = 24  # ~19 KB of SVG a panel: 36 put the sweep example's page over 1.5 MB; the rest are in the table
PANEL_WIDTH, PANEL_HEIGHT = 250, 170  # two a row with their axes within the 660 px box
PANELS_A_ROW = 2
TITLE_CHARACTERS = 38  # a panel's title wrapped to its width at the theme's 11 px (iobook.book.charts.TEXT_PX)
# Vega drops tick labels closer than this (where it drops overlapping ones: log axes, and the axes that say so):
# browsers draw the SVG's text in their own, wider sans-serif ("9" and "10" ran together on the forest's axis)
LABEL_GAP_PX = 6
ROW_PX, X_AXIS_PX, LABEL_CHAR_PX = 22, 60, 5.3  # the forest's row (its alt.Step), its x axis with title, a character
WHOLE_CURVE = "over the curve"  # a curve's forest's last row: the geometric mean of its points' ratios


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
        # the panel's title names the sweep: a point's tooltip says its line, x, value and interval as the tables round
        data["tooltip"] = tooltip_text(data.assign(interval=[f"{number(a)}–{number(b)}" if pd.notna(a) else None
                                                             for a, b in zip(data["low"], data["high"])]),
                                       [("line", "line", ""), ("x_shown", x_name, ""), ("mean", measure, number),
                                        ("interval", comparison.INTERVAL, ""), ("n", "runs", "")])
        base = alt.Chart()
        layer = alt.layer(
            base.mark_line(aria=False).encode(xs, ys, color),
            base.mark_rule(clip=True, aria=False).encode(xs, alt.Y("low:Q"), alt.Y2("high:Q"), color),
            base.mark_point(filled=True, size=40).encode(xs, ys, color, description="tooltip:N"),
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
    """One forest per curve (the first MAX_SWEEP_PANELS; the comparison kit's: ratio and interval on a log axis,
    filled when decided): a row per point, its x, over the baseline label's point, and a last row for the whole
    curve's summary ratio. Issue 49: the panels drew the kit's decided fill again by hand."""
    shown = curves.head(MAX_SWEEP_PANELS)
    baseline = shown["baseline"].iloc[0]
    forests = []
    for _, c in shown.iterrows():
        mine = points[points["curve"] == c["curve"]].sort_values("x")
        rows = [f"{c['x_name']} {x}" for x in mine["x_shown"]] + [WHOLE_CURVE]
        forest = comparison.forest([*mine["record"], c["record"]], rows, title=_panel_title(c["curve"]).split("\n"),
                                   x_title=f"ratio over {baseline} (log scale)")
        # the kit's subtitle (what the intervals and fills mean) once, over the first curve
        forests.append(forest if not forests else forest.properties(title=_panel_title(c["curve"]).split("\n")))
    return legible(alt.vconcat(*forests) if len(forests) > 1 else forests[0])
