"""Every run a centre repeats, one row each (fio job, IOR test's write or read, mdtest phase): its label (a history
never mixes labels: one machine's runs are never another's, source_labels), workload key, start time, what its log and
a setup.yml state of it, and its measures. What the History chapter and `iobook check` search for change points
(inference.change_points)."""
from __future__ import annotations

import json

import pandas as pd

from ..inference import evidence
from ..inference.change_points import MEASURES
from . import source_labels, store

SETUP_YML = "setup.yml"  # how what_changed names a field a setup.yml states (setups.derive_logs)
RUN_COLUMNS = ["tool", "label", "workload", "title", "started", "version", "options", "path", "source_id", "job_id",
               "job_ids", "jobs", *MEASURES, "design"]


def _options(**values) -> str:
    """A run's stated setup as the JSON text `what_changed` compares (None: not stated)."""
    return json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in values.items() if pd.notna(v)},
                      sort_keys=True)


def fio_runs(con) -> pd.DataFrame:
    df = store.frame(con, __package__, "fio_runs")
    return pd.DataFrame({
        "tool": "fio", "workload": df.workload, "title": [f"{j} ({r} {b})" for j, r, b in zip(df.jobname, df.rw, df.bs)],
        "started": df.started, "version": df.version, "options": df.options, "path": df.path,
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
            "tool": "ior", "workload": f"IOR {access}{on}: {first.command}",
            "title": f"IOR {access} ({first.api}, {first.tasks} tasks{on})", "started": pd.to_datetime(
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
        "title": [f"mdtest {o} ({i:,} items, {t} tasks)" if pd.notna(i) else f"mdtest {o}"
                  for o, i, t in zip(df.operation, df["items"], df.tasks)],
        "started": df.started_at, "version": df.version,
        "options": [_options(tasks=t, nodes=n, items=i) for t, n, i in zip(df.tasks, df.nodes, df["items"])],
        "path": df.path, "source_id": df.source_id, "ops_s": df.ops_s})


def get_runs(con) -> pd.DataFrame:
    """Every run with a start time, one row each (fio job, IOR test's write or read, mdtest phase), its label
    (iobook.database.source_labels), workload key and title, and each measure it has (NaN where it has none); numbered
    `run` within its history (label and workload) in the order the runs started."""
    parts = [p for p in (fio_runs(con), ior_runs(con), mdtest_runs(con)) if len(p)]
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
    runs = runs.sort_values(["started", "job_id", "source_id"], kind="stable").reset_index(drop=True)
    runs["history"] = runs.label + " · " + runs.title
    runs["run"] = runs.groupby(["label", "workload"], sort=False).cumcount() + 1
    return runs


def with_stated_setup(con, runs: pd.DataFrame) -> pd.Series:
    """Each run's options with what a setup.yml states of its log ('setup.yml <field>': queries/log_setup.sql), so
    that what_changed names a change the logs cannot state (a new file system, release or link)."""
    stated = store.frame(con, __package__, "log_setup", [sorted({int(i) for i in runs.source_id})])
    by_source = {source_id: {f"{SETUP_YML} {f}": v for f, v in zip(g.field, g.value)}
                 for source_id, g in stated.groupby("source_id")}
    return pd.Series([json.dumps({**json.loads(o or "{}"), **by_source[i]}, sort_keys=True) if i in by_source else o
                      for o, i in zip(runs.options, runs.source_id)], index=runs.index, dtype=object)
