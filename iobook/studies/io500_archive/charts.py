"""The IO500 archive study's charts: the phase-to-phase rank correlations as a matrix per domain, and the scores of
each list's machines."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ...book.charts import ROUNDED
from .analysis import DOMAINS


def chart_correlations(table: pd.DataFrame) -> alt.VConcatChart:
    """Spearman's rs of each pair of phases (analysis.correlation_table rows of one selection), one matrix per domain,
    one above the other (side by side, the metadata matrix ran past the page's column at 1280 px), the value
    printed in its cell."""
    panels = []
    for domain, names in DOMAINS.items():
        rows = table[table.what.str.startswith(f"{domain} phases")]
        data = rows[["x", "y", "value", "machines", "verdict"]]
        base = alt.Chart(data).encode(
            x=alt.X("x:N", sort=list(names), title=None, axis=alt.Axis(labelAngle=-40)),
            y=alt.Y("y:N", sort=list(names), title=None))
        cells = base.mark_rect().encode(
            color=alt.Color("value:Q", title="Spearman rs", scale=alt.Scale(domain=[-1, 1], scheme="redblue"),
                            legend=alt.Legend(format=".2f")),
            tooltip=["x:N", "y:N", alt.Tooltip("value:Q", format=".2f"), "machines:Q", "verdict:N"])
        text = base.mark_text(fontSize=11).encode(text=alt.Text("value:Q", format=".2f"))
        panels.append(alt.layer(cells, text).properties(title=f"{domain} phases", width=40 * len(names),
                                                        height=40 * len(names)))
    return alt.vconcat(*panels).resolve_scale(color="shared")


# The distributions each list shows: its machines' score and sub-scores as the list published them (analysis.LISTED;
# column -> axis title)
LIST_MEASURES = {"listed_score": "IO500 score (log)", "listed_bw_gib_s": "bandwidth, GiB/s (log)",
                 "listed_md_kiops": "metadata, kIOPS (log)"}


def chart_scores(chosen: pd.DataFrame, lists: list[str]) -> alt.VConcatChart:
    """Each list's chosen machines' score and its two sub-scores (log scales, one panel each), coloured by the
    benchmark's generation."""
    data = chosen[["list", "machine", "generation", *LIST_MEASURES]]
    panels = [alt.Chart(data).mark_point(filled=True, opacity=0.7).encode(
        x=alt.X("list:N", sort=lists, title="list" if column == "listed_md_kiops" else None,
                axis=alt.Axis(labels=column == "listed_md_kiops")),
        y=alt.Y(f"{column}:Q", scale=alt.Scale(type="log"), title=title, axis=alt.Axis(format=ROUNDED)),
        color=alt.Color("generation:N", title="benchmark", legend=alt.Legend(orient="bottom")),
        tooltip=["list:N", "machine:N", alt.Tooltip(f"{column}:Q", format=",.4g"), "generation:N"],
    ).properties(width=500, height=150) for column, title in LIST_MEASURES.items()]
    return alt.vconcat(*panels)


def chart_close(close: pd.DataFrame) -> alt.Chart:
    """Each machine's share of an IOR phase's time spent in close (log scale), by file-system family, one row of
    panels per benchmark generation."""
    data = close[["generation", "family", "phase", "machine", "close_share", "close_s"]]
    return alt.Chart(data).mark_point(filled=True, opacity=0.6).encode(
        x=alt.X("close_share:Q", scale=alt.Scale(type="log"), title="close time, share of the phase (log)",
                axis=alt.Axis(format=".3~%")),  # tiny shares: "%" printed them as 0%
        y=alt.Y("family:N", title=None),
        color=alt.Color("phase:N", title="IOR phase", legend=alt.Legend(orient="bottom", columns=4)),
        row=alt.Row("generation:N", title=None),
        tooltip=["machine:N", "family:N", "phase:N", alt.Tooltip("close_share:Q", format=".3%"),
                 alt.Tooltip("close_s:Q", format=",.3g", title="close (s)")],
    ).properties(width=480)
