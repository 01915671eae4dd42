"""Monitor parsers (vmstat, mpstat, /proc sampler, perf stat, df, btrfs usage, manifest): exact values from the runs the
collectors committed under data/raw/ (made on this project's build machine by scripts/collect_*.py)."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import DETECT_BYTES, ParseError, detect, monitor

RAW = Path(__file__).resolve().parents[1] / "data" / "raw"
CHECKSUM = RAW / "checksum" / "vm-20261121T131428Z"
PAGECACHE = RAW / "pagecache" / "vm-20261121T132329Z"

VMSTAT = CHECKSUM / "001-write-none-direct-r1.vmstat.txt"
MPSTAT = CHECKSUM / "001-write-none-direct-r1.mpstat.txt"
PERF = CHECKSUM / "003-write-crc32c-direct-r1.perf.txt"
PROC = PAGECACHE / "001-write-buffered-r1.proc.txt"
SNAPSHOTS = RAW / "snapshots" / "vm-20261123T160956Z"
DF = SNAPSHOTS / "c001-space-s0.df.txt"
BTRFS_USAGE = SNAPSHOTS / "c001-space-s0.btrfs-usage.txt"
MANIFEST = CHECKSUM / "manifest.json"
REAL_FILES = {"vmstat-text": VMSTAT, "mpstat-text": MPSTAT, "perf-stat-csv": PERF, "iobook-proc-sampler": PROC,
              "df-bytes": DF, "btrfs-usage-bytes": BTRFS_USAGE, "iobook-manifest": MANIFEST}


def parsed(path: Path):
    text = path.read_text(encoding="utf-8")
    fmt = detect(text[:DETECT_BYTES])
    assert fmt is not None
    return fmt.name, fmt.parse(text)


def samples(path: Path, metric: str, instance: str = "") -> list[tuple[float, float, str]]:
    _, p = parsed(path)
    return [(r.t_s, r.value, r.unit) for r in p.records if r.metric == metric and r.instance == instance]


@pytest.mark.parametrize("name,path", REAL_FILES.items())
def test_detected_by_content(name, path):
    assert parsed(path)[0] == name


def test_vmstat_drops_the_since_boot_line():
    # Line 3 (us 41) averages since boot; the first 1-second sample is line 4: us 96 at 13:14:29.
    assert samples(VMSTAT, "us") == [(0.0, 96.0, "%"), (1.0, 87.0, "%"), (2.0, 88.0, "%"), (3.0, 85.0, "%")]
    assert samples(VMSTAT, "bo")[1] == (1.0, 583696.0, "KiB/s")
    assert samples(VMSTAT, "free")[0] == (0.0, 22827456.0, "KiB")
    assert len(parsed(VMSTAT)[1].records) == 4 * 18  # r b swpd free buff cache si so bi bo in cs us sy id wa st gu


def test_mpstat_per_cpu_without_averages():
    assert samples(MPSTAT, "usr", "all")[0] == (0.0, 94.55, "%")
    assert samples(MPSTAT, "sys", "1")[1] == (1.0, 15.15, "%")
    assert [t for t, _, _ in samples(MPSTAT, "idle", "0")] == [0.0, 1.0, 2.0, 3.0]
    assert len(parsed(MPSTAT)[1].records) == 4 * 3 * 10  # 4 intervals, all + 2 CPUs, 10 columns


def test_perf_stat_marks_unsupported_counters():
    _, p = parsed(PERF)
    by_event = {r.event: r for r in p.records}
    assert by_event["task-clock"] == monitor.PerfCounter(event="task-clock", value=1738.68, unit="msec",
                                                         status="counted", running_pct=100.0)
    assert by_event["context-switches"].value == 2941.0
    assert by_event["instructions"] == monitor.PerfCounter(event="instructions", value=None, unit="",
                                                           status="not supported", running_pct=100.0)
    assert by_event["cycles"].status == "not supported"


def test_proc_sampler_reads_vmstat_and_cgroup_counters():
    _, p = parsed(PROC)
    memcg = [r for r in p.records if r.instance.endswith("/iobook-pagecache-29047/memory.stat")]
    assert (len(p.records), len(memcg)) == (1221, 297)
    assert samples(PROC, "nr_free_pages", "/proc/vmstat")[0] == (0.0, 1517465.0, "pages")
    # Buffered writes under the 1 GiB limit: the cgroup's dirty pages peak at 965 MiB, 13 s in.
    dirty_peak = max((r.value, r.t_s, r.unit) for r in memcg if r.metric == "dirty")
    assert dirty_peak[0] == 1011875840.0 and dirty_peak[1] == pytest.approx(13.035) and dirty_peak[2] == "bytes"
    assert [r.value for r in memcg if r.metric == "pgpgout"][-1] == 53359.0


def test_df_bytes_per_file_system():
    # c001-space-s0.df.txt line 2: "/dev/loop1     4294967296 140607488 3606052864   4% /tmp/iobook-snapshots-..."
    assert samples(DF, "used", "/dev/loop1") == [(0.0, 140607488.0, "bytes")]
    assert samples(DF, "size", "/dev/loop1")[0][1] == 4294967296.0
    assert samples(DF, "available", "/dev/loop1")[0][1] == 3606052864.0
    assert len(parsed(DF)[1].records) == 3  # the mount point (a path of the collecting machine) is not kept


def test_btrfs_usage_overall_and_block_groups():
    # c001-space-s0.btrfs-usage.txt: "    Used:\t\t\t         134840320", "    Metadata ratio:\t\t              2.00",
    # "Data,single: Size:444596224, Used:134217728 (30.19%)", "Metadata,DUP: Size:268435456, Used:294912 (0.11%)"
    assert samples(BTRFS_USAGE, "Used") == [(0.0, 134840320.0, "bytes")]
    assert samples(BTRFS_USAGE, "Free (estimated)")[0][1] == 3607101440.0  # not the "(min: ...)" after it
    assert samples(BTRFS_USAGE, "Metadata ratio") == [(0.0, 2.0, "ratio")]
    assert samples(BTRFS_USAGE, "Data,single Used")[0][1] == 134217728.0
    assert samples(BTRFS_USAGE, "Metadata,DUP Size")[0][1] == 268435456.0
    metrics = [r.metric for r in parsed(BTRFS_USAGE)[1].records]
    assert "Multiple profiles" not in metrics and len(metrics) == 17  # 11 Overall numbers, 3 groups x 2


def test_btrfs_usage_without_bytes_flag_is_refused():
    text = BTRFS_USAGE.read_text().replace("134840320", "128.59MiB")
    with pytest.raises(ParseError, match="without -b") as e:
        monitor._parse_btrfs_usage(text)
    assert e.value.line == 7


def test_manifest_run_steps_labels_facts():
    _, p = parsed(MANIFEST)
    (run,) = [r for r in p.records if isinstance(r, monitor.ManifestRun)]
    assert (run.run_id, run.study, run.status, run.cores, run.memory_bytes) == \
        ("vm-20261121T131428Z", "checksum", "complete", 2, 25276510208)
    assert run.target_filesystem == "ext4" and run.target_device == "/dev/vda"
    steps = [r for r in p.records if isinstance(r, monitor.ManifestStep)]
    assert len(steps) == 48
    assert steps[2].name == "003-write-crc32c-direct-r1" and steps[2].exit_code == 0
    assert "--verify=crc32c --do_verify=0" in steps[2].command
    labels = {(r.key, r.value) for r in p.records
              if isinstance(r, monitor.ManifestLabel) and r.file == "003-write-crc32c-direct-r1.fio.json"}
    assert labels == {("phase", "write"), ("verify", "crc32c"), ("mode", "direct"), ("repetition", "1"),
                      ("size", "2G"), ("bs", "1M"), ("ioengine", "psync")}
    facts = {r.key: r.value for r in p.records if isinstance(r, monitor.ManifestFact)}
    assert facts["facts.perf.events.instructions"] == "<not supported>"
    assert facts["facts.perf.memory_controller_pmus"] == "[]"
    assert facts["tools.fio"] == "fio-3.33"


@pytest.mark.slow
def test_views_link_logs_to_runs_and_labels(tmp_path):
    db = tmp_path / "m.duckdb"
    ingest([CHECKSUM], db, progress=False)
    with store.open_read(db) as con:
        (us,) = con.execute(
            "SELECT m.value FROM monitor_series m JOIN run_labels l USING (source_id) "
            "WHERE l.key = 'verify' AND l.value = 'none' AND l.file = '001-write-none-direct-r1.vmstat.txt' "
            "AND m.metric = 'us' AND m.t_s = 0").fetchone()
        assert us == 96.0
        assert con.execute("SELECT run_id, study, host, cores FROM runs").fetchall() == \
            [("vm-20261121T131428Z", "checksum", "vm", 2)]
        assert con.execute("SELECT count(*), count(DISTINCT source_id) FROM perf_counters "
                           "WHERE event = 'instructions' AND status = 'not supported'").fetchone() == (48, 48)


BAD = [
    ("vmstat-text", "--procs-- --timestamp--\n r b swpd free UTC\n 1 2 2026-11-21 13:14:28\n", 3),
    ("mpstat-text", "Linux 6.1 (h) \t2026-11-21 \t_x86_64_\t(2 CPU)\n\n13:00:00 all 1.0\n", 3),
    ("perf-stat-csv", "# started on x\n\n1.0,msec\n", 3),
    ("iobook-proc-sampler", "# iobook proc sampler 1: x\nnr_dirty 3\n", 2),
    ("df-bytes", "Filesystem 1B-blocks Used Available Use% Mounted on\n/dev/loop0 4096 x 1 1% /mnt\n", 2),
    ("btrfs-usage-bytes", "Overall:\n    Device size:\t\t4096\n    Used\n", 3),
    ("iobook-manifest", '{"iobook_manifest": 1,\n "run_id": 5}', None),
]


@pytest.mark.parametrize("name,text,line", BAD)
def test_bad_input_names_the_line(name, text, line):
    (fmt,) = [f for f in monitor.FORMATS if f.name == name]
    with pytest.raises(ParseError) as e:
        fmt.parse(text)
    assert e.value.line == line


@st.composite
def damaged(draw, name: str):
    text = REAL_FILES[name].read_text(encoding="utf-8")
    how = draw(st.sampled_from(["truncate", "drop-line", "flip"]))
    if how == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if how == "drop-line":
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, len(lines) - 1))
        return "".join(lines[:i] + lines[i + 1:])
    i = draw(st.integers(0, len(text) - 1))
    return text[:i] + draw(st.characters(codec="utf-8")) + text[i + 1:]


@pytest.mark.slow
@pytest.mark.parametrize("name", REAL_FILES)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_files_raise_only_parse_error(name, data):
    (fmt,) = [f for f in monitor.FORMATS if f.name == name]
    text = data.draw(damaged(name))
    try:
        fmt.parse(text)
    except ParseError:
        pass
