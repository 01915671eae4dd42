"""The stragglers chapter: per-rank times read from real per-rank CSVs, on the four test databases."""
import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import execute_chapter

from iobook import store
from iobook.studies import stragglers as study

RAW = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
AURORA_694 = RAW / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-694" / "results" / \
    "2023.10.08-18.11.45"
TUCSON_679 = RAW / "IBM Tucson" / "Arches Storage Scale System 3500" / "IBM Storage Scale" / "2023" / \
    "submission-679" / "results" / "2023.10.22-06.40.20"

# runs (phase x CSV), IO500 runs they belong to, CSVs, per database
EXPECTED = {"empty": (0, 0, 0), "built_tools": (25, 1, 14), "other_io500": (55, 5, 55), "default": (134, 12, 134)}


def _runs(con):
    return study.get_runs(study.get_rank_times(con))


def test_run_counts(any_db):
    name, con = any_db
    ranks = study.get_rank_times(con)
    if name == "empty":
        assert ranks.empty
        return
    runs = study.get_runs(ranks)
    assert (len(runs), runs.run_key.nunique(), runs.file.nunique()) == EXPECTED[name]
    assert (runs.max_s >= runs.median_s).all() and (runs.ratio >= 1).all()


@pytest.mark.parametrize("db, run, rank, seconds", [
    # data/raw/.../submission-694/results/2023.10.08-18.11.45/mdtest-hard-read.csv line 835: "832,...,1.5676175499e+02"
    ("default", "submission-694 mdtest-hard-read", 832, 156.76175499),
    # built-tools/ior/ior_rankdetails_csv_np2.rank.csv line 2: "write,0,2.56e-02,2.5551080704e-02,..." (rank 1: 2.37e-02)
    ("built_tools", "built-tools/ior/ior_rankdetails_csv_np2.rank.csv write, iteration 0", 0, 2.5551080704e-02),
    # io500-submissions/ACC Cyfronet AGH/.../submission-708/results/2024.05.03-09.25.44/ior-easy-write.csv line 7
    ("other_io500", "submission-708 ior-easy-write", 5, 386.59780407),
])
def test_slowest_rank_read_by_hand(databases, db, run, rank, seconds):
    runs = _runs(store.open_read(databases[db])).set_index("run")
    assert runs.loc[run, "slowest_rank"] == rank
    assert runs.loc[run, "max_s"] == pytest.approx(seconds, rel=1e-9)


def test_waits_and_nodes_default(databases):
    runs = _runs(store.open_read(databases["default"])).set_index("run")
    daos = runs.loc["submission-694 mdtest-hard-read"]
    assert daos.wait_median_s == pytest.approx(daos.max_s - daos.median_s)
    # 2080 ranks at 208 per node (ior_tests / mdtest_runs): rank 832 on node 4, 104 slowest ranks
    assert (daos.ranks, daos.tasks_per_node, daos.slowest_node, daos.nodes, daos.slow_ranks) == (2080, 208, 4, 10, 104)
    assert daos.slow_on_node > 2 * daos.slow_expected
    assert pd.isna(daos.stonewall_s)  # reads have no stonewall
    write = runs.loc["submission-694 mdtest-easy-write"]
    # the mdtest log: "Continue stonewall hit min: 1134732 max: 2034551"
    assert (write.stonewall_s, write.stonewall_items_min, write.stonewall_items_max) == (300, 1134732, 2034551)


def test_single_node_has_no_worst_node(databases):
    ranks = study.get_rank_times(store.open_read(databases["built_tools"]))
    assert (study.get_runs(ranks).nodes == 1).all()  # 2 ranks on a 2-core VM
    assert study.worst_nodes(study.get_nodes(ranks)).empty


def test_placement_from_tasks_per_node_and_nodemap():
    assert study.placement(None, 40, None, None)[0] is None  # no tasks per node: unknown, never guessed
    assert study.placement(20, 200, None, None) == ("block", "assumed (no Nodemap)")
    assert study.placement(20, 200, 20, 1) == ("block", "Nodemap")
    assert study.placement(20, 200, 20, 10) == ("round-robin", "Nodemap")
    assert study.placement(20, 200, 20, None)[0] is None  # an irregular Nodemap


