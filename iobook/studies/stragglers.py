"""Stragglers: per-rank times of IOR and mdtest phases (their per-rank CSVs), how long each job waited for its
slowest rank, whether rank times go together within a node or a position within every node (against random
placement; rank placement read from mdtest's Nodemap, which IOR phases inherit from their run's mdtest logs),
and what IO500's stonewall leaves visible.

Memory is bounded by design: every rank's time stays in DuckDB (temporary tables of the read-only connection);
Python gets one row per phase, per node and per position of a phase, never one per rank. A run stored twice
(copies of the archive, or a submission filed twice) counts once."""
from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd
from scipy import stats

from .. import charts, families, present
from ..evidence import (Estimate, Observations, Replicate, cluster_bootstrap, compare_to_reference, count, decide, described,
                        phrase)
from ..report import Finding, Prose, Report, Table

SLOW_SHARE = 0.05  # "the slowest ranks": the slowest 5 % of a phase's ranks (at least one)
MIN_SECONDS = 1.0  # ratios are read on phases whose slowest rank took at least this long
# A phase whose ranks all end within 0.1 % of each other was tied by a barrier (IOR -g times each rank to the
# barrier after its transfers): which rank is "slowest" there is timer noise, not a straggler.
BARRIER_TIED = 0.001
FAMILY = "stragglers: rank times within a node"
STORAGE_SCALE = "Storage Scale/GPFS"  # families.py's name of the family most runs here belong to
# mdtest's phases that work on items another rank created: with -N it shifts ranks ("Shifting ranks by 208 for
# each phase."), so in these a rank stats, reads or deletes the files of a rank on another node
SHIFTED_OPERATIONS = ("File stat", "File read", "File removal")

HOW_TO_ADD = (
    "Save per-rank times when running the benchmarks: IOR `-O saveRankPerformanceDetailsCSV=<file>`, mdtest "
    "`--saveRankPerformanceDetails=<file>` (IO500's C application writes them as `ior-easy-write.csv`, "
    "`mdtest-easy-write.csv`, ... beside its phase logs). Keep each CSV in the folder of the log whose command "
    "names it, then build the book on that folder: `make book DATA=<folder>` "
    "(or `python -m iobook book --data <folder>`).")

# Every rank's time of every per-rank CSV read (one copy of each run: `kept`), with what places it: the IOR
# test or mdtest log whose command line wrote the CSV (same folder, file named on the command line), that
# test's tasks per node, the Nodemap its mdtest log printed (which ranks share rank 0's node), and the items
# per rank at the stonewall. Numbers and ids only: names join once per phase (_PHASES_SQL), so the table stays
# narrow however many ranks it holds, and copies of a run are dropped before their ranks are read.
_RANK_ROWS_SQL = """
CREATE OR REPLACE TEMP TABLE straggler_rows AS
WITH mdtest_logs AS (
    SELECT c.source_id AS csv_source_id, m.source_id AS log_source_id,
           CASE WHEN m.nodes > 0 AND coalesce(m.launched_tasks, m.tasks) % m.nodes = 0
                THEN coalesce(m.launched_tasks, m.tasks) // m.nodes END AS tasks_per_node,
           m.stonewall_items_min, m.stonewall_items_max, m.nodemap_ranks, m.nodemap_stride
    FROM (SELECT DISTINCT source_id, path FROM mdtest_ranks) c
    JOIN mdtest_runs m
      ON regexp_replace(m.path, '[^/]*$', '') = regexp_replace(c.path, '[^/]*$', '')
     AND regexp_extract(regexp_extract(m.command, '--saveRankPerformanceDetails=([^'' ]+)', 1), '[^/]*$')
         = regexp_extract(c.path, '[^/]*$')
    QUALIFY row_number() OVER (PARTITION BY c.source_id ORDER BY m.source_id, m.summary_index) = 1
), csv_logs AS (  -- the log that wrote each per-rank CSV
    SELECT DISTINCT r.csv_source_id, t.source_id AS log_source_id FROM ior_ranks r JOIN ior_tests t USING (test_id)
    UNION
    SELECT DISTINCT k.source_id, l.log_source_id
    FROM mdtest_ranks k LEFT JOIN mdtest_logs l ON l.csv_source_id = k.source_id
), kept AS (
    -- each run once: of a run stored twice, the copy every chapter counts (io500_runs.counted) ...
    SELECT c.csv_source_id
    FROM csv_logs c JOIN sources s ON s.source_id = c.csv_source_id
    LEFT JOIN io500_phase_log_links k ON k.source_id = c.log_source_id
    WHERE k.run_id IS NULL OR k.run_id IN (SELECT run_id FROM io500_runs WHERE counted)
    -- ... and a per-rank CSV stored twice outside a run (the same bytes: the copy read last is kept)
    QUALIFY dense_rank() OVER (PARTITION BY s.sha256 ORDER BY c.csv_source_id DESC) = 1
), ranks AS (
    SELECT 'IOR' AS tool, r.csv_source_id, r.access AS operation, r.iteration, r.rank, r.time_s,
           t.tasks_per_node, t.source_id AS log_source_id,
           -- IOR prints the transfers per rank at the stonewall for the writes
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_min END AS stonewall_items_min,
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_max END AS stonewall_items_max,
           NULL::BIGINT AS nodemap_ranks, NULL::BIGINT AS nodemap_stride,
           t.tasks AS log_tasks, t.nodes AS log_nodes, t.tasks_per_node AS log_tasks_per_node
    FROM ior_ranks r LEFT JOIN ior_tests t USING (test_id)
    WHERE r.csv_source_id IN (SELECT csv_source_id FROM kept)
    UNION ALL
    SELECT 'mdtest', k.source_id, k.operation, 0, k.rank, k.time_s,
           l.tasks_per_node, l.log_source_id, l.stonewall_items_min, l.stonewall_items_max,
           l.nodemap_ranks, l.nodemap_stride, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT
    FROM mdtest_ranks k LEFT JOIN mdtest_logs l ON l.csv_source_id = k.source_id
    WHERE NOT k.all_ranks AND k.source_id IN (SELECT csv_source_id FROM kept)
      -- a phase whose log printed that its operation failed is no phase (mdtest_results.failed)
      AND NOT EXISTS (SELECT 1 FROM raw_mdtest_results x WHERE x.source_id = l.log_source_id
                      AND x.operation = k.operation AND x.failure_line IS NOT NULL)
)
SELECT * FROM ranks WHERE time_s IS NOT NULL
"""

