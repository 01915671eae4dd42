"""IO500 summaries of every generation: the files that report a whole IO500 run's phases and score.

Seven formats, detected by content, each read by its own module into the records defined here:

- ``io500-sc17-log`` (io500_sc17): the 2017 script's stdout (``1/ior-easy-write BW:794393.97 MB/s time: 420s`` ...
  ``IO-500 score: ...``) and the per-phase result snippets it wrote beside it.
- ``io500-bash`` (io500_bash): the bash (v1, 2018-2020) script's ``result_summary.txt`` and the
  ``io-500-summary.<ts>.txt`` log that holds the same ``[RESULT] BW phase 1 ior_easy_write`` lines.
- ``io500-summary`` (io500_summary): the C app's ``result_summary.txt`` (and its stdout, which prints the same lines).
- ``io500-result-ini`` (io500_ini): the C app's INI ``result.txt``.
- ``io500-verify`` (io500_verify): ``io500 --verify``'s output.
- ``io500-system-information`` (io500_system): a submission's ``system-information.txt`` (``io500_info_*=`` lines), and
  ``io500-questionnaire``: the io500-info-creator's JSON: what they say of the system (iobook.database.setups reads them).

Each file gives one ``Io500File`` row, its phases (``Io500Phase``) and its validity remarks
(``Io500Flag``). Values are converted to GiB/s and kIOPS; phase names are spelled as the C app
spells them. Grouping files into runs and recomputing scores happens in ``iobook.database.io500_runs``.
The IO500 *phase* outputs (ior-easy-write.txt, ...) are plain IOR/mdtest logs, not read here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import ParseError

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

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf"


_MD_PREFIX = re.compile(r"^md-")
_CREATE_SUFFIX = re.compile(r"-create$")


def canonical_phase(label: str) -> str:
    """ior_easy_write (bash) and md-easy-create (2017) -> ior-easy-write, mdtest-easy-write."""
    name = label.replace("_", "-")
    name = _MD_PREFIX.sub("mdtest-", name)
    return _CREATE_SUFFIX.sub("-write", name)


def unit_of(phase: str) -> str:
    return "GiB/s" if phase.startswith("ior") else "kIOPS"


def as_float(text: str, line: int, what: str) -> float:
    """A printed number, or the file fails at its line."""
    try:
        return float(text)
    except ValueError:
        raise ParseError(f"{what}: {text!r} is not a number", line) from None


def as_count(text: str | None) -> int | None:
    """A printed count (`nproc = 1`), else None."""
    return int(text) if text and text.strip().isdigit() else None


def resolution_of(number: str, scale: float = 1.0) -> float:
    """0.5 * the last printed digit: "0.011" -> 0.0005 (times scale, for values converted on reading)."""
    decimals = len(number.split(".", 1)[1]) if "." in number and "e" not in number.lower() else 0
    return 0.5 * 10.0**-decimals * scale

