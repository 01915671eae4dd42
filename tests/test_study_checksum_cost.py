"""The checksum_cost chapter's study module (iobook/studies/checksum_cost.py, with iobook/studies/local_runs.py)
on the four test databases, and its notebook executed on each."""
import pytest

from iobook import nb
from iobook.studies import checksum_cost as cc
from iobook.studies import local_runs

from conftest import execute_chapter

RUN = "vm-20261121T131428Z"  # the checksum run under data/raw/checksum
RUNS = {"empty": 0, "built_tools": 0, "other_io500": 0, "default": 1}


def test_runs_steps_and_costs_per_database(any_db):
    name, con = any_db
    runs = cc.get_runs(con)
    assert len(runs) == RUNS[name]
    steps = cc.get_steps(con, runs.run_id)
    if name != "default":
        assert steps.empty  # the no-data case: the notebook shows nb.no_data for the local half
        return
    assert runs.run_folder.tolist() == [RUN]
    assert len(steps) == 48  # 6 checksums x 2 phases x 2 modes x 2 repetitions
    assert cc.verify_order(steps) == ["none", "crc32c", "xxhash", "md5", "sha1", "sha256"]
    step = steps.set_index("step")
    # data/raw/checksum/vm-20261121T131428Z/002-read-none-direct-r1.fio.json line 25: "bw_bytes" : 946444974
    assert step.loc["002-read-none-direct-r1", "bw_bytes_s"] == 946444974
    # 012-read-sha256-direct-r1.fio.json: runtime 23036 ms (line 31), usr_cpu 37.115819 (line 451),
    # sys_cpu 2.109741, 2 GiB read: (37.115819 + 2.109741) / 100 * 23.036 / 2 = 4.518 CPU-s/GiB
    assert round(step.loc["012-read-sha256-direct-r1", "fio_cpu_s_per_gib"], 4) == 4.518
    # its perf.txt: task-clock 9306.06 msec over 2 GiB
    assert round(step.loc["012-read-sha256-direct-r1", "perf_cpu_s_per_gib"], 5) == round(9.30606 / 2, 5)
    costs = cc.get_costs(steps).set_index(["phase", "mode", "verify"])
    sha = costs.loc["read", "direct", "sha256"]
    assert (sha.repetitions, sha.baseline_repetitions) == (2, 2)
    assert sha.bw_low < sha.bw_ratio < sha.bw_high < 1
    assert round(sha.bw_ratio, 3) == 0.146
    assert costs.loc["read", "direct", "none"].bw_ratio == 1


def test_labels_narrow_the_steps(databases):
    con = nb.setup(databases["default"])
    steps = cc.get_steps(con, [RUN], {"verify": ["none", "crc32c"], "mode": ["direct"]})
    assert sorted(set(steps.verify)) == ["crc32c", "none"] and set(steps["mode"]) == {"direct"}
    assert len(steps) == 8
    with pytest.raises(nb.UnknownSelection, match=r"'crc32'.*nearest \['crc32c'\]"):
        cc.get_steps(con, [RUN], {"verify": ["crc32"]})
    with pytest.raises(nb.UnknownSelection, match=r"'verfy'.*nearest \['verify'\]"):
        cc.get_steps(con, [RUN], {"verfy": ["none"]})


def test_unknown_run_folder_names_the_nearest(databases):
    con = nb.setup(databases["default"])
    with pytest.raises(nb.UnknownSelection, match=rf"'vm-20261121T131429Z'.*nearest \['{RUN}'\]"):
        cc.get_runs(con, ["vm-20261121T131429Z"])
    assert cc.get_runs(con, [RUN]).run_id.tolist() == [RUN]


def test_one_repetition_cannot_tell():
    assert "cannot tell" in local_runs.ratio_text(0.5, float("nan"), float("nan"), float("nan"), 1, 2)
    assert local_runs.ratio_text(0.5, 0.4, 0.6, 0.01, 3, 3) == (
        "0.50× (95% bootstrap interval 0.40–0.60, Welch p = 0.01; 3 and 3 repetitions)")
    assert local_runs.cpu_s_per_gib(50, 4, 2**31) == 1.0


def test_memory_factor_from_the_published_table():
    factors = cc.get_memory_factor(cc.get_published()).set_index(["side", "build"])
    assert factors.per_node_matches.tolist() == [True, False, True, False]
    assert round(factors.loc[("Server", "trailerchecksum"), "per_node"], 3) == 2.144


@pytest.mark.parametrize("name", list(RUNS))
def test_notebook_executes(databases, tmp_path, name):
    texts = execute_chapter("checksum_cost", databases[name], tmp_path)
    no_data = [i for i, t in enumerate(texts) if "This database holds no fio checksum runs" in t]
    if name == "default":
        assert not no_data and any("Checksum against no checksum" in t for t in texts)
    else:
        # the published half (IBM's table) stays; nothing of the local half follows the note
        assert len(no_data) == 1 and not any("<table" in t for t in texts[no_data[0]:])