# One row per phase (one CSV's access/operation and iteration) with what names and places it, its ranks'
# times summarised, and the IO500 run and phase its log belongs to (io500_phase_log_links); then each rank's
# time numbered by its phase (straggler_ranks). An IOR phase of an IO500 run takes the Nodemap of the run's
# mdtest logs when they all print the same one: the C application runs every phase in one MPI job.
_PHASES_SQL = """
CREATE OR REPLACE TEMP TABLE straggler_phases AS
WITH run_nodemaps AS (
    SELECT k.run_id, min(m.nodemap_ranks) AS nodemap_ranks, min(m.nodemap_stride) AS nodemap_stride,
           -- the mdtest logs' own tasks and nodes, where they all print the same
           CASE WHEN count(DISTINCT coalesce(m.launched_tasks, m.tasks)) = 1
                THEN min(coalesce(m.launched_tasks, m.tasks)) END AS map_tasks,
           CASE WHEN count(DISTINCT m.nodes) = 1 THEN min(m.nodes) END AS map_nodes
    FROM io500_phase_log_links k JOIN mdtest_runs m USING (source_id)
    WHERE m.nodemap_ranks IS NOT NULL
    GROUP BY k.run_id
    HAVING count(DISTINCT m.nodemap_ranks) = 1 AND count(DISTINCT coalesce(m.nodemap_stride, -1)) = 1
), phases AS (
    SELECT csv_source_id, operation, iteration, any_value(tool) AS tool,
           any_value(tasks_per_node) AS tasks_per_node, any_value(log_source_id) AS log_source_id,
           any_value(stonewall_items_min) AS stonewall_items_min,
           any_value(stonewall_items_max) AS stonewall_items_max, any_value(nodemap_ranks) AS nodemap_ranks,
           any_value(nodemap_stride) AS nodemap_stride, any_value(log_tasks) AS log_tasks,
           any_value(log_nodes) AS log_nodes, any_value(log_tasks_per_node) AS log_tasks_per_node,
           count(*) AS ranks, median(time_s) AS median_s, avg(time_s ORDER BY rank) AS mean_s, max(time_s) AS max_s,
           min(time_s) AS min_s
    FROM straggler_rows GROUP BY csv_source_id, operation, iteration
)
SELECT dense_rank() OVER (ORDER BY s.path, r.operation, r.iteration) AS phase_id,
       r.* EXCLUDE (nodemap_ranks, nodemap_stride, log_tasks, log_nodes, log_tasks_per_node),
       coalesce(r.nodemap_ranks, n.nodemap_ranks) AS nodemap_ranks,
       CASE WHEN r.nodemap_ranks IS NOT NULL THEN r.nodemap_stride ELSE n.nodemap_stride END AS nodemap_stride,
       CASE WHEN r.nodemap_ranks IS NOT NULL THEN 'its mdtest log'
            WHEN n.nodemap_ranks IS NOT NULL THEN 'the IO500 run''s mdtest logs' END AS nodemap_from,
       -- an inherited Nodemap against the IOR log's own shape: its tasks per node = the ranks the map puts on
       -- rank 0's node, its tasks and nodes = the mdtest logs' (NULL: the IOR log prints no shape to check)
       CASE WHEN r.nodemap_ranks IS NULL AND n.nodemap_ranks IS NOT NULL
             AND r.log_tasks_per_node IS NOT NULL AND r.log_nodes IS NOT NULL
            THEN r.log_tasks_per_node = n.nodemap_ranks AND r.log_nodes IS NOT DISTINCT FROM n.map_nodes
                 AND r.log_tasks IS NOT DISTINCT FROM n.map_tasks END AS map_agrees,
       s.path, k.run_id, x.run_key, x.filesystem, x.institution, x.system, x.year,
       p.phase AS io500_phase, p.time_s AS io500_time_s, p.stonewall_s
FROM phases r
JOIN sources s ON s.source_id = r.csv_source_id
LEFT JOIN io500_phase_log_links k ON k.source_id = r.log_source_id
LEFT JOIN io500_runs x ON x.run_id = k.run_id
LEFT JOIN io500_phases p ON p.run_id = k.run_id AND p.phase = k.phase
LEFT JOIN run_nodemaps n ON n.run_id = k.run_id;
CREATE OR REPLACE TEMP TABLE straggler_ranks AS
SELECT p.phase_id, r.rank, r.time_s
FROM straggler_rows r JOIN straggler_phases p USING (csv_source_id, operation, iteration);
DROP TABLE straggler_rows;
"""

