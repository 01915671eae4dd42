"""Which collector run of each experiment the checksum_cost, pagecache and snapshots chapters read by default (the
current one, derived from the manifests), and the baseline measured again at the end of a run (label
drift_check=end): kept out of every baseline's repetitions and reported as drift, each checked against the raw
fio JSON files and manifests under data/raw."""
import json

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

from iobook.book import comparison, nb
from iobook.database import collector_runs
from iobook.studies import checksum_cost as cc
from iobook.studies import snapshots
from iobook.studies.pagecache import analysis as pc_analysis
from iobook.studies.pagecache import data as pc_data

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

RAW = REPO / "data" / "raw"


@pytest.fixture(scope="module")
def con(databases):
    return nb.setup(databases["default"])


def manifest(study: str, run: str) -> dict:
    return json.loads((RAW / study / run / "manifest.json").read_text())


def fio_bw_mib_s(study: str, run: str, file: str, direction: str) -> float:
    """All jobs' bandwidth in one direction of a raw fio JSON file (fio may print warnings before it)."""
    text = (RAW / study / run / file).read_text()
    return sum(j[direction]["bw_bytes"] for j in json.loads(text[text.index("{"):])["jobs"]) / 2**20


def labelled_files(study: str, run: str, **labels) -> tuple[list[str], list[str]]:
    """(during, end): the fio JSON files of a run's manifest whose labels take these values, without and with
    the label drift_check=end."""
    during, end = [], []
    for step in manifest(study, run)["steps"]:
        for f in step.get("files", []):
            merged = {**step.get("labels", {}), **f.get("labels", {})} if isinstance(f, dict) else step.get("labels", {})
            name = f["path"] if isinstance(f, dict) else f
            if name.endswith(".fio.json") and all(str(merged.get(k)) == v for k, v in labels.items()):
                (end if merged.get("drift_check") == "end" else during).append(name)
    return during, end


def test_current_run_of_each_experiment_comes_from_the_manifests(con):
    runs, status = pc_data.select_runs(con)
    current = status[status.status == "current"].set_index("experiment").run_folder
    # the 2026-11-25 runs were made by the collector with a stopping rule (facts.decision.rule in their manifests)
    assert current["queue-depth"] == "vm-20261125T035437Z"
    assert "rule" in manifest("pagecache", "vm-20261125T035437Z")["facts"]["decision"]
    assert "decision" not in manifest("pagecache", "vm-20261123T160557Z")["facts"]
    assert status.set_index("run_folder").loc["vm-20261123T160557Z", "status"] == "superseded"
    assert "vm-20261123T160557Z" not in runs.run_folder.tolist() and "vm-20261125T035437Z" in runs.run_folder.tolist()
    assert current["modes"] == "vm-20261125T032538Z" and len(runs) == 5 == status.experiment.nunique()
    # pinned by run_folders, a superseded run is read
    pinned, pinned_status = pc_data.select_runs(con, ["vm-20261123T160557Z"])
    assert pinned.run_folder.tolist() == ["vm-20261123T160557Z"] and pinned_status.selected.sum() == 1
    _, checksum = collector_runs.select_current(con, "checksum")
    assert checksum.loc[checksum.selected, "run_folder"].tolist() == ["vm-20261125T030550Z"]
    _, snap = snapshots.select_runs(con, [])
    assert snap.loc[snap.selected, ["experiment", "run_folder"]].values.tolist() == [
        ["cow", "vm-20261125T034040Z"], ["metadata", "vm-20261125T034040Z"], ["recovery", "vm-20261125T034040Z"]]
    # repetitions: the highest repetition label of the measured files (queue-depth: 5 rounds in facts.decision)
    row = status.set_index("run_folder").loc["vm-20261125T035437Z"]
    assert row.repetitions == manifest("pagecache", "vm-20261125T035437Z")["facts"]["decision"]["rounds"] == 5


