"""IOR parser and views, checked against real IOR output of every layout and version we have."""
from __future__ import annotations

import shutil
from pathlib import Path
from statistics import fmean, pstdev

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iobook.database.ingest import ingest
from iobook.parsers import DETECT_BYTES, ParseError, detect, ior_csv, ior_json, ior_text, parse_outputs
from iobook.parsers.ior_records import IorIteration, IorRank, IorSummary, IorTest, machine_host

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ior"
from conftest import SHARED

BUILT = SHARED / "fixtures" / "built-tools" / "ior"
HERE = FIXTURES / "built-here"
ARCHIVE = SHARED / "io500-submissions"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def parse(path: Path):
    text = read(path)
    (fmt,) = [f for f in ior_json.FORMATS + ior_text.FORMATS + ior_csv.FORMATS if f.detect(text[:DETECT_BYTES])]
    return fmt.parse(text)


def parse_file(path: Path):
    """What ingest parses of the file: the format detection picks, and any output before or after it."""
    text = read(path)
    return parse_outputs(detect(text[:DETECT_BYTES]), text)


def of(parsed, cls) -> list:
    """The records of `cls`, whether the parser gave them as records or as an Arrow table (per-rank CSVs)."""
    table = parsed.tables.get(cls)
    return [r for r in parsed.records if isinstance(r, cls)] + ([cls(**row) for row in table.to_pylist()] if table else [])


# --- text logs, by version --------------------------------------------------------------------

def test_io500_app_log_without_summary_v34():
    parsed = parse(FIXTURES / "sub679" / "ior-easy-write.txt")
    (test,) = of(parsed, IorTest)
    (it,) = of(parsed, IorIteration)
    assert parsed.format == "ior-text" and parsed.tool_version == "3.4.0+dev"
    assert (test.api, test.tasks, test.tasks_per_node, test.nodes) == ("POSIX", 200, 20, 10)
    assert test.transfer_bytes == 8 * 2**20  # "8 MiB"
    assert test.block_bytes == 9920000 * 2**20  # "-b 9920000m"; the log prints a rounded "9.46 TiB"
    assert test.sizes_from == "options/command"
    assert (test.stonewall_s, test.finished, test.file_per_proc) == (300, False, True)
    # line 34: "stonewalling pairs accessed min: 19673 max: 22355 -- min data: 153.7 GiB mean data: 162.5 GiB time: 302.6s"
    assert (test.stonewall_pairs_min, test.stonewall_pairs_max) == (19673, 22355)
    assert (test.stonewall_mean_gib, test.stonewall_hit_s) == (162.5, 302.6)
    assert test.rank_csv.endswith("/1BB/2023.10.22-06.40.20/ior-easy-write.csv")
    assert (it.access, it.bw_mib_s, it.iops, it.latency_s) == ("write", 109172.0, 13654.0, 0.000262)
    assert (it.block_kib, it.xfer_kib, it.wrrd_s, it.total_s) == (10158080000.0, 8192.0, 327.45, 327.63)
    assert of(parsed, IorSummary) == []


def test_v32_log_with_warnings_in_table():
    parsed = parse(FIXTURES / "sub92" / "ior_easy_write.txt")
    (test,) = of(parsed, IorTest)
    (it,) = of(parsed, IorIteration)
    (summary,) = of(parsed, IorSummary)
    assert parsed.tool_version == "3.2.0"
    assert (test.tasks, test.tasks_per_node, test.nodes) == (160, 16, 10)  # no "nodes" line before 3.3
    assert (test.transfer_bytes, test.block_bytes, test.sizes_from) == (16777216, 734003200000, "summary")
    assert (it.bw_mib_s, it.iops, it.latency_s, it.open_s) == (223562.0, None, None, 0.106599)
    assert (summary.bw_max_mib_s, summary.bw_mean_mib_s, summary.ops_max) == (223562.21, 223562.21, 13972.64)
    assert (summary.mean_time_s, summary.stonewall_time_s, summary.iterations) == (304.44645, None, 1)
    assert test.finished is True


