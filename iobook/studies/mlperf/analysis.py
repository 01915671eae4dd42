"""The MLPerf Storage study's analysis: the runs (queries/runs.sql) and the audit's flags in, evidence records out.

The unit of replication is the system (`<organisation>/results/<system>`): a result's five runs are repetitions of
one system, and a system's results of one workload and accelerator type (YanRongTech's several accelerator counts)
are aggregated to it; workloads and accelerator types are never pooled. Every census (the AU, memory and link checks)
counts runs and gives no interval."""
from __future__ import annotations

import pandas as pd

from ...database import store
from ...inference import bounds, evidence
from ...inference.units import MIB
from . import audit

MB = 10 ** 6  # the megabyte of a link's rate: 1 Gbit/s = 125 MB/s
# DLIO's MB/s recomputed from samples/s x record length / 2^20 agrees to the JSON's digits: a relative difference
# above this is another unit
SAME_VALUE = 1e-9
AU_MARGIN = 1.0  # points above the minimum: au_within_one_point
MEMORY_FACTOR = 5  # the data set at least 5x the hosts' memory
# DLIO's per-host memory summed against hosts x the MemTotal of the host that wrote summary.json: the same to this
# relative difference (each host lists its own MemTotal, and a run's hosts differ by kB to MB: IEI's by 0.014 %)
SAME_MEMORY = 1e-3
H100_OVER_A100 = "MiB/s per accelerator, H100 over A100"


def get_runs(con) -> pd.DataFrame:
    """Every run with what the chapter derives from it: its system key (organisation/system, the unit), its
    benchmark (workload and accelerator type: 'unet3d h100'), MiB/s per simulated accelerator, and the share of its hosts' links it read (bytes/s over the links' bytes/s; none where
    its system's description states no links)."""
    runs = store.frame(con, __package__, "runs", [MIB, MIB])
    runs["system_key"] = runs.organisation + "/" + runs.system
    runs["per_accelerator"] = runs.mb_per_s / runs.accelerators
    runs["link_share"] = runs.bytes_per_s / (runs.links_mb_per_s * MB)
    runs["benchmark"] = runs.workload + " " + runs.accelerator.fillna("")
    return runs


def get_flags(con) -> pd.DataFrame:
    """The audit's flags (view mlperf_run_flags) with each run's result key."""
    return store.frame(con, __package__, "flags")


