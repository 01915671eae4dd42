"""The History study's charts: each history's runs over time with its change points, and each IO500 system's score
over its archive submissions."""
from __future__ import annotations

import re
import textwrap

import altair as alt
import pandas as pd

from ...inference import evidence
from ...inference.change_points import MEASURES

IO500_PANELS_A_ROW = 2  # three of 200 px with their axes were wider than the page's text column (cut at 1280 px)
# The y axis of a history's panels, per measure: column shown, its title, factor from get_runs' column.
CHART_MEASURES = {"bw_bytes_s": ("MiB_s", "bandwidth (MiB/s, log)", 2**-20), "p99_ns": ("p99_ms", "clat p99 (ms, log)", 1e-6),
                  "ops_s": ("ops_s", "rate (ops/s, log)", 1.0)}


NO_BW_LOG = "no bw log"
# a decided change point drawn solid and black, an undecided one dashed and grey: the search found it, the rule did not
DECIDED, NOT_DECIDED = "decided", "not decided"
CHANGE_DASHES = alt.Scale(domain=[DECIDED, NOT_DECIDED], range=[[1, 0], [4, 3]])
CHANGE_COLOURS = alt.Scale(domain=[DECIDED, NOT_DECIDED], range=["black", "#999999"])


def chart_history(runs: pd.DataFrame, changes: pd.DataFrame, column: str = "bw_bytes_s") -> alt.VConcatChart:
    """Every run's value of one measure (`column`) over time, one panel per history that has it (titled by its label
    and job, its workload key in the tooltip), fio runs marked steady or not where a bw log says so, that measure's
    change points as rules: decided solid, undecided dashed."""
    shown, title_y, factor = CHART_MEASURES[column]
    quantity = MEASURES[column][0]
    time = alt.X("started:T", title="run started (UTC for fio; the machine's clock for IOR and mdtest)",
                 scale=alt.Scale(type="utc"), axis=alt.Axis(format="%m-%d %H:%M:%S", labelAngle=-30))
    if "verdict" not in changes:  # no change point found: history_changes adds no record columns
        changes = changes.assign(verdict=pd.Series(dtype=object))
    panels = []
    for (label, workload), h in runs[runs[column] > 0].groupby(["label", "workload"], sort=False):
        # steadiness is known only from a bw log: a run without one is neither steady nor not
        data = h.assign(**{shown: h[column] * factor},
                        state=[NO_BW_LOG if pd.isna(s) else "steady" if s else "not steady" for s in h.steady])
        data = data[["workload", "run", "started", shown, "state"]]
        points = alt.Chart(data).mark_point(filled=True).encode(
            x=time, y=alt.Y(f"{shown}:Q", scale=alt.Scale(type="log"), title=title_y),
            shape=alt.Shape("state:N", title="bw log"), color=alt.Color("state:N", title="bw log"),
            tooltip=["workload:N", "run:Q", alt.Tooltip("started:T", format="%Y-%m-%d %H:%M:%S"),
                     alt.Tooltip(f"{shown}:Q", format=",.3g"), "state:N"])
        at = changes.loc[(changes.label == label) & (changes.workload == workload) & (changes.measure == quantity),
                         ["run", "started", "verdict"]]
        at = at.assign(verdict=[DECIDED if v == evidence.Verdict.DECIDED else NOT_DECIDED for v in at.verdict])
        rules = alt.Chart(at).mark_rule().encode(
            x=time, tooltip=["run:Q", alt.Tooltip("verdict:N", title="change point")],
            strokeDash=alt.StrokeDash("verdict:N", title="change point", scale=CHANGE_DASHES),
            color=alt.Color("verdict:N", title="change point", scale=CHANGE_COLOURS))
        target = re.search(r"(?:directory|filename|filename_format)=(\S+)", workload)
        where = f", target {target.group(1).rstrip('/').rsplit('/', 1)[-1]}" if target else ""
        title = f"{h.history.iloc[0]}{where}, {len(h):,} runs"
        # the points' bw-log states and the rules' verdicts are two legends, not one merged colour scale
        panels.append(alt.layer(points, rules).resolve_scale(color="independent")
                      .properties(title=title, width=460, height=160))
    return alt.vconcat(*panels)


def chart_io500(submissions: pd.DataFrame, changes: pd.DataFrame) -> alt.FacetChart:
    """Each system's score at every archive submission, one panel per system and score rule (log scale),
    change points as dashed rules."""
    data = submissions.assign(history=[textwrap.fill(f"{s} ({r})", 40) for s, r in zip(submissions.system, submissions.score_rule)],
                              change=[(s, r, t) in set(zip(*(changes[changes.measure == "IO500 score"][c]
                                                                   for c in ("system", "score rule", "started"))))
                                      for s, r, t in zip(submissions.system, submissions.score_rule, submissions.started)])
    data = data[["history", "started", "score", "submission", "io500_version", "valid", "change"]]
    time = alt.X("started:T", title="run started (its own timestamp)",
                 axis=alt.Axis(format="%Y-%m-%d", labelAngle=-30, labelOverlap="greedy"))
    base = alt.Chart()
    layer = alt.layer(
        base.mark_line(point=True).encode(time, alt.Y("score:Q", scale=alt.Scale(type="log"), title="IO500 score (log)"),
                                          tooltip=["history:N", alt.Tooltip("started:T", format="%Y-%m-%d %H:%M"),
                                                   alt.Tooltip("score:Q", format=",.4g"), "submission:Q",
                                                   "io500_version:N", "valid:N"]),
        base.mark_rule(strokeDash=[4, 3], color="black").encode(time).transform_filter("datum.change"),
        data=data).properties(width=200, height=120)
    header = alt.Header(labelFontSize=10, labelExpr="split(datum.value, '\\n')")  # the title in lines that fit
    return layer.facet(facet=alt.Facet("history:N", title=None, header=header),
                       columns=IO500_PANELS_A_ROW).resolve_scale(x="independent", y="independent")


def chart_accuracy(accuracy: pd.DataFrame) -> alt.Chart:
    """The share of histories in which a slowdown was found, against its size, per noise source (colour) and detector
    (dashed: Apache Otava's e-divisive at its default p)."""
    data = accuracy[(accuracy.histories_per_family == 1) & (accuracy.step_pct > 0)][
        ["detector", "source", "step_pct", "found_share", "noise_sd_log"]]
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("step_pct:O", title="slowdown put into the history (%)", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("found_share:Q", title="histories in which it was found", axis=alt.Axis(format="%")),
        color=alt.Color("source:N", title="real noise of"),
        strokeDash=alt.StrokeDash("detector:N", title="detector"),
        tooltip=["detector:N", "source:N", "step_pct:Q", alt.Tooltip("found_share:Q", format=".0%"),
                 alt.Tooltip("noise_sd_log:Q", format=".2f", title="noise (sd of log)")],
    ).properties(width=460, height=220)
