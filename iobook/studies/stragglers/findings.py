"""The Stragglers study's sentences, from its records: each finding a `Finding` with the records its numbers rest on,
and the computed sentences the notebook pastes. A claim that rank times go together is made only where the
comparison decides it (analysis.together); names from the logs are escaped."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Finding, Prose
from ...inference.evidence import Comparison, Count, Estimate, Replicate, described, flag_note, phrase
from .analysis import equal_part_starts, one_node, together
from .ranks import BARRIER_TIED, BLOCK, CROWDED, NODEMAP, OWN_NODEMAP, ROUND_ROBIN, RUN_NODEMAP, SLOW_SHARE

BINDING = "if ranks were bound to sockets in order (no log records the binding)"
ONE_PHASE = "one phase of one run, its ranks no repetitions"
NOISE = ("the usual victim of the operating system's daemons, interrupt handling or an MPI progress thread sharing "
         "its core, and the data cannot tell which")


def and_(items) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def tied_text(runs: pd.DataFrame) -> Prose:
    """How many phases a barrier tied, which the placement tests leave out."""
    tied = int(runs.barrier_tied.sum())
    if not tied:
        return Prose(f"No phase is barrier-tied: in each of the {len(runs)} phases some rank ended more than "
                     f"{BARRIER_TIED:.1%} after another.")
    return Prose(f"{tied} of the {len(runs)} phases are barrier-tied, every rank ending within {BARRIER_TIED:.1%} of "
                 f"the others ({int((runs.barrier_tied & (runs.tool == 'IOR')).sum())} of them IOR), and are left "
                 "out of the placement tests.")


def placement_values(runs: pd.DataFrame) -> dict:
    """How each phase's placement is known, counted, and the sentence that says it."""
    from_map = runs.placement_from == NODEMAP
    inherited = from_map & (runs.nodemap_from == RUN_NODEMAP)
    v = {"placement_own": int((from_map & (runs.nodemap_from == OWN_NODEMAP)).sum()),
         "placement_inherited": int(inherited.sum()),
         "inherited_checked": int(runs.map_agrees[inherited].notna().sum()),
         "inherited_disagree": int((runs.map_agrees[inherited] == False).sum()),  # noqa: E712
         "placement_block": int((from_map & (runs.placement == BLOCK)).sum()),
         "placement_round_robin": int((from_map & (runs.placement == ROUND_ROBIN)).sum()),
         "placement_assumed": int(runs.placement_from.str.startswith("assumed").sum()),
         "placement_unknown": int(runs.placement.isna().sum())}
    own, given = v["placement_own"], v["placement_inherited"]
    text = (f"Placement is read from the phase's own mdtest Nodemap for {own} of the {len(runs)} phases"
            if own else f"No phase's own log prints a Nodemap ({len(runs)} phases)")
    if given:
        checked, off = v["inherited_checked"], v["inherited_disagree"]
        text += (f"; {given} IOR phases, whose logs print none, are **given their run's mdtest Nodemap, assumed** "
                 "to hold for them" + (f" (their logs' nodes, tasks and tasks per node agree with it in "
                                       f"{checked - off} of {checked}; that checks the counts, not the order)"
                                       if checked else ""))
    v["placement_text"] = Prose(
        f"Placed block: {v['placement_block']} phases, round-robin: {v['placement_round_robin']}. " + text
        + "".join(f"; {what} for {n}" for what, n in [("assumed block", v["placement_assumed"]),
                                                     ("unknown", v["placement_unknown"])] if n) + ".")
    return v


def ratio_text(ratio: Estimate, phases: int) -> str:
    return f"the slowest rank took a median {phrase(ratio)} the median rank's time over {phases:,} phases"


def no_nodes_finding(ratio: Estimate, phases: int) -> Finding:
    return Finding(text=f"No phase here spans several nodes with known placement; {ratio_text(ratio, phases)}.",
                   target="tab-stragglers-runs", evidence=(ratio,))


def variance_finding(variance: Comparison) -> Finding:
    """The main result: whether a node's ranks take alike times, said only as far as the comparison decides it."""
    if together(variance):
        text = f"Rank times go together within a node: the variance between a phase's nodes is **{phrase(variance)}**"
    elif variance.decided:
        text = f"Ranks of one node differ more than at random: between-node variance is **{phrase(variance)}**"
    else:
        text = f"Undecided: between-node variance of rank times is **{phrase(variance)}**"
    return Finding(text=text + " random placement's.", target="tab-stragglers-against-chance", evidence=(variance,))