# Each rank's node and position within its node (from its phase's placement, straggler_placement: NULL where
# unknown), its order from the slowest (1 = slowest, ties to the lower rank) and its time over the phase's
# median rank time
_PLACED_SQL = """
CREATE OR REPLACE TEMP TABLE straggler_placed AS
SELECT r.phase_id, r.rank, r.time_s, p.slow_ranks,
       CASE p.placement WHEN 'block' THEN r.rank // p.tasks_per_node WHEN 'round-robin' THEN r.rank % p.nodes END
           AS node,
       CASE p.placement WHEN 'block' THEN r.rank % p.tasks_per_node WHEN 'round-robin' THEN r.rank // p.nodes END
           AS position,
       row_number() OVER (PARTITION BY r.phase_id ORDER BY r.time_s DESC, r.rank) AS slowness,
       r.time_s / median(r.time_s) OVER (PARTITION BY r.phase_id) AS relative
FROM straggler_ranks r JOIN straggler_placement p USING (phase_id)
"""

# Sums over ranks are ordered (ORDER BY inside the aggregate): DuckDB's threads otherwise add in any order and
# the last digits, which the chapter's downloads keep, changed from run to run.
# Per phase: its slowest rank, where it sits, and how many of the slowest ranks share its node and position;
# with known placement, the share of the log rank times' variance that lies between nodes (eta squared) and
# what random placement gives on average, (nodes - 1) / (ranks - 1)
_PLACEMENT_STATS_SQL = """
WITH slowest AS (
    SELECT phase_id, any_value(slow_ranks) AS slow_ranks,
           any_value(rank) FILTER (WHERE slowness = 1) AS slowest_rank,
           any_value(node) FILTER (WHERE slowness = 1) AS slowest_node,
           any_value(position) FILTER (WHERE slowness = 1) AS slowest_position,
           count(DISTINCT node) AS nodes, count(*) AS ranks,
           avg(ln(time_s) ORDER BY rank) FILTER (WHERE time_s > 0) AS grand,
           var_pop(ln(time_s) ORDER BY rank) FILTER (WHERE time_s > 0) * count(*) FILTER (WHERE time_s > 0) AS total_ss
    FROM straggler_placed GROUP BY phase_id
), by_node AS (
    SELECT phase_id, node, count(*) AS n, avg(ln(time_s) ORDER BY rank) AS mean_log
    FROM straggler_placed WHERE node IS NOT NULL AND time_s > 0 GROUP BY phase_id, node
), between AS (
    SELECT b.phase_id, sum(b.n * (b.mean_log - s.grand) ^ 2 ORDER BY b.node) AS between_ss
    FROM by_node b JOIN slowest s USING (phase_id) GROUP BY b.phase_id
)
SELECT s.phase_id, s.slow_ranks, s.slowest_rank, s.slowest_node, s.slowest_position, s.nodes,
       count(*) FILTER (WHERE p.node = s.slowest_node) AS node_size,
       count(*) FILTER (WHERE p.node = s.slowest_node AND p.slowness <= s.slow_ranks) AS slow_on_node,
       count(*) FILTER (WHERE p.position = s.slowest_position) AS position_size,
       count(*) FILTER (WHERE p.position = s.slowest_position AND p.slowness <= s.slow_ranks) AS slow_at_position,
       any_value(w.between_ss) / nullif(any_value(s.total_ss), 0) AS between_node_share,
       (s.nodes - 1) / (s.ranks - 1) AS between_node_chance
FROM straggler_placed p JOIN slowest s USING (phase_id) LEFT JOIN between w USING (phase_id)
GROUP BY ALL ORDER BY s.phase_id
"""

# One row per node (or position within a node) of each phase: its ranks, their median time, and the median of
# their times over the phase's median rank time (1 = typical)
_GROUPS_SQL = """
SELECT phase_id, {by}, count(*) AS ranks, median(time_s) AS median_s, median(relative) AS relative,
       min(rank) AS first_rank, max(rank) AS last_rank, list_sort(list(rank))[2] AS second_rank,
       count(*) FILTER (WHERE slowness <= slow_ranks) AS slow
FROM straggler_placed WHERE {by} IS NOT NULL AND list_contains(?, phase_id)
GROUP BY phase_id, {by} ORDER BY phase_id, {by}
"""

BLOCK, ROUND_ROBIN = "block", "round-robin"


def load_phases(con) -> pd.DataFrame:
    """Every phase (one IOR access and iteration, or one mdtest operation, of one per-rank CSV) with at least two
    ranks, one row each: what names it (`run`: '<IO500 run_key> <phase>' for a CSV of an IO500 run, else
    '<file> <operation>'), its unit of replication (`unit`: the IO500 run, else the CSV), its ranks' times and
    its placement. Its ranks stay in DuckDB (straggler_ranks, straggler_placed) for the queries below."""
    con.execute(_RANK_ROWS_SQL)
    con.execute(_PHASES_SQL)
    phases = con.execute("SELECT * FROM straggler_phases ORDER BY phase_id").df()
    if phases.empty:
        return phases
    paths = pd.Series(phases.path.unique())
    phases["file"] = phases.path.map(dict(zip(paths, present.reader_paths(con, paths))))
    per_csv = phases.groupby("csv_source_id")
    several_ops = per_csv["operation"].transform("nunique") > 1
    several_its = per_csv["iteration"].transform("nunique") > 1
    io500 = phases.run_key.notna() & phases.io500_phase.notna()
    phases["run"] = (phases.file + " " + phases.operation).where(~io500, phases.run_key + " " + phases.io500_phase)
    phases.loc[io500 & several_ops, "run"] += " (" + phases.operation + ")"
    phases.loc[several_its, "run"] += ", iteration " + phases.iteration.astype(str)
    phases["unit"] = phases.run_key.fillna(phases.file)
    # the unit of replication: the run's machine (iobook.setups: one installation whatever its submission labels),
    # a CSV outside an IO500 run its own
    machines = dict(con.execute("SELECT run_id, machine FROM setups WHERE machine IS NOT NULL").fetchall())
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
    con.execute(_PLACED_SQL)
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
        return BLOCK, "Nodemap"
    if nodemap_ranks == tasks_per_node and nodemap_stride == nodes:
        return ROUND_ROBIN, "Nodemap"
    return None, "unknown: the Nodemap is neither block nor round-robin"


