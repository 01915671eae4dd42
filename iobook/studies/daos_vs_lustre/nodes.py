"""The DAOS versus Lustre study per client node: each run's client nodes (its own phase logs first, then what its
submitter declared), the runs on 10 client nodes kept apart (seed 002's 10-node list), and Intel's Wolf (DAOS)
against NUDT's Tianhe-2E (Lustre) phase by phase per client node."""
from __future__ import annotations

import pandas as pd

from ...database import store
from ...parsers.io500 import STANDARD_BW_PHASES
from .analysis import PACKAGE, PHASES, has_view, period_order

TEN_NODES = 10  # seed 002: "10-node list - Submissions use only 10 client nodes for the benchmark."
TEN_CLIENTS, OTHER_CLIENTS, UNKNOWN_CLIENTS = "10 client nodes", "other client counts", "client nodes unknown"
# how a run's client nodes are known (no bracket: the value stands in every row of a table)
FROM_LOGS, DECLARED, UNKNOWN = "IOR and mdtest phase logs", "declared in io500_info", "unknown"
SYSTEM_INFO = "io500_system_info"  # the view of io500_info lines; a database ingested before it lacks it
TIANHE = {"institution": "National Supercomputing Center in Changsha", "system": "Tianhe-2E"}
WOLF = {"institution": "Intel", "system": "Wolf"}


def all_phase_log_clients(con) -> pd.DataFrame:
    """Client nodes and tasks of every run as each of its phase logs counts them (queries/phase_log_clients.sql)."""
    return store.frame(con, PACKAGE, "phase_log_clients")


def phase_log_clients(con, run_id: int) -> pd.DataFrame:
    """Client nodes and tasks of one run as each of its phase logs counts them: phase, nodes, tasks."""
    logged = all_phase_log_clients(con)
    return logged[logged.run_id == run_id][["phase", "nodes", "tasks"]].reset_index(drop=True)


def client_nodes(con) -> pd.DataFrame:
    """Client and data-server nodes per run. Client nodes as the run's own phase logs count them (IOR's
    `nodes`, mdtest's `on N node(s)`), where every linked log gives the same number; else as the submitter
    declared them in io500_info lines (num_client_nodes, client_nodes); else unknown. Data servers only as
    declared (num_data_server_nodes, ds_nodes): no log counts them."""
    columns = ["run_id", "client_nodes", "nodes_from", "declared_client_nodes", "data_servers"]
    if not has_view(con, SYSTEM_INFO):
        return pd.DataFrame(columns=columns).astype({"run_id": "int64"})
    logged = all_phase_log_clients(con).groupby("run_id").nodes.agg(["min", "max"])
    from_logs = logged[logged["min"] == logged["max"]]["min"].rename("logged_nodes")
    out = store.frame(con, PACKAGE, "declared_nodes").merge(
        from_logs, left_on="run_id", right_index=True, how="left")
    out = out.astype({"logged_nodes": "Int64", "declared_client_nodes": "Int64", "data_servers": "Int64"})
    out["client_nodes"] = out.logged_nodes.fillna(out.declared_client_nodes)
    out["nodes_from"] = UNKNOWN
    out.loc[out.declared_client_nodes.notna(), "nodes_from"] = DECLARED
    out.loc[out.logged_nodes.notna(), "nodes_from"] = FROM_LOGS
    return out[columns]


def per_client_node(chosen: pd.DataFrame, nodes: pd.DataFrame) -> pd.DataFrame:
    """The chosen runs with their client and server nodes, which IO500 list each can enter (every run the full
    list of its period; a run on exactly 10 client nodes also the 10-node list), and bandwidth and metadata
    score per client node and, where servers are declared, per data server."""
    out = chosen.merge(nodes, on="run_id", how="left")
    out["nodes_from"] = out.nodes_from.fillna(UNKNOWN)
    known = out.client_nodes.notna()
    out["list_kind"] = UNKNOWN_CLIENTS
    out.loc[known, "list_kind"] = OTHER_CLIENTS
    out.loc[known & (out.client_nodes == TEN_NODES), "list_kind"] = TEN_CLIENTS
    out["bw_per_client_node"] = out.bw_gib_s / out.client_nodes.astype(float)
    out["md_per_client_node"] = out.md_kiops / out.client_nodes.astype(float)
    out["bw_per_data_server"] = out.bw_gib_s / out.data_servers.astype(float)
    out["md_per_data_server"] = out.md_kiops / out.data_servers.astype(float)
    return out


def declared_classification(con) -> pd.DataFrame:
    """How submitters classified their systems in io500_info lines (system_classification: production,
    Validation/CI, ...) and whether they declared a 10-node challenge run: runs per key and value as printed."""
    if not has_view(con, SYSTEM_INFO):
        return pd.DataFrame(columns=["key", "value", "runs"])
    return store.frame(con, PACKAGE, "declared_classification")