@pytest.mark.parametrize("name", ["empty", "built_tools", "other_io500", "default"])
def test_chapter_executes(databases, tmp_path, name):
    outputs = "\n".join(execute_chapter("stragglers", databases[name], tmp_path))
    if name == "empty":
        assert "holds no per-rank times of IOR or mdtest" in outputs and "saveRankPerformanceDetails" in outputs
        assert "<table" not in outputs and "{numref}" not in outputs
        return
    assert "<table" in outputs and "{numref}`tab-stragglers-runs`" in outputs
    if name == "built_tools":  # one node a run: the findings link no node figure
        assert "fig-stragglers-every-run" not in outputs and "No phase here spans several nodes" in outputs
    else:
        assert "{numref}`fig-stragglers-null`" in outputs and "{numref}`fig-stragglers-every-run`" in outputs
    if name == "default":
        assert "submission-694 mdtest-hard-read" in outputs and "{numref}`fig-stragglers-positions`" in outputs


def test_every_run_has_its_slowest_node_named(databases):
    nodes = study.get_nodes(study.get_rank_times(store.open_read(databases["default"])))
    spread = study.node_spread(nodes)
    assert len(spread) == nodes.run.nunique() and spread.run.is_unique  # every run here spans >= 10 nodes
    daos = spread.set_index("run").loc["submission-694 mdtest-hard-read"]
    # 2080 ranks, 208 per node: node 4 (ranks 832-1039) holds the slowest rank (832, 156.8 s) and has the
    # highest median of the 10 nodes; node 3 the lowest
    assert (daos.label, daos.first_rank, daos.last_rank, daos.nodes) == ("node 4", 832, 1039, 10)
    assert daos.lowest < 1 < daos.relative
    chart = study.chart_every_run(spread).to_dict()
    (rows,) = chart["datasets"].values()
    assert len(rows) == len(spread) and chart["title"]["text"][0].startswith(f"The slowest node of each of {len(spread)} phases")
    assert study.node_spread(study.get_nodes(study.get_rank_times(store.open_read(databases["built_tools"])))).empty


def test_ior_counts_at_the_stonewall(databases):
    runs = _runs(store.open_read(databases["default"])).set_index("run")
    # submission-679's ior-easy-write.txt line 34: "stonewalling pairs accessed min: 19673 max: 22355"
    write = runs.loc["submission-679 ior-easy-write"]
    assert (write.stonewall_items_min, write.stonewall_items_max) == (19673, 22355)
    assert pd.isna(runs.loc["submission-679 ior-easy-read"].stonewall_items_min)  # reads: no stonewall count


def _csv_times(path: Path, column: str) -> dict[int, float]:
    """rank -> time of a per-rank CSV, read with the csv module (the 'all' row left out)."""
    with path.open(newline="") as f:
        return {int(row["rank"]): float(row[column]) for row in csv.DictReader(f) if row["rank"] != "all"}


def _nodemap(log: Path) -> list[int]:
    """The ranks a mdtest log's "Nodemap:" line marks as sharing rank 0's node."""
    (line,) = [ln for ln in log.read_text().splitlines() if ln.startswith("Nodemap: ")]
    return [i for i, c in enumerate(line.split()[1]) if c == "1"]


@pytest.fixture(scope="module")
def default_runs(databases):
    ranks = study.get_rank_times(store.open_read(databases["default"]))
    return ranks, study.get_runs(ranks)


def test_barrier_tied_phases_are_left_out(default_runs):
    ranks, runs = default_runs
    # ior-easy-read.csv of submission-694: 2080 ranks' runtimes (column 4) all within 0.0001 % of each other
    times = _csv_times(AURORA_694 / "ior-easy-read.csv", "runtime")
    spread = max(times.values()) / min(times.values()) - 1
    assert len(times) == 2080 and spread < study.BARRIER_TIED
    tied = runs.set_index("run").loc["submission-694 ior-easy-read"]
    assert tied.barrier_tied and tied.spread == pytest.approx(spread, rel=1e-6)
    assert "submission-694 ior-easy-read" not in set(runs[study.clustering_tested(runs)].run)
    # mdtest-hard-read.csv's File read times spread over 1.3-1.96x the median: not tied
    assert not runs.set_index("run").loc["submission-694 mdtest-hard-read", "barrier_tied"]
    assert (int(runs.barrier_tied.sum()), len(runs)) == (32, 134)


