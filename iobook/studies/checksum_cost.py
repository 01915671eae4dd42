"""Checksum CPU and memory effects: IBM's published trailer-checksum table (seed 000) with what its
"memory factor" means, beside fio runs with verify= checksums made by scripts/collect_checksum.py."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd

from .. import published, stats
from . import local_runs

PUBLISHED = "seed000_checksum_cpu_memory"
# Node counts quoted from seed 000: "nine HDR200 connected clients" (checksum slide) and "2 servers/canisters
# per BB" (IBM Tucson's configuration slide); the checksum slide's system is one ESS 3500 building block.
NODES = {"Client": 9, "Server": 2}
BUILDS = ["5.1.5.1 GA", "trailerchecksum"]
PHASES = ["write", "read"]


def get_published() -> pd.DataFrame:
    """Seed 000's checksum table as printed: row, build (column), printed string, value, unit, note, source."""
    return published.load(PUBLISHED)


def get_memory_factor(pub: pd.DataFrame) -> pd.DataFrame:
    """Two readings of the slide's undefined "Mem Fact" per side and build: memory bandwidth over the whole
    IOR bandwidth, and over one node's share of it (NODES), each against the printed factor, plus the
    node count the printed factor implies (IOR bandwidth x factor / memory bandwidth)."""
    value = pub.set_index(["row", "column"])["value"]
    rows = []
    for side, nodes in NODES.items():
        for build in BUILDS:
            io, mem, printed = (value["IOR Seq Read BW", build], value[f"{side} / Mem BW", build],
                                value[f"{side} / Mem Fact", build])
            per_node = mem / (io / nodes)
            rows.append({"side": side, "build": build, "io_gb_s": io, "mem_gb_s": mem, "printed": printed,
                         "whole": mem / io, "nodes": nodes, "per_node": per_node,
                         "per_node_matches": round(per_node, 1) == printed, "implied_nodes": io * printed / mem})
    return pd.DataFrame(rows)


def get_runs(con, run_folders: Iterable[str] | None = None) -> pd.DataFrame:
    """The checksum runs named by run folder (all when empty), via local_runs.select_runs."""
    return local_runs.select_runs(con, "checksum", run_folders)


def get_steps(con, run_ids: Iterable[str], labels: Mapping[str, Iterable[str]] | None = None) -> pd.DataFrame:
    """One row per fio step of the checksum runs (local_runs.get_fio_steps), `labels` keeping some."""
    return local_runs.get_fio_steps(con, run_ids, labels)


def verify_order(frame: pd.DataFrame) -> list[str]:
    """The checksums in the order the collector ran them (first step of each), none first."""
    return frame.groupby("verify").step_index.min().sort_values().index.tolist()


MEASURES = {"bandwidth": "bw_mib_s", "fio CPU per GiB": "fio_cpu_s_per_gib"}  # compared with no checksum
# Other tenants' CPU load (busy CPUs in the second before fio started) whose difference between two
# repetitions of one run is flagged: on two cores, half a CPU taken by others slows a one-thread fio step.
LOAD_DIFFERENCE_CPUS = 0.5


def get_costs(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, phase, mode and checksum, over its repetitions: the geometric mean bandwidth with the
    lowest and highest, and the means of fio's, perf's and the machine's CPU-seconds per GiB."""
    rows = []
    for (run_id, phase, mode), part in steps.groupby(["run_id", "phase", "mode"], sort=True):
        for verify in verify_order(part):
            group = part[part.verify == verify]
            rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": verify,
                         "repetitions": len(group), "bw_mib_s": float(np.exp(np.log(group.bw_mib_s).mean())),
                         "min_mib_s": group.bw_mib_s.min(), "max_mib_s": group.bw_mib_s.max(),
                         "fio_cpu_s_per_gib": group.fio_cpu_s_per_gib.mean(),
                         "perf_cpu_s_per_gib": group.perf_cpu_s_per_gib.mean(),
                         "machine_cpu_s_per_gib": group.machine_cpu_s_per_gib.mean()})
    return pd.DataFrame(rows)


