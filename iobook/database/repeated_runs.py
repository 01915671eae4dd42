"""Every run a centre repeats, one row each (fio job, IOR test's write or read, mdtest phase, DLIO run): its label (a history
never mixes labels: one machine's runs are never another's, source_labels), workload key, start time, what its log and
a setup.yml state of it, and its measures. What the History chapter and `iobook check` search for change points
(inference.change_points)."""
from __future__ import annotations

import json
import re

import pandas as pd

from ..inference import evidence
from ..inference.change_points import MEASURES
from ..inference.units import MIB
from . import source_labels, store

SETUP_YML = "setup.yml"  # how what_changed names a field a setup.yml states (setups.derive_logs)
# A DLIO run's samples/s and AU (%), DLIO's means over the epochs: shown beside its bandwidth, not searched (its
# samples/s is its bandwidth over the record length, one number for one workload)
DLIO_SHOWN = ["samples_s", "au_pct"]
RUN_COLUMNS = ["tool", "label", "workload", "job", "settings", "started", "version", "options", "path", "source_id",
               "job_id", "job_ids", "jobs", *MEASURES, *DLIO_SHOWN, "design"]
# A run number at the end of a fio job's name, as collectors and users number repetitions (`read-buffered-r6`,
# `seqread_run3`, `job.2`): no part of what was run, so it is no part of the workload key (issue 46: the page-cache
# collector's r1-r6 made every run a history of one). Digits joined to a word (`qd16`, `ra128`) are kept.
RUN_NUMBER = re.compile(r"[-_. ](?:r|run|rep|repeat|repetition|iter|iteration|round|try|attempt)?\d+$", re.IGNORECASE)
# fio options that name the job, its output or its logs: they differ from run to run (a run number, the run's own
# folder) and change nothing that was measured, so no change point names them among what else changed
NAMING_OPTIONS = {"name", "description", "output", "write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log"}


def job_name(name: str) -> str:
    """A fio job's name without the run number at its end (RUN_NUMBER): 'read-buffered-r6' -> 'read-buffered'."""
    return RUN_NUMBER.sub("", name) or name


def _options(**values) -> str:
    """A run's stated setup as the JSON text `what_changed` compares (None: not stated)."""
    return json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in values.items() if pd.notna(v)},
                      sort_keys=True)


def fio_runs(con) -> pd.DataFrame:
    """One row per fio run (queries/fio_runs.sql): its workload key the job's name without a run number (job_name)
    and the settings that make two runs one workload."""
    df = store.frame(con, __package__, "fio_runs")
    job = df.jobname.map(job_name)
    return pd.DataFrame({
        "tool": "fio", "workload": job + ": " + df.settings, "job": job, "settings": df.settings.str.split(),
        "started": df.started, "version": df.version, "path": df.path,
        "options": [json.dumps({k: v for k, v in json.loads(o).items() if k not in NAMING_OPTIONS}, sort_keys=True)
                    if o else o for o in df.options],
        "source_id": df.source_id, "job_id": df.job_id, "job_ids": df.job_ids, "jobs": df.jobs,
        "bw_bytes_s": df.bw_bytes_s, "p99_ns": df.p99_ns, "slowest_job": df.slowest_job})


def ior_runs(con) -> pd.DataFrame:
    """One row per IOR test's write or read: the geometric mean of its iterations (they share one invocation's
    placement and caches: one run), started when IOR says it began."""
    df = store.frame(con, __package__, "ior_runs")
    if df.empty:
        return pd.DataFrame(columns=RUN_COLUMNS)
    rows = []
    for (test_id, access), t in df.groupby(["test_id", "access"], sort=False):
        first = t.iloc[0]
        on = f" on {first.host}" if pd.notna(first.host) else ""  # rank 0's node: one machine's history
        rows.append({
            "tool": "ior", "workload": f"IOR {access}{on}: {first.command}", "job": f"IOR {access}",
            "settings": [first.api, f"{first.tasks} tasks", *([f"on {first.host}"] if on else []),
                         *str(first.command).split()], "started": pd.to_datetime(
                first.began, format="%a %b %d %H:%M:%S %Y", errors="coerce"),
            "version": first.version, "options": _options(api=first.api, tasks=first.tasks, nodes=first.nodes,
                                                          transfer=first.transfer_bytes, block=first.block_bytes,
                                                          segments=first.segments, file_per_proc=first.file_per_proc),
            "path": first.path, "source_id": first.source_id,
            "bw_bytes_s": evidence.geometric_mean(t.bw_mib_s) * 2**20})
    return pd.DataFrame(rows)