def test_v31_log_with_tab_summary_block():
    parsed = parse(FIXTURES / "sub137" / "ior_easy_write.txt")
    (test,) = of(parsed, IorTest)
    (summary,) = of(parsed, IorSummary)
    assert parsed.tool_version == "3.1.0"
    assert test.command.endswith("-a MPIIO -o /home/dkrz/k202079/work/io-500/io-500-dev/datafiles//ior_easy/ior_file_easy")
    assert (test.api, test.tasks, test.tasks_per_node, test.nodes, test.file_per_proc) == ("MPIIO", 1200, 12, 100, True)
    assert (test.transfer_bytes, test.block_bytes) == (2097152, 21474836480)
    assert (summary.bw_max_mib_s, summary.ops_mean, summary.mean_time_s) == (41897.31, 20948.66, 586.577)
    assert of(parsed, IorIteration)[0].bw_mib_s == 41897.0


def test_v33alpha1_log():
    parsed = parse(FIXTURES / "sub204" / "ior_easy_write.txt")
    (test,) = of(parsed, IorTest)
    (summary,) = of(parsed, IorSummary)
    assert parsed.tool_version == "3.3alpha1"
    assert (test.tasks, test.nodes, test.block_bytes) == (240, 10, 15728640000)
    assert (summary.bw_max_mib_s, summary.ops_max) == (4417.05, 2208.52)


def test_warning_before_banner_and_wide_value():
    text = read(FIXTURES / "sub454" / "ior-easy-write.txt")
    assert text.startswith("WARNING: fsync() not supported")
    parsed = parse(FIXTURES / "sub454" / "ior-easy-write.txt")
    (test,) = of(parsed, IorTest)
    (it,) = of(parsed, IorIteration)
    assert (test.api, test.transfer_bytes) == ("IME", 2097152)
    assert (it.bw_mib_s, it.iops, it.block_kib, it.xfer_kib) == (957128.0, 479168.0, 10158080000.0, 2048.0)


# --- IOR 4.1.0+dev built here -----------------------------------------------------------------

def test_built_text_three_iterations():
    parsed = parse(BUILT / "ior_posix_fpp_1m_np2_i3.log")
    writes = [i.bw_mib_s for i in of(parsed, IorIteration) if i.access == "write"]
    write = next(s for s in of(parsed, IorSummary) if s.access == "write")
    assert writes == [207.19, 1098.75, 1196.93]
    assert (write.bw_mean_mib_s, write.bw_std_mib_s, write.iterations) == (834.29, 445.24, 3)
    assert of(parsed, IorTest)[0].repetitions == 3


def test_built_script_with_three_tests():
    parsed = parse(BUILT / "ior_script_multi_test_np2.log")
    tests = of(parsed, IorTest)
    assert [(t.ior_test_id, t.api, t.transfer_bytes, t.segments, t.file_per_proc) for t in tests] == [
        (0, "POSIX", 1048576, 1, False), (1, "POSIX", 262144, 1, True), (2, "MPIIO", 47008, 100, False)]
    summaries = {(s.test_index, s.access): s for s in of(parsed, IorSummary)}
    assert len(summaries) == 6
    assert summaries[2, "read"].ops_max == 157977.55 and summaries[1, "write"].bw_min_mib_s == 5606.42
    assert [i.bw_mib_s for i in of(parsed, IorIteration) if i.test_index == 2 and i.access == "write"] == [
        339.82, 559.47]


def test_built_verbose_keeps_remove_rows():
    parsed = parse(BUILT / "ior_verbose_vv_posix_shared_np2.log")
    removes = [i for i in of(parsed, IorIteration) if i.access == "remove"]
    assert [(r.iteration, r.total_s, r.bw_mib_s) for r in removes] == [(0, 0.001137, None), (1, 0.000993, None)]
    assert next(s for s in of(parsed, IorSummary) if s.access == "read").bw_max_mib_s == 23530.46


def test_built_stonewall_summary_columns():
    parsed = parse(BUILT / "ior_stonewall_D2_wearout_fpp_np2.log")
    (summary,) = of(parsed, IorSummary)
    assert (summary.stonewall_time_s, summary.stonewall_bw_mib_s) == (0.36, 180.28)
    assert of(parsed, IorTest)[0].stonewall_s == 2


def test_built_json():
    parsed = parse(BUILT / "ior_json_posix_fpp_1m_np2_i3.log")
    (test,) = of(parsed, IorTest)
    assert parsed.format == "ior-json" and parsed.tool_version == "4.1.0+dev"
    assert (test.tasks, test.nodes, test.transfer_bytes, test.block_bytes) == (2, 1, 1048576, 16777216)
    assert [(i.access, i.iteration, i.bw_mib_s) for i in of(parsed, IorIteration)][:3] == [
        ("write", 0, 299.7209), ("read", 0, 22810.6268), ("write", 1, 960.3306)]
    write = next(s for s in of(parsed, IorSummary) if s.access == "write")
    assert (write.bw_max_mib_s, write.bw_std_mib_s, write.ops_mean, write.iterations) == (
        1007.0433, 322.9882, 755.6983, 3)


