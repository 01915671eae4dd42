"""IO500 summaries of every generation: the files that report a whole IO500 run's phases and score.

Seven formats, detected by content:

- ``io500-sc17-log``: the 2017 script's stdout (``1/ior-easy-write BW:794393.97 MB/s time: 420s`` ...
  ``IO-500 score: ...``) and the per-phase result snippets it wrote beside it.
- ``io500-bash``: the bash (v1, 2018-2020) script's ``result_summary.txt`` and the
  ``io-500-summary.<ts>.txt`` log that holds the same ``[RESULT] BW phase 1 ior_easy_write`` lines.
- ``io500-summary``: the C app's ``result_summary.txt`` (and its stdout, which prints the same lines).
- ``io500-result-ini``: the C app's INI ``result.txt``.
- ``io500-verify``: ``io500 --verify``'s output.
- ``io500-system-information``: a submission's ``system-information.txt`` (``io500_info_*=`` lines), and
  ``io500-questionnaire``: the io500-info-creator's JSON: what they say of the system (iobook.database.setups reads them).

Each file gives one ``Io500File`` row, its phases (``Io500Phase``) and its validity remarks
(``Io500Flag``). Values are converted to GiB/s and kIOPS; phase names are spelled as the C app
spells them. Grouping files into runs and recomputing scores happens in ``iobook.database.io500_runs``.
The IO500 *phase* outputs (ior-easy-write.txt, ...) are plain IOR/mdtest logs, not read here.
"""
from __future__ import annotations

import configparser
import math
import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed, first_line, line_starting

GIB = 2**30

STANDARD_BW_PHASES = ("ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read")
STANDARD_MD_PHASES = ("mdtest-easy-write", "mdtest-hard-write", "find", "mdtest-easy-stat",
                      "mdtest-hard-stat", "mdtest-easy-delete", "mdtest-hard-read", "mdtest-hard-delete")
# Phases the C app scores only in extended mode (as its [RESULT] markers in the archive show).
EXTENDED_PHASES = ("ior-rnd4K-write", "ior-rnd4K-read", "ior-rnd1MB-write", "ior-rnd1MB-read",
                   "find-easy", "find-hard", "mdworkbench-bench")
RULES_MIN_STONEWALL_S = 300.0


@dataclass(frozen=True, kw_only=True)
class Io500File:
    TABLE: ClassVar[str] = "raw_io500_files"
    kind: str  # result-ini | summary | stdout | bash-summary | bash-log | sc17-log | sc17-fragment
    io500_version: str | None
    mode: str | None  # standard | extended (C app); null before
    started: str | None  # run start as the file writes it
    result_dir: str | None
    procs: int | None
    stonewall_s: float | None  # shortest stonewall the file records
    complete: bool  # the file reached its final score
    reported_bw_gib_s: float | None
    reported_md_kiops: float | None
    reported_score: float | None  # as printed, on the scale of score_rule
    reported_score_invalid: bool  # the score line itself was marked invalid
    reported_x_bw_gib_s: float | None  # extended-mode [SCOREX]
    reported_x_md_kiops: float | None
    reported_x_score: float | None
    score_rule: str  # "sqrt" (sqrt(BW x MD)), "product" (BW x MD) or "sc17-product" (BW[MB/s] x MD[IOPS])


@dataclass(frozen=True, kw_only=True)
class Io500Phase:
    TABLE: ClassVar[str] = "raw_io500_phases"
    position: int  # order in the file
    phase: str  # C app spelling, e.g. ior-easy-write, mdtest-hard-delete, find
    label: str  # as the file spells it
    value: float | None  # GiB/s for ior-*, kIOPS otherwise
    unit: str
    time_s: float | None
    scored: bool
    invalid: bool
    stonewall_s: float | None
    resolution: float  # half the last printed digit, in the value's unit: the rounding of the value
    line: int
    procs: int | None = None  # the phase's own processes where the file says (the C app's `nproc`, e.g. of find)
    command: str | None = None  # the phase's command line where the file says (the C app's `exe`)


@dataclass(frozen=True, kw_only=True)
class Io500Flag:
    TABLE: ClassVar[str] = "raw_io500_flags"
    line: int
    phase: str | None
    severity: str  # invalid | warning
    message: str


