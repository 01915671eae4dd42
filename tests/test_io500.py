"""IO500 summaries (2017 log, bash v1, C app summary and result.txt) and run assembly, on real files."""
from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pytest
from conftest import SHARED
from hypothesis import given
from hypothesis import strategies as st

from iobook.database import io500_runs, io500_scores
from iobook.database.ingest import ingest
from iobook.parsers import ParseError, all_formats, detect
from iobook.parsers.io500 import GIB, Io500File, Io500Flag, Io500Phase

# the IO500 formats in the order detection tries them (result.txt first, --verify last)
FORMATS = tuple(f for f in all_formats() if f.tool == "io500")

ARCHIVE = SHARED / "io500-submissions"
TUCSON = ARCHIVE / "IBM Tucson/Arches Storage Scale System 3500/IBM Storage Scale/2023/submission-679"
TUCSON_RESULTS = TUCSON / "results/2023.10.22-06.40.20"
EHNINGEN = ARCHIVE / "IBM Ehningen System/DACH Storage Scale System 3500/IBM Storage Scale/2023/submission-690"
CLOUD = ARCHIVE / "IBM Cloud HPC/BlueStorm/IBM Storage Scale/2023/submission-687"
SUMMIT_LOG = ARCHIVE / ("Oak Ridge National Laboratory/Summit/Alpine/2019/submission-92/results/"
                        "io-500-summary.2018.11.08-15.56.05.txt")
CLEMSON = ARCHIVE / "Clemson University/Palmetto/scratch1b/2019/submission-186/results"
CERN = ARCHIVE / "CERN/Bytecollider/Jim/2019/submission-179/results/result_summary.txt"
SC17 = ARCHIVE / "DKRZ/Mistral/lustre02/2019/submission-109/JCAHPC-17/jcahpc"
SC17_LOG = SC17 / "2048-8.227609.out"
EXTENDED = ARCHIVE / "HHMIJRC/Janelia Compute Cluster/nrsv/2021/submission-578"
CAMBRIDGE = ARCHIVE / "University of Cambridge/Data Accelerator/Data Accelerator/2019/submission-28/results"
BUILT = SHARED / "fixtures/built-tools/io500/run1-standard-np2-stonewall10"
BUILT_RESULTS = BUILT / "2026.11.21-12.37.24"


def parse(path: Path):
    text = path.read_text(encoding="utf-8")
    fmt = detect(text[:65536])
    assert fmt is not None and fmt.tool == "io500", path
    parsed = fmt.parse(text)
    (file_rec,) = [r for r in parsed.records if isinstance(r, Io500File)]
    phases = {r.phase: r for r in parsed.records if isinstance(r, Io500Phase)}
    flags = [r for r in parsed.records if isinstance(r, Io500Flag)]
    return parsed, file_rec, phases, flags


# ---------------------------------------------------------------- parsers

def test_c_summary_sc23_tucson():
    parsed, f, phases, flags = parse(TUCSON / "result_summary.txt")
    assert (parsed.format, f.kind, f.io500_version, f.mode) == ("io500-summary", "summary", "io500-sc23_v1", "standard")
    p = phases["ior-easy-write"]
    assert (p.value, p.unit, p.time_s, p.scored, p.invalid) == (106.612964, "GiB/s", 329.358, True, False)
    assert phases["timestamp"].scored is False
    assert (phases["find"].value, phases["find"].unit) == (4965.602624, "kIOPS")
    assert (f.reported_bw_gib_s, f.reported_md_kiops, f.reported_score) == (74.180126, 250.64411, 136.355461)
    assert flags == []


def test_result_ini_sc23_tucson():
    parsed, f, phases, _ = parse(TUCSON_RESULTS / "result.txt")
    assert (parsed.format, f.procs, f.mode, f.started) == ("io500-result-ini", 200, "standard", "2023-10-22 06:40:22")
    assert f.result_dir == "/nshare/pidsouza/io500/monthly/102023/results/1BB/2023.10.22-06.40.20"
    assert phases["ior-easy-write"].value == 106.612964
    assert phases["ior-easy-write"].stonewall_s == 300.0
    assert f.reported_score == 136.355461 and f.complete


