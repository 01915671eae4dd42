"""The local half of the Checksum study: the fio checksum runs of scripts/collect_checksum.py (collector_runs reads their
steps), each checksum against none per run, phase and mode, direct writes against buffered ones, the baseline
measured again at the end (the kit's drift check), and the CPU other work took. Comparisons come out undecided:
the report decides them all in one call."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ...book import comparison
from ...database import collector_runs, store
from ...inference import evidence

PHASES = ["write", "read"]
# Compared with no checksum: measure -> (column of get_steps, unit).
MEASURES = {"bandwidth": ("bw_mib_s", "MiB/s"), "fio CPU per GiB": ("fio_cpu_s_per_gib", "CPU-s/GiB")}
BUFFERED_QUANTITY = "write bandwidth without a checksum, direct ÷ buffered"
# The keys of a comparison row (compare_checksums, compare_buffered_direct, compare_end_baseline) beside `record`.
ROW_COLUMNS = ["run_id", "phase", "mode", "verify", "measure", "step_index", "record"]


def select_runs(con, run_folders: Iterable[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the checksum runs the chapter reads, by default the current one (collector_runs.select_current:
    the newest made with the newest collector design), else those named by run folder; every run's status."""
    return collector_runs.select_current(con, "checksum", run_folders)


def get_runs(con, run_folders: Iterable[str] | None = None) -> pd.DataFrame:
    """The runs of select_runs."""
    return select_runs(con, run_folders)[0]


def get_steps(con, run_ids: Iterable[str], labels: Mapping[str, Iterable[str]] | None = None,
              end_baseline: bool = False) -> pd.DataFrame:
    """One row per fio step of the checksum runs (collector_runs.get_fio_steps), `labels` keeping some; the
    baseline measured again at the end of a run (drift_check=end) only with `end_baseline`, else never."""
    return collector_runs.get_fio_steps(con, run_ids, labels, end_baseline)


def verify_order(frame: pd.DataFrame) -> list[str]:
    """The checksums in the order the collector ran them (first step of each), none first."""
    return frame.groupby("verify").step_index.min().sort_values().index.tolist()


def get_costs(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, phase, mode and checksum, over its repetitions: the geometric mean bandwidth with the
    lowest and highest, and the means of fio's, perf's and the machine's CPU-seconds per GiB."""
    rows = []
    for (run_id, phase, mode), part in steps.groupby(["run_id", "phase", "mode"], sort=True):
        for verify in verify_order(part):
            group = part[part.verify == verify]
            rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": verify,
                         "repetitions": len(group), "bw_mib_s": evidence.geometric_mean(group.bw_mib_s),
                         "min_mib_s": group.bw_mib_s.min(), "max_mib_s": group.bw_mib_s.max(),
                         "fio_cpu_s_per_gib": group.fio_cpu_s_per_gib.mean(),
                         "perf_cpu_s_per_gib": group.perf_cpu_s_per_gib.mean(),
                         "machine_cpu_s_per_gib": group.machine_cpu_s_per_gib.mean()})
    return pd.DataFrame(rows)


