"""IOR output: text logs of IOR 2.10 and 3.1 → 4.1+dev, summaryFormat=JSON and =CSV, per-rank CSVs, and its stdout
without a banner (the summaryFile line, or the error of a run that stopped before it).

One file may hold several tests (an ``-f`` script) or several IOR runs one after another (an
io500.sh log); ``test_index`` numbers the tests of the file in order, whatever run they belong to.
Bandwidths are MiB/s, times seconds, sizes bytes. Summary rows are those IOR printed itself
("Summary of all tests" or JSON "summary"); the view computes one from the iterations otherwise.
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import DETECT_BYTES, Format, ParseError, Parsed, detect, first_line, json_float, line_starting
from .arrow_csv import COUNT, NUMBER, all_match, csv_rows, finite_columns, floats, is_count, read_typed

MIB = 1 << 20
ACCESSES = ("write", "read", "remove")
BINARY_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}
COMMAND_SUFFIXES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}

BANNER = re.compile(r"IOR-(\S+): MPI Coordinated Test of Parallel I/O")  # at the start of a line
JSON_START = re.compile(r'^\{\s*"Version"\s*:', re.M)
SUMMARY_CSV_HEADER = "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter"
RANK_CSV_HEADER = "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput"
RANK_CSV_COLUMNS = RANK_CSV_HEADER.split(",")


@dataclass(frozen=True, kw_only=True)
class IorTest:
    TABLE: ClassVar[str] = "raw_ior_tests"
    test_index: int  # 0-based position of the test in the file
    run_index: int  # which IOR invocation of the file it belongs to (io500.sh logs hold several)
    layout: str  # "text" | "json" | "csv-summary" | "rank-csv"
    version: str | None
    ior_test_id: int | None  # IOR's own TestID
    began: str | None
    command: str | None
    api: str | None
    tasks: int | None
    tasks_per_node: int | None
    nodes: int | None
    segments: int | None
    transfer_bytes: int | None
    block_bytes: int | None
    sizes_from: str | None  # "summary" | "options" | "command" | "rounded": where the byte sizes come from
    file_per_proc: bool | None
    repetitions: int | None
    stonewall_s: int | None  # -D deadline
    # "stonewalling pairs accessed min: 154427 max: 291671 -- ...": transfers per rank when the stonewall hit,
    # least and most (the write phase; wear-out then brings every rank up to the most)
    stonewall_pairs_min: int | None
    stonewall_pairs_max: int | None
    rank_csv: str | None  # saveRankPerformanceDetailsCSV path as written on the command line
    finished: bool  # the log reached IOR's own end ("Finished"); IO500-app phase logs stop earlier
    # The option block's "type", "ordering in a file" and "ordering inter file" (text and JSON, IOR >= 3.2)
    collective: bool | None = None  # type: collective (-c) or independent
    ordering_in_file: str | None = None  # "sequential" | "random" (-z)
    ordering_inter_file: str | None = None  # "no tasks offsets", "constant task offset" (-C), "random task offset"
    host: str | None = None  # rank 0's node: the node name of IOR's "Machine" line (uname's sysname, nodename, ...)
    # the same stonewall line's "... mean data: 50.2 GiB time: 300.4s" (IOR >= 3.3): the ranks' mean data when the
    # stonewall hit, as printed, and the time it hit (after the deadline by the transfers in flight)
    stonewall_mean_gib: float | None = None
    stonewall_hit_s: float | None = None


@dataclass(frozen=True, kw_only=True)
class IorIteration:
    TABLE: ClassVar[str] = "raw_ior_iterations"
    test_index: int
    access: str  # write | read | remove
    iteration: int
    bw_mib_s: float | None
    iops: float | None  # absent before IOR 3.3
    latency_s: float | None
    block_kib: float | None
    xfer_kib: float | None
    open_s: float | None
    wrrd_s: float | None
    close_s: float | None
    total_s: float | None


@dataclass(frozen=True, kw_only=True)
class IorSummary:
    TABLE: ClassVar[str] = "raw_ior_summary"
    test_index: int
    access: str
    bw_max_mib_s: float
    bw_min_mib_s: float | None
    bw_mean_mib_s: float | None
    bw_std_mib_s: float | None
    ops_max: float | None
    ops_min: float | None
    ops_mean: float | None
    ops_std: float | None
    mean_time_s: float | None
    stonewall_time_s: float | None  # time until the stonewall hit, when IOR printed it
    stonewall_bw_mib_s: float | None
    iterations: int | None


@dataclass(frozen=True, kw_only=True)
class IorRank:
    TABLE: ClassVar[str] = "raw_ior_ranks"
    test_index: int
    access: str
    rank: int
    iteration: int  # not in the CSV: IOR writes one block of ranks per access and iteration, in order
    time_with_openclose_s: float
    time_s: float
    bw_with_openclose_mib_s: float  # the CSV holds bytes/s
    bw_mib_s: float


RECORDS = (IorTest, IorIteration, IorSummary, IorRank)


# --- sizes -------------------------------------------------------------------------------------

PRINTED_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s+(bytes|[KMGTP]iB)\s*")
COMMAND_SIZE = re.compile(r"(\d+)([kmgtp]?)")
INT_PREFIX = re.compile(r"\s*(-?\d+)")


def printed_size(text: str | None) -> tuple[int, bool] | None:
    """'9.46 TiB' -> (bytes, exact?). IOR prints whole units exactly and others rounded to 2 decimals."""
    m = PRINTED_SIZE.fullmatch(text or "")
    if not m:
        return None
    number, unit = m.groups()
    if "." in number:
        return round(float(number) * BINARY_UNITS[unit]), False
    return int(number) * BINARY_UNITS[unit], True


def command_size(command: str | None, letter: str, directive: str) -> int | None:
    """-t/-b as typed: '-t 8m', '-t=4096', '-t8m' or '-O transferSize=1m'; suffixes are powers of 1024."""
    words = (command or "").split()
    value = None
    for i, word in enumerate(words):
        if word == f"-{letter}" and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith(f"-{letter}") and not word.startswith("--"):
            value = word[2:].lstrip("=")
        elif word.startswith(f"{directive}="):
            value = word.split("=", 1)[1]
    m = COMMAND_SIZE.fullmatch((value or "").lower())
    return int(m.group(1)) * COMMAND_SUFFIXES[m.group(2)] if m else None


def exact_size(summary: int | None, printed: str | None, command: int | None) -> tuple[int | None, str | None]:
    """Best byte size and where it came from: summary table, whole printed unit, command line, rounded print."""
    if summary is not None:
        return summary, "summary"
    shown = printed_size(printed)
    if shown and shown[1]:
        return shown[0], "options"
    # Prefer -t/-b from the command line over a rounded "9.46 TiB", but only when they agree: in an
    # -f script the command line may not be what this test used.
    if command is not None and (shown is None or abs(command - shown[0]) <= 0.01 * shown[0]):
        return command, "command"
    return (shown[0], "rounded") if shown else (None, None)


def _number(word: str) -> float | None:
    return None if word == "-" else float(word)


def _int(text: str | None) -> int | None:
    m = INT_PREFIX.match(text or "")
    return int(m.group(1)) if m else None


def _orderings(options: dict) -> dict:
    """IorTest's collective and ordering fields from an option block (text or JSON "Options")."""
    kind, in_file, inter_file = (options.get(k) for k in ("type", "ordering in a file", "ordering inter file"))
    return {"collective": kind == "collective" if isinstance(kind, str) and kind else None,
            "ordering_in_file": in_file if isinstance(in_file, str) and in_file else None,
            "ordering_inter_file": inter_file if isinstance(inter_file, str) and inter_file else None}


