"""The Stragglers study's data: every phase of every per-rank CSV (one copy of each run), its placement (from mdtest's
Nodemap, which IOR phases inherit from their run's mdtest logs) and, per phase, where its slow ranks sit against
random placement. Every rank's time stays in DuckDB (temporary tables of the read-only connection: straggler_ranks,
straggler_placed); Python gets one row per phase, per node and per position of a phase, never one per rank."""
from __future__ import annotations

import math

import pandas as pd
from scipy import stats

from ...database import store

SLOW_SHARE = 0.05  # "the slowest ranks": the slowest 5 % of a phase's ranks (at least one)
# A phase whose ranks all end within 0.1 % of each other was tied by a barrier (IOR -g times each rank to the
# barrier after its transfers): which rank is "slowest" there is timer noise, not a straggler.
BARRIER_TIED = 0.001
# "Crowded": the slowest rank's node holds more than this many times its even share of the slowest ranks
CROWDED = 2
# mdtest's phases that work on items another rank created: with -N it shifts ranks ("Shifting ranks by 208 for
# each phase."), so in these a rank stats, reads or deletes the files of a rank on another node
SHIFTED_OPERATIONS = ("File stat", "File read", "File removal")
BLOCK, ROUND_ROBIN = "block", "round-robin"
NODEMAP = "Nodemap"
OWN_NODEMAP, RUN_NODEMAP = "its mdtest log", "the IO500 run's mdtest logs"  # phases.sql's nodemap_from


