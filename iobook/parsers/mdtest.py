"""mdtest: text logs of every version (1.9.3 to 4.1+dev, IO500 phase logs) and per-rank CSVs.

A log holds one or more mdtest runs (header lines: ``mdtest-<version> was launched with ...``,
``Command line used: ...``), each with one or more tests (``<N> tasks, <M> files``, several with
``-f/-l/-s`` task scaling), each test printing a SUMMARY rate table and, from 3.3 on, often a
SUMMARY time table. A *summary* here is one test's tables: ``MdtestSummary`` gives its context,
``MdtestResult`` one row of one table.

Units: rate tables are ops/s. Time tables are seconds whatever their label says: mdtest prints the
phase's wall-clock time (``time[i]`` in summarize_results_rank0) under the labels ``time:``,
``time (in ops/sec):`` (3.4/4.0) and ``time (in ms/op):`` (4.1); e.g. an IO500 4.1 log with
Tree creation rate 1.449 ops/s prints its time as 0.690. The label as printed is kept in
``printed_unit``; no value is rescaled.

Failed phases: mdtest goes on after some failed operations and still prints a rate for the phase (a delete
phase of IO500 submission 699 printed "WARNING: Unable to remove directory" and 78 million removals/s). A
line saying an operation failed (FAILURE_LINE: "WARNING: unable to <verb> ...", 3.3's "error could not <verb>
...", "ERROR: ...") fails the rows of its test whose operation is that verb's (OPERATION_OF_VERB; every
measured row when no known verb is named), wherever in the test it is printed (a read's verify error comes
after the tables). Warnings that say no operation failed (could not read the stonewall status file, statfs,
Open MPI's) fail nothing. Rows the test did not measure (printed 0) are never failed.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import Format, ParseError, Parsed, line_starting
from .arrow_csv import (COUNT, NULL_STRING, NUMBER, all_match, csv_rows, finite_columns, float_array, floats, is_count,
                        read_typed)

TOOL = "mdtest"


@dataclass(frozen=True, kw_only=True)
class MdtestSummary:
    TABLE: ClassVar[str] = "raw_mdtest_summaries"
    summary_index: int  # 0-based order of the summary in the file
    line: int  # 1-based line of its first SUMMARY header
    version: str | None  # e.g. "1.9.3", "4.1.0+dev"
    command: str | None  # as printed after "Command line used:"
    started_at: str | None  # "YYYY-MM-DD HH:MM:SS" from "-- started at MM/DD/YYYY HH:MM:SS --"
    launched_tasks: int | None  # "launched with N total task(s)"
    nodes: int | None  # "on M node(s)"
    # "Nodemap: 1100...": one character per rank, 1 where the rank shares rank 0's node
    nodemap_ranks: int | None  # ranks marked 1 (rank 0 included)
    nodemap_stride: int | None  # the gap between consecutive marked ranks when constant (1: ranks fill a
    #                             node in order; the node count: ranks dealt round-robin); else None
    tasks: int | None  # "N tasks, M files": the tasks of this test (differs from launched with -f/-l/-s)
    items: int | None  # M of that line: files and/or directories over all tasks
    item_kind: str | None  # "files", "directories" or "files/directories"
    iterations: int  # "(of N iterations)"
    stonewall_items_min: int | None  # "Continue stonewall hit min: a max: b avg: c" (items per rank)
    stonewall_items_max: int | None
    stonewall_items_avg: float | None


@dataclass(frozen=True, kw_only=True)
class MdtestResult:
    TABLE: ClassVar[str] = "raw_mdtest_results"
    summary_index: int
    line: int  # 1-based line of the row
    table_kind: str  # "rate" (ops/s) or "time" (seconds)
    printed_unit: str | None  # the "(in ...)" label of the header, e.g. "ms/op"; None when absent
    operation: str  # as printed: "File creation", "Tree removal", "File create (stonewall)", ...
    max: float | None  # per-iteration statistics; None where mdtest printed NA
    min: float | None
    mean: float | None
    stddev: float | None
    rank_max: float | None  # per-rank statistics, only with --showRankStatistics
    rank_min: float | None
    rank_mean: float | None
    failure_line: int | None  # 1-based line of the first FAILURE_LINE naming this row's operation; None: none
    failure_lines: int | None  # how many such lines its test printed
    failure: str | None  # the first of them, as printed (200 characters at most)


@dataclass(frozen=True, kw_only=True)
class MdtestRankRow:
    """One operation of one row of a --saveRankPerformanceDetails CSV (converted by Arrow)."""

    TABLE: ClassVar[str] = "raw_mdtest_ranks"
    rank: int | None  # None on the "all" row
    all_ranks: bool  # the "all" row: the aggregate mdtest computed over every rank
    items: int | None  # printed on the "all" row only
    operation: str
    rate: float | None  # ops/s
    time: float | None  # seconds


RECORDS = (MdtestSummary, MdtestResult, MdtestRankRow)

_LAUNCHED = re.compile(r"mdtest-(\S+) was launched with (\d+) total task\(s\) on (\d+) node\(s\)")
_STARTED = re.compile(r"-- started at (\d\d)/(\d\d)/(\d{4}) (\d\d:\d\d:\d\d) --")
_TASKS = re.compile(r"(\d+) tasks, (\d+) (files/directories|files|directories)\s*")
_STONEWALL = re.compile(r"Continue stonewall hit min: (\d+) max: (\d+) avg: (\d+(?:\.\d+)?)\s*")
_SUMMARY = re.compile(r"SUMMARY(?: (rate|time))?(?: \(in ([^)]*)\))?: \(of (\d+) iterations\)\s*")
_NUMBER = re.compile(r"-?(?:\d+\.\d+|nan|inf)")
_FAILED = re.compile(r"FAILED in|ABORT")
_LAUNCHED_AT_LINE_START = re.compile(r"mdtest-\S+ was launched with ")
_NODEMAP = re.compile(r"Nodemap: ([01]+)\s*")
# A line saying an operation failed, as mdtest's WARN/EWARN ("WARNING: unable to stat file ..."), 3.3's
# create_remove_dirs ("error could not create directory ...") and the read verification ("ERROR: verifying the
# data on read (N errors)!") print it at the start of a line.
FAILURE_LINE = re.compile(r"(?:WARNING: [Uu]nable to|error could not|ERROR:) ")
# The operations (rows) a verb in a failure line is about, by the start of their name's words.
OPERATION_OF_VERB = {"create": "creat", "remove": "remov", "stat": "stat", "read": "read", "open": "read",
                     "rename": "renam"}
FAILURE_TEXT_MAX = 200
# Every SUMMARY table of every real log (3,447 in the IO500 archive and data/raw) ends with this row, and
# none ends the file: a table that does without it was cut.
LAST_OPERATION = "Tree removal"


def _value(token: str, lineno: int) -> float | None:
    if token == "NA":
        return None
    if not _NUMBER.fullmatch(token):
        raise ParseError(f"SUMMARY row: {token[:40]!r} is not a number", lineno)
    return float(token)


def _row(line: str, lineno: int, values: int) -> tuple[str, list[float | None]]:
    """'   File creation     :   1.0   2.0   3.0   4.0' -> ('File creation', [1.0, 2.0, 3.0, 4.0])."""
    tokens = line.split()
    name = tokens[:-values]
    if name and name[-1] == ":":  # 1.9.3 to 3.3 print "name   :" before the values
        name = name[:-1]
    if not name or not name[0][0].isalpha():
        raise ParseError(f"SUMMARY row: expected an operation and {values} values", lineno)
    return " ".join(name), [_value(t, lineno) for t in tokens[-values:]]


def parse_log(text: str) -> Parsed:
    summaries: list[MdtestSummary] = []
    results: list[MdtestResult] = []
    run: dict = {}  # from the current run's header lines
    test: dict = {}  # from the current test's "N tasks" and stonewall lines
    open_kinds: set[str] | None = None  # tables the latest summary has, while it may get more
    table = None  # [kind, printed_unit, values per row, rows read] while reading a table
    test_of_summary: list[int] = []  # the test (a count of test starts) each summary belongs to
    failures: list[tuple[int, int, str]] = []  # (test, line, text) of each FAILURE_LINE
    test_index = 0
    lines = text.split("\n")
    for lineno, line in enumerate(lines, 1):
        if table is not None:
            if line.startswith((" ", "\t")) and line.strip():
                _table_line(line, lineno, table, len(summaries) - 1, results)
                continue
            if not table[3]:
                raise ParseError("SUMMARY table has no rows", lineno)
            if lineno == len(lines) and results[-1].operation != LAST_OPERATION:
                raise ParseError(f"log ends inside a SUMMARY table, after its {results[-1].operation!r} row "
                                 "(truncated)", lineno - 1)
            table = None
        if FAILURE_LINE.match(line):
            failures.append((test_index, lineno, line[:FAILURE_TEXT_MAX].strip()))
        elif line.startswith("-- started at "):
            m = _STARTED.fullmatch(line)
            run = {"started_at": f"{m[3]}-{m[1]}-{m[2]} {m[4]}" if m else None}
            test, open_kinds = {}, None
            test_index += 1
        # each regex behind a cheap check of what it starts with or holds: most lines are none of these
        elif line.startswith("mdtest-") and (m := _LAUNCHED.match(line)):
            if "version" in run:  # a run without a "-- started at" line
                run = {}
            run.update(version=m[1], launched_tasks=int(m[2]), nodes=int(m[3]))
            test, open_kinds = {}, None
            test_index += 1
        elif line.startswith("Command line used:"):
            run["command"] = line[len("Command line used:"):].strip()
        elif line.startswith("Nodemap: ") and (m := _NODEMAP.fullmatch(line)):
            run.update(_nodemap(m[1]))
        elif " tasks, " in line and (m := _TASKS.fullmatch(line)):
            test = {"tasks": int(m[1]), "items": int(m[2]), "item_kind": m[3]}
            open_kinds = None
            if test_of_summary and test_of_summary[-1] == test_index:  # a second test of one run (-f/-l/-s)
                test_index += 1
        elif line.startswith("Continue stonewall") and (m := _STONEWALL.fullmatch(line)):
            test.update(stonewall_items_min=int(m[1]), stonewall_items_max=int(m[2]),
                        stonewall_items_avg=float(m[3]))
        elif line.startswith("SUMMARY") and (m := _SUMMARY.fullmatch(line)):
            kind = m[1] or "rate"  # 1.9.3 prints "SUMMARY:" for its only table, the rates
            if open_kinds is None or kind in open_kinds:
                summaries.append(_summary(len(summaries), lineno, int(m[3]), run, test))
                test_of_summary.append(test_index)
                open_kinds = set()
            open_kinds.add(kind)
            table = [kind, m[2], 4, 0]
    if table is not None:
        raise ParseError("log ends inside a SUMMARY table (truncated)", len(lines))
    if not summaries:
        failed = next((i for i, ln in enumerate(lines, 1) if _FAILED.search(ln[:500])), None)
        if failed:
            raise ParseError(f"mdtest failed: {lines[failed - 1][:200].strip()}", failed)
        raise ParseError("no SUMMARY table: the log ends before mdtest printed results", len(lines))
    if failures:
        results = _failed(results, test_of_summary, failures)
    return Parsed(format="mdtest-text", tool=TOOL, tool_version=summaries[0].version, records=summaries + results)


def _failed(results: list[MdtestResult], test_of_summary: list[int],
            failures: list[tuple[int, int, str]]) -> list[MdtestResult]:
    """The rows with their test's failures (module docstring): each measured row whose operation a failure line
    of its test names (by OPERATION_OF_VERB), or every measured row of the test for a line naming no known verb."""
    out = []
    for r in results:
        test = test_of_summary[r.summary_index]
        operation = r.operation.lower().split()
        mine = [(line, text) for t, line, text in failures if t == test and _names(text, operation)]
        measured = any(v for v in (r.max, r.min, r.mean))
        if mine and measured:
            r = dataclasses.replace(r, failure_line=mine[0][0], failure_lines=len(mine), failure=mine[0][1])
        out.append(r)
    return out


def _names(failure: str, operation_words: list[str]) -> bool:
    """Whether a failure line is about an operation: the first known verb it names starts one of the
    operation's words; a line naming no known verb is about every operation."""
    verb = next((w for w in re.findall(r"[a-z]+", failure.lower()) if w in OPERATION_OF_VERB), None)
    return verb is None or any(w.startswith(OPERATION_OF_VERB[verb]) for w in operation_words)


