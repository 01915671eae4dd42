"""IOR's records, whatever layout IOR wrote them in (ior_text, ior_json, ior_csv), and what those parsers share.

One file may hold several tests (an ``-f`` script) or several IOR runs one after another (an
io500.sh log); ``test_index`` numbers the tests of the file in order, whatever run they belong to.
Bandwidths are MiB/s, times seconds, sizes bytes. Summary rows are those IOR printed itself
("Summary of all tests" or JSON "summary"); the view computes one from the iterations otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

ACCESSES = ("write", "read", "remove")


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


# --- what the text and JSON parsers both read --------------------------------------------------

def orderings(options: dict) -> dict:
    """IorTest's collective and ordering fields from an option block (text or JSON "Options")."""
    kind, in_file, inter_file = (options.get(k) for k in ("type", "ordering in a file", "ordering inter file"))
    return {"collective": kind == "collective" if isinstance(kind, str) and kind else None,
            "ordering_in_file": in_file if isinstance(in_file, str) and in_file else None,
            "ordering_inter_file": inter_file if isinstance(inter_file, str) and inter_file else None}


def derived_nodes(tasks: int | None, per_node: int | None) -> int | None:
    """IOR < 3.3 prints no node count; IOR itself derives it as tasks / tasks per node."""
    if tasks and per_node and tasks % per_node == 0:
        return tasks // per_node
    return None


def machine_host(machine) -> str | None:
    """The node name in IOR's "Machine" value ("Linux node1", or uname's sysname, nodename, release, ...)."""
    words = str(machine).split() if machine else []
    return words[1] if len(words) > 1 else None
