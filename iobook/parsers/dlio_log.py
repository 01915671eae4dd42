"""DLIO's own log (dlio.log in the run's Hydra output folder): the lines that state what the run did and measured.

DLIO (argonne-lcf/dlio_benchmark, utils/statscounter.py and main.py; the lines read here are the same in the version
MLPerf Storage v1.0 pins and in 2.0.0) writes "[LEVEL] <time> <message> [<source file>:<line>]", the time the
host's local time without a zone (some lines have none). Read here:

- "Running DLIO with N process(es)": the MPI ranks, DLIO's simulated accelerators.
- "Total amount of data each host will consume is X GB; each host has [Y, ...] GB memory": X is summary.json's
  data_size_per_host_GB, the list its host_memory_GB (GB = 2^30 bytes; some versions print only the first host's).
- "Starting data generation" / "Generation done": a data-generation step (a run with workflow.train False logs
  only this, and writes no summary.json).
- "Starting epoch E: S steps expected", "Ending block B - S steps completed in T s", "Epoch E - Block B [Training]
  Accelerator Utilization [AU] (%): A" and "... Throughput (samples/second): R", "Ending epoch E - S steps completed
  in T s". A block's AU and throughput are rank 0's (its throughput times the ranks), printed by rank 0 only:
  summary.json's per-epoch AU is the mean over every rank, so the two differ; the log is where a block's are.
- The "[METRIC]" block DLIO prints once training ended, averaged over the epochs (mean and, in parentheses, the
  standard deviation, to four decimals): the accelerators, AU (%), samples/s, MB/s (DLIO's MB: 2^20 bytes) and
  train_au_meet_expectation, the values summary.json holds unrounded. DLIO prints it before it writes summary.json.

Other lines (each rank's steps, warnings, the data generation's progress) are not read. A line that is one of those
above but whose value is no finite number fails the file at that line.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed, line_starting

FORMAT_NAME = "dlio-log"
# "[INFO] 2026-12-02T06:37:12.966238 Running DLIO with 2 process(es) [...main.py:97]"
RUNNING_LINE = re.compile(r"\[INFO\] (?:\d{4}-\d\d-\d\dT[\d:.]+ )?Running DLIO with \d+ process\(es\)")
# the level (Hammerspace's generation lines carry it twice), the time, the message, DLIO's "[file.py:line]"
LINE = re.compile(r"(?:\[[A-Z]+\] )+(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?) )?(.*?)(?: \[[^\[\]]*:\d+\])?\s*")
METRIC = re.compile(r"\[METRIC\] (.*?)\s*")  # DLIO's averaged metrics, one a line, no time
RUNNING = re.compile(r"Running DLIO with (\S+) process\(es\)")
DATA = re.compile(r"Total amount of data each host will consume is (\S+) GB; each host has (.+) GB memory")
NUMPY_FLOAT = re.compile(r"np\.float64\((.*)\)")  # numpy >= 2 prints a list's floats so
EPOCH_START = re.compile(r"Starting epoch (\d{1,9}): (?:(\S+) steps expected|Overriding number of steps to (\S+)\.)")
BLOCK_END = re.compile(r"Ending block (\d{1,9}) - (\S+) steps completed in (\S+) s")
EPOCH_END = re.compile(r"Ending epoch (\d{1,9}) - (\S+) steps completed in (\S+) s")
BLOCK_VALUE = re.compile(r"Epoch (\d{1,9}) - Block (\d{1,9}) \[Training\] "
                         r"(Accelerator Utilization \[AU\] \(%\)|Throughput \(samples/second\)): (\S+)")
GENERATION_START, GENERATION_DONE, OUTPUTS_SAVED = "Starting data generation", "Generation done", "Saved outputs in "
# the [METRIC] lines: label -> (mean field, stdev field)
METRIC_VALUES = {"Training Accelerator Utilization [AU] (%)": ("metric_au_mean_pct", "metric_au_stdev_pct"),
                 "Training Throughput (samples/second)": ("metric_samples_per_s", "metric_samples_per_s_stdev"),
                 "Training I/O Throughput (MB/second)": ("metric_mb_per_s", "metric_mb_per_s_stdev")}
MEAN_STDEV = re.compile(r"(\S+) \((\S+)\)")
ACCELERATORS, EXPECTATION = "Number of Simulated Accelerators", "train_au_meet_expectation"


@dataclass(frozen=True, kw_only=True)
class DlioLog:
    TABLE: ClassVar[str] = "raw_dlio_logs"
    lines: int  # the log's lines: where it ends
    started: str | None  # the first line's time (ISO 8601, the host's local time)
    last_time: str | None  # the last time the log states
    processes: int | None  # "Running DLIO with N process(es)"
    data_per_host_gb: float | None  # "Total amount of data each host will consume is X GB"
    hosts_memory_gb: float | None  # the sum of the "each host has [...] GB memory" list
    hosts_listed: int | None  # how many values that list holds
    generation_started: bool
    generation_done: bool
    training_started: bool  # a "Starting epoch" line
    epochs_ended: int  # "Ending epoch" lines
    outputs_saved: bool  # "Saved outputs in": training ended, summary.json is written next
    metric_line: int | None  # the first [METRIC] line; none: DLIO did not print its averaged metrics
    metric_accelerators: int | None
    metric_au_mean_pct: float | None  # four decimals, as printed
    metric_au_stdev_pct: float | None
    metric_samples_per_s: float | None
    metric_samples_per_s_stdev: float | None
    metric_mb_per_s: float | None  # DLIO's MB: 2^20 bytes
    metric_mb_per_s_stdev: float | None
    metric_au_expectation: str | None  # 'success' | 'fail'


@dataclass(frozen=True, kw_only=True)
class DlioLogEpoch:
    TABLE: ClassVar[str] = "raw_dlio_log_epochs"
    epoch: int
    line: int  # its "Starting epoch" line
    steps_expected: int | None
    steps: int | None  # steps completed (all ranks); none: the log ends inside the epoch
    duration_s: float | None


@dataclass(frozen=True, kw_only=True)
class DlioLogBlock:
    TABLE: ClassVar[str] = "raw_dlio_log_blocks"
    epoch: int
    block: int
    line: int  # its "Ending block" line, else its first value's
    steps: int | None  # rank 0's steps in the block
    duration_s: float | None
    au_pct: float | None  # rank 0's AU in the block
    samples_per_s: float | None  # rank 0's throughput times the ranks


def _detect(head: str) -> bool:
    return line_starting(RUNNING_LINE, head)


def _number(value: str, what: str, n: int) -> float:
    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not math.isfinite(x):
        raise ParseError(f"DLIO log: {what} is {value[:40]!r}, not a finite number", n)
    return x


def _count(value: str, what: str, n: int) -> int:
    if not value.isdigit() or len(value) > 18:
        raise ParseError(f"DLIO log: {what} is {value[:40]!r}, not a count", n)
    return int(value)


def _memory(listed: str, n: int) -> list[float]:
    """'[247.84, 0.0]', '[np.float64(23.54)]' or '247.84' (one host's): GB per host."""
    items = [i.strip() for i in listed.strip().removeprefix("[").removesuffix("]").split(",")]
    return [_number(NUMPY_FLOAT.fullmatch(i)[1] if NUMPY_FLOAT.fullmatch(i) else i, "a host's memory", n)
            for i in items]


class _Reader:
    """One pass over the lines: the run's facts, its epochs and blocks (by epoch and block) and its [METRIC] block."""

    def __init__(self):
        self.log: dict = {"started": None, "last_time": None, "processes": None, "data_per_host_gb": None,
                          "hosts_memory_gb": None, "hosts_listed": None, "generation_started": False,
                          "generation_done": False, "training_started": False, "epochs_ended": 0,
                          "outputs_saved": False, "metric_line": None, "metric_accelerators": None,
                          "metric_au_expectation": None, **{f: None for pair in METRIC_VALUES.values() for f in pair}}
        self.epochs: dict[int, dict] = {}
        self.blocks: dict[tuple[int, int], dict] = {}
        self.epoch: int | None = None  # the epoch a block ends in ("Ending block" names none)

    def metric(self, text: str, n: int) -> None:
        label, _, value = text.partition(": ")
        if label == ACCELERATORS:
            self.log["metric_accelerators"] = _count(value, label, n)
        elif label == EXPECTATION:
            self.log["metric_au_expectation"] = value
        elif label in METRIC_VALUES:
            m = MEAN_STDEV.fullmatch(value)
            if m is None:
                raise ParseError(f"DLIO log: {label} is {value[:40]!r}, not 'mean (stdev)'", n)
            mean, stdev = METRIC_VALUES[label]
            self.log[mean], self.log[stdev] = _number(m[1], label, n), _number(m[2], label, n)
        else:
            return
        self.log["metric_line"] = self.log["metric_line"] or n

    def message(self, text: str, n: int) -> None:
        if m := RUNNING.fullmatch(text):
            if self.log["processes"] is not None:
                raise ParseError("DLIO log: a second run's log starts here", n)
            self.log["processes"] = _count(m[1], "the processes", n)
        elif m := DATA.fullmatch(text):
            memory = _memory(m[2], n)
            self.log.update(data_per_host_gb=_number(m[1], "the data per host", n), hosts_memory_gb=sum(memory),
                            hosts_listed=len(memory))
        elif text == GENERATION_START:
            self.log["generation_started"] = True
        elif text == GENERATION_DONE:
            self.log["generation_done"] = True
        elif text.startswith(OUTPUTS_SAVED):
            self.log["outputs_saved"] = True
        elif m := EPOCH_START.fullmatch(text):
            self.epoch = int(m[1])
            self.log["training_started"] = True
            self.epochs[self.epoch] = {"epoch": self.epoch, "line": n, "steps": None, "duration_s": None,
                                       "steps_expected": _count(m[2] or m[3], "the steps expected", n)}
        elif m := EPOCH_END.fullmatch(text):
            epoch = self.epochs.setdefault(int(m[1]), {"epoch": int(m[1]), "line": n, "steps_expected": None})
            epoch.update(steps=_count(m[2], "the steps", n), duration_s=_number(m[3], "the epoch's time", n))
            self.log["epochs_ended"] += 1
        elif m := BLOCK_END.fullmatch(text):
            if self.epoch is None:
                raise ParseError("DLIO log: a block ends before any epoch started", n)
            block = self._block(self.epoch, int(m[1]), n)
            block.update(line=n, steps=_count(m[2], "the steps", n), duration_s=_number(m[3], "the block's time", n))
        elif m := BLOCK_VALUE.fullmatch(text):
            field = "samples_per_s" if m[3].startswith("Throughput") else "au_pct"
            self._block(int(m[1]), int(m[2]), n)[field] = _number(m[4], m[3], n)

    def _block(self, epoch: int, block: int, n: int) -> dict:
        return self.blocks.setdefault((epoch, block), {"epoch": epoch, "block": block, "line": n, "steps": None,
                                                       "duration_s": None, "au_pct": None, "samples_per_s": None})


def parse(text: str) -> Parsed:
    reader = _Reader()
    # by "\n" only: the data generation's progress bar writes "\r" inside a line, which editors and grep count not
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        if m := METRIC.fullmatch(line):
            reader.metric(m[1], n)
        elif m := LINE.fullmatch(line):
            if m[1]:
                reader.log["started"] = reader.log["started"] or m[1]
                reader.log["last_time"] = m[1]
            reader.message(m[2], n)
    if reader.log["processes"] is None:
        raise ParseError("DLIO log without its 'Running DLIO with N process(es)' line")
    records: list = [DlioLog(lines=len(lines), **reader.log)]
    records += [DlioLogEpoch(**e) for e in reader.epochs.values()]
    records += [DlioLogBlock(**b) for b in reader.blocks.values()]
    return Parsed(format=FORMAT_NAME, tool="dlio", tool_version=None, records=records)


FORMATS = (Format(name=FORMAT_NAME, tool="dlio", detect=_detect, parse=parse),)
RECORDS = (DlioLog, DlioLogEpoch, DlioLogBlock)