def test_json_duplicate_keys_keep_the_first():
    assert ior_json._first_wins([("blockSize", 16777216), ("bwMaxMIB", 1.0), ("blockSize", 0)]) == {
        "blockSize": 16777216, "bwMaxMIB": 1.0}


def test_built_summary_csv():
    parsed = parse(BUILT / "ior_csv_posix_fpp_1m_np2_i3.log")
    (test,) = of(parsed, IorTest)
    its = of(parsed, IorIteration)
    assert parsed.format == "ior-csv-summary"
    assert (test.tasks, test.block_bytes, test.transfer_bytes, test.repetitions) == (2, 16777216, 1048576, 3)
    assert (its[-1].access, its[-1].iteration, its[-1].bw_mib_s, its[-1].close_s) == ("read", 2, 18968.0226, 0.0002)


def test_rank_csv_iterations_and_units():
    parsed = parse(BUILT / "ior_rankdetails_csv_np2.rank.csv")
    ranks = of(parsed, IorRank)
    assert parsed.format == "ior-rank-csv" and len(ranks) == 8
    assert [(r.access, r.rank, r.iteration) for r in ranks[:5]] == [
        ("write", 0, 0), ("write", 1, 0), ("read", 0, 0), ("read", 1, 0), ("write", 0, 1)]
    assert ranks[0].bw_mib_s == pytest.approx(3.2830736583e08 / 2**20)  # CSV: bytes/s
    assert ranks[0].time_s == 2.5551080704e-02
    (test,) = of(parsed, IorTest)
    assert (test.tasks, test.repetitions) == (2, 2)


def test_archive_rank_csv_200_ranks():
    parsed = parse(FIXTURES / "sub679" / "ior-easy-write.csv")
    ranks = of(parsed, IorRank)
    assert len(ranks) == 200 and {r.iteration for r in ranks} == {0}
    assert ranks[0].time_with_openclose_s == 327.59371901


# --- several IOR runs in one file --------------------------------------------------------------

def test_concatenated_runs_in_one_file():
    parsed = parse(ARCHIVE / "DKRZ/Mistral/lustre02/2019/submission-109/JCAHPC-17/jcahpc"
                   / "io500-results-2048-8.227609/ior_easy")
    assert [(t.test_index, t.run_index, t.tasks, t.nodes) for t in of(parsed, IorTest)] == [
        (0, 0, 16384, 2048), (1, 1, 16384, 2048)]
    assert [(i.access, i.bw_mib_s) for i in of(parsed, IorIteration)] == [("write", 757593.0), ("read", 454589.0)]


def test_io500_script_output_with_mdtest_between():
    parsed = parse(ARCHIVE / "Janelia Research Campus, HHMI/qflash/Qumulo Core/2019/submission-198/output.txt")
    assert [t.command.split()[1:3] for t in of(parsed, IorTest)] == [
        ["-t", "1m"], ["-B", "-s"], ["-t", "1m"], ["-B", "-s"]]
    assert [s.bw_max_mib_s for s in of(parsed, IorSummary)][0] == 9976.40


# --- IOR 2.10.3 built here (tests/fixtures/ior/ior2-built-here: BUILD.md, MANIFEST.tsv) ---------------

HERE2 = FIXTURES / "ior2-built-here"


def test_ior2_summary_rows_with_their_parameter_columns():
    parsed = parse_file(HERE2 / "ior2_posix_fpp_v_np2.log")
    (test,) = of(parsed, IorTest)
    write, read_ = of(parsed, IorSummary)
    assert (parsed.format, parsed.tool_version) == ("ior-text", "2.10.3")
    assert test.command == "IOR -a POSIX -b 4m -t 1m -i 3 -F -v -o fpp"
    assert test.began == "Wed Nov 25 05:54:12 2026"
    assert (test.api, test.tasks, test.tasks_per_node, test.nodes, test.segments) == ("POSIX", 2, 2, 1, 1)
    # line 45: "... 2 2 3 1 0 1 0 0 1 4194304 1048576 8388608 -1 POSIX EXCEL"
    assert (test.transfer_bytes, test.block_bytes, test.sizes_from) == (1048576, 4194304, "summary")
    assert (test.file_per_proc, test.repetitions, test.finished) == (True, 3, True)
    assert test.ordering_in_file == "sequential offsets"
    # lines 45-46, and the "Max Write:" / "Max Read:" lines 48-49 that repeat the best iteration
    assert (write.access, write.bw_max_mib_s, write.bw_min_mib_s, write.bw_mean_mib_s, write.bw_std_mib_s) == (
        "write", 9403.61, 4536.63, 6984.41, 1987.04)
    assert (write.ops_max, write.ops_std, write.mean_time_s, write.iterations) == (9403.61, 1987.04, 0.00125, 3)
    assert (read_.access, read_.bw_max_mib_s, read_.ops_mean) == ("read", 32514.11, 20652.82)
    assert (write.stonewall_time_s, write.stonewall_bw_mib_s) == (None, None)
    assert of(parsed, IorIteration) == []  # IOR 2 prints its iteration table only with -vv


