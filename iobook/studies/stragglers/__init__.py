"""Stragglers: per-rank times of IOR and mdtest phases (their per-rank CSVs), how long each job waited for its
slowest rank, whether rank times go together within a node or a position within every node (against random
placement; rank placement read from mdtest's Nodemap, which IOR phases inherit from their run's mdtest logs),
and what IO500's stonewall leaves visible. Every count and interval is by machine (one installation, its runs
counted once). Layers: queries/*.sql, ranks (the data), analysis, charts, findings; `report` wires them.

Memory is bounded by design: every rank's time stays in DuckDB (temporary tables of the read-only connection);
Python gets one row per phase, per node and per position of a phase, never one per rank. A run stored twice
(copies of the archive, or a submission filed twice) counts once."""
from __future__ import annotations

import pandas as pd

from ...book import comparison, present
from ...book.report import Prose, Report, Table
from ...inference import evidence
from . import analysis, charts, findings
from .analysis import (FAMILY, MIN_SECONDS, crowded_nodes_by_run, equal_part_starts, node_spread, null_by_machine,
                       null_model, slow_positions)
from .charts import chart_every_run
from .ranks import BARRIER_TIED, SLOW_SHARE, clustering_tested, get_groups, get_runs, load_phases, placement

__all__ = ["BARRIER_TIED", "FAMILY", "SLOW_SHARE", "clustering_tested", "chart_every_run", "crowded_nodes_by_run",
           "equal_part_starts", "get_groups", "get_runs", "load_phases", "node_spread", "null_by_machine",
           "null_model", "placement", "report", "slow_positions"]

HOW_TO_ADD = (
    "Save per-rank times when running the benchmarks: IOR `-O saveRankPerformanceDetailsCSV=<file>`, mdtest "
    "`--saveRankPerformanceDetails=<file>` (IO500's C application writes them as `ior-easy-write.csv`, "
    "`mdtest-easy-write.csv`, ... beside its phase logs). Keep each CSV in the folder of the log whose command "
    "names it, then build the book on that folder: `make book DATA=<folder>` "
    "(or `python -m iobook book --data <folder>`).")
POSITION_RUNS = 3  # the phases the positions chart draws
RUNS_FORMATS = {"max / median": ".3f", "wait (s)": ",.1f", "max / min": ".4f", "between nodes / chance": ".2f",
                "P node": ".1g", "P pos.": ".1g"}
STONEWALL_COLUMNS = {"run": "phase", "io500_time_s": "IO500 time (s)", "stonewall_s": "stonewall (s)",
                     "max_s": "slowest (s)", "median_s": "median (s)", "stonewall_items_min": "items, least",
                     "stonewall_items_max": "items, most", "items_ratio": "most / least"}
STONEWALL_FORMATS = {"IO500 time (s)": ",.2f", "stonewall (s)": ",.0f", "slowest (s)": ",.2f", "median (s)": ",.2f",
                     "items, least": ",.0f", "items, most": ",.0f", "most / least": ".2f"}
WORST_NODE_COLUMNS = {"run": "phase", "node": "node", "rank_list": "its ranks", "ranks": "ranks",
                      "median_s": "median (s)", "relative": "/ phase median"}