def test_result_ini_headerless_isc20():
    """isc20 wrote the run keys before any section header."""
    _, f, phases, _ = parse(ARCHIVE / "CSIRO/bracewell/scratch2/2020/submission-49/result.txt")
    assert (f.io500_version, f.result_dir) == ("io500-isc20_v4", "./results/2020.07.14-13.32.08-app")
    assert phases["ior-easy-write"].value == 136.31086
    assert phases["ior-easy-write"].line == 8


def test_invalid_run_flags_and_markers():
    _, f, phases, flags = parse(BUILT_RESULTS / "result.txt")
    assert f.stonewall_s == 10.0 and f.reported_score_invalid and f.reported_score == 9.040308
    assert (flags[0].line, flags[0].phase, flags[0].message) == (8, None, "stonewall-time 10s != 300s")
    assert [(fl.line, fl.phase) for fl in flags[1:4]] == [(14, "ior-easy-write"), (16, "ior-easy-write"),
                                                         (17, "ior-easy-write")]
    assert phases["ior-easy-write"].invalid and not phases["find"].invalid
    assert phases["ior-rnd4K-easy-read"].scored is False  # standard mode does not score it
    _, s, sphases, _ = parse(BUILT_RESULTS / "result_summary.txt")
    assert [p for p, r in sphases.items() if r.invalid] == ["ior-easy-write", "mdtest-easy-write",
                                                            "ior-hard-write", "mdtest-hard-write"]
    assert s.reported_score_invalid


def test_stdout_of_c_app_is_a_summary_with_error_lines():
    _, f, phases, flags = parse(BUILT / "stdout.log")
    assert f.kind == "stdout" and phases["mdtest-hard-delete"].value == 4.348602
    assert flags[0].message == "stonewall-time 10s != 300s" and flags[0].line == 2


def test_truncated_result_ini_in_memory():
    """The real result.txt cut inside a line of its [mdtest-hard-stat] section (as a run stopped mid-write)."""
    text = (BUILT_RESULTS / "result.txt").read_text()
    cut = text.index("[mdtest-hard-stat]") + len("[mdtest-hard-stat]\nt_start         = 2026-11-21 12:38:13\nex")
    parsed = FORMATS[0].parse(text[:cut])
    (f,) = [r for r in parsed.records if isinstance(r, Io500File)]
    phases = [r.phase for r in parsed.records if isinstance(r, Io500Phase)]
    assert phases[-2:] == ["ior-hard-read", "mdtest-hard-stat"] and not f.complete
    assert f.reported_score is None


def test_bash_log_summit():
    parsed, f, phases, _ = parse(SUMMIT_LOG)
    assert (parsed.format, f.kind, f.started, f.stonewall_s) == ("io500-bash", "bash-log", "2018.11.08-15.56.05", 300.0)
    assert (phases["ior-easy-write"].value, phases["ior-easy-write"].unit) == (218.322, "GiB/s")
    assert (phases["mdtest-hard-delete"].value, phases["mdtest-hard-delete"].time_s) == (27.163, 160.81)
    assert (f.reported_bw_gib_s, f.reported_md_kiops, f.reported_score) == (9.84383, 506.93, 70.6409)
    assert f.score_rule == "sqrt" and len(phases) == 12


def test_bash_log_tail_repeats_earlier_runs():
    """Cambridge's script appended to one result_summary.txt; the log cats it at the end."""
    _, f, phases, flags = parse(CAMBRIDGE / "io-500-summary.2018.11.10-19.19.31.txt")
    assert sorted(phases) == ["mdtest-hard-delete", "mdtest-hard-read", "mdtest-hard-stat", "mdtest-hard-write"]
    assert phases["mdtest-hard-write"].value == 604.503 and phases["mdtest-hard-write"].invalid
    assert f.reported_score == 0 and f.reported_score_invalid
    assert (flags[0].line, flags[0].phase) == (209, "mdtest-hard-write")