def _nodes(tasks: int | None, per_node: int | None) -> int | None:
    """IOR < 3.3 prints no node count; IOR itself derives it as tasks / tasks per node."""
    if tasks and per_node and tasks % per_node == 0:
        return tasks // per_node
    return None


# --- text logs ---------------------------------------------------------------------------------

RESULTS_HEADER = re.compile(r"^access\s+bw\(MiB/s\)")
RESULT_VALUE = re.compile(r"[-\d.]+|[-+]?(?i:inf|nan)")  # inf/nan rows are read, and refused by ingest
KEY_VALUE = re.compile(r"^([A-Za-z][\w /#()-]*?)\s*:(?:\s+(.*?))?\s*$")  # "tasks               : 200"
OLD_OPTION = re.compile(r"^\t([a-z][a-z ]*?)\s*=\s*(.*?)\s*$")  # IOR 2, 3.1: "\tclients            = 1200 (12 per node)"
ITERATION_COLUMNS = {
    "bw(MiB/s)": "bw_mib_s", "IOPS": "iops", "Latency(s)": "latency_s", "block(KiB)": "block_kib",
    "xfer(KiB)": "xfer_kib", "open(s)": "open_s", "wr/rd(s)": "wrrd_s", "close(s)": "close_s",
    "total(s)": "total_s",
}
SUMMARY_COLUMNS = {
    "Max(MiB)": "bw_max_mib_s", "Min(MiB)": "bw_min_mib_s", "Mean(MiB)": "bw_mean_mib_s",
    "Max(OPs)": "ops_max", "Min(OPs)": "ops_min", "Mean(OPs)": "ops_mean", "Mean(s)": "mean_time_s",
    "Stonewall(s)": "stonewall_time_s", "Stonewall(MiB)": "stonewall_bw_mib_s",
}


# IOR 2.x prints its summary table without "Summary of all tests", under "Operation  Max (MiB)" (a space before
# "(MiB)", where 3.x prints "Max(MiB)"). Its header names "Op grep #Tasks ..." after "Mean (s)", but no value
# stands under "Op grep": a row holds the 9 numbers, then with -v the 14 parameters, then "EXCEL". They are
# read by position under IOR 3's column names, so one reader serves both.
IOR2_SUMMARY_HEADER = re.compile(r"Operation\s+Max \(MiB\)")
IOR2_SUMMARY_NUMBERS = ("Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev", "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev",
                        "Mean(s)")
IOR2_SUMMARY_PARAMETERS = ("#Tasks", "tPN", "reps", "fPP", "reord", "reordoff", "reordrand", "seed", "segcnt",
                           "blksiz", "xsize", "aggsize", "RefNum", "API")
# After its table IOR 2 prints the best iteration of each access again: "Max Write: 9403.61 MiB/sec (...)".
IOR2_BEST = re.compile(r"Max (Write|Read):\s+(\S+) MiB/sec")
STONEWALL_PAIRS = re.compile(r"stonewalling pairs accessed min: (\d+) max: (\d+)"
                             r"(?: -- min data: [\d.]+ GiB mean data: ([\d.]+) GiB time: ([\d.]+)s)?")


