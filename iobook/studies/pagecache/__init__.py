"""Lustre page-cache passthrough (LU-11347, seed 001) and the talk's two other topics, trim recovery (LU-11355)
and the shared-file penalty overstriping addresses (LU-9846): the published profile shares and tested
configuration, beside fio experiments made by scripts/collect_pagecache.py (manifest label `experiment`):
buffered against direct (`modes`: bandwidth over time, its spread, CPU and reclaim per GiB), direct reads
by queue depth and buffered reads by read-ahead (`queue-depth`, `readahead`), write bandwidth over time
after a trim or none (`trim`), and N writers to one file or one file each (`shared-file`). Layers: queries/*.sql,
data (frames), analysis (records), charts, tables, findings; `report` wires them and decides every comparison once."""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ...book import comparison, present
from ...book.report import Report
from ...inference import evidence
from . import analysis, charts, data, findings, tables

SATURATED_IDLE_PCT = 1  # vmstat's idle CPU at or below which the machine had no CPU to spare
READ_BANDWIDTH = analysis.MODE_QUANTITY.format(phase="read", measure="bandwidth")  # each modes run's, side by side
HOW_TO_ADD = ("Make some on a Linux machine with fio where you may create a memory cgroup (root, or systemd): "
              "`python3 scripts/collect_pagecache.py` (from the repository root; `--help` for its options) writes a "
              'run folder under `data/raw/pagecache/`; then `make book DATA="data/raw your/runs"` ingests it and '
              "rebuilds this chapter.")


def _of(results: pd.DataFrame, ids: list[str]) -> pd.DataFrame:
    return results[results.run_id.isin(ids)] if len(results) else results


def _modes(con, rows, runs, status, steps, modes_ids, every_modes, bucket_ms) -> tuple[dict, dict, dict, list]:
    """§ 1: buffered against direct in the modes run(s) read, and every modes run's reads side by side."""
    modes = rows[(rows.kind == "modes") & rows.run_id.isin(modes_ids)]
    lead = max(modes_ids)
    cv, sys_cpu = (analysis.mode_record(modes, lead, "write", m) for m in ("coefficient of variation",
                                                                           "fio system CPU per GiB"))
    buckets = data.get_buckets(con, modes_ids, bucket_ms)
    memory, reclaim = data.get_memory(con, modes_ids), data.get_reclaim(con, modes_ids)
    first = steps[(steps.repetition == 1) & (steps.run_id == lead)][["run_id", "step_index"]]
    first_memory = memory.merge(first, on=["run_id", "step_index"])
    peaks = memory.pivot_table(index=["run_id", "step_index"], columns="metric", values="mib", aggfunc="max")
    counters = reclaim.merge(steps[["run_id", "step_index", "step", "mode", "gib"]], on=["run_id", "step_index"]).merge(
        peaks.add_prefix("peak_").reset_index(), on=["run_id", "step_index"], how="left")
    counters["pgpgout_per_gib"] = counters.cgroup_pgpgout_events / counters.gib
    buffered_pgpgout = counters[counters["mode"] == "buffered"].cgroup_pgpgout_events
    side = rows[(rows.kind == "modes") & rows.record.map(lambda r: r.quantity == READ_BANDWIDTH)].merge(
        status[["run_id", "status"]], on="run_id")
    device = runs.set_index("run_id").target_device[lead]
    values = {"lead_run": lead, "buckets": len(buckets), "log_entries": int(buckets.log_entries.sum()),
              "mode_steps": len(steps), "mode_runs": steps.run_id.nunique(), "cpu_text": evidence.phrase(sys_cpu),
              "ramp_up_s": data.RAMP_UP_S,
              "direct_writes_text": findings.direct_writes_text(steps[steps.run_id == lead], device),
              "global_scan_max": float(counters.global_reclaim_scanned_pages.max()),
              "pgpgout_low": float(buffered_pgpgout.min()), "pgpgout_high": float(buffered_pgpgout.max()),
              "runs_text": findings.runs_text(side), "has_runs_compared": len(side) > 1}
    figures = {
        "fig-pagecache-overtime": charts.chart_bandwidth_over_time(
            buckets, bucket_ms, f"Buffered writes swing {cv.ratio:.2f}× as much as direct ones, second to second"),
        "fig-pagecache-modes": charts.chart_mode_costs(
            analysis.mode_costs(steps, reclaim), f"Through the page cache, writes cost {sys_cpu.ratio:.2f}× the "
            f"system CPU per GiB ({sys_cpu.verdict})"),
        "fig-pagecache-memory": charts.chart_memory(
            first_memory, runs, f"Dirty pages in fio's cgroup peak at "
            f"{first_memory[first_memory.metric == 'dirty'].mib.max():,.0f} MiB ({lead}, first round)")}
    shown = {
        "tab-pagecache-modes": tables.compared(modes, run_id="run"),
        "tab-pagecache-steps": tables.steps(steps),
        "tab-pagecache-reclaim": tables.reclaim(counters),
        "tab-pagecache-reads-by-run": tables.reads_by_run(
            analysis.reads_by_run(data.get_fio_results(con, every_modes))),
        "tab-pagecache-runs-compared": tables.compared(side, run_id="run", status="status")}
    return values, figures, shown, [findings.modes_finding(cv)]


