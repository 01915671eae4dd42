"""The Stragglers study's analysis: the phases' frames (ranks.py) to evidence records, every count and interval by
machine (iobook.database.setups: one installation, its runs counted once; phases of a run share its nodes, runs of a machine
its hardware). Rank times within a node and the slow ranks on the slowest rank's node are compared with random
placement (evidence.compare_to_reference, decided with the report's other records); random placement's
distribution of crowded phases and machines (the null model the figure draws) is computed exactly."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...database import families
from ...inference.evidence import (Comparison, Count, Estimate, Observations, Replicate, cluster_bootstrap,
                                   compare_to_reference, count)
from .ranks import SLOW_SHARE, clustering_tested

MIN_SECONDS = 1.0  # ratios are read on phases whose slowest rank took at least this long
FAMILY = "stragglers: rank times within a node"
STORAGE_SCALE = "Storage Scale/GPFS"  # families.py's name of the family most runs here belong to
RANDOM_PLACEMENT = "random placement"
CENTRAL = (0.025, 0.975)  # the null model's central 95 % range of a count


def timed(runs: pd.DataFrame) -> pd.DataFrame:
    """The phases whose ratios the findings read: untied, the slowest rank taking at least MIN_SECONDS (else the
    untied phases, else every phase: the tiny runs of a built-from-source test)."""
    untied = runs[~runs.barrier_tied]
    long_enough = untied[untied.max_s >= MIN_SECONDS]
    return long_enough if len(long_enough) else untied if len(untied) else runs


def placement_comparisons(tested: pd.DataFrame) -> list[Comparison]:
    """The tested phases against random placement, each machine one unit (the geometric mean of its phases): the
    variance of log rank times between a phase's nodes over random placement's, and the slow ranks on the slowest
    rank's node over the number random placement puts there. Undecided: the report decides once."""
    units = tested.machine.to_list()
    return [compare_to_reference(
        Observations(values=tested[column].to_numpy(dtype=float), units=units), 1.0, quantity=quantity, unit="×",
        replicate=Replicate.MACHINE, family=FAMILY, label=label, reference_label=RANDOM_PLACEMENT)
        for column, quantity, label in [
            ("node_variance_ratio", "variance of log rank times between nodes over random placement's",
             "ranks grouped by node"),
            ("node_crowding", "slow ranks on the slowest rank's node over random placement's mean",
             f"slowest {SLOW_SHARE:.0%} of ranks")]]


def together(variance: Comparison) -> bool:
    """Whether the chapter may say rank times go together within a node: only where the comparison decides it,
    and in that direction."""
    return variance.decided and variance.ratio > 1


def null_model(runs: pd.DataFrame) -> dict:
    """The number of tested phases whose slowest rank's node holds more than CROWDED times its even share of the
    slow ranks, observed and under random placement: each phase's chance (exact, hypergeometric) summed into the
    distribution of the count (Poisson binomial: phases taken as independent, which phases of one run sharing
    its nodes are not; `null_by_machine` counts by machine), its mean and central 95 % range."""
    tested = runs[clustering_tested(runs)]
    pmf = _poisson_binomial(tested.chance_crowded_node)
    return {"tested": len(tested), "observed": int(tested.crowded_node.sum()),
            "expected": float(tested.chance_crowded_node.sum()), **_central(pmf), "pmf": pmf}


def _poisson_binomial(chances) -> np.ndarray:
    """The distribution of the number of events that happen, each with its own chance, independently."""
    pmf = np.array([1.0])
    for chance in chances:
        pmf = np.convolve(pmf, [1 - chance, chance])
    return pmf


def _central(pmf: np.ndarray) -> dict:
    cdf = np.cumsum(pmf)
    return {"low": int(np.searchsorted(cdf, CENTRAL[0])), "high": int(np.searchsorted(cdf, CENTRAL[1]))}


