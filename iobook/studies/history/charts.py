"""The History study's charts: each history's runs over time with its change points, and each IO500 system's score
over its archive submissions."""
from __future__ import annotations

import textwrap

import altair as alt
import pandas as pd

from ...book import present
from ...book.charts import tooltip_text
from ...inference import evidence
from ...inference.change_points import MEASURES

IO500_PANELS_A_ROW, IO500_PANEL_WIDTH = 2, 250  # three of 200 px with their axes were cut at 1280 px
# A history's panels, two a row within the ~700 px of a chart's box at 1280 px (460 px panels, one a row, with their
# legends beside them were cut there)
PANELS_A_ROW, PANEL_WIDTH, PANEL_HEIGHT = 2, 250, 110
ACCURACY_WIDTH = 520  # with its legends below it (beside it, they were cut at 1280 px)
PANEL_TITLE_CHARACTERS = 44  # a panel's title wrapped to its width at the theme's 12 px headers
# The y axis of a history's panels, per measure: column shown, its title, factor from get_runs' column.
CHART_MEASURES = {"bw_bytes_s": ("MiB_s", "bandwidth (MiB/s, log)", 2**-20), "p99_ns": ("p99_ms", "clat p99 (ms, log)", 1e-6),
                  "ops_s": ("ops_s", "rate (ops/s, log)", 1.0)}


NO_BW_LOG = "no bw log"
# a decided change point drawn solid and black, an undecided one dashed and grey: the search found it, the rule did not
DECIDED, NOT_DECIDED = "decided", "not decided"
CHANGE_DASHES = alt.Scale(domain=[DECIDED, NOT_DECIDED], range=[[1, 0], [4, 3]])


def _panel_title(history: str, runs: int) -> str:
    """A panel's title in lines of PANEL_TITLE_CHARACTERS (Vega draws each line apart: labelExpr splits them)."""
    return "\n".join(textwrap.wrap(f"{history}, {runs:,} runs", PANEL_TITLE_CHARACTERS))


def chart_history(runs: pd.DataFrame, changes: pd.DataFrame, column: str = "bw_bytes_s") -> alt.FacetChart:
    """Every run's value of one measure (`column`) in the order the runs started (x: the run's number in its history,
    its start time in the tooltip: runs come in bursts days apart, which a time axis drew as two clumps), one panel
    per history that has it (titled by its name and runs; two a row within the page's column), fio runs marked steady
    or not where a bw log says so, that measure's change points as rules between the last run before and the first
    after: decided solid and black, undecided dashed and grey. One legend for the whole chart."""
    shown, title_y, factor = CHART_MEASURES[column]
    quantity = MEASURES[column][0]
    known = runs[runs[column] > 0]
    sizes = known.groupby("history").size()
    points = pd.DataFrame({
        "history": known.history.map(lambda h: _panel_title(h, sizes[h])), "run": known.run, "started": known.started,
        shown: known[column] * factor, "kind": "run",
        # steadiness is known only from a bw log: a run without one is neither steady nor not
        "state": [NO_BW_LOG if pd.isna(s) else "steady" if s else "not steady" for s in known.steady]})
    # no change point found: history_changes adds no record columns
    at = changes[changes.measure == quantity].reindex(columns=[*changes.columns, *(["verdict"] * ("verdict" not in changes))])
    rules = pd.DataFrame({
        "history": [_panel_title(h, sizes[h]) for h in at.history], "run": at.run - 0.5, "first": at.run,
        "started": at.started, "kind": "change",
        "change point": [DECIDED if v == evidence.Verdict.DECIDED else NOT_DECIDED for v in at.verdict]})
    # the panel's title names the history: a mark's tooltip says which run, when, and its value as the tables round it
    points["tooltip"] = tooltip_text(points.assign(at=points.started.dt.strftime("%Y-%m-%d %H:%M:%S")), [
        ("run", "run", ""), ("at", "started", ""), (shown, title_y.replace(", log", ""), present.significant(4)), ("state", "bw log", "")])
    rules["tooltip"] = tooltip_text(rules.assign(at=pd.to_datetime(rules.started).dt.strftime("%Y-%m-%d %H:%M:%S")), [
        ("change point", "change point", ""), ("first", "first run after", ""), ("at", "started", "")])
    # the start times are in the tooltips: as a column, a history without change points left them Timestamps in an
    # object column, which no chart spec can hold (JSON)
    data = pd.concat([points, rules], ignore_index=True).drop(columns="started")
    # the axes' titles once, in the chart's title: each panel repeated them
    order = alt.X("run:Q", title=None, scale=alt.Scale(zero=False, nice=False),
                  axis=alt.Axis(format="d", tickMinStep=1, grid=False))
    base = alt.Chart()
    layer = alt.layer(
        base.mark_point(filled=True).transform_filter("datum.kind == 'run'").encode(
            order, alt.Y(f"{shown}:Q", scale=alt.Scale(type="log"), title=None, axis=alt.Axis(grid=False)),
            shape=alt.Shape("state:N", title="bw log"), color=alt.Color("state:N", title="bw log"),
            description="tooltip:N"),
        base.mark_rule().transform_filter("datum.kind == 'change'").encode(
            order, strokeDash=alt.StrokeDash("change point:N", scale=CHANGE_DASHES),
            color=alt.condition(f"datum['change point'] == '{DECIDED}'", alt.value("black"), alt.value("#999999")),
            description="tooltip:N"),
        data=data).properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)
    header = alt.Header(labelExpr="split(datum.value, '\\n')")
    title = f"{title_y.replace(', log', '')}, log scale, against each run's number in its history"
    return (layer.facet(facet=alt.Facet("history:N", title=None, header=header, sort=list(dict.fromkeys(points.history))),
                        columns=PANELS_A_ROW)
            .resolve_scale(x="independent", y="independent").properties(title=title)
            .configure_legend(orient="bottom", direction="horizontal"))


