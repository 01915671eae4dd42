"""Stragglers: per-rank times of IOR and mdtest phases (their per-rank CSVs), how long each job waited for its
slowest rank, whether the slow ranks sit on one node or at one position within every node (against random
placement, counted by phase and by run; rank placement read from mdtest's Nodemap, which IOR phases inherit from
their run's mdtest logs), and what IO500's stonewall leaves visible."""
from __future__ import annotations

import math

import altair as alt
from IPython.display import Markdown
import numpy as np
import pandas as pd
from scipy import stats

from .. import nb
from .. import stats as stats_

SLOW_SHARE = 0.05  # "the slowest ranks": the slowest 5 % of a run's ranks (at least one)
MIN_SECONDS = 1.0  # findings quote ratios of runs whose slowest rank took at least this long
# A run whose ranks all end within 0.1 % of each other was tied by a barrier (IOR -g times each rank to the
# barrier after its transfers): which rank is "slowest" there is timer noise, not a straggler.
BARRIER_TIED = 0.001
FDR = 0.05  # Benjamini-Hochberg false discovery rate over the runs tested together

HOW_TO_ADD = (
    "Save per-rank times when running the benchmarks: IOR `-O saveRankPerformanceDetailsCSV=<file>`, mdtest "
    "`--saveRankPerformanceDetails=<file>` (IO500's C application writes them as `ior-easy-write.csv`, "
    "`mdtest-easy-write.csv`, ... beside its phase logs). Keep each CSV in the folder of the log whose command "
    "names it, then build the book on that folder: `make book DATA=<folder>` "
    "(or `python -m iobook book --data <folder>`).")

# One row per rank and measured phase of every per-rank CSV, with what names and places it: the IOR test or
# mdtest log whose command line wrote the CSV (same folder, file named on the command line), that test's
# tasks per node, the Nodemap its mdtest log printed (which ranks share rank 0's node), and the IO500 run
# and phase the log belongs to (io500_phase_log_links). An IOR phase of an IO500 run takes the Nodemap of
# the run's mdtest logs when they all print the same one: the C application runs every phase in one MPI job.
_RANKS_SQL = """
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
), ranks AS (
    SELECT 'IOR' AS tool, r.csv_source_id, r.access AS operation, r.iteration, r.rank, r.time_s,
           t.tasks_per_node, t.source_id AS log_source_id,
           -- IOR prints the transfers per rank at the stonewall for the writes
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_min END AS stonewall_items_min,
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_max END AS stonewall_items_max,
           NULL::BIGINT AS nodemap_ranks, NULL::BIGINT AS nodemap_stride,
           t.tasks AS log_tasks, t.nodes AS log_nodes, t.tasks_per_node AS log_tasks_per_node
    FROM ior_ranks r LEFT JOIN ior_tests t USING (test_id)
    UNION ALL
    SELECT 'mdtest', k.source_id, k.operation, 0, k.rank, k.time_s,
           l.tasks_per_node, l.log_source_id, l.stonewall_items_min, l.stonewall_items_max,
           l.nodemap_ranks, l.nodemap_stride, NULL::BIGINT, NULL::BIGINT, NULL::BIGINT
    FROM mdtest_ranks k LEFT JOIN mdtest_logs l ON l.csv_source_id = k.source_id
    WHERE NOT k.all_ranks
), run_nodemaps AS (
    SELECT k.run_id, min(m.nodemap_ranks) AS nodemap_ranks, min(m.nodemap_stride) AS nodemap_stride,
           -- the mdtest logs' own tasks and nodes, where they all print the same
           CASE WHEN count(DISTINCT coalesce(m.launched_tasks, m.tasks)) = 1
                THEN min(coalesce(m.launched_tasks, m.tasks)) END AS map_tasks,
           CASE WHEN count(DISTINCT m.nodes) = 1 THEN min(m.nodes) END AS map_nodes
    FROM io500_phase_log_links k JOIN mdtest_runs m USING (source_id)
    WHERE m.nodemap_ranks IS NOT NULL
    GROUP BY k.run_id
    HAVING count(DISTINCT m.nodemap_ranks) = 1 AND count(DISTINCT coalesce(m.nodemap_stride, -1)) = 1
)
SELECT r.* EXCLUDE (nodemap_ranks, nodemap_stride),
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
       s.path, x.run_key, p.phase AS io500_phase, p.time_s AS io500_time_s, p.stonewall_s
FROM ranks r
JOIN sources s ON s.source_id = r.csv_source_id
LEFT JOIN io500_phase_log_links k ON k.source_id = r.log_source_id
LEFT JOIN io500_runs x ON x.run_id = k.run_id
LEFT JOIN io500_phases p ON p.run_id = k.run_id AND p.phase = k.phase
LEFT JOIN run_nodemaps n ON n.run_id = k.run_id
WHERE r.time_s IS NOT NULL
ORDER BY s.path, r.operation, r.iteration, r.rank
"""

