"""The stragglers chapter: per-rank times read from real per-rank CSVs, on the four test databases. Every rank's
time stays in DuckDB (straggler_placed); the tests read single phases from there or from the CSVs."""
import csv
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATABASES, execute_chapter

from iobook.book import comparison
from iobook.database import store
from iobook.inference import evidence
from iobook.studies import stragglers as study

RAW = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
AURORA_694 = RAW / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-694" / "results" / \
    "2023.10.08-18.11.45"
TUCSON_679 = RAW / "IBM Tucson" / "Arches Storage Scale System 3500" / "IBM Storage Scale" / "2023" / \
    "submission-679" / "results" / "2023.10.22-06.40.20"
SAGUARO_784 = (RAW / "IBM Tucson" / "Saguaro Storage Scale System 6000"
               / "IBM Storage Scale 6.0.0.0 with ESS 7.0.0.0 (early pre-GA build)" / "2025" / "submission-784" / "results"
               / "2025.11.03-09.03.01")
BLUESTORM_687 = RAW / "IBM Cloud HPC" / "BlueStorm" / "IBM Storage Scale" / "2023" / "submission-687" / "results" / \
    "2023.11.07-00.00.25"
SANDBOX_586 = RAW / "IBMDL" / "Sandbox" / "GPFS" / "2021" / "submission-586"

# phases (phase x CSV), IO500 runs they belong to, CSVs, per database
EXPECTED = {"empty": (0, 0, 0), "built_tools": (25, 1, 14), "other_io500": (55, 5, 55), "default": (134, 12, 134)}


def _load(con):
    return study.get_runs(con, study.load_phases(con))


def _phase_ranks(con, runs: pd.DataFrame, run: str) -> pd.DataFrame:
    """One phase's ranks as placed (rank, time_s, node, position, slowness), from DuckDB."""
    phase_id = int(runs.set_index("run").phase_id[run])
    return con.execute("SELECT rank, time_s, node, position, slowness FROM straggler_placed WHERE phase_id = ? "
                       "ORDER BY rank", [phase_id]).df()


@pytest.mark.slow
def test_run_counts(any_db):
    name, con = any_db
    phases = study.load_phases(con)
    if name == "empty":
        assert phases.empty and study.report(con).note is not None
        return
    runs = study.get_runs(con, phases)
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
@pytest.mark.slow
def test_slowest_rank_read_by_hand(databases, db, run, rank, seconds):
    runs = _load(store.open_read(databases[db])).set_index("run")
    assert runs.loc[run, "slowest_rank"] == rank
    assert runs.loc[run, "max_s"] == pytest.approx(seconds, rel=1e-9)


@pytest.fixture(scope="module")
def default(databases):
    con = store.open_read(databases["default"])
    runs = _load(con)
    yield con, runs
    con.close()


@pytest.mark.slow
def test_waits_and_nodes_default(default):
    _, runs = default
    runs = runs.set_index("run")
    daos = runs.loc["submission-694 mdtest-hard-read"]
    assert daos.wait_median_s == pytest.approx(daos.max_s - daos.median_s)
    # 2080 ranks at 208 per node (ior_tests / mdtest_runs): rank 832 on node 4, 104 slowest ranks
    assert (daos.ranks, daos.tasks_per_node, daos.slowest_node, daos.nodes, daos.slow_ranks) == (2080, 208, 4, 10, 104)
    assert daos.slow_on_node > 2 * daos.slow_expected
    assert pd.isna(daos.stonewall_s)  # reads have no stonewall
    write = runs.loc["submission-694 mdtest-easy-write"]
    # the mdtest log: "Continue stonewall hit min: 1134732 max: 2034551"
    assert (write.stonewall_s, write.stonewall_items_min, write.stonewall_items_max) == (300, 1134732, 2034551)


@pytest.mark.slow
def test_single_node_has_no_worst_node(databases):
    con = store.open_read(databases["built_tools"])
    runs = _load(con)
    assert (runs.nodes == 1).all()  # 2 ranks on a 2-core VM
    assert study.get_groups(con, runs, "node").empty and not study.report(con).values["has_nodes"]