def test_end_baseline_is_not_a_repetition_of_the_baseline(con):
    run = "vm-20261125T035437Z"
    during, end = labelled_files("pagecache", run, mode="buffered", phase="read")
    assert len(during) == 5 and len(end) == 1
    reads = pc_analysis.read_settings(pc_data.get_fio_results(con, [run]), pd.DataFrame())
    reference = reads[(reads.series == "buffered psync, depth 1") & (reads.measure == "bandwidth (MiB/s)")].iloc[0]
    assert reference.repetitions == 5
    mib_s = [fio_bw_mib_s("pagecache", run, f, "read") for f in during]
    assert reference["mean"] == pytest.approx(np.exp(np.log(mib_s).mean()))
    # checksum: none per mode and phase has its 6 rounds, not 7
    run = "vm-20261125T030550Z"
    comparisons = cc.compare_checksums(cc.get_steps(con, cc.get_runs(con, [run]).run_id))
    assert {c.n_baseline for c in comparisons.record} == {6}
    assert len(labelled_files("checksum", run, verify="none", mode="direct", phase="read")[0]) == 6
    # snapshots: the end steps are their own stage, never in a snapshot stage's baseline; each stage's baseline
    # is the control runs made beside it, counted in the manifest (label during_step)
    run = "vm-20261125T034040Z"
    rates = snapshots.get_rates(con, [run])
    compared, _ = snapshots.compare_stages(rates)
    with_snapshots = compared[compared.family.str.contains("data with snapshots")]
    assert "end" not in set(with_snapshots.stage) and "none" not in set(with_snapshots.stage)
    for stage in ("1", "rotation-6"):
        control, _ = labelled_files("snapshots", run, phase="create", subvolume="control", during_step=stage)
        row = with_snapshots[(with_snapshots.operation == "create") & (with_snapshots.stage == stage)].iloc[0]
        assert row.n_baseline == len(control) == 3
    _, end = labelled_files("snapshots", run, phase="create", step="none")
    assert len(end) == 3  # the control's end steps: the drift check, not a baseline of any stage


def test_drift_ratio_is_recomputed_from_the_raw_files(con):
    """One end step against the run's rounds: its ratio from the raw fio JSON, as the collector computed it when it
    stopped (facts.decision.drift); one value has no spread of its own, so evidence.decide finds too few units."""
    run = "vm-20261125T035437Z"
    drift = comparison.decide_rows(pc_analysis.compare_end_baseline(
        pc_data.get_fio_results(con, [run]), pc_data.get_fio_results(con, [run], end_baseline=True))).record.iloc[0]
    during, end = labelled_files("pagecache", run, mode="buffered", phase="read")
    a = np.log([fio_bw_mib_s("pagecache", run, f, "read") for f in end])
    b = np.log([fio_bw_mib_s("pagecache", run, f, "read") for f in during])
    assert (drift.n, drift.n_baseline) == (1, 5)
    assert drift.ratio == pytest.approx(np.exp(a.mean() - b.mean()))
    assert not drift.decided and drift.verdict == "too few units"
    assert drift.ratio == pytest.approx(manifest("pagecache", run)["facts"]["decision"]["drift"][0]["ratio"], rel=1e-5)


def test_snapshot_drift_per_operation(con):
    """The never-snapshotted control at the end of the run over the control beside the first stage."""
    run = "vm-20261125T034040Z"
    drift, records = snapshots.compare_control_drift(snapshots.get_rates(con, [run]))
    drift = drift.set_index("operation")
    assert len(drift) == 3 and set(drift.n) == {3} and set(drift.n_baseline) == {3}
    start, _ = labelled_files("snapshots", run, phase="stat", subvolume="control", during_step="none")
    _, end = labelled_files("snapshots", run, phase="stat", subvolume="control")
    a = [fio_files_per_s(run, f) for f in end]
    b = [fio_files_per_s(run, f) for f in start]
    assert len(a) == len(b) == 3
    assert drift.loc["stat"].ratio == pytest.approx(np.exp(np.log(a).mean() - np.log(b).mean()))
    assert drift.loc["stat"].low > 0 and all(r.family == f"{run}: drift" for r in records)


def fio_files_per_s(run: str, file: str) -> float:
    """fio's files per second of one raw create/stat/delete JSON (the file engines report it as read iops)."""
    text = (RAW / "snapshots" / run / file).read_text()
    return json.loads(text[text.index("{"):])["jobs"][0]["read"]["iops"]
