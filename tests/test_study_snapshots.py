"""The snapshots chapter (iobook/studies/snapshots.py, notebooks/snapshots.ipynb): the talk's published table
(data/published/seed003_*.csv, the same on every database) and the local btrfs runs on the four test databases."""
import papermill
import pytest

from iobook import nb
from iobook.studies import snapshots

from conftest import DATABASES, REPO, executed_notebook

TEMPLATE = REPO / "notebooks" / "snapshots.ipynb"
RUN = "vm-20261121T132957Z"  # data/raw/snapshots/vm-20261121T132957Z, the run committed with the repository


def test_method_slide_clients_come_from_the_published_csv():
    clients = snapshots.seed_clients(snapshots.get_seed_configuration())
    # seed 003 line 162: "Scripted run, using 7 nodes (560c) with Fujitsu A64FX CPUs & Mellanox interconnect"
    assert (clients["nodes"], clients["c"], clients["cpus"], clients["interconnect"]) == (
        7, "560c", "Fujitsu A64FX", "Mellanox")


def test_summary_rows_are_sample_std_of_all_rows_and_mean_ratio():
    per_definition, reproducing = snapshots.get_summary_checks(snapshots.get_seed_table())
    assert len(per_definition) == 9 and set(per_definition["columns"]) == {9}
    assert reproducing.groupby("row")["definition"].unique().map(list).to_dict() == {
        "Diff with/without": ["mean of the rows after the first / first row"],
        "Std. deviation": ["sample std (n-1) of all rows"]}


def test_seed_pooled_difference_with_intervals():
    pooled = snapshots.get_seed_pooled(snapshots.get_seed_table(), 0.95).set_index("column")
    removal = pooled.loc["File (kiops/s) / Removal"]
    # printed "94.40%"; mean of the seven snapshot rows 146.43286 over 155.12
    assert removal["with/without (%)"] == pytest.approx(100 * 146.432857 / 155.12, rel=1e-6)
    assert removal["p (snapshot rows' spread)"] == pytest.approx(1.28995019e-05, rel=1e-6)  # test_snapshot_stats
    assert round(removal["low (snapshot rows' spread, %)"], 2) == 93.34
    assert round(removal["high (snapshot rows' spread, %)"], 2) == 95.46
    assert round(removal["p (printed std)"], 4) == 0.0356
    significant = pooled.index[pooled["p (snapshot rows' spread)"] < 0.05].tolist()
    assert significant == ["Directory (kiops/s) / Create", "Directory (kiops/s) / Stat", "File (kiops/s) / Create",
                           "File (kiops/s) / Removal", "Tree (iops/s) / Create"]
    assert pooled.index[pooled["p (printed std)"] < 0.05].tolist() == ["File (kiops/s) / Create",
                                                                      "File (kiops/s) / Removal"]
    # an interval excludes 100 % exactly when its test is below 0.05
    for kind in ("snapshot rows' spread", "printed std"):
        excludes = (pooled[f"high ({kind}, %)"] < 100) | (pooled[f"low ({kind}, %)"] > 100)
        assert (excludes == (pooled[f"p ({kind})"] < 0.05)).all()
    wider = snapshots.get_seed_pooled(snapshots.get_seed_table(), 0.99).set_index("column")
    assert (wider["low (printed std, %)"] < pooled["low (printed std, %)"]).all()


def test_seed_states_use_the_printed_std():
    states = snapshots.get_seed_states(snapshots.get_seed_table(), 0.95)
    assert len(states) == 7 * 9
    one = states[(states["column"] == "Directory (kiops/s) / Create") & (states["state"] == "1")].iloc[0]
    # (139.52 - 144.42) / (2.70 * sqrt 2) = -1.283 with 7 degrees of freedom
    assert one["ratio"] == pytest.approx(139.52 / 144.42)
    assert round(one["p"], 3) == 0.240
    assert states["p"].min() > 0.05