def test_placement_from_tasks_per_node_and_nodemap():
    assert study.placement(None, 40, None, None)[0] is None  # no tasks per node: unknown, never guessed
    assert study.placement(20, 200, None, None) == ("block", "assumed (no Nodemap)")
    assert study.placement(20, 200, 20, 1) == ("block", "Nodemap")
    assert study.placement(20, 200, 20, 10) == ("round-robin", "Nodemap")
    assert study.placement(20, 200, 20, None)[0] is None  # an irregular Nodemap


@pytest.mark.slow
@pytest.mark.parametrize("name", list(DATABASES))
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
        assert "submission-694 mdtest-hard-read" in outputs.replace("\\-", "-")
        assert "{numref}`fig-stragglers-positions`" in outputs


@pytest.mark.slow
def test_every_run_has_its_slowest_node_named(default):
    con, runs = default
    nodes = study.get_groups(con, runs, "node")
    spread = study.node_spread(nodes)
    assert len(spread) == nodes.run.nunique() and spread.run.is_unique  # every phase here spans >= 10 nodes
    daos = spread.set_index("run").loc["submission-694 mdtest-hard-read"]
    # 2080 ranks, 208 per node: node 4 (ranks 832-1039) holds the slowest rank (832, 156.8 s) and has the
    # highest median of the 10 nodes; node 3 the lowest
    assert (daos.label, daos.first_rank, daos.last_rank, daos.nodes) == ("node 4", 832, 1039, 10)
    assert daos.lowest < 1 < daos.relative
    chart, note = study.chart_every_run(spread)
    (rows,) = chart.to_dict()["datasets"].values()
    assert len(rows) == len(spread) and note == ""  # 102 phases x 3 marks: within charts.MAX_MARKS


@pytest.mark.slow
def test_ior_counts_at_the_stonewall(default):
    _, runs = default
    runs = runs.set_index("run")
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


@pytest.mark.slow
def test_barrier_tied_phases_are_left_out(default):
    _, runs = default
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


@pytest.mark.slow
def test_placement_is_read_from_the_nodemap(default):
    con, runs = default
    # mdtest-easy-write.txt of submission-679 prints "Nodemap: 1000000000100..." (200 ranks, 10 nodes): ranks
    # 0, 10, ..., 190 share rank 0's node, so the ranks are dealt round-robin, not 20 to a node in order
    on_rank0 = _nodemap(TUCSON_679 / "mdtest-easy-write.txt")
    assert on_rank0 == list(range(0, 200, 10))
    placed = _phase_ranks(con, runs, "submission-679 mdtest-easy-write").set_index("rank")
    assert set(placed.node[placed.node == 0].index) == set(on_rank0)
    by_run = runs.set_index("run")
    mdtest, ior = by_run.loc["submission-679 mdtest-easy-write"], by_run.loc["submission-679 ior-easy-write"]
    assert (mdtest.placement, mdtest.placement_from) == ("round-robin", "Nodemap")
    # its IOR phases run in the same MPI job: they take the run's mdtest Nodemap
    assert (ior.placement, ior.nodemap_from) == ("round-robin", "the IO500 run's mdtest logs")
    # submission-694's mdtest-hard-read.txt marks ranks 0-207: block placement, 208 to a node
    assert _nodemap(AURORA_694 / "mdtest-hard-read.txt") == list(range(208))
    aurora = _phase_ranks(con, runs, "submission-694 mdtest-hard-read").set_index("rank")
    assert by_run.placement["submission-694 mdtest-hard-read"] == "block"
    assert aurora.node[207] == 0 and aurora.node[208] == 1


