"""DLIO runs of your own (scripts/collect_dlio.py) on the runs made on the project's machine: data/raw/dlio/ (one run a
collector run, a history; its README says how they were made) and tests/fixtures/dlio-slowed/ (the same workload,
the training's reads throttled by a block-I/O cgroup). Every expected value is read from the run's own summary.json
with json, not with iobook's parser; the MLPerf Storage runs are data/raw/mlperf's."""
import json
import shutil

import pytest
from conftest import REPO

from iobook.cli.main import main
from iobook.database import repeated_runs, store
from iobook.database.ingest import ingest
from iobook.studies import your_runs

DLIO = REPO / "data" / "raw" / "dlio"
SLOWED = REPO / "tests" / "fixtures" / "dlio-slowed"
SUMMARIES = sorted(DLIO.glob("*/r*/summary.json"))
SLOWED_SUMMARIES = sorted(SLOWED.glob("*/r*/summary.json"))
MLPERF_RESULT = REPO / "data" / "raw" / "mlperf" / "Closed" / "Hammerspace" / "results" / "Hammerspace_unet3d_1Client_A100"


def summary(path) -> dict:
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("dlio") / "dlio.duckdb"
    ingest([DLIO], db, progress=False, prune=True)
    with store.open_read(db) as c:
        yield c


def test_every_summary_is_one_run_with_the_values_it_states(con):
    rows = con.execute("SELECT * FROM dlio_runs ORDER BY path").df()
    assert len(SUMMARIES) >= 8 and rows.path.tolist() == [str(p.resolve()) for p in SUMMARIES]
    for path, row in zip(SUMMARIES, rows.itertuples()):
        doc, metric = summary(path), summary(path)["metric"]
        assert row.mb_per_s == metric["train_io_mean_MB_per_second"], path
        assert row.samples_per_s == metric["train_throughput_mean_samples_per_second"], path
        assert row.au_mean_pct == metric["train_au_mean_percentage"], path
        assert row.mb_per_s_per_accelerator == pytest.approx(metric["train_io_mean_MB_per_second"]
                                                             / doc["num_accelerators"], rel=1e-12)
        assert (row.accelerators, row.hosts, row.files, row.epochs) == (
            doc["num_accelerators"], doc["num_hosts"], doc["num_files_train"], doc["epochs"])
        # the workload, accelerator type and reader settings are the .hydra configs' beside the summary
        overrides = (path.parent / ".hydra" / "overrides.yaml").read_text()
        assert "- workload=unet3d_a100" in overrides and (row.workload, row.accelerator) == ("unet3d", "a100")
        assert f"++workload.dataset.record_length={int(row.record_length_bytes)}" in overrides
        assert f"++workload.reader.batch_size={row.batch_size}" in overrides
        assert str(row.started) == doc["start"].replace("T", " ")


def test_the_runs_are_one_history_of_dlio_bandwidth(con):
    runs = repeated_runs.get_runs(con)
    assert set(runs.tool) == {"dlio"} and set(runs.history) == {"dlio · DLIO unet3d"}
    assert runs.run.tolist() == list(range(1, len(SUMMARIES) + 1))
    by_start = sorted(SUMMARIES, key=lambda p: summary(p)["start"])
    # DLIO's MB is 2^20 bytes (its statscounter.py divides by 1024 twice)
    assert runs.bw_bytes_s.tolist() == [summary(p)["metric"]["train_io_mean_MB_per_second"] * 2**20 for p in by_start]
    assert runs.samples_s.tolist() == [summary(p)["metric"]["train_throughput_mean_samples_per_second"]
                                       for p in by_start]
    assert runs.au_pct.tolist() == [summary(p)["metric"]["train_au_mean_percentage"] for p in by_start]
    assert runs.design.str.startswith("collector run vm-").all() and runs.design.nunique() == len(SUMMARIES)


def test_your_runs_shows_each_run_with_its_measures(con):
    runs = your_runs.get_runs(con)
    assert set(runs.tool) == {"dlio"} and len(runs) == len(SUMMARIES)
    files = {str(p.resolve()): p for p in SUMMARIES}
    paths = dict(con.execute("SELECT source_id, path FROM sources").fetchall())
    for row in runs.itertuples():
        metric = summary(files[paths[int(row.source_id)]])["metric"]
        # a configuration's run is the geometric mean of its values: of one value, that value to the last bits
        assert (row.bw_mib_s, row.ops_s, row.au_pct) == pytest.approx(
            (metric["train_io_mean_MB_per_second"], metric["train_throughput_mean_samples_per_second"],
             metric["train_au_mean_percentage"]), rel=1e-12)
        assert (row.accelerators, row.files_train, row.record_length) == (2, 96, 4 * 2**20)


def test_mlperf_submissions_are_the_mlperf_chapters_not_runs_of_your_own(tmp_path):
    """Hammerspace's result (its five runs in Closed/Hammerspace/results/<system>/) beside one run of ours:
    dlio_summary_runs reads all six, mlperf_runs the five in the result tree, dlio_runs only ours."""
    result = tmp_path / "data" / "Closed" / "Hammerspace" / "results" / MLPERF_RESULT.name
    shutil.copytree(MLPERF_RESULT, result)
    shutil.copytree(SUMMARIES[0].parents[1], tmp_path / "data" / "dlio" / SUMMARIES[0].parents[1].name)
    ingest([tmp_path / "data"], tmp_path / "db.duckdb", progress=False, prune=True)
    with store.open_read(tmp_path / "db.duckdb") as c:
        assert c.execute("SELECT count(*) FROM dlio_summary_runs").fetchone()[0] == 6
        assert c.execute("SELECT count(*), any_value(organisation) FROM mlperf_runs").fetchone() == (5, "Hammerspace")
        ours = [p for (p,) in c.execute("SELECT path FROM dlio_runs").fetchall()]
    assert ours == [str((tmp_path / "data" / "dlio").resolve() / SUMMARIES[0].relative_to(DLIO))]


@pytest.mark.slow  # two ingests and searches
def test_the_gate_passes_the_history_and_fails_on_the_slowed_runs(tmp_path):
    normal, slowed = tmp_path / "normal", tmp_path / "slowed"
    shutil.copytree(DLIO, normal / "dlio")
    shutil.copytree(DLIO, slowed / "dlio")
    for run in SLOWED.iterdir():
        if run.is_dir():
            shutil.copytree(run, slowed / "dlio" / run.name)
    assert main(["check", "--data", str(normal), "--db", str(tmp_path / "normal.duckdb"), "--quiet",
                 "--report-json", str(tmp_path / "normal.json")]) == 0
    code = main(["check", "--data", str(slowed), "--db", str(tmp_path / "slowed.duckdb"), "--quiet",
                 "--report-json", str(tmp_path / "slowed.json")])
    report = json.loads((tmp_path / "slowed.json").read_text())
    assert code == 1 and not report["passed"]
    failing = [c for c in report["changes"] if c["fails"]]
    # the first slowed run follows every run of data/raw/dlio (the slowed ones were made after them)
    assert {(c["history"], c["measure"], c["run"]) for c in failing} == {
        ("dlio · DLIO unet3d", "bandwidth", len(SUMMARIES) + 1)}
    assert failing[0]["runs_after"] == len(SLOWED_SUMMARIES) and failing[0]["slower"]
    assert max(summary(p)["metric"]["train_io_mean_MB_per_second"] for p in SLOWED_SUMMARIES) < min(
        summary(p)["metric"]["train_io_mean_MB_per_second"] for p in SUMMARIES)
