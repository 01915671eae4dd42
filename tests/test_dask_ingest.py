"""The Dask path (parse on workers -> Parquet parts -> --from-parquet) gives the database a local ingest gives."""
import os
import shutil
from pathlib import Path

import distributed
import pytest
from conftest import ARCHIVE, BUILT_TOOLS, REPO, database_digest

from iobook.database import store
from iobook.database.dask_ingest import dask_ingest, load_parquet
from iobook.database.ingest import ingest

FIO = REPO / "tests" / "fixtures" / "fio"  # fio logs: CSV loads, read on the workers
pytestmark = pytest.mark.slow  # a Dask cluster of processes and two ingests of 30 submissions
SUBMISSIONS = sorted(ARCHIVE.glob("*/*/*/*/submission-*"))[::8]  # 30 of the archive's 238, deterministic


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def both(paths: list[Path], tmp: Path, client) -> tuple[dict, dict]:
    ingest(paths, tmp / "local.duckdb", progress=False)
    dask_ingest(paths, tmp / "parts", client=client, files_per_task=40, progress=False)
    load_parquet(tmp / "parts", tmp / "dask.duckdb")
    return database_digest(tmp / "local.duckdb"), database_digest(tmp / "dask.duckdb")


def test_dask_ingest_gives_the_local_database(tmp_path, client):
    assert len(SUBMISSIONS) == 30
    local, dask = both([BUILT_TOOLS, FIO, *SUBMISSIONS], tmp_path, client)
    assert {t: n for t, (n, _) in dask.items()} == {t: n for t, (n, _) in local.items()}
    assert dask == local
    assert local["sources"][0] > 600 and local["raw_fio_series"][0] > 0 and local["io500_run_info"][0] > 0
    assert len(list((tmp_path / "parts" / "sources").glob("part-*.parquet"))) > 2  # many tasks


def test_failure_on_a_worker_is_recorded_and_the_rest_loads(tmp_path, client):
    tree = tmp_path / "logs"
    shutil.copytree(BUILT_TOOLS, tree)
    bad = tree / "fio-infinity.json"
    bad.write_text((FIO / "fio333-multi.json").read_text().replace('"iops" : 32000.000000,', '"iops" : Infinity,', 1))
    os.mkfifo(tree / "a-fifo")  # refused: ids after every file's, as a local ingest numbers them
    (tree / "out-of-tree").symlink_to(FIO / "fio333-multi.json")
    local, dask = both([tree], tmp_path, client)
    assert dask == local
    con = store.open_read(tmp_path / "dask.duckdb")
    try:
        status, error = con.execute("SELECT status, error FROM sources WHERE path = ?", [str(bad)]).fetchone()
        refused = {p for (p,) in con.execute("SELECT path FROM sources WHERE sha256 = ''").fetchall()}
        (files,) = con.execute("SELECT count(*) FROM sources WHERE sha256 <> ''").fetchone()
        (first_refused,) = con.execute("SELECT min(source_id) FROM sources WHERE sha256 = ''").fetchone()
    finally:
        con.close()
    assert status == "error" and "non-finite value inf" in error
    assert refused == {str(tree / "a-fifo"), str(tree / "out-of-tree")} and first_refused == files + 1