@pytest.mark.slow
def test_worst_straggler_is_a_position_within_every_node(default):
    con, runs = default
    # mdtest-hard-read.csv of submission-694: its 21 slowest ranks are 0, 104, 208, ..., 1976 (the first rank of
    # each half of every node's 208, block placement from its Nodemap) and rank 52
    times = _csv_times(AURORA_694 / "mdtest-hard-read.csv", "time-File read")
    slowest = sorted(times, key=times.get, reverse=True)[:21]
    assert sorted(slowest) == sorted([*range(0, 2080, 104), 52])
    positions = study.get_groups(con, runs, "position")
    assert study.slow_positions(positions, "submission-694 mdtest-hard-read") == [0, 104]
    values = study.report(con).values
    assert values["worst_run"] == "submission-694 mdtest-hard-read" and values["worst_positions"] == "0 and 104"
    assert values["worst_positions_relative"] > 1.5 > 1.1 > values["worst_node_relative"]
    row = runs.set_index("run").loc["submission-694 mdtest-hard-read"]
    assert (row.slowest_position, row.slow_at_position) == (0, 10)


def _placed_nodes(con, runs, run) -> np.ndarray:
    return _phase_ranks(con, runs, run).node.to_numpy(dtype=int)


@pytest.mark.slow
def test_null_model_is_random_placement(default):
    """The exact null (hypergeometric per phase) against random placement simulated with numpy (seed 0)."""
    con, runs = default
    model = study.null_model(runs)
    tested = runs[study.clustering_tested(runs)]
    assert model["tested"] == len(tested) == 102 and model["observed"] > model["high"]
    rng = np.random.default_rng(0)
    draws = 400
    counts = np.zeros(draws, dtype=int)
    for run in tested.itertuples():
        nodes = _placed_nodes(con, runs, run.run)
        share = 2 * run.slow_ranks * np.bincount(nodes) / len(nodes)  # more than twice an even share
        for d in range(draws):  # the phase's times dealt to its ranks at random: its slowest k land here
            slow = nodes[rng.permutation(len(nodes))[: run.slow_ranks]]
            counts[d] += (slow == slow[0]).sum() > share[slow[0]]
    assert abs(counts.mean() - model["expected"]) < 4 * counts.std() / np.sqrt(draws)
    assert np.percentile(counts, 2.5) >= model["low"] - 1 and np.percentile(counts, 97.5) <= model["high"] + 1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["built_tools", "other_io500", "default"])
def test_first_finding_is_short_and_decided_by_machine(databases, name):
    con = store.open_read(databases[name])
    r = study.report(con)
    main = r.findings[0]
    assert len(main.text.split()) <= 30
    # built_tools holds 2 runs with ranks, each on one node: fewer than MIN_UNITS, so the sentence shows no
    # interval, and no finding links the figure of nodes
    assert ("no interval on 2 machines" if name == "built_tools" else "95%") in main.text
    if name == "built_tools":
        assert main.text.startswith("No phase here spans several nodes")
        assert not any(f.target == "fig-stragglers-every-run" for f in r.findings)
    if name != "built_tools":  # several nodes: the comparison by machine, n = machines (never phases or repeat runs)
        (record,) = main.evidence
        runs = _load(con)
        assert record.n == runs[study.clustering_tested(runs)].machine.nunique() and record.replicate == "machine"
        assert record.verdict is not None and record.low > 0


@pytest.mark.slow
def test_between_node_variance_recomputed_from_the_csv(default):
    """submission-694 mdtest-hard-read: the share of its log rank times' variance between its 10 nodes (208
    ranks each, block: its Nodemap), recomputed from the CSV with numpy, over (nodes - 1) / (ranks - 1)."""
    _, runs = default
    times = _csv_times(AURORA_694 / "mdtest-hard-read.csv", "time-File read")
    logs = np.log(np.array([times[r] for r in range(2080)]))
    by_node = logs.reshape(10, 208)
    between = (208 * (by_node.mean(axis=1) - logs.mean()) ** 2).sum() / ((logs - logs.mean()) ** 2).sum()
    row = runs.set_index("run").loc["submission-694 mdtest-hard-read"]
    assert row.between_node_share == pytest.approx(between, rel=1e-9)
    assert row.node_variance_ratio == pytest.approx(between / (9 / 2079), rel=1e-9)