def chart_io500(submissions: pd.DataFrame, changes: pd.DataFrame) -> alt.FacetChart:
    """Each system's score at every archive submission, one panel per system (and score rule, where the systems have
    several), on a log scale against when the run started; change points of the score as dashed rules."""
    rules = submissions.score_rule.nunique() > 1
    data = submissions.assign(
        history=[textwrap.fill(f"{s} ({r})" if rules else s, 40) for s, r in zip(submissions.system, submissions.score_rule)],
        change=[(s, r, t) in set(zip(*(changes[changes.measure == "IO500 score"][c]
                                      for c in ("system", "score rule", "started"))))
                for s, r, t in zip(submissions.system, submissions.score_rule, submissions.started)])
    data = data.assign(tooltip=tooltip_text(data.assign(at=data.started.dt.strftime("%Y-%m-%d %H:%M")), [
        ("submission", "submission", ""), ("at", "started", ""), ("score", "score", present.significant(4)),
        ("generation", "generation", ""), ("io500_version", "IO500 version", "")]))
    data = data[["history", "started", "score", "tooltip", "change"]]
    time = alt.X("started:T", title=None, axis=alt.Axis(format="%Y-%m-%d", labelAngle=-30, labelOverlap="greedy"))
    base = alt.Chart()
    layer = alt.layer(
        base.mark_line(point=True).encode(time, alt.Y("score:Q", scale=alt.Scale(type="log"), title=None),
                                          description="tooltip:N"),
        base.mark_rule(strokeDash=[4, 3], color="black").encode(time).transform_filter("datum.change"),
        data=data).properties(width=IO500_PANEL_WIDTH, height=120)
    header = alt.Header(labelExpr="split(datum.value, '\\n')")  # the title in lines that fit
    return layer.facet(facet=alt.Facet("history:N", title=None, header=header),
                       columns=IO500_PANELS_A_ROW).resolve_scale(x="independent", y="independent").properties(
        title="IO500 score, log scale, against when each submission's run started (its own timestamp)")


def chart_accuracy(accuracy: pd.DataFrame) -> alt.Chart:
    """The share of histories in which a slowdown was found, against its size, per noise source (colour) and detector
    (dashed: Apache Otava's e-divisive at its default p)."""
    data = accuracy[(accuracy.histories_per_family == 1) & (accuracy.step_pct > 0)][
        ["detector", "source", "step_pct", "found_share", "noise_sd_log"]]
    data = data.assign(tooltip=tooltip_text(data, [
        ("detector", "detector", ""), ("source", "real noise of", ""), ("step_pct", "slowdown (%)", "g"),
        ("found_share", "found in", ".0%"), ("noise_sd_log", "noise (sd of log)", ".2f")]))
    x = alt.X("step_pct:O", title="slowdown put into the history (%)", axis=alt.Axis(labelAngle=0))
    y = alt.Y("found_share:Q", title="histories in which it was found", axis=alt.Axis(format="%"))
    colour = alt.Color("source:N", title="real noise of")
    # the lines alone carry the detector's dash, so that its legend draws dashes (with points on the lines it drew none)
    lines = alt.Chart(data).mark_line(aria=False).encode(x, y, colour, strokeDash=alt.StrokeDash(
        "detector:N", title="detector", legend=alt.Legend(symbolType="stroke", symbolStrokeColor="black")))
    points = alt.Chart(data).mark_point(filled=True, size=25).encode(x, y, colour, description="tooltip:N")
    return (lines + points).properties(width=ACCURACY_WIDTH, height=220).configure_legend(orient="bottom", columns=2)
