"""Bounded fuzz over every parser and over ingest's decoding and detection, from one real log per format.

Properties: a format's parse either returns records or raises ParseError (nothing else), and
`parse_bytes` (decoding, detection, parsing, value checks: what ingest stores) never raises and never
passes an inf/nan float or an int beyond 64 bits into a record it accepts. The number of examples comes
from the hypothesis profile conftest selects: bounded under `make test`, long under `make fuzz`.
"""
from __future__ import annotations

import bz2
import gzip
import math

import pytest
from conftest import ARCHIVE, BUILT_TOOLS, REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iobook.database.parsing import INT64, _float_fields, _int_fields, parse_bytes
from iobook.parsers import ParseError, all_formats

RAW = REPO / "data" / "raw"
FIX = REPO / "tests" / "fixtures"
CHECKSUM = RAW / "checksum" / "vm-20261121T131428Z"
MLPERF_RUN = (FIX / "mlperf" / "Closed" / "DDN" / "results" / "AI400X2T_24x14TiB_nvme_8xNDR200_18clients" / "unet3d-a100"
              / "runs" / "run1" / "c013")

# format -> a real log of it (small, so that many examples run in the bounded profile)
SEEDS = {
    "io500-result-ini": RAW / "io500/EPCC/NextGENIO/GekkoFS/2020/submission-455/results/io500/result.txt",
    "io500-summary": RAW / "io500/SUSE/HammerHead/SUSE Enterprise Storage - CephFS/2020/submission-136/result_summary.txt",
    "io500-bash": RAW / "io500/Google and DDN/Lustre on GCP/Exascaler 5.0 PRE - Lustre 2.11-56/2018/submission-147/results/result_summary.txt",
    "io500-verify": BUILT_TOOLS / "io500" / "run1-standard-np2-stonewall10" / "verify.log",
    "io500-system-information": RAW / "io500/Raytheon/MCK-HPC/ActiveData/2021/submission-593/system-information.txt",
    "io500-questionnaire": RAW / "io500/Johannes Gutenberg University Mainz/MOGON-NHR/GekkoFS/2024/submission-706/results/2024.05.03-06.00.38/system-information.json",
    "pfind-csv": BUILT_TOOLS / "io500" / "run1-standard-np2-stonewall10" / "2026.11.21-12.37.24" / "find.csv",
    "ior2-fragment": FIX / "ior" / "ior2-mail" / "Best.txt",
    "io500-sc17-log": RAW / "io500/DKRZ/Mistral/lustre02/2019/submission-109/JCAHPC-17/jcahpc/io500-results-2048-8.227609/find-results.txt",
    "gpfs-mmlsconfig": next(RAW.glob("io500/IBM Tuscon/Arches 2 */*/2023/submission-651/results/mmlsconfig")),
    "gpfs-mmlscluster": next(RAW.glob("io500/IBM Tucson/Saguaro */IBM Storage Scale 5.2.2-0*/2024/submission-722/results/*/mmlscluster")),
    "gpfs-mmlsfs": next(RAW.glob("io500/IBM Tucson/Saguaro */IBM Storage Scale 5.2.2-0*/2024/submission-722/results/*/mmlsfs_fs1")),
    "ior+mdtest-text": ARCHIVE / "Janelia Research Campus, HHMI/nrs/Qumulo Core/2019/submission-194/output.txt",
    "ior-json": BUILT_TOOLS / "ior" / "ior_json_posix_fpp_1m_np2_i3.log",
    "ior-text": BUILT_TOOLS / "ior" / "ior_posix_fpp_1m_np2_i3.log",
    "ior-csv-summary": BUILT_TOOLS / "ior" / "ior_csv_posix_fpp_1m_np2_i3.log",
    "ior-rank-csv": BUILT_TOOLS / "ior" / "ior_rankdetails_csv_np2.rank.csv",
    "ior-stdout": FIX / "ior" / "built-here" / "ior_summaryfile_error_nonexistent_dir_np2.log",
    "mdtest-text": BUILT_TOOLS / "mdtest" / "mdtest_n1000_i3_np2.log",
    "mdtest-rank-csv": BUILT_TOOLS / "mdtest" / "mdtest_saverank_csv_np2.rank.csv",
    "md-workbench-text": ARCHIVE / "GWDG/SCC/BeeGFS/2021/submission-582/mdworkbench-create.txt",
    "fio-json": FIX / "fio" / "fio333-multi.json",
    "fio-terse": FIX / "fio" / "fio333-multi.terse5.txt",
    "fio-normal": FIX / "fio" / "fio333-multi.normal.txt",
    "fio-log": FIX / "fio" / "logs-raw" / "raw_bw.1.log",
    "fio-error": FIX / "fio" / "errors" / "engine-not-loadable.txt",
    "iobook-manifest": RAW / "pagecache" / "vm-20261121T132329Z" / "manifest.json",
    "vmstat-text": CHECKSUM / "025-write-none-direct-r2.vmstat.txt",
    "mpstat-text": CHECKSUM / "025-write-none-direct-r2.mpstat.txt",
    "iobook-proc-sampler": RAW / "pagecache" / "vm-20261121T132329Z" / "003-write-direct-r1.proc.txt",
    "perf-stat-csv": CHECKSUM / "002-read-none-direct-r1.perf.txt",
    "btrfs-usage-bytes": RAW / "snapshots" / "vm-20261123T160956Z" / "c001-space-s0.btrfs-usage.txt",
    "df-bytes": RAW / "snapshots" / "vm-20261123T160956Z" / "c001-space-s0.df.txt",
    "dlio-summary": MLPERF_RUN / "summary.json",
    "dlio-per-epoch-stats": MLPERF_RUN / "per_epoch_stats.json",
    "dlio-config": MLPERF_RUN / "configs" / "config.yaml",
    "dlio-log": RAW / "dlio" / "vm-20261202T063549Z" / "r1" / "dlio.log",
    "hydra-overrides": MLPERF_RUN / "configs" / "overrides.yaml",
    "mlperf-storage-report": MLPERF_RUN.parents[1] / "mlperf_storage_report.json",
    "mlperf-storage-system": (FIX / "mlperf" / "Closed" / "DDN" / "systems"
                              / "AI400X2T_24x14TiB_nvme_8xNDR200_18clients.json"),
}
FORMATS = {f.name: f for f in all_formats()}