def test_ior2_iteration_rows_end_in_xxcel():
    parsed = parse_file(HERE2 / "ior2_posix_shared_vv_np2.log")
    its = of(parsed, IorIteration)
    (test,) = of(parsed, IorTest)
    # lines 33, 38, 43, 48: "write     1012.10    4096       256.00     0.000071 ... 0    XXCEL"
    assert [(i.access, i.iteration, i.bw_mib_s) for i in its] == [
        ("write", 0, 1012.10), ("read", 0, 11086.0), ("write", 1, 3501.26), ("read", 1, 16179.0)]
    assert (its[0].block_kib, its[0].xfer_kib, its[0].open_s, its[0].total_s) == (4096.0, 256.0, 0.000071, 0.007904)
    assert (its[0].iops, its[0].latency_s) == (None, None)  # not in IOR 2's table
    assert (test.transfer_bytes, test.file_per_proc) == (262144, False)
    assert [s.bw_max_mib_s for s in of(parsed, IorSummary)] == [3501.26, 16178.74]


def test_ior2_without_verbose_takes_sizes_from_the_summary_block():
    parsed = parse_file(HERE2 / "ior2_posix_default_np2.log")
    (test,) = of(parsed, IorTest)
    write, read_ = of(parsed, IorSummary)
    # lines 8-16: "api = POSIX", "clients = 2 (2 per node)", "repetitions = 1", "xfersize = 1 MiB", "blocksize = 8 MiB"
    assert (test.api, test.tasks, test.tasks_per_node, test.repetitions) == ("POSIX", 2, 2, 1)
    assert (test.transfer_bytes, test.block_bytes, test.sizes_from) == (2**20, 8 * 2**20, "options")
    assert test.segments is None  # no "pattern" line without -v
    assert (write.bw_max_mib_s, write.iterations, read_.bw_max_mib_s) == (3483.64, None, 16090.61)


def test_ior2_write_only_mpiio():
    parsed = parse_file(HERE2 / "ior2_mpiio_write_only_np2.log")
    (test,) = of(parsed, IorTest)
    (write,) = of(parsed, IorSummary)
    assert (test.api, test.file_per_proc, test.repetitions) == ("MPIIO", False, 2)  # "MPIIO (version=3, subversion=1)"
    assert (write.access, write.bw_max_mib_s, write.bw_mean_mib_s) == ("write", 3166.07, 2458.89)


def test_ior2_script_prints_a_banner_per_test():
    """IOR 2 prints its banner, "Run began" and command line again for each test of a script, and "Run finished"
    once at the end: the two tests are one IOR run (run_index 0), and both reached IOR's end."""
    parsed = parse_file(HERE2 / "ior2_script_two_tests_np2.log")
    tests = of(parsed, IorTest)
    assert [(t.test_index, t.run_index, t.transfer_bytes, t.file_per_proc, t.finished) for t in tests] == [
        (0, 0, 524288, False, True), (1, 0, 1048576, True, True)]
    assert {t.command for t in tests} == {"IOR -f /tmp/ior2run/runs/ior2_script_two_tests.ior"}
    assert [(s.test_index, s.access, s.bw_max_mib_s) for s in of(parsed, IorSummary)] == [
        (0, "write", 4090.50), (0, "read", 11713.79), (1, "write", 7064.35), (1, "read", 20098.89)]


def test_ior2_runs_appended_to_one_log_stay_separate_runs():
    """Two IOR 2 runs appended to one file (each ends in "Run finished"): two runs, not one script."""
    text = read(HERE2 / "ior2_posix_fpp_v_np2.log") + read(HERE2 / "ior2_posix_fpp_v_np2.log")
    parsed = ior_text.parse_text(text)
    assert [(t.test_index, t.run_index, t.finished) for t in of(parsed, IorTest)] == [(0, 0, True), (1, 1, True)]


