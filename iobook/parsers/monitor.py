"""What the collectors in scripts/ record beside fio: system monitors, perf counters, and the run manifest.

- vmstat with timestamps (``vmstat -n -t [-w] 1``, procps): one MonitorSample per column per line.
  The first data line is dropped: vmstat prints averages since boot there, not a 1-second sample.
  Memory columns are KiB (vmstat's default unit; ``-S`` changes it without changing the header, so
  logs made with ``-S`` are not supported), bi/bo are 1 KiB blocks per second, CPU columns percent.
- mpstat (sysstat, ``mpstat -P ALL 1``; C locale, any S_TIME_FORMAT): one MonitorSample per column
  per CPU per interval; ``Average:`` lines are left out (the view can recompute them).
- the collectors' /proc sampler (``# iobook proc sampler 1``): verbatim ``key value`` lines of
  /proc/vmstat and a cgroup's memory.stat after ``@ <unix time> <path>`` lines.
- ``perf stat -x,`` output: one PerfCounter per event, value NULL when perf says
  ``<not supported>`` or ``<not counted>`` (the machine does not count it).
- ``df -B1`` (coreutils, C locale): one MonitorSample per size column (size, used, available; bytes)
  per file system, instance = the file system's source (e.g. /dev/loop0).
- ``btrfs filesystem usage -b`` (btrfs-progs): the "Overall:" figures (bytes; the ratios as ratio) and
  each block group type's Size and Used (metric e.g. "Data,single Used"); per-device lines are left out.
- ``manifest.json`` (``"iobook_manifest": 1``): the run, its steps, each output file's labels and
  the host/tool facts.

Every sample time ``t_s`` is seconds since the first sample in the same file.
"""
from __future__ import annotations

import csv
import json
import re
import shlex
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from . import Format, ParseError, Parsed, first_line


@dataclass(frozen=True, kw_only=True)
class MonitorSample:
    TABLE: ClassVar[str] = "raw_monitor_samples"
    tool: str  # vmstat | mpstat | proc | df | btrfs-usage
    t_s: float  # seconds since the file's first sample
    instance: str  # mpstat: CPU ("all", "0", ...); proc: the sampled file; vmstat: ""
    metric: str  # the tool's column or key name, without mpstat's "%"
    unit: str  # %, KiB, KiB/s, 1/s, pages, bytes, count, processes, ratio
    value: float


@dataclass(frozen=True, kw_only=True)
class PerfCounter:
    TABLE: ClassVar[str] = "raw_perf_counters"
    event: str
    value: float | None  # None when not supported / not counted
    unit: str  # perf's unit column, e.g. "msec"; "" for plain counts
    status: str  # counted | not supported | not counted
    running_pct: float | None  # share of the run the counter was scheduled (multiplexing)


@dataclass(frozen=True, kw_only=True)
class ManifestRun:
    TABLE: ClassVar[str] = "raw_manifest_runs"
    run_id: str
    study: str
    status: str  # complete | failed | running (a run that was killed)
    started_utc: str
    finished_utc: str | None
    collector: str
    hostname: str
    cpu_model: str
    cores: int
    memory_bytes: int
    kernel: str
    load_avg_1m: float
    load_avg_5m: float
    load_avg_15m: float
    target_dir: str | None
    target_filesystem: str | None
    target_device: str | None


@dataclass(frozen=True, kw_only=True)
class ManifestStep:
    TABLE: ClassVar[str] = "raw_manifest_steps"
    run_id: str
    step_index: int  # 0-based order in the run
    name: str
    command: str  # argv joined as a shell would need it
    started_utc: str
    finished_utc: str
    seconds: float
    exit_code: int


@dataclass(frozen=True, kw_only=True)
class ManifestLabel:
    TABLE: ClassVar[str] = "raw_manifest_labels"
    run_id: str
    file: str  # output file, relative to the run folder
    step_index: int
    key: str
    value: str


@dataclass(frozen=True, kw_only=True)
class ManifestFact:
    TABLE: ClassVar[str] = "raw_manifest_facts"
    run_id: str
    key: str  # dotted path, e.g. "tools.fio", "facts.perf.memory_traffic"
    value: str  # JSON scalar as text