def _fill(fill, fill_steps, fill_rows, bucket_ms) -> tuple[dict, dict, dict, list, list]:
    """§ 1b: the same buffered read with the cgroup's cache filling or full, per run, paired by read."""
    counts = analysis.fill_counts(fill_steps)
    idle_max = float(fill_steps.idle_pct.max())
    said = findings.fill_finding(fill_rows, fill_steps)
    values = {"fill_text": findings.fill_text(fill_rows, counts, fill_steps, idle_max),
              "fill_rule": findings.fill_rule_text(bucket_ms),
              "free_min_gib": float(fill_steps.free_gib.min()), "reads_idle_max_pct": idle_max,
              "reads_saturated": idle_max <= SATURATED_IDLE_PCT}
    figures = {"fig-pagecache-fill": charts.chart_read_fill(
        fill, f"Buffered reads: {fill_steps.filling_mib_s.median():,.0f} MiB/s while the cgroup's cache fills, "
              f"{fill_steps.full_mib_s.median():,.0f} once it is full (medians of the reads)")}
    return values, figures, {"tab-pagecache-fill": tables.fill(fill_steps)}, [said], [
        c for pair in counts.values() for c in pair]


def report(con, *, run_folders: Iterable[str] = (), bucket_ms: int = 1000, first_s: float = 5) -> Report:
    """The chapter: the talk's published profile, then the VM demonstration of the method on the build machine,
    experiment by experiment (the current run of each; the modes runs' reads side by side), every comparison decided
    at once (evidence.decide, each run's families apart)."""
    facts = data.get_published()
    share = facts[facts.unit == "% of profile"].set_index(["row", "column"])["value"]
    published, printed = findings.published_text(share)
    runs, status = data.select_runs(con, run_folders)
    values = {"published_slides": "; ".join(f"'{s}'" for s in sorted({s.split(': ', 1)[1] for s in facts.source})),
              "published_text": published, "min_units": evidence.MIN_UNITS,
              "confidence_pct": 100 * evidence.CONFIDENCE, "bucket_ms": bucket_ms, "full_pct": 100 * data.FULL_SHARE,
              "first_s": first_s}
    shown = {"tab-pagecache-published": tables.published(facts)}
    figures, found, counts = {}, [], []

    modes_ids = data.run_ids(runs, "modes")
    every_modes = status.loc[(status.experiment == "modes") & (status.selected | (not list(run_folders))),
                             "run_id"].tolist()
    all_steps = data.get_steps(con, every_modes, data.get_buckets(con, every_modes, bucket_ms))
    steps = all_steps[all_steps.run_id.isin(modes_ids)] if len(all_steps) else all_steps
    fill = data.get_read_fill(con, runs, bucket_ms)
    fill_steps = data.get_fill_steps(con, fill, runs)
    trim_buckets = data.get_buckets(con, data.run_ids(runs, "trim"), bucket_ms)
    results = data.get_fio_results(con, runs.run_id)
    end = data.get_fio_results(con, runs.run_id, end_baseline=True)
    depth = _of(results, data.run_ids(runs, "queue-depth"))
    shared = _of(results, data.run_ids(runs, "shared-file"))
    shared = shared[shared.phase == "write"].reset_index(drop=True) if len(shared) else shared
    rows = comparison.decide_rows(pd.concat([  # one decision for the whole report: no family decided in parts
        analysis.compare_modes(all_steps).assign(kind="modes"), analysis.compare_fill(fill_steps).assign(kind="fill"),
        analysis.compare_depths(depth).assign(kind="depth"),
        analysis.trim_effect(trim_buckets, first_s).assign(kind="trim"),
        analysis.compare_shared(shared).assign(kind="shared"),
        analysis.compare_end_baseline(results, end).assign(kind="drift")], ignore_index=True))

    values["has_modes"] = has_modes = not steps.empty
    values["has_runs_compared"] = False
    if has_modes:
        more, charted, listed, said = _modes(con, rows, runs, status, steps, modes_ids, every_modes, bucket_ms)
        values |= more
        figures |= charted
        shown |= listed
        found += said

    fill_rows = rows[rows.kind == "fill"]
    values["has_fill"] = has_fill = not fill_rows.empty
    if has_fill:
        more, charted, listed, said, census = _fill(fill, fill_steps, fill_rows, bucket_ms)
        values |= more
        figures |= charted
        shown |= listed
        found += said
        counts += census

    left = data.get_dirty_left(con, runs)
    values["has_dirty"] = has_dirty = not left.empty
    if has_dirty:
        dirty = analysis.dirty_counts(left)
        touched = analysis.touched(left, rows)
        found.append(findings.dirty_finding(dirty, left))
        counts += [*dirty.values(), *(c for side in ("sample", "baseline") for c in touched[side] if c is not None)]
        values["touched_text"] = findings.touched_text(touched)
        shown["tab-pagecache-dirty"] = tables.dirty(left)

    settings = analysis.read_settings(depth, _of(results, data.run_ids(runs, "readahead")))
    values["has_reads"] = has_reads = not settings[settings.measure == tables.BANDWIDTH].empty
    depths = rows[rows.kind == "depth"]
    if has_reads:
        title = (f"Direct reads at deeper queue depths over depth {int(depths.shallowest.min())}: "
                 f"{comparison.range_sentence(depths.record)}" if len(depths) else "Buffered reads by read-ahead")
        figures["fig-pagecache-reads"] = charts.chart_read_settings(settings, title)
        shown["tab-pagecache-reads"] = tables.reads(settings)
    if len(depths):
        found.append(findings.depth_finding(depths))
        shown["tab-pagecache-depth"] = tables.compared(depths, run_id="run")
    values["has_depth"] = len(depths) > 0

    trim = rows[rows.kind == "trim"]
    values["has_trim"] = has_trim = not trim.empty
    if has_trim:
        latest = trim[trim.run_id == trim.run_id.max()].set_index("window")
        t = latest.record[f"first {first_s:g} s"]
        target = data.get_trim_targets(con, [trim.run_id.max()]).iloc[0]
        found.append(findings.trim_finding(latest.record, target))
        values["trim_target"] = findings.trim_target_text(target)
        figures["fig-pagecache-trim"] = charts.chart_trim_recovery(
            analysis.trim_recovery(trim_buckets), f"First {first_s:g} s after a trim: {t.ratio:.2f}× the write "
                                                  f"bandwidth after none, {t.verdict}")
        shown["tab-pagecache-trim"] = tables.compared(trim, run_id="run", window="window")

    shared_rows = rows[rows.kind == "shared"]
    values["has_shared"] = has_shared = not shared_rows.empty
    if has_shared:
        writers = int(shared.writers.astype(int).max())
        latest = shared_rows[shared_rows.run_id == shared_rows.run_id.max()].set_index("mode").record
        by_mode = {m: latest[m] for m in charts.MODES if m in latest.index}
        found.append(findings.shared_finding(by_mode, writers))
        values["writers"] = writers
        figures["fig-pagecache-shared"] = charts.chart_shared_file(
            shared, "One shared file: " + ", ".join(f"{m} {r.ratio:.2f}×" for m, r in by_mode.items())
            + " the bandwidth of one file each")
        shown["tab-pagecache-shared"] = tables.compared(shared_rows, run_id="run", mode="mode")

    drift = rows[rows.kind == "drift"]
    values["has_drift"] = has_drift = not drift.empty
    if has_drift:
        values["drift_text"] = findings.drift_text(drift)
        shown["tab-pagecache-drift"] = tables.compared(drift, **tables.run_named(drift), configuration="configuration")

    values["has_data"] = has_data = bool(has_modes or has_reads or has_trim or has_shared or has_fill)
    values["no_data"] = not has_data
    values["has_findings"] = bool(found)
    if has_data:
        values |= {"runs": len(runs), "experiments": ", ".join(
                       f"{n} {e}" for e, n in runs.experiment.value_counts().sort_index().items()),
                   "scope_text": findings.scope_text(runs),
                   "verdict_legend": tables.legend(rows),
                   "files_link": present.files_link(present.sources(con, data.get_source_ids(con, runs.run_id)).path,
                                                    "The files behind the local figures")}
        shown |= {"tab-pagecache-status": tables.status(status), "tab-pagecache-runs": tables.runs(runs)}
    else:
        values["no_data_note"] = present.no_data("fio page-cache runs (scripts/collect_pagecache.py)", HOW_TO_ADD)
    return Report(values=values, tables=shown, figures=figures, findings=found,
                  evidence=[*rows.record, *counts, *printed])
