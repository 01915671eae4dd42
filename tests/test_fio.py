"""fio parser: exact values from real fio output (fixtures made here by scripts/make_fio_fixtures.sh
with Debian's fio 3.33, and fio 2.x files copied from public repositories, see SOURCES.md)."""
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import DETECT_BYTES, ParseError, detect, fio_json, fio_log, fio_records, fio_text

FIX = Path(__file__).resolve().parent / "fixtures" / "fio"


def parsed(name: str):
    text = (FIX / name).read_text(encoding="utf-8")
    fmt = detect(text[:DETECT_BYTES])
    assert fmt is not None and fmt.tool == "fio", name
    return fmt.parse(text)


def jobs(p) -> list:
    return sorted((r for r in p.records if isinstance(r, fio_records.FioJob)), key=lambda j: j.job_index)


def io(p, jobname: str, direction: str, nth: int = 0) -> fio_records.FioIO:
    index = [j.job_index for j in jobs(p) if j.jobname == jobname][nth]
    (row,) = [r for r in p.records if isinstance(r, fio_records.FioIO) and r.job_index == index and r.direction == direction]
    return row


def pct(p, job_index: int, direction: str, percentile: float) -> float:
    (v,) = [r.value_ns for r in p.records if isinstance(r, fio_records.FioPercentile) and r.job_index == job_index
            and r.direction == direction and r.percentile == percentile and r.latency == "clat"]
    return v


def test_json_333_multi_job_groups():
    p = parsed("fio333-multi.json")
    assert (p.format, p.tool_version) == ("fio-json", "3.33")
    assert [(j.jobname, j.groupid, j.rw, j.bs, j.numjobs, j.ioengine) for j in jobs(p)] == [
        ("seq-write", 0, "write", "64k", None, "psync"), ("seq-read", 1, "read", "64k", None, "psync"),
        ("randrw-4k", 2, "randrw", "4k", 2, "psync"), ("randrw-4k", 2, "randrw", "4k", 2, "psync"),
        ("randread-aio", 2, "randread", "16k", None, "libaio")]
    w = io(p, "seq-write", "write")
    assert (w.io_bytes, w.bw_bytes_s, w.iops, w.lat_mean_ns) == (4194304, 2097152000, 32000.0, 9455.765625)
    assert (pct(p, 0, "write", 50), pct(p, 0, "write", 99.9)) == (8384, 32640)
    second = io(p, "randrw-4k", "write", nth=1)
    assert (second.io_bytes, second.bw_bytes_s, second.lat_mean_ns) == (2170880, 15396312, 9147.033962)
    assert (jobs(p)[3].usr_cpu_pct, jobs(p)[3].sys_cpu_pct) == (2.142857, 19.285714)
    assert jobs(p)[4].iodepth == 4


def test_jsonplus_keeps_latency_bins():
    p = parsed("fio333-multi.jsonplus.json")
    assert p.format == "fio-json+"
    bins = [b for b in p.records if isinstance(b, fio_records.FioLatencyBin) and b.job_index == 0]
    assert sum(b.count for b in bins) == 64  # seq-write: 4 MiB in 64 KiB writes
    assert {b.direction for b in bins} == {"write"}


def test_json_noise_lines_before_and_errors():
    p = parsed("fio333-noise-before.json")
    assert [j.jobname for j in jobs(p)] == ["noisy"] and io(p, "noisy", "read").io_bytes == 2097152
    path_error = parsed("fio333-error-path.json")
    assert [(j.jobname, j.error, j.runtime_s) for j in jobs(path_error)] == [("broken-path", 20, None)]
    assert not [r for r in path_error.records if isinstance(r, fio_records.FioIO)]
    assert [j.error for j in jobs(parsed("fio333-error-trim.json"))] == [25]  # ENOTTY: trim of a plain file


