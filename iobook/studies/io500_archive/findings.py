"""The IO500 archive study's findings: the paper's selection as the archive holds it, the correlations beside the
paper's, the sub-scores per node, the scores' span and each list apart. Each finding carries its records."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Finding
from ...inference import evidence
from ...inference.evidence import Correlation, Replicate
from . import analysis


def correlation_range(records: list[Correlation]) -> str:
    return present.span((r.value for r in records), ".2f")


def _decided(records: list[Correlation]) -> str:
    return f"{sum(r.decided for r in records)} of {len(records)} decided"


def _paper_range(paper: pd.DataFrame, domain: str) -> str:
    return (f"{analysis.paper_value(paper, f'{domain}_rs_low'):.2f}–"
            f"{analysis.paper_value(paper, f'{domain}_rs_high'):.2f}")


def held_lists(runs: pd.DataFrame, lists) -> list[str]:
    return [name for name in lists if (runs.list == name).any()]


def selection_claim(runs: pd.DataFrame, lists, machines: int, submissions: int, paper: pd.DataFrame) -> str:
    """What the chapter's rebuilding of the paper is (evidence.reanalysis): a reproduction only on the paper's own
    selection, its lists and its count of submissions (`submissions`: the selection's valid runs counted as the
    paper counts them); else a re-analysis on the lists the data holds and its `machines`."""
    held = held_lists(runs, lists)
    paper_submissions = int(analysis.paper_value(paper, "submissions"))
    of = (f"{len(held)} of the paper's {len(analysis.PAPER_LISTS)} lists" if tuple(lists) == analysis.PAPER_LISTS
          else f"{len(held)} lists, not the paper's {analysis.PAPER_LISTS[0]}–{analysis.PAPER_LISTS[-1]},")
    selection = (f"{of} ({', '.join(held) or 'none held'}), {evidence.plural(machines, 'machine')} against its "
                 f"{paper_submissions} submissions")
    return evidence.reanalysis((tuple(held), submissions), (analysis.PAPER_LISTS, paper_submissions),
                               selection=selection, publication="the paper")


def selection_finding(claim: str, bandwidth: list[Correlation], paper: pd.DataFrame) -> Finding:
    """The headline: what the chapter's selection is against the paper's (selection_claim), and the bandwidth phases'
    correlations beside the paper's."""
    text = (f"{claim[0].upper()}{claim[1:]}: bandwidth phases rank together at rs {correlation_range(bandwidth)} "
            f"({_decided(bandwidth)}), the paper's {_paper_range(paper, 'bandwidth')}.")
    return Finding(text=text, target="tab-archive-correlations", evidence=tuple(bandwidth))


def no_selection_finding(runs: pd.DataFrame, lists) -> Finding:
    """Where no run of the lists is left to take: which lists the runs are of, and how many state none."""
    unlisted = evidence.count(int(runs.list.isna().sum()), len(runs), of=Replicate.CENSUS,
                              quantity="IO500 runs of no list (outside the archive, or undated)")
    held = analysis.lists_in_order(runs)
    text = f"No valid run of {', '.join(lists)} is in the data"
    if held:
        text += f"; its runs are of {', '.join(held)}."
        text += f" {evidence.phrase(unlisted)} state no list." if unlisted.k else ""
    else:
        text += f": {evidence.phrase(unlisted)} of its runs state no list (outside the archive or undated)."
    return Finding(text=text, evidence=(unlisted,))


def metadata_finding(metadata: list[Correlation], paper: pd.DataFrame) -> Finding:
    find = [r for r in metadata if "find" in (r.x, r.y)]
    mdtest = [r for r in metadata if r not in find]
    text = (f"Metadata phases rank together at rs {correlation_range(metadata)} ({_decided(metadata)}; the paper: "
            f"{_paper_range(paper, 'metadata')}); mdtest's phases alone at {correlation_range(mdtest)}, find with them at "
            f"{correlation_range(find)}.")
    return Finding(text=text, target="fig-archive-correlations", evidence=tuple(metadata))


def per_node_finding(subscores: list[Correlation], paper: pd.DataFrame, with_nodes: int, machines: int) -> Finding:
    """The sub-scores per client node against the paper's, what the two correlations share said once."""
    rs, r = subscores
    text = (f"Per client node, the bandwidth and metadata sub-scores: {evidence.phrases([('', rs), ('', r)], ', ')}; "
            f"the paper: rs {analysis.paper_value(paper, 'subscores_rs_per_node'):.2f}, "
            f"r {analysis.paper_value(paper, 'subscores_r_per_node'):.2f}. {with_nodes} of the {machines} machines "
            "state their client nodes.")
    return Finding(text=text, target="tab-archive-correlations", evidence=(rs, r))


def lists_finding(lists: pd.DataFrame, chosen: pd.DataFrame, paper: pd.DataFrame) -> Finding:
    """Each list apart: how many decide the sub-scores' rank correlation per node, and the scores' span (the
    selection's beside the paper's)."""
    records = list(lists.record)
    decidable = [r for r in records if r.verdict is not None and r.verdict != evidence.Verdict.TOO_FEW]
    decided = [r for r in decidable if r.decided]
    span = evidence.described(analysis.orders_of_magnitude(chosen.listed_score),
                              quantity="orders of magnitude of the scores as the lists published them",
                              unit="", n=len(chosen), replicate=Replicate.MACHINE,
                              how="log10 of the highest score over the lowest: a census, no interval")
    shown = f" (rs {correlation_range(decided)})" if decided else ""
    text = (f"List by list, the sub-scores per node rank together, decided, in {len(decided)} of the "
            f"{len(decidable)} lists with {evidence.MIN_UNITS} or more machines that state their nodes{shown}. "
            f"The selection's scores span {span.value:.1f} orders of magnitude, the paper's "
            f"{analysis.paper_value(paper, 'score_span'):.0f}.")
    return Finding(text=text, target="tab-archive-lists", evidence=(*records, span))


