"""fio's terse output, v3 to v5: KiB, KiB/s, msec and usec (fio's documented field order, man fio "TERSE OUTPUT"),
as fio_records' records."""
from __future__ import annotations

import re

from . import Format, ParseError, Parsed
from .fio_records import DIRECTIONS, FioIO, FioJob, FioPercentile, tool_version

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
        version = tool_version(f[1])
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


FORMATS = (Format(name="fio-terse", tool="fio", detect=_detect_terse, parse=parse_terse),)