def test_ior2_error_before_the_banner_is_a_failed_ior_run():
    with pytest.raises(ParseError) as e:
        parse_file(HERE2 / "ior2_error_bad_block_size_np2.log")
    # line 10, after Open MPI's abort banner (stderr and stdout interleave) and "** error **": IOR 2's ERR() message
    assert e.value.line == 10
    assert e.value.reason == ("IOR stopped with an error before any result: "
                              "ERROR in IOR.c (line 2350): block size must be a multiple of transfer size.")


def test_ior2_summary_cut_before_its_max_lines_is_refused():
    lines = read(HERE2 / "ior2_posix_fpp_v_np2.log").splitlines(keepends=True)
    with pytest.raises(ParseError) as e:
        ior_text.parse_text("".join(lines[:47]))  # stops after the summary rows (45-46), before "Max Write:" (48)
    assert e.value.line == 47 and "Max Write" in e.value.reason and "truncated" in e.value.reason
    with pytest.raises(ParseError) as e:
        ior_text.parse_text("".join(lines[:45]))  # the write row without the read row nor its Max lines
    assert "Max Write" in e.value.reason


def test_ior2_max_line_must_agree_with_the_summary_row():
    text = read(HERE2 / "ior2_posix_fpp_v_np2.log").replace("Max Read:  32514.11", "Max Read:  32514.12")
    with pytest.raises(ParseError) as e:
        ior_text.parse_text(text)
    assert e.value.line == 49 and "32514.12" in e.value.reason