def report(con) -> Report:
    """The chapter: every phase's wait for its slowest rank, whether rank times go together within a node and the
    slow ranks crowd on one (decided by machine, once), where the slow ranks sit, and the stonewall's share of the
    tail."""
    phases = load_phases(con)
    if phases.empty:
        return Report(values={"has_data": False}, note=present.no_data("per-rank times of IOR or mdtest", HOW_TO_ADD))
    runs = get_runs(con, phases)
    tested = runs[clustering_tested(runs)]
    nodes, positions = get_groups(con, runs, "node"), get_groups(con, runs, "position")
    position_runs = analysis.worst_groups(positions, "position").head(POSITION_RUNS).run.tolist()
    stonewall = analysis.stonewall_table(runs)
    v = {"has_data": True, "has_nodes": len(tested) > 0, "single_node": len(tested) == 0,
         "has_positions": len(position_runs) > 0, "has_stonewall": len(stonewall) > 0,
         "slow_share": f"{SLOW_SHARE:.0%}", "barrier_tied": f"{BARRIER_TIED:.1%}", "min_seconds": f"{MIN_SECONDS:g}",
         "phases": len(runs), "units": int(runs.unit.nunique()), "machines": int(runs.machine.nunique()),
         "ior_phases": int((runs.tool == "IOR").sum()), "mdtest_phases": int((runs.tool == "mdtest").sum()),
         "ranks": int(runs.ranks.sum()), "tested": len(tested), "tied_text": findings.tied_text(runs),
         **findings.placement_values(runs)}
    tables = {"tab-stragglers-runs": Table(frame=analysis.runs_table(runs), formats=RUNS_FORMATS)}
    figures, found = {}, []

    timed = analysis.timed(runs)
    ratio = analysis.median_by_machine(timed.ratio, timed.machine, quantity="slowest over median rank time")
    # the report decides once: every comparison of the chapter (one family) in one call
    decided = evidence.decide(analysis.placement_comparisons(tested)) if len(tested) else []
    records = [ratio, *decided]
    if decided:
        variance, crowding = decided
        v |= {"variance_ratio": variance.ratio, "variance_decided": variance.decided,
              "variance_text": Prose(evidence.phrase(variance)), "crowding_ratio": crowding.ratio,
              "crowding_decided": crowding.decided}
        tables["tab-stragglers-against-chance"] = comparison.table(
            decided, pd.DataFrame({"ranks": [c.label for c in decided]}), reference=analysis.RANDOM_PLACEMENT)
        model, by_machine = null_model(runs), null_by_machine(runs)
        v |= {f"null_{k}": x for k, x in model.items() if k != "pmf"}
        v |= {f"null_machine_{k}": x for k, x in by_machine.items()}
        most = analysis.crowding_machines(by_machine)
        scale, others = analysis.storage_scale(tested)
        crowded = crowded_nodes_by_run(runs)
        changes = analysis.moving_machines(crowded)
        records += [most, scale, changes]
        v |= {"storage_scale_machines": scale.k, "tested_machines": scale.n, "node_changes": changes.k,
              "node_changes_of": changes.n, "scope_md": findings.scope_text(scale, others)}
        found += [findings.variance_finding(variance), findings.crowding_finding(crowding, most, by_machine["expected"])]
        if changes.n:
            found.append(findings.changes_finding(crowded, changes, variance))
        tables["tab-stragglers-crowded-nodes"] = Table(frame=analysis.crowded_table(crowded, runs))
        figures["fig-stragglers-null"] = charts.chart_null(model)
    else:
        found.append(findings.no_nodes_finding(ratio, len(timed)))

    # examples come from runs the validity audit does not flag (evidence.examples): a flagged one is named so
    flags = runs[["run", "validity_flags"]].drop_duplicates("run")

    def example_groups(groups: pd.DataFrame) -> pd.DataFrame:
        return evidence.examples(groups.merge(flags, on="run", how="left"))

    top = evidence.examples(timed).sort_values(["ratio", "run"], ascending=[False, True]).iloc[0]
    at = slow_positions(positions, top.run) if len(positions) else []
    worst, worst_values = findings.worst_finding(top, positions, nodes, at, position_runs)
    found.append(worst)
    v |= worst_values | {"has_worst_positions": bool(worst_values.get("worst_positions_md"))}

    if len(positions):
        p = analysis.worst_groups(example_groups(positions), "position").iloc[0]
        q = runs.set_index("run").loc[p.run]
        # what slows such a position, said once: under the figure by the worst straggler's positions when they are
        # this phase's, else in the caption
        said = v["has_worst_positions"] and p.run == top.run
        v |= {"position_run": p.run, "position": int(p.position), "position_relative": float(p.relative),
              "position_ranks": p.rank_list, "position_note": Prose(
                  "" if said else findings.first_ranks_note([int(p.position)], int(q.ranks) // int(q.nodes)))}
        figures["fig-stragglers-positions"] = charts.chart_positions(positions.merge(flags, on="run", how="left"),
                                                                    POSITION_RUNS)

    if len(nodes):  # the slowest node over every tested phase, and whose files its ranks worked on
        w = analysis.worst_groups(example_groups(nodes), "node").iloc[0]
        q = tested.set_index("run").loc[w.run]
        v |= {"node_run": w.run, "node": int(w.node), "node_ranks": w.rank_list, "node_relative": float(w.relative),
              "node_shifted": bool(q.shifted), "shifted_tested": int(tested.shifted.sum())}
        found.append(findings.node_finding(w, q))
        figures["fig-stragglers-every-run"], v["every_run_note"] = chart_every_run(
            node_spread(nodes).merge(flags, on="run", how="left"))
        tables["tab-stragglers-worst-nodes"] = Table(
            frame=analysis.worst_groups(nodes, "node")[list(WORST_NODE_COLUMNS)].rename(columns=WORST_NODE_COLUMNS),
            formats={"median (s)": ",.2f", "/ phase median": ".3f"})

    # how long jobs waited, and what the stonewall leaves in that wait (said with the longest wait: at most six
    # findings)
    wait = evidence.examples(runs).sort_values(["wait_median_s", "run"], ascending=[False, True]).iloc[0]
    v |= {"wait_run": wait.run, "wait_s": float(wait.wait_median_s),
          "median_wait_s": float(runs.wait_median_s.median())}
    if pd.notna(wait.stonewall_s) and wait.stonewall_items_min > 0:
        v |= {"wait_items_min": int(wait.stonewall_items_min), "wait_items_max": int(wait.stonewall_items_max)}
    walled = runs[runs.run_key.notna() & runs.stonewall_s.notna()]
    walled = walled.assign(after=walled.max_s - walled.stonewall_s)
    counted = walled[walled.stonewall_items_min > 0]
    after = imbalance = last = None
    if len(walled):
        after = analysis.median_by_machine(walled.after, walled.machine, unit="s",
                                           quantity="the slowest rank's end after the stonewall")
        last = evidence.examples(walled).sort_values(["after", "run"], ascending=[False, True]).iloc[0]
        v |= {"after_stonewall_s": after.value, "after_stonewall_max_s": float(last.after),
              "after_stonewall_run": last.run}
        records.append(after)
        tables["tab-stragglers-stonewall"] = Table(frame=stonewall.rename(columns=STONEWALL_COLUMNS),
                                                   formats=STONEWALL_FORMATS)
    if len(counted):
        imbalance = analysis.median_by_machine(counted.stonewall_items_max / counted.stonewall_items_min,
                                               counted.machine,
                                               quantity="busiest over least busy rank's items at the stonewall")
        v["imbalance_median"] = imbalance.value
        records.append(imbalance)
    found.append(findings.wait_finding(wait, ratio if len(tested) else None, len(timed)))
    v["stonewall_md"] = findings.stonewall_text(wait, walled, last, after, imbalance, len(counted))
    # the landing page leads with a run's slow ranks tied to their position within every node, when one is
    return Report(values=v, tables=tables, figures=figures, findings=found, evidence=records,
                  abstract=[f for f in found if f.target == "fig-stragglers-positions"])