def compare_checksums(steps: pd.DataFrame) -> pd.DataFrame:
    """Each checksum against no checksum (same run, phase and mode) for each of MEASURES, undecided until
    evidence.decide: the rounds of one collector run are its units (Replicate.ROUND), and a run's comparisons
    of one measure are one family, so runs of different designs are never pooled. One row per comparison:
    ROW_COLUMNS, `record` an evidence.Comparison, step_index that of its first step."""
    rows = []
    for (run_id, phase, mode), part in steps.groupby(["run_id", "phase", "mode"], sort=True):
        base = part[part.verify == "none"]
        for verify in verify_order(part) if len(base) else []:
            if verify == "none":
                continue
            group = part[part.verify == verify]
            for measure, (column, unit) in MEASURES.items():
                rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": verify, "measure": measure,
                             "step_index": group.step_index.min(), "record": evidence.compare(
                                 group[column].to_numpy(), base[column].to_numpy(), quantity=measure, unit=unit,
                                 replicate=evidence.Replicate.ROUND, family=f"{run_id}: {measure}",
                                 label=f"{phase} {mode} {verify}", baseline_label=f"{phase} {mode} none")})
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def compare_buffered_direct(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, writes without a checksum: direct over buffered bandwidth (BUFFERED_QUANTITY), rounds as units,
    a family of its own per run; ROW_COLUMNS."""
    rows = []
    for run_id, part in steps[(steps.phase == "write") & (steps.verify == "none")].groupby("run_id", sort=True):
        direct, buffered = (part.loc[part["mode"] == m, "bw_mib_s"].to_numpy() for m in ("direct", "buffered"))
        if len(direct) and len(buffered):
            rows.append({"run_id": run_id, "phase": "write", "mode": "direct ÷ buffered", "verify": "none",
                         "measure": "bandwidth", "step_index": part.step_index.min(), "record": evidence.compare(
                             direct, buffered, quantity=BUFFERED_QUANTITY, unit="MiB/s",
                             replicate=evidence.Replicate.ROUND, family=f"{run_id}: I/O mode",
                             label="direct writes", baseline_label="buffered writes")})
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def compare_end_baseline(steps: pd.DataFrame, end: pd.DataFrame) -> pd.DataFrame:
    """Drift: per run, phase and mode, the bandwidth without a checksum measured again at the end of the run
    (`end`: get_steps with end_baseline) over its rounds during it, the kit's drift check (one family per run);
    ROW_COLUMNS. The end step is no round: it is never among the rounds compared."""
    rows = []
    for (run_id, phase, mode), last in end.groupby(["run_id", "phase", "mode"], sort=True) if len(end) else []:
        during = steps[(steps.run_id == run_id) & (steps.phase == phase) & (steps["mode"] == mode)
                       & (steps.verify == "none")]
        if len(during):
            rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": "none", "measure": "bandwidth",
                         "step_index": last.step_index.min(), "record": comparison.drift(
                             last.bw_mib_s, during.bw_mib_s, what="bandwidth", unit="MiB/s",
                             configuration=f"{phase} {mode} none", run_id=run_id)})
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def main_comparison(checksums: pd.DataFrame) -> pd.Series:
    """The costliest checksum's bandwidth with direct I/O (lowest ratio to no checksum over both phases; any
    mode when no direct steps ran). `checksums`: compare_checksums' rows with their records' fields
    (comparison.record_frame)."""
    bw = checksums[checksums.measure == "bandwidth"]
    direct = bw[bw["mode"] == "direct"]
    pick = direct if len(direct) else bw
    return pick.loc[pick["ratio"].idxmin()]


def get_others_cpu(steps: pd.DataFrame, runs: pd.DataFrame) -> pd.Series:
    """Per step, the share of all CPUs other work took while it ran (%): the machine's busy CPUs during the
    step (mpstat, get_fio_steps) less fio's own CPU (usr + sys, fio's JSON), over the host's cores."""
    cores = steps.run_id.map(runs.set_index("run_id").cores)
    return (100 * steps.busy_cpus_during - (steps.usr_cpu_pct + steps.sys_cpu_pct)) / cores


def get_perf_facts(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """What the collector found perf could count, per run (manifest facts.perf.*)."""
    return store.frame(con, __package__, "perf_facts", [list(run_ids)])


def get_quiet_threshold(con, run_ids: Iterable[str]) -> float | None:
    """The collector's quiet check's threshold (busy % of all CPUs, facts.load_policy.quiet_below_busy_pct), the
    lowest over the runs; None for runs made before the check existed."""
    return con.execute(store.query(__package__, "quiet_threshold"), [list(run_ids)]).fetchone()[0]


def load_table(steps: pd.DataFrame, others: pd.Series, vmstat: pd.DataFrame) -> pd.DataFrame:
    """Per step: the machine's busy CPUs, fio's own user and system CPU, other work's share (get_others_cpu) and
    vmstat's run queue (collector_runs.get_step_vmstat)."""
    queue = vmstat[["run_id", "step_index", "run_queue"]].merge(steps[["run_id", "step_index", "step"]],
                                                                 on=["run_id", "step_index"])
    return (steps.assign(others_pct=others)[["run_id", "step", "busy_cpus_during", "usr_cpu_pct", "sys_cpu_pct",
                                             "others_pct"]]
            .merge(queue.drop(columns="step_index"), on=["run_id", "step"], how="left")
            .rename(columns={"run_id": "run", "busy_cpus_during": "busy CPUs", "usr_cpu_pct": "fio usr %",
                             "sys_cpu_pct": "fio sys %", "others_pct": "others' share %", "run_queue": "run queue"}))