BLOCK, ROUND_ROBIN = "block", "round-robin"


def get_rank_times(con) -> pd.DataFrame:
    """Every rank's time (s) of every run, a run being one measured phase (IOR access and iteration, mdtest
    operation) of one per-rank CSV, named `run`: '<IO500 run_key> <phase>' when the CSV belongs to an IO500
    run, else '<file> <operation>'. Runs with fewer than two ranks are left out (no one to wait for). Each
    rank's node and position within its node follow from the run's placement (see `placement`)."""
    df = con.execute(_RANKS_SQL).df()
    if df.empty:
        return df.assign(file=pd.Series(dtype=str), run=pd.Series(dtype=str), placement=pd.Series(dtype=str),
                         placement_from=pd.Series(dtype=str), node=pd.Series(dtype="Int64"),
                         position=pd.Series(dtype="Int64"))
    paths = pd.Series(df.path.unique())  # one per CSV: mapping 90,000 rows' paths one by one took 10 s
    df["file"] = df.path.map(dict(zip(paths, nb.reader_paths(con, paths))))
    per_csv = df.groupby("csv_source_id")
    several_ops = per_csv["operation"].transform("nunique") > 1
    several_its = per_csv["iteration"].transform("nunique") > 1
    io500 = df.run_key.notna() & df.io500_phase.notna()
    df["run"] = (df.file + " " + df.operation).where(~io500, df.run_key + " " + df.io500_phase)
    df.loc[io500 & several_ops, "run"] += " (" + df.operation + ")"
    df.loc[several_its, "run"] += ", iteration " + df.iteration.astype(str)
    df = df[df.groupby("run")["rank"].transform("size") >= 2].reset_index(drop=True)
    return place(df)