@pytest.mark.slow
def test_crowded_node_changes_from_phase_to_phase(default):
    """The referee's reading (issue 27): 679's crowded phases sit on 5 nodes, 785's 7 on 7."""
    _, runs = default
    crowded = study.crowded_nodes_by_run(runs).set_index("run")
    counts = ["crowded phases", "on nodes", "most on one node"]
    assert tuple(crowded.loc["submission-679", counts]) == (5, 5, 1)
    assert tuple(crowded.loc["submission-785", counts]) == (7, 7, 1)
    assert (crowded["most on one node"] * 2 <= crowded["crowded phases"]).sum() == 11


@pytest.mark.slow
def test_shifted_phases_and_the_slowest_node(default):
    """mdtest-hard-stat.txt of submission-687 line 8: "Shifting ranks by 1 for each phase.": its ranks stat other
    ranks' files. 687 is flagged (CHANGED_DURING_RUN), so the slowest node group shown is of the unflagged runs:
    submission-784's mdtest-hard-read, whose log shifts too (line 8: "Shifting ranks by 25 for each phase."); the
    chapter does not call its slowest node the cause."""
    con, runs = default
    assert "Shifting ranks by 1 for each phase." in (BLUESTORM_687 / "mdtest-hard-stat.txt").read_text()
    assert runs.set_index("run").shifted["submission-687 mdtest-hard-stat"]
    assert not runs.set_index("run").shifted["submission-687 mdtest-hard-write"]
    assert "Shifting ranks by 25 for each phase." in (SAGUARO_784 / "mdtest-hard-read.txt").read_text()
    r = study.report(con)
    assert r.values["node_run"] == "submission-784 mdtest-hard-read" and r.values["node_shifted"]
    (text,) = [f.text for f in r.findings if f.target == "fig-stragglers-every-run"]
    assert "shifted ranks" in text and "worth checking" not in text


@pytest.mark.slow
def test_storage_scale_share_and_stonewall_wear_out(default):
    """The 12 runs are 9 machines (iobook.database.setups): Aurora's 694 and 696, Tucson's Arches 651 and 679 (their
    mmlscluster listings name the same 15 nodes), Tucson's Saguaro 722 and 784; 8 of the 9 are Storage Scale (694
    and 696 are DAOS); 586's ior-hard-write.txt line 34: "stonewalling pairs accessed min: 5130 max: 32971"."""
    con, runs = default
    r = study.report(con)
    assert (r.values["storage_scale_machines"], r.values["tested_machines"]) == (8, 9)
    line = (SANDBOX_586 / "ior-hard-write.txt").read_text().splitlines()[33]
    assert line.startswith("stonewalling pairs accessed min: 5130 max: 32971")
    assert r.values["wait_run"] == "submission-586 ior-hard-write"
    assert (r.values["wait_items_min"], r.values["wait_items_max"]) == (5130, 32971)  # the stonewall section's
    (text,) = [f.text for f in r.findings if "The longest wait" in f.text]
    assert "wear-out" in text


@pytest.mark.slow
def test_intervals_resample_machines_not_phases(default):
    """The median ratios' intervals come from resampling the 9 machines of the 12 runs, not the 102 or 48 phases."""
    con, _ = default
    r = study.report(con)
    estimates = [e for e in r.evidence if isinstance(e, evidence.Estimate)]
    assert estimates and all(e.n == 9 and e.replicate == "machine" for e in estimates)


@pytest.fixture(scope="module")
def flat_helios(tmp_path_factory) -> Path:
    """A user's folder: the built-tools runs and one IO500 run's IOR log and per-rank CSV copied flat, without its
    mdtest logs (no Nodemap) or its IO500 summary (no run): one machine over several nodes."""
    import shutil

    from conftest import ARCHIVE, BUILT_TOOLS

    from iobook.database.ingest import ingest

    tree = tmp_path_factory.mktemp("flat") / "mine"
    shutil.copytree(BUILT_TOOLS, tree / "built-tools")
    helios = ARCHIVE / "ACC Cyfronet AGH" / "Helios" / "Lustre" / "2024" / "submission-708" / "results" / \
        "2024.05.03-09.25.44"
    for name in ("ior-easy-write.txt", "ior-easy-write.csv"):  # line 22 of the log: "clients per node    : 8"
        shutil.copy(helios / name, tree / name)
    db = tree.parent / "mine.duckdb"
    ingest([tree], db, progress=False)
    return db


