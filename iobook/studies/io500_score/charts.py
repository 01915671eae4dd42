"""The IO500 score study's charts: every run's recomputed score against its printed one, and the runs shown phase
by phase."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ...book.charts import ROUNDED
from .analysis import TOLERANCE


def chart_recomputed_vs_reported(runs: pd.DataFrame, agree: dict[str, int]) -> alt.Chart:
    """One point per run (each counted once) with a printed sqrt-rule score: recomputed against printed, log
    scales; `agree` is analysis.agreement of the runs, for the title."""
    # only the columns it draws: a list column (invalid_reasons) aggregated in no fixed order would change the
    # spec, and so the chart's id, from one execution to the next
    plotted = runs[~runs.duplicate & (runs.score > 0) & (runs.reported_score > 0)][
        ["run_key", "institution", "system", "year", "release", "reported_score", "score", "valid"]].assign(
        validity=lambda d: d.valid.map({True: "valid run", False: "invalid run"}))
    return alt.Chart(plotted).mark_point(filled=True, opacity=0.6).encode(
        x=alt.X("reported_score:Q", scale=alt.Scale(type="log"), title="printed score (√(GiB/s · kIOPS))",
                axis=alt.Axis(format=ROUNDED)),
        y=alt.Y("score:Q", scale=alt.Scale(type="log"), title="recomputed score (√(GiB/s · kIOPS))",
                axis=alt.Axis(format=ROUNDED)),
        color=alt.Color("validity:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["run_key", "institution", "system", "year", "release",
                 alt.Tooltip("reported_score:Q", format=".3f"), alt.Tooltip("score:Q", format=".3f")],
    ).properties(width=420, height=380, title=alt.TitleParams(
        f"{agree['from_summary'] + agree['from_logs']} of {agree['comparable']} printed scores recomputed "
        f"within {TOLERANCE:.1%}", subtitle=f"source: io500_scores, io500_scores_from_logs; {len(plotted)} runs"))


def chart_phases(phases: pd.DataFrame) -> alt.Chart:
    """The chosen runs' phases as points on a log axis (a bar on a log axis has no zero to start from)."""
    return alt.Chart(phases[phases.value > 0]).mark_point(filled=True, size=80).encode(
        x=alt.X("value:Q", scale=alt.Scale(type="log"), title="GiB/s (ior phases) or kIOPS (mdtest, find)",
                axis=alt.Axis(format=ROUNDED)),
        y=alt.Y("phase:N", title=None, sort=list(dict.fromkeys(phases.phase))),
        color=alt.Color("run_key:N", title="run", legend=alt.Legend(orient="bottom", columns=1)),
        shape=alt.Shape("run_key:N", title="run"),
        tooltip=["run_key", "phase", alt.Tooltip("value:Q", format=".3f"), "unit",
                 alt.Tooltip("time_s:Q", format=".1f", title="time (s)")],
    ).properties(width=460, title=alt.TitleParams(
        "Phase results of the runs shown, spanning "
        f"{phases.value[phases.value > 0].min():.3g} to {phases.value.max():,.0f}",
        subtitle="source: io500_phases view"))