def _number(token: str, lineno: int, what: str) -> float:
    try:
        return float(token)
    except ValueError:
        raise ParseError(f"{what}: {token!r} is not a number", lineno) from None


# ---------------------------------------------------------------- vmstat

VMSTAT_UNITS = {"r": "processes", "b": "processes", "swpd": "KiB", "free": "KiB", "buff": "KiB", "cache": "KiB",
                "inact": "KiB", "active": "KiB", "si": "KiB/s", "so": "KiB/s", "bi": "KiB/s", "bo": "KiB/s",
                "in": "1/s", "cs": "1/s"}
VMSTAT_CPU = {"us", "sy", "id", "wa", "st", "gu"}


def _detect_vmstat(head: str) -> bool:
    lines = head.splitlines()
    return len(lines) >= 2 and lines[0].lstrip("-").startswith("procs") and lines[1].split()[:3] == ["r", "b", "swpd"]


def _parse_vmstat(text: str) -> Parsed:
    lines = text.splitlines()
    if len(lines) < 2 or not _detect_vmstat(text[:4096]):
        raise ParseError("not vmstat output: no 'procs' and 'r b swpd' header lines", 1)
    columns = lines[1].split()
    if "timestamp" not in lines[0]:
        raise ParseError("vmstat without -t: the log has no sample times", 1)
    # With -t the header ends in the time zone name, and each line in "YYYY-MM-DD HH:MM:SS".
    names = columns[:-1]
    records, first_time, seen_first = [], None, False
    for lineno, line in enumerate(lines[2:], start=3):
        tokens = line.split()
        if not tokens or tokens[0].lstrip("-").startswith("procs") or tokens[0] == "r":
            continue  # blank, or a repeated header
        if len(tokens) != len(names) + 2:
            raise ParseError(f"vmstat line has {len(tokens)} fields, header promises {len(names) + 2}", lineno)
        try:
            when = datetime.strptime(f"{tokens[-2]} {tokens[-1]}", "%Y-%m-%d %H:%M:%S")
        except ValueError:
            raise ParseError(f"vmstat timestamp {tokens[-2]} {tokens[-1]!r} is not YYYY-MM-DD HH:MM:SS", lineno) from None
        values = [_number(t, lineno, "vmstat value") for t in tokens[:-2]]
        if not seen_first:
            seen_first = True  # averages since boot, not a sample
            continue
        if first_time is None:
            first_time = when
        t_s = (when - first_time).total_seconds()
        for name, value in zip(names, values):
            unit = "%" if name in VMSTAT_CPU else VMSTAT_UNITS.get(name, "")
            records.append(MonitorSample(tool="vmstat", t_s=t_s, instance="", metric=name, unit=unit, value=value))
    if not seen_first:
        raise ParseError("vmstat output has no data lines", len(lines))
    return Parsed(format="vmstat-text", tool="vmstat", tool_version=None, records=records)


# ---------------------------------------------------------------- mpstat

MPSTAT_BANNER = re.compile(r"^Linux \S+ \(.*\)\s+\S+\s+_\S+_\s+\((\d+) CPU\)")
CLOCK = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})(?: ([AP]M))?$")


def _detect_mpstat(head: str) -> bool:
    lines = head.splitlines()
    return bool(lines) and MPSTAT_BANNER.match(lines[0]) is not None and any(
        "%usr" in line.split() and "CPU" in line.split() for line in lines[1:5])


def _seconds_of_day(token: str, lineno: int) -> int:
    m = CLOCK.match(token)
    if not m:
        raise ParseError(f"mpstat time {token!r} is not HH:MM:SS", lineno)
    h, mi, s = int(m[1]), int(m[2]), int(m[3])
    if m[4]:
        h = h % 12 + (12 if m[4] == "PM" else 0)
    return h * 3600 + mi * 60 + s