@dataclass(frozen=True, kw_only=True)
class Io500Info:
    """A bash script's description of the system (``io500_info_num_data_server_nodes=52``), as printed."""
    TABLE: ClassVar[str] = "raw_io500_info"
    line: int
    key: str  # without the io500_info_ prefix, e.g. num_data_server_nodes; io500_workdir: the data's folder;
    # exec: a phase's command line ("[Exec] mpirun ... ior -w -a DFS ...")
    value: str


@dataclass(frozen=True, kw_only=True)
class Io500Verification:
    """`io500 <ini> --verify result.txt`: whether the result file's config and score hashes match what it holds."""
    TABLE: ClassVar[str] = "raw_io500_verifications"
    result_version: str | None  # "result file ver = ..."
    config_hash: str | None
    score_hash: str | None
    hashes_match: bool  # "[OK]": the file was not changed after the run
    valid: bool  # "[OK] But this is an invalid run!": hashes match, the run broke the rules
    message: str  # the verdict line as printed
    line: int


RECORDS = (Io500File, Io500Phase, Io500Flag, Io500Info, Io500Verification)

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf"


_MD_PREFIX = re.compile(r"^md-")
_CREATE_SUFFIX = re.compile(r"-create$")


def canonical_phase(label: str) -> str:
    """ior_easy_write (bash) and md-easy-create (2017) -> ior-easy-write, mdtest-easy-write."""
    name = label.replace("_", "-")
    name = _MD_PREFIX.sub("mdtest-", name)
    return _CREATE_SUFFIX.sub("-write", name)


def unit_of(phase: str) -> str:
    return "GiB/s" if phase.startswith("ior") else "kIOPS"


