"""The pagecache chapter's study module (iobook/studies/pagecache.py, with iobook/studies/local_runs.py) on the
four test databases and on the committed runs of each experiment, and its notebook executed on each database."""
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from iobook import nb, store
from iobook.ingest import ingest
from iobook.studies import pagecache as pc

from conftest import REPO, execute_chapter

RAW = REPO / "data" / "raw" / "pagecache"
RUN = "vm-20261121T132329Z"  # the first modes run, made before the collector had experiments
# One committed run of each experiment (scripts/collect_pagecache.py --experiment ...), 23 November 2026.
DEPTH_RUN, READAHEAD_RUN, SHARED_RUN, TRIM_RUN, MODES_RUN = (
    "vm-20261123T160557Z", "vm-20261123T160932Z", "vm-20261123T161137Z", "vm-20261123T161420Z", "vm-20261123T161929Z")
EXPERIMENTS = {RUN: "modes", DEPTH_RUN: "queue-depth", READAHEAD_RUN: "readahead", SHARED_RUN: "shared-file",
               TRIM_RUN: "trim", MODES_RUN: "modes"}
RUNS = {"empty": 0, "built_tools": 0, "other_io500": 0, "default": len(EXPERIMENTS)}


def test_runs_steps_and_modes_per_database(any_db):
    name, con = any_db
    runs = pc.get_runs(con)
    assert len(runs) == RUNS[name]
    buckets = pc.get_buckets(con, [RUN], 1000)
    steps = pc.get_steps(con, [RUN], buckets)
    if name != "default":
        assert steps.empty and buckets.empty  # the no-data case
        return
    assert runs.set_index("run_folder").loc[RUN, ["cgroup", "memory_limit_mib"]].tolist() == ["cgroup-v1", 1024]
    assert runs.set_index("run_folder").experiment.to_dict() == EXPERIMENTS
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
    reclaim = pc.get_reclaim(con, [RUN]).set_index("step_index")
    # increase of the cgroup's pgpgout over 001-write-buffered-r1.proc.txt (see test_local_studies_data.py)
    assert reclaim.loc[0, "cgroup_pgpgout_events"] == 53359
    assert reclaim.global_reclaim_scanned_pages.max() == 0


def test_unknown_run_folder_names_the_nearest(databases):
    con = nb.setup(databases["default"])
    with pytest.raises(nb.UnknownSelection, match=rf"'vm-20261121T132330Z'.*nearest \['{RUN}'"):
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


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    """The committed pagecache runs alone, ingested into a scratch database."""
    db = tmp_path_factory.mktemp("pagecache") / "pagecache.duckdb"
    ingest([RAW], db, progress=False)
    with store.open_read(db) as con:
        yield con


def t_interval(values):
    """The mean of repetitions and its 95 % Student's t interval, computed here with scipy directly."""
    values = np.asarray(values, dtype=float) / 2**20
    low, high = sps.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=sps.sem(values))
    return values.mean(), low, high


def test_direct_reads_by_queue_depth(con):
    reads = pc.get_read_settings(con, [DEPTH_RUN], [])
    bw = reads[reads.measure == "bandwidth (MiB/s)"].set_index(["series", "value"])
    # "bw_bytes" (line 29) of 003-, 012- and 021-read-direct-libaio-qd1-r{1,2,3}.fio.json
    mean, low, high = t_interval([1027189326, 1803156770, 1455680076])
    row = bw.loc[("direct libaio", 1.0)]
    assert (row.repetitions, round(row["mean"], 3), round(row.low, 3), round(row.high, 3)) == (
        3, round(mean, 3), round(low, 3), round(high, 3))
    # the buffered psync read is the reference: no varied value; "bw_bytes" (line 28) of 002-, 011-, 020-
    reference = bw.loc[("buffered psync, depth 1", np.nan)]
    assert round(reference["mean"], 3) == round(t_interval([188076919, 157433141, 157516810])[0], 3)
    direct = bw.drop(index="buffered psync, depth 1", level="series")
    assert set(direct.index) == {(s, d) for s in ("direct libaio", "direct io_uring") for d in (1.0, 4.0, 16.0, 64.0)}
    assert len(bw) == len(direct) + 1


def test_buffered_reads_by_readahead(con):
    reads = pc.get_read_settings(con, [], [READAHEAD_RUN])
    bw = reads[reads.measure == "bandwidth (MiB/s)"].set_index(["series", "value"])
    # "bw_bytes" (line 27) of 006-, 011-, 016-read-buffered-ra8192-r{1,2,3}.fio.json and of the ra0 steps
    assert round(bw.loc[("buffered psync", 8192.0), "mean"], 3) == round(
        t_interval([223168153, 479313084, 366415335])[0], 3)
    assert round(bw.loc[("buffered psync", 0.0), "high"], 3) == round(t_interval([5373073, 3960036, 8159310])[2], 3)
    # the collector set the read-ahead in 512-byte sectors and read it back (blockdev --getra in the manifest)
    manifest = json.loads((RAW / READAHEAD_RUN / "manifest.json").read_text())
    getra = {s["name"]: s["stdout"].strip() for s in manifest["steps"] if s["name"].startswith("getra-")}
    assert getra["getra-8192kb-r1"] == "16384" and getra["getra-0kb-r3"] == "0"
    assert manifest["facts"]["loop"]["direct_io"] == "1"


