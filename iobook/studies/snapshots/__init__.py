"""Snapshot overhead (seed 003, LuxProvide's MeluXina talk): the talk's mdtest table as published figures (which
definitions reproduce its two summary rows; which way each state moved against "No snapshot", and why the order the
rows ran in confounds that; its own snapshot creation times), and the same method run locally
(scripts/collect_snapshots.py: btrfs snapshots over a loop device, fio's file metadata engines, rounds per stage):
metadata rates on the snapshotted subvolume paired with the never-snapshotted control run beside each stage (the
outcome the chapter leads with), the control's drift, copy-on-write space as an exact check, write latency, and
recovery after deletion. Layers: queries/*.sql, seed, analysis (metadata), writes (copy-on-write, recovery), charts,
findings; `report` wires them and decides every comparison in one call to evidence.decide."""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding, Prose, Report, Table
from ...database import collector_runs
from ...inference import evidence
from ...inference.evidence import Comparison
from . import charts, findings
# the names callers and tests use, importable from iobook.studies.snapshots as before the layers
from .analysis import (OPERATIONS, compare_control_drift, compare_stages, get_control_drift, get_rates, get_run_facts,
                       get_snapshot_steps, get_step_durations, get_time_since_snapshot, rate_quantity, select_runs,
                       shared_filesystem, stage_label, stage_order)
from .findings import cow_space_finding, first_stage_finding
from .seed import (SUMMARY_ROWS, configuration_wide, get_seed_configuration, get_seed_creation, get_seed_ratios,
                   get_seed_signs, get_seed_table, get_summary_checks, seed_clients, seed_printed, seed_source,
                   seed_states, seed_wide, short_column)
from .writes import (COMMIT_INTERVAL, FREED_BY, MIB, SINCE_COMMIT, compare_cow_latency, get_cow_growth,
                     get_cow_space_check, get_cow_writes, get_recovery, get_recovery_summary, get_space, unsized)

__all__ = ["OPERATIONS", "SUMMARY_ROWS", "rate_quantity", "report", "seed_clients", "seed_wide", "stage_label",
           "stage_order"]  # beside what report uses
HOW_TO_ADD = ("Collect a run with `sudo python3 scripts/collect_snapshots.py` (root, fio, btrfs-progs), then "
              "`python -m iobook book --data data/raw` (the run is written under data/raw/snapshots/).")
# The findings' order (at most six: the page check). The outcome leads (issue 36): the metadata comparisons' k of n
# decided; then the method's exact check (copy-on-write space), the control's drift, latency, recovery, and last
# what the talk's table cannot answer.
FINDING_ORDER = ["tab-snapshots-local", "tab-snapshots-cow-space", "fig-snapshots-drift", "fig-snapshots-cow-latency",
                 "fig-snapshots-recovery", "fig-snapshots-seed-ratios"]
RECOVERY_FORMATS = {"snapshots deleted": ".0f", "longest delete (s)": ".3f", "sync waited (s)": ".1f",
                    "used before delete (MiB)": ",.1f", "used at last sample (MiB)": ",.1f", "freed (MiB)": ",.1f",
                    FREED_BY: ".1f", SINCE_COMMIT: ".1f", COMMIT_INTERVAL: "g", "samples while sync waited": ".0f",
                    "samples after": ".0f", "highest p99 while sync waited (ms)": ",.1f",
                    "highest p99 after (ms)": ",.1f"}