def _float(text: str, line: int, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ParseError(f"{what}: {text!r} is not a number", line) from None


def _count(text: str | None) -> int | None:
    """A printed count (`nproc = 1`), else None."""
    return int(text) if text and text.strip().isdigit() else None


def _resolution(number: str, scale: float = 1.0) -> float:
    """0.5 * the last printed digit: "0.011" -> 0.0005 (times scale, for values converted on reading)."""
    decimals = len(number.split(".", 1)[1]) if "." in number and "e" not in number.lower() else 0
    return 0.5 * 10.0**-decimals * scale


# ---------------------------------------------------------------- C app result_summary.txt / stdout

_C_VERSION = re.compile(r"^IO500 version (\S*)\s*(?:\((\w+)\))?\s*$")
_C_RESULT = re.compile(rf"^\[(RESULT|      )\]\s+(\S+)\s+({_NUMBER})\s+(GiB/s|GB/s|kIOPS|kiops)"
                       rf"\s*:\s*time\s+({_NUMBER})\s+seconds(\s+\[INVALID\])?\s*$")
_C_SCORE = re.compile(rf"^\[(SCORE ?|SCOREX)\]\s+Bandwidth\s+({_NUMBER})\s+(\S+)\s*:\s*IOPS\s+({_NUMBER})\s+"
                      rf"kiops\s*:\s*TOTAL\s+({_NUMBER})(\s+\[INVALID\])?\s*$")
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
            phases.append(Io500Phase(position=len(phases), phase=phase, label=label, value=_float(value, no, label),
                                     unit=unit_of(phase),
                                     time_s=_float(time_s, no, "time"), scored=marker == "RESULT",
                                     invalid=bool(invalid), stonewall_s=None,
                                     resolution=_resolution(value), line=no))
        elif m := _C_SCORE.match(line):
            values = tuple(_float(v, no, "score") for v in m.group(2, 4, 5)) + (bool(m.group(6)), no)
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


# ---------------------------------------------------------------- C app result.txt (INI)

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
        return _float(raw.replace("[INVALID]", "").strip(), key_lines.get((sect, key), 1), f"[{sect}] {key}")

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
                                 resolution=_resolution(parser.get(sect, "score", fallback="")),
                                 line=key_lines.get((sect, "t_start"), 1), procs=_count(parser.get(sect, "nproc",
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


# ---------------------------------------------------------------- bash (v1) script

_BASH_RESULT = re.compile(rf"^\[RESULT(-invalid)?\]\s+(BW|IOPS)\s+phase\s+\d+\s+(\w+)\s+({_NUMBER})\s+"
                          rf"(GB/s|GiB/s|kiops)\s*:\s*time\s+({_NUMBER})\s+seconds\s*$")
_BASH_SCORE = re.compile(rf"^\[SCORE(-invalid)?\]\s+Bandwidth\s+({_NUMBER})\s+(GB/s|GiB/s)\s*:\s*IOPS\s+"
                         rf"({_NUMBER})\s+kiops\s*:\s*TOTAL\s+({_NUMBER})\s*$")
_BASH_SUMMARY_START = "[Summary] Results files in "
_BASH_INFO = re.compile(r"io500_info_(\w+)=['\"]?([^'\"]*)['\"]?\s*$")
_BASH_DATE = re.compile(r"date=(\d{4}\.\d\d\.\d\d-\d\d\.\d\d\.\d\d)\s*$")
_BASH_RESULT_DIR = re.compile(r"io500_result_dir=['\"]?([^'\"]*)")
_BASH_EXEC = "[Exec] "  # the bash script's echo of each phase's command line
_BASH_WORKDIR = re.compile(r"io500_workdir=['\"]?([^'\"]*)")
_BASH_STONEWALL = re.compile(r"io500_stonewall_timer=['\"]?(\d+)")


_BASH_RESULT_LINE = re.compile(r"^\[RESULT(-invalid)?\]\s+(BW|IOPS)\s+phase\s+\d", re.M)  # \s+ may span lines
_BASH_SYSTEM_LINE = re.compile(r"System: ")
_BASH_DATE_LINE = re.compile(r"date=\d{4}\.\d\d\.\d\d-")


def _detect_bash(head: str) -> bool:
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
        phases[phase] = Io500Phase(position=len(phases), phase=phase, label=label, value=_float(value, no, label),
                                   unit=unit_of(phase),
                                   time_s=_float(time_s, no, "time"), scored=True, invalid=bool(invalid),
                                   stonewall_s=None, resolution=_resolution(value), line=no)
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
        bw, md, total = (_float(m.group(k), no, "score") for k in (2, 4, 5))
        if score_invalid:
            flags.append(Io500Flag(line=no, phase=None, severity="invalid", message="[SCORE-invalid]"))
    started = result_dir = stonewall = None
    info = []
    for no, line in enumerate(lines, 1):
        io500 = line.startswith("io500_")  # checked first: most lines are none of these
        if io500 and (m := _BASH_INFO.match(line)):
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


# ---------------------------------------------------------------- 2017 script

_SC17_PHASE = re.compile(rf"^\d+/((?:ior|md)-(?:easy|hard)-\w+|find) (BW|IOPs):\s*({_NUMBER})(?: MB/s)?\s+"
                         rf"time:\s*({_NUMBER})s\s*$")
_SC17_SCORE = re.compile(rf"^IO-500 (bw score|md score|score):\s+({_NUMBER})")
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
            raw = _float(value, no, label)
            converted, scale = (raw * 1e6 / GIB, 1e6 / GIB) if kind == "BW" else (raw / 1000, 1 / 1000)
            phases.append(Io500Phase(position=len(phases), phase=phase, label=label, value=converted,
                                     unit=unit_of(phase), time_s=_float(time_s, no, "time"),
                                     scored=True, invalid=warned_line is not None, stonewall_s=None,
                                     resolution=_resolution(value, scale), line=no))
            if warned_line is not None:
                flags.append(Io500Flag(line=warned_line, phase=phase, severity="invalid",
                                       message="the runtime is below 5 minutes"))
            warned_line = None
        elif line.startswith("[Warning]: the runtime is below 5 minutes"):
            warned_line = no  # printed just before the phase result it is about
        elif m := _SC17_SCORE.match(line):
            reported[m.group(1)] = _float(m.group(2), no, m.group(1))
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


# ---------------------------------------------------------------- io500 --verify

_VERIFY_VERSION = re.compile(r"^result file ver = (\S+)\s*$", re.M | re.I)
_VERIFY_HASH = re.compile(r"^(config|score)-hash\s*=\s*(\S+)\s*$", re.M)
_VERIFY_OK = re.compile(r"^\[OK\]( But this is an invalid run!)?\s*$", re.M)
_VERIFY_ERROR = re.compile(r"^ERROR.*$", re.M)


def _detect_verify(head: str) -> bool:
    return "file ver = " in head and bool(_VERIFY_VERSION.search(head)) and bool(_VERIFY_HASH.search(head))


def parse_verify(text: str) -> Parsed:
    """io500's --verify output: the hashes it recomputed and its verdict. What follows the verdict (mpirun's
    abort banner: io500 exits 1 on an invalid run) is the launcher's, not read."""
    version = _VERIFY_VERSION.search(text)
    hashes = {m[1]: m[2] for m in _VERIFY_HASH.finditer(text)}
    verdict = _VERIFY_OK.search(text) or _VERIFY_ERROR.search(text)
    if verdict is None:
        raise ParseError("io500 --verify output without its verdict ('[OK]' or an ERROR line)",
                         text.count("\n") + 1)
    ok = verdict.re is _VERIFY_OK
    record = Io500Verification(
        result_version=version[1] if version else None, config_hash=hashes.get("config"),
        score_hash=hashes.get("score"), hashes_match=ok, valid=ok and verdict[1] is None,
        message=verdict[0].strip(), line=text.count("\n", 0, verdict.start()) + 1)
    return Parsed(format="io500-verify", tool="io500", tool_version=version[1] if version else None, records=[record])


# ---------------------------------------------------------------- system-information.txt / .json

_INFO_LINE = re.compile(r"^io500_info_\w+=", re.MULTILINE)
_QUESTIONNAIRE = re.compile(r'\s*\{\s*"DATA"\s*:\s*\{\s*"type"\s*:\s*"Site"')


def _detect_system_information(head: str) -> bool:
    # the bash script's own logs print the same lines beside its results: those are io500-bash
    return "io500_info_" in head and bool(_INFO_LINE.search(head)) and not _detect_bash(head)


def parse_system_information(text: str) -> Parsed:
    """A submission's ``system-information.txt``: the bash template's ``io500_info_<key>="<value>"`` lines
    (comments and shell lines skipped)."""
    info = [Io500Info(line=no, key=m.group(1), value=m.group(2).strip())
            for no, line in enumerate(text.splitlines(), 1) if line.startswith("io500_info_") and (m := _BASH_INFO.match(line))]
    if not info:
        raise ParseError("no io500_info line")
    return Parsed(format="io500-system-information", tool="io500", tool_version=None, records=info)


def _detect_questionnaire(head: str) -> bool:
    return bool(_QUESTIONNAIRE.match(head))


def parse_questionnaire(text: str) -> Parsed:
    """The io500-info-creator's JSON questionnaire (``system-information.json``): each node's attributes as
    keys of its types' path (``Site.Supercomputer.Nodes.Interconnect.speed``), a [value, unit] pair joined by a
    space, empty answers left out."""
    import json

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(f"not JSON: {e.msg}", e.lineno) from None
    except RecursionError:
        raise ParseError("JSON nested deeper than any questionnaire") from None
    info = []

    def walk(node, path: str) -> None:
        if not isinstance(node, dict) or not isinstance(node.get("att", {}), dict):
            raise ParseError("a questionnaire node that is not an object with attributes")
        path = f"{path}.{node.get('type')}" if path else str(node.get("type"))
        for key, value in node.get("att", {}).items():
            shown = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            if shown.strip():
                info.append(Io500Info(line=1, key=f"{path}.{key}", value=shown.strip()))
        for child in node.get("childs") or []:
            walk(child, path)

    try:
        walk(doc.get("DATA") if isinstance(doc, dict) else None, "")
    except RecursionError:
        raise ParseError("nodes nested deeper than any questionnaire") from None
    return Parsed(format="io500-questionnaire", tool="io500", tool_version=None, records=info)


FORMATS = (
    Format(name="io500-result-ini", tool="io500", detect=_detect_result_ini, parse=parse_result_ini),
    Format(name="io500-summary", tool="io500", detect=_detect_c_summary, parse=parse_c_summary),
    Format(name="io500-bash", tool="io500", detect=_detect_bash, parse=parse_bash),
    Format(name="io500-sc17-log", tool="io500", detect=_detect_sc17, parse=parse_sc17),
    Format(name="io500-system-information", tool="io500", detect=_detect_system_information,
           parse=parse_system_information),
    # written by a web form, without a final newline; a cut one is JSON that does not close
    Format(name="io500-questionnaire", tool="io500", detect=_detect_questionnaire, parse=parse_questionnaire,
           ends_in_newline=False),
    Format(name="io500-verify", tool="io500", detect=_detect_verify, parse=parse_verify),
)