def crowding_finding(crowding: Comparison, most: Count, by_chance: float) -> Finding:
    """The slow ranks on the slowest rank's node against random placement (the comparison decides), and the machines
    where most phases crowd them (counted, beside the model's mean)."""
    claim = ("Slow ranks crowd onto the slowest rank's node" if crowding.decided and crowding.ratio > 1
             else "Slow ranks on the slowest rank's node")
    expected = described(by_chance, quantity="machines where most phases crowd, random placement's mean", unit="",
                         n=most.n, replicate=Replicate.MACHINE,
                         how="the mean of the exact random-placement model (Poisson binomial over machines), no "
                             "measurement")
    text = (f"{claim}: **{phrase(crowding)}** the number random placement puts there; most phases crowd them (more "
            f"than {CROWDED}× an even share) in **{phrase(most)}**, {by_chance:.1f} expected at random.")
    return Finding(text=text, target="fig-stragglers-null", evidence=(crowding, most, expected))


def scope_text(scale: Count, others: pd.Series) -> Prose:
    """The page's scope, said once at its top: which file systems the machines with per-rank times run."""
    text = (f"{phrase(scale)} with per-rank times over several nodes are Storage Scale/GPFS systems, so these "
            "results describe those" if scale.k else "No tested machine runs Storage Scale/GPFS")
    return Prose(text + ("; the others: " + "; ".join(f"{present.md_escape(and_(u))} ({f})" for f, u in others.items())
                         if len(others) else "") + ".")


def changes_finding(crowded: pd.DataFrame, changes: Count, variance: Comparison) -> Finding:
    """Whether the crowded node moves from phase to phase within a run, counted by machine."""
    several = crowded[crowded["crowded phases"] > 1]
    held = several[one_node(several)]
    if 2 * changes.k > changes.n:
        text = (f"The crowded node changes from phase to phase: in **{phrase(changes)}** no node holds more than "
                "half of a run's crowded phases")
    else:
        text = (f"The crowded node mostly stays: only in **{phrase(changes)}** does no node hold more than half of "
                "a run's crowded phases")
    text += "".join(f"; in {present.md_escape(e.run)} one node holds {e['most on one node']} of its "
                    f"{e['crowded phases']}" for _, e in held.iterrows()) + "."
    if 2 * changes.k > changes.n:
        text += (" The data show rank times going together within a node, not one bad node." if together(variance)
                 else " The data show no one bad node.")
    return Finding(text=text, target="tab-stragglers-crowded-nodes", evidence=(changes,))


def first_ranks_note(positions: list[int], per_node: int) -> str:
    """Where slow positions begin the equal parts of a node's ranks (a socket's first rank, if ranks were bound in
    order): what usually slows such a rank, and that the data cannot tell which; else nothing."""
    if not equal_part_starts(positions, per_node):
        return ""
    if len(positions) == 1:
        return f"Position {positions[0]} is each node's first rank, on its first socket {BINDING}: {NOISE}."
    return (f"Positions {and_(positions)} each begin one of {len(positions)} equal parts of a node's {per_node} ranks, "
            f"a socket's first rank {BINDING}: {NOISE}.")