def _parse_mpstat(text: str) -> Parsed:
    lines = text.splitlines()
    if not lines or MPSTAT_BANNER.match(lines[0]) is None:
        raise ParseError("not mpstat output: no 'Linux ... (N CPU)' banner", 1)
    records, header, first, previous, day_offset = [], None, None, None, 0
    for lineno, line in enumerate(lines[1:], start=2):
        tokens = line.split()
        if not tokens or tokens[0] == "Average:":
            continue
        # With a 12-hour clock the time is two tokens ("01:02:03 PM").
        clock_tokens = 2 if len(tokens) > 1 and tokens[1] in ("AM", "PM") else 1
        clock, rest = " ".join(tokens[:clock_tokens]), tokens[clock_tokens:]
        if rest and rest[0] == "CPU":
            header = rest[1:]
            continue
        if header is None:
            raise ParseError("mpstat data line before any 'CPU %usr ...' header", lineno)
        if len(rest) != len(header) + 1:
            raise ParseError(f"mpstat line has {len(rest)} fields after the time, header promises {len(header) + 1}",
                             lineno)
        now = _seconds_of_day(clock, lineno)
        if previous is not None and now < previous:
            day_offset += 86400  # the clock passed midnight
        previous = now
        if first is None:
            first = now
        t_s = float(now + day_offset - first)
        for name, token in zip(header, rest[1:]):
            unit = "%" if name.startswith("%") else "1/s"
            records.append(MonitorSample(tool="mpstat", t_s=t_s, instance=rest[0], metric=name.lstrip("%"), unit=unit,
                                         value=_number(token, lineno, "mpstat value")))
    if header is None:
        raise ParseError("mpstat output has no 'CPU %usr ...' header", len(lines))
    return Parsed(format="mpstat-text", tool="mpstat", tool_version=None, records=records)


# ---------------------------------------------------------------- /proc sampler

SAMPLER_HEADER = "# iobook proc sampler 1:"


def _proc_unit(path: str, key: str) -> str:
    if path.endswith("memory.stat"):
        # cgroup v1/v2 memory.stat: sizes in bytes; event counters (pg*, workingset_*) count pages
        return "pages" if key.startswith(("pg", "workingset_")) else "bytes"
    if key in ("pgpgin", "pgpgout"):
        return "KiB"  # /proc/vmstat counts paging in 1 KiB units
    if key.startswith(("allocstall", "pgscan_direct_throttle")):
        return "count"
    return "pages"


def _parse_proc(text: str) -> Parsed:
    lines = text.splitlines()
    if not lines or not lines[0].startswith(SAMPLER_HEADER):
        raise ParseError(f"not an iobook proc sampler log: first line is not {SAMPLER_HEADER!r}", 1)
    records, first, path, t = [], None, None, None
    for lineno, line in enumerate(lines[1:], start=2):
        if line.startswith("@ "):
            parts = line.split(" ", 2)
            if len(parts) != 3 or not parts[2]:
                raise ParseError("sample line is not '@ <unix time> <path>'", lineno)
            t, path = _number(parts[1], lineno, "sample time"), parts[2]
            first = t if first is None else first
            continue
        if path is None:
            raise ParseError("counter line before any '@ <time> <path>' line", lineno)
        parts = line.split()
        if len(parts) != 2:
            raise ParseError("counter line is not '<key> <value>'", lineno)
        records.append(MonitorSample(tool="proc", t_s=t - first, instance=path, metric=parts[0],
                                     unit=_proc_unit(path, parts[0]),
                                     value=_number(parts[1], lineno, parts[0])))
    return Parsed(format="iobook-proc-sampler", tool="proc", tool_version=None, records=records)


# ---------------------------------------------------------------- perf stat -x,

PERF_CSV_LINE = re.compile(r"^(?:[-+\d.eE]+|<not (?:supported|counted)>),[^,]*,[^,]+,")


def _detect_perf(head: str) -> bool:
    lines = [line for line in head.splitlines() if line.strip()]
    return len(lines) >= 2 and lines[0].startswith("# started on ") and PERF_CSV_LINE.match(lines[1]) is not None