def test_json_2x_units_usec_and_kib():
    p = parsed("fio2-pkb-hist-fio.json")
    assert (p.format, p.tool_version) == ("fio-json", "2.17")
    job = jobs(p)[0]
    assert (job.rw, job.bs, job.iodepth, job.numjobs, job.direct, job.ioengine) == ("randread", "16k", 1, 2, 1, "libaio")
    r = io(p, "rand_16k_read_100%-io-depth-1-num-jobs-2", "read")
    assert r.io_bytes == 1294256 * 1024  # fio 2.x "io_bytes" is KiB
    assert r.bw_bytes_s == 129386 * 1024 and r.iops == 8086.673998 and job.runtime_s == 10.003
    assert r.lat_mean_ns == pytest.approx(245531.122) and r.lat_max_ns == 12179000
    assert (pct(p, 0, "read", 50), pct(p, 0, "read", 99.9)) == (96000, 1896000)
    assert len([x for x in p.records if isinstance(x, fio_records.FioPercentile) and x.job_index == 0]) == 19


def test_normal_333_units_and_groups():
    p = parsed("fio333-multi.normal.txt")
    assert (p.format, p.tool_version) == ("fio-normal", "3.33")
    w = io(p, "seq-write", "write")  # IOPS=32.0k, BW=2000MiB/s (4096KiB/2msec), lat (nsec) avg=17259.38
    assert (w.iops, w.bw_bytes_s, w.io_bytes, w.runtime_ms) == (32000, 2000 * 2**20, 4096 * 1024, 2)
    assert w.lat_mean_ns == pytest.approx(17259.38)
    r = io(p, "seq-read", "read")  # lat (usec): avg=149.26; clat percentiles (usec) 50.00th=[7]
    assert r.lat_mean_ns == pytest.approx(149260) and pct(p, 1, "read", 50) == 7000
    seq_write = jobs(p)[0]
    assert (seq_write.rw, seq_write.bs, seq_write.ioengine, seq_write.iodepth) == (
        "write", "(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB", "psync", 1)
    g = {(s.groupid, s.direction): s for s in p.records if isinstance(s, fio_records.FioGroupStatus)}
    assert g[2, "read"].bw_bytes_s == pytest.approx(70.5 * 2**20)  # bw=70.5MiB/s
    assert (g[2, "read"].io_bytes, g[2, "read"].run_min_ms, g[2, "read"].run_max_ms) == (8156 * 1024, 60, 113)


def test_normal_333_error_job_only_in_header():
    p = parsed("fio333-error-path.normal.txt")
    assert [(j.jobname, j.error, j.rw, j.groupid) for j in jobs(p)] == [("broken-path", 20, "write", 0)]


def test_normal_333_trim_on_loop_device():
    t = io(parsed("fio333-trim-loop.normal.txt"), "trim-loop", "trim")  # IOPS=9846, BW=615MiB/s (8192KiB/13msec)
    assert (t.iops, t.bw_bytes_s, t.io_bytes, t.runtime_ms) == (9846, 615 * 2**20, 8192 * 1024, 13)
    j = io(parsed("fio333-trim-loop.json"), "trim-loop", "trim")
    assert (j.io_bytes, j.bw_bytes_s, j.iops) == (8388608, 466033777, 7111.111111)


def test_normal_2x_aggrb_and_kb_is_1024():
    p = parsed("fio2-brucechin-HardwareTest-fio.log")
    assert (p.format, p.tool_version) == ("fio-normal", "2.2.10")
    r = io(p, "read4k-rand", "read")  # read : io=29854MB, bw=254727KB/s, iops=63647, runt=120014msec
    assert (r.io_bytes, r.bw_bytes_s, r.iops, r.runtime_ms) == (29854 * 2**20, 254727 * 1024, 63647, 120014)
    assert r.lat_mean_ns == pytest.approx(64336080) and pct(p, 0, "read", 50) == 62e6  # (msec) 50.00th=[62]
    seq = io(p, "read64k-seq", "read")  # lat (msec): min=87, max=8046
    assert (seq.lat_min_ns, seq.lat_max_ns) == (87e6, 8046e6)
    first = jobs(p)[0]
    assert (first.rw, first.bs, first.iodepth, first.numjobs, first.ioengine, first.usr_cpu_pct) == (
        "randread", "4K-4K/4K-4K/4K-4K", 128, 32, "libaio", 0.14)
    g = [s for s in p.records if isinstance(s, fio_records.FioGroupStatus)]
    assert [(s.groupid, s.direction, s.bw_bytes_s) for s in g][0] == (0, "read", 254726 * 1024)  # aggrb=254726KB/s