def machine_host(machine) -> str | None:
    """The node name in IOR's "Machine" value ("Linux node1", or uname's sysname, nodename, release, ...)."""
    words = str(machine).split() if machine else []
    return words[1] if len(words) > 1 else None


TEST_START = re.compile(r"Test (\d+) started:|TestID\s*:\s*(\d+)\s*$")  # IOR 3.x, then 4.x
CLIENTS = re.compile(r"(\d+) \((\d+) per node\)")
SEGMENTS = re.compile(r"\((\d+) segment")
RANK_CSV_OPTION = re.compile(r"saveRankPerformanceDetailsCSV=(\S+)")
DEADLINE = re.compile(r"(?:^|\s)-D[ =]?(\d+)")


class _Test:
    """What the text log says about one test, gathered line by line."""

    def __init__(self, run: dict, index: int, ior_test_id: int | None):
        self.run, self.index, self.ior_test_id = run, index, ior_test_id
        self.options: dict[str, str] = {}
        self.columns: list[str] | None = None
        self.iterations: list[IorIteration] = []
        self.summaries: dict[str, tuple[list, int]] = {}  # access -> ((column, word) pairs, line)
        self.abort: tuple[str, int] | None = None  # first ERROR line, for the reason when no result came
        self.stonewall_pairs: tuple[int, int, float | None, float | None] | None = None  # min, max, mean GiB, hit s
        self.ior2_summary = False  # its summary is IOR 2's, which its "Max Write:"/"Max Read:" lines close
        self.best: dict[str, tuple[str, int]] = {}  # access -> (MiB/s as printed, line) of those lines

    def record(self) -> IorTest:
        o = self.options
        summary = dict(next(iter(self.summaries.values()), ([], 0))[0])
        clients = CLIENTS.match(o.get("clients", ""))  # IOR 2, 3.1
        tasks = _int(o.get("tasks")) or (int(clients.group(1)) if clients else _int(summary.get("#Tasks")))
        per_node = (_int(o.get("clients per node")) or (int(clients.group(2)) if clients else None)
                    or _int(summary.get("tPN")))
        pattern = SEGMENTS.search(o.get("pattern", ""))  # IOR 2, 3.1 with -v
        segments = _int(o.get("segments")) or (int(pattern.group(1)) if pattern else _int(summary.get("segcnt")))
        command = self.run["command"]
        xfer, xfer_from = exact_size(_int(summary.get("xsize")), o.get("xfersize"),
                                     command_size(command, "t", "transferSize"))
        block, block_from = exact_size(_int(summary.get("blksiz")), o.get("blocksize"),
                                       command_size(command, "b", "blockSize"))
        access = o.get("access")
        rank_csv = RANK_CSV_OPTION.search(command or "")
        deadline = DEADLINE.search(command or "")
        return IorTest(
            test_index=self.index, run_index=self.run["index"], layout="text", version=self.run["version"],
            ior_test_id=self.ior_test_id, began=self.run.get("began"), host=self.run.get("host"), command=command,
            api=(o.get("api") or "").split(" ")[0] or summary.get("API"), tasks=tasks,
            tasks_per_node=per_node, nodes=_int(o.get("nodes")) or _nodes(tasks, per_node), segments=segments,
            transfer_bytes=xfer, block_bytes=block,
            sizes_from=xfer_from if xfer_from == block_from else f"{xfer_from}/{block_from}",
            file_per_proc=access.startswith("file-per-process") if access else None,
            repetitions=_int(o.get("repetitions")) or _int(summary.get("reps")),
            stonewall_s=_int(o.get("stonewallingTime")) or (int(deadline.group(1)) if deadline else None),
            stonewall_pairs_min=self.stonewall_pairs[0] if self.stonewall_pairs else None,
            stonewall_pairs_max=self.stonewall_pairs[1] if self.stonewall_pairs else None,
            stonewall_mean_gib=self.stonewall_pairs[2] if self.stonewall_pairs else None,
            stonewall_hit_s=self.stonewall_pairs[3] if self.stonewall_pairs else None,
            rank_csv=rank_csv.group(1) if rank_csv else None, finished=self.run["finished"],
            **_orderings(o),
        )


def _iteration(test: _Test, words: list[str], line: int) -> IorIteration:
    if len(words) != len(test.columns):
        raise ParseError(f"result row has {len(words)} fields, its table header {len(test.columns)}", line)
    try:
        values = {ITERATION_COLUMNS[c]: _number(w) for c, w in zip(test.columns, words) if c in ITERATION_COLUMNS}
        iteration = int(words[test.columns.index("iter")])
    except ValueError:
        raise ParseError("result row holds a value that is not a number", line) from None
    return IorIteration(test_index=test.index, access=words[0], iteration=iteration, **{
        name: values.get(name) for name in ITERATION_COLUMNS.values()})


def _summary(test: _Test, access: str, pairs: list[tuple[str, str]], line: int) -> IorSummary:
    row = dict(pairs)
    try:
        # StdDev appears twice (MiB, then OPs), so take them by position.
        std = [float(w) for c, w in pairs if c == "StdDev"] or [None]
        values = {name: (None if row.get(c) in (None, "NA") else float(row[c]))
                  for c, name in SUMMARY_COLUMNS.items()}
    except ValueError:
        raise ParseError("summary row holds a value that is not a number", line) from None
    if values["bw_max_mib_s"] is None:
        raise ParseError("summary row has no Max(MiB)", line)
    return IorSummary(test_index=test.index, access=access, bw_std_mib_s=std[0],
                      ops_std=std[1] if len(std) > 1 else None, ops_min=values.pop("ops_min"),
                      iterations=_int(row.get("reps")), **values)


