"""The History study's tables, each fitting the page's column: every run, the fio runs' steady-state checks, every
IO500 submission shown, and the change points of both through the comparison kit (comparison.table: measure, ratio
and interval first, the verdicts' codes explained once under the table)."""
from __future__ import annotations

import posixpath

import numpy as np
import pandas as pd

from ...book import comparison, present
from ...book.report import Table
from ...database import source_labels
from ...inference import evidence

RATE_FORMATS = {"bw (MiB/s)": ",.1f", "rate (ops/s)": present.significant(4),
                "samples/s": present.significant(4), "AU (%)": ".1f"}
FIO_FORMATS = {"clat p99 (ms)": ",.3f", "slowest ÷ median job": ".3f", "slope (% of mean per s)": ".1f",
               "largest deviation (% of mean)": ".0f"}


def relative_files(paths: pd.Series) -> tuple[pd.Series, str]:
    """Paths as readers see them (store.reader_paths) less the folder holding all of them, and that folder: a cell
    holds 'pagecache/vm-…/047-read-buffered-psync-qd1-r6.fio.json', the page names 'data/raw' once and links to the
    Data chapter's list of the files under it, each with its whole path (present.files_link)."""
    folder = posixpath.commonpath(list(paths)) if len(paths) else ""
    if folder in set(paths):  # one file: its folder
        folder = posixpath.dirname(folder)
    return (paths.map(lambda p: posixpath.relpath(p, folder)) if folder else paths), folder


def runs_table(runs: pd.DataFrame, files: pd.Series) -> Table:
    """Every run, by history and in its order: its position, start, bandwidth (fio, IOR, DLIO) or rate (mdtest), a DLIO
    run's samples/s and AU, and its file (`files`: relative_files). A fio run's own measures are fio_table's; the tool's version is in the Data chapter's
    list of files, and a change point names it where it changes."""
    frame = pd.DataFrame({
        "history": runs.history, "run": runs.run, "started": runs.started.dt.strftime("%Y-%m-%d %H:%M:%S"),
        "bw (MiB/s)": runs.bw_bytes_s / 2**20, "rate (ops/s)": runs.ops_s, "samples/s": runs.samples_s,
        "AU (%)": runs.au_pct, "file": files})
    # a measure no run has (no mdtest run: no rate) tells no row apart
    frame = frame.drop(columns=[c for c in frame.columns if frame[c].isna().all()])
    return Table(frame=frame.sort_values(["history", "run"], kind="stable").reset_index(drop=True),
                 formats=RATE_FORMATS, searchable=True)


def fio_table(runs: pd.DataFrame) -> Table:
    """Every fio run's own measures, by history and in its order: its completion-latency p99, its jobs (numjobs'
    processes) and the slowest one's bandwidth over the median one's, and where it wrote a bw log, that log's
    samples, slope (% of the mean per second, the steepest job's), largest deviation of a sample from the mean (%)
    and whether every job's log is steady (the runs table holds what every run measured: nine columns of both did
    not fit the page)."""
    fio = runs[runs.tool == "fio"]
    frame = pd.DataFrame({
        "history": fio.history, "run": fio.run, "clat p99 (ms)": fio.p99_ns / 1e6, "jobs": fio.jobs.astype("Int64"),
        "slowest ÷ median job": fio.slowest_job, "bw log samples": fio.samples.astype("Int64"),
        "slope (% of mean per s)": fio.slope_pct_s, "largest deviation (% of mean)": fio.range_pct,
        "steady": fio.steady.map({True: "yes", False: "no"})})
    return Table(frame=frame.sort_values(["history", "run"], kind="stable").reset_index(drop=True),
                 formats=FIO_FORMATS, searchable=len(frame) > 0)  # the filter box's script reads a first row


