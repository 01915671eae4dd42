"""The IO500 archive as data (the chapter `io500_archive`, issue 39): Kunkel et al.'s statistical study of the IO500
submissions (arXiv 2605.02194) redone on the raw files the data holds, a re-analysis unless its selection is the
paper's (evidence.reanalysis): the selection as a query, phase-to-phase rank correlations and the sub-scores per
client node beside the paper's figures, every list apart, and from the logs IOR's close time, the stonewall
wear-down and pfind's imbalance. Layers: queries/*.sql, analysis, logs, charts,
findings; `report` wires them for the notebook."""
from __future__ import annotations

import pandas as pd

from ...book import comparison, present
from ...book.report import Prose, Report, Table
from ...inference import evidence
from . import analysis, charts, findings, logs
from .analysis import PAPER_LISTS

HOW_TO_ADD = ("Ingest IO500 result folders (`python -m iobook ingest <folder>`), as the archive lays them out "
              "(`<institution>/<system>/<file system>/<year>/submission-<id>/`): the year folder and the run's start "
              "date name its list.")
CORRELATION_FORMATS = {"value": ".2f", "low": ".2f", "high": ".2f", "Holm p": ".3g", analysis.PAPER_Q: ".3g"}
PERCENT = 100  # a share shown as a percentage
# medians and highest over machines: three significant digits (IOR's close share spans 0.0001 % to 50 %)
SHARE_FORMATS = {f"{how} {name}": ".3g" for how in ("median", "max") for name in (
    "close, % of phase", "done at the deadline, % of all", "slowest rank, % of fastest", "wear-down, % of phase",
    "busiest over mean rank", "busiest, % of files", "slowest ÷ median rank's wear-down", "median rank's wear-down (s)")}
# the measure and what it rests on first; the scores' span in one column (both ends as the table printed them); the
# runs left out are the counted runs less the machines (per_list), not a column of their own
# (the span in orders of magnitude is the selection's finding: per list the scores column shows both ends)
LIST_COLUMNS = ["list", "generation", "rs per node", "verdict", "machines", "with nodes", "scores",
                "list values not the run's", "runs", "flagged runs"]
LIST_FORMATS = {"rs per node": ".2f"}


def _score(value: float, digits: int) -> str:
    """A score to `digits` significant digits, thousands separated ('1,860'; '32,166', not '3.217e+04')."""
    return f"{value:,.{digits}g}" if abs(value) < 10 ** digits else f"{value:,.0f}"


def lists_table(per_list: pd.DataFrame, records: list[evidence.Correlation]) -> Table:
    """Each list apart as the page shows it (LIST_COLUMNS): its lowest and highest score in one column, and the
    verdicts' codes explained once under the table (comparison.legend)."""
    # 'lowest to highest': a cell may wrap at its spaces, never inside a number's range (the page check)
    frame = per_list.assign(scores=[f"{_score(low, 3)} to {_score(high, 4)}" for low, high in
                                    zip(per_list["lowest score"], per_list["highest score"])]).rename(
        columns={"machines with nodes": "with nodes"})
    return Table(frame=frame[LIST_COLUMNS], formats=LIST_FORMATS, note=comparison.legend(records))


def counted_as_the_paper(runs: pd.DataFrame, phases: pd.DataFrame, lists: list[str],
                         named: str) -> dict[str, str | int]:
    """The selection's correlations with every valid run a unit, as the paper counts submissions (a machine's
    repeat runs are not independent: values to set beside the paper's, never decided)."""
    every, _ = analysis.select(runs, lists, one_each=False)
    wide = analysis.phase_table(every, phases)
    bandwidth = analysis.phase_correlations(wide, named, domains=("bandwidth",))
    rs, r = analysis.subscore_correlations(every, named)
    return {"as_paper_runs": len(every), "as_paper_bandwidth": findings.correlation_range(bandwidth),
            "as_paper_rs": f"{rs.value:.2f}", "as_paper_r": f"{r.value:.2f}", "as_paper_nodes": rs.n}


