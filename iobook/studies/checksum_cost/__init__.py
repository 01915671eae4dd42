"""Checksum CPU and memory effects: IBM's published trailer-checksum table (seed 000) with what its "memory factor"
means and the footnote that says what work its builds came from, the checksum setting in IBM's IO500 listings, and
fio runs with verify= checksums made by scripts/collect_checksum.py (the method, on the build machine). Layers:
queries/*.sql, seed (IBM's half), analysis (the local runs), charts, findings; `report` wires them and decides
every comparison in one call to evidence.decide."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding, Prose, Report, Table
from ...database import collector_runs, io500_runs
from ...inference import evidence
from . import analysis, charts, findings, seed
# the names callers and tests use, importable from iobook.studies.checksum_cost as before the layers
from .analysis import (BUFFERED_QUANTITY, MEASURES, compare_buffered_direct, compare_checksums, compare_end_baseline,
                       get_costs, get_others_cpu, get_perf_facts, get_runs, get_steps, main_comparison, select_runs,
                       verify_order)
from .findings import settings_finding
from .seed import (BUILDS, NODES, ROUNDING_QUANTITY, SETTING_QUANTITY, get_checksum_settings, get_footnote,
                   get_memory_factor, get_published, raid_listings, rounding_count, settings_count)

HOW_TO_ADD = ("Make some on any Linux machine with fio: `python3 scripts/collect_checksum.py` (from the repository "
              "root; `--help` for its options) writes a run folder under `data/raw/checksum/`; then "
              '`make book DATA="data/raw your/runs"` ingests it and rebuilds this chapter.')
MAX_FINDINGS = 6  # the page check's most
__all__ = ["ROUNDING_QUANTITY", "SETTING_QUANTITY", "get_runs", "report", "verify_order"]  # beside what report uses
RUNS_COLUMNS = {"run_folder": "run", "cpu_model": "CPU", "cores": "cores", "memory_gib": "memory (GiB)",
                "kernel": "kernel", "target_filesystem": "file system", "load_avg_1m": "load (1 min)"}
COSTS_COLUMNS = {"run_id": "run", "phase": "phase", "mode": "mode", "verify": "checksum", "repetitions": "rounds",
                 "bw_mib_s": "MiB/s", "min_mib_s": "lowest", "max_mib_s": "highest",
                 "fio_cpu_s_per_gib": "fio CPU s/GiB", "perf_cpu_s_per_gib": "perf s/GiB",
                 "machine_cpu_s_per_gib": "machine s/GiB"}
COSTS_FORMATS = {"MiB/s": ",.0f", "lowest": ",.0f", "highest": ",.0f", "fio CPU s/GiB": ".3f", "perf s/GiB": ".3f",
                 "machine s/GiB": ".2f"}
LOAD_FORMATS = {"busy CPUs": ".2f", "fio usr %": ".1f", "fio sys %": ".1f", "others' share %": ".1f",
                "run queue": ".1f"}
DESCRIPTORS = {"run_id": "run", "phase": "phase", "mode": "mode", "verify": "checksum"}


def _said_once(frame: pd.DataFrame, formats: dict[str, str]) -> Table:
    """A table whose columns with one value in every row (the one run read by default) are said above it."""
    shown, shared = present.constant_columns(frame)
    return Table(frame=shown, formats=formats, shared=shared)


def _descriptors(rows: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """What tells a comparison table's rows apart (the kit's descriptor columns), under the names the page shows."""
    return rows[list(columns)].rename(columns=DESCRIPTORS)


def _published(out: Report) -> None:
    """IBM's half from the published table: the slide's figures, the memory factor's readings, the footnote."""
    pub = get_published()
    footnote = get_footnote()
    factors = get_memory_factor(pub)
    value = pub.set_index(["row", "column"])["value"]
    rounding = rounding_count(factors)
    out.evidence.append(rounding)
    out.values |= {"slide": seed.slide(pub), "confidence_pct": 100 * evidence.CONFIDENCE,
                   "min_units": evidence.MIN_UNITS, "clients": NODES["Client"], "servers": NODES["Server"],
                   "memory_factor_text": Prose(findings.memory_factor_text(factors, pub, rounding, footnote)),
                   "factor_matches": rounding.k, "factors_n": rounding.n,
                   "footnote": seed.footnote_quote(footnote), "footnote_line": int(footnote.line)}
    for side in ("Server", "Client"):
        for key, row in (("idle", "CPU Idle"), ("mem", "Mem BW"), ("factor", "Mem Fact")):
            for build, name in zip(BUILDS, ("ga", "tc")):
                out.values[f"{side.lower()}_{key}_{name}"] = float(value[f"{side} / {row}", build])
    out.tables |= {"tab-checksum-published": Table(frame=seed.published_wide(pub)),
                   "tab-checksum-factors": Table(frame=seed.factors_table(factors), formats=seed.FACTORS_FORMATS)}
    out.findings.append(findings.published_finding(pub, footnote))
    # the settings' finding sits between the published figures and the memory factor (_settings)
    out.findings.append(Finding(text=findings.memory_factor_finding(factors, rounding), target="tab-checksum-factors",
                                evidence=(rounding,)))