def _runs(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """Descriptor columns of a comparison table, the run id shown as `run`."""
    return frame[["run_id", *columns]].rename(columns={"run_id": "run"})


def _seed(out: Report) -> None:
    """The talk's published figures: configuration, creation times, the table, its summary rows, its signs."""
    seed = get_seed_table()
    source = seed_source(seed)
    configuration = get_seed_configuration()
    creation = get_seed_creation()
    per_definition, reproducing = get_summary_checks(seed)
    ratios = get_seed_ratios(seed)
    signs, sign_counts = get_seed_signs(ratios)
    states = seed_states(seed)
    baseline_runs = int((states.index == states.index[0]).sum())
    all_below = int((signs["below 'No snapshot'"] == signs["states"]).sum())
    out.evidence += sign_counts
    out.values |= {
        "configuration_text": Prose(findings.configuration_text(configuration, seed)), "seed_source": source,
        "configuration_source": seed_source(configuration), "state_rows": len(states), "snapshot_rows": len(states) - 1,
        "seed_baseline_runs": baseline_runs, "seed_baseline_first": bool(states.index[0] == "No snapshot"),
        "seed_order_text": Prose(findings.seed_order_text(signs, baseline_runs)),
        "seed_creation_text": Prose(findings.creation_text(creation)),
        "seed_create_s_with": float(creation["with"]["value"]),
        "seed_create_s_without": float(creation["without"]["value"])}
    out.tables |= {
        "tab-snapshots-configuration": Table(frame=configuration_wide(configuration)),
        "tab-snapshots-seed": Table(frame=seed_printed(seed)),
        "tab-snapshots-definitions": Table(frame=per_definition.rename(columns={
            "rounds_to_printed": "rounds to printed", "reached_within_input_rounding": "reached within rounding"})),
        "tab-snapshots-reproducing": Table(
            frame=reproducing[["row", "column", "definition", "printed", "recomputed", "rounds_to_printed"]].assign(
                column=lambda d: d["column"].map(short_column)).rename(columns={"rounds_to_printed": "rounds to printed"}),
            formats={"printed": ".2f", "recomputed": ".4f"}),
        "tab-snapshots-seed-signs": Table(frame=signs, formats={"lowest ratio": ".3f", "highest ratio": ".3f"})}
    out.findings.append(Finding(text=findings.seed_finding(sign_counts), target="fig-snapshots-seed-ratios",
                                evidence=tuple(sign_counts)))
    out.figures["fig-snapshots-seed-ratios"] = charts.chart_seed_ratios(
        ratios, f"{all_below} of {len(signs)} columns: every snapshot state below 'No snapshot'", source)


def _metadata(con, out: Report, run_ids: list[str], rates: pd.DataFrame, stages: pd.DataFrame,
              records: list[Comparison], drift: pd.DataFrame, drift_records: list[Comparison]) -> set[int]:
    """The metadata part into the report (its comparisons decided): rates, each stage against its concurrent
    control, the control's drift, the steps' durations. Returns the source ids of the files it read."""
    if rates.empty:
        return set()
    paired = [(run_id, c) for run_id, c in zip(stages["run_id"], records) if "data with snapshots" in c.family]
    first_stage = [c for c in records if "which ran first" in c.family]
    out.evidence += [*records, *drift_records]
    if paired:
        # what the ratio can hold depends on where the control lives: said only where every paired run shares one
        shared = {run_id for run_id, _ in paired} <= set(shared_filesystem(con, run_ids))
        with_snapshots = [c for _, c in paired]
        out.findings.append(Finding(text=findings.metadata_finding(with_snapshots, shared),
                                    target="tab-snapshots-local", evidence=tuple(with_snapshots)))
    if first_stage:
        out.findings.append(Finding(text=first_stage_finding(first_stage), target="tab-snapshots-local",
                                    evidence=tuple(first_stage)))
    if drift_records:
        out.findings.append(Finding(text=findings.drift_finding(drift, drift_records), target="fig-snapshots-drift",
                                    evidence=tuple(drift_records)))
        out.figures["fig-snapshots-drift"] = charts.chart_drift(
            get_control_drift(rates),
            f"The control at the end over its first stage: {comparison.range_sentence(drift_records, 'drift ratios')}")
        out.tables["tab-snapshots-drift"] = comparison.table(drift_records, _runs(drift))
    durations = get_step_durations(rates)
    out.values |= {
        "has_drift": bool(drift_records),
        "rates": len(rates), "rate_errors": int((rates["error"] != 0).sum()),
        "fio_runtime_ms_low": int(rates["runtime_ms"].min()), "fio_runtime_ms_high": int(rates["runtime_ms"].max()),
        "fio_ms_share_pct": 100 / float(rates["runtime_ms"].min()),
        "step_s_low": float(rates["step_s"].min()), "step_s_high": float(rates["step_s"].max()),
        "others_pct_low": float(rates["others_pct"].min()), "others_pct_high": float(rates["others_pct"].max()),
        "cv_median_pct": float(durations["median CV of rounds (%)"].median())}
    out.figures["fig-snapshots-rates"] = charts.chart_rates(rates)
    out.figures["fig-snapshots-local-ratios"] = charts.chart_stage_ratios(
        records, stages, f"Data over its concurrent control: {comparison.range_sentence(records, 'stage ratios')}")
    out.tables["tab-snapshots-local"] = comparison.table(records, _runs(stages, "stage"))
    out.tables["tab-snapshots-durations"] = Table(frame=pd.DataFrame({
        "run": durations["run_id"], "operation": durations["operation"], "steps": durations["steps"],
        # ranges as the copy-on-write table writes them ('656 to 704'): a narrowed table broke '0.53–' over '1.49'
        "fio runtime (ms)": [f"{a:.0f} to {b:.0f}" for a, b in zip(durations.runtime_low, durations.runtime_high)],
        "step (s)": [f"{a:.2f} to {b:.2f}" for a, b in zip(durations.step_low, durations.step_high)],
        "others' CPU (%)": [f"{a:.0f} to {b:.0f}" for a, b in zip(durations.others_low, durations.others_high)],
        "median CV of rounds (%)": durations["median CV of rounds (%)"]}), formats={"median CV of rounds (%)": ".1f"})
    steps = get_snapshot_steps(con, run_ids)
    longest = {action: 1e3 * float(steps.loc[steps.step.str.startswith(f"{action}-"), "seconds"].max())
               for action in ("create", "delete")}
    out.values |= {"snapshot_create_ms_high": longest["create"], "snapshot_delete_ms_high": longest["delete"]}
    out.tables["tab-snapshots-steps"] = Table(frame=steps.rename(columns={
        "run_id": "run", "step_index": "step number", "seconds": "time to return (s)", "exit_code": "exit code"}),
        formats={"time to return (s)": ".3f"})
    return set(rates["source_id"])


def _cow(con, out: Report, run_ids: list[str], writes: pd.DataFrame, latency: pd.DataFrame,
         records: list[Comparison]) -> set[int]:
    """The copy-on-write part into the report (its comparisons decided): the exact space check and the write
    latency. Returns the source ids of the files it read."""
    if writes.empty:
        return set()
    space = get_space(con, run_ids, "cow")
    growth = get_cow_growth(space, writes)
    check = get_cow_space_check(growth)
    text, counts = cow_space_finding(check)
    out.evidence += [*counts, *records]
    out.findings += [Finding(text=text, target="tab-snapshots-cow-space", evidence=tuple(counts)),
                     Finding(text=findings.cow_latency_finding(records), target="fig-snapshots-cow-latency",
                             evidence=tuple(records))]
    under = counts[0]
    out.values |= {"cow_writes": len(writes), "cow_errors": int((writes["error"] != 0).sum())}
    out.figures["fig-snapshots-cow-space"] = charts.chart_cow_space(
        growth, f"Under a snapshot an overwrite adds exactly its "
                f"{check.loc[check.phase == 'overwrite', 'expected'].max() / MIB:.0f} MiB ({under.k} of {under.n} writes)")
    out.tables["tab-snapshots-cow-space"] = Table(
        frame=pd.DataFrame({
            "run": check.run_id, "phase": check.phase, "snapshots": check.with_snapshots.map({True: "yes", False: "no"}),
            "writes": check.writes, "exact": check.exact, "data expected (MiB)": check.expected / MIB,
            "metadata growth (KiB)": [f"{a / 1024:,.0f} to {b / 1024:,.0f}"
                                      for a, b in zip(check.metadata_low, check.metadata_high)]}),
        formats={"data expected (MiB)": ".0f"})
    out.figures["fig-snapshots-cow-latency"] = charts.chart_cow_latency(
        records, latency, f"Write latency with snapshots over none: "
                          f"{comparison.range_sentence(records, 'latency ratios')}")
    out.tables["tab-snapshots-cow-latency"] = comparison.table(records, _runs(latency, "snapshots"))
    return set(writes["source_id"]) | set(space["usage_source_id"]) | set(space["df_source_id"])


def _recovery(con, out: Report, run_ids: list[str]) -> set[int]:
    """The recovery part into the report: space freed and latency while `btrfs subvolume sync` waited, one deletion
    described (no comparison). Returns the source ids of the files it read."""
    recovery = get_recovery(con, run_ids)
    if recovery.empty:
        return set()
    summary, records = get_recovery_summary(con, recovery)
    text, said = findings.recovery_finding(summary, records[0])
    out.evidence += [*records, *said[1:]]
    out.findings.append(Finding(text=text, target="fig-snapshots-recovery", evidence=tuple(said)))
    first = summary.iloc[0]
    out.figures["fig-snapshots-recovery"] = charts.chart_recovery(
        recovery, summary, f"{first['freed (MiB)']:,.0f} MiB back {first[FREED_BY]:.0f} s after the deletes, at "
                           f"btrfs's commit; sync returned at {first['sync waited (s)']:.0f} s")
    out.tables["tab-snapshots-recovery"] = Table(frame=pd.DataFrame(
        {"measure": [*RECOVERY_FORMATS, "latency while sync waited / after"]} | {
            run: [*(format(row[m], RECOVERY_FORMATS[m]) for m in RECOVERY_FORMATS), evidence.phrase(record)]
            for (run, row), record in zip(summary.set_index("run_id").iterrows(), records)}))
    space = get_space(con, run_ids, "recovery")
    return set(recovery["source_id"]) | set(space["usage_source_id"]) | set(space["df_source_id"])


def report(con, *, run_folders: Iterable[str] = ()) -> Report:
    """The chapter: the talk's table (published figures: the summary rows' definitions, the sign pattern with its
    order, its creation times), then the local runs selected (select_runs: by default the current run of each
    part) part by part, every comparison decided in one call. Findings: the metadata outcome first, then the
    method's exact check, the drift, latency, recovery, and the talk's table."""
    out = Report()
    _seed(out)
    runs, status = select_runs(con, run_folders)
    cow_ids, recovery_ids, metadata_ids = (collector_runs.selected_ids(status, p) for p in ("cow", "recovery", "metadata"))
    rates = get_rates(con, metadata_ids)
    stages, stage_records = compare_stages(rates)
    drift, drift_records = compare_control_drift(rates)
    writes = get_cow_writes(con, cow_ids)
    latency, latency_records = compare_cow_latency(writes)
    stage_records, drift_records, latency_records = evidence.decide_groups(stage_records, drift_records, latency_records)
    latency_records = unsized(latency_records)
    read = {"has_cow": _cow(con, out, cow_ids, writes, latency, latency_records),
            "has_recovery": _recovery(con, out, recovery_ids),
            "has_local": _metadata(con, out, metadata_ids, rates, stages, stage_records, drift, drift_records)}
    since = get_time_since_snapshot(con, [*cow_ids, *metadata_ids])
    has_since = bool(since.seconds_since_snapshot.notna().any())
    if has_since:  # a limit the section and "What this cannot say" state; the findings keep to results
        measured = since.dropna().groupby("run_id").seconds_since_snapshot.agg(["size", "min", "median", "max"])
        out.tables["tab-snapshots-since"] = Table(frame=measured.reset_index().rename(columns={
            "run_id": "run", "size": "fio steps", "min": "from (s)", "median": "median (s)", "max": "to (s)"}),
            formats={"from (s)": ".1f", "median (s)": ".1f", "to (s)": ".1f"})
    out.findings.sort(key=lambda f: FINDING_ORDER.index(f.target))
    has_any = any(read.values())
    out.values |= {key: bool(ids) for key, ids in read.items()} | {
        "has_since": has_since, "has_any": has_any, "no_runs": not has_any}
    if not has_any:
        out.values["no_runs_note"] = present.no_data("snapshot collector runs", HOW_TO_ADD)
        return out
    facts = get_run_facts(con, runs["run_id"])
    facts = facts.assign(tools=facts["fio"] + ", " + facts["btrfs"]).drop(columns=["fio", "btrfs"])
    out.tables["tab-snapshots-runs"] = Table(frame=pd.DataFrame({  # the tools in one column: six wrapped every cell
        "run": runs["run_folder"], "kernel": runs["kernel"],
        "load at start (1 / 5 / 15 min)": [f"{a:.2f} / {b:.2f} / {c:.2f}" for a, b, c in
                                           zip(runs.load_avg_1m, runs.load_avg_5m, runs.load_avg_15m)]}).merge(
        facts.rename(columns={"run_id": "run"}), how="left"))
    # rounds: the metadata part numbers its repetitions across stages, which no reader counts as rounds
    shown = present.run_status_table(status, "part")
    out.tables["tab-snapshots-status"] = Table(frame=shown.frame.drop(columns="rounds"), shared=shown.shared)
    source_ids = set(runs["manifest_source_id"]).union(*read.values())
    out.values["files_link"] = present.files_link(present.sources(con, source_ids).path, "The files of the local runs")
    return out
