"""IOR's CSVs: the summary of summaryFormat=CSV, and the per-rank times of saveRankPerformanceDetailsCSV.

Both are known by their whole first line (FIRST_LINE_FORMATS). Their records are those of ior_records: a CSV
names no test, so each gives one of its own (test_index 0).
"""
from __future__ import annotations

import csv
import io
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import Format, ParseError, Parsed, first_line
from .arrow_csv import COUNT, NUMBER, all_match, csv_rows, finite_columns, floats, is_count, read_typed
from .ior_records import ACCESSES, IorIteration, IorRank, IorTest

MIB = 1 << 20
SUMMARY_CSV_HEADER = "access,bw(MiB/s),IOPS,Latency,block(KiB),xfer(KiB),open(s),wr/rd(s),close(s),total(s),numTasks,iter"
RANK_CSV_HEADER = "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput"
RANK_CSV_COLUMNS = RANK_CSV_HEADER.split(",")


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


def _first_line(head: str) -> str:
    return first_line(head.lstrip("\ufeff")).strip()


FORMATS = (
    Format(name="ior-csv-summary", tool="ior", detect=lambda head: _first_line(head) == SUMMARY_CSV_HEADER,
           parse=parse_summary_csv),
    Format(name="ior-rank-csv", tool="ior", detect=lambda head: _first_line(head) == RANK_CSV_HEADER,
           parse=parse_rank_csv),
)