def test_placement_is_read_from_the_nodemap(default_runs):
    ranks, runs = default_runs
    # mdtest-easy-write.txt of submission-679 prints "Nodemap: 1000000000100..." (200 ranks, 10 nodes): ranks
    # 0, 10, ..., 190 share rank 0's node, so the ranks are dealt round-robin, not 20 to a node in order
    on_rank0 = _nodemap(TUCSON_679 / "mdtest-easy-write.txt")
    assert on_rank0 == list(range(0, 200, 10))
    placed = ranks[ranks.run == "submission-679 mdtest-easy-write"].set_index("rank")
    assert set(placed.node[placed.node == 0].index) == set(on_rank0)
    assert placed.placement.iloc[0] == "round-robin" and placed.placement_from.iloc[0] == "Nodemap"
    # its IOR phases run in the same MPI job: they take the run's mdtest Nodemap
    ior = ranks[ranks.run == "submission-679 ior-easy-write"]
    assert set(ior.placement) == {"round-robin"} and set(ior.nodemap_from) == {"the IO500 run's mdtest logs"}
    # submission-694's mdtest-hard-read.txt marks ranks 0-207: block placement, 208 to a node
    assert _nodemap(AURORA_694 / "mdtest-hard-read.txt") == list(range(208))
    aurora = ranks[ranks.run == "submission-694 mdtest-hard-read"].set_index("rank")
    assert set(aurora.placement) == {"block"} and aurora.node[207] == 0 and aurora.node[208] == 1


def test_worst_straggler_is_a_position_within_every_node(default_runs):
    ranks, runs = default_runs
    # mdtest-hard-read.csv of submission-694: its 21 slowest ranks are 0, 104, 208, ..., 1976 (the first rank of
    # each half of every node's 208, block placement from its Nodemap) and rank 52
    times = _csv_times(AURORA_694 / "mdtest-hard-read.csv", "time-File read")
    slowest = sorted(times, key=times.get, reverse=True)[:21]
    assert sorted(slowest) == sorted([*range(0, 2080, 104), 52])
    assert study.slow_positions(ranks, "submission-694 mdtest-hard-read") == [0, 104]
    facts = study.findings(ranks, runs)
    assert facts["worst_run"] == "submission-694 mdtest-hard-read" and facts["worst_positions"] == "0 and 104"
    assert facts["worst_positions_relative"] > 1.5 > 1.1 > facts["worst_node_relative"]
    row = runs.set_index("run").loc["submission-694 mdtest-hard-read"]
    assert (row.slowest_position, row.slow_at_position) == (0, 10) and row.q_position < study.FDR


def test_null_model_is_random_placement(default_runs):
    """The exact null (hypergeometric per run) against random placement simulated with numpy (seed 0)."""
    ranks, runs = default_runs
    model = study.null_model(runs)
    tested = runs[study.clustering_tested(runs)]
    assert model["tested"] == len(tested) == 102 and model["observed"] > model["high"]
    rng = np.random.default_rng(0)
    draws = 400
    counts = np.zeros(draws, dtype=int)
    for run in tested.itertuples():
        g = ranks[ranks.run == run.run]
        nodes = g.node.to_numpy(dtype=int)
        share = 2 * run.slow_ranks * np.bincount(nodes) / len(nodes)  # more than twice an even share
        for d in range(draws):  # the run's times dealt to its ranks at random: its slowest k land here
            slow = nodes[rng.permutation(len(nodes))[: run.slow_ranks]]
            counts[d] += (slow == slow[0]).sum() > share[slow[0]]
    assert abs(counts.mean() - model["expected"]) < 4 * counts.std() / np.sqrt(draws)
    assert np.percentile(counts, 2.5) >= model["low"] - 1 and np.percentile(counts, 97.5) <= model["high"] + 1


@pytest.mark.parametrize("name", ["built_tools", "other_io500", "default"])
def test_first_finding_is_short_with_number_and_interval(databases, name):
    ranks = study.get_rank_times(store.open_read(databases[name]))
    main = study.findings(ranks, study.get_runs(ranks))["finding_main"]
    assert len(main.split()) <= 30 and "95%" in main


def test_logs_outside_the_archive_layout(tmp_path):
    """A user's folder: the built-tools runs and one IO500 run's IOR log and per-rank CSV copied flat, without
    its mdtest logs (no Nodemap) or its IO500 summary (no run): placement is assumed, and the chapter says so."""
    from conftest import ARCHIVE, BUILT_TOOLS
    from iobook.ingest import ingest
    import shutil

    tree = tmp_path / "mine"
    shutil.copytree(BUILT_TOOLS, tree / "built-tools")
    helios = ARCHIVE / "ACC Cyfronet AGH" / "Helios" / "Lustre" / "2024" / "submission-708" / "results" / \
        "2024.05.03-09.25.44"
    for name in ("ior-easy-write.txt", "ior-easy-write.csv"):  # line 22 of the log: "clients per node    : 8"
        shutil.copy(helios / name, tree / name)
    db = tmp_path / "mine.duckdb"
    ingest([tree], db, progress=False)
    ranks = study.get_rank_times(store.open_read(db))
    helios_ranks = ranks[~ranks.file.str.contains("built-tools")]
    assert set(helios_ranks.placement_from) == {"assumed (no Nodemap)"} and set(helios_ranks.tasks_per_node) == {8}
    outputs = "\n".join(execute_chapter("stragglers", db, tmp_path))
    assert "assumed block for" in outputs and "{numref}`fig-stragglers-null`" in outputs


