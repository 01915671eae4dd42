"""Stragglers: per-rank times of IOR and mdtest phases (their per-rank CSVs), how long each job waited for its
slowest rank, whether the slow ranks sit on one node, and what IO500's stonewall leaves visible."""
from __future__ import annotations

import math

import altair as alt
import pandas as pd

from .. import nb

SLOW_SHARE = 0.05  # "the slowest ranks": the slowest 5 % of a run's ranks (at least one)
MIN_SECONDS = 1.0  # findings quote ratios of runs whose slowest rank took at least this long

HOW_TO_ADD = (
    "Save per-rank times when running the benchmarks: IOR `-O saveRankPerformanceDetailsCSV=<file>`, mdtest "
    "`--saveRankPerformanceDetails=<file>` (IO500's C application writes them as `ior-easy-write.csv`, "
    "`mdtest-easy-write.csv`, ... beside its phase logs). Keep each CSV in the folder of the log whose command "
    "names it, then build the book on that folder: `make book DATA=<folder>` "
    "(or `python -m iobook book --data <folder>`).")

# One row per rank and measured phase of every per-rank CSV, with what names and places it: the IOR test or
# mdtest log whose command line wrote the CSV (same folder, file named on the command line), that test's
# tasks per node, and the IO500 run and phase the log belongs to (io500_phase_log_links).
_RANKS_SQL = """
WITH mdtest_logs AS (
    SELECT c.source_id AS csv_source_id, m.source_id AS log_source_id,
           CASE WHEN m.nodes > 0 AND coalesce(m.launched_tasks, m.tasks) % m.nodes = 0
                THEN coalesce(m.launched_tasks, m.tasks) // m.nodes END AS tasks_per_node,
           m.stonewall_items_min, m.stonewall_items_max
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
           CASE WHEN r.access = 'write' THEN t.stonewall_pairs_max END AS stonewall_items_max
    FROM ior_ranks r LEFT JOIN ior_tests t USING (test_id)
    UNION ALL
    SELECT 'mdtest', k.source_id, k.operation, 0, k.rank, k.time_s,
           l.tasks_per_node, l.log_source_id, l.stonewall_items_min, l.stonewall_items_max
    FROM mdtest_ranks k LEFT JOIN mdtest_logs l ON l.csv_source_id = k.source_id
    WHERE NOT k.all_ranks
)
SELECT r.*, s.path, x.run_key, p.phase AS io500_phase, p.time_s AS io500_time_s, p.stonewall_s
FROM ranks r
JOIN sources s ON s.source_id = r.csv_source_id
LEFT JOIN io500_phase_log_links k ON k.source_id = r.log_source_id
LEFT JOIN io500_runs x ON x.run_id = k.run_id
LEFT JOIN io500_phases p ON p.run_id = k.run_id AND p.phase = k.phase
WHERE r.time_s IS NOT NULL
ORDER BY s.path, r.operation, r.iteration, r.rank
"""


def get_rank_times(con) -> pd.DataFrame:
    """Every rank's time (s) of every run, a run being one measured phase (IOR access and iteration, mdtest
    operation) of one per-rank CSV, named `run`: '<IO500 run_key> <phase>' when the CSV belongs to an IO500
    run, else '<file> <operation>'. Runs with fewer than two ranks are left out (no one to wait for)."""
    df = con.execute(_RANKS_SQL).df()
    if df.empty:
        return df.assign(file=pd.Series(dtype=str), run=pd.Series(dtype=str))
    df["file"] = nb.reader_paths(con, df["path"])
    per_csv = df.groupby("csv_source_id")
    several_ops = per_csv["operation"].transform("nunique") > 1
    several_its = per_csv["iteration"].transform("nunique") > 1
    io500 = df.run_key.notna() & df.io500_phase.notna()
    df["run"] = (df.file + " " + df.operation).where(~io500, df.run_key + " " + df.io500_phase)
    df.loc[io500 & several_ops, "run"] += " (" + df.operation + ")"
    df.loc[several_its, "run"] += ", iteration " + df.iteration.astype(str)
    return df[df.groupby("run")["rank"].transform("size") >= 2].reset_index(drop=True)


