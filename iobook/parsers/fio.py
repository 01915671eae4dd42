"""fio output: JSON / json+ (fio 2.x and 3.x), normal text (2.x and 3.x), terse v3-v5, bw/iops/lat logs.

Every format becomes the same records: one FioJob per job, one FioIO per direction that did I/O,
clat percentiles and (json+) clat latency bins, run-status-group lines of the normal text, and
the bw/iops/lat logs as an Arrow table. Units are converted here to bytes, bytes/s and nanoseconds:
- fio 3.x JSON: bw_bytes in B/s, latencies in ns (slat_ns/clat_ns/lat_ns).
- fio 2.x JSON: "io_bytes" is really KiB (3.0 added io_kbytes and fixed it), bw in KiB/s,
  latencies in usec (slat/clat/lat).
- normal text: each number carries its unit; 3.x prints KiB/MiB (1024) and kB/MB (1000),
  2.x prints KB/MB meaning 1024 (its default kb_base); latency lines say (nsec|usec|msec)
  and min/max may carry a K/M suffix (x1000).
- terse: KiB, KiB/s, msec and usec (fio's documented field order, man fio "TERSE OUTPUT").
"""
from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa
import pyarrow.csv as pa_csv

from . import DETECT_BYTES, Format, ParseError, Parsed, first_line, json_float