@pytest.mark.slow
def test_logs_outside_the_archive_layout(flat_helios, tmp_path):
    """Placement is assumed where no Nodemap was printed, and the chapter says so."""
    runs = _load(store.open_read(flat_helios))
    helios_runs = runs[~runs.file.str.contains("built-tools")]
    assert set(helios_runs.placement_from) == {"assumed (no Nodemap)"} and set(helios_runs.tasks_per_node) == {8}
    outputs = "\n".join(execute_chapter("stragglers", flat_helios, tmp_path))
    assert "assumed block for" in outputs and "{numref}`fig-stragglers-null`" in outputs


@pytest.mark.slow
def test_rank_times_go_together_only_when_decided(flat_helios, default):
    """Issue 36: "rank times go together within a node" is said only where the comparison by machine decides it.
    submission-708's ior-easy-write (Helios, copied flat) spans several nodes on one machine: too few units, so no
    sentence says it; the 9 machines of data/raw decide it."""
    r = study.report(store.open_read(flat_helios))
    (variance,) = [e for e in r.evidence if isinstance(e, evidence.Comparison) and "variance" in e.quantity]
    assert variance.n == 1 and not variance.decided
    assert not any("go together" in f.text or "going together" in f.text for f in r.findings)
    con, _ = default
    r = study.report(con)
    (variance,) = [e for e in r.evidence if isinstance(e, evidence.Comparison) and "variance" in e.quantity]
    assert variance.decided and variance.ratio > 1
    assert r.findings[0].text.startswith("Rank times go together within a node")


