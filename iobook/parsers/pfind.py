"""pfind's CSV of a find phase: what io500 writes as find.csv, find-easy.csv and find-hard.csv.

pfind (VI4IO/pfind, run in-process by io500) writes one line "runtime: <s> rate: <items/s>" then a CSV of one
row per rank: "rank, errors, unknown, found, total, checked, job steal msgs received, work items send, job
steal msgs send, work items stolen, time spend in job stealing in s, number of completion tokens send", the
stealing time with an "s" after it. All 104 such files of the IO500 archive have this layout.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed, first_line

RUNTIME_LINE = re.compile(r"runtime: (\d+(?:\.\d+)?) rate: (\d+(?:\.\d+)?)")
HEADER = ("rank, errors, unknown, found, total, checked, job steal msgs received, work items send, "
          "job steal msgs send, work items stolen, time spend in job stealing in s, "
          "number of completion tokens send")
COUNT_FIELDS = ("rank", "errors", "unknown", "found", "total", "checked", "steal_msgs_received",
                "work_items_sent", "steal_msgs_sent", "work_items_stolen")
SECONDS = re.compile(r"(\d+(?:\.\d+)?)s")


@dataclass(frozen=True, kw_only=True)
class PfindRun:
    TABLE: ClassVar[str] = "raw_pfind_runs"
    runtime_s: float
    rate: float  # items checked per second, as pfind prints it


@dataclass(frozen=True, kw_only=True)
class PfindRank:
    TABLE: ClassVar[str] = "raw_pfind_ranks"
    rank: int
    errors: int  # a phase with errors is a failed phase (pfind_runs.failed)
    unknown: int
    found: int
    total: int
    checked: int
    steal_msgs_received: int
    work_items_sent: int
    steal_msgs_sent: int
    work_items_stolen: int
    stealing_s: float
    completion_tokens_sent: int
    line: int


def _detect(head: str) -> bool:
    first, _, rest = head.partition("\n")
    return bool(RUNTIME_LINE.fullmatch(first.strip())) and first_line(rest).strip() == HEADER


def parse(text: str) -> Parsed:
    lines = text.splitlines()
    m = RUNTIME_LINE.fullmatch(lines[0].strip()) if lines else None
    if not m or len(lines) < 2 or lines[1].strip() != HEADER:
        raise ParseError("no pfind 'runtime: ... rate: ...' line and rank header", 1)
    records: list = [PfindRun(runtime_s=float(m[1]), rate=float(m[2]))]
    for n, line in enumerate(lines[2:], 3):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        seconds = SECONDS.fullmatch(fields[10]) if len(fields) == 12 else None
        if seconds is None or not all(f.isdigit() for f in fields[:10] + fields[11:]):
            raise ParseError(f"pfind rank row: expected 12 fields (counts, then seconds with 's'), got {line[:80]!r}", n)
        counts = dict(zip(COUNT_FIELDS, map(int, fields[:10])))
        records.append(PfindRank(**counts, stealing_s=float(seconds[1]), completion_tokens_sent=int(fields[11]),
                                 line=n))
    if len(records) == 1:
        raise ParseError("pfind CSV without a rank row", len(lines))
    return Parsed(format="pfind-csv", tool="pfind", tool_version=None, records=records)


FORMATS = (Format(name="pfind-csv", tool="pfind", detect=_detect, parse=parse),)
RECORDS = (PfindRun, PfindRank)