def _table_line(line: str, lineno: int, table: list, summary_index: int, results: list) -> None:
    """One indented line of a SUMMARY table: its column header, dashes, or a row."""
    stripped = line.strip()
    if stripped.startswith("Operation"):
        if "per Rank" in stripped:  # --showRankStatistics: 3 per-rank values, then the usual 4
            table[2] = 7
        return
    if stripped.startswith("---"):
        return
    kind, printed_unit, width, _ = table
    name, values = _row(line, lineno, width)
    ranks = values[:3] if width == 7 else [None] * 3
    maximum, minimum, mean, stddev = values[-4:]
    rank_max, rank_min, rank_mean = ranks
    results.append(MdtestResult(summary_index=summary_index, line=lineno, table_kind=kind, printed_unit=printed_unit,
                                operation=name, max=maximum, min=minimum, mean=mean, stddev=stddev,
                                rank_max=rank_max, rank_min=rank_min, rank_mean=rank_mean,
                                failure_line=None, failure_lines=None, failure=None))
    table[3] += 1


def _nodemap(marks: str) -> dict:
    """The ranks a Nodemap marks as on rank 0's node: how many, and their constant stride (None if not)."""
    marked = [m.start() for m in re.finditer("1", marks)]
    gaps = {b - a for a, b in zip(marked, marked[1:])}
    return {"nodemap_ranks": len(marked), "nodemap_stride": gaps.pop() if len(gaps) == 1 else None}