@pytest.mark.slow
def test_ior2_ingest_stores_rows_and_a_cut_copy_is_never_plain_ok(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir(), cut.mkdir()
    for name in ("ior2_posix_fpp_v_np2.log", "ior2_posix_shared_vv_np2.log", "ior2_error_bad_block_size_np2.log"):
        shutil.copy(HERE2 / name, whole / name)
    data = (HERE2 / "ior2_posix_shared_vv_np2.log").read_bytes()
    (cut / "cut_in_summary.log").write_bytes(data[: data.index(b"read        16178")])  # cut after the write row
    (cut / "cut_in_last_line.log").write_bytes(data.rstrip(b"\n")[:-3])  # "Run finished: ... 20" (year cut)
    ingest([whole], tmp_path / "whole.duckdb", progress=False)
    ingest([cut], tmp_path / "cut.duckdb", progress=False)
    con = duckdb.connect(str(tmp_path / "whole.duckdb"), read_only=True)
    rows = dict(con.execute("""SELECT regexp_extract(path, '[^/]*$'), status || ':' || coalesce(format, '')
                                FROM sources""").fetchall())
    counts = con.execute("""SELECT count(*) FILTER (WHERE access = 'write'), count(*) FROM raw_ior_summary""").fetchone()
    iterations = con.execute("SELECT count(*) FROM raw_ior_iterations").fetchone()[0]
    con.close()
    assert rows == {"ior2_posix_fpp_v_np2.log": "ok:ior-text", "ior2_posix_shared_vv_np2.log": "ok:ior-text",
                    "ior2_error_bad_block_size_np2.log": "error:ior-stdout"}
    assert counts == (2, 4) and iterations == 4
    con = duckdb.connect(str(tmp_path / "cut.duckdb"), read_only=True)
    cuts = dict(con.execute("""SELECT regexp_extract(path, '[^/]*$'), status || ': ' || error
                                FROM sources""").fetchall())
    con.close()
    assert cuts["cut_in_summary.log"].startswith("error: ") and "Max Write" in cuts["cut_in_summary.log"]
    assert cuts["cut_in_last_line.log"].startswith("ok: truncated: line 58 ends without a newline")


# --- errors ------------------------------------------------------------------------------------

def test_error_run_names_the_error_line():
    with pytest.raises(ParseError) as e:
        parse(BUILT / "ior_error_nonexistent_dir_np2.log")
    assert e.value.line == 34 and "open64" in e.value.reason


# IOR 4.1.0+dev built here (tests/fixtures/ior/built-here/MANIFEST.tsv gives each command and exit status)

def test_stdout_of_a_summary_file_run_is_ior_output_without_rows():
    """-O summaryFile= sends all of IOR's result output to that file: stdout keeps its 'Writing output to' line."""
    parsed = parse_file(HERE / "ior_summaryfile_json_np2.log")
    assert (parsed.format, parsed.tool, parsed.records, parsed.tables) == ("ior-stdout", "ior", [], {})


def test_the_summary_file_is_read_as_its_own_ior_json():
    parsed = parse_file(HERE / "ior_summaryfile_json_np2.summary.json")
    (test,) = of(parsed, IorTest)
    assert (parsed.format, test.tasks, test.transfer_bytes, test.block_bytes) == ("ior-json", 2, 2**20, 16 * 2**20)
    assert "summaryFile=" in test.command and test.finished
    # lines 80-97: "access": "write", "bwMiB": 1679.5271 ... "access": "read", "bwMiB": 37553.9250
    assert [(i.access, i.bw_mib_s) for i in of(parsed, IorIteration)] == [("write", 1679.5271), ("read", 37553.9250)]
    assert [(s.access, s.bw_max_mib_s) for s in of(parsed, IorSummary)] == [("write", 1679.5271), ("read", 37553.9250)]


def test_bad_block_size_run_is_an_ior_failed_run_with_its_message():
    with pytest.raises(ParseError) as e:
        parse_file(HERE / "ior_error_bad_block_size_np2.log")
    # line 1, before any banner: IOR's ERROR line, the same on both ranks
    assert e.value.line == 1
    assert e.value.reason == ("IOR stopped with an error before any result: "
                              "ERROR: block size must be a multiple of transfer size, (ior.c:1513)")


def test_summary_file_run_that_failed_is_an_ior_failed_run():
    with pytest.raises(ParseError) as e:
        parse_file(HERE / "ior_summaryfile_error_nonexistent_dir_np2.log")
    # line 9 'Writing output to ...', line 11 the first 'ERROR: open64(...' (after Open MPI's abort banner)
    assert e.value.line == 11 and e.value.reason.startswith("IOR stopped with an error before any result: ERROR: open64(")


def test_truncated_header():
    lines = read(FIXTURES / "sub92" / "ior_easy_write.txt").splitlines(keepends=True)
    with pytest.raises(ParseError) as e:
        ior_text.parse_text("".join(lines[:12]))  # stops in "Options:"
    assert e.value.line == 12 and "truncated" in e.value.reason


def test_truncated_result_row():
    lines = read(FIXTURES / "sub92" / "ior_easy_write.txt").splitlines(keepends=True)
    with pytest.raises(ParseError) as e:
        ior_text.parse_text("".join(lines[:37]) + lines[37][:25])
    assert e.value.line == 38 and "fields" in e.value.reason


def test_truncated_json():
    text = read(BUILT / "ior_json_posix_fpp_1m_np2_i3.log")
    with pytest.raises(ParseError) as e:
        ior_json.parse_json(text[:2000])
    assert e.value.line == text[:2000].count("\n") + 1 and "JSON" in e.value.reason


def test_rank_csv_bad_number():
    lines = read(BUILT / "ior_rankdetails_csv_np2.rank.csv").splitlines()
    with pytest.raises(ParseError) as e:
        ior_csv.parse_rank_csv("\n".join(lines[:3] + [lines[3].replace("e-03", "x")]))
    assert e.value.line == 4


@pytest.mark.parametrize("path", [FIXTURES / "sub679" / "ior-easy-write.csv", BUILT / "ior_rankdetails_csv_np2.rank.csv"])
def test_rank_csv_fast_read_agrees_with_the_checked_one(path, monkeypatch):
    text = read(path)
    assert ior_csv._read_fast(text.partition("\n")[2]) is not None
    fast = ior_csv.parse_rank_csv(text)
    monkeypatch.setattr(ior_csv, "_read_fast", lambda body: None)
    checked = ior_csv.parse_rank_csv(text)
    assert checked.tables[IorRank].equals(fast.tables[IorRank]) and checked.records == fast.records


# Arrow's CSV reader trims spaces and tabs around a number and ends a line at \r; a cast does neither.
@pytest.mark.parametrize("old, new, line, reason", [
    ("2.5551080704e-02", " 2.5551080704e-02", 2, "CSV row holds a value that is not a number"),
    ("2.5551080704e-02", "2.5551080704e-02\t", 2, "CSV row holds a value that is not a number"),
    ("write,1,", "write,1 ,", 3, "CSV row holds a value that is not a number"),
    ("write,1,", "write,1\r", 3, "CSV row has 5 fields, header 6"),
])
def test_rank_csv_refuses_what_a_csv_reader_would_trim(old, new, line, reason):
    text = read(BUILT / "ior_rankdetails_csv_np2.rank.csv").replace(old, new, 1)
    with pytest.raises(ParseError) as e:
        ior_csv.parse_rank_csv(text)
    assert (e.value.line, e.value.reason) == (line, reason)


def test_rank_csv_reads_what_a_cast_reads():
    text = read(BUILT / "ior_rankdetails_csv_np2.rank.csv").replace("2.5551080704e-02", "+.025551080704")
    assert of(ior_csv.parse_rank_csv(text), IorRank)[0].time_s == 2.5551080704e-02


# --- the views ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ior")
    for source in (BUILT, FIXTURES / "sub679"):
        shutil.copytree(source, folder / source.name)
    path = folder / "ior.duckdb"
    ingest([folder / BUILT.name, folder / "sub679"], path, progress=False)
    con = duckdb.connect(str(path), read_only=True)
    yield con
    con.close()


@pytest.mark.slow
def test_views_link_rank_csv_to_its_log(db):
    rows = db.execute("""
        SELECT s.path, r.test_id = t.test_id, count(*)
        FROM ior_ranks r JOIN ior_tests t ON t.rank_csv IS NOT NULL
        JOIN sources s ON s.source_id = t.source_id
        WHERE regexp_extract(t.rank_csv, '[^/]*$') = regexp_extract((SELECT path FROM sources
              WHERE source_id = r.csv_source_id), '[^/]*$')
        GROUP BY ALL ORDER BY 1""").fetchall()
    assert sorted((Path(p).name, linked, n) for p, linked, n in rows) == [
        ("ior-easy-write.txt", True, 200), ("ior_rankdetails_csv_np2.log", True, 8)]
    assert db.execute("SELECT count(*) FROM ior_tests WHERE layout = 'rank-csv'").fetchone() == (0,)


@pytest.mark.slow
def test_views_summary_from_log_or_iterations(db):
    got = db.execute("""
        SELECT t.layout, s.access, s.summary_from, round(s.bw_mean_mib_s, 4), round(s.bw_std_mib_s, 4), s.iterations
        FROM ior_summary s JOIN ior_tests t USING (test_id) JOIN sources so ON so.source_id = t.source_id
        WHERE so.path LIKE '%ior_csv_posix%' OR so.path LIKE '%ior_posix_fpp%' OR so.path LIKE '%sub679%'
        ORDER BY 1, 2, 3""").fetchall()
    # IOR's own statistics: mean and population standard deviation of the iterations' bandwidths.
    csv_read, csv_write = [18223.7241, 18108.1662, 18968.0226], [256.8692, 1240.9298, 1149.4295]
    assert got == [
        ("csv-summary", "read", "iterations", round(fmean(csv_read), 4), round(pstdev(csv_read), 4), 3),
        ("csv-summary", "write", "iterations", round(fmean(csv_write), 4), round(pstdev(csv_write), 4), 3),
        ("text", "read", "log", 17562.73, 1309.59, 3),
        ("text", "write", "iterations", 109172.0, 0.0, 1),
        ("text", "write", "log", 834.29, 445.24, 3),
    ]


@pytest.mark.slow
def test_views_iterations_and_tests(db):
    row = db.execute("""
        SELECT t.tasks, t.nodes, t.transfer_bytes, t.block_bytes, i.bw_mib_s, i.iops
        FROM ior_tests t JOIN ior_iterations i USING (test_id) JOIN sources s ON s.source_id = t.source_id
        WHERE s.path LIKE '%sub679/ior-easy-write.txt'""").fetchall()
    assert row == [(200, 10, 8388608, 10401873920000, 109172.0, 13654.0)]


# --- fuzz: damaged real files raise ParseError or parse ----------------------------------------

FUZZ_FILES = [
    FIXTURES / "sub679" / "ior-easy-write.txt", FIXTURES / "sub137" / "ior_easy_write.txt",
    BUILT / "ior_script_multi_test_np2.log", BUILT / "ior_json_posix_fpp_1m_np2_i3.log",
    BUILT / "ior_csv_posix_fpp_1m_np2_i3.log", BUILT / "ior_rankdetails_csv_np2.rank.csv",
    FIXTURES / "ior2-built-here" / "ior2_posix_shared_vv_np2.log",
    FIXTURES / "ior2-built-here" / "ior2_script_two_tests_np2.log",
]
PARSERS = (ior_text.parse_text, ior_json.parse_json, ior_csv.parse_summary_csv, ior_csv.parse_rank_csv)


def damaged(data: bytes, draw) -> str:
    kind = draw(st.sampled_from(["truncate", "drop", "flip"]))
    if kind == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif kind == "drop":
        lines = data.splitlines(keepends=True)
        drop = set(draw(st.lists(st.integers(0, len(lines) - 1), max_size=5)))
        data = b"".join(line for i, line in enumerate(lines) if i not in drop)
    else:
        buf = bytearray(data)
        for _ in range(draw(st.integers(1, 8))):
            buf[draw(st.integers(0, len(buf) - 1))] ^= draw(st.integers(1, 255))
        data = bytes(buf)
    return data.decode("utf-8", errors="replace")


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FUZZ_FILES), st.data())
def test_damaged_files_raise_only_parse_error(path, data):
    text = damaged(path.read_bytes(), data.draw)
    for parse_fn in PARSERS:
        try:
            parse_fn(text)
        except ParseError as e:
            assert e.line is None or e.line >= 1