def worst_finding(top: pd.Series, positions: pd.DataFrame, nodes: pd.DataFrame, at: list[int],
                  position_runs: list[str]) -> tuple[Finding, dict]:
    """The worst straggler of the timed phases, and what it sits with: a position slow on every node, or its node.
    What usually slows such a position goes to the positions section (`worst_positions_md`)."""
    v = {"worst_run": top.run, "worst_rank": int(top.slowest_rank), "worst_ratio": float(top.ratio)}
    text = (f"The worst straggler: **{present.md_escape(top.run)}**{flag_note(top)}, rank {top.slowest_rank} at **{top.ratio:.2f}×** "
            f"the median rank ({top.max_s:,.1f} s against {top.median_s:,.1f} s)")
    target = "tab-stragglers-runs"
    if pd.notna(top.slowest_node) and top.nodes > 1:
        of_run = positions[positions.run == top.run].set_index("position").relative
        node_rel = float(nodes[nodes.run == top.run].set_index("node").relative[int(top.slowest_node)])
        v["worst_node_relative"] = node_rel
        if at and len(at) * int(top.nodes) > 1:
            v |= {"worst_positions": and_(at), "worst_positions_relative": float(of_run[at].median())}
            text += (f", belongs to a position pattern: the ranks at position{'s' if len(at) > 1 else ''} "
                     f"{and_(at)} of every node are all among the slowest {SLOW_SHARE:.0%} (median "
                     f"{of_run[at].median():.2f}×); its node's median is {node_rel:.2f}×.")
            v["worst_positions_md"] = Prose(first_ranks_note(at, int(top.ranks) // int(top.nodes)))
            target = "fig-stragglers-positions" if top.run in position_runs else target
        else:
            text += f"; its node {int(top.slowest_node)} has a median of {node_rel:.2f}× the phase's"
    text = text.rstrip() if text.rstrip().endswith(".") else text + "."
    return Finding(text=text, target=target, evidence=(described(
        top.ratio, quantity=f"{top.run}: slowest rank over the median rank", unit="x", n=1,
        replicate=Replicate.RUN, how=ONE_PHASE),)), v


def node_finding(w: pd.Series, q: pd.Series) -> Finding:
    """The slowest node group of every tested phase (`w`, its phase `q`), and what mdtest's rank shift leaves
    open."""
    on_it = (f"holding {int(q.slow_on_node)} of its {int(q.slow_ranks)} slowest ranks, {q.slow_expected:.1f} "
             "at random" if q.slowest_node == w.node else "though not its slowest rank")
    text = (f"The slowest node group: **{present.md_escape(w.run)}**{flag_note(w)}, ranks {w.rank_list}, their median at "
            f"**{w.relative:.2f}×** the phase's ({on_it})")
    # mdtest's shift (its log's "Shifting ranks by"; the figure's caption says more): whose node is in question
    text += ("; mdtest shifted ranks here, so the slowness may lie with their node or with the node whose files "
             "they read." if q.shifted else ".")
    return Finding(text=text, target="fig-stragglers-every-run", evidence=(described(
        w.relative, quantity=f"{w.run}: node {int(w.node)}'s median rank over the phase's", unit="x", n=1,
        replicate=Replicate.RUN, how=ONE_PHASE),))


def wait_finding(wait: pd.Series, ratio: Estimate | None, phases: int) -> Finding:
    """The longest wait for a slowest rank, that part of it may be the stonewall's wear-out, and the slowest over the
    median rank's time by machine."""
    longest = described(wait.wait_median_s, quantity=f"{wait.run}: the slowest rank's end after the median rank's",
                        unit="s", n=1, replicate=Replicate.RUN, how=ONE_PHASE)
    records = [longest]
    text = (f"The longest wait: **{present.md_escape(wait.run)}**{flag_note(wait)} waited **{wait.wait_median_s:,.1f} s** for its "
            "slowest rank after the median rank had finished")
    if pd.notna(wait.stonewall_s) and wait.stonewall_items_min > 0:
        text += f", partly wear-out after its {wait.stonewall_s:,.0f} s stonewall, the benchmark's rule"
    if ratio is not None:
        text += f"; {ratio_text(ratio, phases)}"
        records.append(ratio)
    return Finding(text=text + ".", target="tab-stragglers-runs", evidence=tuple(records))


def stonewall_text(wait: pd.Series, walled: pd.DataFrame, last: pd.Series | None, after: Estimate | None,
                   imbalance: Estimate | None, write_phases: int) -> Prose:
    """The stonewall section's sentence: the longest wait's items at its stonewall (wear-out), the tail after the
    stonewall by machine (the slowest rank's end, at most `last`'s; the busiest over the least busy rank's items at
    it)."""
    text = ""
    if pd.notna(wait.stonewall_s) and wait.stonewall_items_min > 0:
        text += (f"At its {wait.stonewall_s:,.0f} s stonewall, {present.md_escape(wait.run)}'s ranks had done "
                 f"{wait.stonewall_items_min:,.0f} to {wait.stonewall_items_max:,.0f} items; with wear-out the lagging "
                 "ranks then catch up to the busiest rank's count, so part of its wait is the benchmark's rule, not a "
                 "straggler. ")
    if after is not None and last is not None:
        text += (f"The slowest rank ended a median **{phrase(after)}** after the stonewall ({len(walled)} IO500 "
                 f"phases; at most {last.after:,.1f} s, {present.md_escape(last.run)}{flag_note(last)}): IO500's rate "
                 "includes that tail. ")
    if imbalance is not None:
        text += (f"At the stonewall the busiest rank had done a median {phrase(imbalance)} the items of the least "
                 f"busy ({write_phases} write phases).")
    return Prose(text.strip())