DIRECTIONS = ("read", "write", "trim")
LAT_UNIT_NS = {"nsec": 1.0, "usec": 1e3, "msec": 1e6}
SIZE_3X = {"": 1, "B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50,
           "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15}
SIZE_2X = {"": 1, "B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40, "PB": 2**50}
COUNT_SUFFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


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


def _version(text: str | None) -> str | None:
    return text.removeprefix("fio-") if text else None


# ---------------------------------------------------------------- JSON and json+

# `{` at a line's start, then "fio version": indented (fio's own) or compact (json.dump's, one line)
JSON_START = re.compile(r'^\{\s*"fio version"\s*:', re.M)


def _detect_json(head: str) -> bool:
    if '"fio version"' not in head:  # cheap before a MULTILINE regex over a 1 MiB head
        return False
    return bool(JSON_START.search(head))


def _num(value, what: str, line: int | None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParseError(f"{what}: expected a number, got {value!r}", line)
    return value


def _opt_int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None


def _json_direction(job_index: int, name: str, d: dict, line: int):
    """One direction of a JSON job -> (FioIO | None, percentiles, bins)."""
    if not isinstance(d, dict):
        raise ParseError(f"job {job_index} {name}: not an object", line)
    v3 = "io_kbytes" in d  # 3.x: io_bytes in bytes and latencies in *_ns
    io_bytes = int(_num(d.get("io_bytes", 0), "io_bytes", line)) * (1 if v3 else 1024)
    if io_bytes == 0:
        return None, [], []
    bw = _num(d.get("bw_bytes"), "bw_bytes", line) if v3 else _num(d.get("bw", 0), "bw", line) * 1024
    scale = 1.0 if v3 else 1e3
    suffix = "_ns" if v3 else ""

    def stat(kind: str, key: str) -> float | None:
        block = d.get(kind + suffix)
        if not isinstance(block, dict) or key not in block or block.get("N", 1) == 0:
            return None
        return _num(block[key], f"{kind}.{key}", line) * scale

    io = FioIO(job_index=job_index, direction=name, io_bytes=io_bytes, bw_bytes_s=float(bw),
               iops=float(_num(d.get("iops", 0), "iops", line)),
               runtime_ms=int(_num(d.get("runtime", 0), "runtime", line)), slat_mean_ns=stat("slat", "mean"),
               clat_mean_ns=stat("clat", "mean"), lat_mean_ns=stat("lat", "mean"), lat_min_ns=stat("lat", "min"),
               lat_max_ns=stat("lat", "max"))
    pcts, bins = [], []
    for kind in ("clat", "lat"):
        block = d.get(kind + suffix)
        if not isinstance(block, dict):
            continue
        for p, v in (block.get("percentile") or {}).items():
            try:
                pct = float(p)
            except ValueError:
                raise ParseError(f"job {job_index} {name}: bad percentile key {p!r}", line) from None
            if pct > 0:  # fio 2.x pads the list with "0.00" : 0
                pcts.append(FioPercentile(job_index=job_index, direction=name, latency=kind, percentile=pct,
                                          value_ns=_num(v, "percentile", line) * scale))
        if v3 and kind == "clat":
            for ns, count in (block.get("bins") or {}).items():
                if not ns.isdigit():
                    raise ParseError(f"job {job_index} {name}: bad latency bin {ns!r}", line)
                bins.append(FioLatencyBin(job_index=job_index, direction=name, latency_ns=int(ns),
                                          count=int(_num(count, "bin", line))))
    return io, pcts, bins


def parse_json(text: str) -> Parsed:
    """Every fio JSON document of the file, one after another (fio run twice into one file), their jobs
    numbered on; where they end, when other text follows."""
    m = JSON_START.search(text)
    if not m:
        raise ParseError("no fio JSON object ('{' at a line's start, then \"fio version\")")
    decoder = json.JSONDecoder()
    pos, records, version = m.start(), [], None
    while True:
        first_line = text.count("\n", 0, pos) + 1  # lines before the first are fio's notes and errors
        try:
            doc, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            if not text[e.pos:].strip():  # the text ended inside the document
                raise ParseError(f"cut short: the JSON document ends before it closes (invalid JSON: {e.msg})",
                                 e.lineno) from None
            raise ParseError(f"invalid JSON: {e.msg}", e.lineno) from None
        jobs = doc.get("jobs", doc.get("client_stats")) if isinstance(doc, dict) else None
        if not isinstance(jobs, list):
            raise ParseError("fio JSON without a 'jobs' list", first_line)
        if version is None and isinstance(doc.get("fio version"), str):
            version = _version(doc["fio version"])
        fmt = "fio-json+" if '"bins"' in text else "fio-json"
        global_opts = doc.get("global options") or {}
        try:
            records += _json_jobs(jobs, global_opts, fmt, version, first_line,
                                  sum(isinstance(r, FioJob) for r in records), _started_ms(doc))
        except (KeyError, TypeError, AttributeError, ValueError) as e:  # a well-formed JSON of another shape
            raise ParseError(f"unexpected fio JSON structure: {e!r}", first_line) from None
        pos = NEXT_DOCUMENT.match(text, end).end()
        if not text.startswith('{', pos) or not JSON_START.match(text, pos):
            names = {r.jobname for r in records if isinstance(r, FioJob)}
            start = 0 if _same_jobs_normal(text[:m.start()], names) else m.start()
            end = None if pos == len(text) or _same_jobs_normal(text[end:], names) else end
            return Parsed(format=fmt, tool="fio", tool_version=version, records=records, start=start, end=end)


NEXT_DOCUMENT = re.compile(r"\s*")


def _same_jobs_normal(part: str, names: set[str]) -> bool:
    """Whether `part` is fio's normal output of the jobs the JSON holds: `--output-format=normal,json` prints
    the jobs' header lines before the JSON and their result blocks after it, the same run twice (its JSON,
    which states the options, is what is read)."""
    if not part.strip() or not _detect_normal(part[:DETECT_BYTES]):
        return False
    try:
        normal = parse_normal(part)
    except ParseError:
        return False
    return {r.jobname for r in normal.records if isinstance(r, FioJob)} <= names


def _started_ms(doc: dict) -> int | None:
    """The run's start as fio's JSON states it: "timestamp_ms" (fio >= 3.1), else "timestamp" (seconds)."""
    for key, scale in (("timestamp_ms", 1), ("timestamp", 1000)):
        value = doc.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value * scale
    return None


def _json_jobs(jobs: list, global_opts: dict, fmt: str, version: str | None, first_line: int,
               first_index: int = 0, started_ms: int | None = None) -> list:
    records: list = []
    for i, job in enumerate(jobs, first_index):
        if not isinstance(job, dict) or not isinstance(job.get("jobname"), str):
            raise ParseError(f"job {i}: not a job object with a jobname", first_line)
        opts = {**global_opts, **(job.get("job options") or {})}
        if not all(isinstance(v, str) for v in opts.values()):
            raise ParseError(f"job {i}: options must be strings", first_line)
        ios = []
        for name in DIRECTIONS:
            if name in job:
                io, pcts, bins = _json_direction(i, name, job[name], first_line)
                if io:
                    ios.append(io)
                    records += pcts + bins
        job_runtime_ms = json_float(job.get("job_runtime"))
        records.append(FioJob(
            job_index=i, format=fmt, version=version, jobname=job["jobname"], groupid=_int_or_none(job.get("groupid")),
            error=_int_or_none(job.get("error")),
            rw=opts.get("rw", opts.get("readwrite")), bs=opts.get("bs", opts.get("blocksize")),
            iodepth=_opt_int(opts.get("iodepth")), numjobs=_opt_int(opts.get("numjobs")),
            direct=_opt_int(opts.get("direct")),
            ioengine=opts.get("ioengine"),
            runtime_s=max((io.runtime_ms for io in ios), default=0) / 1000 if ios else None,
            usr_cpu_pct=json_float(job.get("usr_cpu")), sys_cpu_pct=json_float(job.get("sys_cpu")),
            bw_log=opts.get("write_bw_log"), iops_log=opts.get("write_iops_log"), lat_log=opts.get("write_lat_log"),
            size=opts.get("size"), options=json.dumps(opts, sort_keys=True), started_unix_ms=started_ms,
            job_runtime_s=None if job_runtime_ms is None else job_runtime_ms / 1000))
        records += ios
    return records


def _int_or_none(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


# ---------------------------------------------------------------- normal text (2.x and 3.x)

HEADER = re.compile(r"^(?P<name>\S.*?): \(g=(?P<g>\d+)\): rw=(?P<rw>\w+), bs=(?P<bs>.*?), "
                    r"ioengine=(?P<engine>\S+), iodepth=(?P<depth>\d+)\s*$")
VERSION_LINE = re.compile(r"^fio-(\d+\.\d+\S*)\s*$")
JOB_START = re.compile(r"^(?P<name>\S.*?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>\d+)")
def _unit(name: str) -> str:
    return rf"(?P<{name}>[KMGTP]?i?B|[kKMGTP]?B|)"


DIR3 = re.compile(rf"^\s+(?P<dir>read|write|trim)\s*: IOPS=(?P<iops>[\d.]+)(?P<isfx>[kKMG]?), "
                  rf"BW=(?P<bw>[\d.]+){_unit('bwu')}/s .*?\((?P<io>[\d.]+){_unit('iou')}/(?P<run>\d+)msec\)")
DIR2 = re.compile(rf"^\s+(?P<dir>read|write|trim)\s*: io=(?P<io>[\d.]+)\s?{_unit('iou')}, "
                  rf"bw=(?P<bw>[\d.]+)\s?{_unit('bwu')}/s, iops=(?P<iops>[\d.]+)\s*, runt=\s*(?P<run>\d+)msec")
LAT = re.compile(r"^\s+(?P<kind>slat|clat|lat)\s*\((?P<unit>nsec|usec|msec)\)\s*:\s*"
                 r"min=\s*(?P<min>[\d.]+)(?P<minsfx>[KMG]?)\s*,\s*max=\s*(?P<max>[\d.]+)(?P<maxsfx>[KMG]?)\s*,"
                 r"\s*avg=\s*(?P<avg>[\d.]+)")
PCT_HEAD = re.compile(r"^\s+(?P<kind>clat|lat) percentiles \((?P<unit>nsec|usec|msec)\):")
PCT_ROW = re.compile(r"^\s+\|")
PCT_ITEM = re.compile(r"([\d.]+)th=\[\s*(\d+)\]")
CPU = re.compile(r"^\s+cpu\s*:\s*usr=([\d.]+)%, sys=([\d.]+)%")
GROUP = re.compile(r"^Run status group (\d+) \(all jobs\):")
GROUP3 = re.compile(rf"^\s+(?P<dir>READ|WRITE|TRIM): bw=(?P<bw>[\d.]+){_unit('bwu')}/s .*?io=(?P<io>[\d.]+){_unit('iou')} "
                    rf".*?run=(?P<rmin>\d+)-(?P<rmax>\d+)msec")
GROUP2 = re.compile(rf"^\s+(?P<dir>READ|WRITE|TRIM): io=(?P<io>[\d.]+){_unit('iou')}, aggrb=(?P<bw>[\d.]+){_unit('bwu')}/s, "
                    rf".*?mint=(?P<rmin>\d+)msec, maxt=(?P<rmax>\d+)msec")
ERR_LINE = re.compile(r"^fio: pid=\d+, err=(\d+)/")


def _detect_normal(head: str) -> bool:
    # substring checks first: a MULTILINE regex tries every offset of a 1 MiB head
    if "(groupid=" not in head and "(g=" not in head:
        return False
    return bool(re.search(JOB_START.pattern, head, re.M) or
                (re.search(HEADER.pattern, head, re.M) and re.search(VERSION_LINE.pattern, head, re.M)))


def _size(number: str, unit: str, units: dict, line: int) -> float:
    if unit not in units:
        raise ParseError(f"unknown unit {unit!r}", line)
    return float(number) * units[unit]


class _NormalJob:
    """A job's result block as it is read, line by line."""

    def __init__(self, name: str, groupid: int, jobs: int, err: int):
        self.name, self.groupid, self.jobs, self.err = name, groupid, jobs, err
        self.dirs: dict[str, dict] = {}
        self.current: dict | None = None
        self.cpu: tuple[float, float] | None = None


def parse_normal(text: str) -> Parsed:
    headers: dict[str, re.Match] = {}
    version = None
    blocks: list[_NormalJob] = []
    groups: list[FioGroupStatus] = []
    first_err = None
    job = None
    pct_target = None  # (direction dict, kind, unit ns) while inside a percentile table
    group = None
    for n, line in enumerate(text.splitlines(), 1):
        try:
            job, group, pct_target, version, first_err = _normal_line(
                line, n, headers, blocks, groups, job, group, pct_target, version, first_err)
        except ValueError as e:  # e.g. "1.2.3" where fio prints a number
            raise ParseError(f"bad number: {e}", n) from None
    return _normal_records(headers, blocks, groups, version, first_err)


def _normal_line(line, n, headers, blocks, groups, job, group, pct_target, version, first_err):
    """Read one line of normal output into the running state; returns the updated state."""
    if pct_target and PCT_ROW.match(line):
        d, kind, scale = pct_target
        for p, v in PCT_ITEM.findall(line):
            d["pct"].append((kind, float(p), int(v) * scale))
        return job, group, pct_target, version, first_err
    pct_target = None
    if m := HEADER.match(line):
        headers.setdefault(m["name"], m)
    elif m := VERSION_LINE.match(line):
        version = m[1]
    elif m := JOB_START.match(line):
        job = _NormalJob(m["name"], int(m["g"]), int(m["jobs"]), int(m["err"]))
        blocks.append(job)
        group = None
    elif m := ERR_LINE.match(line):
        first_err = first_err if first_err is not None else int(m[1])
    elif m := GROUP.match(line):
        group, job = int(m[1]), None
    elif group is not None and (m := GROUP3.match(line) or GROUP2.match(line)):
        units = SIZE_3X if m.re is GROUP3 else SIZE_2X
        groups.append(FioGroupStatus(groupid=group, direction=m["dir"].lower(),
                                     io_bytes=int(_size(m["io"], m["iou"], units, n)),
                                     bw_bytes_s=_size(m["bw"], m["bwu"], units, n), run_min_ms=int(m["rmin"]),
                                     run_max_ms=int(m["rmax"])))
    elif job is None:
        pass
    elif m := DIR3.match(line):
        iops = float(m["iops"]) * COUNT_SUFFIX[m["isfx"]]
        job.current = job.dirs.setdefault(m["dir"], {"pct": []})
        job.current.update(io=int(_size(m["io"], m["iou"], SIZE_3X, n)), bw=_size(m["bw"], m["bwu"], SIZE_3X, n),
                           iops=iops, run=int(m["run"]))
    elif m := DIR2.match(line):
        job.current = job.dirs.setdefault(m["dir"], {"pct": []})
        job.current.update(io=int(_size(m["io"], m["iou"], SIZE_2X, n)), bw=_size(m["bw"], m["bwu"], SIZE_2X, n),
                           iops=float(m["iops"]), run=int(m["run"]))
    elif (m := LAT.match(line)) and job.current is not None:
        scale = LAT_UNIT_NS[m["unit"]]
        job.current[m["kind"]] = (float(m["min"]) * COUNT_SUFFIX[m["minsfx"]] * scale,
                                  float(m["max"]) * COUNT_SUFFIX[m["maxsfx"]] * scale,
                                  float(m["avg"]) * scale)
    elif (m := PCT_HEAD.match(line)) and job.current is not None:
        pct_target = (job.current, m["kind"], LAT_UNIT_NS[m["unit"]])
    elif m := CPU.match(line):
        job.cpu = (float(m[1]), float(m[2]))
    return job, group, pct_target, version, first_err


def _normal_records(headers, blocks, groups, version, first_err) -> Parsed:
    if not blocks and not headers:
        raise ParseError("no fio job lines ('name: (groupid=...' or 'name: (g=...): rw=')")
    records: list = list(groups)
    fmt = "fio-normal"
    # without group_reporting, each of a job's numjobs processes prints a block of its own (jobs=1)
    processes = Counter((b.name, b.groupid) for b in blocks)
    for i, b in enumerate(blocks):
        h = headers.get(b.name)
        ios = []
        for name, d in b.dirs.items():
            slat, clat, lat = d.get("slat"), d.get("clat"), d.get("lat")
            ios.append(FioIO(job_index=i, direction=name, io_bytes=d["io"], bw_bytes_s=d["bw"], iops=d["iops"],
                             runtime_ms=d["run"], slat_mean_ns=slat and slat[2], clat_mean_ns=clat and clat[2],
                             lat_mean_ns=lat and lat[2], lat_min_ns=lat and lat[0], lat_max_ns=lat and lat[1]))
            records += [FioPercentile(job_index=i, direction=name, latency=kind, percentile=p,
                                      value_ns=v) for kind, p, v in d["pct"]]
        records.append(FioJob(
            job_index=i, format=fmt, version=version, jobname=b.name, groupid=b.groupid, error=b.err, rw=h and h["rw"],
            bs=h and h["bs"],
            iodepth=h and int(h["depth"]), numjobs=b.jobs if b.jobs > 1 else processes[(b.name, b.groupid)], direct=None, ioengine=h and h["engine"],
            runtime_s=max(io.runtime_ms for io in ios) / 1000 if ios else None,
            usr_cpu_pct=b.cpu and b.cpu[0], sys_cpu_pct=b.cpu and b.cpu[1], bw_log=None, iops_log=None, lat_log=None))
        records += ios
    # Jobs that never reported (e.g. a file that could not be created) exist only as header lines.
    reported = {b.name for b in blocks}
    for i, (name, h) in enumerate(((k, h) for k, h in headers.items() if k not in reported), len(blocks)):
        records.append(FioJob(job_index=i, format=fmt, version=version, jobname=name, groupid=int(h["g"]),
                              error=first_err, rw=h["rw"], bs=h["bs"], iodepth=int(h["depth"]),
                              numjobs=None, direct=None, ioengine=h["engine"], runtime_s=None, usr_cpu_pct=None,
                              sys_cpu_pct=None, bw_log=None, iops_log=None, lat_log=None))
    return Parsed(format=fmt, tool="fio", tool_version=version, records=records)


# ---------------------------------------------------------------- terse v3, v4, v5

TERSE_LINE = re.compile(r"^([345]);fio-[^;]*;", re.M)
# Per direction: io KiB, bw KiB/s, iops, runtime ms; slat, clat (min max mean stdev, usec);
# 20 clat percentiles "P%=usec"; lat (min max mean stdev); bw min max agg% mean stdev;
# v5 adds bw samples and iops min max mean stdev samples.
TERSE_DIR_FIELDS = {3: 41, 4: 41, 5: 47}
TERSE_DIRS = {3: ("read", "write"), 4: DIRECTIONS, 5: DIRECTIONS}


def _detect_terse(head: str) -> bool:
    if ";fio-" not in head:
        return False
    return bool(TERSE_LINE.search(head))


def parse_terse(text: str) -> Parsed:
    records: list = []
    version = None
    formats = set()
    job_index = 0
    for n, line in enumerate(text.splitlines(), 1):
        if not TERSE_LINE.match(line):
            continue  # fio's notes and error lines may be interleaved
        f = line.split(";")
        terse = int(f[0])
        width = TERSE_DIR_FIELDS[terse]
        dirs = TERSE_DIRS[terse]
        needed = 5 + width * len(dirs) + 2
        if len(f) < needed:
            raise ParseError(f"terse v{terse} line has {len(f)} fields, needs at least {needed}", n)
        try:
            ios, pcts = [], []
            for k, name in enumerate(dirs):
                d = f[5 + k * width: 5 + (k + 1) * width]
                io_kib = int(d[0])
                if io_kib == 0:
                    continue
                ios.append(FioIO(job_index=job_index, direction=name, io_bytes=io_kib * 1024,
                                 bw_bytes_s=float(d[1]) * 1024, iops=float(d[2]), runtime_ms=int(d[3]),
                                 slat_mean_ns=float(d[6]) * 1e3, clat_mean_ns=float(d[10]) * 1e3,
                                 lat_mean_ns=float(d[34]) * 1e3,
                                 lat_min_ns=float(d[32]) * 1e3, lat_max_ns=float(d[33]) * 1e3))
                for item in d[12:32]:
                    p, _, v = item.partition("%=")
                    if float(p) > 0:  # unused slots read "0%=0"
                        pcts.append(FioPercentile(job_index=job_index, direction=name, latency="clat",
                                                  percentile=float(p), value_ns=float(v) * 1e3))
            cpu = 5 + width * len(dirs)
            usr, sys_ = float(f[cpu].rstrip("%")), float(f[cpu + 1].rstrip("%"))
            groupid, error = int(f[3]), int(f[4])
        except (ValueError, IndexError) as e:
            raise ParseError(f"terse v{terse} line: bad field ({e})", n) from None
        version = _version(f[1])
        formats.add(f"fio-terse-v{terse}")
        records.append(FioJob(job_index=job_index, format=f"fio-terse-v{terse}", version=version, jobname=f[2],
                              groupid=groupid, error=error, rw=None, bs=None, iodepth=None,
                              numjobs=None, direct=None, ioengine=None,
                              runtime_s=max(io.runtime_ms for io in ios) / 1000 if ios else None,
                              usr_cpu_pct=usr, sys_cpu_pct=sys_, bw_log=None, iops_log=None, lat_log=None))
        records += ios + pcts
        job_index += 1
    if not records:
        raise ParseError("no terse lines ('3;fio-...;', '4;...' or '5;...')")
    if len(formats) > 1:
        raise ParseError(f"mixed terse versions {sorted(formats)}")
    return Parsed(format=formats.pop(), tool="fio", tool_version=version, records=records)


# ---------------------------------------------------------------- bw / iops / lat logs

# fio's per-job logs: "time_ms, value, ddir, bs[, offset[, prio]]", integers only (fio 2.x writes
# four columns, 3.x five, six with log_prio). Which log (bw, iops, clat, slat, lat) a file is
# cannot be told from its numbers; the view takes it from the file name fio gave it.
LOG_LINE = r"\d+(?:, ?\d+){3,5}"
LOG_DETECT_LINES = 1000  # a log is uniform: its first lines tell
LOG_COLUMNS = ("t_ms", "value", "direction_code", "bs", "offset_bytes", "prio")


def _detect_log(head: str) -> bool:
    if not head[:1].isdigit():  # the first line must be a log line: no need to split a 1 MiB head into lines
        return False
    lines = head.splitlines()[:LOG_DETECT_LINES + 1]
    if len(lines) > LOG_DETECT_LINES or len(head) >= DETECT_BYTES:
        lines = lines[:-1]  # the last line of a cut head may be partial
    return bool(lines) and all(re.fullmatch(LOG_LINE, ln) for ln in lines)


def parse_log(text: str) -> Parsed:
    return Parsed(format="fio-log", tool="fio", tool_version=None,
                  tables={FioLogSample: log_table(text, log_columns(text))})


def log_columns(text: str) -> int:
    """How many columns a log has, from its first line (4 to 6)."""
    ncols = first_line(text).count(",") + 1
    if not 4 <= ncols <= 6:
        raise ParseError(f"fio log lines have 4 to 6 integer columns, this one has {ncols}", 1)
    return ncols


def log_table(text: str, ncols: int, first_line: int = 1) -> pa.Table:
    """The rows of whole log lines of `ncols` columns (the first at line `first_line` of its file: ingest
    streams a large log in pieces), checked and converted by Arrow; the first bad line fails it."""
    data = text.encode()
    names = LOG_COLUMNS[:ncols]
    table = None
    if _only_log_lines(data):  # then Arrow's int64 columns check the rest: their count, and the range
        try:
            table = pa_csv.read_csv(io.BytesIO(data), pa_csv.ReadOptions(column_names=names, use_threads=False),
                                    convert_options=pa_csv.ConvertOptions(column_types=dict.fromkeys(names, pa.int64())))
        except pa.ArrowInvalid:
            pass
    if table is None:
        _fail_at_bad_line(text, ncols, first_line)
    return table


def _only_log_lines(data: bytes) -> bool:
    """Whether `data` holds only lines of unsigned integers separated by "," or ", ": the check that a
    regex over the whole text made, which took ~30 bytes of memory a byte of log (backtracking state)."""
    bare = data.replace(b", ", b",")
    return not (bare.translate(None, b"0123456789,\n") or bare.startswith((b"\n", b",")) or b"\n\n" in bare
                or b",," in bare or b",\n" in bare or b"\n," in bare or bare.endswith(b","))


def _fail_at_bad_line(text: str, ncols: int, first_line: int) -> None:
    """Raise for the first line that is not `ncols` integers, or holds one past BIGINT."""
    line_re = re.compile(r"\d+" + r", ?\d+" * (ncols - 1), re.ASCII)
    lines = text.split("\n")
    lines = lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines
    for n, line in enumerate(lines, first_line):
        if not line_re.fullmatch(line):
            raise ParseError(f"not a fio log line of {ncols} integers: {line[:60]!r}", n)
        if any(int(v) >= 2**63 for v in line.split(",")):
            raise ParseError(f"a number past the 64-bit integer range: {line[:60]!r}", n)
    raise ParseError("fio log lines Arrow cannot read as integers", first_line)  # each line passed: not seen


# ---------------------------------------------------------------- fio's own error output

# fio refusing its options or job file prints only these lines (e.g. "fio: failed parsing rw=wriet",
# "fio: unrecognized option '--badopt=1'", "Bad option <x=7>" then "fio: job job1 dropped") and no job.
ERROR_LINE = re.compile(r"^(?:fio: .+|Bad option <.*>)$", re.M)


def _detect_error(head: str) -> bool:
    return bool(ERROR_LINE.fullmatch(first_line(head.lstrip())))


def parse_error(text: str) -> Parsed:
    """A failed fio run: fio's own message (its distinct error lines, in order) at the first one's line."""
    found = list(ERROR_LINE.finditer(text))
    if not found:
        raise ParseError("no fio error line ('fio: ...' or 'Bad option <...>')", 1)
    message = "; ".join(dict.fromkeys(m.group(0) for m in found))
    raise ParseError(f"fio failed: {message}", text.count("\n", 0, found[0].start()) + 1)


FORMATS = (
    # a JSON document need not end in a newline (json.dump writes none): the decoder tells a cut one
    Format(name="fio-json", tool="fio", detect=_detect_json, parse=parse_json, ends_in_newline=False),
    Format(name="fio-terse", tool="fio", detect=_detect_terse, parse=parse_terse),
    Format(name="fio-normal", tool="fio", detect=_detect_normal, parse=parse_normal),
    Format(name="fio-log", tool="fio", detect=_detect_log, parse=parse_log),
    Format(name="fio-error", tool="fio", detect=_detect_error, parse=parse_error),
)
RECORDS = (FioJob, FioIO, FioPercentile, FioLatencyBin, FioGroupStatus, FioLogSample)
