"""fio's JSON and json+ output (fio 2.x and 3.x), one document or several one after another: fio_records' records.
- fio 3.x JSON: bw_bytes in B/s, latencies in ns (slat_ns/clat_ns/lat_ns).
- fio 2.x JSON: "io_bytes" is really KiB (3.0 added io_kbytes and fixed it), bw in KiB/s,
  latencies in usec (slat/clat/lat).
"""
from __future__ import annotations

import json
import re

from . import DETECT_BYTES, Format, ParseError, Parsed, json_float
from .fio_records import DIRECTIONS, FioIO, FioJob, FioLatencyBin, FioPercentile, tool_version
from .fio_text import detect_normal, parse_normal

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
            version = tool_version(doc["fio version"])
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
    if not part.strip() or not detect_normal(part[:DETECT_BYTES]):
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


FORMATS = (
    # a JSON document need not end in a newline (json.dump writes none): the decoder tells a cut one
    Format(name="fio-json", tool="fio", detect=_detect_json, parse=parse_json, ends_in_newline=False),
)
