"""DLIO's summary.json: one benchmark run, as MLPerf Storage v1.0 keeps it (one per run, in its first host's folder).

DLIO (argonne-lcf/dlio_benchmark, the version MLPerf Storage v1.0 pins) writes its start and end in the host's
local time without a zone, the run's AU (accelerator utilisation) and throughput per epoch and their mean and
stdev, and per host (in host order): its CPU count, its memory in GB as DLIO summed it over the host's processes,
and whether it saw the data set potentially cached (0 or 1). Units as DLIO writes them: its MB is 2^20 bytes
(statscounter.py divides samples/s x record length by 1024 twice), its GB 2^30 bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import Format, Parsed
from .fields import Fields, load_json

FORMAT_NAME = "dlio-summary"
WHAT = "DLIO summary.json"
MARKS = ('"train_au_percentage"', '"train_au_mean_percentage"')  # DLIO's own keys, near the top of the file


@dataclass(frozen=True, kw_only=True)
class DlioSummary:
    TABLE: ClassVar[str] = "raw_dlio_summaries"
    started: str  # ISO 8601, the host's local time (DLIO writes no zone)
    ended: str
    hostname: str
    num_accelerators: int
    num_hosts: int
    epochs: int
    num_files_train: int
    num_files_eval: int
    num_samples_per_file: int
    au_mean_pct: float
    au_stdev_pct: float
    au_expectation: str  # DLIO's verdict on the AU: 'success' | 'fail'
    samples_per_s: float  # mean over epochs
    samples_per_s_stdev: float
    mb_per_s: float  # mean over epochs, DLIO's MB = 2^20 bytes
    mb_per_s_stdev: float
    data_size_per_host_gb: float
    host_processor_name: str | None
    cpu_model: str | None  # host_cpuinfo's "model name" (of the host that wrote the file)
    mem_total_kb: int | None  # host_meminfo's MemTotal (of the host that wrote the file)


@dataclass(frozen=True, kw_only=True)
class DlioSummaryEpoch:
    TABLE: ClassVar[str] = "raw_dlio_summary_epochs"
    epoch: int  # 1-based, in DLIO's order
    au_pct: float | None
    samples_per_s: float | None


@dataclass(frozen=True, kw_only=True)
class DlioSummaryHost:
    TABLE: ClassVar[str] = "raw_dlio_summary_hosts"
    host_index: int  # 0-based, in DLIO's host order
    cpu_count: int | None
    memory_gb: float | None
    potential_caching: int | None


def _detect(head: str) -> bool:
    return head.lstrip().startswith("{") and all(mark in head for mark in MARKS)


def _per_index(f: Fields, obj: dict, key: str, read) -> list:
    """A per-epoch or per-host list's values checked one by one (`read` is a Fields reader)."""
    return [read({key: v}, key) for v in f.array(obj, key, optional=True)]


def parse(text: str) -> Parsed:
    doc = load_json(text, WHAT)
    f = Fields(text, WHAT, '"{}"')
    metric = f.mapping(doc, "metric")
    kb = f.string(f.mapping(doc, "host_meminfo", optional=True), "MemTotal", optional=True)
    records: list = [DlioSummary(
        started=f.string(doc, "start"), ended=f.string(doc, "end"), hostname=f.string(doc, "hostname"),
        num_accelerators=f.integer(doc, "num_accelerators"), num_hosts=f.integer(doc, "num_hosts"),
        epochs=f.integer(doc, "epochs"), num_files_train=f.integer(doc, "num_files_train"),
        num_files_eval=f.integer(doc, "num_files_eval"), num_samples_per_file=f.integer(doc, "num_samples_per_file"),
        au_mean_pct=f.number(metric, "train_au_mean_percentage"),
        au_stdev_pct=f.number(metric, "train_au_stdev_percentage"),
        au_expectation=f.string(metric, "train_au_meet_expectation"),
        samples_per_s=f.number(metric, "train_throughput_mean_samples_per_second"),
        samples_per_s_stdev=f.number(metric, "train_throughput_stdev_samples_per_second"),
        mb_per_s=f.number(metric, "train_io_mean_MB_per_second"),
        mb_per_s_stdev=f.number(metric, "train_io_stdev_MB_per_second"),
        data_size_per_host_gb=f.number(doc, "data_size_per_host_GB"),
        host_processor_name=f.string(doc, "host_processor_name", optional=True),
        cpu_model=f.string(f.mapping(doc, "host_cpuinfo", optional=True), "model name", optional=True),
        mem_total_kb=_kilobytes(f, kb))]
    au = _per_index(f, metric, "train_au_percentage", f.number)
    rate = _per_index(f, metric, "train_throughput_samples_per_second", f.number)
    records += [DlioSummaryEpoch(epoch=i + 1, au_pct=au[i] if i < len(au) else None,
                                 samples_per_s=rate[i] if i < len(rate) else None)
                for i in range(max(len(au), len(rate)))]
    cpus = _per_index(f, doc, "host_cpu_count", f.integer)
    memory = _per_index(f, doc, "host_memory_GB", f.number)
    caching = _per_index(f, doc, "potential_caching", f.integer)
    records += [DlioSummaryHost(host_index=i, cpu_count=cpus[i] if i < len(cpus) else None,
                                memory_gb=memory[i] if i < len(memory) else None,
                                potential_caching=caching[i] if i < len(caching) else None)
                for i in range(max(len(cpus), len(memory), len(caching)))]
    return Parsed(format=FORMAT_NAME, tool="dlio", tool_version=None, records=records)


def _kilobytes(f: Fields, value: str | None) -> int | None:
    """/proc/meminfo's "97095748 kB"."""
    if value is None:
        return None
    number, _, unit = value.partition(" ")
    if unit != "kB" or not number.isdigit() or len(number) > 18:
        f.fail(f"MemTotal is {value[:40]!r}, not '<n> kB'", "MemTotal")
    return int(number)


# DLIO writes it with json.dump, without a final newline: a cut one is JSON that does not close
FORMATS = (Format(name=FORMAT_NAME, tool="dlio", detect=_detect, parse=parse, ends_in_newline=False),)
RECORDS = (DlioSummary, DlioSummaryEpoch, DlioSummaryHost)