def _summary(index: int, lineno: int, iterations: int, run: dict, test: dict) -> MdtestSummary:
    return MdtestSummary(
        summary_index=index, line=lineno, iterations=iterations,
        version=run.get("version"), command=run.get("command"), started_at=run.get("started_at"),
        launched_tasks=run.get("launched_tasks"), nodes=run.get("nodes"),
        nodemap_ranks=run.get("nodemap_ranks"), nodemap_stride=run.get("nodemap_stride"),
        tasks=test.get("tasks"), items=test.get("items"), item_kind=test.get("item_kind"),
        stonewall_items_min=test.get("stonewall_items_min"),
        stonewall_items_max=test.get("stonewall_items_max"),
        stonewall_items_avg=test.get("stonewall_items_avg"))


# The per-rank CSV (--saveRankPerformanceDetails, mdtest 3.4+): a rate and a time column per
# operation, in mdtest_test_name() order; the "all" row first, then one row per rank, whose
# trailing empty fields (the tree phases, which only rank 0 times) are left out.
CSV_OPERATIONS = ("Directory creation", "Directory stat", "Directory read", "Directory rename",
                  "Directory removal", "File creation", "File stat", "File read", "File removal",
                  "Tree creation", "Tree removal")
CSV_HEADER = ["rank", "items"] + [f"{kind}-{op}" for op in CSV_OPERATIONS for kind in ("rate", "time")]