def parse_text(text: str) -> Parsed:
    tests: list[_Test] = []
    run: dict | None = None
    previous: dict | None = None  # the run before the last banner
    test: _Test | None = None
    state = "outside"  # outside | header | results | summary-header | summary
    summary_header: list[str] = []
    last_result = None  # line of the last result row or "Finished": after it, the text may be another tool's
    first_banner = None  # before it, the text may be another tool's too
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        banner = line.startswith("IOR-") and BANNER.match(line)
        if banner:
            first_banner = first_banner or number
            previous = run
            run = {"index": 0 if run is None else run["index"] + 1, "version": banner.group(1),
                   "command": None, "finished": False}
            test, state = None, "header"
            continue
        if run is None or state == "outside":
            continue  # noise before the banner, or another tool's output after "Finished"
        stripped = line.strip()
        if state in ("summary-header", "summary") and stripped.startswith("Operation"):
            summary_header, state = stripped.split(), "summary"
            continue
        if stripped.startswith("Summary of all tests"):
            state = "summary-header"
            continue
        if stripped.startswith(("Finished", "Run finished")):  # IOR 3 and 4, then IOR 2
            run["finished"], state, last_result = True, "outside", number
            continue
        words = stripped.split()
        if test is not None and stripped.startswith("Operation") and IOR2_SUMMARY_HEADER.match(stripped):
            test.ior2_summary, state = True, "ior2-summary"
            continue
        if state == "ior2-summary" and words and words[0] in ACCESSES:
            test.summaries[words[0]] = (_ior2_summary_pairs(words, number), number)
            last_result = number
            continue
        best = state == "ior2-summary" and stripped.startswith("Max ") and IOR2_BEST.match(stripped)
        if best:
            test.best[best.group(1).lower()] = (best.group(2), number)
            last_result = number
            continue
        if state == "summary" and words and words[0] in ACCESSES:
            if len(words) != len(summary_header):
                raise ParseError(f"summary row has {len(words)} fields, its header {len(summary_header)}", number)
            pairs = list(zip(summary_header, words))
            by_id = {t.ior_test_id: t for t in tests if t.run is run}
            owner = by_id.get(_int(dict(pairs).get("Test#")), test)
            if owner is None:
                raise ParseError("summary row before any test", number)
            owner.summaries[words[0]] = (pairs, number)
            last_result = number
            continue
        new_test = line.startswith("Test") and TEST_START.match(line)
        if new_test:
            test = _Test(run, len(tests), int(new_test.group(1) or new_test.group(2)))
            tests.append(test)
            state = "header"
            continue
        key_value = state == "header" and KEY_VALUE.match(line)
        if key_value:
            key, value = key_value.group(1), key_value.group(2) or ""
            if key in ("Command line", "Command line used"):
                run["command"] = value
                if _next_test_of_ior2_script(previous, run, tests):
                    run = previous
            elif key in ("Began", "Run began"):  # IOR 3 and 4, then IOR 2
                run["began"] = value
            elif key == "Machine":
                run["host"] = machine_host(value)
            elif key == "Summary" and test is None:  # IOR 2 numbers no test: its "Summary:" block starts one
                test = _Test(run, len(tests), None)
                tests.append(test)
            elif test is not None:
                test.options.setdefault(key, value)
            continue
        old_option = state == "header" and test is not None and line.startswith("\t") and OLD_OPTION.match(line)
        if old_option:
            test.options.setdefault(old_option.group(1), old_option.group(2))
            continue
        if line.startswith("access") and RESULTS_HEADER.match(line):
            if test is None:  # a run with no "TestID" line: one test
                test = _Test(run, len(tests), None)
                tests.append(test)
            test.columns, state = words, "results"
            continue
        pairs_hit = test is not None and stripped.startswith("stonewalling") and STONEWALL_PAIRS.match(stripped)
        if pairs_hit:
            test.stonewall_pairs = (int(pairs_hit.group(1)), int(pairs_hit.group(2)),
                                    *(None if g is None else float(g) for g in pairs_hit.group(3, 4)))
            continue
        if state == "results" and len(words) > 1 and words[0] in ACCESSES and RESULT_VALUE.fullmatch(words[1]):
            # IOR 2 (-vv) ends each iteration row with an "XXCEL" marker, under no column
            test.iterations.append(_iteration(test, words[:-1] if words[-1] == "XXCEL" else words, number))
            last_result = number
        elif test is not None and test.abort is None and (stripped.startswith("ERROR") or "MPI_ABORT" in line):
            test.abort = (stripped, number)
    if run is None:
        raise ParseError("no IOR banner ('IOR-x.y: MPI Coordinated Test of Parallel I/O')", 1)
    if not tests:
        raise ParseError("log ends before the first test's results table (truncated header)", len(lines))
    records: list = []
    for t in tests:
        if not t.iterations and not t.summaries:
            if t.abort:
                raise ParseError(f"IOR stopped with an error before any result: {t.abort[0]}", t.abort[1])
            raise ParseError(f"test {t.index} has no result row (log truncated)", len(lines))
        if t.ior2_summary:
            _check_ior2_best(t, len(lines))
        records.append(t.record())
        records.extend(t.iterations)
        records.extend(_summary(t, access, pairs, line) for access, (pairs, line) in t.summaries.items())
    return Parsed(format="ior-text", tool="ior", tool_version=tests[0].run["version"], records=records,
                  start=_line_end(text, first_banner - 1),
                  end=_line_end(text, last_result))