def mdtest_runs(con) -> pd.DataFrame:
    df = store.frame(con, __package__, "mdtest_runs")
    return pd.DataFrame({
        "tool": "mdtest", "workload": "mdtest " + df.operation + ": " + df.command.fillna(""),
        "job": "mdtest " + df.operation,
        "settings": [[*([f"{i:,} items"] if pd.notna(i) else []), *([f"{t} tasks"] if pd.notna(t) else []),
                      *str(c or "").split()] for i, t, c in zip(df["items"], df.tasks, df.command)],
        "started": df.started_at, "version": df.version,
        "options": [_options(tasks=t, nodes=n, items=i) for t, n, i in zip(df.tasks, df.nodes, df["items"])],
        "path": df.path, "source_id": df.source_id, "ops_s": df.ops_s})


def dlio_settings(df: pd.DataFrame) -> list[list[str]]:
    """Each DLIO run's settings as words (what its summary.json and config state): simulated accelerators and hosts, the
    data set, the reader, the computation time per step and the epochs."""
    def words(r) -> list[str]:
        stated = [(r.accelerators, "{:,} accelerators"), (r.hosts, "{:,} hosts"), (r.files, "{:,} files"),
                  (r.samples_per_file, "{:,} samples/file"), (r.record_length_bytes, "record {:,.0f} B"),
                  (r.batch_size, "batch {:,}"), (r.read_threads, "{:,} read threads"),
                  (r.computation_time_s, "computation {:g} s"), (r.epochs, "{:,} epochs")]
        return [form.format(v) for v, form in stated if pd.notna(v)]
    return [words(r) for r in df.itertuples()]


def dlio_runs(con) -> pd.DataFrame:
    """One row per DLIO run outside MLPerf Storage submissions (queries/dlio_runs.sql): its workload key the workload
    and every setting that makes two runs one (mlperf_runs.settings), its bandwidth DLIO's mean MB/s over the epochs
    (MB = 2^20 bytes)."""
    df = store.frame(con, __package__, "dlio_runs")
    if df.empty:
        return pd.DataFrame(columns=RUN_COLUMNS)
    job = "DLIO " + df.workload.fillna("workload not stated")
    return pd.DataFrame({
        "tool": "dlio", "workload": job + ": " + df.settings, "job": job, "settings": dlio_settings(df),
        "started": df.started, "version": None, "path": df.path,
        "options": [_options(workload=w, accelerator=a, accelerators=n, hosts=h, files=f, record_length=rl,
                             batch_size=b, read_threads=t, computation_time=c, epochs=e)
                    for w, a, n, h, f, rl, b, t, c, e in zip(
                        df.workload, df.accelerator, df.accelerators, df.hosts, df.files, df.record_length_bytes,
                        df.batch_size, df.read_threads, df.computation_time_s, df.epochs)],
        "source_id": df.source_id, "bw_bytes_s": df.mb_per_s * MIB,  # DLIO's MB: bytes / 1024 / 1024
        "samples_s": df.samples_per_s, "au_pct": df.au_mean_pct})