def test_ior2_output_rewrapped_by_mail_is_a_failure_with_its_reason():
    """IOR 2.10 output pasted into a mail and re-wrapped at ~70 columns (fixtures/ior/ior2-mail/Best.txt,
    sebhtml/lustre-benchmarks IOR/Best.txt, SOURCES.md): no banner, its summary rows split over three lines.
    It is not IOR's unmodified output, so it is not read, but it is recorded as failed with the line of its
    summary header (line 58 of the file), never skipped as "not a log"."""
    from iobook.database.parsing import parse_bytes

    path = Path(__file__).resolve().parent / "fixtures" / "ior" / "ior2-mail" / "Best.txt"
    outcome = parse_bytes(str(path), path.read_bytes())
    assert (outcome.row["status"], outcome.row["tool"]) == ("error", "ior")
    assert outcome.row["error_line"] == 58
    assert "wrapped" in outcome.row["error"]
    assert outcome.records == []


def test_rank_0s_node_is_read_from_the_machine_line():
    """IOR prints uname's sysname and nodename as "Machine" (text: 'Machine : Linux vm'; JSON: "Machine": "Linux
    vm", built-tools/ior of this repository's shared fixtures): History keeps one machine's runs a history of their
    own by it (issue 38)."""
    for name in ("ior_posix_fpp_1m_np2_i3.log", "ior_json_posix_fpp_1m_np2_i3.log"):
        tests = of(parse_file(BUILT / name), IorTest)
        assert tests and {t.host for t in tests} == {"vm"}, name
    (tucson,) = ARCHIVE.glob("IBM Tucson/*/*/2023/submission-679/results/*/ior-easy-write.txt")
    assert {t.host for t in of(parse_file(tucson), IorTest)} == {"arches1"}  # 'Machine : Linux arches1'
    assert machine_host("Linux vm 6.18.44-fc-v595 #1 SMP PREEMPT_DYNAMIC @0 x86_64") == "vm"


