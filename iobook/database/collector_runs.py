"""Runs made by the collectors in scripts/ (collect_checksum.py, collect_pagecache.py, collect_snapshots.py),
read by the checksum_cost, pagecache and snapshots chapters: which run of each experiment is current and
which superseded, selecting runs by their folder name, each output file's manifest labels as columns (the
baseline measured again at the end of a run, label drift_check=end, kept apart), the CPU a step cost per GiB it
moved and what vmstat saw during a step. Its SQL: queries/collector_runs/*.sql. The status as a page's table is
the book's (present.run_status_table), a comparison's verdicts as rows the comparison kit's (comparison.decide_rows,
comparison.record_frame)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from ..inference import selection
from ..inference.units import GIB
from . import store

STEP_COLUMNS = ["run_id", "step_index", "step", "step_s", "file", "source_id"]
# The collectors' label of the baseline configurations measured once more after the last round (value 'end',
# scripts/collectlib.py Rounds.execute): a check of drift over the run, not one more repetition.
END_BASELINE_LABEL = "drift_check"


def get_runs(con, study: str) -> pd.DataFrame:
    """Every run of one study (manifest `study`: 'checksum', 'pagecache', 'snapshots'), one row each:
    `run_folder` (the run folder's name, how chapters select runs), the host, the load averages at the
    start, the target file system, and `manifest_source_id`. Ordered by run folder."""
    df = store.frame(con, __package__, "collector_runs/runs", [study])
    df["run_dir"] = store.reader_paths(con, df["run_dir"])
    return df


def get_run_status(con, study: str, experiment_label: str | None = None,
                   default_experiment: str | None = None) -> pd.DataFrame:
    """One row per run and experiment of `study`, from the manifests: run_folder, run_id, `experiment` (each
    output file's `experiment_label`, e.g. pagecache's 'experiment' or snapshots' 'part'; `default_experiment`
    for files without it, made before the collector had experiments; the study's name when no label is
    given), `started_utc`, `stopping_rule` (the manifest records a decision rule, facts.*decision.rule: the
    collectors' interleaved rounds with a stopping rule, not a fixed order), `files` measured and
    `end_files` (END_BASELINE_LABEL), `repetitions` (the highest repetition label of the measured files, NA
    without one), and `status`: 'current' for the newest run of the experiment among those made with the
    newest design (a stopping rule over a fixed order), 'superseded' for the others. Ordered by experiment
    and start."""
    default = default_experiment or study
    df = store.frame(con, __package__, "collector_runs/run_status",
                     [experiment_label or "", default, END_BASELINE_LABEL, study])
    df["repetitions"] = df["repetitions"].astype("Int64")
    newest = df.sort_values(["stopping_rule", "started_utc", "run_folder"]).groupby("experiment").run_id.last()
    df["status"] = np.where(df.run_id == df.experiment.map(newest), "current", "superseded")
    return df.reset_index(drop=True)


def select_current(con, study: str, run_folders: Iterable[str] | None = None, experiment_label: str | None = None,
                   default_experiment: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the runs a chapter reads and every run's status (get_run_status) with `selected`. By
    default the current run of each experiment; with `run_folders`, the runs named (select_runs: exact
    folder names, an unknown one raises selection.UnknownSelection), superseded ones too."""
    status = get_run_status(con, study, experiment_label, default_experiment)
    runs = get_runs(con, study)
    if run_folders:
        runs = select_runs(con, study, run_folders)
        status["selected"] = status.run_id.isin(runs.run_id)
    else:
        status["selected"] = status.status == "current"
        runs = runs[runs.run_id.isin(status.run_id[status.selected])].reset_index(drop=True)
    return runs, status


def selected_ids(status: pd.DataFrame, experiment: str) -> list[str]:
    """The selected runs of one experiment (select_current's status)."""
    return status.loc[status.selected & (status.experiment == experiment), "run_id"].tolist()


def select_runs(con, study: str, run_folders: Iterable[str] | None = None) -> pd.DataFrame:
    """The runs of `study` named by `run_folders` (exact run folder names, e.g. 'vm-20261121T131428Z'),
    or all of them when it is empty or None. An unknown name raises selection.UnknownSelection naming the
    nearest folders. A collector names its folder <hostname>-<UTC second>, so a name picks one run."""
    runs = get_runs(con, study)
    wanted = selection.select(run_folders, runs["run_folder"], f"{study} collector run folder")
    return runs[runs["run_folder"].isin(wanted)].reset_index(drop=True)


def get_step_labels(con, run_ids: Iterable[str], file_suffix: str = ".fio.json",
                    end_baseline: bool = False) -> pd.DataFrame:
    """The label pivot: one row per ingested output file of the runs whose name ends with `file_suffix`
    (only those labelled END_BASELINE_LABEL when `end_baseline`, else only those without it),
    with run_id, step_index, step (the manifest step's name), step_s (its duration in seconds), file,
    source_id, and one text column per manifest label key (the run's labels merged with the step's;
    a key a file lacks is NaN; a key named like one of those columns, such as the snapshot collector's
    `step`, becomes `<key>_label`). Cast numeric labels yourself (e.g. `.astype({"repetition": int})`)."""
    long = store.frame(con, __package__, "collector_runs/step_labels", [list(run_ids), file_suffix])
    if long.empty:
        return pd.DataFrame(columns=STEP_COLUMNS)
    long["key"] = long["key"].where(~long["key"].isin(STEP_COLUMNS), long["key"] + "_label")
    wide = long.pivot(index=STEP_COLUMNS, columns="key", values="value").reset_index()
    wide.columns.name = None
    end = wide[END_BASELINE_LABEL].notna() if END_BASELINE_LABEL in wide else pd.Series(False, index=wide.index)
    wide = wide[end if end_baseline else ~end]
    if wide.empty:
        return pd.DataFrame(columns=STEP_COLUMNS)
    return wide.sort_values(["run_id", "step_index"]).reset_index(drop=True)


def keep_labels(steps: pd.DataFrame, wanted: Mapping[str, Iterable[str]] | None) -> pd.DataFrame:
    """Rows of a get_step_labels frame whose labels take the wanted values, e.g. {"verify": ["none",
    "crc32c"], "mode": ["direct"]}; empty keeps all. An unknown key or value raises selection.UnknownSelection
    naming the nearest that exist."""
    if not wanted:
        return steps
    label_keys = [c for c in steps.columns if c not in STEP_COLUMNS]
    keep = pd.Series(True, index=steps.index)
    for key in selection.select(list(wanted), label_keys, "manifest label"):
        values = selection.select(list(wanted[key]), steps[key].dropna(), f"value of label {key!r}")
        keep &= steps[key].isin(values)
    return steps[keep].reset_index(drop=True)


def cpu_s_per_gib(cpu_pct, seconds, io_bytes):
    """CPU-seconds spent per GiB (2^30 bytes) moved: a CPU share in percent of ONE CPU (fio's usr_cpu and
    sys_cpu; mpstat's busy % of all CPUs times the core count; 100 for perf's task-clock seconds) held
    for `seconds`, over `io_bytes`. Works on numbers and pandas Series alike."""
    return cpu_pct / 100 * seconds / (io_bytes / GIB)


def get_step_machine_cpu(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """Machine-wide busy CPUs per collector step from mpstat (view step_cpu_busy, all CPUs, usr + nice +
    sys + irq + soft): `busy_cpus_before` from the first sample (the second before the step's tool
    started) and `busy_cpus_during` averaged over the samples from 1 s up to the step's duration.
    Rounded to 6 decimals: DuckDB's parallel float sums may differ in the last bits between runs."""
    return store.frame(con, __package__, "collector_runs/step_machine_cpu", [list(run_ids)])


def get_step_vmstat(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """`vmstat 1` per collector step, averaged over the samples from 1 s up to the step's duration (as
    get_step_machine_cpu does for mpstat): the run queue (`r`, processes running or waiting for a CPU),
    CPU user, system, idle, I/O wait and steal %, blocks read from disks (`bi`, MiB/s) and the least free
    memory (GiB). One row per step with a vmstat file."""
    return store.frame(con, __package__, "collector_runs/step_vmstat", [list(run_ids)])


# The columns get_fio_steps adds to the labels.
FIO_STEP_MEASURES = {"bw_bytes_s", "io_bytes", "runtime_s", "cpu_runtime_s", "usr_cpu_pct", "sys_cpu_pct",
                     "perf_source_id", "task_clock_s", "mpstat_source_id", "busy_cpus_before", "busy_cpus_during",
                     "bw_mib_s", "gib", "fio_cpu_s_per_gib", "fio_sys_cpu_s_per_gib", "perf_cpu_s_per_gib",
                     "machine_cpu_s_per_gib"}


def get_fio_steps(con, run_ids: Iterable[str], labels: Mapping[str, Iterable[str]] | None = None,
                  end_baseline: bool = False) -> pd.DataFrame:
    """One row per fio step of the runs whose `phase` label is fio's direction ('read' or 'write'; the
    checksum and pagecache collectors): the labels (get_step_labels), fio's result in that direction
    (bw_mib_s, io_bytes, gib, runtime_s), fio's usr/sys CPU % of the job's own run time (cpu_runtime_s), fio's
    CPU-seconds per GiB (usr + sys, and sys alone, over cpu_runtime_s: a verify read's job outlasts its read
    direction, issue 46), perf's task-clock per GiB where perf ran, and the machine's busy CPUs before and during the
    step with the machine-wide CPU-seconds per GiB. A verify read is a fio write job whose read
    direction carries the bytes, hence the direction is taken from the label, with bandwidth > 0.
    `labels` keeps only steps with those label values (keep_labels). A label named like a measured
    column (the pagecache collector's `runtime_s`, the requested run time) becomes `<key>_label`.
    `end_baseline`: the steps of the baseline measured again at the end instead (get_step_labels)."""
    run_ids = list(run_ids)
    steps = keep_labels(get_step_labels(con, run_ids, end_baseline=end_baseline), labels)
    if steps.empty or "phase" not in steps:
        return pd.DataFrame()
    fio = store.frame(con, __package__, "collector_runs/fio_steps", [steps["source_id"].astype(int).tolist()])
    perf = store.frame(con, __package__, "collector_runs/perf_steps", [run_ids])
    steps = steps.rename(columns={k: f"{k}_label" for k in steps.columns if k in FIO_STEP_MEASURES})
    df = (steps.merge(fio, on=["source_id", "phase"])
          .merge(perf, on=["run_id", "step_index"], how="left")
          .merge(get_step_machine_cpu(con, run_ids), on=["run_id", "step_index"], how="left"))
    df["bw_mib_s"] = df["bw_bytes_s"] / 2**20
    df["gib"] = df["io_bytes"] / GIB
    df["fio_cpu_s_per_gib"] = cpu_s_per_gib(df["usr_cpu_pct"] + df["sys_cpu_pct"], df["cpu_runtime_s"],
                                            df["io_bytes"])
    df["fio_sys_cpu_s_per_gib"] = cpu_s_per_gib(df["sys_cpu_pct"], df["cpu_runtime_s"], df["io_bytes"])
    df["perf_cpu_s_per_gib"] = cpu_s_per_gib(100, df["task_clock_s"], df["io_bytes"])
    df["machine_cpu_s_per_gib"] = cpu_s_per_gib(100 * df["busy_cpus_during"], df["step_s"], df["io_bytes"])
    if "repetition" in df:
        df["repetition"] = df["repetition"].astype(int)
    return df.sort_values(["run_id", "step_index"]).reset_index(drop=True)