def test_bash_first_scripts_multiplied():
    _, f, _, _ = parse(CERN)
    assert (f.score_rule, f.reported_score) == ("product", 36.0674)


def test_sc17_log():
    parsed, f, phases, flags = parse(SC17_LOG)
    assert (parsed.format, f.kind, f.procs, f.started, f.score_rule) == (
        "io500-sc17-log", "sc17-log", 16384, "2017-11-07", "sc17-product")
    assert phases["ior-easy-write"].value == pytest.approx(794393.97e6 / GIB, rel=1e-12)
    assert phases["mdtest-easy-write"].label == "md-easy-create" and phases["mdtest-easy-write"].value == 28.320444
    assert "mdtest-hard-read" not in phases and len(phases) == 11
    assert (flags[0].line, flags[0].phase) == (17, "mdtest-hard-write") and phases["mdtest-hard-write"].invalid
    assert f.reported_score == 7209139386.9
    _, frag, fphases, _ = parse(SC17 / "io500-results-2048-8.227609/find-results.txt")
    assert frag.kind == "sc17-fragment" and fphases["find"].value == 5.02


@pytest.mark.parametrize("path", [
    TUCSON_RESULTS / "config.ini", TUCSON_RESULTS / "io500.sh", TUCSON_RESULTS / "ior-easy-write.txt",
    TUCSON_RESULTS / "mdtest-hard-stat.txt", SUMMIT_LOG.parent / "ior_easy_write.txt",
    SUMMIT_LOG.parents[1] / "io500.sh", BUILT / "verify.log", SC17 / "io500-results-2048-8.227609/mdt_easy"])
def test_not_io500_summaries(path):
    head = path.read_text(errors="replace")[:65536]
    assert not any(fmt.detect(head) for fmt in FORMATS if fmt.name != "io500-verify")
    assert FORMATS[-1].detect(head) == (path.name == "verify.log")  # io500 --verify output is read as that only


def test_parse_errors_carry_lines():
    with pytest.raises(ParseError) as e:
        FORMATS[0].parse("[run]\nversion = io500-sc23\nresult-dir = x\n[ior-easy-write]\nscore = fast\n")
    assert e.value.line == 5
    with pytest.raises(ParseError):
        FORMATS[1].parse("IO500 version io500-sc23\n")


FUZZ_FILES = [TUCSON / "result_summary.txt", BUILT_RESULTS / "result.txt", CERN, SC17_LOG,
              ARCHIVE / "CSIRO/bracewell/scratch2/2020/submission-49/result.txt"]


@pytest.mark.slow
@given(st.sampled_from(FUZZ_FILES), st.integers(0, 2), st.integers(min_value=0), st.integers(0, 255))
def test_fuzz_only_parse_errors(path, how, where, byte):
    data = bytearray(path.read_bytes())
    at = where % max(len(data), 1)
    if how == 0:
        data = data[:at]
    elif how == 1:
        lines = bytes(data).split(b"\n")
        del lines[at % len(lines)]
        data = bytearray(b"\n".join(lines))
    elif data:
        data[at] = byte
    text = bytes(data).decode("utf-8", errors="replace")
    for fmt in FORMATS:
        if fmt.detect(text[:65536]):
            try:
                fmt.parse(text)
            except ParseError:
                pass


# ---------------------------------------------------------------- scores

def test_geometric_mean_rules():
    assert io500_scores.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert io500_scores.geometric_mean([2.0, 0.0]) == 0.0
    assert io500_scores.geometric_mean([2.0, None]) is None


def test_recompute_tucson_score():
    _, _, phases, _ = parse(TUCSON / "result_summary.txt")
    s = io500_scores.recompute({k: p.value for k, p in phases.items() if p.scored})
    assert s.bw_gib_s == pytest.approx(74.180126, rel=1e-6)
    assert s.md_kiops == pytest.approx(250.644110, rel=1e-6)
    assert s.score == pytest.approx(136.355461, rel=1e-6) and round(s.score, 1) == 136.4


