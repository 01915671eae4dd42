"""fio's records, whatever output they come from (fio_json, fio_text, fio_terse, fio_log): one FioJob per job, one
FioIO per direction that did I/O, clat percentiles and (json+) clat latency bins, run-status-group lines of the
normal text, and the bw/iops/lat logs' samples. Units are bytes, bytes/s and nanoseconds; each format's module
converts its own (fio 2.x JSON's "io_bytes" is KiB, its latencies usec; the text's numbers carry their units; terse
is KiB, KiB/s, msec and usec).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

DIRECTIONS = ("read", "write", "trim")


@dataclass(frozen=True, kw_only=True)
class FioJob:
    TABLE: ClassVar[str] = "raw_fio_jobs"
    job_index: int  # 0-based order of the job in its file
    format: str
    version: str | None
    jobname: str
    groupid: int | None
    error: int | None
    rw: str | None
    bs: str | None
    iodepth: int | None
    numjobs: int | None
    direct: int | None
    ioengine: str | None
    runtime_s: float | None  # longest direction run time, as measured
    usr_cpu_pct: float | None
    sys_cpu_pct: float | None
    bw_log: str | None  # write_bw_log / write_iops_log / write_lat_log prefixes (JSON options)
    iops_log: str | None
    lat_log: str | None
    size: str | None = None  # the size option as written (JSON only; the text formats do not print it)
    options: str | None = None  # the job's options merged over the global ones, as sorted JSON (JSON only)
    started_unix_ms: int | None = None  # when fio started the run, as its JSON states it ("timestamp_ms", fio 3.x; "timestamp" s)
    # the job's own run time (JSON "job_runtime", ms): what fio's usr_cpu and sys_cpu are percentages of; a verify
    # read runs longer than its read direction's runtime (JSON only; the text formats do not print it)
    job_runtime_s: float | None = None


@dataclass(frozen=True, kw_only=True)
class FioIO:
    TABLE: ClassVar[str] = "raw_fio_io"
    job_index: int
    direction: str  # read | write | trim
    io_bytes: int
    bw_bytes_s: float
    iops: float
    runtime_ms: int | None
    slat_mean_ns: float | None
    clat_mean_ns: float | None
    lat_mean_ns: float | None
    lat_min_ns: float | None
    lat_max_ns: float | None


@dataclass(frozen=True, kw_only=True)
class FioPercentile:
    TABLE: ClassVar[str] = "raw_fio_percentiles"
    job_index: int
    direction: str
    latency: str  # clat | lat: which latency fio computed the percentiles on
    percentile: float
    value_ns: float


@dataclass(frozen=True, kw_only=True)
class FioLatencyBin:
    TABLE: ClassVar[str] = "raw_fio_clat_bins"
    job_index: int
    direction: str
    latency_ns: int
    count: int


@dataclass(frozen=True, kw_only=True)
class FioGroupStatus:
    TABLE: ClassVar[str] = "raw_fio_group_status"
    groupid: int
    direction: str
    io_bytes: int
    bw_bytes_s: float
    run_min_ms: int
    run_max_ms: int


@dataclass(frozen=True, kw_only=True)
class FioLogSample:
    """Schema of fio's bw/iops/lat log lines; rows come from pyarrow's read_csv, not Python."""

    TABLE: ClassVar[str] = "raw_fio_series"
    t_ms: int
    value: int
    direction_code: int  # fio's ddir: 0 read, 1 write, 2 trim
    bs: int
    offset_bytes: int | None
    prio: int | None


def tool_version(text: str | None) -> str | None:
    """fio's version as its outputs print it ("fio-3.35"), without the prefix."""
    return text.removeprefix("fio-") if text else None


RECORDS = (FioJob, FioIO, FioPercentile, FioLatencyBin, FioGroupStatus, FioLogSample)