def parse_rank_csv(text: str) -> Parsed:
    """One MdtestRankRow per CSV row and operation with a rate or a time, split, checked and converted by
    Arrow (this format is most of the IO500 archive's rows); the first bad row fails the file at its line."""
    head, _, body = text.partition("\n")
    if head.split(",") != CSV_HEADER:
        raise ParseError("not the mdtest per-rank CSV header", 1)
    if not body.strip():
        raise ParseError("per-rank CSV has no rows (its header only)", 1)
    rank, all_ranks, items, numbers = _read_fast(body) or _read_checked(text)
    # Unpivot: one row per (CSV row, operation mdtest measured), in the CSV's order.
    rates, times = numbers[:, 0::2], numbers[:, 1::2]
    row, op = np.nonzero(~(np.isnan(rates) & np.isnan(times)))
    at = pa.array(row)
    table = pa.table({
        "rank": pc.cast(pc.if_else(all_ranks, NULL_STRING, rank), pa.int64()).take(at),
        "all_ranks": pa.array(all_ranks[row]),
        "items": pc.cast(pc.if_else(pc.equal(items, ""), NULL_STRING, items), pa.int64()).take(at),
        "operation": pa.array(CSV_OPERATIONS).take(pa.array(op)),
        "rate": float_array(rates[row, op]),
        "time": float_array(times[row, op]),
    })
    return Parsed(format="mdtest-rank-csv", tool=TOOL, tool_version=None, tables={MdtestRankRow: table})