def get_runs(con) -> pd.DataFrame:
    """Every run with a start time, one row each (fio job, IOR test's write or read, mdtest phase, DLIO run), its label
    (iobook.database.source_labels), workload key and title, and each measure it has (NaN where it has none); numbered
    `run` within its history (label and workload) in the order the runs started."""
    parts = [p for p in (fio_runs(con), ior_runs(con), mdtest_runs(con), dlio_runs(con)) if len(p)]
    runs = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=RUN_COLUMNS)
    runs = runs.reindex(columns=RUN_COLUMNS)
    runs = runs[runs.started.notna()]
    if runs.empty:
        return runs.assign(run=pd.Series(dtype="int64"), history=pd.Series(dtype=str))
    labelled = source_labels.label_sources(con, runs.source_id)[0].set_index("source_id")
    runs = runs.assign(label=runs.source_id.map(labelled.label), by_folder=runs.source_id.map(labelled.labelled_by) == "folder",
                       started=pd.to_datetime(runs.started))
    # one folder a run (run01/, run02/, ...): a folder that holds one run of a workload names the run, not a machine,
    # so a workload whose folder labels each hold one of its runs is one history, named after the data's folder
    per_folder = runs[runs.by_folder].groupby(["workload", "label"]).size().groupby("workload").max()
    run_folders = runs.by_folder & runs.workload.map(per_folder).eq(1) & runs.workload.map(runs.workload.value_counts()).gt(1)
    root = source_labels.data_root(con)
    runs.loc[run_folders, "label"] = root.name if root is not None else "runs"
    runs = runs.drop(columns="by_folder")
    runs["design"] = runs.source_id.map(source_labels.designs(con, runs.source_id))
    runs["collector_step"] = runs.design.str.startswith(source_labels.COLLECTOR_RUN)  # change_points.histories_of
    runs["options"] = with_stated_setup(con, runs)
    # a collector run's steps say which run they are, so that a change point names a new one among what changed
    collector = runs.design.where(runs.collector_step).str.removeprefix(source_labels.COLLECTOR_RUN)
    runs["options"] = [json.dumps({**json.loads(o or "{}"), "collector run": c}, sort_keys=True) if isinstance(c, str)
                       else o for o, c in zip(runs.options, collector)]
    runs = runs.sort_values(["started", "job_id", "source_id"], kind="stable").reset_index(drop=True)
    runs["history"] = history_names(runs)
    runs["run"] = runs.groupby(["label", "workload"], sort=False).cumcount() + 1
    return runs


def history_names(runs: pd.DataFrame) -> pd.Series:
    """Each run's history as readers see it: 'label · job' ('pagecache · read-direct', 'node-a · IOR write'), and where
    histories of one label share the job's name, the settings that tell them apart ('checksum · write-none, direct=1'),
    never a setting every history of the job shares (the page said '(write 1M)' after every checksum job)."""
    names = pd.Series(runs.label + " · " + runs.job, index=runs.index)
    for _, g in runs.groupby(["label", "job"], sort=False):
        workloads = g.drop_duplicates("workload")
        if len(workloads) < 2:
            continue
        settings = dict(zip(workloads.workload, workloads.settings))
        shared = set.intersection(*(set(s) for s in settings.values()))
        told = {w: [x for x in s if x not in shared] for w, s in settings.items()}
        short = _short_paths({x for s in told.values() for x in s})
        names[g.index] = names[g.index] + ", " + g.workload.map({w: " ".join(short[x] for x in s) for w, s in told.items()})
    return names


def _short_paths(settings: set[str]) -> dict[str, str]:
    """Each 'key=value' setting as a name shows it: a path value by its last parts, as few as tell the values of
    that key apart ('filename=/var/tmp/iobook-pagecache/pagecache.dat' -> 'filename=pagecache.dat'); a scratch
    folder's whole path says nothing a reader needs."""
    values: dict[str, list[str]] = {}
    for setting in settings:
        key, _, value = setting.partition("=")
        values.setdefault(key, []).append(value)
    shown = {setting: setting for setting in settings}  # a command line's words as they are
    for key, vs in values.items():
        paths = [v for v in vs if v.startswith("/")]
        if not paths:
            continue
        parts = 1
        while parts < max((len(v.split("/")) for v in paths), default=1) and len(
                {"/".join(v.split("/")[-parts:]) for v in paths}) < len(paths):
            parts += 1
        shown |= {f"{key}={v}": f"{key}=" + "/".join(v.split("/")[-parts:]) for v in paths}
    return shown


def with_stated_setup(con, runs: pd.DataFrame) -> pd.Series:
    """Each run's options with what a setup.yml states of its log ('setup.yml <field>': queries/log_setup.sql), so
    that what_changed names a change the logs cannot state (a new file system, release or link)."""
    stated = store.frame(con, __package__, "log_setup", [sorted({int(i) for i in runs.source_id})])
    by_source = {source_id: {f"{SETUP_YML} {f}": v for f, v in zip(g.field, g.value)}
                 for source_id, g in stated.groupby("source_id")}
    return pd.Series([json.dumps({**json.loads(o or "{}"), **by_source[i]}, sort_keys=True) if i in by_source else o
                      for o, i in zip(runs.options, runs.source_id)], index=runs.index, dtype=object)