@pytest.mark.parametrize("folder, score", [(EHNINGEN, 166.250958), (CLOUD, 618.917007)])
def test_recompute_ibm_seed_scores(folder, score):
    _, f, phases, _ = parse(folder / "result_summary.txt")
    s = io500_scores.recompute({k: p.value for k, p in phases.items() if p.scored})
    assert f.reported_score == score and s.score == pytest.approx(score, rel=1e-6)


def test_recompute_extended_score():
    _, f, phases, _ = parse(EXTENDED / "result_summary.txt")
    s = io500_scores.recompute({k: p.value for k, p in phases.items() if p.scored}, extended=True)
    assert f.mode == "extended" and (f.reported_score, f.reported_x_score) == (21.717851, 13.253362)
    assert s.score == pytest.approx(21.717851, rel=1e-6) and s.x_score == pytest.approx(13.253362, rel=1e-6)


def test_recompute_sc17_native():
    _, f, phases, _ = parse(SC17_LOG)
    s = io500_scores.recompute({k: p.value for k, p in phases.items()}, "sc17-product")
    assert io500_scores.native_score(s.bw_gib_s, s.md_kiops, "sc17-product") == pytest.approx(7209139386.9, rel=1e-4)


def test_archive_location():
    loc = io500_runs.archive_location(str(TUCSON_RESULTS))
    assert (loc["institution"], loc["system"], loc["filesystem"], loc["year"], loc["submission"]) == (
        "IBM Tucson", "Arches Storage Scale System 3500", "IBM Storage Scale", 2023, 679)
    assert io500_runs.archive_location(str(BUILT_RESULTS))["submission"] is None


# ---------------------------------------------------------------- runs in the store

GROUPING_FILES = [TUCSON / "result_summary.txt", TUCSON_RESULTS / "result_summary.txt", TUCSON_RESULTS / "result.txt",
                  *sorted(CLEMSON.glob("*summary*")), BUILT / "stdout.log", BUILT_RESULTS / "result.txt",
                  BUILT_RESULTS / "result_summary.txt", SC17_LOG, *sorted(SC17.glob("io500-results-*/*-results.txt"))]


def _tables(db: Path) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.execute(f"SELECT * FROM {name} ORDER BY ALL").fetchall() for name in io500_runs.TABLES}
    finally:
        con.close()


@pytest.fixture(scope="module")
def runs_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("io500") / "runs.duckdb"
    ingest(GROUPING_FILES, db, progress=False)
    return db


@pytest.mark.slow
def test_grouping(runs_db):
    con = duckdb.connect(str(runs_db), read_only=True)
    by_folder = dict(con.execute(
        "SELECT path, count(*) FROM io500_runs GROUP BY path").fetchall())
    assert by_folder[str(TUCSON_RESULTS)] == 1 and by_folder[str(CLEMSON)] == 2 and by_folder[str(BUILT_RESULTS)] == 1
    roles = con.execute("""SELECT string_agg(role, '+' ORDER BY role) FROM io500_run_files f JOIN io500_runs r
                           USING (run_id) WHERE r.path = ? GROUP BY run_id""", [str(TUCSON_RESULTS)]).fetchall()
    assert roles == [("copy+result-ini+summary",)]
    clemson = con.execute("""SELECT r.started, s.reported_score, count(*) FROM io500_runs r
                             JOIN io500_scores s USING (run_id) JOIN io500_run_files f USING (run_id)
                             WHERE r.path = ? GROUP BY ALL ORDER BY 1""",
                          [str(CLEMSON)]).fetchall()
    assert clemson == [("2018.10.18-15.54.56", 3.27753, 1), ("2018.10.22-12.05.50", 7.42954, 2)]
    (sc17_files,) = con.execute("SELECT count(*) FROM io500_run_files f JOIN io500_runs r USING (run_id) "
                                "WHERE r.io500_version = 'sc17'").fetchone()
    assert sc17_files == 6