def declared_against_logs(normalised: pd.DataFrame) -> pd.DataFrame:
    """Runs whose phase logs count a different number of client nodes than their submitter declared."""
    differ = normalised[(normalised.nodes_from == FROM_LOGS) & normalised.declared_client_nodes.notna()
                        & (normalised.client_nodes != normalised.declared_client_nodes)]
    return differ[["run_key", "institution", "system", "year", "client_nodes", "declared_client_nodes"]]


def lists_apart(normalised: pd.DataFrame) -> pd.DataFrame:
    """Per archive year: valid runs, how many have a known client count, how many ran on 10 client nodes
    (10-node list), and the median score on each list."""
    ten = normalised.list_kind == TEN_CLIENTS
    table = normalised.assign(ten=ten, known=normalised.client_nodes.notna()).groupby("period").agg(
        runs=("run_id", "size"), client_nodes_known=("known", "sum"), ten_node=("ten", "sum"),
        median_score_full=("score", "median"))
    table["median_score_10_node"] = normalised[ten].groupby("period").score.median()
    return table.reindex(period_order(normalised)).reset_index()


def per_node_medians(normalised: pd.DataFrame) -> pd.DataFrame:
    """Median bandwidth and metadata score per client node, per family, archive year and client count (10 client
    nodes or other), over runs with a known client count: years kept apart, as systems of 2019 and 2023 differ."""
    known = normalised[normalised.client_nodes.notna()]
    out = known.groupby(["family", "period", "list_kind"]).agg(
        runs=("run_id", "size"), median_client_nodes=("client_nodes", "median"),
        bw_per_client_node=("bw_per_client_node", "median"), md_per_client_node=("md_per_client_node", "median"))
    return out.reset_index().sort_values(["family", "period", "list_kind"]).reset_index(drop=True)


def wolf_and_tianhe(con, nodes: pd.DataFrame) -> pd.DataFrame:
    """Intel's Wolf and NUDT's Tianhe-2E runs with their releases and client and server nodes."""
    runs = store.frame(con, PACKAGE, "wolf_and_tianhe", [
        WOLF["institution"], WOLF["system"], TIANHE["institution"], TIANHE["system"]]).merge(
        nodes, on="run_id", how="left")
    runs["release"] = runs.io500_version.fillna("not printed")
    return runs


def run_phases(con, run_ids) -> pd.DataFrame:
    """The scored phases of these runs (queries/run_phases.sql), each run's in the order it ran them."""
    phases = store.frame(con, PACKAGE, "run_phases", [[int(i) for i in run_ids]])
    return phases[phases.phase.isin(PHASES)].reset_index(drop=True)


def phases_per_client_node(con, runs: pd.DataFrame) -> pd.DataFrame:
    """Scored phase values of these runs divided by each run's client nodes, long form."""
    known = runs[runs.client_nodes.notna()]
    values = run_phases(con, known.run_id)[["run_id", "phase", "value"]]
    out = values.merge(known[["run_id", "run_key", "system", "year", "client_nodes"]], on="run_id")
    out["per_client_node"] = out.value / out.client_nodes.astype(float)
    out["run"] = [f"{s} {k} ({int(y)}, {int(n)} client nodes)" for s, k, y, n in
                  zip(out.system, out.run_key, out.year, out.client_nodes)]
    return out


def phase_ratios(per_node: pd.DataFrame, wolf_keys: list[str], tianhe_keys: list[str]) -> pd.DataFrame:
    """Per phase, Wolf's value per client node over Tianhe-2E's, over every pair of the given runs:
    lowest and highest ratio and the number of pairs (a range over runs, not a confidence interval)."""
    wide = per_node.pivot_table(index="phase", columns="run_key", values="per_client_node")
    ratios = pd.concat({(w, t): wide[w] / wide[t] for w in wolf_keys for t in tianhe_keys}, axis=1)
    out = pd.DataFrame({"pairs": ratios.shape[1], "lowest ratio": ratios.min(axis=1),
                        "highest ratio": ratios.max(axis=1)}).reindex(PHASES)
    out.insert(0, "kind", ["bandwidth" if p in STANDARD_BW_PHASES else "metadata" for p in out.index])
    return out.reset_index()


def ten_node_pair(pair_runs: pd.DataFrame, pair_phases: pd.DataFrame) -> tuple[pd.DataFrame | None, int | None]:
    """Wolf over Tianhe-2E per client node on 10 client nodes, within one year (the last holding runs of both on 10
    client nodes): the phase ratios over every pair of those runs and the year; (None, None) without such a year."""
    found = None, None
    for year, g in pair_runs[pair_runs.client_nodes == TEN_NODES].groupby("year", sort=True):
        wolf, tianhe = (g[g.system == s["system"]].run_key.tolist() for s in (WOLF, TIANHE))
        if wolf and tianhe:
            found = phase_ratios(pair_phases, wolf, tianhe), int(year)
    return found
