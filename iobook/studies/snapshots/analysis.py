"""The local runs' metadata part (scripts/collect_snapshots.py: fio's file create, stat and delete engines on a
snapshotted `data` subvolume and, beside every stage, a never-snapshotted `control` of the same file system): which
runs, their rates, each stage against its concurrent control, the control's drift over the run, what the steps
can show, and the runs' snapshot commands. Comparisons come back undecided: the report decides once."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ...book import comparison
from ...database import collector_runs, store
from ...inference import evidence
from ...inference.evidence import Comparison, Replicate

STUDY = "snapshots"
OPERATIONS = ["create", "stat", "delete"]  # fio engines filecreate, filestat, filedelete, in run order
BASELINE_STAGE = "none"  # the metadata part's stage before its first snapshot (manifest label `step`)
END_STAGE = "end"  # after every snapshot was deleted and the cleaner waited for (label drift_check=end)
DATA, CONTROL = "data", "control"  # the snapshotted subvolume and the never-snapshotted one (label `subvolume`)
RATE_COLUMNS = ["run_id", "step_index", "operation", "stage", "subvolume", "during", "snapshots", "repetition",
                "files", "source_id", "fio_engine", "numjobs", "error", "files_per_s", "runtime_ms", "step_s",
                "others_pct"]


def select_runs(con, run_folders: Iterable[str] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the snapshot collector runs the chapter reads and every run's status per part
    (collector_runs.select_current; a part is an experiment, manifest label `part`, 'metadata' for runs made
    before parts existed): by default the current run of each part, else the runs named by their run folder
    (exact; an unknown name raises selection.UnknownSelection naming the nearest)."""
    return collector_runs.select_current(con, STUDY, run_folders, "part", "metadata")


