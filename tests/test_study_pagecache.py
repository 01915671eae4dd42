"""The pagecache chapter's study module (iobook/studies/pagecache.py, with iobook/studies/local_runs.py) on the
four test databases, and its notebook executed on each."""
import pytest

from iobook import nb
from iobook.studies import pagecache as pc

from conftest import execute_chapter

RUN = "vm-20261121T132329Z"  # the pagecache run under data/raw/pagecache
RUNS = {"empty": 0, "built_tools": 0, "other_io500": 0, "default": 1}


def test_runs_steps_and_modes_per_database(any_db):
    name, con = any_db
    runs = pc.get_runs(con)
    assert len(runs) == RUNS[name]
    buckets = pc.get_buckets(con, runs.run_id, 1000)
    steps = pc.get_steps(con, runs.run_id, buckets)
    if name != "default":
        assert steps.empty and buckets.empty  # the no-data case
        return
    assert runs.set_index("run_folder").loc[RUN, ["cgroup", "memory_limit_mib"]].tolist() == ["cgroup-v1", 1024]
    assert len(steps) == 8 and len(buckets) == 240  # 2 phases x 2 modes x 2 repetitions, 30 s each
    step = steps.set_index("step").loc["001-write-buffered-r1"]
    # data/raw/pagecache/vm-20261121T132329Z/001-write-buffered-r1.fio.json line 72: "bw_bytes" : 1812543008
    assert step.bw_bytes_s == 1812543008
    assert (step.buckets, round(step.bucket_mean_mib_s, 1), round(step.cv, 3)) == (30, 1852.4, 0.483)
    assert step.runtime_s_label == "30"  # the collector's label, kept apart from fio's measured runtime_s
    modes = pc.compare_modes(steps).set_index("phase")
    write = modes.loc["write"]
    assert write.cv_low > 1 and round(write.cv_ratio, 2) == 5.11
    assert write.cpu_low > 1  # buffered writes cost fio more CPU per GiB than direct ones
    reclaim = pc.get_reclaim(con, runs.run_id).set_index("step_index")
    # increase of the cgroup's pgpgout over 001-write-buffered-r1.proc.txt (see test_local_studies_data.py)
    assert reclaim.loc[0, "cgroup_pgpgout_events"] == 53359
    assert reclaim.global_reclaim_scanned_pages.max() == 0


def test_unknown_run_folder_names_the_nearest(databases):
    con = nb.setup(databases["default"])
    with pytest.raises(nb.UnknownSelection, match=rf"'vm-20261121T132330Z'.*nearest \['{RUN}'\]"):
        pc.get_runs(con, ["vm-20261121T132330Z"])


@pytest.mark.parametrize("name", list(RUNS))
def test_notebook_executes(databases, tmp_path, name):
    texts = execute_chapter("pagecache", databases[name], tmp_path)
    no_data = [i for i, t in enumerate(texts) if "This database holds no fio page-cache runs" in t]
    if name == "default":
        assert not no_data and any("Buffered ÷ direct per run and phase" in t for t in texts)
    else:
        # the published half (the talk's facts) stays; nothing of the local half follows the note
        assert len(no_data) == 1 and not any("<table" in t for t in texts[no_data[0]:])