def load_phases(con) -> pd.DataFrame:
    """Every phase (one IOR access and iteration, or one mdtest operation, of one per-rank CSV) with at least two
    ranks, one row each: what names it (`run`: '<IO500 run_key> <phase>' for a CSV of an IO500 run, else
    '<file> <operation>'), its run (`unit`: the IO500 run, else the CSV), its machine (`machine`: the unit of
    replication), its ranks' times and its placement. Its ranks stay in DuckDB (straggler_ranks, straggler_placed)
    for the queries below."""
    con.execute(store.query(__package__, "rank_rows"))
    phases = store.frame(con, __package__, "phases")
    if phases.empty:
        return phases
    paths = pd.Series(phases.path.unique())
    phases["file"] = phases.path.map(dict(zip(paths, store.reader_paths(con, paths))))
    per_csv = phases.groupby("csv_source_id")
    several_ops = per_csv["operation"].transform("nunique") > 1
    several_its = per_csv["iteration"].transform("nunique") > 1
    io500 = phases.run_key.notna() & phases.io500_phase.notna()
    phases["run"] = (phases.file + " " + phases.operation).where(~io500, phases.run_key + " " + phases.io500_phase)
    phases.loc[io500 & several_ops, "run"] += " (" + phases.operation + ")"
    phases.loc[several_its, "run"] += ", iteration " + phases.iteration.astype(str)
    phases["unit"] = phases.run_key.fillna(phases.file)
    # the unit of replication: the run's machine (iobook.database.setups: one installation whatever its submission labels),
    # a CSV outside an IO500 run its own
    machines = dict(con.execute(store.query(__package__, "machines")).fetchall())
    phases["machine"] = [machines.get(int(r), u) if pd.notna(r) else u for r, u in zip(phases.run_id, phases.unit)]
    phases = phases[phases.ranks >= 2].reset_index(drop=True)
    found = [placement(t, k, m, s) for t, k, m, s in
             zip(phases.tasks_per_node, phases.ranks, phases.nodemap_ranks, phases.nodemap_stride)]
    tpn = pd.to_numeric(phases.tasks_per_node, errors="coerce")
    phases = phases.assign(placement=[f[0] for f in found], placement_from=[f[1] for f in found],
                           slow_ranks=[max(1, math.ceil(SLOW_SHARE * n)) for n in phases.ranks],
                           node_count=(phases.ranks // tpn.where(tpn > 0)).astype("Int64"))
    placed = phases[["phase_id", "placement", "slow_ranks"]].assign(
        tasks_per_node=tpn.astype("Int64"), nodes=phases.node_count)
    con.register("straggler_placement", placed)
    con.execute(store.query(__package__, "placed"))
    con.unregister("straggler_placement")
    return phases


def placement(tasks_per_node: int | None, ranks: int, nodemap_ranks: int | None,
              nodemap_stride: int | None) -> tuple[str | None, str]:
    """How a phase's ranks sit on its nodes, and how that is known. The logs give tasks per node and, from
    mdtest 3.4 on, a Nodemap of the ranks sharing rank 0's node: `tasks_per_node` ranks 0, 1, 2, ... is
    block placement, ranks 0, N, 2N, ... (N nodes) round-robin; other nodes are taken to follow rank 0's.
    Without a Nodemap, block placement (mpirun's default by slot) is assumed; with an irregular one, or
    no tasks per node, placement is unknown (None)."""
    if pd.isna(tasks_per_node) or tasks_per_node <= 0 or ranks % tasks_per_node:
        return None, "unknown: no tasks per node in the log"
    tasks_per_node, nodes = int(tasks_per_node), ranks // int(tasks_per_node)
    if pd.isna(nodemap_ranks):
        return BLOCK, "assumed (no Nodemap)"
    if nodemap_ranks == tasks_per_node and (tasks_per_node == 1 or nodes == 1 or nodemap_stride == 1):
        return BLOCK, NODEMAP
    if nodemap_ranks == tasks_per_node and nodemap_stride == nodes:
        return ROUND_ROBIN, NODEMAP
    return None, "unknown: the Nodemap is neither block nor round-robin"


def _hypergeom_tail(observed: int, ranks: int, group: int, slow: int) -> float:
    """P(at least `observed` of the `slow` slowest ranks share the slowest rank's group of `group` ranks) when
    the phase's times are dealt to its `ranks` slots at random: the other slow-1 ranks are a draw without
    replacement from the other ranks-1 slots, group-1 of them in the group."""
    return float(stats.hypergeom.sf(observed - 2, ranks - 1, group - 1, slow - 1))


def _chance_crowded(ranks: int, group: int, slow: int) -> float:
    """P(the slowest rank's group of `group` ranks holds more than CROWDED times its even share of the `slow`
    slowest) under random placement."""
    limit = CROWDED * slow * group / ranks  # crowded: more than this many
    return float(stats.hypergeom.sf(math.floor(limit - 1), ranks - 1, group - 1, slow - 1))


def get_runs(con, phases: pd.DataFrame) -> pd.DataFrame:
    """One row per phase (named `run`, as the chapter's tables do): ranks, median/mean/max rank time, the
    slowest rank, slowest/median, the seconds the job waited for its slowest rank (max − median, max − mean),
    the spread of its ranks (max/min − 1; within BARRIER_TIED the ranks were tied by a barrier), and where the
    slowest 5 % of ranks sit: how many share the slowest rank's node and its position within the node, against
    an even spread, with the chance of that many or more under random placement (p_node, p_position;
    `crowded_*`: more than CROWDED times an even share), the slow ranks on the slowest rank's node over the number
    random placement puts there on average (`node_crowding`), and the share of the phase's log rank-time variance
    between nodes over what random placement gives (`node_variance_ratio`)."""
    placed = store.frame(con, __package__, "placement_stats").drop(columns="slow_ranks")
    runs = phases.merge(placed, on="phase_id", how="left", suffixes=("", "_placed"))
    known = runs.placement.notna()
    for column in ("slowest_node", "nodes", "slow_on_node", "slowest_position", "slow_at_position"):
        runs[column] = runs[column].astype("Int64").where(known)
    n, k = runs.ranks, runs.slow_ranks
    runs = runs.assign(
        ratio=(runs.max_s / runs.median_s).where(runs.median_s > 0),
        spread=(runs.max_s / runs.min_s - 1).where(runs.min_s > 0),
        wait_median_s=runs.max_s - runs.median_s, wait_mean_s=runs.max_s - runs.mean_s,
        slow_expected=(k * runs.node_size / n).where(known),
        position_expected=(k * runs.position_size / n).where(known))
    runs["p_node"] = [_hypergeom_tail(o, r, g, s) if ok else math.nan for o, r, g, s, ok in
                      zip(runs.slow_on_node.fillna(0), n, runs.node_size, k, known)]
    runs["p_position"] = [_hypergeom_tail(o, r, g, s) if ok else math.nan for o, r, g, s, ok in
                          zip(runs.slow_at_position.fillna(0), n, runs.position_size, k, known)]
    runs["chance_crowded_node"] = [_chance_crowded(r, g, s) if ok else math.nan
                                   for r, g, s, ok in zip(n, runs.node_size, k, known)]
    # random placement's mean on the slowest rank's node: the slowest itself and the hypergeometric draw of the
    # other slow - 1 from the other ranks - 1 slots, node_size - 1 of them on its node (_hypergeom_tail's model)
    by_chance = 1 + (k - 1) * (runs.node_size - 1) / (n - 1)
    runs["node_crowding"] = (pd.to_numeric(runs.slow_on_node, errors="coerce") / by_chance).where(known)
    runs["barrier_tied"] = runs.spread <= BARRIER_TIED
    runs["crowded_node"] = pd.to_numeric(runs.slow_on_node, errors="coerce") > CROWDED * runs.slow_expected
    runs["crowded_position"] = (pd.to_numeric(runs.slow_at_position, errors="coerce")
                                > CROWDED * runs.position_expected)
    runs["node_variance_ratio"] = (runs.between_node_share / runs.between_node_chance).where(known)
    runs["shifted"] = (runs.tool == "mdtest") & runs.operation.isin(SHIFTED_OPERATIONS)
    return runs.sort_values("run").reset_index(drop=True)


def clustering_tested(runs: pd.DataFrame) -> pd.Series:
    """The phases whose slow ranks' placement is tested: known placement over several nodes, not barrier-tied."""
    return runs.nodes.fillna(0).astype(int).gt(1) & ~runs.barrier_tied


def get_groups(con, runs: pd.DataFrame, by: str) -> pd.DataFrame:
    """One row per node (`by="node"`) or position within a node (`"position"`) of each tested phase: its ranks,
    their median time, that median over the phase's median rank time (`relative`; 1.3 = its ranks took 30 %
    longer), its ranks in short and how many are among the phase's slowest."""
    tested = runs[clustering_tested(runs)]
    groups = store.frame(con, __package__, "groups", [by, [int(p) for p in tested.phase_id]])
    groups = groups.rename(columns={"grouping": by}).merge(tested[["phase_id", "run"]], on="phase_id")
    groups["rank_list"] = [rank_list(f, s, last, n) for f, s, last, n in
                           zip(groups.first_rank, groups.second_rank, groups.last_rank, groups.ranks)]
    return groups.drop(columns="second_rank")


def rank_list(first: int, second, last: int, count: int) -> str:
    """Evenly spaced ranks in short: '180–199' (consecutive), '9–199 by 10' (a stride), '5' (one). No ellipsis:
    the page check reads one as a truncated output."""
    if count == 1:
        return f"{first}"
    if last - first == count - 1:
        return f"{first}–{last}"
    return f"{first}–{last} by {int(second) - first}" if count > 2 else f"{first}, {last}"