def histories_table(runs: pd.DataFrame, searched: pd.DataFrame, changes: pd.DataFrame, decided: list) -> Table:
    """Every history searched: its runs, when its first and last started, the collector runs its runs belong to (one:
    the steps of one run, repetitions of one experiment), and its change points, decided ones counted apart."""
    key = list(zip(runs.label, runs.workload))
    rows = []
    for _, h in searched.iterrows():
        mine = runs[[k == (h.label, h.workload) for k in key]]
        points = [c for (_, row), c in zip(changes.iterrows(), decided) if (row.label, row.workload) == (h.label, h.workload)]
        collectors = mine.design[mine.design.str.startswith(source_labels.COLLECTOR_RUN)].nunique()
        rows.append({"history": h.history, "runs": h.runs, "first started": f"{mine.started.min():%Y-%m-%d %H:%M}",
                     "last started": f"{mine.started.max():%Y-%m-%d %H:%M}", "collector runs": collectors,
                     "change points": len(points), "decided": sum(c.decided for c in points)})
    return Table(frame=pd.DataFrame(rows, columns=["history", "runs", "first started", "last started",
                                                   "collector runs", "change points", "decided"]),
                 searchable=len(rows) > 0)  # the filter box's script reads a first row


def changes_table(changes: pd.DataFrame, decided: list, at: str = "run") -> Table:
    """The change points through the comparison kit: each the ratio of the runs after over the runs before, and in one
    wrapping column (ten columns did not fit the page at 1280 px) the history (`changes`' history, or an IO500
    system), the first run or submission after it and when it started, the permutation test's p (the search's own;
    the comparison's p is the larger of it and Welch's) and what else changed. `at`: 'run' (the fio, IOR and mdtest
    histories) or 'submission' (IO500)."""
    if changes.empty:
        return comparison.table([], pd.DataFrame())
    if at == "run":
        name = changes.history
        where = [f"run {r}, {t:%Y-%m-%d %H:%M}" for r, t in zip(changes.run, changes.started)]
    else:
        rules = changes["score rule"].nunique() > 1  # one rule in every row: the caption's to say
        name = changes.system + (" (" + changes["score rule"] + ")" if rules else "")
        where = [f"{s}, {t:%Y-%m-%d}" for s, t in zip(changes.submission, changes.started)]
    described = [f"{n}: from {w}; permutation p {p:.3f}; else changed: {c}"
                 for n, w, p, c in zip(name, where, changes["permutation p"], changes["what else changed"])]
    return comparison.table(decided, pd.DataFrame({"change point": described}), keep=["change point"])


def io500_table(submissions: pd.DataFrame) -> Table:
    """Every submission of the systems shown: its score and sub-scores first, the system, submission, when its run
    started, and its setup as one wrapping text (generation, IO500 version, processes, client nodes, release); columns every
    row shares (one score rule, one run each, all valid) said once above the table, and the runs' keys only where
    a submission holds other runs than its own."""
    setup = [", ".join(x for x in (g, v, p and f"{p} processes", n and f"{n} client nodes", r and f"release {r}")
                       if isinstance(x, str) and x)
             for g, v, p, n, r in zip(*(submissions[c].astype(object).where(submissions[c].notna(), None)
                                        for c in ("generation", "io500_version", "procs", "client_nodes", "release")))]
    frame = pd.DataFrame({
        "score": submissions.score, "bandwidth (GiB/s)": submissions.bw_gib_s, "metadata (kIOPS)": submissions.md_kiops,
        "system": submissions.system, "score rule": submissions.score_rule,
        "submission": "submission-" + submissions.submission.astype(str),
        "started": submissions.started.dt.strftime("%Y-%m-%d %H:%M"), "setup": [s or "–" for s in setup],
        "runs": submissions.runs, "valid": np.where(submissions.valid, "yes", "no"), "run keys": submissions.run_keys})
    if (frame["run keys"] == frame.submission).all():
        frame = frame.drop(columns="run keys")
    shown, shared = present.constant_columns(frame, keep=["score", "system", "submission"])
    four = present.significant(4)
    return Table(frame=shown, shared=shared, searchable=True,
                 formats={"score": four, "bandwidth (GiB/s)": four, "metadata (kIOPS)": four})


def alone_count(runs: pd.DataFrame, searched: pd.DataFrame) -> evidence.Count:
    """The runs in no history searched: their workload (label and workload) ran fewer than MIN_RUNS times."""
    searched_keys = set(zip(searched.label, searched.workload))
    alone = [key not in searched_keys for key in zip(runs.label, runs.workload)]
    return evidence.count(int(sum(alone)), len(runs), of=evidence.Replicate.CENSUS,
                          quantity="runs whose workload ran too few times to be searched")