def _next_test_of_ior2_script(previous: dict | None, run: dict, tests: list[_Test]) -> bool:
    """IOR 2 prints its banner, "Run began" and command line again before each test of a script (-f), and
    "Run finished" once at the end: a banner after a test whose summary closed, with the same command line
    and no "Run finished" between, continues that run."""
    last = tests[-1] if tests else None
    return (previous is not None and previous["version"].startswith("2.") and previous["version"] == run["version"]
            and not previous["finished"] and previous["command"] == run["command"]
            and last is not None and last.run is previous and last.ior2_summary
            and all(access in last.best for access in last.summaries))


def _ior2_summary_pairs(words: list[str], line: int) -> list[tuple[str, str]]:
    """The (column, word) pairs of an IOR 2 summary row, under IOR 3's column names."""
    body = words[1:-1]
    if words[-1] != "EXCEL" or len(body) not in (len(IOR2_SUMMARY_NUMBERS),
                                                 len(IOR2_SUMMARY_NUMBERS) + len(IOR2_SUMMARY_PARAMETERS)):
        raise ParseError(f"IOR 2 summary row has {len(words)} fields; IOR 2 prints 11 or 25 and 'EXCEL'", line)
    return [("Operation", words[0]), *zip(IOR2_SUMMARY_NUMBERS + IOR2_SUMMARY_PARAMETERS, body)]


def _check_ior2_best(test: _Test, last_line: int) -> None:
    """IOR 2 prints the "Max Write:"/"Max Read:" line of each summary row after the table, with the row's
    Max(MiB) to the same digits: without it the log was cut inside the summary; when they differ, the row
    was not read as IOR wrote it."""
    for access, (pairs, _) in test.summaries.items():
        label = f"Max {access.title()}:"
        if access not in test.best:
            raise ParseError(f"log ends before IOR 2's '{label}' line that closes its summary (truncated)", last_line)
        best, line = test.best[access]
        if best != dict(pairs)["Max(MiB)"]:
            raise ParseError(f"'{label} {best} MiB/sec' differs from its summary row's Max(MiB) "
                             f"{dict(pairs)['Max(MiB)']}", line)


def _line_end(text: str, line: int) -> int:
    """The offset just past the 1-based `line` of `text` (0 for line 0)."""
    end = -1
    for _ in range(line):
        end = text.find("\n", end + 1)
        if end < 0:
            return len(text)
    return end + 1


# --- JSON (summaryFormat=JSON) -----------------------------------------------------------------

def _first_wins(pairs: list[tuple]) -> dict:
    """IOR's JSON repeats keys (its summary prints segmentCount, blockSize, transferSize twice); keep the first."""
    out: dict = {}
    for key, value in pairs:
        out.setdefault(key, value)
    return out


def _results(value) -> list[tuple[int | None, dict]]:
    """Results is a flat list in IOR 4, a list per iteration in IOR 3.3: (iteration or None, row)."""
    out = []
    for i, item in enumerate(value if isinstance(value, list) else []):
        if isinstance(item, list):
            out.extend((i, row) for row in item if isinstance(row, dict))
        elif isinstance(item, dict):
            out.append((None, item))
    return out