def get_comparisons(steps: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Each checksum against no checksum (`verify=none`, same run, phase and mode), for bandwidth and
    fio's CPU-seconds per GiB (MEASURES): one row per run, phase, mode, checksum and measure with the
    ratio on the log scale, its interval and Welch's p (stats.ratio_row), and the verdicts of all of a
    run's comparisons of one measure read together (stats.add_verdicts: Holm, at least
    stats.MIN_REPETITIONS a side, the repetitions per side that would decide)."""
    rows = []
    for (run_id, phase, mode), part in steps.groupby(["run_id", "phase", "mode"], sort=True):
        base = part[part.verify == "none"]
        if base.empty:
            continue
        for verify in verify_order(part):
            if verify == "none":
                continue
            group = part[part.verify == verify]
            for measure, column in MEASURES.items():
                rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": verify, "measure": measure,
                             "step_index": group.step_index.min(),
                             **stats.ratio_row(group[column], base[column], confidence)})
    columns = ["run_id", "phase", "mode", "verify", "measure", "step_index", *stats.RATIO_COLUMNS]
    return stats.add_verdicts(pd.DataFrame(rows, columns=columns), confidence, ["run_id", "measure"])


def get_load(steps: pd.DataFrame, vmstat: pd.DataFrame) -> pd.DataFrame:
    """Other tenants' load per run and repetition, from the runs' own monitors: the busy CPUs in the
    second before each fio step started (mpstat, all CPUs: what others ran, fio not yet), their mean,
    lowest and highest over the repetition's steps, vmstat's mean run queue during the steps, and per run
    `load_differs`: the repetitions' mean busy CPUs before differ by LOAD_DIFFERENCE_CPUS or more."""
    df = steps.merge(vmstat[["run_id", "step_index", "run_queue"]], on=["run_id", "step_index"], how="left")
    load = df.groupby(["run_id", "repetition"]).agg(
        steps=("step_index", "size"), busy_before=("busy_cpus_before", "mean"),
        busy_before_min=("busy_cpus_before", "min"), busy_before_max=("busy_cpus_before", "max"),
        run_queue=("run_queue", "mean")).reset_index()
    spread = load.groupby("run_id").busy_before.agg(lambda x: x.max() - x.min())
    load["load_differs"] = load.run_id.map(spread >= LOAD_DIFFERENCE_CPUS)
    return load


def get_checksum_settings(con) -> pd.DataFrame:
    """Every Storage Scale mmlsconfig setting whose name holds "checksum", with the IO500 run its listing
    describes (`io500_run_system_files`): submission, institution, system, file system as the archive names
    it, year, the node class it applies to (`common`: the whole cluster), value, and the listing's line.
    Runs with a listing that sets none appear once with an empty key."""
    return con.execute(
        """
        WITH listed AS (
            SELECT DISTINCT x.run_id, x.source_id FROM io500_run_system_files x WHERE x.format = 'gpfs-mmlsconfig'
        )
        SELECT r.submission, r.institution, r.system, r.filesystem, r.year, l.source_id,
               c.scope, c.key, c.value, c.line
        FROM listed l JOIN io500_runs r USING (run_id)
        LEFT JOIN gpfs_config c ON c.source_id = l.source_id AND contains(lower(c.key), 'checksum')
        ORDER BY r.submission, c.key, c.scope = 'common' DESC, c.line
        """,
    ).df()