@pytest.mark.slow
def test_crowding_is_a_comparison_against_random_placement(default):
    """Issue 36: the null model's expectation is a record. submission-694 mdtest-hard-read.csv: the 104 slowest of
    2080 ranks (5 %), the slowest (832) on node 4 of 10 (208 ranks each, block: its Nodemap); under random placement
    the other 103 fall on its node as a hypergeometric draw, 103 x 207 / 2079 on average, plus the slowest itself."""
    con, runs = default
    times = _csv_times(AURORA_694 / "mdtest-hard-read.csv", "time-File read")
    slow = sorted(times, key=lambda r: (-times[r], r))[:104]
    on_node = sum(r // 208 == slow[0] // 208 for r in slow)
    row = runs.set_index("run").loc["submission-694 mdtest-hard-read"]
    assert row.slow_on_node == on_node
    assert row.node_crowding == pytest.approx(on_node / (1 + 103 * 207 / 2079), rel=1e-12)
    r = study.report(con)
    (crowding,) = [e for e in r.evidence if isinstance(e, evidence.Comparison) and "slowest rank's node" in e.quantity]
    tested = runs[study.clustering_tested(runs)]
    expected = evidence.compare_to_reference(evidence.Observations(
        values=tested.node_crowding.to_numpy(dtype=float), units=tested.machine.to_list()), 1.0, quantity="",
        unit="", replicate=evidence.Replicate.MACHINE, family="")
    assert (crowding.n, crowding.replicate, crowding.family) == (9, "machine", study.FAMILY)
    assert crowding.ratio == pytest.approx(expected.ratio) and crowding.decided and crowding.family_size == 2
    (finding,) = [f for f in r.findings if f.target == "fig-stragglers-null"]
    assert crowding in finding.evidence
    # the report decides once: both comparisons of the family in its table, in the kit's columns
    table = r.tables["tab-stragglers-against-chance"].frame
    assert list(table.measure) == [c.quantity for c in r.evidence if isinstance(c, evidence.Comparison)]
    assert {comparison.RATIO, comparison.INTERVAL, "units a side", "Holm p", "verdict"} <= set(table.columns)


@pytest.mark.slow
def test_slow_first_ranks_say_the_data_cannot_tell_why(default):
    """Issue 36: submission-694 mdtest-hard-read's slow positions 0 and 104 (see the test above) begin the two equal
    halves of each node's 208 ranks (mdtest-hard-read.txt's Nodemap marks ranks 0-207), where a socket's first rank
    sits when ranks are bound in order: operating-system daemons, interrupts or an MPI progress thread, and the data
    cannot tell which."""
    con, _ = default
    assert len(_nodemap(AURORA_694 / "mdtest-hard-read.txt")) == 208
    assert study.equal_part_starts([0, 104], 208) and study.equal_part_starts([0], 208)
    assert not study.equal_part_starts([0, 52], 208) and not study.equal_part_starts([104], 208)
    r = study.report(con)
    (worst,) = [f.text for f in r.findings if f.text.startswith("The worst straggler")]
    assert "positions 0 and 104" in worst
    note = r.values["worst_positions_md"]  # the positions section says what slows them, and that it cannot tell
    assert "208" in note
    for cause in ("daemons", "interrupt", "progress thread", "cannot tell which"):
        assert cause in note
    # said once: the positions figure's caption leaves it to the paragraph on the worst straggler, its phase's
    assert r.values["position_run"] == r.values["worst_run"] and r.values["position_note"] == ""


@pytest.mark.slow
def test_counts_are_machines_not_runs(default):
    """Issue 36: the unit is the machine (iobook.database.setups: 12 runs are 9 machines, see
    test_storage_scale_share_and_stonewall_wear_out). The crowded node moves in 8 of the 9: submission-694 is the one
    run where one node holds most of its crowded phases (2 of 3), and it is Aurora's, as 696 is."""
    con, _ = default
    r = study.report(con)
    assert (r.values["node_changes"], r.values["node_changes_of"]) == (8, 9)
    records = [e for f in r.findings for e in f.evidence]
    (changes,) = [e for e in records if isinstance(e, evidence.Count) and "crowded phases" in e.quantity]
    assert changes.of == "machine"
    for e in records:  # a count, an interval or a decision rests on machines; one phase's value is described
        assert e.replicate == "machine" if not isinstance(e, evidence.Count) and e.low is not None else True
        assert e.of == "machine" if isinstance(e, evidence.Count) else True
    assert not any(re.search(r"\b\d+ runs\b", f.text) for f in r.findings)
    (after,) = [e for e in r.evidence if isinstance(e, evidence.Estimate) and "stonewall" in e.quantity
                and e.unit == "s"]
    assert after.n == 9 and after.value == pytest.approx(r.values["after_stonewall_s"])


def _ior_shape(log: Path) -> tuple[int, int, int]:
    """(nodes, tasks, clients per node) an IOR log prints in its Options block."""
    shape = {}
    for line in log.read_text().splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("nodes", "tasks", "clients per node") and key.strip() not in shape:
            shape[key.strip()] = int(value.split()[0])
    return shape["nodes"], shape["tasks"], shape["clients per node"]


@pytest.mark.slow
def test_ior_phases_inherit_the_runs_nodemap_and_their_logs_agree(default):
    """An IOR log prints no Nodemap: its phase is given the run's mdtest Nodemap (an assumption). Read from the
    raw logs: the mdtest phases' own Nodemap lines, and each IOR log's nodes / tasks / clients per node against
    the map the run's mdtest logs print (ranks on rank 0's node = clients per node, map length = tasks)."""
    con, runs = default
    own, inherited, agree, disagree = 0, 0, 0, 0
    for row in runs.itertuples():
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
    assert (runs.nodemap_from == "its mdtest log").sum() == own
    assert (runs.nodemap_from == "the IO500 run's mdtest logs").sum() == inherited
    assert (runs.map_agrees == True).sum() == agree and (runs.map_agrees == False).sum() == disagree  # noqa: E712
    values = study.report(con).values
    assert (values["placement_own"], values["placement_inherited"], values["inherited_checked"],
            values["inherited_disagree"]) == (own, inherited, agree + disagree, disagree)
    assert "assum" in values["placement_text"] and f"{inherited}" in values["placement_text"]


@pytest.mark.slow
def test_null_by_machine_is_random_placement(default):
    """Phases of one run share its nodes, runs of one machine its hardware: the count by machine (machines where
    most tested phases crowd) against random placement simulated with numpy (seed 1), each phase's times dealt
    anew."""
    con, runs = default
    model = study.null_by_machine(runs)
    tested = runs[study.clustering_tested(runs)]
    assert model["machines"] == tested.machine.nunique() == 9 and tested.unit.nunique() == 12
    rng = np.random.default_rng(1)
    draws = 200
    crowded = {}  # run -> crowded phases per draw
    for run in tested.itertuples():
        nodes = _placed_nodes(con, runs, run.run)
        share = 2 * run.slow_ranks * np.bincount(nodes) / len(nodes)
        hits = np.zeros(draws, dtype=int)
        for d in range(draws):
            slow = nodes[rng.permutation(len(nodes))[: run.slow_ranks]]
            hits[d] = (slow == slow[0]).sum() > share[slow[0]]
        crowded[run.machine] = crowded.get(run.machine, 0) + hits
    phases = tested.groupby("machine").size()
    counts = sum((crowded[k] > phases[k] // 2).astype(int) for k in crowded)
    assert abs(counts.mean() - model["expected"]) < 4 * max(counts.std(), 0.05) / np.sqrt(draws) + 0.05
    assert np.percentile(counts, 97.5) <= model["high"] + 1
    # observed: per machine, its phases crowded (over twice an even share on the slowest rank's node)
    observed = sum(g.crowded_node.sum() > len(g) // 2 for _, g in tested.groupby("machine"))
    assert model["observed"] == observed == 7 and model["observed"] > model["high"]


@pytest.mark.slow
def test_failed_mdtest_phases_are_no_straggler_phases(tmp_path):
    """IO500 submission 733's mdtest-easy-write.txt line 10 prints "WARNING: unable to create tree directory"
    (tests/fixtures/mdtest/SOURCES.md): its File creation and Tree creation failed, so the ranks of
    mdtest-easy-write.csv are no phase here; mdtest-easy-stat.csv (its log prints no failure) still is."""
    import shutil

    from conftest import ARCHIVE

    from iobook.database.ingest import ingest

    run = (ARCHIVE / "Gesellschaft fur wissenschaftliche Datenverarbeitung" / "Emmy" / "CephFS" / "2024"
           / "submission-733" / "results" / "2024.09.25-00.17.03")
    tree = tmp_path / "mine"
    tree.mkdir()
    for name in ("mdtest-easy-write.txt", "mdtest-easy-write.csv", "mdtest-easy-stat.txt", "mdtest-easy-stat.csv"):
        shutil.copy(run / name, tree / name)
    db = tmp_path / "mine.duckdb"
    ingest([tree], db, progress=False)
    phases = study.load_phases(store.open_read(db))
    assert sorted(zip(phases.file.str.rsplit("/", n=1).str[-1], phases.operation)) == [
        ("mdtest-easy-stat.csv", "File stat")]


@pytest.mark.slow
def test_an_example_is_an_unflagged_run_or_names_its_flag(databases):
    """Issue 46: the slowest node group was submission-687 mdtest-hard-stat, a run the validity audit flags
    CHANGED_DURING_RUN (its scripts change Storage Scale settings while it runs: io500_run_flags). The examples the
    findings name (worst straggler, slowest node group, longest wait) come from unflagged runs, or say the flag."""
    with store.open_read(databases["default"]) as con:
        r = study.report(con)
        flagged = dict(con.execute("SELECT r.run_key, string_agg(DISTINCT f.code, ', ' ORDER BY f.code) "
                                   "FROM io500_run_flags f JOIN io500_runs r USING (run_id) GROUP BY 1").fetchall())
    assert "CHANGED_DURING_RUN" in flagged["submission-687"]
    named = [f.text for f in r.findings if f.text.startswith(("The worst straggler", "The slowest node group",
                                                             "The longest wait"))]
    assert len(named) == 3
    for text in named:
        run_key = re.search(r"\*\*(submission\\?-\d+)", text)[1].replace("\\", "")
        assert run_key not in flagged or f"(flagged: {flagged[run_key]})" in text, text
    assert "submission\\-687" not in next(t for t in named if t.startswith("The slowest node group"))