def _settings(con, out: Report) -> None:
    """The checksum setting in the Storage Scale listings of IBM's IO500 runs."""
    settings = get_checksum_settings(con)
    out.values["has_settings"] = not settings.empty
    if settings.empty:
        return
    listings = raid_listings(settings)
    setting = settings_count(listings)
    out.evidence.append(setting)
    out.findings.insert(len(out.findings) - 1, Finding(text=settings_finding(listings, setting),
                                                       target="tab-checksum-settings", evidence=(setting,)))
    prega = listings[listings.filesystem.str.contains(io500_runs.PRE_GA, regex=False)]
    out.values |= {"settings_runs": len(listings),
                   "settings_not_raid": ", ".join(str(s) for s in listings.submission[~listings.raid]),
                   "prega_runs": " and ".join(str(s) for s in prega.submission),
                   "prega_filesystem": Prose(present.md_escape(prega.filesystem.iloc[0]) if len(prega) else "")}
    out.tables["tab-checksum-settings"] = Table(frame=seed.settings_table(settings), formats={"year": "d"})


def _compared(all_steps: pd.DataFrame, steps: pd.DataFrame, end: pd.DataFrame) -> pd.DataFrame:
    """Every comparison of the local half, decided in one call (each run's families whole), with its record's
    fields as columns: every run's checksums against none, the current runs' direct against buffered writes and
    their drift checks."""
    rows = pd.concat([compare_checksums(all_steps), compare_buffered_direct(steps), compare_end_baseline(steps, end)],
                     ignore_index=True)
    return comparison.record_frame(rows.assign(record=evidence.decide(list(rows.record))))