def test_runs_rates_and_comparisons_on_each_database(any_db):
    name, con = any_db
    runs = snapshots.select_runs(con, [])
    rates = snapshots.get_rates(con, runs["run_id"])
    writes = snapshots.get_cow_writes(con, runs["run_id"])
    recovery = snapshots.get_recovery(con, runs["run_id"])
    if name != "default":
        assert runs.empty and rates.empty and writes.empty and recovery.empty
        assert snapshots.get_comparisons(rates, "none", 0.95).empty
        assert snapshots.get_space(con, runs["run_id"], "cow").empty
        assert snapshots.get_cow_latency_comparisons(writes, 0.95).empty
        return
    assert runs["run_folder"].tolist() == [RUN, "vm-20261123T160956Z"] and len(rates) == 72
    assert len(writes) == 80 and len(recovery) == 22
    assert snapshots.stage_order(rates) == ["none", "1", "2", "3", "4", "5", "rotation-1", "rotation-2"]
    first = rates.iloc[0]
    # 001-create-initial0-r1.fio.json line 30: "iops" : 3082.614057, line 31: "runtime" : 3244
    assert (first["operation"], first["stage"], first["files_per_s"], first["runtime_ms"]) == (
        "create", "none", 3082.614057, 3244)
    comparisons = snapshots.get_comparisons(rates, "none", 0.95)
    assert len(comparisons) == 3 * 8
    pooled = comparisons[comparisons["stage"] == "all but baseline"].set_index("operation")
    assert [round(pooled.loc["create", c], 3) for c in ("ratio", "low", "high", "p (Welch)")] == [
        1.166, 1.001, 1.369, 0.109]
    assert pooled["verdict"].to_dict() == {"create": "unclear (one test)", "stat": "within noise",
                                           "delete": "within noise"}
    steps = snapshots.get_snapshot_steps(con, runs["run_id"])
    assert steps["step"].tolist()[:2] == ["create-snap-01", "create-snap-02"]
    assert steps.groupby("run_id").size().to_dict() == {RUN: 9, "vm-20261123T160956Z": 8}  # 4 cow creates, 4 deletes
    noise = snapshots.get_noise(rates)
    assert noise["operation"].tolist() == ["create", "stat", "delete"] and set(noise["repetitions per stage"]) == {3}


def test_unknown_run_folder_names_the_nearest(databases):
    from iobook import store

    with store.open_read(databases["default"]) as con:
        assert snapshots.select_runs(con, [RUN])["run_id"].tolist() == [RUN]
        with pytest.raises(nb.UnknownSelection, match=RUN):
            snapshots.select_runs(con, ["vm-20261121T132958Z"])


def test_seed_points_follow_the_baseline_mapping():
    seed = snapshots.get_seed_table()
    rows = {"No snapshot": "none", "1": "1", "2": "2"}
    columns = {"File (kiops/s) / Removal": "delete"}
    points = snapshots.get_seed_points(seed, rows, columns, "none")
    assert points.set_index("stage")["ratio"].round(4).to_dict() == {"1": round(146.33 / 155.12, 4),
                                                                     "2": round(146.78 / 155.12, 4)}
    assert snapshots.get_seed_points(seed, rows, columns, "rotation-1").empty


@pytest.mark.parametrize("name", list(DATABASES))
def test_notebook_executes(name, databases, tmp_path):
    executed = executed_notebook("snapshots", databases[name], tmp_path)
    outputs = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "\n".join(str(o.get("data", {}).get("text/markdown", "")) + str(o.get("data", {}).get("text/html", ""))
                     for o in outputs)
    assert "7 nodes (560c)" in text and "Fujitsu A64FX" in text  # from the published CSV, on every database
    assert "rack of A64FX" not in text
    local = "This database holds no snapshot collector runs"
    sections = ["Copy-on-write: overwrite and append with snapshots present", "Recovery after the snapshots are",
                "Metadata rates on a snapshotted tree"]
    if name == "default":
        assert local not in text and f"{RUN} (btrfs, fio)" in text and "btrfs snapshot create/delete" in text
        assert all(s in text for s in sections)
        assert "overwriting a 16 MiB file that a snapshot holds took 17.6 MiB of space" in text
    else:
        assert local in text and "sudo python3 scripts/collect_snapshots.py" in text
        assert "fio_io" not in text and "(btrfs, fio)" not in text  # no table or chart of local runs
        assert not any(s in text for s in sections)


def test_notebook_rejects_an_unknown_run_folder(databases, tmp_path):
    with pytest.raises(papermill.PapermillExecutionError, match=r"'vm-2026': nearest \['vm-2026"):
        papermill.execute_notebook(str(TEMPLATE), str(tmp_path / "s.ipynb"),
                                   parameters={"db_path": str(databases["default"]), "run_folders": ["vm-2026"]},
                                   cwd=str(tmp_path), kernel_name="python3", progress_bar=False)


COW_RUN = "vm-20261123T160956Z"  # data/raw/snapshots/vm-20261123T160956Z: --parts cow,recovery
MIB = 1 << 20


@pytest.fixture(scope="module")
def default_con(databases):
    from iobook import store

    with store.open_read(databases["default"]) as con:
        yield con