def test_shared_file_sums_the_writers(con):
    steps, compared = pc.get_shared_file(con, [SHARED_RUN])
    step = steps.set_index("step").loc["003-write-buffered-shared-r1"]
    # the four jobs' "bw_bytes" (lines 73, 481, 898, 1313) of 003-write-buffered-shared-r1.fio.json
    assert (step.jobs, step.bw_bytes_s) == (4, 24812198 + 27200684 + 25516599 + 25087038)
    assert len(steps) == 12  # 2 modes x 2 layouts x 3 repetitions; the two layout steps are not measured
    buffered = compared.set_index("mode").loc["buffered"]
    assert (buffered.sample_repetitions, buffered.baseline_repetitions) == (3, 3)
    assert buffered.high < 1  # one shared file: buffered writes far slower than one file each


def test_write_bandwidth_after_a_trim_or_none(con):
    buckets = pc.get_buckets(con, [TRIM_RUN], 1000)
    first = buckets.set_index(["step", "t_s"]).loc[("004-recovery-write-trim-r1", 0.0)]
    # 004-recovery-write-trim-r1_bw.1.log: the entries before 1,000 ms (lines 1-8, KiB/s)
    kib_s = [1817369, 1609142, 1882505, 2150400, 1730560, 2355200, 1566720, 1689600]
    assert (first.log_entries, first.mib_s) == (8, round(sum(kib_s) / 8 / 1024, 6))
    assert first.trim == "trim" and first.repetition == 1
    recovery = pc.get_trim_recovery(buckets)
    assert set(recovery.trim) == {"trim", "none"} and set(recovery.repetitions) == {3}
    assert recovery.t_s.max() == 19  # 20 s writes, buckets wholly inside the runtime
    effect = pc.get_trim_effect(buckets, 5).set_index("window")
    assert list(effect.index) == ["first 5 s", "whole step"]
    assert (effect.sample_repetitions.tolist(), effect.baseline_repetitions.tolist()) == ([3, 3], [3, 3])
    whole = buckets[buckets.phase == "write"].groupby(["trim", "repetition"]).mib_s.mean()
    assert round(effect.loc["whole step", "ratio"], 9) == round(whole["trim"].mean() / whole["none"].mean(), 9)
    results = pc.get_fio_results(con, [TRIM_RUN]).set_index("step")
    # "bw_bytes" (line 71, the write direction) of 004-recovery-write-trim-r1.fio.json
    assert results.loc["004-recovery-write-trim-r1", "bw_bytes_s"] == 2174849522
    assert results.loc["003-trim-r1", "phase"] == "trim"  # fio's trim workload, its own direction


def test_mode_costs_per_gib_with_intervals(con):
    buckets = pc.get_buckets(con, [RUN], 1000)
    steps = pc.get_steps(con, [RUN], buckets)
    reclaim = pc.get_reclaim(con, [RUN])
    first = pc.get_mode_costs(steps[steps.repetition == 1], reclaim).set_index(["phase", "mode", "measure"])
    pgpgout = first.loc[("write", "buffered", "cgroup pgpgout (events/GiB)")]
    # the cgroup's pgpgout rose by 53,359 over 001-write-buffered-r1.proc.txt, which moved 54378102784 bytes
    # (its fio JSON's "io_bytes"): one repetition, so no interval
    assert pgpgout.repetitions == 1 and round(pgpgout["mean"], 6) == round(53359 / (54378102784 / 2**30), 6)
    assert np.isnan(pgpgout.low) and np.isnan(pgpgout.high)
    both = pc.get_mode_costs(steps, reclaim).set_index(["phase", "mode", "measure"])
    cv = both.loc[("write", "buffered", "coefficient of variation per second")]
    # 001-write-buffered-r1 (0.483, see test_runs_steps_and_modes_per_database) and 005-write-buffered-r2
    values = steps[(steps.phase == "write") & (steps["mode"] == "buffered")].cv
    low, high = sps.t.interval(0.95, 1, loc=values.mean(), scale=sps.sem(values))
    assert (cv.repetitions, round(cv.low, 9), round(cv.high, 9)) == (2, round(low, 9), round(high, 9))
    assert set(both.index.get_level_values("measure")) == set(pc.MODE_MEASURES.values())