@pytest.mark.slow
def test_a_latency_column_that_holds_the_phase_time_is_flagged(tmp_path):
    """Issue 47: IOR 3.3.0+dev printed 260.05 in CSIRO's 2020 ior_hard_read.txt's Latency(s) column beside wr/rd 260.13 s
    (180,000 segments of one 47,008-byte transfer a rank): no time per operation, and Your runs showed 260,050 ms.
    Built-tools' IOR 4.1 log (ior_posix_fpp_1m_np2_i3.log) prints a real one."""
    csiro = ARCHIVE / "CSIRO" / "bracewell" / "scratch2" / "2020" / "submission-47" / "ior_hard_read.txt"
    db = tmp_path / "latency.duckdb"
    ingest([csiro, BUILT / "ior_posix_fpp_1m_np2_i3.log"], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT s.path, i.latency_s, i.latency_is_phase_time FROM ior_iterations i "
                           "JOIN ior_tests t USING (test_id) JOIN sources s ON s.source_id = t.source_id "
                           "WHERE i.access IN ('write', 'read')").fetchall()
        shown = con.execute("SELECT count(*) FROM ior_iterations WHERE latency_is_phase_time").fetchone()[0]
    flagged = {Path(p).name: (lat, flag) for p, lat, flag in rows if flag}
    assert flagged == {"ior_hard_read.txt": (260.05, True)} and shown == 1
    assert not any(flag for p, _, flag in rows if Path(p).name == "ior_posix_fpp_1m_np2_i3.log")