def _hypergeom_tail(observed: int, ranks: int, group: int, slow: int) -> float:
    """P(at least `observed` of the `slow` slowest ranks share the slowest rank's group of `group` ranks) when
    the phase's times are dealt to its `ranks` slots at random: the other slow-1 ranks are a draw without
    replacement from the other ranks-1 slots, group-1 of them in the group."""
    return float(stats.hypergeom.sf(observed - 2, ranks - 1, group - 1, slow - 1))


def _chance_crowded(ranks: int, group: int, slow: int) -> float:
    """P(the slowest rank's group of `group` ranks holds more than twice its even share of the `slow`
    slowest) under random placement."""
    limit = 2 * slow * group / ranks  # crowded: more than this many
    return float(stats.hypergeom.sf(math.floor(limit - 1), ranks - 1, group - 1, slow - 1))


def get_runs(con, phases: pd.DataFrame) -> pd.DataFrame:
    """One row per phase (named `run`, as the chapter's tables do): ranks, median/mean/max rank time, the
    slowest rank, slowest/median, the seconds the job waited for its slowest rank (max − median, max − mean),
    the spread of its ranks (max/min − 1; within BARRIER_TIED the ranks were tied by a barrier), and where the
    slowest 5 % of ranks sit: how many share the slowest rank's node and its position within the node, against
    an even spread, with the chance of that many or more under random placement (p_node, p_position;
    `crowded_*`: more than twice an even share), and the share of the phase's log rank-time variance between
    nodes over what random placement gives (`node_variance_ratio`)."""
    placed = con.execute(_PLACEMENT_STATS_SQL).df().drop(columns="slow_ranks")
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
    runs["barrier_tied"] = runs.spread <= BARRIER_TIED
    runs["crowded_node"] = pd.to_numeric(runs.slow_on_node, errors="coerce") > 2 * runs.slow_expected
    runs["crowded_position"] = pd.to_numeric(runs.slow_at_position, errors="coerce") > 2 * runs.position_expected
    runs["node_variance_ratio"] = (runs.between_node_share / runs.between_node_chance).where(known)
    runs["shifted"] = (runs.tool == "mdtest") & runs.operation.isin(SHIFTED_OPERATIONS)
    return runs.sort_values("run").reset_index(drop=True)


def clustering_tested(runs: pd.DataFrame) -> pd.Series:
    """The phases whose slow ranks' placement is tested: known placement over several nodes, not barrier-tied."""
    return runs.nodes.fillna(0).astype(int).gt(1) & ~runs.barrier_tied


def null_model(runs: pd.DataFrame) -> dict:
    """The number of tested phases whose slowest rank's node holds more than twice its even share of the slow
    ranks, observed and under random placement: each phase's chance (exact, hypergeometric) summed into the
    distribution of the count (Poisson binomial: phases taken as independent, which phases of one run sharing
    its nodes are not; `null_by_machine` counts by machine), its mean and central 95 % range."""
    tested = runs[clustering_tested(runs)]
    pmf = _poisson_binomial(tested.chance_crowded_node)
    cdf = np.cumsum(pmf)
    return {"tested": len(tested), "observed": int(tested.crowded_node.sum()),
            "expected": float(tested.chance_crowded_node.sum()),
            "low": int(np.searchsorted(cdf, 0.025)), "high": int(np.searchsorted(cdf, 0.975)), "pmf": pmf}


def _poisson_binomial(chances) -> np.ndarray:
    """The distribution of the number of events that happen, each with its own chance, independently."""
    pmf = np.array([1.0])
    for chance in chances:
        pmf = np.convolve(pmf, [1 - chance, chance])
    return pmf


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
    pmf = _poisson_binomial(majority)
    cdf = np.cumsum(pmf)
    return {"machines": len(majority), "observed": int(observed), "expected": float(sum(majority)),
            "low": int(np.searchsorted(cdf, 0.025)), "high": int(np.searchsorted(cdf, 0.975))}


def crowded_nodes_by_run(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run with crowded phases: how many of its tested phases crowd their slow ranks onto one node, on how
    many different nodes, and how many of them the node crowding most phases holds (a node index: the same
    index in two phases of one run is the same machine, the phases running in one MPI job)."""
    crowded = runs[clustering_tested(runs) & runs.crowded_node]
    rows = [{"run": unit, "crowded phases": len(g), "on nodes": int(g.slowest_node.nunique()),
             "most on one node": int(g.slowest_node.value_counts().max())}
            for unit, g in crowded.groupby("unit", sort=True)]
    return pd.DataFrame(rows, columns=["run", "crowded phases", "on nodes", "most on one node"])


def get_groups(con, runs: pd.DataFrame, by: str) -> pd.DataFrame:
    """One row per node (`by="node"`) or position within a node (`"position"`) of each tested phase: its ranks,
    their median time, that median over the phase's median rank time (`relative`; 1.3 = its ranks took 30 %
    longer), its ranks in short and how many are among the phase's slowest."""
    tested = runs[clustering_tested(runs)]
    groups = con.execute(_GROUPS_SQL.format(by=by), [[int(p) for p in tested.phase_id]]).df()
    groups = groups.merge(tested[["phase_id", "run"]], on="phase_id")
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