def get_rates(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """One row per fio create/stat/delete result of the runs' metadata part: run, step_index, operation, stage
    (manifest label `step`: 'none', the snapshots taken, 'rotation-k', and 'end' after every snapshot was
    deleted, label drift_check=end), subvolume ('data', snapshotted; 'control', never snapshotted; runs made
    before the control existed have only data), `during` (the stage the step ran beside: its own on data,
    label `during_step` on the control), snapshots present, repetition, files (files_per_job x jobs),
    source_id, fio's engine, jobs and error, fio's group-reported files per second (all files over the longer
    job's runtime) and runtime (ms), the manifest step's seconds, and the CPU share other work took during
    the step (label busy_others_during_pct; NaN in runs that did not record it)."""
    parts = [collector_runs.get_step_labels(con, run_ids, end_baseline=end) for end in (False, True)]
    steps = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else parts[0]
    if "phase" in steps:  # the copy-on-write and recovery parts' fio outputs have other phases
        steps = steps[steps["phase"].isin(OPERATIONS)]
    if steps.empty:
        return pd.DataFrame(columns=RATE_COLUMNS)
    subvolume = steps["subvolume"].fillna(DATA) if "subvolume" in steps else pd.Series(DATA, index=steps.index)
    during = steps["during_step"].where(subvolume == CONTROL, steps["step_label"]) if "during_step" in steps \
        else steps["step_label"]
    others = steps["busy_others_during_pct"] if "busy_others_during_pct" in steps else np.nan
    labels = pd.DataFrame({
        "run_id": steps["run_id"], "step_index": steps["step_index"], "operation": steps["phase"],
        "stage": steps["step_label"], "subvolume": subvolume, "during": during,
        "snapshots": steps["snapshots"].astype("int32"), "repetition": steps["repetition"].astype("int32"),
        "files": steps["files_per_job"].astype("int32") * steps["jobs"].astype("int32"),
        "source_id": steps["source_id"], "step_s": steps["step_s"], "others_pct": pd.to_numeric(others)})
    fio = store.frame(con, __package__, "metadata_fio", [[int(i) for i in labels["source_id"]]])
    return labels.merge(fio, on="source_id").sort_values(["run_id", "step_index"], kind="stable")[RATE_COLUMNS] \
        .reset_index(drop=True)


def stage_order(rates: pd.DataFrame) -> list[str]:
    """Stages in the order the collector ran them."""
    return rates.groupby("stage")["step_index"].min().sort_values().index.tolist()


def rate_quantity(operation: str) -> str:
    """The quantity a metadata comparison is of: 'file create rate'."""
    return f"file {operation} rate"


def stage_label(stage: str) -> str:
    """A metadata stage as a comparison's label: 'stage 1', 'stage rotation-2'."""
    return f"stage {stage}"


def keyed(keys: list[dict], records: list) -> pd.DataFrame:
    """Records beside the keys that name them (run, operation, stage...), one row each (evidence.frame)."""
    return pd.concat([pd.DataFrame(keys), evidence.frame(records)], axis=1) if records else pd.DataFrame(keys)


def _by_run_and_operation(rates: pd.DataFrame) -> list[tuple[tuple[str, str], pd.DataFrame]]:
    """The rates grouped by run and operation, operations in the order fio ran them (OPERATIONS)."""
    return sorted(rates.groupby(["run_id", "operation"]), key=lambda g: (g[0][0], OPERATIONS.index(g[0][1])))


def compare_stages(rates: pd.DataFrame) -> tuple[pd.DataFrame, list[Comparison]]:
    """Per run, operation and stage, the data subvolume's files per second over the control runs made beside
    that stage (label during_step): the concurrent control, rounds of the collector run as the units. The
    stages with snapshots present are one family per run; the two without (before the first snapshot, after
    every one was deleted) another, a check that the two subvolumes run alike. A run made without a control
    (the first design) can only compare each stage with the stage before its first snapshot, which ran first:
    its family says so. Stages are never pooled: they ran one after the other. Undecided (evidence.decide)."""
    keys, records = [], []
    for (run_id, operation), group in _by_run_and_operation(rates):
        data, control = group[group["subvolume"] == DATA], group[group["subvolume"] == CONTROL]
        for stage in stage_order(data):
            sample = data.loc[data["stage"] == stage, "files_per_s"]
            if len(control):
                baseline = control.loc[control["during"] == stage, "files_per_s"]
                snapshotted = stage not in (BASELINE_STAGE, END_STAGE)
                family = (f"{run_id}: data with snapshots / concurrent control" if snapshotted
                          else f"{run_id}: data / control, no snapshot present")
                baseline_label = f"control beside stage {stage}"
            elif stage != BASELINE_STAGE:
                baseline = data.loc[data["stage"] == BASELINE_STAGE, "files_per_s"]
                family = f"{run_id}: stage / stage {BASELINE_STAGE}, which ran first"
                baseline_label = stage_label(BASELINE_STAGE)
            else:
                continue
            if baseline.empty:
                continue
            keys.append({"run_id": run_id, "operation": operation, "stage": stage})
            records.append(evidence.compare(sample, baseline, quantity=rate_quantity(operation), unit="files/s",
                                            replicate=Replicate.ROUND, family=family, label=stage_label(stage),
                                            baseline_label=baseline_label))
    return keyed(keys, records), records


def compare_control_drift(rates: pd.DataFrame) -> tuple[pd.DataFrame, list[Comparison]]:
    """Per run and operation, the kit's drift check (comparison.drift) of the never-snapshotted control: its files
    per second at the end of the run over its rounds beside the first stage, how far the machine and the file
    system drifted with no snapshot involved. Undecided (evidence.decide)."""
    keys, records = [], []
    control = rates[rates["subvolume"] == CONTROL]
    for (run_id, operation), group in _by_run_and_operation(control):
        start = group.loc[group["during"] == BASELINE_STAGE, "files_per_s"]
        end = group.loc[group["during"] == END_STAGE, "files_per_s"]
        if start.empty or end.empty:
            continue
        keys.append({"run_id": run_id, "operation": operation})
        records.append(comparison.drift(end, start, what=rate_quantity(operation), unit="files/s",
                                        configuration=CONTROL, run_id=run_id,
                                        baseline=f"beside stage {BASELINE_STAGE}"))
    return keyed(keys, records), records


def get_control_drift(rates: pd.DataFrame) -> pd.DataFrame:
    """Every control round's files per second over the geometric mean of its operation's control rounds beside
    the first stage, with the stage it ran beside, in run order: the drift a pooled baseline would hide."""
    control = rates[rates["subvolume"] == CONTROL]
    if control.empty:
        return control.assign(ratio=pd.Series(dtype=float))
    start = control[control["during"] == BASELINE_STAGE].groupby(["run_id", "operation"])["files_per_s"].agg(
        evidence.geometric_mean).rename("start")
    out = control.join(start, on=["run_id", "operation"])
    return out.assign(ratio=out["files_per_s"] / out["start"]).drop(columns="start")


def get_step_durations(rates: pd.DataFrame) -> pd.DataFrame:
    """Per run and operation, how long the timed metadata steps were and what ran beside them: fio's runtime
    (ms; files/s is files over it), the manifest step's seconds (fio's start-up included), the CPU share
    other work took, and the median coefficient of variation of the rounds of one stage on one subvolume."""
    per_stage = rates.groupby(["run_id", "operation", "during", "subvolume"])["files_per_s"].agg(
        lambda v: 100 * v.std() / v.mean()).rename("cv").reset_index()
    cv = per_stage.groupby(["run_id", "operation"])["cv"].median().rename("median CV of rounds (%)")
    out = rates.groupby(["run_id", "operation"]).agg(
        steps=("files_per_s", "size"), runtime_low=("runtime_ms", "min"), runtime_high=("runtime_ms", "max"),
        step_low=("step_s", "min"), step_high=("step_s", "max"), others_low=("others_pct", "min"),
        others_high=("others_pct", "max")).join(cv).reset_index()
    out["operation"] = pd.Categorical(out["operation"], OPERATIONS, ordered=True)
    return out.sort_values(["run_id", "operation"]).reset_index(drop=True).astype({"operation": str})


def shared_filesystem(con, run_ids: Iterable[str]) -> list[str]:
    """The runs whose `data` and `control` subvolumes were both created in the btrfs the run mounted (its target
    folder): one extent tree, one transaction commit and one cleaner for both, so the ratio of the two keeps only
    the cost local to the snapshotted subvolume."""
    made = store.frame(con, __package__, "subvolumes", [list(run_ids)])
    made = made[made["subvolume"].isin([DATA, CONTROL]) & (made["parent"] == made["target_dir"])]
    both = made.groupby("run_id")["subvolume"].nunique()
    return both.index[both == 2].tolist()


def get_time_since_snapshot(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """For every labelled fio step of the runs' metadata and copy-on-write parts (not the recovery part,
    which runs after the deletes): the seconds from the moment the newest snapshot's `btrfs subvolume
    snapshot` returned to the step's start (NaN before the first snapshot). The talk asks about performance
    0 to 120 minutes after a snapshot is created; this is how long after one these runs measured."""
    return store.frame(con, __package__, "time_since_snapshot", [list(run_ids), list(run_ids)])


def get_snapshot_steps(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """The snapshot create and delete commands of the runs (run_steps), with how long each took to return."""
    return store.frame(con, __package__, "snapshot_steps", [list(run_ids)])


def get_run_facts(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """fio and btrfs versions and the prefill file count of each run (run_facts)."""
    return store.frame(con, __package__, "run_facts", [list(run_ids)])