@pytest.mark.slow
def test_run_views(runs_db):
    con = duckdb.connect(str(runs_db), read_only=True)
    row = con.execute("""SELECT r.institution, r.year, r.submission, s.score, s.reported_score, s.valid, s.score_matches
                         FROM io500_runs r JOIN io500_scores s USING (run_id) WHERE r.path = ?""",
                      [str(TUCSON_RESULTS)]).fetchone()
    assert row[:3] == ("IBM Tucson", 2023, 679) and row[4] == 136.355461 and row[5:] == (True, True)
    assert math.isclose(row[3], 136.355461, rel_tol=1e-6)
    (valid, reasons, stonewall) = con.execute(
        """SELECT s.valid, s.invalid_reasons, r.stonewall_s FROM io500_scores s JOIN io500_runs r USING (run_id)
           WHERE r.path = ?""", [str(BUILT_RESULTS)]).fetchone()
    assert not valid and stonewall == 10.0 and "stonewall 10 s < 300 s" in reasons
    assert "INVALID stonewall-time 10s != 300s (result.txt:8)" in reasons
    phase = con.execute("""SELECT value, unit, scored, valid FROM io500_phases p JOIN io500_runs r USING (run_id)
                           WHERE r.path = ? AND phase = 'ior-easy-write'""", [str(BUILT_RESULTS)]).fetchone()
    assert phase == (0.270729, "GiB/s", True, False)
    (sc17_match,) = con.execute("SELECT score_matches FROM io500_scores WHERE score_rule = 'sc17-product'").fetchone()
    assert sc17_match is True


@pytest.mark.slow
def test_ingest_twice_and_fresh_give_same_rows(runs_db, tmp_path):
    before = _tables(runs_db)
    ingest(GROUPING_FILES, runs_db, progress=False)
    fresh = tmp_path / "fresh.duckdb"
    ingest(GROUPING_FILES, fresh, progress=False)
    assert _tables(runs_db) == before == _tables(fresh)
    con = duckdb.connect(str(runs_db))
    io500_runs.rebuild(con)  # a rebuild from the same raw rows changes nothing
    con.close()
    assert _tables(runs_db) == before


# ---------------------------------------------------------------- pfind's CSVs and io500 --verify

def test_pfind_csv_of_a_find_phase():
    """pfind's find.csv, written by io500 (built-tools run, MANIFEST.tsv): 'runtime: 0.254010 rate:
    1576754.199724' (line 1), then one row per rank (lines 3-4: found 0 and 3076)."""
    from iobook.database.parsing import parse_bytes
    from iobook.parsers.pfind import PfindRank, PfindRun

    path = BUILT_RESULTS / "find.csv"
    outcome = parse_bytes(str(path), path.read_bytes())
    assert (outcome.row["status"], outcome.row["tool"], outcome.row["format"]) == ("ok", "pfind", "pfind-csv")
    (run,) = [r for r in outcome.records if isinstance(r, PfindRun)]
    assert (run.runtime_s, run.rate) == (0.254010, 1576754.199724)
    ranks = sorted((r.rank, r.errors, r.found, r.total, r.stealing_s) for r in outcome.records
                   if isinstance(r, PfindRank))
    assert ranks == [(0, 0, 0, 285548, 0.0), (1, 0, 3076, 114963, 0.080)]