# What a damaged or odd log holds in place of its own text: numbers no float or BIGINT holds, words
# that float() reads as inf/nan, separators, quotes, nesting, a NUL, non-ASCII.
TOKENS = st.sampled_from(["inf", "-inf", "nan", "Infinity", "NaN", "1e309", "-0", "99999999999999999999999",
                          "", " ", "\n", "\r\n", ",", ";", ":", "=", "|", '"', "{", "[", "]", "}", "-", ".",
                          "0", "1.5", "\0", "é", "\ufeff", "\t"])


@st.composite
def damaged(draw, text: str) -> str:
    """The log with a few edits: a span replaced by tokens or random text, a line repeated, a cut."""
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 40)))
        kind = draw(st.sampled_from(["tokens", "text", "repeat", "cut"]))
        if kind == "tokens":
            text = text[:start] + "".join(draw(st.lists(TOKENS, max_size=4))) + text[end:]
        elif kind == "text":
            text = text[:start] + draw(st.text(max_size=20)) + text[end:]
        elif kind == "repeat":
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start) + 1 or len(text)
            text = text[:line_end] + text[line_start:line_end] + text[line_end:]
        else:
            text = text[:start]
    return text


def _accepted_values_are_storable(records: list) -> None:
    for rec in records:
        for name in _float_fields(type(rec)):
            value = getattr(rec, name)
            assert value is None or math.isfinite(value), (type(rec).__name__, name, value)
        for name in _int_fields(type(rec)):
            value = getattr(rec, name)
            assert value is None or value in INT64, (type(rec).__name__, name, value)


def test_every_format_has_a_real_seed():
    assert set(SEEDS) == set(FORMATS)
    for name, path in SEEDS.items():
        assert FORMATS[name].detect(path.read_text()[:1 << 20]), name


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SEEDS))
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_damaged_log_parses_or_raises_parse_error(name, data):
    text = data.draw(damaged(SEEDS[name].read_text()))
    try:
        FORMATS[name].parse(text)
    except ParseError:
        pass


WRAPPERS = {"plain": lambda b: b, "gzip": gzip.compress, "bzip2": bz2.compress,
            "utf-16": lambda b: b.decode("utf-8", "replace").encode("utf-16"), "bom": lambda b: b"\xef\xbb\xbf" + b,
            "crlf": lambda b: b.replace(b"\n", b"\r\n"), "nul tail": lambda b: b + b"\0" * 64}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SEEDS))
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_ingest_of_a_damaged_log_records_an_outcome_and_stores_only_finite_values(name, data):
    text = data.draw(damaged(SEEDS[name].read_text()))
    wrapper = data.draw(st.sampled_from(sorted(WRAPPERS)))
    raw = WRAPPERS[wrapper](text.encode("utf-8", "surrogatepass"))
    if data.draw(st.booleans()):  # a damaged container too: bytes flipped or cut
        at = data.draw(st.integers(0, len(raw)))
        raw = raw[:at] + data.draw(st.binary(max_size=8)) + raw[at + data.draw(st.integers(0, 8)):]
    outcome = parse_bytes("fuzz", raw)
    assert outcome.row["status"] in ("ok", "error", "skipped")
    if outcome.row["status"] == "ok":
        _accepted_values_are_storable(outcome.records)
    else:
        assert outcome.records == [] and outcome.row["error"]