def chart_null(model: dict) -> alt.Chart:
    """How many tested phases would have their slow ranks crowded on one node by chance (bars: the probability
    of each count under random placement) against the count observed (red rule)."""
    pmf = pd.DataFrame({"phases": np.arange(len(model["pmf"])), "probability": model["pmf"]})
    shown = pmf[pmf.probability > 1e-4]
    x = alt.X("phases:Q", title=f"phases of {model['tested']} with slow ranks crowded on one node",
              scale=alt.Scale(domain=[0, max(model["tested"], 1)], nice=False))
    bars = alt.Chart(shown).mark_bar(color="#7f8c8d").encode(
        x=x, y=alt.Y("probability:Q", title="probability under random placement"),
        tooltip=["phases", alt.Tooltip("probability:Q", format=".4f")])
    # the observed count as a datum on the data aggregated to one row: one mark, and no second dataset
    one = alt.Chart(shown).transform_aggregate(rows="count()")
    observed = one.mark_rule(color="#c0392b", size=2).encode(x=alt.datum(model["observed"]))
    label = one.mark_text(align="right", dx=-4, baseline="top", color="#c0392b").encode(
        x=alt.datum(model["observed"]), y=alt.value(4), text=alt.datum(f"observed: {model['observed']}"))
    return (bars + observed + label).properties(width=440, height=260, title=alt.TitleParams(
        [f"Slow ranks crowd onto one node in {model['observed']} of {model['tested']} phases;",
         f"random placement gives {model['expected']:.0f} ({model['low']}–{model['high']})"],
        subtitle="bars: the count under random placement"))


def chart_positions(positions: pd.DataFrame, n_runs: int = 3) -> alt.Chart:
    """Position within a node against the median time of the ranks at that position (one on each node)
    relative to the phase median, for the n_runs phases whose worst position stands out most."""
    worst = worst_groups(positions, "position").head(n_runs)
    shown = positions[positions.run.isin(worst.run)]
    top = worst.iloc[0]
    # lines only: a point a position would put hundreds of marks, each with its tooltip, into the page
    return alt.Chart(shown).mark_line(strokeWidth=1.5).encode(
        x=alt.X("position:Q", title="position within the node (0 = the node's first rank)"),
        y=alt.Y("relative:Q", title="median over nodes / phase median", scale=alt.Scale(zero=False)),
        color=alt.Color("run:N", title=None, sort=list(worst.run), legend=alt.Legend(orient="bottom", columns=1)),
        tooltip=["run", "position", "ranks", "rank_list",
                 alt.Tooltip("median_s:Q", format=".2f", title="median rank time (s)"),
                 alt.Tooltip("relative:Q", format=".3f", title="relative to phase median")],
    ).properties(width=440, height=260, title=alt.TitleParams(
        [f"Worst position: {top.run},", f"position {top.position} of every node at {top.relative:.2f}× the median"],
        subtitle="the median over the nodes of the ranks at each position"))


def node_spread(nodes: pd.DataFrame) -> pd.DataFrame:
    """Per phase over several nodes: the range of its nodes' median rank times (relative to the phase median)
    and its slowest node, worst phase first."""
    multi = nodes[nodes.groupby("run").node.transform("size") > 1]
    spread = multi.groupby("run").agg(lowest=("relative", "min"), nodes=("node", "size")).reset_index()
    worst = worst_groups(nodes, "node")[["run", "node", "relative", "first_rank", "last_rank", "rank_list"]]
    return worst.merge(spread, on="run").assign(label=lambda d: "node " + d.node.astype(str))


EVERY_RUN_MARKS = 3  # a rule, a point and a label per phase
# a row per phase, 13 px each: 120 rows is a 1,560 px chart. 738 rows (the shared archive) took vl-convert 169 s.
EVERY_RUN_ROWS = 120


def chart_every_run(spread: pd.DataFrame) -> tuple[alt.Chart, str]:
    """Every phase over several nodes on one row (up to EVERY_RUN_ROWS: the phases whose slowest node stands
    out most): the range of its nodes' relative times as a line, its slowest node as a labelled point. Returns
    the chart and the sentence its caption adds when phases were left out."""
    shown, note = charts.within_mark_cap(spread, marks_per_row=EVERY_RUN_MARKS, what="phases",
                                         max_rows=EVERY_RUN_ROWS)
    base = alt.Chart(shown).encode(y=alt.Y("run:N", sort=list(shown.run), title=None,
                                           axis=alt.Axis(labelLimit=220)))
    scale = alt.Scale(zero=False)
    ranges = base.mark_rule(color="#999").encode(
        x=alt.X("lowest:Q", scale=scale, title="node's median rank time / phase median (range over its nodes)"),
        x2="relative:Q")
    tooltip = ["run", "label", "rank_list", "nodes",
               alt.Tooltip("relative:Q", format=".3f", title="slowest node / phase median"),
               alt.Tooltip("lowest:Q", format=".3f", title="fastest node / phase median")]
    points = base.mark_point(filled=True, size=30, color="#c0392b").encode(x=alt.X("relative:Q", scale=scale),
                                                                          tooltip=tooltip)
    labels = base.mark_text(align="left", dx=6, fontSize=9).encode(x=alt.X("relative:Q", scale=scale),
                                                                   text="label:N")
    top = shown.iloc[0]
    drawn = f"{len(shown):,} of {len(spread):,}" if len(shown) < len(spread) else f"{len(spread):,}"
    chart = (ranges + points + labels).properties(width=340, height=alt.Step(13), title=alt.TitleParams(
        [f"The slowest node of each of {drawn} phases;", f"worst: {top.run}, {top.label} at {top.relative:.2f}×"],
        subtitle="one row per phase: its nodes' range and its slowest node"))
    return chart, note


