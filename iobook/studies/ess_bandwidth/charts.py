"""The Storage Scale chapter's charts, one Altair chart per function: IOR's bandwidth per phase, the easy phases per
building block against both yardsticks, and mdtest-hard-delete over time."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ...book import present
from .runs import PHASE_ORDER, WHOLE

# between a legend's two columns: its labels are measured in the chart's font and drawn wider in a browser's
# sans-serif ("Storage Scale System 6000" ran into the next swatch)
LEGEND_GAP = 32


def _flagged(row) -> str:
    """', flagged CHANGED_DURING_RUN' for a run a chart's title names that the validity audit flags, else ''."""
    return f", flagged {row.validity_flags}" if pd.notna(row.get("validity_flags")) else ""


def chart_ior_phases(ior: pd.DataFrame, runs: pd.DataFrame) -> alt.Chart:
    """IOR's bandwidth in the four scored IOR phases per run, one row of bars per phase, coloured by IBM model;
    the title states the fastest phase and the fastest hard phase, each run's validity flag once."""
    df = ior[ior.phase.isin(PHASE_ORDER[:4])].merge(runs[["run_id", "run_key", "model", "validity_flags"]], on="run_id")
    best = df.loc[df.ior_gib_s.idxmax()]
    hard = df[df.phase.str.contains("hard")]
    title = [f"{best.phase} reaches {best.ior_gib_s:,.1f} GiB/s", f"({best.run_key}{_flagged(best)})"]
    if len(hard):
        top = hard.loc[hard.ior_gib_s.idxmax()]
        flag = _flagged(top) if top.run_key != best.run_key else ""
        title += [f"no hard phase exceeds {top.ior_gib_s:,.1f} GiB/s", f"({top.run_key}{flag}, {top.phase})"]
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("ior_gib_s:Q", title="IOR bandwidth (GiB/s)"),
        y=alt.Y("run_key:N", title=None, sort=runs.run_key.tolist()),
        color=alt.Color("model:N", title="IBM model", legend=alt.Legend(orient="bottom", columns=2, columnPadding=LEGEND_GAP)),
        row=alt.Row("phase:N", title=None, sort=PHASE_ORDER),
        tooltip=["run_key", "model", "phase", "nodes", "tasks",
                 alt.Tooltip("transfer_bytes:Q", title="transfer (bytes)"),
                 alt.Tooltip("ior_gib_s:Q", title="IOR (GiB/s)", format=".3f"),
                 alt.Tooltip("io500_gib_s:Q", title="IO500 summary (GiB/s)", format=".3f")],
    ).properties(width=340, title={"text": title, "subtitle": "source: io500_phase_logs, ior_tests views"})


def chart_per_block(ceilings: pd.DataFrame) -> alt.Chart:
    """Per-building-block easy-phase bandwidth (GB/s) of the runs with a building-block count, beside both
    yardsticks: IBM's "up to" claim for the run's model, phase and release (a tick, where the talk gives one) and,
    where the talk states the clients' links, their nominal line rate per building block (a diamond). Tucson's 651
    and 679 read the same 110 GB/s a block at 88 % of the same line rate, while their claims differ: a share of a
    claim alone told them apart."""
    df = ceilings[ceilings.blocks.notna()].assign(
        line_rate_per_block_gb_s=lambda d: d.client_ceiling_gb_s / d.blocks)
    title = ["Per building block, beside IBM's claim (tick) and the clients' nominal line rate (diamond):",
             "; ".join(f"{m} {present.span(g.per_block_gb_s, WHOLE)} GB/s"
                       for m, g in df.groupby("model", sort=True))]
    y = alt.Y("run_key:N", title=None)
    tooltip = ["label", "phase", "building_blocks", "ess_release", "claim_rule",
               alt.Tooltip("per_block_gb_s:Q", format=".1f", title="per block (GB/s)"),
               alt.Tooltip("claim_gb_s:Q", format=".1f", title="IBM's claim (GB/s)"),
               alt.Tooltip("line_rate_per_block_gb_s:Q", format=".1f", title="nominal line rate per block (GB/s)")]
    base = alt.Chart(df).encode(y=y, yOffset="phase:N", color=alt.Color("phase:N", title=None,
                                                                        legend=alt.Legend(orient="bottom")))
    bars = base.mark_bar(opacity=0.7).encode(x=alt.X("per_block_gb_s:Q", title="GB/s per building block"),
                                            tooltip=tooltip)
    claims = base.mark_tick(thickness=2, size=14, color="black").encode(x="claim_gb_s:Q", tooltip=tooltip)
    rates = base.transform_filter("isValid(datum.line_rate_per_block_gb_s)").mark_point(
        shape="diamond", filled=True, size=70, color="black").encode(x="line_rate_per_block_gb_s:Q", tooltip=tooltip)
    return (bars + claims + rates).properties(width=340, title={
        "text": title,
        "subtitle": ["source: io500_phases view; building blocks from mmlsfs disks, mmlscluster or folder names;",
                     "IBM's figures and the clients' links: seed 000 (IBM, Storage Scale User Group at SC23)"]})


def chart_hard_delete(hard: pd.DataFrame) -> alt.Chart:
    """mdtest-hard-delete rate per run over the runs' start dates, one point per run, coloured by model; the
    title states the range."""
    low, high = hard.loc[hard.kiops.idxmin()], hard.loc[hard.kiops.idxmax()]
    years = f"{int(hard.year.min())}–{int(hard.year.max())}" if hard.year.nunique() > 1 else f"{int(hard.year.min())}"
    points = alt.Chart(hard).mark_point(filled=True, size=80).encode(
        x=alt.X("started:T", title="run started (date)"),
        y=alt.Y("kiops:Q", title="mdtest-hard-delete (kIOPS)"),
        color=alt.Color("model:N", title="IBM model", legend=alt.Legend(orient="bottom", columns=2, columnPadding=LEGEND_GAP)),
        shape=alt.Shape("token_batching:N", title="fgdlTokenBatchAcquire", legend=alt.Legend(orient="bottom")),
        tooltip=["run_key", "institution", "model", alt.Tooltip("started:T", format="%Y-%m-%d"),
                 alt.Tooltip("kiops:Q", title="kIOPS", format=".1f"), "fgdlTokenBatchAcquire", "autoCompactDir"])
    return points.properties(width=380, height=240, title={
        "text": [f"mdtest-hard-delete runs from {low.kiops:,.1f} ({low.run_key}{_flagged(low)})",
                 f"to {high.kiops:,.1f} kIOPS ({high.run_key}{_flagged(high)}), {years}: one run each"],
        "subtitle": "source: io500_phases, gpfs_config views"})
