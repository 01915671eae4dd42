"""fio's normal text output (2.x and 3.x) as fio_records' records. Each number carries its unit; 3.x prints KiB/MiB (1024) and kB/MB (1000), 2.x prints
KB/MB meaning 1024 (its default kb_base); latency lines say (nsec|usec|msec) and min/max may carry a K/M suffix
(x1000).
"""
from __future__ import annotations

import re
from collections import Counter

from . import Format, ParseError, Parsed
from .fio_records import FioGroupStatus, FioIO, FioJob, FioPercentile

SIZE_3X = {"": 1, "B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50,
           "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15}
SIZE_2X = {"": 1, "B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40, "PB": 2**50}
COUNT_SUFFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
LAT_UNIT_NS = {"nsec": 1.0, "usec": 1e3, "msec": 1e6}


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


def detect_normal(head: str) -> bool:
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


FORMATS = (Format(name="fio-normal", tool="fio", detect=detect_normal, parse=parse_normal),)