def node_of(ranks: pd.DataFrame) -> pd.Series:
    """The node index of each rank as rank // tasks per node (block placement, as mpirun's default by slot);
    <NA> where the log gives no tasks per node."""
    tpn = ranks.tasks_per_node.astype("Int64")
    return (ranks["rank"].astype("Int64") // tpn.where(tpn > 0)).astype("Int64")


def get_runs(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per run: ranks, median/mean/max rank time, the slowest rank, slowest/median, the seconds the job
    waited for its slowest rank (max − median, max − mean), and where the slowest ranks sit: the slowest rank's
    node, how many of the run's slowest 5 % of ranks are on it against how many an even spread would put there."""
    rows = []
    ranks = ranks.assign(node=node_of(ranks))
    for run, g in ranks.groupby("run", sort=True):
        g = g.sort_values(["time_s", "rank"], ascending=[False, True])
        first, n = g.iloc[0], len(g)
        median, mean, slowest = g.time_s.median(), g.time_s.mean(), first.time_s
        k = max(1, math.ceil(SLOW_SHARE * n))
        row = {"run": run, "tool": first.tool, "file": first.file, "run_key": first.run_key,
               "io500_phase": first.io500_phase, "ranks": n, "median_s": median, "mean_s": mean,
               "max_s": slowest, "slowest_rank": int(first["rank"]),
               "ratio": slowest / median if median > 0 else math.nan,
               "wait_median_s": slowest - median, "wait_mean_s": slowest - mean,
               "tasks_per_node": first.tasks_per_node, "slow_ranks": k,
               "slowest_node": pd.NA, "nodes": pd.NA, "slow_on_node": pd.NA, "slow_expected": math.nan,
               "io500_time_s": first.io500_time_s, "stonewall_s": first.stonewall_s,
               "stonewall_items_min": first.stonewall_items_min, "stonewall_items_max": first.stonewall_items_max}
        if pd.notna(first.node):
            on_node = g.node == first.node
            row.update(slowest_node=int(first.node), nodes=int(g.node.nunique()),
                       slow_on_node=int(on_node.head(k).sum()), slow_expected=k * on_node.sum() / n)
        rows.append(row)
    return pd.DataFrame(rows)


def get_nodes(ranks: pd.DataFrame) -> pd.DataFrame:
    """One row per node of each run whose node placement is known: its ranks, the median time of its ranks
    and that median relative to the run's median rank time (1 = typical; 1.3 = its ranks took 30 % longer)."""
    known = ranks.assign(node=node_of(ranks)).dropna(subset=["node"])
    if known.empty:
        return pd.DataFrame(columns=["run", "node", "ranks", "median_s", "relative", "first_rank", "last_rank"])
    run_median = known.groupby("run").time_s.transform("median")
    known = known.assign(rel=known.time_s / run_median)
    nodes = known.groupby(["run", "node"]).agg(
        ranks=("rank", "size"), median_s=("time_s", "median"), relative=("rel", "median"),
        first_rank=("rank", "min"), last_rank=("rank", "max")).reset_index()
    return nodes


def worst_nodes(nodes: pd.DataFrame) -> pd.DataFrame:
    """Per run with more than one node: the node whose ranks' median time is highest against the run median."""
    multi = nodes[nodes.groupby("run").node.transform("size") > 1]
    return (multi.sort_values(["run", "relative", "node"], ascending=[True, False, True])
            .groupby("run").head(1).sort_values("relative", ascending=False).reset_index(drop=True))


def chart_nodes(nodes: pd.DataFrame, n_runs: int = 6) -> alt.Chart:
    """Node index against the median rank time on that node relative to the run median, for the n_runs runs
    whose worst node stands out most; each run's worst node labelled. Aggregated: one point per node."""
    worst = worst_nodes(nodes).head(n_runs)
    shown = nodes[nodes.run.isin(worst.run)]
    order = list(worst.run)
    base = alt.Chart(shown).encode(
        x=alt.X("node:Q", title="node index (rank // tasks per node)"),
        y=alt.Y("relative:Q", title="node's median rank time / run median", scale=alt.Scale(zero=False)),
        color=alt.Color("run:N", title=None, sort=order, legend=alt.Legend(orient="bottom", columns=2)))
    points = base.mark_point(filled=True, size=40, opacity=0.8).encode(
        tooltip=["run", "node", "ranks", "first_rank", "last_rank",
                 alt.Tooltip("median_s:Q", format=".2f", title="median rank time (s)"),
                 alt.Tooltip("relative:Q", format=".3f", title="relative to run median")])
    labels = alt.Chart(worst.assign(label="node " + worst.node.astype(str))).mark_text(
        align="left", dx=6, dy=-4, fontSize=10).encode(
        x="node:Q", y="relative:Q", text="label:N",
        color=alt.Color("run:N", sort=order, legend=None))
    top = worst.iloc[0]
    return (points + labels).properties(width=460, height=300, title=alt.TitleParams(
        f"Worst node: {top.run}, node {top.node}, its ranks at {top.relative:.2f}× the run median",
        subtitle=f"source: ior_ranks, mdtest_ranks views; {len(order)} of {nodes.run.nunique()} runs "
                 "with known placement, one point per node"))


def node_spread(nodes: pd.DataFrame) -> pd.DataFrame:
    """Per run over several nodes: the range of its nodes' median rank times (relative to the run median) and
    its slowest node, worst run first."""
    multi = nodes[nodes.groupby("run").node.transform("size") > 1]
    spread = multi.groupby("run").agg(lowest=("relative", "min"), nodes=("node", "size")).reset_index()
    worst = worst_nodes(nodes)[["run", "node", "relative", "first_rank", "last_rank"]]
    return worst.merge(spread, on="run").assign(label=lambda d: "node " + d.node.astype(str))


def chart_every_run(spread: pd.DataFrame) -> alt.Chart:
    """Every run over several nodes on one row: the range of its nodes' relative times as a line, its slowest
    node as a labelled point; a bad node is the point far right of its row."""
    order = list(spread.run)
    base = alt.Chart(spread).encode(y=alt.Y("run:N", sort=order, title=None, axis=alt.Axis(labelLimit=260)))
    scale = alt.Scale(zero=False)
    ranges = base.mark_rule(color="#999").encode(
        x=alt.X("lowest:Q", scale=scale, title="node's median rank time / run median (range over the run's nodes)"),
        x2="relative:Q")
    tooltip = ["run", "label", "first_rank", "last_rank", "nodes",
               alt.Tooltip("relative:Q", format=".3f", title="slowest node / run median"),
               alt.Tooltip("lowest:Q", format=".3f", title="fastest node / run median")]
    points = base.mark_point(filled=True, size=30, color="#c0392b").encode(x=alt.X("relative:Q", scale=scale),
                                                                          tooltip=tooltip)
    labels = base.mark_text(align="left", dx=6, fontSize=9).encode(x=alt.X("relative:Q", scale=scale), text="label:N")
    top = spread.iloc[0]
    return (ranges + points + labels).properties(width=380, height=alt.Step(13), title=alt.TitleParams(
        f"The slowest node of each of {len(spread):,} runs; worst: {top.run}, {top.label} at {top.relative:.2f}×",
        subtitle="source: ior_ranks, mdtest_ranks views; one row per run, its nodes' range and slowest node"))


def describe_run(run: pd.Series) -> str:
    """A run's straggler in one phrase: slowest rank, its time and how it compares with the median."""
    return (f"rank {run.slowest_rank} took {run.max_s:,.1f} s against a median of {run.median_s:,.1f} s "
            f"({run.ratio:.2f}×)")


def stonewall_table(runs: pd.DataFrame) -> pd.DataFrame:
    """IO500 runs' phases beside their per-rank times: the phase time IO500 printed, the stonewall, the slowest
    and median rank, and for write phases the items per rank done when the stonewall hit, least and most
    (mdtest's "Continue stonewall hit" line, IOR's "stonewalling pairs accessed": transfers)."""
    io500 = runs[runs.run_key.notna()].copy()
    io500["items_ratio"] = io500.stonewall_items_max / io500.stonewall_items_min
    return io500[["run", "io500_time_s", "stonewall_s", "max_s", "median_s", "stonewall_items_min",
                  "stonewall_items_max", "items_ratio"]].sort_values("run").reset_index(drop=True)


def findings(runs: pd.DataFrame, worst: pd.DataFrame) -> dict:
    """The numbers the chapter's findings quote: run counts, the worst straggler, the longest wait, how often
    slow ranks crowd onto one node (more than twice an even share), the slowest node, the tail after the stonewall.
    Ratios count runs whose slowest rank took at least MIN_SECONDS (millisecond runs give timer-noise ratios)."""
    timed = runs[runs.max_s >= MIN_SECONDS]
    timed = timed if len(timed) else runs
    top = timed.sort_values(["ratio", "run"], ascending=[False, True]).iloc[0]
    wait = runs.sort_values(["wait_median_s", "run"], ascending=[False, True]).iloc[0]
    multi = runs[runs.nodes.fillna(0).astype(int) > 1]
    crowd = multi.assign(excess=multi.slow_on_node.astype(float) / multi.slow_expected)
    clustered = crowd[crowd.excess > 2]
    f = {"runs": len(runs), "ior_runs": int((runs.tool == "IOR").sum()),
         "mdtest_runs": int((runs.tool == "mdtest").sum()), "ranks": int(runs.ranks.sum()),
         "csvs": int(runs.file.nunique()), "io500_runs": int(runs.run_key.notna().sum()),
         "io500_submissions": int(runs.run_key.nunique()), "timed": len(timed),
         "median_ratio": float(timed.ratio.median()), "worst_run": top.run, "worst_phrase": describe_run(top),
         "wait_run": wait.run, "wait_s": float(wait.wait_median_s), "wait_mean_s": float(wait.wait_mean_s),
         "median_wait_s": float(runs.wait_median_s.median()),
         "multi_node_runs": len(multi), "clustered": len(clustered)}
    if len(multi):
        c = crowd.sort_values(["excess", "run"], ascending=[False, True]).iloc[0]
        w = worst.iloc[0]
        f.update(cluster_run=c.run, cluster_node=int(c.slowest_node), cluster_count=int(c.slow_on_node),
                 cluster_k=int(c.slow_ranks), cluster_expected=float(c.slow_expected),
                 node_run=w.run, node=int(w.node), node_first=int(w.first_rank), node_last=int(w.last_rank),
                 node_relative=float(w.relative))
    walled = runs[runs.run_key.notna() & runs.stonewall_s.notna()]
    walled = walled.assign(after=walled.max_s - walled.stonewall_s)
    f["stonewall_phases"] = len(walled)
    if len(walled):
        last = walled.sort_values(["after", "run"], ascending=[False, True]).iloc[0]
        f.update(after_stonewall_s=float(walled.after.median()), after_stonewall_max_s=float(last.after),
                 after_stonewall_run=last.run)
        counted = walled[walled.stonewall_items_min > 0]
        counted = counted.assign(items_ratio=counted.stonewall_items_max / counted.stonewall_items_min)
        f["stonewall_counted"] = len(counted)
        if len(counted):
            most = counted.sort_values(["items_ratio", "run"], ascending=[False, True]).iloc[0]
            f.update(imbalance_run=most.run, imbalance_ratio=float(most.items_ratio),
                     imbalance_median=float(counted.items_ratio.median()))
    return f