_CSV_TYPES = {"rank": pa.string(), "items": pa.string()} | {name: pa.float64() for name in CSV_HEADER[2:]}


def _read_fast(body: str) -> tuple | None:
    """(rank, all_ranks, items, numbers) read in one pass by Arrow's CSV reader, or None when that cannot
    vouch for every row. The reader wants every row as wide as the header, so the rank rows (all of
    them as wide as the first: a row of another width fails the read) get their left-out fields back."""
    first, _, ranks = body.partition("\n")
    missing = len(CSV_HEADER) - 1 - ranks.partition("\n")[0].count(",")
    if missing > 0:
        body = f"{first}\n" + ranks.replace("\n", "," * missing + "\n")
    table = read_typed(body, _CSV_TYPES)
    numbers = None if table is None else finite_columns(table, 2, nulls=True)
    if numbers is None:
        return None
    rank, items = table.column(0).combine_chunks(), table.column(1).combine_chunks()
    all_ranks = pc.equal(rank, "all").to_numpy(zero_copy_only=False)
    if not ((all_ranks | is_count(rank)).all() and (pc.equal(items, "").to_numpy(zero_copy_only=False) | is_count(items)).all()):
        return None
    return rank, all_ranks, items, numbers


def _read_checked(text: str) -> tuple:
    """What _read_fast reads, split by csv_rows and checked field by field: slower, but it names the first
    bad row and why."""
    width = len(CSV_HEADER)
    rows = csv_rows(text, width)
    n = len(rows)
    rank, items, values = rows.column(0), rows.column(1), rows.columns_from(2)
    numbers = floats(values)
    all_ranks = pc.equal(rank, "all").to_numpy(zero_copy_only=False)
    good = (all_ranks | all_match(rank, COUNT)) & (rows.counts <= width) & all_match(items, f"(?:{COUNT})?")
    if numbers is None:
        good &= all_match(values, f"(?:{NUMBER})?").reshape(n, width - 2).all(axis=1)
    if not good.all():
        bad = int(np.argmin(good))
        raise ParseError(_rank_csv_error(rows.row(bad), int(rows.counts[bad])), int(rows.lines[bad]))
    if numbers is None:
        raise ParseError("a number past the range of a float")
    return rank, all_ranks, items, numbers.reshape(n, width - 2)


def _rank_csv_error(row: list[str], fields: int) -> str:
    """Why the row is refused: its first bad field, checked in the order of the row."""
    if row[0] != "all" and not re.fullmatch(COUNT, row[0]):
        return f"rank {row[0][:40]!r} is neither 'all' nor a number"
    if fields > len(CSV_HEADER):
        return f"{fields} fields, the header has {len(CSV_HEADER)}"
    if len(row) > 1 and row[1] and not re.fullmatch(COUNT, row[1]):
        return f"items {row[1][:40]!r} is not a count"
    field = next(f for f in row[2:] if f and not re.fullmatch(NUMBER, f))
    return f"{field[:40]!r} is not a number"


def detect_log(head: str) -> bool:
    if " was launched with " not in head:  # cheap before a MULTILINE regex over a 1 MiB head
        return False
    return line_starting(_LAUNCHED_AT_LINE_START, head)


def _detect_rank_csv(head: str) -> bool:
    return head.startswith(",".join(CSV_HEADER[:3]))


FORMATS = (
    Format(name="mdtest-text", tool=TOOL, detect=detect_log, parse=parse_log),
    Format(name="mdtest-rank-csv", tool=TOOL, detect=_detect_rank_csv, parse=parse_rank_csv),
)
