"""The IO500 C app's INI result.txt (io500-result-ini): each phase's score, time and command, its stonewall and
the run's settings as io500's records.
"""
from __future__ import annotations

import configparser
import re

from . import Format, ParseError, Parsed, first_line
from .io500 import (EXTENDED_PHASES, STANDARD_BW_PHASES, STANDARD_MD_PHASES, Io500File, Io500Flag, Io500Phase, as_count,
                    as_float, canonical_phase, resolution_of, unit_of)

_INI_SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
_INI_KEY = re.compile(r"^([^;#\s=][^=]*?)\s*=")
_INI_START = re.compile(r"^; START (.+)$", re.M)
_STONEWALL_ARG = re.compile(r"(?:^|\s)-(?:D|W)[ =]?(\d+)(?:\s|$)")
# the programs whose -D (IOR) and -W (mdtest) are the stonewall: md-workbench's -D counts its data sets
_STONEWALL_PROGRAMS = re.compile(r"^\S*\b(?:ior|mdtest)\s")


_INI_VERSION = re.compile(r"version\s*=")
_INI_RUN_KEY = re.compile(r"^(config-hash|result-dir)\s*=", re.M)


def _detect_result_ini(head: str) -> bool:
    first = first_line(head.lstrip()).strip()
    return (first == "[run]" or _INI_VERSION.match(first) is not None) and _INI_RUN_KEY.search(head) is not None


def parse_result_ini(text: str) -> Parsed:
    lines = text.splitlines()
    truncated = bool(text) and not text.endswith("\n")
    if truncated:
        lines = lines[:-1]  # the unfinished last line of a run that stopped while writing
    headerless = not lines or not lines[0].startswith("[")
    offset = 1 if headerless else 0  # old versions wrote the run keys before any section header
    body = ("[run]\n" if headerless else "") + "\n".join(lines) + "\n"
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=(";", "#"),
                                       inline_comment_prefixes=None, delimiters=("=",), strict=True)
    try:
        parser.read_string(body)
    except configparser.MissingSectionHeaderError as e:  # a ParsingError subclass: catch it first
        raise ParseError(f"not INI: no section header before {e.line!r}", e.lineno - offset) from None
    except configparser.ParsingError as e:
        raise ParseError(f"not INI: {e.errors[0][1]!r}", e.errors[0][0] - offset) from None
    except (configparser.DuplicateSectionError, configparser.DuplicateOptionError) as e:
        raise ParseError(f"not INI: {e.message}", (e.lineno or 1) - offset) from None
    except configparser.Error as e:
        raise ParseError(f"not INI: {e.message}") from None

    key_lines, flags = {}, []
    section = "run"
    for no, line in enumerate(lines, 1):
        if m := _INI_SECTION.match(line):
            section = m.group(1)
        elif m := _INI_KEY.match(line):
            key_lines[(section, m.group(1).strip().lower())] = no
        elif line.startswith("; ERROR INVALID"):
            flags.append(Io500Flag(line=no, phase=None if section in ("run", "SCORE") else section, severity="invalid",
                                   message=line[len("; ERROR INVALID"):].strip()))
        elif line.startswith("; WARNING"):
            flags.append(Io500Flag(line=no, phase=None if section == "run" else section, severity="warning",
                                   message=line[len("; WARNING"):].strip()))

    def number(sect: str, key: str) -> float | None:
        raw = parser.get(sect, key, fallback=None)
        if raw is None:
            return None
        return as_float(raw.replace("[INVALID]", "").strip(), key_lines.get((sect, key), 1), f"[{sect}] {key}")

    run = parser["run"] if parser.has_section("run") else {}
    mode = run.get("mode")
    invalid_phases = {f.phase for f in flags if f.severity == "invalid"}
    phases = []
    for sect in parser.sections():
        if sect in ("run", "SCORE", "SCOREX"):
            continue
        phase = canonical_phase(sect)
        exe = parser.get(sect, "exe", fallback="")
        stonewall = _STONEWALL_ARG.search(exe) if _STONEWALL_PROGRAMS.match(exe) else None
        scored = phase in STANDARD_BW_PHASES + STANDARD_MD_PHASES or (mode == "extended" and phase in EXTENDED_PHASES)
        phases.append(Io500Phase(position=len(phases), phase=phase, label=sect, value=number(sect, "score"),
                                 unit=unit_of(phase),
                                 time_s=number(sect, "t_delta"), scored=scored and parser.has_option(sect, "score"),
                                 invalid=sect in invalid_phases,
                                 stonewall_s=float(stonewall.group(1)) if stonewall else None,
                                 resolution=resolution_of(parser.get(sect, "score", fallback="")),
                                 line=key_lines.get((sect, "t_start"), 1), procs=as_count(parser.get(sect, "nproc",
                                                                                                   fallback=None)),
                                 command=exe or None))
    if not phases:
        raise ParseError("no phase sections: not an IO500 result.txt")

    def score_of(sect: str) -> tuple:
        if not parser.has_section(sect):
            return None, None, None, False
        return (number(sect, "bw"), number(sect, "md"), number(sect, "score"),
                "[INVALID]" in parser.get(sect, "score", fallback=""))

    bw, md, total, score_invalid = score_of("SCORE")
    xbw, xmd, xtotal, _ = score_of("SCOREX")
    if score_invalid:
        flags.append(Io500Flag(line=key_lines.get(("SCORE", "score"), 1), phase=None, severity="invalid",
                               message="score marked [INVALID]"))
    start = _INI_START.search(text)
    stonewalls = [p.stonewall_s for p in phases if p.stonewall_s is not None]
    procs = run.get("procs")
    if procs is not None and not procs.strip().isdigit():
        raise ParseError(f"procs: {procs!r} is not a count", key_lines.get(("run", "procs"), 1))
    version = run.get("version") or None
    record = Io500File(
        kind="result-ini", io500_version=version, mode=mode,
        started=start.group(1).strip() if start else parser.get(phases[0].label, "t_start", fallback=None),
        result_dir=run.get("result-dir"),
        procs=int(procs) if procs else None,
        stonewall_s=min(stonewalls) if stonewalls else None,
        complete=parser.has_section("SCORE") and not truncated,
        reported_bw_gib_s=bw, reported_md_kiops=md, reported_score=total, reported_score_invalid=score_invalid,
        reported_x_bw_gib_s=xbw, reported_x_md_kiops=xmd, reported_x_score=xtotal, score_rule="sqrt")
    return Parsed(format="io500-result-ini", tool="io500", tool_version=version, records=[record, *phases, *flags])


FORMATS = (Format(name="io500-result-ini", tool="io500", detect=_detect_result_ini, parse=parse_result_ini),)