def null_by_machine(runs: pd.DataFrame) -> dict:
    """The same count by machine (the unit: a machine's runs and their phases together, as its repeat runs are
    not independent): per machine, its tested phases' chances of crowding give the chance that more than half of
    them crowd (Poisson binomial, as under random placement each phase is dealt anew); machines are independent:
    the number of machines where most phases crowd, observed and by chance (mean, central 95 % range)."""
    tested = runs[clustering_tested(runs)]
    majority, observed = [], 0
    for _, g in tested.groupby("machine", sort=True):
        pmf = _poisson_binomial(g.chance_crowded_node)
        most = len(g) // 2 + 1  # more than half of its phases
        majority.append(float(pmf[most:].sum()))
        observed += int(g.crowded_node.sum()) >= most
    return {"machines": len(majority), "observed": int(observed), "expected": float(sum(majority)),
            **_central(_poisson_binomial(majority))}


def crowding_machines(model: dict) -> Count:
    """The machines where most tested phases crowd their slow ranks on one node, counted."""
    return count(model["observed"], model["machines"], of=Replicate.MACHINE,
                 quantity="machines where most phases crowd slow ranks on a node")


def crowded_nodes_by_run(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run with crowded phases, with its machine: how many of its tested phases crowd their slow ranks onto one
    node, on how many different nodes, and how many of them the node crowding most phases holds (a node index: the
    same index in two phases of one run is the same machine, the phases running in one MPI job; in two runs it is
    not)."""
    crowded = runs[clustering_tested(runs) & runs.crowded_node]
    rows = [{"run": unit, "crowded phases": len(g), "on nodes": int(g.slowest_node.nunique()),
             "most on one node": int(g.slowest_node.value_counts().max()), "machine": g.machine.iloc[0]}
            for unit, g in crowded.groupby("unit", sort=True)]
    return pd.DataFrame(rows, columns=["run", "crowded phases", "on nodes", "most on one node", "machine"])


def crowded_table(crowded: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """crowded_nodes_by_run for the page: each run's system as submitted (institution, system; its machine's name
    where it has none) in place of the machine's name, which joins every label of the installation and its file
    systems' long release names, and the other runs of its machine here (the findings count them once)."""
    named = runs.drop_duplicates("unit").set_index("unit")
    system = (named.institution + ", " + named.system).fillna(named.machine)
    others = crowded.groupby("machine").run.agg(list)
    return crowded.assign(**{"system": crowded.run.map(system),
                             "same machine as": [", ".join(r for r in others[m] if r != run)
                                                 for run, m in zip(crowded.run, crowded.machine)]}).drop(
        columns="machine")


def one_node(crowded: pd.DataFrame) -> pd.Series:
    """The runs (of several crowded phases) in which one node holds more than half of them."""
    return 2 * crowded["most on one node"] > crowded["crowded phases"]


def moving_machines(crowded: pd.DataFrame) -> Count:
    """The machines (of those with a run of several crowded phases) in none of whose runs one node holds more than
    half of the run's crowded phases: the crowded node moves from phase to phase."""
    several = crowded[crowded["crowded phases"] > 1]
    held = set(several.machine[one_node(several)])
    machines = set(several.machine)
    return count(len(machines - held), len(machines), of=Replicate.MACHINE,
                 quantity="machines in none of whose runs one node holds most crowded phases")


def storage_scale(tested: pd.DataFrame) -> tuple[Count, pd.Series]:
    """The tested machines on Storage Scale, counted, and the others by family (families.py; "unknown" outside an
    IO500 run)."""
    units = tested.drop_duplicates("machine")[["machine", "run_id", "filesystem", "institution", "system", "year"]]
    fam = families.resolve(units)
    scale = count(int((fam.family == STORAGE_SCALE).sum()), len(fam), quantity="tested machines on Storage Scale",
                  of=Replicate.MACHINE)
    return scale, fam[fam.family != STORAGE_SCALE].groupby("family").machine.agg(sorted)