def _parse_perf(text: str) -> Parsed:
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        try:
            fields = next(csv.reader([line]), [])
        except csv.Error as e:
            raise ParseError(f"perf stat -x, line is not CSV: {e}", lineno) from None
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 3 or not fields[2]:
            raise ParseError("perf stat -x, line has no event field (value,unit,event,...)", lineno)
        value, unit, event = fields[0], fields[1], fields[2]
        running = _number(fields[4], lineno, "perf running %") if len(fields) > 4 and fields[4] else None
        if value in ("<not supported>", "<not counted>"):
            records.append(PerfCounter(event=event, value=None, unit=unit, status=value.strip("<>"),
                                       running_pct=running))
        else:
            records.append(PerfCounter(event=event, value=_number(value, lineno, "perf value"), unit=unit,
                                       status="counted", running_pct=running))
    if not records:
        raise ParseError("perf stat output has no counter lines", None)
    return Parsed(format="perf-stat-csv", tool="perf", tool_version=None, records=records)


# ---------------------------------------------------------------- df -B1 and btrfs filesystem usage -b

DF_HEADER = ["Filesystem", "1B-blocks", "Used", "Available", "Use%", "Mounted", "on"]
DF_METRICS = {1: "size", 2: "used", 3: "available"}  # column index -> metric (bytes)


def _parse_df(text: str) -> Parsed:
    lines = text.splitlines()
    if not lines or lines[0].split() != DF_HEADER:
        raise ParseError(f"not df -B1 output: the header is not {' '.join(DF_HEADER)!r}", 1)
    records = []
    for lineno, line in enumerate(lines[1:], start=2):
        fields = line.split(None, 5)
        if len(fields) != 6:
            raise ParseError("df line does not have 6 columns (source, size, used, available, use%, mount)", lineno)
        records += [MonitorSample(tool="df", t_s=0.0, instance=fields[0], metric=metric, unit="bytes",
                                  value=_number(fields[i], lineno, f"df {metric}"))
                    for i, metric in DF_METRICS.items()]
    if not records:
        raise ParseError("df output has no file system line", None)
    return Parsed(format="df-bytes", tool="df", tool_version=None, records=records)


BTRFS_OVERALL = re.compile(r"^\s+([A-Z][\w ()',]*?):\s+(\S+)")
BTRFS_GROUP = re.compile(r"^(\w+),([\w]+): Size:(\d+), Used:(\d+)")


def _parse_btrfs_usage(text: str) -> Parsed:
    lines = text.splitlines()
    if not lines or lines[0] != "Overall:":
        raise ParseError("not btrfs filesystem usage output: the first line is not 'Overall:'", 1)
    records, overall = [], True
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            overall = False
            continue
        if overall:
            m = BTRFS_OVERALL.match(line)
            if m is None:
                raise ParseError("Overall line is not '<name>: <value>'", lineno)
            name, value = m.groups()
            if name == "Multiple profiles":
                continue  # yes/no, not a number
            if not value.isdigit() and "ratio" not in name:
                raise ParseError(f"{name}: {value!r} is not a byte count (was the output made without -b?)", lineno)
            records.append(MonitorSample(tool="btrfs-usage", t_s=0.0, instance="", metric=name,
                                         unit="ratio" if "ratio" in name else "bytes",
                                         value=_number(value, lineno, name)))
        elif m := BTRFS_GROUP.match(line):
            kind, profile, size, used = m.groups()
            records += [MonitorSample(tool="btrfs-usage", t_s=0.0, instance="", metric=f"{kind},{profile} {metric}",
                                      unit="bytes", value=float(value))
                        for metric, value in (("Size", size), ("Used", used))]
    return Parsed(format="btrfs-usage-bytes", tool="btrfs", tool_version=None, records=records)


# ---------------------------------------------------------------- manifest.json

def _detect_manifest(head: str) -> bool:
    return head.lstrip().startswith("{") and re.search(r'"iobook_manifest"\s*:\s*1\b', head) is not None


def _field(obj, key: str, kind, where: str, optional: bool = False):
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None and optional:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise ParseError(f"manifest: {where}{key} should be {kind.__name__}, is {type(value).__name__}", None)
    return value


def _flatten(prefix: str, value, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}", v, out)
    else:
        out.append((prefix, value if isinstance(value, str) else json.dumps(value)))


