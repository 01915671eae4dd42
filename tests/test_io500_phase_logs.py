"""IO500 phases against their IOR/mdtest phase logs (iobook/database/views/io500_phase_logs.sql), on real results folders."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from conftest import ARCHIVE

from iobook.database.ingest import ingest

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

TUCSON = ARCHIVE / "IBM Tucson/Arches Storage Scale System 3500/IBM Storage Scale/2023/submission-679"
CSIRO_BASH = ARCHIVE / "CSIRO/bracewell/scratch2/2020/submission-47"  # io500.sh (io500_fixed.sh), mdtest 3.3
JANELIA_ISC20 = ARCHIVE / "Janelia Research Campus, HHMI/SharedScratch/wekafs/2020/submission-112"  # C app, mdtest 3.3
CLEMSON_TWO_RUNS = ARCHIVE / "Clemson University/Palmetto/scratch1b/2019/submission-186"  # two bash runs, one folder
AURORA = ARCHIVE / "Argonne National Laboratory/Aurora/DAOS/2023/submission-695"  # mdtest printed a rate of 0
DKRZ_3_DECIMALS = ARCHIVE / "DKRZ/Mistral/lustre02/2019/submission-199"  # bash summary: 0.032 GiB/s phases

COLUMNS = "run_id, phase, source_id, log_path, log_value, summary_value, unit, rule, agrees, reason"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("phase_logs") / "phase_logs.duckdb"
    ingest([TUCSON / "results/2023.10.22-06.40.20", CSIRO_BASH, JANELIA_ISC20, CLEMSON_TWO_RUNS, AURORA,
            DKRZ_3_DECIMALS], db,
           progress=False)
    with duckdb.connect(str(db), read_only=True) as c:
        yield c


def phase_row(con, folder: Path, phase: str) -> dict:
    cur = con.execute(f"SELECT {COLUMNS} FROM io500_phase_logs WHERE log_path LIKE ? AND phase = ?",
                      [f"{folder}/%", phase])
    rows = cur.fetchall()
    assert len(rows) == 1, rows
    return dict(zip([d[0] for d in cur.description], rows[0]))


def test_c_app_ior_is_max_bandwidth_over_1024(con):
    row = phase_row(con, TUCSON, "ior-easy-write")
    assert row["log_path"].endswith("2023.10.22-06.40.20/ior-easy-write.txt")
    assert row["log_value"] == 109172 / 1024  # 106.613 GiB/s, printed as 109172 MiB/s
    assert row["summary_value"] == 106.612964
    assert (row["unit"], row["rule"], row["agrees"], row["reason"]) == (
        "GiB/s", "ior max MiB/s / 1024", True, None)


def test_c_app_mdtest_is_max_rate_over_1000(con):
    row = phase_row(con, TUCSON, "mdtest-easy-write")
    assert row["log_value"] == pytest.approx(231478.158 / 1000, abs=1e-12)
    assert (row["summary_value"], row["unit"], row["rule"], row["agrees"]) == (
        231.478158, "kIOPS", "mdtest rate max / 1000", True)


def test_bash_script_reads_first_iteration_row_with_awk_rounding(con):
    # ior_easy_write.txt: row "write 138274 ...", "Max Write: 138274.04 MiB/sec"; awk prints 138274/1024 as 135.033
    ior = phase_row(con, CSIRO_BASH, "ior-easy-write")
    assert (ior["log_value"], ior["summary_value"], ior["rule"], ior["agrees"]) == (
        135.033, 135.033, "bash: first write row MiB/s / 1024 (awk %.6g)", True)
    md = phase_row(con, CSIRO_BASH, "mdtest-easy-write")  # File creation Max 206326.691 ops/s
    assert (md["log_value"], md["summary_value"], md["rule"], md["agrees"]) == (
        206.327, 206.327, "bash: first File creation row Max / 1000 (awk %.6g)", True)


def test_mdtest_33_single_iteration_within_min_max(con):
    # File creation: Max 29360.606, Min 29360.588 over ranks; io500-isc20 scored items / max time = 29.360593
    row = phase_row(con, JANELIA_ISC20, "mdtest-easy-write")
    assert (row["log_value"], row["summary_value"], row["rule"], row["agrees"]) == (
        29.360606, 29.360593, "within [min, max] (items / max time)", True)


def test_logs_of_a_shared_folder_go_to_the_run_that_wrote_them(con):
    runs = con.execute(
        "SELECT r.started, count(l.phase) FROM io500_runs r LEFT JOIN io500_phase_logs l USING (run_id) "
        "WHERE r.path LIKE ? GROUP BY r.started ORDER BY r.started", [f"{CLEMSON_TWO_RUNS}/%"]).fetchall()
    assert runs == [("2018.10.18-15.54.56", 0), ("2018.10.22-12.05.50", 11)]
    assert con.execute("SELECT count(*) FROM io500_phase_log_disagreements WHERE log_path LIKE ?",
                       [f"{CLEMSON_TWO_RUNS}/%"]).fetchone() == (0,)


def test_real_disagreement_mdtest_printed_zero(con):
    rows = con.execute(f"SELECT {COLUMNS} FROM io500_phase_log_disagreements").fetchall()
    assert [(r[1], r[4], r[5], r[8], r[9]) for r in rows] == [
        ("mdtest-easy-stat", 0.0, 230284.570649, False,
         "the log prints 0 where the summary reports 230284.570649 kIOPS")]
    assert rows[0][3].startswith(str(AURORA))


def test_every_phase_of_the_tucson_run_is_linked_and_agrees(con):
    rows = con.execute("SELECT phase, agrees FROM io500_phase_logs WHERE log_path LIKE ? ORDER BY phase",
                       [f"{TUCSON}/%"]).fetchall()
    assert rows == [(p, True) for p in sorted(
        ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read", "mdtest-easy-write",
         "mdtest-hard-write", "mdtest-easy-stat", "mdtest-hard-stat", "mdtest-easy-delete", "mdtest-hard-read",
         "mdtest-hard-delete"])]


def test_changed_log_value_is_a_disagreement(tucson_results, tmp_path):
    # The copy (conftest) stays in tmp; only the checker is under test here.
    log = tucson_results / "ior-easy-write.txt"
    text = log.read_text()
    assert text.count("write     109172 ") == 1
    log.write_text(text.replace("write     109172 ", "write     110172 "))
    db = tmp_path / "edited.duckdb"
    ingest([tucson_results], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as c:
        rows = c.execute("SELECT phase, log_value, summary_value, reason FROM io500_phase_log_disagreements").fetchall()
        linked = c.execute("SELECT count(*) FROM io500_phase_logs").fetchone()[0]
    assert linked == 11
    assert len(rows) == 1
    phase, log_value, summary_value, reason = rows[0]
    assert (phase, log_value, summary_value) == ("ior-easy-write", 110172 / 1024, 106.612964)
    assert reason.startswith("summary 106.612964 GiB/s vs the log's 107.58984375: off by -0.977")


def test_score_from_phase_logs_settles_summary_rounding(con):
    """DKRZ 199's summary prints ior-hard-write as 0.032 GiB/s: recomputed from those rounded values the score
    is 5.34613, 0.22 % off the printed 5.33461; with the logs' values (0.031699 ...) it is 5.33460."""
    (run_id, summary_score, reported), = con.execute(
        "SELECT run_id, score, reported_score FROM io500_scores JOIN io500_runs USING (run_id) WHERE submission = 199"
    ).fetchall()
    assert (round(summary_score, 5), reported) == (5.34613, 5.33461)
    score, from_logs, matches = con.execute(
        "SELECT score, phases_from_logs, matches_reported FROM io500_scores_from_logs WHERE run_id = ?", [run_id]
    ).fetchone()
    assert (round(score, 5), from_logs, matches) == (5.3346, 11, True)
    assert con.execute("SELECT count(*) FROM io500_score_mismatches WHERE run_id = ?", [run_id]).fetchone() == (0,)

