"""Issue 48's done-when check: `python -m iobook book --data DIR` on MLPerf Storage results laid out as no other test
lays them, copied from the shared corpus (../shared/mlperf-storage-v1.0/Closed): WEKA's two unet3d results re-laid
as `unet3d/<accelerator>/run-<n>` (its own folders are `unet3d-a100/run<n>`), and Hammerspace alone, its result
folder the system's own folder (`Hammerspace_unet3d_5Client_H100/run<n>`), each with its system's description.
The book builds with rc 0, every summary.json is a row of mlperf_runs with the values it states, and every run
within one point of its AU minimum is flagged; and a result whose runs name another client is flagged clients_differ.
"""
import json
import os
import shutil
import subprocess
import sys

import duckdb
import pytest
import yaml
from conftest import SHARED, copy_checkout

from iobook.database.ingest import ingest

CLOSED = SHARED / "mlperf-storage-v1.0" / "Closed"
WEKA = CLOSED / "WEKA/results/weka-1-client-dual-socket-56-cores"
WEKA_SYSTEM = CLOSED / "WEKA/systems/wekapod_112x3.8tb_nvme_16xNDR_H100.json"
HAMMERSPACE = CLOSED / "Hammerspace/results/Hammerspace_unet3d_5Client_H100"
HAMMERSPACE_SYSTEM = CLOSED / "Hammerspace/systems/Hammerspace_unet3d_5Client_H100.json"
AU_MINIMUM = {"unet3d": 90, "resnet50": 90, "cosmoflow": 70}  # mlcommons/storage Submission_guidelines.md, Table 1

pytestmark = pytest.mark.slow  # builds a book in a subprocess


def relaid(dest):
    """The copied tree: WEKA's unet3d-<accelerator>/run<n> as unet3d/<accelerator>/run-<n>, Hammerspace as it is."""
    for accelerator in ("a100", "h100"):
        for run in sorted((WEKA / f"unet3d-{accelerator}").glob("run*")):
            shutil.copytree(run, dest / "WEKA/results/weka-1-client-dual-socket-56-cores/unet3d" / accelerator /
                            f"run-{run.name.removeprefix('run')}")
    shutil.copytree(HAMMERSPACE, dest / "Hammerspace/results" / HAMMERSPACE.name)
    for system in (WEKA_SYSTEM, HAMMERSPACE_SYSTEM):
        (dest / system.parent.relative_to(CLOSED)).mkdir(parents=True)
        shutil.copy2(system, dest / system.relative_to(CLOSED))
    return dest


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """The book built on the re-laid tree in a copy of this checkout (the published book is left alone)."""
    checkout = copy_checkout(tmp_path_factory.mktemp("checkout") / "iobook")
    tree = relaid(tmp_path_factory.mktemp("mlperf-relaid"))
    db = tmp_path_factory.mktemp("db") / "mlperf.duckdb"
    env = {**os.environ, "PYTHONPATH": str(checkout), "IOBOOK_SHARED": str(SHARED)}
    built = subprocess.run([sys.executable, "-m", "iobook", "book", "--quiet", "--data", str(tree), "--db", str(db)],
                           cwd=checkout, env=env, capture_output=True, text=True)
    return tree, db, built


def test_the_book_builds_on_a_layout_no_test_uses(book):
    _, _, built = book
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert any(line.split()[:1] == ["mlperf"] and line.endswith("executed") for line in built.stdout.splitlines())


def test_every_run_is_in_mlperf_runs_with_its_summary_values(book):
    tree, db, _ = book
    summaries = sorted(tree.rglob("summary.json"))
    assert len(summaries) == 15  # WEKA's 2 results and Hammerspace's 1, five runs each
    with duckdb.connect(str(db), read_only=True) as con:
        rows = {r["path"]: r for r in con.execute(
            "SELECT path, organisation, workload, accelerator, run, accelerators, hosts, au_mean_pct, samples_per_s, "
            "mb_per_s, started FROM mlperf_runs").df().to_dict("records")}
        flagged = {p for (p,) in con.execute(
            "SELECT path FROM mlperf_run_flags WHERE code = 'au_within_one_point'").fetchall()}
    assert set(rows) == {str(p) for p in summaries}
    within = set()
    for path in summaries:
        doc, row = json.loads(path.read_text()), rows[str(path)]
        model = yaml.safe_load((path.parent / "configs/config.yaml").read_text())["workload"]["model"]
        metric = doc["metric"]
        assert (row["organisation"], row["workload"], row["accelerators"], row["hosts"], row["au_mean_pct"],
                row["samples_per_s"], row["mb_per_s"], str(row["started"])) == (
            path.relative_to(tree).parts[0], model, doc["num_accelerators"], doc["num_hosts"],
            metric["train_au_mean_percentage"], metric["train_throughput_mean_samples_per_second"],
            metric["train_io_mean_MB_per_second"], doc["start"].replace("T", " ")), path
        # the run number and accelerator of the folders: run-<n> under unet3d/<accelerator>, or run<n>
        assert row["run"] == int(path.parent.name.removeprefix("run").removeprefix("-")), path
        if path.is_relative_to(tree / "WEKA"):
            assert row["accelerator"] == path.relative_to(tree).parts[4], path
        if AU_MINIMUM[model] <= metric["train_au_mean_percentage"] < AU_MINIMUM[model] + 1:
            within.add(str(path))
    # WEKA's unet3d a100 runs clear 90 % by less than a point (their summary.json: AU 90.0-91.0)
    assert within and flagged == within


def test_a_result_run_on_another_client_is_flagged(tmp_path):
    """WEKA's unet3d h100 result, its fifth run's summary.json rewritten as if another host had written it: the
    audit's clients_differ flags the five runs; the same result as published is not flagged."""
    result = tmp_path / "WEKA/results/weka-1-client-dual-socket-56-cores/unet3d-h100"
    shutil.copytree(WEKA / "unet3d-h100", result)
    (fifth,) = result.glob("run5/summary.json")
    doc = json.loads(fifth.read_text())
    for db, hostname in ((tmp_path / "as-published.duckdb", doc["hostname"]), (tmp_path / "moved.duckdb", "other-host")):
        fifth.write_text(json.dumps({**doc, "hostname": hostname}, indent=4))
        ingest([tmp_path / "WEKA"], db, progress=False)
        with duckdb.connect(str(db), read_only=True) as con:
            flagged = con.execute("SELECT count(DISTINCT path) FROM mlperf_run_flags WHERE code = 'clients_differ'"
                                  ).fetchone()[0]
        assert flagged == (0 if hostname == doc["hostname"] else 5), hostname