def get_perf_facts(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """What the collector found perf could count, per run (manifest facts.perf.*)."""
    return con.execute(
        """
        SELECT run_id, replace(key, 'facts.perf.', '') AS fact, value FROM run_facts
        WHERE list_contains(?, run_id) AND key IN ('facts.perf.memory_controller_pmus',
              'facts.perf.memory_traffic', 'facts.perf.events.instructions', 'facts.perf.events.cycles')
        ORDER BY run_id, key
        """,
        [list(run_ids)],
    ).df()


def get_perf_status(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """perf stat's status per event over the runs' steps ('counted', 'not supported', ...)."""
    return con.execute(
        """
        SELECT run_id, event, status, count(*) AS steps FROM perf_counters
        WHERE list_contains(?, run_id) GROUP BY ALL ORDER BY run_id, event, status
        """,
        [list(run_ids)],
    ).df()


def chart_bandwidth(steps: pd.DataFrame, title: str) -> alt.Chart:
    """fio bandwidth per checksum: one point per repetition, a bar for their mean, per phase and mode."""
    order = verify_order(steps)
    data = steps[["run_id", "step", "phase", "mode", "verify", "repetition", "bw_mib_s", "runtime_s"]].round(
        {"bw_mib_s": 3})
    base = alt.Chart(data).encode(
        x=alt.X("verify:N", title="fio verify= (checksum)", sort=order),
        xOffset=alt.XOffset("mode:N"),
        color=alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom")))
    bars = base.mark_bar(opacity=0.5).encode(y=alt.Y("mean(bw_mib_s):Q", title="bandwidth (MiB/s)"))
    points = base.mark_point(filled=True, size=40).encode(
        y="bw_mib_s:Q",
        tooltip=["run_id", "step", "repetition", alt.Tooltip("bw_mib_s:Q", format=",.0f", title="MiB/s"),
                 alt.Tooltip("runtime_s:Q", format=".2f", title="fio runtime (s)")])
    return alt.layer(bars, points).properties(width=220, height=200).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES),
        row=alt.Row("run_id:N", title=None),
    ).properties(title={"text": title, "subtitle": "points: repetitions, bars: their mean; 1 MiB sequential "
                                                   "(source: fio_io, run_labels views)"})


def chart_ratios(costs: pd.DataFrame, title: str, confidence: float = 0.95) -> alt.Chart:
    """Bandwidth with each checksum as a ratio to no checksum, with its bootstrap interval, per phase."""
    data = costs[costs.verify != "none"][
        ["run_id", "phase", "mode", "verify", "repetitions", "bw_ratio", "bw_low", "bw_high"]].round(4)
    order = [v for v in verify_order(costs) if v != "none"]
    base = alt.Chart().encode(
        y=alt.Y("verify:N", title="fio verify= (checksum)", sort=order),
        yOffset=alt.YOffset("mode:N"),
        color=alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom")))
    rules = base.mark_rule().encode(x=alt.X("bw_low:Q", title="bandwidth ÷ no checksum (ratio)"), x2="bw_high:Q")
    points = base.mark_point(filled=True, size=40).encode(
        x="bw_ratio:Q",
        tooltip=["run_id", "phase", "mode", "verify", "repetitions",
                 alt.Tooltip("bw_ratio:Q", format=".2f", title="ratio"),
                 alt.Tooltip("bw_low:Q", format=".2f", title="interval low"),
                 alt.Tooltip("bw_high:Q", format=".2f", title="interval high")])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, rules, points, data=data).properties(width=220, height=200).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES),
    ).properties(title={"text": title, "subtitle": f"point: ratio of mean bandwidths; line: {confidence:.0%} "
                                                   "bootstrap interval; dashed: no change (source: fio_io)"})


def chart_cpu(steps: pd.DataFrame, title: str) -> alt.Chart:
    """fio's user and system CPU-seconds per GiB, one stacked bar per repetition, per phase and mode."""
    long = steps.melt(id_vars=["step", "phase", "mode", "verify", "repetition", "runtime_s", "io_bytes"],
                      value_vars=["usr_cpu_pct", "sys_cpu_pct"], var_name="kind", value_name="pct")
    long["cpu_s_per_gib"] = local_runs.cpu_s_per_gib(long.pct, long.runtime_s, long.io_bytes).round(6)
    long["kind"] = long.kind.map({"usr_cpu_pct": "user", "sys_cpu_pct": "system"})
    return alt.Chart(long.drop(columns=["pct", "runtime_s", "io_bytes"])).mark_bar().encode(
        x=alt.X("verify:N", title="fio verify= (checksum)", sort=verify_order(steps)),
        xOffset=alt.XOffset("repetition:O"),
        y=alt.Y("cpu_s_per_gib:Q", title="fio CPU-seconds per GiB", stack="zero"),
        color=alt.Color("kind:N", title="fio CPU", legend=alt.Legend(orient="bottom")),
        tooltip=["step", "kind", alt.Tooltip("cpu_s_per_gib:Q", format=".3f", title="CPU-s/GiB")],
    ).properties(width=220, height=160).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES), row=alt.Row("mode:N", title=None),
    ).properties(title={"text": title, "subtitle": "one bar per repetition (source: fio_jobs usr_cpu/sys_cpu, "
                                                   "fio_io)"})