def _json_int(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def parse_json(text: str) -> Parsed:
    """Every IOR JSON document of the file, one after another (runs appended to one log), then, when another
    tool's output follows, where they end; any other text after a document is an error, never silently
    dropped."""
    start = JSON_START.search(text)
    if start is None:
        raise ParseError("no IOR JSON object (a line starting '{ \"Version\":')", 1)
    decoder = json.JSONDecoder(object_pairs_hook=_first_wins)
    records: list = []
    version = None
    pos, run_index = start.start(), 0
    first_line = text.count("\n", 0, pos) + 1
    while True:
        try:
            doc, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise ParseError(f"IOR JSON unreadable: {e.msg}", e.lineno) from None
        if not isinstance(doc, dict):
            raise ParseError("IOR JSON is not an object", first_line)
        version = version or doc.get("Version")
        records += _json_run(doc, run_index, sum(isinstance(r, IorTest) for r in records), first_line)
        # Counted from the last document on, never from the start: a long file of documents stays linear.
        first_line += text.count("\n", pos, end)
        pos = BLANKS.match(text, end).end()
        first_line += text.count("\n", end, pos)
        if pos == len(text):
            return Parsed(format="ior-json", tool="ior", tool_version=version, records=records, start=start.start())
        if not NEXT_JSON.match(text, pos):
            if detect(text[pos:pos + DETECT_BYTES]):  # another tool's output, which ingest reads next
                return Parsed(format="ior-json", tool="ior", tool_version=version, records=records, start=start.start(),
                              end=pos)
            raise ParseError("text after the IOR JSON document that is not another one", first_line)
        run_index += 1


NEXT_JSON = re.compile(r'\{\s*"Version"\s*:')
BLANKS = re.compile(r"\s*")


def _json_run(doc: dict, run_index: int, first_index: int, first_line: int) -> list:
    """The records of one IOR JSON document, its tests numbered from `first_index`."""
    tests = doc.get("tests")
    if not isinstance(tests, list) or not tests:
        raise ParseError("IOR JSON has no tests", first_line)
    command, version = doc.get("Command line"), doc.get("Version")
    summaries = [s for s in doc.get("summary") or [] if isinstance(s, dict)]
    records: list = []
    for index, test in enumerate(tests, first_index):
        if not isinstance(test, dict):
            raise ParseError(f"IOR JSON test {index - first_index} is not an object", first_line)
        params = test.get("Parameters") if isinstance(test.get("Parameters"), dict) else {}
        options = test.get("Options") if isinstance(test.get("Options"), dict) else {}
        test_id = _json_int(test.get("TestID"))
        tasks = _json_int(options.get("tasks"))
        per_node = _json_int(params.get("tasksPerNode"))
        fpp = params.get("filePerProc")
        records.append(IorTest(
            test_index=index, run_index=run_index, layout="json", version=version, ior_test_id=test_id,
            began=doc.get("Began"), host=machine_host(doc.get("Machine")), command=command,
            api=params.get("api") or options.get("api"), tasks=tasks,
            tasks_per_node=per_node, nodes=_json_int(params.get("nodes")) or _nodes(tasks, per_node),
            segments=_json_int(params.get("segmentCount")), transfer_bytes=_json_int(params.get("transferSize")),
            block_bytes=_json_int(params.get("blockSize")), sizes_from="options",
            file_per_proc=bool(fpp) if fpp is not None else None, repetitions=_json_int(params.get("repetitions")),
            stonewall_s=_json_int(params.get("deadlineForStonewall")) or None,  # 0: no deadline
            stonewall_pairs_min=None, stonewall_pairs_max=None, rank_csv=None, finished="Finished" in doc,
            **_orderings(options),
        ))
        seen: dict[str, int] = {}
        results = len(records)
        for iteration, row in _results(test.get("Results")):
            access = row.get("access")
            if access not in ACCESSES:
                raise ParseError(f"IOR JSON result with access {access!r}", first_line)
            seen[access] = seen.get(access, -1) + 1
            records.append(IorIteration(
                test_index=index, access=access, iteration=iteration if iteration is not None else seen[access],
                bw_mib_s=json_float(row.get("bwMiB")), iops=json_float(row.get("iops")),
                latency_s=json_float(row.get("latency")),
                block_kib=json_float(row.get("blockKiB")), xfer_kib=json_float(row.get("xferKiB")),
                open_s=json_float(row.get("openTime")), wrrd_s=json_float(row.get("wrRdTime")),
                close_s=json_float(row.get("closeTime")), total_s=json_float(row.get("totalTime")),
            ))
        for s in summaries:
            if _json_int(s.get("TestID")) != test_id or json_float(s.get("bwMaxMIB")) is None:
                continue
            records.append(IorSummary(
                test_index=index, access=str(s.get("operation")), bw_max_mib_s=json_float(s.get("bwMaxMIB")),
                bw_min_mib_s=json_float(s.get("bwMinMIB")), bw_mean_mib_s=json_float(s.get("bwMeanMIB")),
                bw_std_mib_s=json_float(s.get("bwStdMIB")), ops_max=json_float(s.get("OPsMax")),
                ops_min=json_float(s.get("OPsMin")), ops_mean=json_float(s.get("OPsMean")),
                ops_std=json_float(s.get("OPsSD")),
                mean_time_s=json_float(s.get("MeanTime")), stonewall_time_s=None, stonewall_bw_mib_s=None,
                iterations=_json_int(s.get("repetitions")),
            ))
        if len(records) == results:  # as a text log's test without a result row
            raise ParseError(f"IOR JSON test {index - first_index} has no results", first_line)
    return records


# --- CSVs --------------------------------------------------------------------------------------

def _csv_rows(text: str, header: str):
    """(line number, row) of a CSV that must start with `header`; blank lines are skipped."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != header:
        raise ParseError(f"expected the CSV header {header!r}", 1)
    columns = header.split(",")
    rows = csv.reader(io.StringIO("\n".join(lines[1:])))
    number = 1
    try:
        for number, row in enumerate(rows, 2):
            if not row:
                continue
            if len(row) != len(columns):
                raise ParseError(f"CSV row has {len(row)} fields, header {len(columns)}", number)
            yield number, dict(zip(columns, row))
    except csv.Error as e:
        raise ParseError(f"CSV unreadable: {e}", number + 1) from None


def parse_summary_csv(text: str) -> Parsed:
    records: list = []
    tasks = block = xfer = None
    number = 1
    try:
        for number, row in _csv_rows(text, SUMMARY_CSV_HEADER):
            if row["access"] not in ACCESSES:
                raise ParseError(f"CSV row with access {row['access']!r}", number)
            tasks, block, xfer = int(row["numTasks"]), float(row["block(KiB)"]), float(row["xfer(KiB)"])
            records.append(IorIteration(
                test_index=0, access=row["access"], iteration=int(row["iter"]), bw_mib_s=float(row["bw(MiB/s)"]),
                iops=float(row["IOPS"]), latency_s=float(row["Latency"]), block_kib=block, xfer_kib=xfer,
                open_s=float(row["open(s)"]), wrrd_s=float(row["wr/rd(s)"]), close_s=float(row["close(s)"]),
                total_s=float(row["total(s)"]),
            ))
    except ValueError:
        raise ParseError("CSV row holds a value that is not a number", number) from None
    if not records:
        raise ParseError("CSV has no result rows", 1)
    # block(KiB) and xfer(KiB) are printed with 4 decimals: exact for any whole number of bytes / 1024.
    records.insert(0, IorTest(
        test_index=0, run_index=0, layout="csv-summary", version=None, ior_test_id=None, began=None, command=None,
        api=None, tasks=tasks, tasks_per_node=None, nodes=None, segments=None, transfer_bytes=round(xfer * 1024),
        block_bytes=round(block * 1024), sizes_from="rounded", file_per_proc=None,
        repetitions=max(r.iteration for r in records) + 1, stonewall_s=None, stonewall_pairs_min=None,
        stonewall_pairs_max=None, rank_csv=None, finished=True,
    ))
    return Parsed(format="ior-csv-summary", tool="ior", tool_version=None, records=records)


def parse_rank_csv(text: str) -> Parsed:
    """The IorRank rows of a per-rank CSV, split, checked and converted by Arrow (350 of these files hold
    most of the archive's IOR rows)."""
    head, _, body = text.partition("\n")
    if head.strip() != RANK_CSV_HEADER:
        raise ParseError(f"expected the CSV header {RANK_CSV_HEADER!r}", 1)
    access, access_code, rank, numbers = _read_fast(body) or _read_checked(text)
    ranks = pc.cast(rank, pa.int64()).to_numpy()
    # IOR writes one block of ranks per access and iteration, in order: a row's iteration is how many rows
    # of its access and rank came before it.
    key = access_code.astype(np.int64) * (ranks.max() + 1) + ranks
    iteration = _occurrence(key)
    openclose_s, time_s, openclose_bw, bw = numbers.T
    n = len(ranks)
    table = pa.table({
        "test_index": np.zeros(n, np.int64), "access": access, "rank": ranks,
        "iteration": iteration, "time_with_openclose_s": openclose_s, "time_s": time_s,
        "bw_with_openclose_mib_s": openclose_bw / MIB, "bw_mib_s": bw / MIB,  # the CSV holds bytes/s
    })
    # The CSV names no test: it gets a test of its own, which the view replaces by the log's test
    # when a log in the same folder wrote this file (saveRankPerformanceDetailsCSV=...).
    test = IorTest(
        test_index=0, run_index=0, layout="rank-csv", version=None, ior_test_id=None, began=None, command=None,
        api=None, tasks=len(np.unique(ranks)), tasks_per_node=None, nodes=None, segments=None,
        transfer_bytes=None, block_bytes=None, sizes_from=None, file_per_proc=None,
        repetitions=int(iteration.max()) + 1, stonewall_s=None, stonewall_pairs_min=None,
        stonewall_pairs_max=None, rank_csv=None, finished=True,
    )
    return Parsed(format="ior-rank-csv", tool="ior", tool_version=None, records=[test], tables={IorRank: table})


_RANK_CSV_TYPES = {"access": pa.string(), "rank": pa.string()} | {name: pa.float64() for name in RANK_CSV_COLUMNS[2:]}


def _read_fast(body: str) -> tuple | None:
    """(access, its index in ACCESSES, rank, numbers) read in one pass by Arrow's CSV reader, or None when
    that cannot vouch for every row."""
    table = read_typed(body, _RANK_CSV_TYPES)
    numbers = None if table is None or not len(table) else finite_columns(table, 2, nulls=False)
    if numbers is None:
        return None
    access, rank = table.column(0).combine_chunks(), table.column(1).combine_chunks()
    access_code = pc.index_in(access, value_set=pa.array(ACCESSES)).to_numpy(zero_copy_only=False)  # NaN: other
    if np.isnan(access_code).any() or not is_count(rank).all():  # no negative rank is real: left to the slow way
        return None
    return access, access_code, rank, numbers


def _read_checked(text: str) -> tuple:
    """What _read_fast reads, split by csv_rows and checked field by field: slower, but it names the first
    bad row and why."""
    rows = csv_rows(text, len(RANK_CSV_COLUMNS))
    if not len(rows):
        raise ParseError("per-rank CSV has no rows", 1)
    access, rank, values = rows.column(0), rows.column(1), rows.columns_from(2)
    numbers = floats(values)
    access_code = pc.index_in(access, value_set=pa.array(ACCESSES)).to_numpy(zero_copy_only=False)  # NaN: other
    good = (rows.counts == len(RANK_CSV_COLUMNS)) & all_match(rank, f"-?{COUNT}") & ~np.isnan(access_code)
    if numbers is None or np.isnan(numbers).any():  # NaN: an empty field
        good &= all_match(values, NUMBER).reshape(len(rows), -1).all(axis=1)
    if not good.all():
        bad = int(np.argmin(good))
        raise ParseError(_rank_csv_error(rows.row(bad), int(rows.counts[bad])), int(rows.lines[bad]))
    if numbers is None:
        raise ParseError("a number past the range of a float")
    return access, access_code, rank, numbers.reshape(len(rows), -1)


def _occurrence(key: np.ndarray) -> np.ndarray:
    """For each element, how many equal elements come before it."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    index = np.arange(len(key))
    group_start = np.maximum.accumulate(np.where(np.r_[True, ordered[1:] != ordered[:-1]], index, 0))
    out = np.empty_like(index)
    out[order] = index - group_start
    return out


def _rank_csv_error(row: list[str], fields: int) -> str:
    """Why the row is refused, checked in the order of the row."""
    if fields != len(RANK_CSV_COLUMNS):
        return f"CSV row has {fields} fields, header {len(RANK_CSV_COLUMNS)}"
    if re.fullmatch(f"-?{COUNT}", row[1]) and row[0] not in ACCESSES:
        return f"CSV row with access {row[0]!r}"
    return "CSV row holds a value that is not a number"


# --- stdout without IOR's result output --------------------------------------------------------

# -O summaryFile= sends everything IOR prints of its run (banner, options, results: text, JSON or CSV) to
# that file; stdout keeps this line and what IOR writes to its log stream (warnings, errors).
SUMMARY_FILE = re.compile(r"Writing output to \S[^\n]*")
# IOR's ERR/ERRF: "ERROR: <message>, (<source>.c:<line>)", IOR 2's ERR: "ERROR in <source>.c (line <n>): <message>."
# Errors from IOR's own sources name the tool; an I/O backend's (aiori-POSIX.c) or the shared utilities' could
# be mdtest's, so they count only in IOR's stdout.
IOR_ERROR = re.compile(r"ERROR: [^\n]*, \((?:ior|ior-output|parse_options)\.c:\d+\)"
                       r"|ERROR in (?:IOR|parse_options)\.c \(line \d+\): [^\n]*")
ANY_ERROR = re.compile(r"ERROR: [^\n]*, \([\w.-]+\.c:\d+\)|ERROR in [\w.-]+\.c \(line \d+\): [^\n]*")


def detect_stdout(head: str) -> bool:
    return ((line_starting(SUMMARY_FILE, head) or line_starting(IOR_ERROR, head))
            and not line_starting(BANNER, head))


def parse_stdout(text: str) -> Parsed:
    """IOR's stdout without its banner: the summaryFile line of a run whose results are in that file (IOR
    output with no rows here), or the ERROR of a run that stopped (its failed run, with IOR's message)."""
    summary_file = _at_line_start(SUMMARY_FILE, text)
    start = summary_file.start() if summary_file else 0
    if summary_file:
        after = summary_file.end() + 1
        if text[after:].strip() and detect(text[after:after + DETECT_BYTES]):  # another output: ingest reads it
            return Parsed(format="ior-stdout", tool="ior", tool_version=None, records=[], start=start, end=after)
    error = _at_line_start(ANY_ERROR if summary_file else IOR_ERROR, text)
    if error:
        raise ParseError(f"IOR stopped with an error before any result: {error.group()}",
                         text.count("\n", 0, error.start()) + 1)
    if summary_file is None:
        raise ParseError("no IOR output: neither its 'Writing output to' line nor an IOR ERROR line", 1)
    return Parsed(format="ior-stdout", tool="ior", tool_version=None, records=[], start=start)


def _at_line_start(pattern: re.Pattern, text: str) -> re.Match | None:
    return next((m for m in pattern.finditer(text) if m.start() == 0 or text[m.start() - 1] == "\n"), None)


def _first_line(head: str) -> str:
    return first_line(head.lstrip("\ufeff")).strip()


def detect_text(head: str) -> bool:
    return "MPI Coordinated Test" in head and line_starting(BANNER, head)


def detect_ior2_fragment(head: str) -> bool:
    return ("Max (MiB)" in head and line_starting(IOR2_SUMMARY_HEADER, head) and line_starting(IOR2_BEST, head)
            and not line_starting(BANNER, head))


def parse_ior2_fragment(text: str) -> Parsed:
    """IOR 2's summary table and "Max Write:" lines without IOR's banner: text copied out of a log (a mail, a
    note), not IOR's output as it wrote it. Its rows are not read; the file fails at the table's header, with
    how it was changed when that shows (a header or row broken over lines: re-wrapped, as mail does)."""
    header = _at_line_start(IOR2_SUMMARY_HEADER, text)
    if header is None:
        raise ParseError("no IOR 2 summary header ('Operation  Max (MiB) ...')", 1)
    line = text.count("\n", 0, header.start()) + 1
    following = text[header.start():].split("\n", 2)
    wrapped = len(following) > 1 and following[1].lstrip().startswith("(OPs)")
    how = ("its table's header and rows are wrapped across lines (re-wrapped, as by mail)" if wrapped
           else "without IOR's banner line")
    raise ParseError(f"IOR 2 summary copied out of its log: {how}; not IOR's unmodified output, not read", line)


FORMATS = (
    Format(name="ior-json", tool="ior", detect=lambda head: '"tests"' in head and bool(JSON_START.search(head)),
           parse=parse_json),
    Format(name="ior-text", tool="ior", detect=detect_text, parse=parse_text),
    Format(name="ior-csv-summary", tool="ior", detect=lambda head: _first_line(head) == SUMMARY_CSV_HEADER,
           parse=parse_summary_csv),
    Format(name="ior-rank-csv", tool="ior", detect=lambda head: _first_line(head) == RANK_CSV_HEADER,
           parse=parse_rank_csv),
    Format(name="ior-stdout", tool="ior", detect=detect_stdout, parse=parse_stdout),
    Format(name="ior2-fragment", tool="ior", detect=detect_ior2_fragment, parse=parse_ior2_fragment),
)
