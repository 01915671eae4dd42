"""md-workbench: the output of IO500's extended-mode phases mdworkbench-create, -bench and -delete (the files
mdworkbench-create.txt, mdworkbench-bench.txt, mdworkbench-delete.txt of its results folder), and of
md-workbench run alone.

A run prints its arguments ("Args: ./md-workbench ..."), one header ("MD-Workbench total objects: N
workingset size: X MiB (version: V) time: T"), one line per phase it ran (precreate, benchmark, cleanup)
over all processes, with --process-reports one such line per process ("7: precreate process max:..."), and
"Total runtime: Ns". A phase line holds the slowest process's time, its rates, its errors, and for each
operation it timed seven latencies in seconds: min, first quartile, median, third quartile, 90th and 99th
percentile, max (md-workbench.c, print_p_stat). Rates are as printed: iops/s, obj/s, dset/s, MiB/s.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed, line_starting

TOOL = "md-workbench"


@dataclass(frozen=True, kw_only=True)
class MdworkbenchRun:
    TABLE: ClassVar[str] = "raw_mdworkbench_runs"
    line: int  # of its "MD-Workbench total objects" header
    version: str | None
    command: str | None  # the "Args:" line, as printed
    started: str | None  # "YYYY-MM-DD HH:MM:SS" of the header
    total_objects: int
    workingset_mib: float
    runtime_s: float | None  # "Total runtime: Ns" (None: the output ends before it)


@dataclass(frozen=True, kw_only=True)
class MdworkbenchPhase:
    TABLE: ClassVar[str] = "raw_mdworkbench_phases"
    line: int
    phase: str  # precreate | benchmark | cleanup
    rank: int | None  # None on the line over all processes
    max_s: float  # "process max": the slowest process's time
    min_s: float | None  # min, mean, balance (min/max, %) and stddev of the processes' times: all-process line only
    mean_s: float | None
    balance_pct: float | None
    stddev_s: float | None
    rate_iops: float | None
    rate_obj_s: float | None
    rate_dset_s: float | None  # precreate and cleanup
    objects: int | None
    dsets: int | None
    tp_mib_s: float | None  # precreate and benchmark
    op_max_s: float | None  # the longest single operation
    errors: int | None
    stonewall_iterations: int | None


@dataclass(frozen=True, kw_only=True)
class MdworkbenchLatency:
    TABLE: ClassVar[str] = "raw_mdworkbench_latencies"
    line: int  # of its phase line
    phase: str
    rank: int | None
    operation: str  # read | stat | create | delete
    min_s: float
    q1_s: float
    median_s: float
    q3_s: float
    q90_s: float
    q99_s: float
    max_s: float


RECORDS = (MdworkbenchRun, MdworkbenchPhase, MdworkbenchLatency)

_NUMBER = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_DECIMAL = r"\d+(?:\.\d+)?"  # a size or a time as printed: one point at most ('.59.96' is no number)
_HEADER = re.compile(rf"MD-Workbench total objects: (\d+) workingset size: ({_DECIMAL}) MiB \(version: ([^)]*)\) "
                     r"time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*")
_HEADER_LINE = re.compile(r"MD-Workbench total objects: ")
_PHASE = re.compile(rf"(?:(\d+): )?(precreate|benchmark|cleanup) process max:({_DECIMAL})s (.*)")
_VALUE = re.compile(rf"([a-z][\w-]*): ?({_NUMBER})( iops/s| obj/s| dset/s| MiB/s|s)?(?= |$)")
_ERRORS = re.compile(r"\((\d+) errs(?:!!!)?\)(?= |$)")
_LATENCY = re.compile(rf"(read|stat|create|delete)\(((?:{_NUMBER}s, ){{6}}{_NUMBER}s)\)(?= |$)")
_RUNTIME = re.compile(r"Total runtime: (\d+)s\b")
# (key, unit) as print_p_stat prints them -> field
_FIELDS = {("min", "s"): "min_s", ("mean", "s"): "mean_s", ("balance", ""): "balance_pct",
           ("stddev", ""): "stddev_s", ("rate", " iops/s"): "rate_iops", ("rate", " obj/s"): "rate_obj_s",
           ("rate", " dset/s"): "rate_dset_s", ("objects", ""): "objects", ("dsets", ""): "dsets",
           ("tp", " MiB/s"): "tp_mib_s", ("op-max", "s"): "op_max_s", ("stonewall-iter", ""): "stonewall_iterations",
           ("waiting_factor", ""): None}
_COUNTS = ("objects", "dsets", "stonewall_iterations")
_OPTIONAL = tuple(f.name for f in dataclasses.fields(MdworkbenchPhase))[4:]  # after line, phase, rank, max_s


def parse(text: str) -> Parsed:
    runs, phases, latencies = [], [], []
    run: dict | None = None
    command = None
    lines = text.split("\n")
    for no, line in enumerate(lines, 1):
        if line.startswith("Args: "):
            command = line[len("Args: "):].strip()
        elif line.startswith("MD-Workbench total objects: "):
            if run:
                runs.append(MdworkbenchRun(**run))
            m = _HEADER.fullmatch(line)
            if not m:
                raise ParseError("md-workbench header line not as md-workbench prints it", no)
            run = {"line": no, "version": m[3], "command": command, "started": m[4], "total_objects": int(m[1]),
                   "workingset_mib": float(m[2]), "runtime_s": None}
            command = None
        elif run and (m := _PHASE.fullmatch(line)):
            phase, lats = _phase(m, no)
            phases.append(phase)
            latencies += lats
        elif run and line.startswith("Total runtime: ") and (m := _RUNTIME.match(line)):
            run["runtime_s"] = float(m[1])
    if run:
        runs.append(MdworkbenchRun(**run))
    if not runs:
        raise ParseError("no md-workbench header ('MD-Workbench total objects: ...')", 1)
    if not any(p.rank is None for p in phases):
        raise ParseError("no md-workbench phase result: the output ends before its first phase",
                         max(1, text.count("\n")))
    return Parsed(format="md-workbench-text", tool=TOOL, tool_version=runs[0].version,
                  records=[*runs, *phases, *latencies])


def _phase(m: re.Match, no: int) -> tuple[MdworkbenchPhase, list[MdworkbenchLatency]]:
    """A phase line: its values as print_p_stat prints them, every part of it read (or it fails)."""
    rank = int(m[1]) if m[1] is not None else None
    values: dict = {}
    latencies = []
    rest = m[4]
    while rest:
        rest = rest.lstrip(" ")
        if match := _LATENCY.match(rest):
            numbers = [float(v.rstrip("s")) for v in match[2].split(", ")]
            min_s, q1_s, median_s, q3_s, q90_s, q99_s, max_s = numbers
            latencies.append(MdworkbenchLatency(line=no, phase=m[2], rank=rank, operation=match[1], min_s=min_s,
                                                q1_s=q1_s, median_s=median_s, q3_s=q3_s, q90_s=q90_s, q99_s=q99_s,
                                                max_s=max_s))
        elif match := _ERRORS.match(rest):
            values["errors"] = int(match[1])
        elif (match := _VALUE.match(rest)) and (match[1], match[3] or "") in _FIELDS:
            field = _FIELDS[(match[1], match[3] or "")]
            if field:
                values[field] = int(float(match[2])) if field in _COUNTS else float(match[2])
        elif rest:
            raise ParseError(f"md-workbench {m[2]} line: {rest[:40]!r} is not as md-workbench prints it", no)
        else:
            break
        rest = rest[match.end():]
    return MdworkbenchPhase(line=no, phase=m[2], rank=rank, max_s=float(m[3]),
                            **{f: values.get(f) for f in _OPTIONAL}), latencies


def _detect(head: str) -> bool:
    return "MD-Workbench total objects: " in head and line_starting(_HEADER_LINE, head)


FORMATS = (Format(name="md-workbench-text", tool=TOOL, detect=_detect, parse=parse),)
