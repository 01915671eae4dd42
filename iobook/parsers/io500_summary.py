"""The IO500 C app's result_summary.txt and its stdout, which prints the same lines (io500-summary): its
phases, score and validity remarks as io500's records.
"""
from __future__ import annotations

import re

from . import Format, ParseError, Parsed, first_line, line_starting
from .io500 import NUMBER, Io500File, Io500Flag, Io500Phase, as_float, canonical_phase, resolution_of, unit_of

_C_VERSION = re.compile(r"^IO500 version (\S*)\s*(?:\((\w+)\))?\s*$")
_C_RESULT = re.compile(rf"^\[(RESULT|      )\]\s+(\S+)\s+({NUMBER})\s+(GiB/s|GB/s|kIOPS|kiops)"
                       rf"\s*:\s*time\s+({NUMBER})\s+seconds(\s+\[INVALID\])?\s*$")
_C_SCORE = re.compile(rf"^\[(SCORE ?|SCOREX)\]\s+Bandwidth\s+({NUMBER})\s+(\S+)\s*:\s*IOPS\s+({NUMBER})\s+"
                      rf"kiops\s*:\s*TOTAL\s+({NUMBER})(\s+\[INVALID\])?\s*$")
_C_ERROR = re.compile(r"^ERROR INVALID (?:\([^)]*\) )?(.*)$")
# Why the app stopped before its first phase (include/io500-debug.h): "ERROR <message>" (its ERROR macro, e.g. an
# ini line it cannot parse, once per rank) and "FATAL (<source>:<line>) <message>" (its FATAL macro, then exit 1).
_C_STOP_ERROR = re.compile(r"^ERROR (?!INVALID )(.*\S)\s*$")
_C_FATAL = re.compile(r"FATAL \([^)\s]+:\d+\) .*\S")


_C_VERSION_LINE = re.compile(r"IO500 version ")
_C_RESULT_LINE = re.compile(r"\[(RESULT|      )\] ")


def _detect_c_summary(head: str) -> bool:
    if "FATAL (" in head and line_starting(_C_FATAL, head):  # the app stopped before printing its version
        return True
    if "IO500 version " not in head:
        return False
    # the app's first line; a run that stopped before its first phase printed nothing more (or its errors)
    return line_starting(_C_RESULT_LINE, head) and line_starting(_C_VERSION_LINE, head) or bool(
        _C_VERSION.match(first_line(head.lstrip())))


def parse_c_summary(text: str) -> Parsed:
    version = mode = None
    phases, flags = [], []
    score = scorex = None
    kind = "summary"
    stopped: dict[str, int] = {}  # why the app stopped (each message once: every rank prints it) -> its first line
    for no, line in enumerate(text.splitlines(), 1):
        if m := _C_VERSION.match(line):
            version, mode = m.group(1) or None, m.group(2)
        elif m := _C_STOP_ERROR.match(line) or _C_FATAL.match(line):
            stopped.setdefault(m.group(m.lastindex or 0), no)
        elif m := _C_RESULT.match(line):
            marker, label, value, unit, time_s, invalid = m.groups()
            phase = canonical_phase(label)
            # The C app's GB/s (isc20) is GiB/s: it divides by 1024^3 like every later version.
            phases.append(Io500Phase(position=len(phases), phase=phase, label=label, value=as_float(value, no, label),
                                     unit=unit_of(phase),
                                     time_s=as_float(time_s, no, "time"), scored=marker == "RESULT",
                                     invalid=bool(invalid), stonewall_s=None,
                                     resolution=resolution_of(value), line=no))
        elif m := _C_SCORE.match(line):
            values = tuple(as_float(v, no, "score") for v in m.group(2, 4, 5)) + (bool(m.group(6)), no)
            if m.group(1) == "SCOREX":
                scorex = values
            else:
                score = values
        elif m := _C_ERROR.match(line):
            kind = "stdout"  # only the app's stdout carries the ERROR lines
            flags.append(Io500Flag(line=no, phase=None, severity="invalid", message=m.group(1)))
    if not phases:  # the app stopped before its first phase ended: its failed run, with its errors
        if stopped:
            raise ParseError("IO500 stopped before its first phase: " + "; ".join(stopped), min(stopped.values()))
        errors = "; ".join(f.message for f in flags)
        raise ParseError("IO500 stopped before its first phase result" + (f": {errors}" if errors else ""),
                         flags[0].line if flags else text.count("\n") or 1)
    bw, md, total, score_invalid, score_line = score or (None, None, None, False, None)
    xbw, xmd, xtotal, _, _ = scorex or (None, None, None, False, None)
    if score_invalid:
        flags.append(Io500Flag(line=score_line, phase=None, severity="invalid", message="score marked [INVALID]"))
    record = Io500File(kind=kind, io500_version=version, mode=mode, started=None, result_dir=None, procs=None,
                       stonewall_s=None, complete=score is not None, reported_bw_gib_s=bw, reported_md_kiops=md,
                       reported_score=total,
                       reported_score_invalid=score_invalid, reported_x_bw_gib_s=xbw, reported_x_md_kiops=xmd,
                       reported_x_score=xtotal, score_rule="sqrt")
    return Parsed(format="io500-summary", tool="io500", tool_version=version, records=[record, *phases, *flags])


FORMATS = (Format(name="io500-summary", tool="io500", detect=_detect_c_summary, parse=parse_c_summary),)