def test_terse_v3_v4_v5():
    p3 = parsed("fio333-multi.terse3.txt")
    assert (p3.format, len(jobs(p3))) == ("fio-terse-v3", 5)
    w = io(p3, "seq-write", "write")  # 4096 KiB; 2048000 KiB/s; 32000 IOPS; 2 ms; clat 1%=11 usec
    assert (w.io_bytes, w.bw_bytes_s, w.iops, w.runtime_ms) == (4194304, 2048000 * 1024, 32000, 2)
    assert pct(p3, 0, "write", 1) == 11000
    t4 = parsed("fio333-trimwrite-loop.terse4.txt")
    assert t4.format == "fio-terse-v4" and {r.direction for r in t4.records if isinstance(r, fio_records.FioIO)} == {
        "write", "trim"}
    assert io(t4, "trimwrite-loop", "write").bw_bytes_s == 512000 * 1024
    w5 = io(parsed("fio333-multi.terse5.txt"), "seq-write", "write")
    assert (w5.io_bytes, w5.bw_bytes_s, w5.iops, w5.runtime_ms) == (4194304, 4096000 * 1024, 64000, 1)


def test_log_detection_is_strict():
    assert fio_log._detect_log("0, 1293005, 1, 65536, 0\n62, 1500297, 1, 65536, 0\n")
    assert fio_log._detect_log("140, 1028, 0, 0\n")  # fio 2.x: four columns
    assert not fio_log._detect_log("0, 1, 2\n")
    assert not fio_log._detect_log("t_ms, value, ddir, bs\n0, 1, 1, 4096\n")
    assert not fio_log._detect_log("0, 1.5, 1, 4096, 0\n")
    with pytest.raises(ParseError) as e:
        fio_log.parse_log("0, 1, 1, 4096, 0\n5, 2, 1, 4096\n")
    assert e.value.line == 2


def test_unit_tables():
    assert fio_text._size("70.5", "MiB", fio_text.SIZE_3X, 1) == 70.5 * 2**20
    assert fio_text._size("4194", "kB", fio_text.SIZE_3X, 1) == 4194000
    assert fio_text._size("2097", "MB", fio_text.SIZE_3X, 1) == 2097 * 10**6
    assert fio_text._size("254727", "KB", fio_text.SIZE_2X, 1) == 254727 * 1024


@pytest.mark.slow
def test_series_logs_through_ingest(tmp_path):
    db = tmp_path / "fio.duckdb"
    counts = ingest([FIX / "logs-avg", FIX / "logs-raw"], db, progress=False)
    assert (counts["parsed"], counts["skipped"]) == (10, 2)  # the two empty slat logs (psync has no slat)
    con = store.open_read(db)
    rows = con.execute("""
        SELECT s.kind, s.direction, s.t_ms, s.value, s.value_unit, j.jobname
        FROM fio_series s JOIN fio_jobs j USING (job_id)
        WHERE s.kind = 'bw' ORDER BY j.jobname, s.t_ms, s.direction LIMIT 3""").fetchall()
    assert rows == [("bw", "read", 140, 1028, "KiB/s", "logged-randrw"),
                    ("bw", "write", 140, 1028, "KiB/s", "logged-randrw"),
                    ("bw", "read", 240, 1120, "KiB/s", "logged-randrw")]
    per_kind = con.execute("""SELECT kind, count(*), count(job_id) FROM fio_series
                              WHERE source_id IN (SELECT source_id FROM sources WHERE path LIKE '%logs-raw%')
                              GROUP BY kind ORDER BY kind""").fetchall()
    assert per_kind == [("bw", 16, 16), ("clat", 16, 16), ("iops", 16, 16), ("lat", 16, 16)]
    (lat_p50, io_bytes), = con.execute("""SELECT lat_p50_ns, io_bytes FROM fio_io JOIN fio_jobs USING (job_id)
                                          WHERE jobname = 'logged-write'""").fetchall()
    assert (io_bytes, lat_p50) == (1048576, 45312)  # clat_ns percentile 50.000000 in fio333-logs-raw.json


