"""The IO500 archive's phase logs as tables (iobook/studies/io500_archive/logs.py): IOR's close time, the write
phases' wear-down after the stonewall and pfind's load imbalance, on real submissions. Each expected value is read
off the raw log named beside it."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest
from conftest import ARCHIVE, REPO, TUCSON_SC23

from iobook.database.ingest import ingest
from iobook.studies.io500_archive import logs

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

TUCSON = TUCSON_SC23 / "results" / "2023.10.22-06.40.20"  # C app, IOR 3.4 and mdtest 3.4, no IOR summary
CSIRO_BASH = ARCHIVE / "CSIRO/bracewell/scratch2/2019/submission-69/results"  # io500.sh: IOR summaries
DAC_TWO_ITERATIONS = ARCHIVE / "University of Cambridge/Data Accelerator/DAC/2019/submission-62/results"  # -i2, -D 0
GWDG_FAILED_MDTEST = (ARCHIVE / "Gesellschaft fur wissenschaftliche Datenverarbeitung/Emmy/CephFS/2024/submission-733"
                      / "results/2024.09.25-00.17.03")
CHFS_TEN_RANKS = ARCHIVE / "University of Tsukuba/Cygnus/CHFS/2021/submission-541"  # find.csv of 10 ranks
JANELIA_RANK_0_ONLY = ARCHIVE / "Janelia Research Campus, HHMI/SharedScratch/wekafs/2020/submission-111"
# data/raw keeps this submission's summaries only: its run has phases but no phase log
CNES_SUMMARY_ONLY = REPO / "data/raw/io500/CNES/HAL/work/2019/submission-101"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("io500_archive_logs") / "logs.duckdb"
    ingest([TUCSON, CSIRO_BASH, DAC_TWO_ITERATIONS, GWDG_FAILED_MDTEST, CHFS_TEN_RANKS, JANELIA_RANK_0_ONLY,
            CNES_SUMMARY_ONLY], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as c:
        yield c


def row(frame, log: Path) -> dict:
    """The one row of `frame` read from the file `log`."""
    rows = frame[frame.log_path == str(log)]
    assert len(rows) == 1, rows
    return rows.iloc[0].to_dict()


def test_close_time_is_the_ior_result_row(con):
    # ior-easy-write.txt line 39: "write 109172 13654 0.000262 10158080000 8192 0.137932 327.45 0.037710 327.63 0"
    r = row(logs.close_time(con), TUCSON / "ior-easy-write.txt")
    assert (r["phase"], r["access"], r["tasks"], r["nodes"], r["bw_mib_s"]) == (
        "ior-easy-write", "write", 200, 10, 109172)
    assert (r["open_s"], r["wrrd_s"], r["close_s"], r["total_s"]) == (0.137932, 327.45, 0.037710, 327.63)
    assert r["close_share"] == pytest.approx(0.037710 / 327.63, rel=1e-12)
    assert r["open_share"] == pytest.approx(0.137932 / 327.63, rel=1e-12)
    assert (r["family"], r["iterations"], r["valid"]) == ("Storage Scale/GPFS", 1, True)


def test_close_time_has_each_ior_phase_of_a_run_once(con):
    # the C app's folder holds ior-easy-write.txt, ior-easy-read.txt, ior-hard-write.txt and ior-hard-read.txt
    frame = logs.close_time(con)
    phases = frame[frame.log_path.str.startswith(f"{TUCSON}/")].phase
    assert sorted(phases) == ["ior-easy-read", "ior-easy-write", "ior-hard-read", "ior-hard-write"]


def test_close_time_of_two_iterations_is_the_first_the_script_scored(con):
    # ior_easy_write.txt (-i2): line 32 "write 219714 8388608 1024.00 0.317764 219.11 0.106886 219.53 0", line 34 the
    # second iteration (435.09 s); io500.sh scored the first row
    r = row(logs.close_time(con), DAC_TWO_ITERATIONS / "ior_easy_write.txt")
    assert (r["open_s"], r["wrrd_s"], r["close_s"], r["total_s"], r["iterations"]) == (
        0.317764, 219.11, 0.106886, 219.53, 2)


def test_ior_wear_down_is_the_transfer_time_after_the_stonewall_hit(con):
    # ior-easy-write.txt line 27 "stonewallingTime : 300", line 34 "stonewalling pairs accessed min: 19673 max: 22355
    # -- min data: 153.7 GiB mean data: 162.5 GiB time: 302.6s", line 24 "xfersize : 8 MiB", line 39 wr/rd(s) 327.45
    # and total(s) 327.63. The log has no summary: the hit time is line 34's
    r = row(logs.wear_down(con), TUCSON / "ior-easy-write.txt")
    assert (r["tool"], r["unit"], r["stonewall_s"], r["stonewall_min"], r["stonewall_max"]) == (
        "IOR", "transfers per rank", 300, 19673, 22355)
    assert r["slowest_share"] == pytest.approx(19673 / 22355, rel=1e-12)
    assert r["stonewall_mean"] == pytest.approx(162.5 * 2**30 / 2**23)  # 20,800 transfers of 8 MiB
    assert r["done_at_stonewall_share"] == pytest.approx(20800 / 22355)
    assert (r["timed_s"], r["total_s"], r["stonewall_hit_s"]) == (327.45, 327.63, 302.6)
    assert r["wear_down_s"] == pytest.approx(327.45 - 302.6, abs=1e-9)
    assert r["wear_down_share"] == pytest.approx((327.45 - 302.6) / 327.63, rel=1e-9)


def test_ior_wear_down_rank_by_rank_from_the_ranks_csv(con):
    # ior-easy-write.txt line 3 names saveRankPerformanceDetailsCSV=.../ior-easy-write.csv; line 34 the stonewall
    # hit at 302.6 s. Each of the CSV's 200 rows is a rank and its `runtime` (the time of its transfers): a rank's
    # time past the hit is its own wear-down; the slowest rank's is the phase's (line 39's wr/rd(s) 327.45).
    frame = pd.read_csv(TUCSON / "ior-easy-write.csv")
    r = row(logs.wear_down(con), TUCSON / "ior-easy-write.txt")
    assert r["ranks"] == len(frame) == 200
    assert r["median_rank_wear_down_s"] == pytest.approx(frame.runtime.median() - 302.6, rel=1e-9)
    assert r["slowest_rank_wear_down_s"] == pytest.approx(frame.runtime.max() - 302.6, rel=1e-9)
    # the log's own wear-down (327.45 - 302.6): the CSV's slowest runtime is 327.43795, 0.012 s short of it
    assert r["slowest_rank_wear_down_s"] == pytest.approx(r["wear_down_s"], abs=0.02)
    assert r["slowest_over_median_rank"] == pytest.approx(
        (frame.runtime.max() - 302.6) / (frame.runtime.median() - 302.6), rel=1e-9)


def test_no_rank_wear_down_without_the_ranks_csv(con):
    # io500.sh of 2019 wrote no per-rank CSV (no saveRankPerformanceDetailsCSV on ior_easy_write.txt's command line)
    r = row(logs.wear_down(con), CSIRO_BASH / "ior_easy_write.txt")
    assert pd.isna(r["ranks"]) and pd.isna(r["slowest_over_median_rank"])


def test_ior_stonewall_hit_comes_from_the_summary(con):
    # ior_easy_write.txt line 51 "stonewalling pairs accessed min: 102027 max: 113504", line 56 wr/rd(s) 317.38,
    # line 61 the summary's Stonewall(s) 300.00
    r = row(logs.wear_down(con), CSIRO_BASH / "ior_easy_write.txt")
    assert (r["stonewall_s"], r["stonewall_min"], r["stonewall_max"], r["stonewall_hit_s"]) == (
        300, 102027, 113504, 300.0)
    assert r["wear_down_s"] == pytest.approx(17.38, abs=1e-9)


def test_mdtest_wear_down_is_the_creation_time_after_the_deadline(con):
    frame = logs.wear_down(con)
    # mdtest-easy-write.txt line 4 "'-W' '300'", line 10 "Continue stonewall hit min: 358155 max: 406404 avg:
    # 382630.8", line 26 File creation time 351.138
    c_app = row(frame, TUCSON / "mdtest-easy-write.txt")
    assert (c_app["tool"], c_app["unit"], c_app["stonewall_s"]) == ("mdtest", "items per rank", 300)
    assert (c_app["stonewall_min"], c_app["stonewall_max"], c_app["stonewall_mean"]) == (358155, 406404, 382630.8)
    assert c_app["slowest_share"] == pytest.approx(358155 / 406404, rel=1e-12)
    assert c_app["wear_down_s"] == pytest.approx(51.138, abs=1e-9)
    # io500.sh's mdtest_easy_write.txt: line 20 "'-W' '300'", line 29 "Continue stonewall hit min: 272176 max: 587625
    # avg: 360850.8", line 46 "File creation : 617.910" (the time table's colon layout)
    bash = row(frame, CSIRO_BASH / "mdtest_easy_write.txt")
    assert (bash["stonewall_min"], bash["stonewall_max"], bash["stonewall_mean"]) == (272176, 587625, 360850.8)
    assert bash["wear_down_s"] == pytest.approx(317.91, abs=1e-9)


def test_no_wear_down_without_a_stonewall(con):
    # ior_easy_write.txt line 3 "-D 0" (no deadline: line 31's 8192 pairs are the whole block), mdtest_easy_write.txt
    # line 4 '"-W" "0"' and no "Continue stonewall hit" line
    frame = logs.wear_down(con)
    assert not frame.log_path.str.startswith(f"{DAC_TWO_ITERATIONS}/").any()


def test_a_failed_mdtest_phase_has_no_wear_down(con):
    # mdtest-easy-write.txt line 10 "WARNING: unable to create tree directory ...": a failed phase; its
    # mdtest-hard-write.txt (line 10 "Continue stonewall hit min: 23363 max: 24487 avg: 23961.0") did not fail
    frame = logs.wear_down(con)
    assert (frame.log_path == str(GWDG_FAILED_MDTEST / "mdtest-easy-write.txt")).sum() == 0
    hard = row(frame, GWDG_FAILED_MDTEST / "mdtest-hard-write.txt")
    assert (hard["stonewall_min"], hard["stonewall_max"], hard["stonewall_mean"]) == (23363, 24487, 23961.0)


def test_pfind_imbalance_over_ten_ranks(con):
    # find.csv line 1 "runtime: 595.248961 rate: 1056268.758264"; lines 3-12 one rank each, its total (files scanned)
    # and checked (directory entries read) columns 5 and 6; rank 0 (line 3) is the busiest in both
    totals = [132328184, 73106338, 92663414, 60003987, 62518747, 53853570, 37989418, 42530116, 22710288, 51038819]
    checked = [135222846, 73114080, 93677415, 59405190, 63975061, 54835560, 36557040, 41126671, 20563335, 50265930]
    r = row(logs.pfind_imbalance(con), CHFS_TEN_RANKS / "find.csv")
    assert (r["phase"], r["ranks"], r["runtime_s"], r["ranks_add_up"]) == ("find", 10, 595.248961, True)
    assert (r["total"], r["checked"]) == (sum(totals), sum(checked))
    assert r["total"] == pytest.approx(1056268.758264 * 595.248961, rel=1e-9)  # pfind's own total
    assert r["busiest_total_share"] == pytest.approx(132328184 / sum(totals), rel=1e-12)
    assert r["total_imbalance"] == pytest.approx(132328184 / (sum(totals) / 10), rel=1e-12)
    assert r["busiest_checked_share"] == pytest.approx(135222846 / sum(checked), rel=1e-12)
    assert r["checked_imbalance"] == pytest.approx(135222846 / (sum(checked) / 10), rel=1e-12)
    assert (r["ranks_checking_none"], r["idle_ranks"], r["family"]) == (0, 0, "CHFS")


def test_pfind_csv_of_rank_0_alone_gives_no_shares(con):
    # find.csv line 1 "runtime: 54.336105 rate: 407596.496897" (22.1 million files), line 3 rank 0 alone with 461858:
    # the C app wrote one row for a find over more ranks
    r = row(logs.pfind_imbalance(con), JANELIA_RANK_0_ONLY / "find.csv")
    assert (r["ranks"], r["total"], r["checked"], r["ranks_add_up"]) == (1, 461858, 465211, False)
    assert all(pd.isna(r[c]) for c in ("checked_imbalance", "busiest_checked_share", "total_imbalance",
                                       "busiest_total_share"))


def test_a_summary_only_submission_gives_no_rows(con):
    # results/result_summary.txt line 1 "[RESULT] BW phase 1 ior_easy_write 62.644 GB/s": a run with phases, and no
    # IOR, mdtest or pfind log beside it
    (run_id, value), = con.execute(
        "SELECT r.run_id, p.value FROM io500_runs r JOIN io500_phases p USING (run_id) "
        "WHERE r.path LIKE ? AND p.phase = 'ior-easy-write'", [f"{CNES_SUMMARY_ONLY}/%"]).fetchall()
    assert value == 62.644
    for table in (logs.close_time, logs.wear_down, logs.pfind_imbalance):
        assert run_id not in set(table(con).run_id)