def _parse_manifest(text: str) -> Parsed:
    try:
        m = json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(f"manifest is not valid JSON: {e.msg}", e.lineno) from None
    if not isinstance(m, dict) or m.get("iobook_manifest") != 1:
        raise ParseError('not an iobook manifest: no "iobook_manifest": 1', 1)
    run_id = _field(m, "run_id", str, "")
    host = _field(m, "host", dict, "")
    target = _field(m, "target", dict, "", optional=True) or {}
    load = _field(host, "load_average_at_start", list, "host.")
    if len(load) != 3 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in load):
        raise ParseError("manifest: host.load_average_at_start should be three numbers", None)
    records: list = [ManifestRun(
        run_id=run_id, study=_field(m, "study", str, ""), status=_field(m, "status", str, ""),
        started_utc=_field(m, "started_utc", str, ""),
        finished_utc=_field(m, "finished_utc", str, "", optional=True), collector=_field(m, "collector", str, ""),
        hostname=_field(host, "hostname", str, "host."), cpu_model=_field(host, "cpu_model", str, "host."),
        cores=_field(host, "cores", int, "host."), memory_bytes=_field(host, "memory_bytes", int, "host."),
        kernel=_field(host, "kernel", str, "host."), load_avg_1m=float(load[0]), load_avg_5m=float(load[1]),
        load_avg_15m=float(load[2]),
        target_dir=_field(target, "dir", str, "target.",
                          optional=True), target_filesystem=_field(target, "filesystem", str, "target.", True),
        target_device=_field(target, "device", str, "target.", optional=True))]
    run_labels = _field(m, "labels", dict, "")
    for index, step in enumerate(_field(m, "steps", list, "")):
        where = f"steps[{index}]."
        command = _field(step, "command", list, where)
        if not all(isinstance(a, str) for a in command):
            raise ParseError(f"manifest: {where}command should be a list of strings", None)
        records.append(ManifestStep(
            run_id=run_id, step_index=index, name=_field(step, "name", str, where), command=shlex.join(command),
            started_utc=_field(step, "started_utc", str, where), finished_utc=_field(step, "finished_utc", str, where),
            seconds=_field(step, "seconds", float, where), exit_code=_field(step, "exit_code", int, where)))
        labels = {**run_labels, **_field(step, "labels", dict, where)}
        for file in _field(step, "files", list, where):
            if not isinstance(file, str):
                raise ParseError(f"manifest: {where}files should be a list of strings", None)
            records += [ManifestLabel(run_id=run_id, file=file, step_index=index, key=str(k),
                                      value=str(v)) for k, v in labels.items()]
    facts: list[tuple[str, str]] = []
    for section in ("host", "target", "tools", "facts"):
        _flatten(section, m.get(section) or {}, facts)
    records += [ManifestFact(run_id=run_id, key=k, value=v) for k, v in facts]
    return Parsed(format="iobook-manifest", tool="iobook", tool_version=str(m["iobook_manifest"]), records=records)


RECORDS = (MonitorSample, PerfCounter, ManifestRun, ManifestStep, ManifestLabel, ManifestFact)
FORMATS = (
    Format(name="iobook-manifest", tool="iobook", detect=_detect_manifest, parse=_parse_manifest),
    Format(name="vmstat-text", tool="vmstat", detect=_detect_vmstat, parse=_parse_vmstat),
    Format(name="mpstat-text", tool="mpstat", detect=_detect_mpstat, parse=_parse_mpstat),
    Format(name="iobook-proc-sampler", tool="proc", detect=lambda head: head.startswith(SAMPLER_HEADER),
           parse=_parse_proc),
    Format(name="perf-stat-csv", tool="perf", detect=_detect_perf, parse=_parse_perf),
    Format(name="df-bytes", tool="df", detect=lambda head: first_line(head).split() == DF_HEADER, parse=_parse_df),
    Format(name="btrfs-usage-bytes", tool="btrfs", detect=lambda head: head.startswith("Overall:\n    Device size:"),
           parse=_parse_btrfs_usage),
)