FUZZ_FILES = ["fio333-multi.normal.txt", "fio333-multi.terse4.txt", "fio333-multi.terse5.txt",
              "fio333-error-path.json", "fio2-brucechin-HardwareTest-fio.log", "logs-raw/raw_clat.1.log",
              "fio333-trim-loop.normal.txt", "fio2-pkb-hist-fio.json"]
TEXTS = [(FIX / f).read_text(encoding="utf-8") for f in FUZZ_FILES]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["cut", "drop", "flip"]))
        if kind == "cut":
            lines = "\n".join(lines)[: draw(st.integers(0, len(text)))].split("\n")
        elif kind == "drop" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
        elif lines:
            i = draw(st.integers(0, len(lines) - 1))
            if lines[i]:
                j = draw(st.integers(0, len(lines[i]) - 1))
                lines[i] = lines[i][:j] + draw(st.sampled_from("0.9;,:=%k{}[]\" xK")) + lines[i][j + 1:]
    return "\n".join(lines)


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_fuzz_only_parse_error(text):
    fmt = detect(text[:DETECT_BYTES])
    if fmt is not None and fmt.tool == "fio":
        try:
            fmt.parse(text)
        except ParseError:
            pass


def test_normal_and_json_output_of_one_run_reads_its_json():
    """`fio --output-format=normal,json` (exit 0) prints the normal job headers, the JSON document, then the
    normal result blocks of the same jobs: one run, read once from its JSON (SOURCES.md; values from
    fio333-normal-json.txt lines 72 and 276), not refused as two outputs holding the same records."""
    from iobook.database.parsing import parse_bytes

    outcome = parse_bytes("fio333-normal-json.txt", (FIX / "fio333-normal-json.txt").read_bytes())
    assert (outcome.row["status"], outcome.row["format"]) == ("ok", "fio-json"), outcome.row.get("error")
    found = sorted(r.jobname for r in outcome.records if isinstance(r, fio_records.FioJob))
    assert found == ["randread", "seqwrite"]  # each job once: the normal blocks are the same jobs
    by_job = {j.job_index: j.jobname for j in outcome.records if isinstance(j, fio_records.FioJob)}
    bw = {(by_job[r.job_index], r.direction): r.bw_bytes_s for r in outcome.records if isinstance(r, fio_records.FioIO)}
    assert bw == {("seqwrite", "write"): 1398101333.0, ("randread", "read"): 34379540.0}


@pytest.mark.slow
def test_terse_jobs_say_their_parameters_are_unknown_and_group_by_what_they_carry(tmp_path):
    """fio's terse output carries no job options (man fio, TERSE OUTPUT): a configuration of it can only be the
    job's name and the operations it did, never 'read' pooled over different jobs. fio333-multi.terse5.txt
    (the jobs of jobs/multi.fio, field 3 of each line: seq-write, seq-read, randrw-4k twice, randread-aio)
    against the JSON of the same job file, which states the options."""
    db = tmp_path / "terse.duckdb"
    ingest([FIX / "fio333-multi.terse5.txt", FIX / "fio333-multi.json"], db, progress=False)
    con = store.open_read(db)
    rows = con.execute("""
        SELECT j.jobname, j.parameters_stated, j.operations, j.unstated_key
        FROM fio_jobs j JOIN sources s USING (source_id)
        WHERE s.path LIKE '%terse5%' ORDER BY j.job_index""").fetchall()
    assert rows == [("seq-write", False, "write", "seq-write (write)"),
                    ("seq-read", False, "read", "seq-read (read)"),
                    ("randrw-4k", False, "read+write", "randrw-4k (read+write)"),
                    ("randrw-4k", False, "read+write", "randrw-4k (read+write)"),
                    ("randread-aio", False, "read", "randread-aio (read)")]
    stated = con.execute("""SELECT DISTINCT j.parameters_stated, j.unstated_key FROM fio_jobs j
                            JOIN sources s USING (source_id)
                            WHERE s.path LIKE '%multi.json'""").fetchall()
    assert stated == [(True, None)]


