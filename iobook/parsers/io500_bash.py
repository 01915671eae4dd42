"""The IO500 bash script's (v1, 2018-2020) result_summary.txt and the io-500-summary.<ts>.txt log that holds the
same [RESULT] lines (io500-bash), as io500's records.
"""
from __future__ import annotations

import math
import re

from . import Format, ParseError, Parsed, line_starting
from .io500 import (NUMBER, Io500File, Io500Flag, Io500Info, Io500Phase, as_float, canonical_phase, resolution_of,
                    unit_of)

_BASH_RESULT = re.compile(rf"^\[RESULT(-invalid)?\]\s+(BW|IOPS)\s+phase\s+\d+\s+(\w+)\s+({NUMBER})\s+"
                          rf"(GB/s|GiB/s|kiops)\s*:\s*time\s+({NUMBER})\s+seconds\s*$")
_BASH_SCORE = re.compile(rf"^\[SCORE(-invalid)?\]\s+Bandwidth\s+({NUMBER})\s+(GB/s|GiB/s)\s*:\s*IOPS\s+"
                         rf"({NUMBER})\s+kiops\s*:\s*TOTAL\s+({NUMBER})\s*$")
_BASH_SUMMARY_START = "[Summary] Results files in "
BASH_INFO = re.compile(r"io500_info_(\w+)=['\"]?([^'\"]*)['\"]?\s*$")
_BASH_DATE = re.compile(r"date=(\d{4}\.\d\d\.\d\d-\d\d\.\d\d\.\d\d)\s*$")
_BASH_RESULT_DIR = re.compile(r"io500_result_dir=['\"]?([^'\"]*)")
_BASH_EXEC = "[Exec] "  # the bash script's echo of each phase's command line
_BASH_WORKDIR = re.compile(r"io500_workdir=['\"]?([^'\"]*)")
_BASH_STONEWALL = re.compile(r"io500_stonewall_timer=['\"]?(\d+)")


_BASH_RESULT_LINE = re.compile(r"^\[RESULT(-invalid)?\]\s+(BW|IOPS)\s+phase\s+\d", re.M)  # \s+ may span lines
_BASH_SYSTEM_LINE = re.compile(r"System: ")
_BASH_DATE_LINE = re.compile(r"date=\d{4}\.\d\d\.\d\d-")


def detect_bash(head: str) -> bool:
    # substring checks first: a MULTILINE regex tries every offset of a 1 MiB head
    if "[RESULT" not in head and "System: " not in head:
        return False
    if _BASH_RESULT_LINE.search(head):
        return True
    # a log that stopped before its first result still starts with the script's description
    return line_starting(_BASH_SYSTEM_LINE, head) and line_starting(_BASH_DATE_LINE, head)


def parse_bash(text: str) -> Parsed:
    """The bash script prints [RESULT] lines while it runs, then (after "[Summary] Results files in")
    cats result_summary.txt, which it appends to: that tail can repeat earlier runs, so a log's own
    phases are the lines before it and its score is the last [SCORE] line."""
    lines = text.splitlines()
    is_log = any(line.startswith(("[Starting]", "System: ", "date=", "io500_")) for line in lines)
    summary_at = next((i for i, line in enumerate(lines) if line.startswith(_BASH_SUMMARY_START)), None)
    results = [(i + 1, m) for i, line in enumerate(lines) if line.startswith("[RESULT") and (m := _BASH_RESULT.match(line))]
    scores = [(i + 1, m) for i, line in enumerate(lines) if line.startswith("[SCORE") and (m := _BASH_SCORE.match(line))]
    if summary_at is not None:
        own = [(no, m) for no, m in results if no <= summary_at]
    elif len(scores) > 1:  # a result_summary.txt appended to by several runs: the last run is its own
        own = [(no, m) for no, m in results if no > scores[-2][0]]
    else:
        own = results
    flags, phases = [], {}
    for no, m in own:
        invalid, _kind, label, value, _unit, time_s = m.groups()
        phase = canonical_phase(label)
        # The bash script's "GB/s" is GiB/s: it divided IOR's MiB/s by 1024 (bytes / 1024^3).
        phases[phase] = Io500Phase(position=len(phases), phase=phase, label=label, value=as_float(value, no, label),
                                   unit=unit_of(phase),
                                   time_s=as_float(time_s, no, "time"), scored=True, invalid=bool(invalid),
                                   stonewall_s=None, resolution=resolution_of(value), line=no)
        if invalid:
            flags.append(Io500Flag(line=no, phase=phase, severity="invalid", message="[RESULT-invalid]"))
    if not phases and not is_log:
        raise ParseError("no [RESULT] phase lines: not an IO500 bash summary")
    score = scores[-1] if scores and (summary_at is None or scores[-1][0] > summary_at) else None
    bw = md = total = None
    score_invalid = False
    if score:
        no, m = score
        score_invalid = bool(m.group(1))
        bw, md, total = (as_float(m.group(k), no, "score") for k in (2, 4, 5))
        if score_invalid:
            flags.append(Io500Flag(line=no, phase=None, severity="invalid", message="[SCORE-invalid]"))
    started = result_dir = stonewall = None
    info = []
    for no, line in enumerate(lines, 1):
        io500 = line.startswith("io500_")  # checked first: most lines are none of these
        if io500 and (m := BASH_INFO.match(line)):
            info.append(Io500Info(line=no, key=m.group(1), value=m.group(2).strip()))
        elif line.startswith("date=") and (m := _BASH_DATE.match(line)):
            started = started or m.group(1)
        elif io500 and (m := _BASH_WORKDIR.match(line)):  # where the data went: names a mount (/mnt/lustre02)
            info.append(Io500Info(line=no, key="io500_workdir", value=m.group(1).strip()))
        elif line.startswith(_BASH_EXEC):  # a phase's command line (its API: -a DFS ...)
            info.append(Io500Info(line=no, key="exec", value=line[len(_BASH_EXEC):].strip()))
        elif io500 and (m := _BASH_RESULT_DIR.match(line)):
            result_dir = result_dir or m.group(1)
        elif io500 and (m := _BASH_STONEWALL.match(line)):
            stonewall = float(m.group(1))
        elif line.startswith(_BASH_SUMMARY_START):
            result_dir = result_dir or line[len(_BASH_SUMMARY_START):].strip()
        elif line.startswith(("[Warning]", "[WARNING]")) or line.startswith("One or more test phases invalid"):
            flags.append(Io500Flag(line=no, phase=None, severity="warning" if line.startswith("[") else "invalid",
                                   message=line.split("]", 1)[-1].strip()))
    # The first bash scripts (2017 to early 2018) printed TOTAL = BW x MD; later ones sqrt(BW x MD).
    # No version line says which, so the printed numbers do.
    product = bool(total) and bw * md > 0 and abs(bw * md - total) <= 1e-3 * total < abs(math.sqrt(bw * md) - total)
    record = Io500File(kind="bash-log" if is_log else "bash-summary", io500_version=None, mode=None, started=started,
                       result_dir=result_dir, procs=None,
                       stonewall_s=stonewall, complete=score is not None, reported_bw_gib_s=bw, reported_md_kiops=md,
                       reported_score=total, reported_score_invalid=score_invalid, reported_x_bw_gib_s=None,
                       reported_x_md_kiops=None, reported_x_score=None,
                       score_rule="product" if product else "sqrt")
    return Parsed(format="io500-bash", tool="io500", tool_version=None,
                  records=[record, *phases.values(), *flags, *info])


FORMATS = (Format(name="io500-bash", tool="io500", detect=detect_bash, parse=parse_bash),)