def _percent(share: float) -> str:
    return f"{100 * share:.3g}%"


def _described(value: float, n: int, quantity: str) -> evidence.Estimate:
    return evidence.described(value, quantity=quantity, unit="", n=n, replicate=Replicate.MACHINE,
                              how="median over machines, each its newest run: a description of the data, no interval")


def close_finding(close: pd.DataFrame, generation: str) -> Finding:
    """IOR's close time: its median share of a phase over the generation's machines, and the family and phase
    where it is largest (families of MIN_UNITS machines or more)."""
    rows = close[close.generation == generation]
    overall, n = analysis.medians(rows, "close_share")
    groups = rows.groupby(["family", "phase"]).agg(machines=("machine", "nunique"), share=("close_share", "median"))
    groups = groups[groups.machines >= evidence.MIN_UNITS].sort_values("share", ascending=False)
    records = [_described(overall, n, "IOR close time, share of the phase")]
    text = (f"In the {generation}'s IOR phases, close takes a median {_percent(overall)} of a phase's time "
            f"({evidence.plural(n, 'machine')})")
    if len(groups):
        (family, phase), top = groups.index[0], groups.iloc[0]
        records.append(_described(top.share, int(top.machines), f"IOR close time, share of {phase}, {family}"))
        text += (f"; most in {present.md_escape(family)}'s {phase}, a median {_percent(top.share)} over "
                 f"{evidence.plural(int(top.machines), 'machine')}")
    return Finding(text=text + ".", target="tab-archive-close", evidence=tuple(records))


def _machines_once(parts: list[tuple[str, int]]) -> str:
    """Clauses each over its machines, joined: the machines said once where every clause has as many, else each
    clause's own."""
    if len({n for _, n in parts}) == 1:
        return "; ".join(text for text, _ in parts) + f" (each over {evidence.plural(parts[0][1], 'machine')})"
    return "; ".join(f"{text} ({evidence.plural(n, 'machine')})" for text, n in parts)


def stragglers_finding(wear: pd.DataFrame, generation: str) -> Finding | None:
    """The ranks' spread at the write deadline and the wear-down after it (ior-easy-write): the parts the
    generation's logs hold; None when they hold none (the rank-by-rank wear-down and find's imbalance are said in
    their sections: log_texts)."""
    slowest, n = analysis.medians(wear, "slowest_share", generation=generation, phase=analysis.WEAR_PHASE)
    done, n_done = analysis.medians(wear, "done_at_stonewall_share", generation=generation, phase=analysis.WEAR_PHASE)
    share, n_share = analysis.medians(wear, "wear_down_share", generation=generation, phase=analysis.WEAR_PHASE)
    parts, records = [], []
    if n:
        records.append(_described(slowest, n, "slowest rank's share of the fastest's transfers at the stonewall, "
                                              f"{analysis.WEAR_PHASE}"))
        parts.append((f"at {analysis.WEAR_PHASE}'s deadline the slowest rank had done a median {slowest:.0%} of the "
                      "fastest's transfers", n))
    if n_done:
        records.append(_described(done, n_done, f"share of {analysis.WEAR_PHASE}'s transfers done at the deadline"))
        parts.append((f"all ranks together {done:.0%} of the phase's", n_done))
    if n_share:
        records.append(_described(share, n_share, f"wear-down's share of {analysis.WEAR_PHASE}"))
        parts.append((f"the wear-down after it took {share:.0%} of the phase's time", n_share))
    if not parts:
        return None
    return Finding(text=f"In the {generation}'s runs, {_machines_once(parts)}.", target="tab-archive-wear-down",
                   evidence=tuple(records))


def log_texts(wear: pd.DataFrame, find: pd.DataFrame, generation: str | None) -> dict[str, str]:
    """The sentences of the log sections (Markdown): the slowest rank's wear-down over the median rank's, and find's
    busiest rank over the mean rank, medians over the generation's machines (descriptions of the data, no
    interval), or what the generation's logs lack."""
    ranks, n_ranks = analysis.medians(wear, "slowest_over_median_rank", generation=generation,
                                      phase=analysis.WEAR_PHASE)
    spread, n_find = analysis.medians(find, "total_imbalance", generation=generation)
    runs = f"the {generation}'s runs" if generation else "these runs"
    return {
        "rank_wear_down_text": (
            f"In {runs}, the slowest rank of {analysis.WEAR_PHASE} wore down a median {ranks:.3g} times as long as the "
            f"median rank ({evidence.plural(n_ranks, 'machine')} with the ranks' CSV)." if n_ranks else
            f"No machine of {runs} kept the ranks' CSV of {analysis.WEAR_PHASE}."),
        "find_text": (
            f"In {runs}, find's busiest rank scanned a median {spread:.3g} times the mean rank's files "
            f"({evidence.plural(n_find, 'machine')})." if n_find else
            f"No machine of {runs} kept a find CSV whose ranks add up.")}
