"""Values the checksum_cost and pagecache chapters rely on, from the runs committed under data/raw/checksum
and data/raw/pagecache (ingested into a scratch database), and seed 000's memory factor from the published CSV."""
from pathlib import Path

import pytest

from iobook.database import collector_runs, store
from iobook.database.ingest import ingest
from iobook.studies import checksum_cost
from iobook.studies.pagecache import data as pagecache_data

RAW = Path(__file__).resolve().parents[1] / "data" / "raw"
CHECKSUM_RUN = "vm-20261121T131428Z"
PAGECACHE_RUN = "vm-20261121T132329Z"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("local") / "local.duckdb"
    ingest([RAW / "checksum" / CHECKSUM_RUN, RAW / "pagecache" / PAGECACHE_RUN], db, progress=False)
    return store.open_read(db)


def step_io(con, run_id: str, step: str, direction: str):
    """bw_bytes_s, io_bytes, runtime_s, usr_cpu_pct, sys_cpu_pct of one step's fio job in one direction."""
    return con.execute(
        """
        SELECT io.bw_bytes_s, io.io_bytes, j.runtime_s, j.usr_cpu_pct, j.sys_cpu_pct
        FROM run_sources rs JOIN fio_jobs j USING (source_id) JOIN fio_io io USING (job_id)
        WHERE rs.run_id = ? AND rs.file = ? AND io.direction = ?
        """,
        [run_id, f"{step}.fio.json", direction],
    ).fetchone()


def test_memory_factor_is_memory_bandwidth_per_node_over_io_bandwidth_per_node():
    assert checksum_cost.NODES == {"Client": 9, "Server": 2}  # seed 000: nine HDR200 clients; 2 servers per ESS 3500
    factors = checksum_cost.get_memory_factor(checksum_cost.get_published())
    per_node = {(r.side, r.build): round(r.per_node, 3) for r in factors.itertuples()}
    whole = {(r.side, r.build): round(r.whole, 3) for r in factors.itertuples()}
    printed = {(r.side, r.build): r.printed for r in factors.itertuples()}
    assert per_node == {("Client", "5.1.5.1 GA"): 3.5, ("Client", "trailerchecksum"): 3.6,
                        ("Server", "5.1.5.1 GA"): 3.2, ("Server", "trailerchecksum"): 2.144}
    assert whole == {("Client", "5.1.5.1 GA"): 0.389, ("Client", "trailerchecksum"): 0.4,
                     ("Server", "5.1.5.1 GA"): 1.6, ("Server", "trailerchecksum"): 1.072}
    assert [key for key in per_node if round(per_node[key], 1) == printed[key]] == [
        ("Client", "5.1.5.1 GA"), ("Server", "5.1.5.1 GA")]


@pytest.mark.slow
def test_checksum_run_steps_and_labels(con):
    assert con.execute("SELECT count(*), min(exit_code), max(exit_code) FROM run_steps WHERE run_id = ?",
                       [CHECKSUM_RUN]).fetchone() == (48, 0, 0)
    labels = con.execute(
        "SELECT key, list(DISTINCT value ORDER BY value) FROM run_labels "
        "WHERE run_id = ? AND key IN ('verify', 'mode', 'phase') GROUP BY key ORDER BY key", [CHECKSUM_RUN]).fetchall()
    assert labels == [("mode", ["buffered", "direct"]), ("phase", ["read", "write"]),
                      ("verify", ["crc32c", "md5", "none", "sha1", "sha256", "xxhash"])]


@pytest.mark.slow
def test_plain_direct_read_bandwidth(con):
    assert step_io(con, CHECKSUM_RUN, "002-read-none-direct-r1", "read")[:2] == (946444974, 2147483648)