def worst_groups(groups: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per phase with more than one node (position): the one whose ranks' median time is highest against the
    phase median, worst first."""
    multi = groups[groups.groupby("run")[by].transform("size") > 1]
    return (multi.sort_values(["run", "relative", by], ascending=[True, False, True])
            .groupby("run").head(1).sort_values(["relative", "run"], ascending=[False, True]).reset_index(drop=True))


def slow_positions(positions: pd.DataFrame, run: str) -> list[int]:
    """The positions within a node at which the rank of every node is among the phase's slowest SLOW_SHARE."""
    g = positions[positions.run == run]
    return sorted(int(p) for p in g.position[g.slow == g.ranks])


def equal_part_starts(positions: list[int], tasks_per_node: int) -> bool:
    """Whether `positions` begin the equal parts of a node's ranks (0; 0 and t/2; 0, t/3 and 2t/3; ...): where each
    socket's first rank sits on a node whose sockets take equal shares of its ranks in order. No log records sockets
    or binding, so this is what the positions allow, not what they were."""
    parts = len(positions)
    return parts > 0 and tasks_per_node % parts == 0 and sorted(positions) == [
        j * tasks_per_node // parts for j in range(parts)]


def node_spread(nodes: pd.DataFrame) -> pd.DataFrame:
    """Per phase over several nodes: the range of its nodes' median rank times (relative to the phase median)
    and its slowest node, worst phase first."""
    multi = nodes[nodes.groupby("run").node.transform("size") > 1]
    spread = multi.groupby("run").agg(lowest=("relative", "min"), nodes=("node", "size")).reset_index()
    worst = worst_groups(nodes, "node")[["run", "node", "relative", "first_rank", "last_rank", "rank_list"]]
    return worst.merge(spread, on="run").assign(label=lambda d: "node " + d.node.astype(str))


def median_by_machine(values: pd.Series, machines: pd.Series, *, quantity: str, unit: str = "times") -> Estimate:
    """The median of phases' values with its interval from resampling machines, not phases (phases of one run share
    its nodes, runs of one machine its hardware): n is the number of machines."""
    low, high = cluster_bootstrap(values, machines, np.median)
    n = int(machines.nunique())
    return Estimate(quantity=quantity, unit=unit, value=float(np.median(values)), low=None if n < 2 else low,
                    high=None if n < 2 else high, n=n, replicate=Replicate.MACHINE,
                    method="median over phases, machines resampled (cluster bootstrap)",
                    no_interval="one machine" if n < 2 else None)


def stonewall_table(runs: pd.DataFrame) -> pd.DataFrame:
    """IO500 runs' phases beside their per-rank times: the phase time IO500 printed, the stonewall, the slowest
    and median rank, and for write phases the items per rank done when the stonewall hit, least and most
    (mdtest's "Continue stonewall hit" line, IOR's "stonewalling pairs accessed": transfers)."""
    io500 = runs[runs.run_key.notna()].copy()
    io500["items_ratio"] = io500.stonewall_items_max / io500.stonewall_items_min
    counts = ["stonewall_items_min", "stonewall_items_max", "items_ratio"]
    io500[counts] = io500[counts].astype(float)  # numbers a page aligns and separates ("5,130"), NaN where none
    return io500[["run", "io500_time_s", "stonewall_s", "max_s", "median_s", *counts]].sort_values(
        "run").reset_index(drop=True)


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Every phase for the chapter's table, slowest/median first: short headers, placement beside."""
    shown = runs.sort_values(["ratio", "run"], ascending=[False, True])
    return pd.DataFrame({
        "phase": shown.run, "ranks": shown.ranks.astype(str), "max / median": shown.ratio,
        "wait (s)": shown.wait_median_s, "max / min": shown.spread + 1,
        "between nodes / chance": shown.node_variance_ratio,
        "on node": [_observed(o, e) for o, e in zip(shown.slow_on_node, shown.slow_expected)],
        "P node": shown.p_node,
        "at position": [_observed(o, e) for o, e in zip(shown.slow_at_position, shown.position_expected)],
        "P pos.": shown.p_position})


def _observed(observed, expected) -> str:
    return "–" if pd.isna(observed) else f"{int(observed)} ({expected:.1f})"