@pytest.mark.parametrize("name, runtime, rate, ranks", [
    # GWDG submission-582 (2021), extended mode: find-easy.csv and find-hard.csv, line 1 of each; 80 ranks
    ("find-easy.csv", 29.111110, 943351.165263, 80),
    ("find-hard.csv", 59.783552, 63300.354084, 80),
])
def test_pfind_csv_of_extended_find_phases(name, runtime, rate, ranks):
    from iobook.database.parsing import parse_bytes
    from iobook.parsers.pfind import PfindRank, PfindRun

    path = ARCHIVE / "GWDG/SCC/BeeGFS/2021/submission-582" / name
    outcome = parse_bytes(str(path), path.read_bytes())
    assert outcome.row["status"] == "ok", outcome.row.get("error")
    (run,) = [r for r in outcome.records if isinstance(r, PfindRun)]
    assert (run.runtime_s, run.rate) == (runtime, rate)
    assert sum(isinstance(r, PfindRank) for r in outcome.records) == ranks


def test_io500_verify_output():
    """`io500 --verify` of the built-tools run (verify.log, MANIFEST.tsv): the result file's version (line 1),
    its config and score hashes (lines 3-4), and the verdict '[OK] But this is an invalid run!' (line 6);
    mpirun's abort banner after it (io500 exits 1 on an invalid run) is not a failure of the file."""
    from iobook.database.parsing import parse_bytes
    from iobook.parsers.io500 import Io500Verification

    path = BUILT / "verify.log"
    outcome = parse_bytes(str(path), path.read_bytes())
    assert (outcome.row["status"], outcome.row["format"]) == ("ok", "io500-verify"), outcome.row.get("error")
    (v,) = [r for r in outcome.records if isinstance(r, Io500Verification)]
    assert (v.result_version, v.config_hash, v.score_hash) == ("io500-isc26_v2-26-g02091cf254d8", "DA0333A7",
                                                                "26669DF7")
    assert (v.hashes_match, v.valid, v.line) == (True, False, 6)


# --- the C app's FATAL stdout: a failed run, recorded with its line and reason --------------------------

FATAL_FIXTURES = Path(__file__).parent / "fixtures" / "io500"  # SOURCES.md: pasted in public issues


@pytest.mark.parametrize("name, line, reason", [
    # line 1: "ERROR Parsing error in section mdtest-easy-write line 67, ..." (printed by 2 ranks), line 3: FATAL
    ("io500-app-issue24-ini-parse-fatal.txt", 1,
     "IO500 stopped before its first phase: Parsing error in section mdtest-easy-write line 67, unexpected "
     "content: “noRun =”; FATAL (src/ini-parse.c:50) Couldn’t parse config file config-full.ini"),
    ("io500-issue117-cannot-open-config.txt", 1,
     "IO500 stopped before its first phase: FATAL (src/ini-parse.c:26) Cannot open config file --list-mandatory"),
])
@pytest.mark.slow
def test_fatal_stdout_is_a_failed_run_with_its_line_and_reason(name, line, reason, tmp_path):
    text = (FATAL_FIXTURES / name).read_text(encoding="utf-8")
    fmt = detect(text)
    assert fmt is not None and fmt.tool == "io500"
    with pytest.raises(ParseError) as e:
        fmt.parse(text)
    assert (e.value.line, str(e.value.reason)) == (line, reason)
    db = tmp_path / "t.duckdb"
    ingest([FATAL_FIXTURES / name], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT tool, status, error_line, error FROM sources").fetchall() == [
            ("io500", "error", line, reason)]


def test_md_workbench_data_sets_are_no_stonewall():
    """Issue 46: md-workbench's `-D=10` (its data sets, on the exe line) was read as a 10 s stonewall, so GWDG's
    extended-mode run (submission-582: ior `-D 300`, mdtest `-W 300`, config.ini stonewall-time 300) and HHMI's 578
    were invalid ('stonewall 10 s < 300 s')."""
    gwdg = ARCHIVE / "GWDG" / "SCC" / "BeeGFS" / "2021" / "submission-582" / "result.txt"
    _, f, phases, _ = parse(gwdg)
    assert f.mode == "extended" and f.stonewall_s == 300.0
    assert {p.stonewall_s for name, p in phases.items() if name.startswith("mdworkbench")} == {None}
    assert phases["ior-easy-write"].stonewall_s == phases["mdtest-hard-write"].stonewall_s == 300.0