def stonewall_table(runs: pd.DataFrame) -> pd.DataFrame:
    """IO500 runs' phases beside their per-rank times: the phase time IO500 printed, the stonewall, the slowest
    and median rank, and for write phases the items per rank done when the stonewall hit, least and most
    (mdtest's "Continue stonewall hit" line, IOR's "stonewalling pairs accessed": transfers)."""
    io500 = runs[runs.run_key.notna()].copy()
    io500["items_ratio"] = io500.stonewall_items_max / io500.stonewall_items_min
    return io500[["run", "io500_time_s", "stonewall_s", "max_s", "median_s", "stonewall_items_min",
                  "stonewall_items_max", "items_ratio"]].sort_values("run").reset_index(drop=True)


def _and(items: list) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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


def _median_by_machine(values: pd.Series, units: pd.Series, *, quantity: str) -> Estimate:
    """The median of phases' values with its interval from resampling machines, not phases (phases of one run share
    its nodes, runs of one machine its hardware): n is the number of machines."""
    low, high = cluster_bootstrap(values, units, np.median)
    n = int(units.nunique())
    return Estimate(quantity=quantity, unit="times", value=float(np.median(values)), low=None if n < 2 else low,
                    high=None if n < 2 else high, n=n, replicate=Replicate.MACHINE,
                    method="median over phases, machines resampled (cluster bootstrap)",
                    no_interval="one machine" if n < 2 else None)


