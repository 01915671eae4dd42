"""The 2017 IO500 script's stdout and the per-phase result snippets it wrote beside it (io500-sc17-log), as io500's
records.
"""
from __future__ import annotations

import re

from . import Format, ParseError, Parsed, line_starting
from .io500 import GIB, NUMBER, Io500File, Io500Flag, Io500Phase, as_float, canonical_phase, resolution_of, unit_of

_SC17_PHASE = re.compile(rf"^\d+/((?:ior|md)-(?:easy|hard)-\w+|find) (BW|IOPs):\s*({NUMBER})(?: MB/s)?\s+"
                         rf"time:\s*({NUMBER})s\s*$")
_SC17_SCORE = re.compile(rf"^IO-500 (bw score|md score|score):\s+({NUMBER})")
_SC17_SETTING = re.compile(r"(date|nodes|ppn)=(\S+)\s*$")


_SC17_PHASE_LINE = re.compile(r"^\d+/((ior|md)-(easy|hard)-\w+|find) (BW|IOPs):", re.M)
_SC17_SCORE_LINE = re.compile(r"IO-500 (bw|md) score: ")


def _detect_sc17(head: str) -> bool:
    if " BW:" not in head and " IOPs:" not in head and "IO-500 " not in head:
        return False
    return bool(_SC17_PHASE_LINE.search(head)) or line_starting(_SC17_SCORE_LINE, head)


def parse_sc17(text: str) -> Parsed:
    """The SC17 script printed bandwidth in MB/s (10^6 bytes, IOR's "MB/sec") and rates in IOPS; the
    2017 score was the product BW x MD, not a geometric mean."""
    phases, flags, reported, settings = [], [], {}, {}
    warned_line = None
    for no, line in enumerate(text.splitlines(), 1):
        if m := _SC17_PHASE.match(line):
            label, kind, value, time_s = m.groups()
            phase = canonical_phase(label)
            raw = as_float(value, no, label)
            converted, scale = (raw * 1e6 / GIB, 1e6 / GIB) if kind == "BW" else (raw / 1000, 1 / 1000)
            phases.append(Io500Phase(position=len(phases), phase=phase, label=label, value=converted,
                                     unit=unit_of(phase), time_s=as_float(time_s, no, "time"),
                                     scored=True, invalid=warned_line is not None, stonewall_s=None,
                                     resolution=resolution_of(value, scale), line=no))
            if warned_line is not None:
                flags.append(Io500Flag(line=warned_line, phase=phase, severity="invalid",
                                       message="the runtime is below 5 minutes"))
            warned_line = None
        elif line.startswith("[Warning]: the runtime is below 5 minutes"):
            warned_line = no  # printed just before the phase result it is about
        elif m := _SC17_SCORE.match(line):
            reported[m.group(1)] = as_float(m.group(2), no, m.group(1))
        elif m := _SC17_SETTING.match(line):
            settings[m.group(1)] = m.group(2)
    if not phases:
        raise ParseError("no phase result lines: not an IO500 2017 log")
    procs = None
    if settings.get("nodes", "").isdigit() and settings.get("ppn", "").isdigit():
        procs = int(settings["nodes"]) * int(settings["ppn"])
    is_log = bool(reported or settings)
    bw, md = reported.get("bw score"), reported.get("md score")
    record = Io500File(kind="sc17-log" if is_log else "sc17-fragment", io500_version="sc17", mode=None,
                       started=settings.get("date"), result_dir=None, procs=procs,
                       stonewall_s=None, complete="score" in reported,
                       reported_bw_gib_s=bw * 1e6 / GIB if bw is not None else None,
                       reported_md_kiops=md / 1000 if md is not None else None, reported_score=reported.get("score"),
                       reported_score_invalid=False, reported_x_bw_gib_s=None, reported_x_md_kiops=None,
                       reported_x_score=None,
                       score_rule="sc17-product")
    return Parsed(format="io500-sc17-log", tool="io500", tool_version="sc17", records=[record, *phases, *flags])


FORMATS = (Format(name="io500-sc17-log", tool="io500", detect=_detect_sc17, parse=parse_sc17),)