def with_flags(runs: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    """The runs with their audit codes joined (`validity_flags`, missing when none): what evidence.examples reads."""
    return runs.assign(validity_flags=audit.flagged_runs(runs, flags))


def units_census(runs: pd.DataFrame) -> evidence.Count:
    """DLIO's MB is 2^20 bytes: the runs whose MB/s equals samples/s x record length / 2^20."""
    same = (runs.mb_per_s - runs.mb_per_s_recomputed).abs() <= SAME_VALUE * runs.mb_per_s.abs()
    return evidence.count(k=int(same.sum()), n=len(runs), of=evidence.Replicate.CENSUS,
                          quantity="runs whose MB/s is samples/s x record length / 2^20")


def au_records(runs: pd.DataFrame, flags: pd.DataFrame) -> dict[str, evidence.Count]:
    """The AU census: runs below their minimum, within one point above it, and runs passing on the mean with an
    epoch below the minimum."""
    dipped = (runs.au_mean_pct >= runs.au_min_pct) & (runs.lowest_epoch_au < runs.au_min_pct)
    return {"below": audit.census(flags, "au_below_minimum", len(runs)),
            "within": audit.census(flags, "au_within_one_point", len(runs)),
            "epoch": evidence.count(k=int(dipped.sum()), n=len(runs), of=evidence.Replicate.CENSUS,
                                    quantity="runs meeting the AU minimum on the mean with an epoch below it")}


def memory_records(runs: pd.DataFrame, flags: pd.DataFrame) -> dict[str, evidence.Count]:
    """The caching checks: data sets under 5x the memory DLIO measured (v2.0's rule); under 5x the memory v1.0's rule
    takes (the description's, else the measured); the runs listing hosts that report 0 GB; the runs whose listed
    memory sums to hosts x the MemTotal of the host that wrote summary.json (a 0 GB host is then counted under
    another's index, not missing); the data sets under 5x the DRAM the system descriptions state, of the runs whose
    description states it; DLIO's potential_caching."""
    whole = runs.hosts * runs.host_mem_total_gb
    summed = (runs.hosts_memory_gb - whole).abs() <= SAME_MEMORY * whole
    described = runs[runs.described_memory_gb.notna()]
    return {"below_5x": audit.census(flags, "data_set_below_5x_measured", len(runs)),
            "below_5x_v1": audit.census(flags, "data_set_below_5x_memory", len(runs)),
            "no_memory": audit.census(flags, "host_reports_no_memory", len(runs)),
            "sum_whole": evidence.count(
                k=int(summed.sum()), n=len(runs), of=evidence.Replicate.CENSUS,
                quantity="runs whose hosts' listed memory sums to hosts x the MemTotal of the host that wrote it"),
            "below_5x_described": evidence.count(
                k=int((described.data_set_gb < MEMORY_FACTOR * described.described_memory_gb).sum()),
                n=len(described), of=evidence.Replicate.CENSUS,
                quantity="runs under 5x the client DRAM their system's description states"),
            "caching": audit.census(flags, "potential_caching", len(runs))}


def link_records(runs: pd.DataFrame) -> list[evidence.Count]:
    """bounds.censuses of the runs: those whose system's description states the clients' links, and those reading
    at least bounds.REACHES_LIMIT of them."""
    return bounds.censuses(runs.link_share.dropna(), len(runs))


def link_examples(runs: pd.DataFrame, example: str) -> tuple[pd.Series, pd.Series | None]:
    """The run reading the largest share of its links (flagged or not: a finding naming it names its flags), and the
    fastest run of the result `example` names (None when the data hold no such result or it states no links)."""
    stating = runs[runs.link_share.notna()]
    top = stating.sort_values(["link_share", "path"], ascending=[False, True]).iloc[0]
    named = stating[stating.result == example]
    return top, (named.sort_values(["mb_per_s", "path"], ascending=[False, True]).iloc[0] if len(named) else None)


def link_share_record(run: pd.Series) -> evidence.Estimate:
    """One run's share of its hosts' links: one run's value, no interval."""
    return evidence.described(100 * run.link_share, quantity=f"share of its hosts' links, {run.result} run {run.run}",
                              unit="%", n=1, replicate=evidence.Replicate.RUN, how="one run's rate over its links")


def results(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per result: its system and benchmark (workload and accelerator type), hosts and accelerators, mean
    MiB/s over its runs (and per accelerator), the best run's share of its links, its smallest AU margin and the codes the audit gives any of its
    runs (`runs` with_flags)."""
    grouped = runs.groupby("result", sort=True)
    frame = grouped.agg(organisation=("organisation", "first"), system=("system", "first"), benchmark=("benchmark", "first"),
                        workload=("workload", "first"), hosts=("hosts", "max"), accelerators=("accelerators", "max"), runs=("path", "size"),
                        mib_s=("mb_per_s", "mean"), share=("link_share", "max"), margin=("au_margin", "min"))
    codes = grouped.validity_flags.agg(lambda c: sorted({code for joined in c.dropna() for code in joined.split(", ")}))
    return frame.assign(per_accelerator=frame.mib_s / frame.accelerators, flags=codes).reset_index()


def workloads(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per workload and accelerator type: what DLIO's config sets (record length, batch, computation time
    per batch) and the MiB/s an accelerator reads at 100 % AU from it, beside the MiB/s per accelerator the runs
    read (lowest, median, highest) and the systems, results and runs behind them."""
    keys = ["workload", "accelerator", "record_length_bytes", "batch_size", "computation_time_s"]
    frame = runs.groupby(keys, dropna=False).agg(
        systems=("system_key", "nunique"), results=("result", "nunique"), runs=("path", "size"),
        lowest=("per_accelerator", "min"), median=("per_accelerator", "median"),
        highest=("per_accelerator", "max")).reset_index()
    frame["full_au"] = frame.record_length_bytes * frame.batch_size / frame.computation_time_s / MIB
    return frame


def accelerator_comparisons(runs: pd.DataFrame) -> list[evidence.Comparison]:
    """Per workload, MiB/s per simulated accelerator of H100 runs over A100 runs, each system one unit (its runs'
    geometric mean): one family, decided with the report's other records (evidence.decide_groups)."""
    found = []
    for workload, group in runs.groupby("workload", sort=True):
        sides = {accelerator: group[group.accelerator == accelerator] for accelerator in ("h100", "a100")}
        if any(side.empty for side in sides.values()):
            continue
        observed = {accelerator: evidence.Observations(values=side.per_accelerator.to_numpy(dtype=float),
                                                       units=side.system_key.tolist())
                    for accelerator, side in sides.items()}
        found.append(evidence.compare(observed["h100"], observed["a100"], quantity=f"{workload}: {H100_OVER_A100}",
                                      unit="x", replicate=evidence.Replicate.SYSTEM, family=H100_OVER_A100,
                                      label=f"{workload} h100", baseline_label=f"{workload} a100"))
    return found


def predicted_ratio(table: pd.DataFrame, workload: str) -> evidence.Estimate | None:
    """What DLIO's configs predict for one workload's H100 over A100 rate: the ratio of their rates at full AU (one
    row each; None where a side is missing or its config varies)."""
    rows = table[table.workload == workload].set_index("accelerator").full_au
    if not {"h100", "a100"} <= set(rows.index) or rows.index.duplicated().any():
        return None
    return evidence.described(rows["h100"] / rows["a100"], quantity=f"{workload}: full-AU rate, H100 over A100",
                              unit="x", n=1, replicate=evidence.Replicate.PUBLISHED,
                              how="DLIO's configs: record length x batch / computation time, no measurement")