def placement(tasks_per_node: int | None, ranks: int, nodemap_ranks: int | None,
              nodemap_stride: int | None) -> tuple[str | None, str]:
    """How a run's ranks sit on its nodes, and how that is known. The logs give tasks per node and, from
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


def place(ranks: pd.DataFrame) -> pd.DataFrame:
    """Each rank's node index and position within its node (0 = its node's first rank), from its run's
    placement; <NA> where placement is unknown."""
    n = ranks.groupby("run")["rank"].transform("size")
    found = [placement(t, k, m, s) for t, k, m, s in
             zip(ranks.tasks_per_node, n, ranks.nodemap_ranks, ranks.nodemap_stride)]
    ranks = ranks.assign(placement=[f[0] for f in found], placement_from=[f[1] for f in found])
    tpn = ranks.tasks_per_node.astype("Int64")
    nodes = n.astype("Int64") // tpn.where(tpn > 0)
    rank = ranks["rank"].astype("Int64")
    block, rr = ranks.placement == BLOCK, ranks.placement == ROUND_ROBIN
    node = pd.Series(pd.NA, index=ranks.index, dtype="Int64")
    position = pd.Series(pd.NA, index=ranks.index, dtype="Int64")
    node[block], position[block] = rank[block] // tpn[block], rank[block] % tpn[block]
    node[rr], position[rr] = rank[rr] % nodes[rr], rank[rr] // nodes[rr]
    return ranks.assign(node=node, position=position)


def _hypergeom_tail(observed: int, ranks: int, group: int, slow: int) -> float:
    """P(at least `observed` of the `slow` slowest ranks share the slowest rank's group of `group` ranks) when
    the run's times are dealt to its `ranks` slots at random: the other slow-1 ranks are a draw without
    replacement from the other ranks-1 slots, group-1 of them in the group."""
    return float(stats.hypergeom.sf(observed - 2, ranks - 1, group - 1, slow - 1))


def _chance_crowded(ranks: int, group: int, slow: int) -> float:
    """P(the slowest rank's group of `group` ranks holds more than twice its even share of the `slow`
    slowest) under random placement."""
    limit = 2 * slow * group / ranks  # crowded: more than this many
    return float(stats.hypergeom.sf(math.floor(limit - 1), ranks - 1, group - 1, slow - 1))


def get_runs(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per run: ranks, median/mean/max rank time, the slowest rank, slowest/median, the seconds the job
    waited for its slowest rank (max − median, max − mean), the spread of its ranks (max/min − 1; within
    BARRIER_TIED the ranks were tied by a barrier), and where the slowest 5 % of ranks sit: how many share the
    slowest rank's node, and its position within the node, against an even spread, with the chance of that many
    or more under random placement (p_node, p_position; `crowded_*`: more than twice an even share)."""
    rows = []
    for run, g in ranks.groupby("run", sort=True):
        g = g.sort_values(["time_s", "rank"], ascending=[False, True])
        first, n = g.iloc[0], len(g)
        median, mean, slowest, fastest = g.time_s.median(), g.time_s.mean(), first.time_s, g.time_s.min()
        k = max(1, math.ceil(SLOW_SHARE * n))
        row = {"run": run, "tool": first.tool, "file": first.file, "run_key": first.run_key,
               "io500_phase": first.io500_phase, "ranks": n, "median_s": median, "mean_s": mean,
               "max_s": slowest, "min_s": fastest, "slowest_rank": int(first["rank"]),
               "ratio": slowest / median if median > 0 else math.nan,
               "spread": slowest / fastest - 1 if fastest > 0 else math.nan,
               "wait_median_s": slowest - median, "wait_mean_s": slowest - mean,
               "tasks_per_node": first.tasks_per_node, "placement": first.placement,
               "placement_from": first.placement_from, "nodemap_from": first.nodemap_from,
               "map_agrees": first.map_agrees, "slow_ranks": k,
               "slowest_node": pd.NA, "nodes": pd.NA, "slow_on_node": pd.NA, "slow_expected": math.nan,
               "p_node": math.nan, "chance_crowded_node": math.nan,
               "slowest_position": pd.NA, "slow_at_position": pd.NA, "position_expected": math.nan,
               "p_position": math.nan, "chance_crowded_position": math.nan,
               "io500_time_s": first.io500_time_s, "stonewall_s": first.stonewall_s,
               "stonewall_items_min": first.stonewall_items_min, "stonewall_items_max": first.stonewall_items_max}
        if pd.notna(first.node):
            slow = g.head(k)
            on_node, at_position = g.node == first.node, g.position == first.position
            node_size, position_size = int(on_node.sum()), int(at_position.sum())
            count_node = int((slow.node == first.node).sum())
            count_position = int((slow.position == first.position).sum())
            row.update(slowest_node=int(first.node), nodes=int(g.node.nunique()), slow_on_node=count_node,
                       slow_expected=k * node_size / n, p_node=_hypergeom_tail(count_node, n, node_size, k),
                       chance_crowded_node=_chance_crowded(n, node_size, k),
                       slowest_position=int(first.position), slow_at_position=count_position,
                       position_expected=k * position_size / n,
                       p_position=_hypergeom_tail(count_position, n, position_size, k),
                       chance_crowded_position=_chance_crowded(n, position_size, k))
        rows.append(row)
    runs = pd.DataFrame(rows)
    runs["barrier_tied"] = runs.spread <= BARRIER_TIED
    # pd.NA where no placement is known (a phase log without its IO500 run): NaN, never crowded
    runs["crowded_node"] = pd.to_numeric(runs.slow_on_node, errors="coerce") > 2 * runs.slow_expected
    runs["crowded_position"] = pd.to_numeric(runs.slow_at_position, errors="coerce") > 2 * runs.position_expected
    tested = clustering_tested(runs)
    for what in ("node", "position"):
        runs[f"q_{what}"] = math.nan
        if tested.any():  # Benjamini-Hochberg over the runs read together
            runs.loc[tested, f"q_{what}"] = stats.false_discovery_control(runs.loc[tested, f"p_{what}"])
    return runs


def clustering_tested(runs: pd.DataFrame) -> pd.Series:
    """The runs whose slow ranks' placement is tested: known placement over several nodes, not barrier-tied."""
    return runs.nodes.fillna(0).astype(int).gt(1) & ~runs.barrier_tied


def null_model(runs: pd.DataFrame, what: str = "node") -> dict:
    """The number of tested runs whose slowest rank's node (or position) holds more than twice its even share
    of the slow ranks, observed and under random placement: each run's chance (exact, hypergeometric) summed
    into the distribution of the count (Poisson binomial: runs taken as independent, which phases of one IO500
    run sharing its nodes are not; `null_by_run` counts by run), its mean, central 95 % range, and the chance of
    the observed count or more."""
    tested = runs[clustering_tested(runs)]
    pmf = _poisson_binomial(tested[f"chance_crowded_{what}"])
    cdf = np.cumsum(pmf)
    observed = int(tested[f"crowded_{what}"].sum())
    return {"tested": len(tested), "observed": observed, "expected": float(tested[f"chance_crowded_{what}"].sum()),
            "low": int(np.searchsorted(cdf, 0.025)), "high": int(np.searchsorted(cdf, 0.975)),
            "p": float(pmf[observed:].sum()), "pmf": pmf}


def _poisson_binomial(chances) -> np.ndarray:
    """The distribution of the number of events that happen, each with its own chance, independently."""
    pmf = np.array([1.0])
    for chance in chances:
        pmf = np.convolve(pmf, [1 - chance, chance])
    return pmf


def null_by_run(runs: pd.DataFrame, what: str = "node") -> dict:
    """The same count by IO500 run (by per-rank CSV outside one): phases of one run share its nodes, so the same
    slow node can crowd several of them and the phase count's range above, which takes them as independent, is
    too narrow. Per run, its tested phases' chances of crowding give the chance that more than half of them crowd
    (Poisson binomial within the run, as under random placement each phase is dealt anew); runs, on different
    nodes and days, are taken as independent: the number of runs where most phases crowd, observed and by
    chance (mean, central 95 % range, chance of the observed or more), and the runs where any phase crowds."""
    tested = runs[clustering_tested(runs)]
    group = tested.run_key.fillna(tested.file)
    majority, observed, any_crowded, any_expected = [], 0, 0, 0.0
    for _, g in tested.groupby(group, sort=True):
        pmf = _poisson_binomial(g[f"chance_crowded_{what}"])
        most = len(g) // 2 + 1  # more than half of its phases
        majority.append(float(pmf[most:].sum()))
        crowded = int(g[f"crowded_{what}"].sum())
        observed += crowded >= most
        any_crowded += crowded > 0
        any_expected += 1 - float(pmf[0])
    pmf = _poisson_binomial(majority)
    cdf = np.cumsum(pmf)
    return {"runs": len(majority), "observed": int(observed), "expected": float(sum(majority)),
            "low": int(np.searchsorted(cdf, 0.025)), "high": int(np.searchsorted(cdf, 0.975)),
            "p": float(pmf[int(observed):].sum()), "any": int(any_crowded), "any_expected": any_expected}


def get_nodes(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per node of each run whose node placement is known: its ranks, the median time of its ranks
    and that median relative to the run's median rank time (1 = typical; 1.3 = its ranks took 30 % longer)."""
    return _groups(ranks, "node")


def get_positions(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per position within a node (0 = each node's first rank) of each run whose placement is known:
    its ranks (one a node), their median time and that median relative to the run's median rank time."""
    return _groups(ranks, "position")


def _groups(ranks: pd.DataFrame, by: str) -> pd.DataFrame:
    known = ranks.dropna(subset=[by])
    if known.empty:
        return pd.DataFrame(columns=["run", by, "ranks", "median_s", "relative", "first_rank", "last_rank",
                                     "rank_list"])
    run_median = known.groupby("run").time_s.transform("median")
    known = known.assign(rel=known.time_s / run_median)
    out = known.groupby(["run", by]).agg(
        ranks=("rank", "size"), median_s=("time_s", "median"), relative=("rel", "median"),
        first_rank=("rank", "min"), last_rank=("rank", "max"), second_rank=("rank", lambda r: sorted(r)[1:2]),
    ).reset_index()
    out[by] = out[by].astype(int)
    out["rank_list"] = [rank_list(f, s[0] if len(s) else None, last, n) for f, s, last, n in
                        zip(out.first_rank, out.second_rank, out.last_rank, out.ranks)]
    return out.drop(columns="second_rank")


def rank_list(first: int, second: int | None, last: int, count: int) -> str:
    """Evenly spaced ranks in short: '180–199' (consecutive), '9–199 by 10' (a stride), '5' (one). No ellipsis:
    the page check reads one as a truncated output."""
    if count == 1:
        return f"{first}"
    if last - first == count - 1:
        return f"{first}–{last}"
    return f"{first}–{last} by {second - first}" if count > 2 else f"{first}, {last}"


def worst_nodes(nodes: pd.DataFrame) -> pd.DataFrame:
    """Per run with more than one node: the node whose ranks' median time is highest against the run median."""
    return _worst(nodes, "node")


def worst_positions(positions: pd.DataFrame) -> pd.DataFrame:
    """Per run with more than one position: the position within a node whose ranks (one on each node) have the
    highest median time against the run median."""
    return _worst(positions, "position")


def _worst(groups: pd.DataFrame, by: str) -> pd.DataFrame:
    multi = groups[groups.groupby("run")[by].transform("size") > 1]
    return (multi.sort_values(["run", "relative", by], ascending=[True, False, True])
            .groupby("run").head(1).sort_values(["relative", "run"], ascending=[False, True]).reset_index(drop=True))


def slow_positions(ranks: pd.DataFrame, run: str) -> list[int]:
    """The positions within a node at which the rank of every node is among the run's slowest SLOW_SHARE."""
    g = ranks[ranks.run == run].dropna(subset=["position"])
    k = max(1, math.ceil(SLOW_SHARE * len(g)))
    slow = g.sort_values(["time_s", "rank"], ascending=[False, True]).head(k).groupby("position").size()
    every = slow[slow == g.groupby("position").size().reindex(slow.index)]
    return sorted(int(p) for p in every.index)


def chart_null(model: dict) -> alt.Chart:
    """How many tested runs would have their slow ranks crowded on one node by chance (bars: the probability of
    each count under random placement) against the count observed (red rule)."""
    pmf = pd.DataFrame({"runs": np.arange(len(model["pmf"])), "probability": model["pmf"]})
    shown = pmf[pmf.probability > 1e-4]
    x = alt.X("runs:Q", title=f"phases of {model['tested']} with slow ranks crowded on one node",
              scale=alt.Scale(domain=[0, max(model["tested"], 1)], nice=False))
    bars = alt.Chart(shown).mark_bar(color="#7f8c8d").encode(
        x=x, y=alt.Y("probability:Q", title="probability under random placement"),
        tooltip=["runs", alt.Tooltip("probability:Q", format=".4f")])
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
    relative to the run median, for the n_runs runs whose worst position stands out most."""
    worst = worst_positions(positions).head(n_runs)
    shown = positions[positions.run.isin(worst.run)]
    order = list(worst.run)
    top = worst.iloc[0]
    # lines only: a point a position would put hundreds of marks, each with its tooltip, into the page
    return alt.Chart(shown).mark_line(strokeWidth=1.5).encode(
        x=alt.X("position:Q", title="position within the node (0 = the node's first rank)"),
        y=alt.Y("relative:Q", title="median over nodes / run median", scale=alt.Scale(zero=False)),
        color=alt.Color("run:N", title=None, sort=order, legend=alt.Legend(orient="bottom", columns=1)),
        tooltip=["run", "position", "ranks", "rank_list",
                 alt.Tooltip("median_s:Q", format=".2f", title="median rank time (s)"),
                 alt.Tooltip("relative:Q", format=".3f", title="relative to run median")],
    ).properties(width=440, height=260, title=alt.TitleParams(
        [f"Worst position: {top.run},", f"position {top.position} of every node at {top.relative:.2f}× the median"],
        subtitle="the median over the nodes of the ranks at each position"))


def node_spread(nodes: pd.DataFrame) -> pd.DataFrame:
    """Per run over several nodes: the range of its nodes' median rank times (relative to the run median) and
    its slowest node, worst run first."""
    multi = nodes[nodes.groupby("run").node.transform("size") > 1]
    spread = multi.groupby("run").agg(lowest=("relative", "min"), nodes=("node", "size")).reset_index()
    worst = worst_nodes(nodes)[["run", "node", "relative", "first_rank", "last_rank", "rank_list"]]
    return worst.merge(spread, on="run").assign(label=lambda d: "node " + d.node.astype(str))


def chart_every_run(spread: pd.DataFrame) -> alt.Chart:
    """Every run over several nodes on one row: the range of its nodes' relative times as a line, its slowest
    node as a labelled point; a bad node is the point far right of its row."""
    order = list(spread.run)
    base = alt.Chart(spread).encode(y=alt.Y("run:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)))
    scale = alt.Scale(zero=False)
    ranges = base.mark_rule(color="#999").encode(
        x=alt.X("lowest:Q", scale=scale, title="node's median rank time / run median (range over its nodes)"),
        x2="relative:Q")
    tooltip = ["run", "label", "rank_list", "nodes",
               alt.Tooltip("relative:Q", format=".3f", title="slowest node / run median"),
               alt.Tooltip("lowest:Q", format=".3f", title="fastest node / run median")]
    points = base.mark_point(filled=True, size=30, color="#c0392b").encode(x=alt.X("relative:Q", scale=scale),
                                                                          tooltip=tooltip)
    labels = base.mark_text(align="left", dx=6, fontSize=9).encode(x=alt.X("relative:Q", scale=scale), text="label:N")
    top = spread.iloc[0]
    return (ranges + points + labels).properties(width=340, height=alt.Step(13), title=alt.TitleParams(
        [f"The slowest node of each of {len(spread):,} phases;", f"worst: {top.run}, {top.label} at {top.relative:.2f}×"],
        subtitle="one row per phase: its nodes' range and its slowest node"))


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


def findings(ranks: pd.DataFrame, runs: pd.DataFrame) -> dict:
    """The numbers the chapter quotes and its findings as sentences (`finding_*`, MyST), worded for what the data
    holds. Ratios count runs not tied by a barrier whose slowest rank took at least MIN_SECONDS (millisecond runs
    give timer-noise ratios)."""
    tested = runs[clustering_tested(runs)]
    untied = runs[~runs.barrier_tied]
    timed = untied[untied.max_s >= MIN_SECONDS]
    timed = timed if len(timed) else untied if len(untied) else runs
    ratio = stats_.median_interval(timed.ratio)
    from_map = runs.placement_from == "Nodemap"
    inherited = from_map & (runs.nodemap_from == "the IO500 run's mdtest logs")
    f = {"runs": len(runs), "ior_runs": int((runs.tool == "IOR").sum()),
         "mdtest_runs": int((runs.tool == "mdtest").sum()), "ranks": int(runs.ranks.sum()),
         "csvs": int(runs.file.nunique()), "io500_runs": int(runs.run_key.notna().sum()),
         "io500_submissions": int(runs.run_key.nunique()), "tied": int(runs.barrier_tied.sum()),
         "tied_ior": int((runs.barrier_tied & (runs.tool == "IOR")).sum()), "tested": len(tested),
         "timed": ratio.n, "median_ratio": ratio.median, "median_ratio_low": ratio.low,
         "median_ratio_high": ratio.high,
         "placement_nodemap": int(from_map.sum()),
         "placement_own": int((from_map & (runs.nodemap_from == "its mdtest log")).sum()),
         "placement_inherited": int(inherited.sum()),
         "inherited_checked": int(runs.map_agrees[inherited].notna().sum()),
         "inherited_disagree": int((runs.map_agrees[inherited] == False).sum()),  # noqa: E712
         "placement_block": int((from_map & (runs.placement == BLOCK)).sum()),
         "placement_round_robin": int((from_map & (runs.placement == ROUND_ROBIN)).sum()),
         "placement_assumed": int(runs.placement_from.str.startswith("assumed").sum()),
         "placement_unknown": int(runs.placement.isna().sum())}
    interval = "" if pd.isna(ratio.low) else f"95% CI {ratio.low:.3f}–{ratio.high:.3f}, "
    ratio_text = (f"the slowest rank took a median **{ratio.median:.3f}×** the median rank's time "
                  f"({interval}n = {ratio.n:,} untied phases)")

    # the main finding: slow ranks on one node, observed against random placement
    if len(tested):
        model = null_model(runs, "node")
        f.update({f"null_{k}": v for k, v in model.items() if k != "pmf"})
        by_run = null_by_run(runs, "node")
        f.update({f"null_run_{k}": v for k, v in by_run.items()})
        phases = f"{model['observed']} of {model['tested']} phases ({model['expected']:.0f} expected)"
        span = f"{by_run['expected']:.1f} expected at random (95% range {by_run['low']}–{by_run['high']})"
        if by_run["observed"] > by_run["high"]:
            f["finding_main"] = (f"Slow ranks crowd onto one node in most phases of **{by_run['observed']} of "
                                 f"{by_run['runs']} runs**, against {span}; in {phases}.")
        else:
            word = "less often than" if by_run["observed"] < by_run["low"] else "no more often than"
            f["finding_main"] = (f"Slow ranks crowd onto one node in most phases {word} chance: **{by_run['observed']} "
                                 f"of {by_run['runs']} runs**, against {span}; {phases}.")
    else:
        f["finding_main"] = f"No phase here spans several nodes with known placement; {ratio_text}."
    f["tied_text"] = (
        f"{f['tied']} of the {f['runs']} phases are barrier-tied, every rank ending within {BARRIER_TIED:.1%} of "
        f"the others ({f['tied_ior']} of them IOR), and are left out of the placement tests." if f["tied"] else
        f"No phase is barrier-tied: in each of the {f['runs']} phases some rank ended more than {BARRIER_TIED:.1%} "
        "after another.")
    tied = f", {f['tied']} barrier-tied phases left out" if f["tied"] else ""
    if len(tested):
        decided = {w: int((tested[f"q_{w}"] < FDR).sum()) for w in ("node", "position")}
        f.update(decided_node=decided["node"], decided_position=decided["position"])
        f["finding_tested"] = (
            f"**{decided['node']} of {len(tested)} phases** crowd their slowest {SLOW_SHARE:.0%} of ranks onto one "
            f"node beyond chance, **{decided['position']}** onto one position within every node (per-phase tests, "
            f"Benjamini–Hochberg at a {FDR:.0%} false discovery rate{tied}).")

    # the worst straggler, and what it sits with
    top = timed.sort_values(["ratio", "run"], ascending=[False, True]).iloc[0]
    f.update(worst_run=top.run, worst_rank=int(top.slowest_rank), worst_s=float(top.max_s),
             worst_median_s=float(top.median_s), worst_ratio=float(top.ratio))
    worst = (f"The worst straggler: **{top.run}**, rank {top.slowest_rank} at **{top.ratio:.2f}×** the median rank "
             f"({top.max_s:,.1f} s against {top.median_s:,.1f} s)")
    if pd.notna(top.slowest_node) and top.nodes > 1:
        at = slow_positions(ranks, top.run)
        nodes = get_nodes(ranks[ranks.run == top.run]).set_index("node").relative
        positions = get_positions(ranks[ranks.run == top.run]).set_index("position").relative
        node_rel = float(nodes[int(top.slowest_node)])
        f.update(worst_node=int(top.slowest_node), worst_node_relative=node_rel)
        if at and len(at) * int(top.nodes) > 1:
            f.update(worst_positions=_and(at), worst_positions_relative=float(positions[at].median()))
            worst += (f", belongs to a position pattern: the ranks at position{'s' if len(at) > 1 else ''} "
                      f"{_and(at)} of every node are all among the slowest {SLOW_SHARE:.0%} (median "
                      f"{positions[at].median():.2f}×); its node's median is {node_rel:.2f}×")
        else:
            worst += f"; its node {int(top.slowest_node)} has a median of {node_rel:.2f}× the run's"
    f["finding_worst"] = worst + "."

    positions = worst_positions(get_positions(ranks[ranks.run.isin(tested.run)]))
    if len(positions):
        p = positions.iloc[0]
        f.update(position_run=p.run, position=int(p.position), position_relative=float(p.relative),
                 position_ranks=p.rank_list)

    # the slowest node over every tested run
    nodes = get_nodes(ranks[ranks.run.isin(tested.run)])
    if len(nodes):
        w = worst_nodes(nodes).iloc[0]
        q = tested.set_index("run").loc[w.run]
        f.update(node_run=w.run, node=int(w.node), node_ranks=w.rank_list, node_relative=float(w.relative))
        on_it = (f"holding {int(q.slow_on_node)} of its {int(q.slow_ranks)} slowest ranks, q = {q.q_node:.1g}"
                 if q.slowest_node == w.node else "though not its slowest rank")
        f["finding_node"] = (f"The slowest node: **{w.run}**, node {w.node} (ranks {w.rank_list}), its ranks' median "
                             f"at **{w.relative:.2f}×** the run median ({on_it}).")

    own, given = f["placement_own"], f["placement_inherited"]
    text = (f"Placement is read from the phase's own mdtest Nodemap for {own} of the {f['runs']} phases"
            if own else f"No phase's own log prints a Nodemap ({f['runs']} phases)")
    if given:
        checked, off = f["inherited_checked"], f["inherited_disagree"]
        text += (f"; {given} IOR phases, whose logs print none, are **given their run's mdtest Nodemap, assumed** "
                 "to hold for them" + (f" (their logs' nodes, tasks and tasks per node agree with it in "
                                       f"{checked - off} of {checked}; that checks the counts, not the order)"
                                       if checked else ""))
    text = (f"Placed block: {f['placement_block']} phases, round-robin: {f['placement_round_robin']}. " + text
             + "".join(f"; {what} for {n}" for what, n in [("assumed block", f["placement_assumed"]),
                                                          ("unknown", f["placement_unknown"])] if n) + ".")
    f["placement_text"] = text

    wait = runs.sort_values(["wait_median_s", "run"], ascending=[False, True]).iloc[0]
    f.update(wait_run=wait.run, wait_s=float(wait.wait_median_s), wait_mean_s=float(wait.wait_mean_s),
             median_wait_s=float(runs.wait_median_s.median()))
    f["finding_wait"] = (f"The longest wait: **{wait.run}** waited **{wait.wait_median_s:,.1f} s** for its slowest "
                         f"rank after the median rank had finished" + (f"; {ratio_text}." if len(tested) else "."))

    walled = runs[runs.run_key.notna() & runs.stonewall_s.notna()]
    walled = walled.assign(after=walled.max_s - walled.stonewall_s)
    f["stonewall_phases"] = len(walled)
    f["finding_stonewall"] = "No per-rank CSV here belongs to an IO500 phase with a stonewall."
    if len(walled):
        last = walled.sort_values(["after", "run"], ascending=[False, True]).iloc[0]
        f.update(after_stonewall_s=float(walled.after.median()), after_stonewall_max_s=float(last.after),
                 after_stonewall_run=last.run)
        f["finding_stonewall"] = (
            f"The slowest rank ended a median **{walled.after.median():,.1f} s after the stonewall** "
            f"(n = {len(walled)} IO500 phases; at most {last.after:,.1f} s, {last.run}): IO500's rate includes "
            "that tail.")
        counted = walled[walled.stonewall_items_min > 0]
        counted = counted.assign(items_ratio=counted.stonewall_items_max / counted.stonewall_items_min)
        f["stonewall_counted"] = len(counted)
        if len(counted):
            most = counted.sort_values(["items_ratio", "run"], ascending=[False, True]).iloc[0]
            spread = stats_.median_interval(counted.items_ratio)
            f.update(imbalance_run=most.run, imbalance_ratio=float(most.items_ratio),
                     imbalance_median=spread.median)
            f["finding_stonewall"] += (
                f" At the stonewall the busiest rank had done a median {spread.median:.2f}× the items of the least "
                f"busy (95% CI {spread.low:.2f}–{spread.high:.2f}, n = {len(counted)} write phases).")
    return f


def finding_list(f: dict, shown: dict) -> list[tuple[str, str]]:
    """The chapter's findings, main result first, each with the figure or table that shows it (only those the
    page shows: `shown` holds the chapter's only-if keys)."""
    runs_table = "tab-stragglers-runs"
    items = [(f["finding_main"], "fig-stragglers-null" if shown["has_nodes"] else runs_table)]
    if shown["has_nodes"]:
        items.append((f["finding_tested"], runs_table))
    worst_shown = shown["has_positions"] and f.get("worst_positions") and f["worst_run"] in shown["position_runs"]
    items.append((f["finding_worst"], "fig-stragglers-positions" if worst_shown else runs_table))
    if shown["has_nodes"]:
        items.append((f["finding_node"], "fig-stragglers-every-run"))
    items.append((f["finding_wait"], runs_table))
    if shown["has_stonewall"]:
        items.append((f["finding_stonewall"], "tab-stragglers-stonewall"))
    return items


def glue_values(f: dict) -> dict:
    """The facts a chapter's markdown cells quote: numbers and names as they are, sentences as Markdown."""
    return {k: Markdown(v) if isinstance(v, str) and (k.startswith("finding_") or k.endswith("_text")) else v
            for k, v in f.items()}


def runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Every run for the chapter's table, slowest/median first: short headers, tests and placement beside."""
    shown = runs.sort_values(["ratio", "run"], ascending=[False, True])
    return pd.DataFrame({
        "run": shown.run, "ranks": shown.ranks.astype(str), "max / median": shown.ratio,
        "wait (s)": shown.wait_median_s, "max / min": shown.spread + 1,
        "on node": [_observed(o, e) for o, e in zip(shown.slow_on_node, shown.slow_expected)],
        "q node": shown.q_node,
        "at position": [_observed(o, e) for o, e in zip(shown.slow_at_position, shown.position_expected)],
        "q pos.": shown.q_position})


def _observed(observed, expected) -> str:
    return "–" if pd.isna(observed) else f"{int(observed)} ({expected:.1f})"