@pytest.mark.slow
def test_verify_read_carries_its_bytes_in_the_read_direction(con):
    """fio's verify_only job is a write job: the read direction has the bandwidth, write shows 0 B/s."""
    assert step_io(con, CHECKSUM_RUN, "004-read-crc32c-direct-r1", "read")[0] == 450678624
    assert step_io(con, CHECKSUM_RUN, "004-read-crc32c-direct-r1", "write")[:2] == (0, 2147483648)


@pytest.mark.slow
def test_sha256_verify_read_cpu_per_gib(con):
    bw, io_bytes, runtime_s, usr, sys = step_io(con, CHECKSUM_RUN, "012-read-sha256-direct-r1", "read")
    assert (bw, runtime_s, usr, sys) == (93222940, 23.036, 37.115819, 2.109741)
    assert round(collector_runs.cpu_s_per_gib(usr + sys, runtime_s, io_bytes), 4) == 4.518
    task_clock = con.execute(
        "SELECT p.value FROM perf_counters p JOIN run_sources rs USING (source_id) "
        "WHERE rs.file = '012-read-sha256-direct-r1.perf.txt' AND p.event = 'task-clock'").fetchone()
    assert task_clock == (9306.06,)


@pytest.mark.slow
def test_memory_traffic_is_not_measured(con):
    fact = con.execute("SELECT value FROM run_facts WHERE run_id = ? AND key = 'facts.perf.memory_traffic'",
                       [CHECKSUM_RUN]).fetchone()[0]
    assert fact.startswith("not measured: no memory-controller PMU")
    statuses = con.execute("SELECT event, status, count(*) FROM perf_counters WHERE run_id = ? "
                           "AND event IN ('instructions', 'cycles') GROUP BY ALL ORDER BY ALL",
                           [CHECKSUM_RUN]).fetchall()
    assert statuses == [("cycles", "not supported", 48), ("instructions", "not supported", 48)]


@pytest.mark.slow
def test_pagecache_run_cgroup(con):
    facts = dict(con.execute("SELECT key, value FROM run_facts WHERE run_id = ? AND key LIKE 'facts.cgroup.%'",
                             [PAGECACHE_RUN]).fetchall())
    assert facts["facts.cgroup.mechanism"] == "cgroup-v1"
    assert facts["facts.cgroup.memory_limit_bytes"] == "1073741824"


@pytest.mark.slow
def test_buffered_write_bandwidth_and_its_one_second_spread(con):
    bw, io_bytes, runtime_s, usr, sys = step_io(con, PAGECACHE_RUN, "001-write-buffered-r1", "write")
    assert (bw, io_bytes, runtime_s, usr, sys) == (1812543008, 54378102784, 30.001, 1.98, 49.26)
    buckets = pagecache_data.get_buckets(con, [PAGECACHE_RUN], 1000)
    step = pagecache_data.get_steps(con, [PAGECACHE_RUN], buckets).set_index("step").loc["001-write-buffered-r1"]
    spread = (step.buckets, round(step.bucket_mean_mib_s, 1), round(step.cv, 3))
    # the 1-s buckets after fio's first second, its start-up (issue 46): 29 of the 30, not 1852.4 and 0.483
    assert spread == (29, 1906.7, 0.45)


@pytest.mark.slow
def test_reclaim_shows_in_the_cgroup_not_in_global_reclaim(con):
    increase = dict(con.execute(
        """
        SELECT CASE WHEN ends_with(m.instance, '/memory.stat') THEN 'cgroup ' ELSE '' END || m.metric,
               max(m.value) - min(m.value)
        FROM monitor_series m JOIN run_sources rs USING (source_id)
        WHERE rs.file = '001-write-buffered-r1.proc.txt'
          AND m.metric IN ('pgpgout', 'pgscan_kswapd', 'pgscan_direct', 'pgscan_file')
        GROUP BY ALL
        """
    ).fetchall())
    assert increase == {"cgroup pgpgout": 53359, "pgpgout": 53158116, "pgscan_kswapd": 0, "pgscan_direct": 0,
                        "pgscan_file": 12252442}
