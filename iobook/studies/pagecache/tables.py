"""The page-cache study's tables as the page shows them: comparisons through the comparison kit (comparison.table),
estimates and per-step measures with short column names and their formats; a column with one value in every row
said once above its table (present.constant_columns)."""
from __future__ import annotations

import dataclasses

import pandas as pd

from ...book import comparison, present
from ...book.report import Table

MIB = ",.0f"
BANDWIDTH, LATENCY = "bandwidth (MiB/s)", "completion latency (ms)"


def compared(rows: pd.DataFrame, **descriptors: str) -> Table:
    """Decided comparison rows as the kit's table: the measure, ratio and interval, the descriptor columns
    (`column="shown name"`) that tell the rows apart, units a side, Holm's p and the verdict. Its verdicts' legend is
    said once for the page (legend), not under each of its six tables (issue 50)."""
    return dataclasses.replace(
        comparison.table(list(rows.record), rows[list(descriptors)].rename(columns=descriptors)), note="")


def legend(rows: pd.DataFrame) -> str:
    """What the verdicts of the page's comparison tables mean, each said once (comparison.legend)."""
    return comparison.legend(rows.record)


def _said_once(frame: pd.DataFrame, formats: dict[str, str]) -> Table:
    """A table whose columns with one value in every row (the one run a section reads) are said above it, in the
    column's format."""
    shown, shared = present.constant_columns(frame)
    return Table(frame=shown, formats=formats, shared=shared)


def published(facts: pd.DataFrame) -> Table:
    return Table(frame=facts[["row", "column", "printed", "unit"]].rename(columns={"column": "column on the slide"}))


def steps(frame: pd.DataFrame) -> Table:
    """Per fio step of the modes run: bandwidth, the spread of its per-bucket bandwidth, CPU."""
    return _said_once(frame[["run_id", "step", "bw_mib_s", "cv", "p5_mib_s", "p95_mib_s", "fio_sys_cpu_s_per_gib",
                              "busy_cpus_before"]].rename(columns={
        "run_id": "run", "bw_mib_s": "MiB/s", "cv": "CV", "p5_mib_s": "5th pct", "p95_mib_s": "95th pct",
        "fio_sys_cpu_s_per_gib": "sys s/GiB", "busy_cpus_before": "busy CPUs before"}),
        {"MiB/s": MIB, "CV": ".3f", "5th pct": MIB, "95th pct": MIB, "sys s/GiB": ".3f", "busy CPUs before": ".2f"})


def dirty(left: pd.DataFrame) -> Table:
    """Per buffered write: the cgroup's dirty MiB when the next step started."""
    names = {**run_named(left), "step": "buffered write", "next_step": "next step",
             "dirty_mib": "dirty at its start (MiB)"}
    return Table(frame=left[list(names)].rename(columns=names), formats={"dirty at its start (MiB)": MIB})


def run_named(frame: pd.DataFrame) -> dict[str, str]:
    """How a table of several runs names a row's run: by its experiment where each experiment has one run there
    (the table of runs gives its folder, which took a third of a table's width), else by experiment and run."""
    if frame.groupby("experiment").run_id.nunique().max() <= 1:
        return {"experiment": "experiment"}
    return {"experiment": "experiment", "run_id": "run"}


def reclaim(frame: pd.DataFrame) -> Table:
    """Per step, the rise of the reclaim counters and the cgroup's peaks."""
    names = {"run_id": "run", "step": "step", "cgroup_pgpgout_events": "pgpgout", "pgpgout_per_gib": "pgpgout/GiB",
             "global_reclaim_scanned_pages": "global scan", "all_reclaim_scanned_file_pages": "pgscan_file",
             "peak_cache": "cache (MiB)", "peak_dirty": "dirty (MiB)"}
    return _said_once(frame[list(names)].rename(columns=names), {c: MIB for c in list(names.values())[2:]})


def fill(frame: pd.DataFrame) -> Table:
    """Per buffered read: its bandwidth while the cache filled and once full, the cache, charges, CPU and vmstat."""
    names = {**run_named(frame), "repetition": "round", "bw_mib_s": "MiB/s", "filling_mib_s": "filling",
             "full_mib_s": "full", "cache_start_mib": "cache at start", "cache_peak_mib": "peak",
             "charges_per_gib": "charges/GiB", "fio_sys_cpu_s_per_gib": "sys s/GiB", "idle_pct": "idle %",
             "run_queue": "run queue"}
    return Table(frame=frame[list(names)].rename(columns=names),
                 formats={"MiB/s": MIB, "filling": MIB, "full": MIB, "cache at start": MIB, "peak": MIB,
                          "charges/GiB": MIB, "sys s/GiB": ".2f", "idle %": ".0f", "run queue": ".1f"})


def reads(settings: pd.DataFrame) -> Table:
    """Read bandwidth by setting (analysis.read_settings), with the mean completion latency beside it."""
    wide = settings.pivot(index=["run_id", "experiment", "series", "value"], columns="measure",
                          values=["repetitions", "mean", "low", "high"])
    wide.columns = [f"{m} {s}" for s, m in wide.columns]
    wide = wide.reset_index()
    names = {**run_named(wide), "series": "series", "value": "depth or KiB", f"{BANDWIDTH} repetitions": "n",
             f"{BANDWIDTH} mean": "MiB/s", f"{BANDWIDTH} low": "low", f"{BANDWIDTH} high": "high",
             f"{LATENCY} mean": "latency (ms)"}
    return Table(frame=wide[list(names)].rename(columns=names),
                 formats={"depth or KiB": MIB, "MiB/s": MIB, "low": MIB, "high": MIB, "latency (ms)": ".3f"})


def reads_by_run(frame: pd.DataFrame) -> Table:
    """The modes runs' reads per run and mode (analysis.reads_by_run)."""
    return Table(frame=frame.rename(columns={"run_id": "run", "repetitions": "n", "mean": "MiB/s",
                                             "clat_mean_ms": "ms per request"}),
                 formats={"MiB/s": MIB, "low": MIB, "high": MIB, "ms per request": ".3f"})


def runs(frame: pd.DataFrame) -> Table:
    """The runs this page reads, with the machine's load when each started and the cgroup fio ran in."""
    names = {"experiment": "experiment", "run_folder": "run", "kernel": "kernel", "target_filesystem": "file system",
             "target_device": "device", "load_avg_1m": "load (1 min)", "memory_limit_mib": "cgroup limit (MiB)"}
    return _said_once(frame[list(names)].rename(columns=names), {"load (1 min)": ".2f", "cgroup limit (MiB)": MIB})


def status(frame: pd.DataFrame) -> Table:
    return present.run_status_table(frame)