def _ior_shape(log: Path) -> tuple[int, int, int]:
    """(nodes, tasks, clients per node) an IOR log prints in its Options block."""
    shape = {}
    for line in log.read_text().splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("nodes", "tasks", "clients per node") and key.strip() not in shape:
            shape[key.strip()] = int(value.split()[0])
    return shape["nodes"], shape["tasks"], shape["clients per node"]


def test_ior_phases_inherit_the_runs_nodemap_and_their_logs_agree(default_runs):
    """An IOR log prints no Nodemap: its phase is given the run's mdtest Nodemap (an assumption). Read from the
    raw logs: the mdtest phases' own Nodemap lines, and each IOR log's nodes / tasks / clients per node against
    the map the run's mdtest logs print (ranks on rank 0's node = clients per node, map length = tasks)."""
    ranks, runs = default_runs
    first = ranks.groupby("run").first()
    own, inherited, agree, disagree = 0, 0, 0, 0
    for run, row in first.iterrows():
        folder = Path(row.path).parent
        log = folder / (Path(row.path).stem + ".txt")
        if row.tool == "mdtest":
            assert _nodemap(log)  # its own "Nodemap:" line
            own += 1
            continue
        assert not [ln for ln in log.read_text().splitlines() if ln.startswith("Nodemap: ")]
        maps = {tuple(_nodemap(m)) for m in folder.glob("mdtest-*.txt")}
        lengths = {len(ln.split()[1]) for m in folder.glob("mdtest-*.txt") for ln in m.read_text().splitlines()
                   if ln.startswith("Nodemap: ")}
        assert len(maps) == 1 and len(lengths) == 1  # the run's mdtest logs print one map
        inherited += 1
        nodes, tasks, per_node = _ior_shape(log)
        (on_rank0,), (length,) = maps, lengths
        if per_node == len(on_rank0) and tasks == length and nodes * per_node == tasks:
            agree += 1
        else:
            disagree += 1
    assert (own, inherited, agree, disagree) == (84, 50, 50, 0)
    by_run = runs.set_index("run")
    assert (by_run.nodemap_from == "its mdtest log").sum() == own
    assert (by_run.nodemap_from == "the IO500 run's mdtest logs").sum() == inherited
    assert (by_run.map_agrees == True).sum() == agree and (by_run.map_agrees == False).sum() == disagree  # noqa: E712
    facts = study.findings(ranks, runs)
    assert (facts["placement_own"], facts["placement_inherited"], facts["inherited_checked"],
            facts["inherited_disagree"]) == (own, inherited, agree + disagree, disagree)
    assert "assum" in facts["placement_text"] and f"{inherited}" in facts["placement_text"]


def test_null_by_run_is_random_placement(default_runs):
    """Phases of one run share its nodes: the count by run (runs where most tested phases crowd) against random
    placement simulated with numpy (seed 1), each phase's times dealt anew."""
    ranks, runs = default_runs
    model = study.null_by_run(runs)
    tested = runs[study.clustering_tested(runs)]
    assert model["runs"] == tested.run_key.nunique() == 12
    rng = np.random.default_rng(1)
    draws = 200
    crowded = {}  # run_key -> crowded phases per draw
    for run in tested.itertuples():
        nodes = ranks[ranks.run == run.run].node.to_numpy(dtype=int)
        share = 2 * run.slow_ranks * np.bincount(nodes) / len(nodes)
        hits = np.zeros(draws, dtype=int)
        for d in range(draws):
            slow = nodes[rng.permutation(len(nodes))[: run.slow_ranks]]
            hits[d] = (slow == slow[0]).sum() > share[slow[0]]
        crowded[run.run_key] = crowded.get(run.run_key, 0) + hits
    phases = tested.groupby("run_key").size()
    counts = sum((crowded[k] > phases[k] // 2).astype(int) for k in crowded)
    assert abs(counts.mean() - model["expected"]) < 4 * max(counts.std(), 0.05) / np.sqrt(draws) + 0.05
    assert np.percentile(counts, 97.5) <= model["high"] + 1
    # observed: per run, its phases crowded (over twice an even share on the slowest rank's node)
    observed = sum(g.crowded_node.sum() > len(g) // 2 for _, g in tested.groupby("run_key"))
    assert model["observed"] == observed == 10 and model["observed"] > model["high"]
    main = study.findings(ranks, runs)["finding_main"]
    assert f"{observed} of 12 runs" in main and "95%" in main and len(main.split()) <= 30