def _local(con, out: Report, run_folders: Iterable[str], labels: Mapping[str, Iterable[str]] | None) -> None:
    """The local runs (by default the current one; every run's bandwidth comparisons side by side)."""
    runs, status = select_runs(con, run_folders)
    every = status.run_id.tolist() if not list(run_folders) else runs.run_id.tolist()
    all_steps = get_steps(con, every, labels)
    steps = all_steps[all_steps.run_id.isin(runs.run_id)] if len(all_steps) else all_steps
    out.values["has_local"] = has_local = not steps.empty
    out.values["no_local"] = not has_local
    out.values["has_modes"] = False
    if not has_local:
        out.values["no_local_note"] = present.no_data(
            "fio checksum runs (scripts/collect_checksum.py)" + (" with the selected labels" if labels else ""),
            HOW_TO_ADD)
        return

    end = get_steps(con, runs.run_id, labels, end_baseline=True)
    frame = _compared(all_steps, steps, end)
    out.evidence += list(frame.record)  # every run's, the superseded ones' shown side by side
    current = frame[frame.run_id.isin(runs.run_id)]
    checksums = current[current.quantity.isin(MEASURES)]
    drift = current[current.family.str.endswith(": drift")]
    modes = current[current.quantity == BUFFERED_QUANTITY]
    main = main_comparison(checksums)
    every_runs = collector_runs.get_runs(con, "checksum").set_index("run_id").loc[every].reset_index()
    others = get_others_cpu(steps, every_runs)
    low_high = findings.others_records(others)
    out.evidence += low_high
    local = [Finding(text=findings.method_finding(main, runs), target="tab-checksum-comparisons",
                     evidence=(main.record,)),
             Finding(text=findings.contention_finding(others), target="tab-checksum-load", evidence=low_high)]
    device = runs.set_index("run_id").target_device[main.run_id]
    if len(modes):
        local.append(Finding(text=findings.modes_finding(modes.record.iloc[0]), target="tab-checksum-modes",
                             evidence=(modes.record.iloc[0],)))
        out.values |= {"has_modes": True, "buffered_direct": evidence.phrase(modes.record.iloc[0]),
                       "host_cache_text": Prose(findings.host_cache_text(steps[steps.run_id == main.run_id], device))}
        out.tables["tab-checksum-modes"] = comparison.table(list(modes.record), _descriptors(modes, "run_id"))
    out.findings[0:0] = local

    costs = get_costs(steps)
    widest = costs.loc[(costs.max_mib_s / costs.min_mib_s).idxmax()]
    vmstat = collector_runs.get_step_vmstat(con, runs.run_id)
    facts = get_perf_facts(con, runs.run_id)
    side = frame[frame.quantity == "bandwidth"]
    ratios_decided = "; ".join(f"{measure}: {comparison.range_sentence(group.record)}"
                               for measure, group in checksums.groupby("measure", sort=False))
    cpu = checksums[checksums.measure == "fio CPU per GiB"]
    costliest = cpu.loc[cpu.ratio.idxmax()]
    # every file of the steps, the end baseline's included (issue 46: its perf and mpstat files were left out)
    measured = pd.concat([steps, end], ignore_index=True)
    source_ids = (set(runs.manifest_source_id) | set(measured.source_id)
                  | set(measured.perf_source_id.dropna().astype(int))
                  | set(measured.mpstat_source_id.dropna().astype(int)) | set(vmstat.vmstat_source_id))
    out.values |= {
        "runs": len(runs), "steps": len(steps), "others_cpu_low_pct": float(others.min()),
        "others_cpu_high_pct": float(others.max()), "others_cpu_steps": len(others),
        "quiet_text": Prose(findings.quiet_check_text(analysis.get_quiet_threshold(con, runs.run_id), steps)),
        "widest_ratio": float(widest.max_mib_s / widest.min_mib_s),
        "widest_config": f"{widest.phase} {widest.verify} {widest['mode']}",
        "widest_low": float(widest.min_mib_s), "widest_high": float(widest.max_mib_s),
        "decided_k": int(checksums.decided.sum()), "decided_n": len(checksums), "ratios_decided": ratios_decided,
        "unmeasured_runs": int(facts[facts.fact == "memory_traffic"].value.str.startswith("not measured").sum()),
        "files_link": present.files_link(present.sources(con, source_ids).path, "The files behind the local figures"),
        "drift_text": (evidence.phrases([(f"{r.label}:", r) for r in drift.record]) if len(drift)
                       else "No run read here measured its baseline again at its end")}
    out.tables |= {
        "tab-checksum-status": present.run_status_table(status),
        "tab-checksum-runs": Table(frame=runs[list(RUNS_COLUMNS)].rename(columns=RUNS_COLUMNS),
                                   formats={"memory (GiB)": ".1f", "load (1 min)": ".2f"}),
        "tab-checksum-load": _said_once(analysis.load_table(steps, others, vmstat), LOAD_FORMATS),
        "tab-checksum-comparisons": comparison.table(
            list(checksums.record), _descriptors(checksums, "run_id", "phase", "mode", "verify")),
        # a configuration in one column, each run's status in the table above: nine columns scrolled at 1280 px
        "tab-checksum-side": comparison.table(list(side.record), pd.DataFrame({
            "run": side.run_id, "setup": side.phase + " " + side["mode"] + " " + side.verify})),
        "tab-checksum-drift": comparison.table(list(drift.record), _descriptors(drift, "run_id", "phase", "mode")),
        "tab-checksum-costs": _said_once(costs[list(COSTS_COLUMNS)].rename(columns=COSTS_COLUMNS), COSTS_FORMATS),
        "tab-checksum-perf": Table(frame=facts.rename(columns={"run_id": "run"}))}
    out.figures |= {
        "fig-checksum-bandwidth": charts.chart_bandwidth(
            steps, f"{main.phase} {main['mode']} {main.verify}: {main.ratio:.2f}× the bandwidth of no checksum, "
                   f"{main.verdict}"),
        "fig-checksum-ratios": charts.chart_ratios(list(checksums.record), checksums,
                                                   f"Each checksum over none: {ratios_decided}"),
        "fig-checksum-cpu": charts.chart_cpu(
            steps, f"{costliest.verify} {costliest['mode']} {costliest.phase}s: {costliest.ratio:.0f}× fio's CPU "
                   "per GiB without a checksum")}


def report(con, *, run_folders: Iterable[str] = (), labels: Mapping[str, Iterable[str]] | None = None) -> Report:
    """The chapter: IBM's published table and its memory factor, the checksum setting in IBM's IO500 listings,
    and the local runs (by default the current one; every run's main comparisons side by side), every verdict
    by one call to evidence.decide. `labels` keeps some steps by their manifest labels (collector_runs.keep_labels).
    Findings: the local method's outcome first when there are local runs, then IBM's published result."""
    out = Report()
    _published(out)
    _settings(con, out)
    _local(con, out, run_folders, labels)
    out.findings = out.findings[:MAX_FINDINGS]
    return out