def _compact(text: str) -> str:
    """A fio JSON log as Python's json.dump would write it: fio's notes before the document kept, every document
    on one line, no final newline (what a user's post-processing script leaves)."""
    start = fio_json.JSON_START.search(text).start()
    decoder, pos, docs = json.JSONDecoder(), start, []
    while pos < len(text) and text.startswith("{", pos):
        doc, end = decoder.raw_decode(text, pos)
        docs.append(json.dumps(doc, separators=(",", ":")))
        pos = fio_json.NEXT_DOCUMENT.match(text, end).end()
    return text[:start] + "\n".join(docs) + text[pos:].rstrip("\n")


def _json_logs(*folders: Path) -> list[Path]:
    return sorted(p for folder in folders for p in folder.rglob("*") if p.is_file()
                  and detect(p.read_text(encoding="utf-8", errors="replace")[:DETECT_BYTES]) is not None
                  and detect(p.read_text(encoding="utf-8", errors="replace")[:DETECT_BYTES]).name == "fio-json")


def _same_records_compact(paths: list[Path]) -> None:
    from iobook.database.parsing import _parse

    assert paths
    for path in paths:
        data = path.read_bytes()
        indented = _parse({"path": str(path)}, data)
        compact = _parse({"path": str(path)}, _compact(data.decode("utf-8")).encode())
        assert indented.row["status"] == "ok" and indented.records, path
        assert (compact.row["status"], compact.row.get("error")) == ("ok", None), (path, compact.row)
        assert compact.records == indented.records, path


def test_every_fio_json_fixture_reads_the_same_compact_and_without_a_final_newline():
    """Issue 47: Python's json.dump writes no final newline (was: 'truncated ... invalid JSON'), and a compact
    one-line document was 'not a log format iobook reads'. The fixtures (fio 2.x and 3.33, json and json+, notes
    before the document) and data/examples' fio histories."""
    _same_records_compact(_json_logs(FIX, FIX.parents[2] / "data" / "examples"))


@pytest.mark.slow
def test_every_fio_json_of_data_raw_reads_the_same_compact_and_without_a_final_newline():
    _same_records_compact(_json_logs(FIX.parents[2] / "data" / "raw"))


def test_two_processes_without_group_reporting_are_one_job_of_numjobs_2():
    """Issue 47: fio's normal output prints a block per process (`jobs=1` each) without group_reporting; the text log
    got numjobs=1 while the JSON of the same job says numjobs 2, so the two became different configurations
    (fixtures: fio333-numjobs2.*, `--numjobs=2`, SOURCES.md)."""
    text, js = parsed("fio333-numjobs2.normal.txt"), parsed("fio333-numjobs2.json")
    assert [j.numjobs for j in jobs(text)] == [j.numjobs for j in jobs(js)] == [2, 2]


def test_a_verify_reads_cpu_is_a_share_of_the_jobs_runtime():
    """fio's usr_cpu and sys_cpu are percentages of the job's own run time ("job_runtime"), which a verify read
    outlasts: data/raw/checksum/vm-20261125T030550Z/022-read-crc32c-buffered-r2.fio.json, read runtime 933 ms, job
    runtime 1103 ms (issue 46: its CPU per GiB was computed over the 933)."""
    path = Path(__file__).resolve().parents[1] / "data" / "raw" / "checksum" / "vm-20261125T030550Z" \
        / "022-read-crc32c-buffered-r2.fio.json"
    text = path.read_text(encoding="utf-8")
    (job,) = jobs(detect(text[:DETECT_BYTES]).parse(text))
    assert (job.runtime_s, job.job_runtime_s) == (0.933, 1.103)