def report(con, *, lists: list[str] | None = None) -> Report:
    """The chapter: the selection of `lists` (the paper's four when empty), its correlations beside the paper's,
    each list apart, and the log tables, findings first."""
    runs = analysis.get_runs(con)
    paper = analysis.paper_figures()
    paper_table = Table(frame=paper[["printed", "unit", "note", "source"]])  # printed figures: shown with any data
    if runs.empty:
        return Report(values={"has_data": False, "has_selection": False, "has_lists": False, "has_close": False,
                              "has_wear_down": False, "has_find": False}, tables={"tab-archive-paper": paper_table},
                      note=present.no_data("IO500 runs", HOW_TO_ADD))
    lists = list(lists or PAPER_LISTS)
    named = f"{lists[0]}-{lists[-1]}" if len(lists) > 1 else lists[0]
    chosen, left = analysis.select(runs, lists)
    phases = analysis.get_phases(con)
    wide = analysis.phase_table(chosen, phases)
    per_list, list_records, chosen_each = analysis.per_list(runs)
    selected = analysis.phase_correlations(wide, named) + analysis.subscore_correlations(chosen, named)
    decided = evidence.decide(selected + list_records)  # one family: the chapter decides once
    selected, list_records = decided[:len(selected)], decided[len(selected):]
    # two machines always rank alike or opposite: no value where the rule has too few units
    per_list = per_list.assign(record=list_records, **{"rs per node": [
        None if r.verdict == evidence.Verdict.TOO_FEW else r.value for r in list_records],
                                                       "verdict": [str(r.verdict) for r in list_records]})
    bandwidth = [r for r in selected if r.quantity.startswith("bandwidth")]
    metadata = [r for r in selected if r.quantity.startswith("metadata")]
    subscores = [r for r in selected if r.quantity.startswith("sub-scores")]
    values = {"has_data": True, "has_selection": len(chosen) > 0, "has_lists": len(per_list) > 0,
              "lists": ", ".join(lists), "held": ", ".join(findings.held_lists(runs, lists)) or "none",
              "unlisted": int(runs.list.isna().sum()),
              "started_earlier": int((runs.started_at.dt.year < runs.year).sum()),
              "excluded_flags": ", ".join(analysis.EXCLUDED_FLAGS),
              "list_valued": int(per_list["list values not the run's"].sum()) if len(per_list) else 0,
              **{key.replace(" ", "_"): value for key, value in left.items()}}
    found, tables, figures = [], {}, {}
    if len(chosen):
        paper_q = analysis.paper_rule_q(selected + list_records)[:len(selected)]
        shown = analysis.correlation_table(selected, paper_q)
        values |= {"correlations": len(selected), "holm_decided": sum(r.decided for r in selected),
                   "paper_rule_passes": analysis.passes_paper_rule(selected, paper_q)}
        values |= counted_as_the_paper(runs, phases, lists, named)
        values["selection_claim"] = findings.selection_claim(runs, lists, left["machines"], values["as_paper_runs"],
                                                             paper)
        found += [findings.selection_finding(values["selection_claim"], bandwidth, paper),
                  findings.metadata_finding(metadata, paper),
                  findings.per_node_finding(subscores, paper, int(chosen.bw_per_node.notna().sum()), len(chosen)),
                  findings.lists_finding(per_list, chosen, paper)]
        # the lists every record is of are said once above the table, not after each quantity
        tables["tab-archive-correlations"] = Table(frame=shown.drop(columns=["x", "y"]).assign(
            what=shown.what.str.removesuffix(f", {named}")), formats=CORRELATION_FORMATS, shared={"lists": named})
        figures["fig-archive-correlations"] = charts.chart_correlations(shown)
    else:
        found.append(findings.no_selection_finding(runs, lists))
    if len(per_list):
        tables["tab-archive-lists"] = lists_table(per_list, list_records)
        figures["fig-archive-scores"] = charts.chart_scores(chosen_each, analysis.lists_in_order(runs))
    close = analysis.per_machine(logs.close_time(con), runs)
    wear = analysis.per_machine(logs.wear_down(con), runs)
    find = analysis.per_machine(logs.pfind_imbalance(con), runs)
    find = find[find.ranks_add_up.fillna(False).astype(bool)]  # the others' rows are not each rank's own: no shares
    values |= {"has_close": len(close) > 0, "has_wear_down": len(wear) > 0, "has_find": len(find) > 0,
               "has_rank_wear_down": bool(wear.get("slowest_over_median_rank", pd.Series(dtype=float)).notna().any())}
    # the log findings read the selection's generation, else the one most of the logs ran
    logged = pd.concat([close.generation, wear.generation, find.generation])
    generation = left["generation"] or (logged.mode().iloc[0] if len(logged) else None)
    if len(close):
        found.append(findings.close_finding(close, generation))
        tables["tab-archive-close"] = Table(frame=analysis.summarize(
            close, ["generation", "family", "phase"], {"close_share": ("close, % of phase", PERCENT)}),
            formats=SHARE_FORMATS)
        figures["fig-archive-close"] = charts.chart_close(close)
    if generation is not None:
        found += [f for f in [findings.stragglers_finding(wear, generation)] if f is not None]
    values |= {key: Prose(text) for key, text in findings.log_texts(wear, find, generation).items()}
    if len(wear):
        tables["tab-archive-wear-down"] = Table(frame=analysis.summarize(wear, ["generation", "phase"], {
            "done_at_stonewall_share": ("done at the deadline, % of all", PERCENT),
            "slowest_share": ("slowest rank, % of fastest", PERCENT),
            "wear_down_share": ("wear-down, % of phase", PERCENT)}), formats=SHARE_FORMATS)
        ranked = wear.dropna(subset=["slowest_over_median_rank"])
        if len(ranked):
            tables["tab-archive-rank-wear-down"] = Table(frame=analysis.summarize(ranked, ["generation", "phase"], {
                "slowest_over_median_rank": ("slowest ÷ median rank's wear-down", 1),
                "median_rank_wear_down_s": ("median rank's wear-down (s)", 1)}), formats=SHARE_FORMATS)
    if len(find):
        tables["tab-archive-find"] = Table(frame=analysis.summarize(
            find, ["generation", "family"],
            {"total_imbalance": ("busiest over mean rank", 1), "busiest_total_share": ("busiest, % of files", PERCENT)}),
            formats=SHARE_FORMATS)
    tables["tab-archive-paper"] = paper_table
    return Report(values=values, tables=tables, figures=figures, findings=found,
                  evidence=[*selected, *list_records])