def test_cow_writes_and_their_latency(default_con):
    writes = snapshots.get_cow_writes(default_con, [COW_RUN])
    # 5 stages (0..4 snapshots) x 8 files x (overwrite, append)
    assert len(writes) == 80 and sorted(writes["snapshots"].unique()) == [0, 1, 2, 3, 4]
    assert set(writes.groupby(["phase", "snapshots"]).size()) == {8} and (writes["error"] == 0).all()
    first = writes.iloc[0]
    # c002-overwrite-s0-r1.fio.json line 85 (write clat_ns) "mean" : 357144.483643, line 101 "99.000000" : 6389760
    assert (first["phase"], first["snapshots"], first["repetition"], first["writes"]) == ("overwrite", 0, 1, 4096)
    assert first["clat_mean_us"] == pytest.approx(357.144483643) and first["clat_p99_us"] == 6389.76
    # the metadata run's create/stat/delete and the cow run's writes never mix
    assert snapshots.get_rates(default_con, [COW_RUN]).empty


def test_cow_space_growth_from_the_usage_files(default_con):
    space = snapshots.get_space(default_con, [COW_RUN], "cow")
    assert len(space) == 5 * (1 + 8 * 2) and space["df_used_bytes"].notna().all()
    growth = snapshots.get_cow_growth(space)
    by = growth.set_index(["snapshots", "phase", "repetition"])["growth_mib"]
    # "Used:" line 7 of c001-space-s0 (134840320) and c002-overwrite-s0-r1-space (136249344) .btrfs-usage.txt
    assert by[(0, "overwrite", 1)] == (136249344 - 134840320) / MIB
    # c018-space-s1 (179666944) and c019-overwrite-s1-r1-space (198115328): the snapshot keeps the old 16 MiB
    assert by[(1, "overwrite", 1)] == (198115328 - 179666944) / MIB == 17.59375
    comparisons = snapshots.get_cow_space_comparisons(growth, 0.95).set_index(["phase", "snapshots"])
    pooled = comparisons.loc[("overwrite", "with snapshots")]
    assert (pooled["repetitions"], pooled["baseline repetitions"]) == (32, 8)
    assert [round(pooled[c], 3) for c in ("difference (MiB)", "low", "high")] == [16.27, 16.236, 16.303]
    assert pooled["p (Welch)"] < 1e-30 and pooled["verdict"] == "distinguishable"
    append = comparisons.loc[("append", "with snapshots")]
    assert round(append["difference (MiB)"], 4) == 0.0186  # 19 KiB of metadata, against 4 MiB appended


def test_cow_latency_comparisons(default_con):
    writes = snapshots.get_cow_writes(default_con, [COW_RUN])
    comparisons = snapshots.get_cow_latency_comparisons(writes, 0.95)
    assert len(comparisons) == 2 * 2 * 5  # phase x (mean, p99) x (4 counts + pooled)
    pooled = comparisons[(comparisons["snapshots"] == "with snapshots") & (comparisons["latency"] == "mean")] \
        .set_index("phase")
    overwrite = pooled.loc["overwrite"]
    assert overwrite["ratio"] == pytest.approx(
        writes.query("phase == 'overwrite' and snapshots > 0")["clat_mean_us"].mean()
        / writes.query("phase == 'overwrite' and snapshots == 0")["clat_mean_us"].mean())
    assert [round(overwrite[c], 3) for c in ("ratio", "low", "high", "p (Welch)")] == [1.256, 1.032, 1.531, 0.04]
    assert pooled["verdict"].to_dict() == {"overwrite": "distinguishable", "append": "within noise"}


def test_recovery_samples_and_summary(default_con):
    recovery = snapshots.get_recovery(default_con, [COW_RUN])
    assert recovery["sample"].tolist() == list(range(1, 23))
    # manifest step 424 "recovery-subvolume-sync" started 16:12:25.802903, r001-space-usage 16:12:25.815264
    assert recovery["t_s"].iloc[0] == pytest.approx(0.012361, abs=1e-6)
    assert recovery["sync_returned"].tolist() == [False] * 7 + [True] * 15
    summary = snapshots.get_recovery_summary(default_con, recovery, 0.95).iloc[0]
    # manifest: "seconds": 14.035208; r000-space-before-delete "Used:" 905510912; r022-space 313982976
    assert summary["sync waited (s)"] == 14.035208 and summary["snapshots deleted"] == 4
    assert summary["used before delete (MiB)"] == 905510912 / MIB
    assert summary["freed (MiB)"] == (905510912 - 313982976) / MIB
    assert round(summary["90 % freed by (s)"], 3) == 15.185  # r008, the first sample after the sync returned
    assert (summary["samples while cleaning"], summary["samples after"]) == (7, 15)
    assert [round(summary[c], 2) for c in ("latency during / after", "low", "high", "p (Welch)")] == [
        13.62, 1.23, 36.66, 0.27]
    # r006-overwrite.fio.json: p99 826277888 ns, the transaction commit that freed the space
    assert summary["highest p99 while cleaning (ms)"] == pytest.approx(826.277888)
