"""The IO500 archive study's findings: the paper's selection as the archive holds it, the correlations beside the
paper's, the sub-scores per node, the scores' span and each list apart. Each finding carries its records."""
from __future__ import annotations

import pandas as pd

from ... import evidence, nb
from ...evidence import Correlation, Replicate
from ...report import Finding
from . import analysis


def _range(records: list[Correlation]) -> str:
    low, high = min(r.value for r in records), max(r.value for r in records)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f} to {high:.2f}"


def _decided(records: list[Correlation]) -> str:
    return f"{sum(r.decided for r in records)} of {len(records)} pairs decided"


def _paper_range(paper: pd.DataFrame, domain: str) -> str:
    return (f"{analysis.paper_value(paper, f'{domain}_rs_low'):.2f} to "
            f"{analysis.paper_value(paper, f'{domain}_rs_high'):.2f}")


def held_lists(runs: pd.DataFrame, lists) -> list[str]:
    return [name for name in lists if (runs.list == name).any()]


def selection_finding(runs: pd.DataFrame, lists, left: dict, bandwidth: list[Correlation],
                      paper: pd.DataFrame) -> Finding:
    """The headline: which of the paper's lists the data holds, and the bandwidth phases' correlations beside
    the paper's."""
    held = held_lists(runs, lists)
    missing = [name for name in lists if name not in held]
    lacking = f" (not {', '.join(missing)})" if missing else ""
    text = (f"The data holds {len(held)} of the {len(lists)} lists{lacking}: its {left['machines']} machines' "
            f"bandwidth phases rank together at rs {_range(bandwidth)}; the paper's {_paper_range(paper, 'bandwidth')}.")
    return Finding(text=text, target="tab-archive-correlations", evidence=tuple(bandwidth))


def metadata_finding(metadata: list[Correlation], paper: pd.DataFrame) -> Finding:
    find = [r for r in metadata if "find" in (r.x, r.y)]
    mdtest = [r for r in metadata if r not in find]
    text = (f"Metadata phases rank together at rs {_range(metadata)} ({_decided(metadata)}; the paper: "
            f"{_paper_range(paper, 'metadata')}); mdtest's phases alone at {_range(mdtest)}, find with them at "
            f"{_range(find)}.")
    return Finding(text=text, target="fig-archive-correlations", evidence=tuple(metadata))


def per_node_finding(subscores: list[Correlation], paper: pd.DataFrame, with_nodes: int, machines: int) -> Finding:
    rs, r = subscores
    text = (f"Per client node, the bandwidth and metadata sub-scores: {evidence.phrase(rs)}, Pearson "
            f"{evidence.phrase(r)}; the paper: rs {analysis.paper_value(paper, 'subscores_rs_per_node'):.2f}, "
            f"r {analysis.paper_value(paper, 'subscores_r_per_node'):.2f}. {with_nodes} of the {machines} machines "
            f"state their client nodes.")
    return Finding(text=text, target="tab-archive-correlations", evidence=(rs, r))


def lists_finding(lists: pd.DataFrame, chosen: pd.DataFrame, paper: pd.DataFrame) -> Finding:
    """Each list apart: how many decide the sub-scores' rank correlation per node, and the scores' span (the
    selection's beside the paper's)."""
    records = list(lists.record)
    decidable = [r for r in records if r.verdict is not None and r.verdict != evidence.Verdict.TOO_FEW]
    decided = [r for r in decidable if r.decided]
    span = evidence.described(analysis.orders_of_magnitude(chosen.score), quantity="orders of magnitude of the scores",
                              unit="", n=len(chosen), replicate=Replicate.MACHINE,
                              how="log10 of the highest score over the lowest: a census, no interval")
    shown = f" (rs {_range(decided)})" if decided else ""
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
    (family, phase), top = groups.index[0], groups.iloc[0]
    records = (_described(overall, n, "IOR close time, share of the phase"),
               _described(top.share, int(top.machines), f"IOR close time, share of {phase}, {family}"))
    text = (f"In the {generation}'s IOR phases, close takes a median {_percent(overall)} of a phase's time ({n} machines); "
            f"most in {nb.md_escape(family)}'s {phase}, a median {_percent(top.share)} over {int(top.machines)} machines.")
    return Finding(text=text, target="tab-archive-close", evidence=records)


def stragglers_finding(wear: pd.DataFrame, find: pd.DataFrame, generation: str) -> Finding:
    """The ranks' spread at the write deadline and the wear-down after it (ior-easy-write), and find's imbalance."""
    slowest, n = analysis.medians(wear, "slowest_share", generation=generation, phase=analysis.WEAR_PHASE)
    share, n_share = analysis.medians(wear, "wear_down_share", generation=generation, phase=analysis.WEAR_PHASE)
    spread, n_find = analysis.medians(find[find.ranks_add_up.fillna(False).astype(bool)], "total_imbalance",
                                      generation=generation)
    records = (_described(slowest, n, f"slowest rank's share of the fastest's transfers at the stonewall, {analysis.WEAR_PHASE}"),
               _described(share, n_share, f"wear-down's share of {analysis.WEAR_PHASE}"),
               _described(spread, n_find, "find: files scanned by the busiest rank over the mean rank"))
    text = (f"At {analysis.WEAR_PHASE}'s deadline the slowest rank had done a median {slowest:.0%} of the fastest's "
            f"transfers ({n} machines), and the wear-down took {share:.0%} of the phase; in find, the busiest rank "
            f"scanned a median {spread:.3g} times the mean rank's files ({n_find} machines).")
    return Finding(text=text, target="tab-archive-wear-down", evidence=records)
