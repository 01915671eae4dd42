"""The stragglers chapter: per-rank times read from real per-rank CSVs, on the four test databases."""
import pandas as pd
import pytest
from conftest import execute_chapter

from iobook import store
from iobook.studies import stragglers as study

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


def test_unknown_tasks_per_node_gives_unknown_node():
    ranks = pd.DataFrame({"rank": [0, 1, 25], "tasks_per_node": [pd.NA, 20, 20]})
    nodes = study.node_of(ranks)
    assert pd.isna(nodes[0]) and nodes[1:].tolist() == [0, 1]


@pytest.mark.parametrize("name", ["empty", "built_tools", "other_io500", "default"])
def test_chapter_executes(databases, tmp_path, name):
    outputs = "\n".join(execute_chapter("stragglers", databases[name], tmp_path))
    if name == "empty":
        assert "holds no per-rank times of IOR or mdtest" in outputs and "saveRankPerformanceDetails" in outputs
        assert "<table" not in outputs and "Findings" not in outputs
    else:
        assert "## Findings" in outputs and "What this cannot say" in outputs
    if name == "built_tools":
        assert "No run in this database spans more than one node" in outputs
    if name == "default":
        assert "submission-694 mdtest-hard-read" in outputs


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
    assert len(rows) == len(spread) and chart["title"]["text"].startswith(f"The slowest node of each of {len(spread)} runs")
    assert study.node_spread(study.get_nodes(study.get_rank_times(store.open_read(databases["built_tools"])))).empty


def test_ior_counts_at_the_stonewall(databases):
    runs = _runs(store.open_read(databases["default"])).set_index("run")
    # submission-679's ior-easy-write.txt line 34: "stonewalling pairs accessed min: 19673 max: 22355"
    write = runs.loc["submission-679 ior-easy-write"]
    assert (write.stonewall_items_min, write.stonewall_items_max) == (19673, 22355)
    assert pd.isna(runs.loc["submission-679 ior-easy-read"].stonewall_items_min)  # reads: no stonewall count