def _placement_values(runs: pd.DataFrame) -> dict:
    """How each phase's placement is known, counted, and the sentence that says it."""
    from_map = runs.placement_from == "Nodemap"
    inherited = from_map & (runs.nodemap_from == "the IO500 run's mdtest logs")
    v = {"placement_own": int((from_map & (runs.nodemap_from == "its mdtest log")).sum()),
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


def _families(tested: pd.DataFrame) -> pd.DataFrame:
    """One row per tested machine with its file-system family (families.py; "unknown" outside an IO500 run)."""
    units = tested.drop_duplicates("machine")[["machine", "run_id", "filesystem", "institution", "system", "year"]]
    return families.resolve(units)


def report(con) -> Report:
    """The chapter: every phase's wait for its slowest rank, whether rank times go together within a node
    (decided by run), where the slow ranks sit, and the stonewall's share of the tail."""
    phases = load_phases(con)
    if phases.empty:
        return Report(values={"has_data": False}, note=present.no_data("per-rank times of IOR or mdtest", HOW_TO_ADD))
    runs = get_runs(con, phases)
    tested = runs[clustering_tested(runs)]
    nodes, positions = get_groups(con, runs, "node"), get_groups(con, runs, "position")
    position_runs = worst_groups(positions, "position").head(3).run.tolist()
    stonewall = stonewall_table(runs)
    v = {"has_data": True, "has_nodes": len(tested) > 0, "single_node": len(tested) == 0,
         "has_positions": len(position_runs) > 0, "has_stonewall": len(stonewall) > 0,
         "slow_share": f"{SLOW_SHARE:.0%}", "barrier_tied": f"{BARRIER_TIED:.1%}", "min_seconds": f"{MIN_SECONDS:g}",
         "phases": len(runs), "units": int(runs.unit.nunique()), "machines": int(runs.machine.nunique()), "ior_phases": int((runs.tool == "IOR").sum()),
         "mdtest_phases": int((runs.tool == "mdtest").sum()), "ranks": int(runs.ranks.sum()),
         "tested": len(tested), **_placement_values(runs)}
    tied = int(runs.barrier_tied.sum())
    v["tied_text"] = Prose(
        f"{tied} of the {len(runs)} phases are barrier-tied, every rank ending within {BARRIER_TIED:.1%} of the "
        f"others ({int((runs.barrier_tied & (runs.tool == 'IOR')).sum())} of them IOR), and are left out of the "
        "placement tests." if tied else
        f"No phase is barrier-tied: in each of the {len(runs)} phases some rank ended more than {BARRIER_TIED:.1%} "
        "after another.")
    tables = {"tab-stragglers-runs": Table(frame=runs_table(runs), formats={
        "max / median": ".3f", "wait (s)": ",.1f", "max / min": ".4f", "between nodes / chance": ".2f",
        "P node": ".1g", "P pos.": ".1g"})}
    figures, found, evidence = {}, [], []

    untied = runs[~runs.barrier_tied]
    timed = untied[untied.max_s >= MIN_SECONDS]
    timed = timed if len(timed) else untied if len(untied) else runs
    ratio = _median_by_machine(timed.ratio, timed.machine, quantity="slowest over median rank time")
    evidence.append(ratio)
    ratio_text = f"the slowest rank took a median {phrase(ratio)} the median rank's time over {len(timed):,} phases"

    if len(tested):
        variance = decide([compare_to_reference(
            Observations(values=tested.node_variance_ratio.to_numpy(), units=tested.machine.to_list()), 1.0,
            quantity="variance of log rank times between nodes over random placement's", unit="×",
            replicate=Replicate.MACHINE, family=FAMILY, label="ranks grouped by node",
            reference_label="random placement")])[0]
        evidence.append(variance)
        v.update(variance_ratio=variance.ratio, variance_decided=variance.decided,
                 variance_text=Prose(phrase(variance)))
        found.append(Finding(text=f"Rank times go together within a node: the variance between a phase's nodes is "
                                  f"**{phrase(variance)}** random placement's.",
                             target="tab-stragglers-runs", evidence=(variance,)))
        model, by_machine = null_model(runs), null_by_machine(runs)
        v.update({f"null_{k}": x for k, x in model.items() if k != "pmf"})
        v.update({f"null_machine_{k}": x for k, x in by_machine.items()})
        most = count(by_machine["observed"], by_machine["machines"],
                     quantity="machines where most phases crowd slow ranks on a node", of=Replicate.MACHINE)
        evidence.append(most)
        found.append(Finding(
            text=(f"Slow ranks crowd onto one node in most phases of **{phrase(most)}**, against "
                  f"{by_machine['expected']:.1f} expected at random (95% range {by_machine['low']}–{by_machine['high']}); "
                  f"{model['observed']} of {model['tested']} phases ({model['expected']:.0f} expected)."),
            target="fig-stragglers-null", evidence=(most,)))
        crowded = crowded_nodes_by_run(runs)
        several = crowded[crowded["crowded phases"] > 1]
        moving = several[2 * several["most on one node"] <= several["crowded phases"]]
        changes = count(len(moving), len(several), quantity="runs whose crowded phases sit on no one node in most")
        evidence.append(changes)
        example = moving.sort_values(["on nodes", "run"], ascending=[False, True]).head(1)
        v.update(node_changes=changes.k, node_changes_of=changes.n)
        found.append(Finding(
            text=(f"The crowded node changes from phase to phase: in **{phrase(changes)}** no node holds more than "
                  "half of the run's crowded phases"
                  + "".join(f" ({present.md_escape(e.run)}: {e['crowded phases']} phases on {e['on nodes']} nodes)"
                            for _, e in example.iterrows())
                  + "".join(f"; in {present.md_escape(e.run)} one node holds {e['most on one node']} of its "
                            f"{e['crowded phases']}" for _, e in several[~several.run.isin(moving.run)].iterrows())
                  + ". The data show rank times going together within a node, not one bad node."),
            target="tab-stragglers-crowded-nodes", evidence=(changes,)))
        tables["tab-stragglers-crowded-nodes"] = Table(frame=crowded)
        fam = _families(tested)
        scale = count(int((fam.family == STORAGE_SCALE).sum()), len(fam), quantity="tested machines on Storage Scale",
                      of=Replicate.MACHINE)
        evidence.append(scale)
        others = fam[fam.family != STORAGE_SCALE].groupby("family").machine.agg(lambda u: _and(sorted(u)))
        v.update(storage_scale_machines=scale.k, tested_machines=scale.n)
        # said with the crowding it qualifies: the page opens with at most six findings
        found[-2] = Finding(text=found[-2].text + (
            f" {phrase(scale)} are {STORAGE_SCALE} systems, so these results describe those"
            + ("; the others: " + "; ".join(f"{present.md_escape(u)} ({f})" for f, u in others.items()) if len(others)
               else "") + "."), target=found[-2].target, evidence=(*found[-2].evidence, scale))
    else:
        found.append(Finding(text=f"No phase here spans several nodes with known placement; {ratio_text}.",
                             target="tab-stragglers-runs", evidence=(ratio,)))

    # the worst straggler, and what it sits with
    top = timed.sort_values(["ratio", "run"], ascending=[False, True]).iloc[0]
    v.update(worst_run=top.run, worst_rank=int(top.slowest_rank), worst_ratio=float(top.ratio))
    worst = (f"The worst straggler: **{present.md_escape(top.run)}**, rank {top.slowest_rank} at **{top.ratio:.2f}×** "
             f"the median rank ({top.max_s:,.1f} s against {top.median_s:,.1f} s)")
    worst_target = "tab-stragglers-runs"
    if pd.notna(top.slowest_node) and top.nodes > 1:
        at = slow_positions(positions, top.run)
        of_run = positions[positions.run == top.run].set_index("position").relative
        node_rel = float(nodes[nodes.run == top.run].set_index("node").relative[int(top.slowest_node)])
        v.update(worst_node_relative=node_rel)
        if at and len(at) * int(top.nodes) > 1:
            v.update(worst_positions=_and(at), worst_positions_relative=float(of_run[at].median()))
            worst += (f", belongs to a position pattern: the ranks at position{'s' if len(at) > 1 else ''} "
                      f"{_and(at)} of every node are all among the slowest {SLOW_SHARE:.0%} (median "
                      f"{of_run[at].median():.2f}×); its node's median is {node_rel:.2f}×")
            worst_target = "fig-stragglers-positions" if top.run in position_runs else worst_target
        else:
            worst += f"; its node {int(top.slowest_node)} has a median of {node_rel:.2f}× the phase's"
    found.append(Finding(text=worst + ".", target=worst_target, evidence=(described(
        top.ratio, quantity=f"{top.run}: slowest rank over the median rank", unit="x", n=1,
        replicate=Replicate.RUN, how="one phase of one run, its ranks no repetitions"),)))

    if len(positions):
        p = worst_groups(positions, "position").iloc[0]
        v.update(position_run=p.run, position=int(p.position), position_relative=float(p.relative),
                 position_ranks=p.rank_list)
        figures["fig-stragglers-positions"] = chart_positions(positions)

    # the slowest node over every tested phase, and whose files its ranks worked on
    if len(nodes):
        w = worst_groups(nodes, "node").iloc[0]
        q = tested.set_index("run").loc[w.run]
        v.update(node_run=w.run, node=int(w.node), node_ranks=w.rank_list, node_relative=float(w.relative),
                 node_shifted=bool(q.shifted))
        on_it = (f"holding {int(q.slow_on_node)} of its {int(q.slow_ranks)} slowest ranks, {q.slow_expected:.1f} "
                 "at random" if q.slowest_node == w.node else "though not its slowest rank")
        text = (f"The slowest node group: **{present.md_escape(w.run)}**, ranks {w.rank_list}, their median at "
                f"**{w.relative:.2f}×** the phase's ({on_it}).")
        if q.shifted:
            text += (" In this phase mdtest shifted ranks (its log prints \"Shifting ranks by\", which ingest does "
                     "not keep): these ranks worked on files that ranks on another node created, so the slowness "
                     "may lie with their node or with the files' node; the data show which ranks were slow, not "
                     "which machine to check.")
        found.append(Finding(text=text, target="fig-stragglers-every-run", evidence=(described(
            w.relative, quantity=f"{w.run}: node {int(w.node)}'s median rank over the phase's", unit="x", n=1,
            replicate=Replicate.RUN, how="one phase of one run, its ranks no repetitions"),)))
        spread = node_spread(nodes)
        figures["fig-stragglers-every-run"], v["every_run_note"] = chart_every_run(spread)
        figures["fig-stragglers-null"] = chart_null(model)
        tables["tab-stragglers-worst-nodes"] = Table(
            frame=worst_groups(nodes, "node")[["run", "node", "rank_list", "ranks", "median_s", "relative"]].rename(
                columns={"run": "phase", "rank_list": "its ranks", "median_s": "median (s)",
                         "relative": "/ phase median"}),
            formats={"median (s)": ",.2f", "/ phase median": ".3f"})
        v["shifted_tested"] = int(tested.shifted.sum())

    # how long jobs waited, and what the stonewall leaves in that wait
    wait = runs.sort_values(["wait_median_s", "run"], ascending=[False, True]).iloc[0]
    v.update(wait_run=wait.run, wait_s=float(wait.wait_median_s), median_wait_s=float(runs.wait_median_s.median()))
    text = (f"The longest wait: **{present.md_escape(wait.run)}** waited **{wait.wait_median_s:,.1f} s** for its "
            "slowest rank after the median rank had finished")
    if pd.notna(wait.stonewall_s) and wait.stonewall_items_min > 0:
        text += (f"; at its {wait.stonewall_s:,.0f} s stonewall its ranks had done {wait.stonewall_items_min:,.0f} "
                 f"to {wait.stonewall_items_max:,.0f} items, and with wear-out the lagging ranks then catch up to the "
                 "busiest rank's count, so part of that wait is the benchmark's rule, not a straggler")
    found.append(Finding(text=text + (f"; {ratio_text}." if len(tested) else "."), target="tab-stragglers-runs",
                         evidence=(ratio,)))

    walled = runs[runs.run_key.notna() & runs.stonewall_s.notna()]
    if len(walled):
        walled = walled.assign(after=walled.max_s - walled.stonewall_s)
        last = walled.sort_values(["after", "run"], ascending=[False, True]).iloc[0]
        v.update(after_stonewall_s=float(walled.after.median()), after_stonewall_max_s=float(last.after),
                 after_stonewall_run=last.run)
        text = (f"The slowest rank ended a median **{walled.after.median():,.1f} s after the stonewall** "
                f"({len(walled)} IO500 phases of {walled.unit.nunique()} runs; at most {last.after:,.1f} s, "
                f"{present.md_escape(last.run)}): IO500's rate includes that tail.")
        counted = walled[walled.stonewall_items_min > 0]
        if len(counted):
            imbalance = _median_by_machine(counted.stonewall_items_max / counted.stonewall_items_min, counted.machine,
                                       quantity="busiest over least busy rank's items at the stonewall")
            evidence.append(imbalance)
            v.update(imbalance_median=imbalance.value)
            text += (f" At the stonewall the busiest rank had done a median {phrase(imbalance)} the items of the "
                     f"least busy ({len(counted)} write phases).")
        # the stonewall's share of the wait, with the longest wait it explains (at most six findings)
        found[-1] = Finding(text=found[-1].text + " " + text, target=found[-1].target,
                            evidence=(*found[-1].evidence, *evidence[-1:]))
        tables["tab-stragglers-stonewall"] = Table(
            frame=stonewall.rename(columns={
                "run": "phase", "io500_time_s": "IO500 time (s)", "stonewall_s": "stonewall (s)",
                "max_s": "slowest (s)", "median_s": "median (s)", "stonewall_items_min": "items, least",
                "stonewall_items_max": "items, most", "items_ratio": "most / least"}),
            formats={"IO500 time (s)": ",.2f", "stonewall (s)": ",.0f", "slowest (s)": ",.2f",
                     "median (s)": ",.2f", "most / least": ".2f"})
    # the landing page leads with a run's slow ranks tied to their position within every node, when one is
    return Report(values=v, tables=tables, figures=figures, findings=found, evidence=evidence,
                  abstract=[f for f in found if f.target == "fig-stragglers-positions"])
