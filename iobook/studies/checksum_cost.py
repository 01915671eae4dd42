"""Checksum CPU and memory effects: IBM's published trailer-checksum table (seed 000) with what its
"memory factor" means, beside fio runs with verify= checksums made by scripts/collect_checksum.py."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd

from .. import evidence, io500_runs, present, published
from ..report import Finding, Prose, Report, Table
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


def select_runs(con, run_folders: Iterable[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the checksum runs the chapter reads, by default the current one (local_runs.select_current:
    the newest made with the newest collector design), else those named by run folder; every run's status."""
    return local_runs.select_current(con, "checksum", run_folders)


def get_runs(con, run_folders: Iterable[str] | None = None) -> pd.DataFrame:
    """The runs of select_runs."""
    return select_runs(con, run_folders)[0]


def get_steps(con, run_ids: Iterable[str], labels: Mapping[str, Iterable[str]] | None = None,
              end_baseline: bool = False) -> pd.DataFrame:
    """One row per fio step of the checksum runs (local_runs.get_fio_steps), `labels` keeping some; the
    baseline measured again at the end of a run (drift_check=end) only with `end_baseline`, else never."""
    return local_runs.get_fio_steps(con, run_ids, labels, end_baseline)


def compare_end_baseline(steps: pd.DataFrame, end: pd.DataFrame) -> pd.DataFrame:
    """Drift: per run, phase and mode, the bandwidth without a checksum measured again at the end of the run
    (`end`: get_steps with end_baseline) over its rounds during it, one family per run; the same columns as
    compare_checksums. The end step is no round: it is never among the rounds compared."""
    rows = []
    for (run_id, phase, mode), last in end.groupby(["run_id", "phase", "mode"], sort=True) if len(end) else []:
        during = steps[(steps.run_id == run_id) & (steps.phase == phase) & (steps["mode"] == mode)
                       & (steps.verify == "none")]
        if len(during):
            rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": "none", "measure": "bandwidth",
                         "step_index": last.step_index.min(), "record": evidence.compare(
                             last.bw_mib_s.to_numpy(), during.bw_mib_s.to_numpy(), quantity="bandwidth at the end "
                             "÷ during the run", unit="MiB/s", replicate=evidence.Replicate.ROUND,
                             family=f"{run_id}: drift", label=f"{phase} {mode} none at the end",
                             baseline_label=f"{phase} {mode} none during the run")})
    return pd.DataFrame(rows, columns=["run_id", "phase", "mode", "verify", "measure", "step_index", "record"])


def verify_order(frame: pd.DataFrame) -> list[str]:
    """The checksums in the order the collector ran them (first step of each), none first."""
    return frame.groupby("verify").step_index.min().sort_values().index.tolist()


# Compared with no checksum: measure -> (column of get_steps, unit).
MEASURES = {"bandwidth": ("bw_mib_s", "MiB/s"), "fio CPU per GiB": ("fio_cpu_s_per_gib", "CPU-s/GiB")}
BUFFERED_QUANTITY = "write bandwidth without a checksum, direct ÷ buffered"
SETTING = "nsdRAIDClientOnlyChecksum"
SETTING_QUANTITY = f"declustered-RAID IO500 runs setting {SETTING} yes"
ROUNDING_QUANTITY = "printed memory factors reproduced within the slide's rounding"
GB_S_ROUNDING = 0.5  # the slide prints GB/s as whole numbers
FACTOR_ROUNDING = 0.05  # and factors to one decimal


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
    run_id, phase, mode, verify, measure, step_index (of its first step) and `record` (evidence.Comparison)."""
    rows = []
    for (run_id, phase, mode), part in steps.groupby(["run_id", "phase", "mode"], sort=True):
        base = part[part.verify == "none"]
        for verify in verify_order(part) if len(base) else []:
            group = part[part.verify == verify]
            for measure, (column, unit) in MEASURES.items():
                if verify == "none":
                    continue
                rows.append({"run_id": run_id, "phase": phase, "mode": mode, "verify": verify, "measure": measure,
                             "step_index": group.step_index.min(), "record": evidence.compare(
                                 group[column].to_numpy(), base[column].to_numpy(), quantity=measure, unit=unit,
                                 replicate=evidence.Replicate.ROUND, family=f"{run_id}: {measure}",
                                 label=f"{phase} {mode} {verify}", baseline_label=f"{phase} {mode} none")})
    return pd.DataFrame(rows, columns=["run_id", "phase", "mode", "verify", "measure", "step_index", "record"])


def compare_buffered_direct(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, writes without a checksum: direct over buffered bandwidth (BUFFERED_QUANTITY), rounds as units,
    a family of its own per run; the same columns as compare_checksums."""
    rows = []
    for run_id, part in steps[(steps.phase == "write") & (steps.verify == "none")].groupby("run_id", sort=True):
        direct, buffered = (part.loc[part["mode"] == m, "bw_mib_s"].to_numpy() for m in ("direct", "buffered"))
        if len(direct) and len(buffered):
            rows.append({"run_id": run_id, "phase": "write", "mode": "direct ÷ buffered", "verify": "none",
                         "measure": "bandwidth", "step_index": part.step_index.min(), "record": evidence.compare(
                             direct, buffered, quantity=BUFFERED_QUANTITY, unit="MiB/s",
                             replicate=evidence.Replicate.ROUND, family=f"{run_id}: I/O mode",
                             label="direct writes", baseline_label="buffered writes")})
    return pd.DataFrame(rows, columns=["run_id", "phase", "mode", "verify", "measure", "step_index", "record"])


def get_others_cpu(steps: pd.DataFrame, runs: pd.DataFrame) -> pd.Series:
    """Per step, the share of all CPUs other work took while it ran (%): the machine's busy CPUs during the
    step (mpstat, get_fio_steps) less fio's own CPU (usr + sys, fio's JSON), over the host's cores."""
    cores = steps.run_id.map(runs.set_index("run_id").cores)
    return (100 * steps.busy_cpus_during - (steps.usr_cpu_pct + steps.sys_cpu_pct)) / cores


def get_checksum_settings(con) -> pd.DataFrame:
    """Every Storage Scale mmlsconfig setting whose name holds "checksum", with the IO500 run its listing
    describes (`io500_run_system_files`): submission, institution, system, file system as the archive names
    it, year, the node class it applies to (`common`: the whole cluster), value, and the listing's line, and
    `raid`: the listing sets Storage Scale RAID settings (nsdRAID*) beside the checksum one, so the system has
    declustered RAID. Runs with a listing that sets none appear once with an empty key."""
    return con.execute(
        """
        WITH listed AS (
            SELECT DISTINCT x.run_id, x.source_id FROM io500_run_system_files x WHERE x.format = 'gpfs-mmlsconfig'
        ), raid AS (
            SELECT l.source_id, count(c.key) FILTER (starts_with(lower(c.key), 'nsdraid')
                                                    AND lower(c.key) <> lower(?)) > 0 AS raid
            FROM listed l LEFT JOIN gpfs_config c USING (source_id) GROUP BY l.source_id
        )
        SELECT r.submission, r.institution, r.system, r.filesystem, r.year, l.source_id, d.raid,
               c.scope, c.key, c.value, c.line
        FROM listed l JOIN io500_runs r USING (run_id) JOIN raid d USING (source_id)
        LEFT JOIN gpfs_config c ON c.source_id = l.source_id AND contains(lower(c.key), 'checksum')
        ORDER BY r.submission, c.key, c.scope = 'common' DESC, c.line
        """,
        [SETTING],
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


def slide(pub: pd.DataFrame) -> str:
    """The title of the slide the published table comes from."""
    return pub.source.iloc[0].split(": ", 1)[1]


def published_wide(pub: pd.DataFrame) -> pd.DataFrame:
    """The slide's table as printed: one row per measure, one column per build."""
    wide = pub.pivot(index="row", columns="column", values="printed").reindex(pub.row.drop_duplicates())[BUILDS]
    wide.columns.name = None
    return wide.reset_index(names="measure")


def published_finding(pub: pd.DataFrame) -> Finding:
    """IBM's result as the slide prints it: lab measurements of development builds, one value per build, so
    no interval; each printed figure is its record."""
    v = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    figures = tuple(evidence.described(v[row, build], quantity=f"{row}, {build}", unit=unit, n=1,
                                       replicate=evidence.Replicate.PUBLISHED, how="one figure the slide prints")
                    for row, unit in (("IOR Seq Read BW", "GB/s"), ("Server / CPU Idle", "%")) for build in (ga, tc))
    return Finding(text=f"IBM lab, development build with trailer checksum: {v['IOR Seq Read BW', ga]:g} → "
                        f"{v['IOR Seq Read BW', tc]:g} GB/s read on one ESS 3500, server CPU idle "
                        f"{v['Server / CPU Idle', ga]:g} → {v['Server / CPU Idle', tc]:g} % {{cite:p}}`lewars2023` "
                        "[one value per build, no spread]", target="tab-checksum-published", evidence=figures)


def memory_factor_text(factors: pd.DataFrame, pub: pd.DataFrame, record: evidence.Count) -> str:
    """What the memory-factor table shows, with its numbers and how many printed factors the per-node reading
    reproduces within the slide's rounding (rounding_count)."""
    v = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    server, client = (factors[factors.side == side].set_index("build") for side in ("Server", "Client"))
    return (f"Memory bandwidth ÷ all I/O bandwidth gives {', '.join(f'{w:.2f}' for w in factors.whole)}: none of "
            f"the printed factors. The memory factor reads as **bytes of memory traffic on a node per byte of I/O "
            f"that node delivers**: about {client.per_node.iloc[0]:.1f} on a client with either build, and on the "
            f"servers {server.per_node[ga]:.2f} → {server.per_node[tc]:.2f} (printed ~{server.printed[ga]:g} → "
            f"~{server.printed[tc]:g}) while the delivered bandwidth rose. The slide rounds its inputs (GB/s to "
            f"whole numbers) and its factors (to a tenth): within that rounding this reading reproduces {record.k} of "
            f"{record.n} printed factors, " + ", ".join(f"{r.per_node:.2f} for ~{r.printed:g}" for r in factors[
                ~factors.per_node_matches].itertuples()) + " included. That is the slide's point: with the "
            f"trailer checksum each byte served costs the servers less memory traffic and, per the CPU idle row, less "
            f"CPU (idle {v['Server / CPU Idle', ga]:g} % → {v['Server / CPU Idle', tc]:g} %), while the clients spent "
            f"more CPU (idle {v['Client / CPU Idle', ga]:g} % → {v['Client / CPU Idle', tc]:g} %).")


def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    """The checksum settings per IO500 run as a table that fits a page: submission, system, year, whether it
    has declustered RAID, setting, value, where it applies ('cluster' for mmlsconfig's common part, else the
    node classes), listing line."""
    df = settings.assign(
        applies=np.where(settings["scope"].isna(), "–",
                         np.where(settings["scope"] == "common", "cluster", "nodes " + settings["scope"].fillna(""))),
        setting=settings["key"].fillna("(no checksum setting)"), value=settings["value"].fillna("–"),
        raid=np.where(settings.raid, "yes", "no"))
    return df[["submission", "system", "year", "raid", "setting", "value", "applies", "line"]].rename(
        columns={"raid": "declustered RAID"})


def raid_listings(settings: pd.DataFrame) -> pd.DataFrame:
    """Per IO500 run with a Storage Scale listing: submission, year, file system as the archive names it,
    whether the listing is of a declustered-RAID (Storage Scale RAID) system, and whether it sets
    nsdRAIDClientOnlyChecksum yes."""
    on = settings["key"].fillna("").str.lower().eq(SETTING.lower()) & settings["value"].fillna("").str.lower().eq("yes")
    return (settings.assign(sets=on).groupby("submission")
            .agg(year=("year", "first"), filesystem=("filesystem", "first"), raid=("raid", "first"), sets=("sets", "any"))
            .reset_index())


def settings_count(listings: pd.DataFrame) -> evidence.Count:
    """A census of the declustered-RAID listings: how many set the setting (SETTING_QUANTITY)."""
    raid = listings[listings.raid]
    return evidence.count(int(raid.sets.sum()), len(raid), quantity=SETTING_QUANTITY, of=evidence.Replicate.RUN)


def settings_finding(listings: pd.DataFrame, record: evidence.Count) -> str:
    """What the IBM lab systems' listings set, with the builds the archive names and the systems where a
    Storage Scale RAID setting does not apply."""
    raid = listings[listings.raid & listings.sets]
    prega = listings[listings.filesystem.str.contains(io500_runs.PRE_GA, regex=False)]
    other = listings[~listings.raid]
    return (f"{evidence.phrase(record)} with a Storage Scale listing from IBM's lab systems with declustered RAID "
            f"set `{SETTING} yes` "
            + (f"[{span(raid.year)}; submissions {', '.join(str(s) for s in raid.submission)}"
               + (f"; {' and '.join(str(s) for s in prega.submission)} an {io500_runs.PRE_GA}" if len(prega) else "") + "]"
               if len(raid) else "")
            + (f"; {', '.join(str(s) for s in other.submission)} has no declustered RAID, where it does not apply"
               if len(other) else ""))


def rounding_count(factors: pd.DataFrame) -> evidence.Count:
    """How many printed memory factors the per-node reading reproduces within the slide's rounding: the range
    the printed inputs allow (each half a unit of its last printed digit either way, GB/s printed whole)
    overlaps the range the printed factor allows (half a tenth either way)."""
    low = (factors.mem_gb_s - GB_S_ROUNDING) / ((factors.io_gb_s + GB_S_ROUNDING) / factors.nodes)
    high = (factors.mem_gb_s + GB_S_ROUNDING) / ((factors.io_gb_s - GB_S_ROUNDING) / factors.nodes)
    within = (low <= factors.printed + FACTOR_ROUNDING) & (high >= factors.printed - FACTOR_ROUNDING)
    return evidence.count(int(within.sum()), len(factors), quantity=ROUNDING_QUANTITY,
                          of=evidence.Replicate.PUBLISHED)


def memory_factor_finding(factors: pd.DataFrame, record: evidence.Count) -> str:
    """Which reading of the slide's undefined memory factor reproduces its printed values, and how closely."""
    return (f"The slide's memory factor is memory traffic per byte a node delivers: {record.k} of {record.n} printed "
            "values reproduced within the slide's rounding (" + ", ".join(
                f"{r.per_node:.2f} for ~{r.printed:g}" for r in factors.itertuples()) + ")")


def method_finding(row: pd.Series, runs: pd.DataFrame) -> str:
    """The chapter's first finding, the local half as what it is: the method run on the build machine's
    contended cores, where fio hashes in software, not a storage system's checksum (the landing page lists it
    under the build machine)."""
    host = runs.set_index("run_id").loc[row["run_id"]]
    return (f"fio's software {row['verify']} on {host.cores} contended {host.cpu_model} vCPUs, not a storage "
            f"checksum: {row['mode']} {row['phase']}s at {evidence.phrase(row['record'])} of no checksum's bandwidth")


def contention_finding(others: pd.Series, modes: pd.Series) -> str:
    """Other work's share of the CPU over the measured steps, and the unexplained buffered/direct gap."""
    return (f"Other work took {others.min():.0f}–{others.max():.0f} % of the build machine's CPUs in each of "
            f"{len(others)} measured steps; without a checksum, direct writes ran {evidence.phrase(modes['record'])} "
            "the bandwidth of buffered ones, which these runs do not explain")


def main_comparison(checksums: pd.DataFrame) -> pd.Series:
    """The costliest checksum's bandwidth with direct I/O (lowest ratio to no checksum over both phases; any
    mode when no direct steps ran)."""
    bw = checksums[checksums.measure == "bandwidth"]
    direct = bw[bw["mode"] == "direct"]
    pick = direct if len(direct) else bw
    return pick.loc[pick["ratio"].idxmin()]


def quiet_check_text(con, runs: pd.DataFrame, steps: pd.DataFrame) -> str:
    """What the collector's quiet check (label under_load, threshold facts.load_policy.quiet_below_busy_pct)
    found around the measured steps of the runs read; empty for runs made before the check existed."""
    if "under_load" not in steps or steps.under_load.isna().all():
        return ""
    threshold = con.execute(
        "SELECT min(CAST(value AS DOUBLE)) FROM run_facts WHERE list_contains(?, run_id) "
        "AND key = 'facts.load_policy.quiet_below_busy_pct'", [runs.run_id.tolist()]).fetchone()[0]
    checked = steps[steps.under_load.notna()]
    return (f"The collector's quiet check found the machine busy ({threshold:g} % of all CPUs or more, before or "
            f"right after the step) around {int((checked.under_load == 'true').sum())} of {len(checked)} measured "
            "steps.")


def span(values) -> str:
    """'2' for one distinct value, '2–3' for several."""
    values = sorted(set(values))
    return f"{values[0]}" if len(values) == 1 else f"{values[0]}–{values[-1]}"


def chart_bandwidth(steps: pd.DataFrame, title: str) -> alt.Chart:
    """fio bandwidth per checksum: one point per repetition (shape: which), a bar for their geometric mean,
    per phase and mode."""
    order = verify_order(steps)
    data = steps[["run_id", "step", "phase", "mode", "verify", "repetition", "bw_mib_s", "runtime_s"]].round(
        {"bw_mib_s": 3})
    base = alt.Chart(data).encode(
        x=alt.X("verify:N", title="fio verify= (checksum)", sort=order),
        xOffset=alt.XOffset("mode:N"),
        color=alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom")))
    bars = base.mark_bar(opacity=0.4).transform_calculate(log_bw="log(datum.bw_mib_s)").transform_joinaggregate(
        mean_log="mean(log_bw)", groupby=["run_id", "phase", "mode", "verify"]).transform_calculate(
        geometric_mean="exp(datum.mean_log)").encode(y=alt.Y("max(geometric_mean):Q", title="bandwidth (MiB/s)"))
    points = base.mark_point(filled=True, size=40).encode(
        y="bw_mib_s:Q", shape=alt.Shape("repetition:N", legend=alt.Legend(orient="bottom")),
        tooltip=["run_id", "step", "repetition", alt.Tooltip("bw_mib_s:Q", format=",.0f", title="MiB/s"),
                 alt.Tooltip("runtime_s:Q", format=".2f", title="fio runtime (s)")])
    return alt.layer(bars, points).properties(width=220, height=200).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES),
        row=alt.Row("run_id:N", title=None),
    ).properties(title={"text": title, "subtitle": "points: repetitions, bars: their geometric mean; 1 MiB "
                                                   "sequential (source: fio_io, run_labels views)"})


def chart_ratios(comparisons: pd.DataFrame, title: str) -> alt.Chart:
    """Each checksum's bandwidth and fio CPU per GiB as a ratio to no checksum, with its interval on a log
    axis, one panel per measure and phase; filled points are decided."""
    data = comparisons.assign(verdict=np.where(comparisons.decided, "decided", "undecided"))[
        ["run_id", "phase", "mode", "verify", "measure", "n", "n_baseline", "ratio", "low", "high", "p_adjusted",
         "verdict"]].round(6)
    order = verify_order(comparisons)
    base = alt.Chart().encode(
        y=alt.Y("verify:N", title="fio verify= (checksum)", sort=order),
        yOffset=alt.YOffset("mode:N"),
        color=alt.Color("mode:N", title="I/O mode", legend=alt.Legend(orient="bottom")))
    rules = base.mark_rule().encode(x=alt.X("low:Q", title="checksum ÷ no checksum (ratio, log scale)",
                                            scale=alt.Scale(type="log")), x2="high:Q")
    points = base.mark_point(size=40).encode(
        x="ratio:Q", fill=alt.Fill("verdict:N", scale=alt.Scale(domain=["decided", "undecided"],
                                                                 range=["black", "white"]),
                                   legend=alt.Legend(orient="bottom", title=None)),
        tooltip=["run_id", "phase", "mode", "verify", "measure", "n", "n_baseline",
                 alt.Tooltip("ratio:Q", format=".2f"), alt.Tooltip("low:Q", format=".2f", title="interval low"),
                 alt.Tooltip("high:Q", format=".2f", title="interval high"),
                 alt.Tooltip("p_adjusted:Q", format=".2g", title="Holm p"), "verdict"])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, rules, points, data=data).properties(width=180, height=180).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES), row=alt.Row("measure:N", title=None),
    ).properties(title={"text": title, "subtitle": [f"point: ratio of geometric means; line: {evidence.CONFIDENCE:.0%} Welch "
                                                    "interval on the log scale;", "dashed: no change (source: fio_io)"]})


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


# The columns of a comparisons table a reader sees (local_runs.record_frame).
SHOWN = {"run_id": "run", "status": "status", "phase": "phase", "mode": "mode", "verify": "checksum", "measure": "measure", "ratio": "ratio",
         "low": "low", "high": "high", "n": "n", "n_baseline": "n none", "p_adjusted": "Holm p", "verdict": "verdict"}
SHOWN_FORMATS = {"ratio": ".3g", "low": ".3g", "high": ".3g", "Holm p": ".2g"}


def shown(frame: pd.DataFrame) -> Table:
    """Comparisons as a table (SHOWN columns)."""
    return Table(frame=frame[[c for c in SHOWN if c in frame]].rename(columns=SHOWN), formats=SHOWN_FORMATS)


def report(con, *, run_folders: Iterable[str] = (), labels: Mapping[str, Iterable[str]] | None = None) -> Report:
    """The chapter: IBM's published table and its memory factor, the checksum setting in IBM's IO500 listings,
    and the local runs (by default the current one; every run's main comparisons side by side), every verdict
    by evidence.decide. `labels` keeps some steps by their manifest labels (local_runs.keep_labels)."""
    pub = get_published()
    factors = get_memory_factor(pub)
    value = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    rounding = rounding_count(factors)
    records: list = [rounding]
    values = {"slide": slide(pub), "confidence_pct": 100 * evidence.CONFIDENCE, "min_units": evidence.MIN_UNITS,
              "clients": NODES["Client"], "servers": NODES["Server"],
              "memory_factor_text": Prose(memory_factor_text(factors, pub, rounding)),
              "factor_matches": rounding.k, "factors_n": rounding.n}
    for side in ("Server", "Client"):
        for key, row in (("idle", "CPU Idle"), ("mem", "Mem BW"), ("factor", "Mem Fact")):
            for build, name in ((ga, "ga"), (tc, "tc")):
                values[f"{side.lower()}_{key}_{name}"] = float(value[f"{side} / {row}", build])
    tables = {"tab-checksum-published": Table(frame=published_wide(pub)),
              "tab-checksum-factors": Table(
                  frame=factors[["side", "build", "io_gb_s", "mem_gb_s", "printed", "whole", "per_node",
                                 "implied_nodes"]].rename(columns={
                      "io_gb_s": "IOR read (GB/s)", "mem_gb_s": "memory (GB/s)", "whole": "memory ÷ IOR",
                      "per_node": "memory ÷ IOR per node", "implied_nodes": "nodes implied"}),
                  formats={"memory ÷ IOR": ".2f", "memory ÷ IOR per node": ".3f", "nodes implied": ".2f",
                           "IOR read (GB/s)": "g", "memory (GB/s)": "g", "printed": "g"})}
    findings = [published_finding(pub)]
    settings = get_checksum_settings(con)
    values["has_settings"] = not settings.empty
    if len(settings):
        listings = raid_listings(settings)
        setting = settings_count(listings)
        records.append(setting)
        findings.append(Finding(text=settings_finding(listings, setting), target="tab-checksum-settings",
                                evidence=(setting,)))
        prega = listings[listings.filesystem.str.contains(io500_runs.PRE_GA, regex=False)]
        values |= {"settings_runs": len(listings), "settings_not_raid": ", ".join(
                       str(s) for s in listings.submission[~listings.raid]),
                   "prega_runs": " and ".join(str(s) for s in prega.submission),
                   "prega_filesystem": Prose(present.md_escape(prega.filesystem.iloc[0]) if len(prega) else "")}
        tables["tab-checksum-settings"] = Table(frame=settings_table(settings), formats={"year": "d"})
    findings.append(Finding(text=memory_factor_finding(factors, rounding), target="tab-checksum-factors",
                            evidence=(rounding,)))

    runs, status = select_runs(con, run_folders)
    every = status.run_id.tolist() if not list(run_folders) else runs.run_id.tolist()
    all_steps = get_steps(con, every, labels)
    steps = all_steps[all_steps.run_id.isin(runs.run_id)] if len(all_steps) else all_steps
    values["has_local"] = has_local = not steps.empty
    values["no_local"] = not has_local
    if not has_local:
        values["no_local_note"] = present.no_data(
            "fio checksum runs (scripts/collect_checksum.py)" + (" with the selected labels" if labels else ""),
            "Make some on any Linux machine with fio: `python3 scripts/collect_checksum.py` (from the repository "
            "root; `--help` for its options) writes a run folder under `data/raw/checksum/`; then "
            '`make book DATA="data/raw your/runs"` ingests it and rebuilds this chapter.')
        return Report(values=values, tables=tables, figures={}, findings=findings, evidence=records)

    every_runs = local_runs.get_runs(con, "checksum").set_index("run_id").loc[every].reset_index()
    end = get_steps(con, runs.run_id, labels, end_baseline=True)
    rows = local_runs.decide_rows(pd.concat([compare_checksums(all_steps), compare_buffered_direct(steps),
                              compare_end_baseline(steps, end)], ignore_index=True))
    records += list(rows.record)  # every run's, the superseded ones' shown side by side
    frame = local_runs.record_frame(rows)
    current = frame[frame.run_id.isin(runs.run_id)]
    checksums = current[current.quantity.isin(MEASURES)]
    drift = current[current.family.str.endswith(": drift")]
    main = main_comparison(checksums)
    modes = current[current.quantity == BUFFERED_QUANTITY].iloc[0]
    others = get_others_cpu(steps, every_runs)
    costs = get_costs(steps)
    widest = costs.loc[(costs.max_mib_s / costs.min_mib_s).idxmax()]
    vmstat = local_runs.get_step_vmstat(con, runs.run_id)
    facts = get_perf_facts(con, runs.run_id)
    side = frame[frame.quantity == "bandwidth"].merge(status[["run_id", "status"]], on="run_id", how="left")
    main_label = f"{main['phase']} {main['mode']} {main['verify']}"
    findings[0:0] = [Finding(text=method_finding(main, runs), target="tab-checksum-comparisons",
                             evidence=(main.record,)),
                     Finding(text=contention_finding(others, modes), target="tab-checksum-load",
                             evidence=(modes.record,))]
    cpu = checksums[checksums.measure == "fio CPU per GiB"]
    costliest = cpu.loc[cpu.ratio.idxmax()]
    source_ids = (set(runs.manifest_source_id) | set(steps.source_id) | set(steps.perf_source_id.dropna().astype(int))
                  | set(steps.mpstat_source_id.dropna().astype(int)) | set(vmstat.vmstat_source_id)
                  | set(end.get("source_id", [])))
    values |= {
        "runs": len(runs), "steps": len(steps), "others_cpu_low_pct": float(others.min()),
        "others_cpu_high_pct": float(others.max()), "others_cpu_steps": len(others),
        "buffered_direct": evidence.phrase(modes.record), "quiet_text": Prose(quiet_check_text(con, runs, steps)),
        "widest_ratio": float(widest.max_mib_s / widest.min_mib_s),
        "widest_config": f"{widest.phase} {widest.verify} {widest['mode']}",
        "widest_low": float(widest.min_mib_s), "widest_high": float(widest.max_mib_s),
        "decided_k": int(checksums.decided.sum()), "decided_n": len(checksums),
        "unmeasured_runs": int(facts[facts.fact == "memory_traffic"].value.str.startswith("not measured").sum()),
        "files_link": present.files_link(present.sources(con, source_ids).path, "The files behind the local figures")}
    values["drift_text"] = ("; ".join(f"{r.label}: {evidence.phrase(r)}" for r in drift.record)
                            or "No run read here measured its baseline again at its end")
    tables |= {
        "tab-checksum-status": Table(frame=local_runs.status_table(status)),
        "tab-checksum-runs": Table(
            frame=runs[["run_folder", "cpu_model", "cores", "memory_gib", "kernel", "target_filesystem",
                        "load_avg_1m"]].rename(columns={
                "run_folder": "run", "cpu_model": "CPU", "memory_gib": "memory (GiB)", "target_filesystem": "file system",
                "load_avg_1m": "load (1 min)"}), formats={"memory (GiB)": ".1f", "load (1 min)": ".2f"}),
        "tab-checksum-load": Table(
            frame=steps.assign(others_pct=others)[["run_id", "step", "busy_cpus_during", "usr_cpu_pct", "sys_cpu_pct",
                                                   "others_pct"]]
            .merge(vmstat[["run_id", "step_index", "run_queue"]].assign(step=steps.set_index(
                ["run_id", "step_index"]).step.reindex(pd.MultiIndex.from_frame(vmstat[["run_id", "step_index"]]))
                .to_numpy()).drop(columns="step_index"), on=["run_id", "step"], how="left")
            .rename(columns={"run_id": "run", "busy_cpus_during": "busy CPUs", "usr_cpu_pct": "fio usr %",
                             "sys_cpu_pct": "fio sys %", "others_pct": "others' share %", "run_queue": "run queue"}),
            formats={"busy CPUs": ".2f", "fio usr %": ".1f", "fio sys %": ".1f", "others' share %": ".1f",
                     "run queue": ".1f"}),
        "tab-checksum-comparisons": shown(checksums),
        "tab-checksum-side": shown(side),
        "tab-checksum-drift": shown(drift),
        "tab-checksum-costs": Table(
            frame=costs[["phase", "mode", "verify", "repetitions", "bw_mib_s", "min_mib_s", "max_mib_s",
                         "fio_cpu_s_per_gib", "perf_cpu_s_per_gib", "machine_cpu_s_per_gib"]].rename(columns={
                "verify": "checksum", "repetitions": "rounds", "bw_mib_s": "MiB/s", "min_mib_s": "lowest",
                "max_mib_s": "highest", "fio_cpu_s_per_gib": "fio CPU s/GiB", "perf_cpu_s_per_gib": "perf s/GiB",
                "machine_cpu_s_per_gib": "machine s/GiB"}),
            formats={"MiB/s": ",.0f", "lowest": ",.0f", "highest": ",.0f", "fio CPU s/GiB": ".3f",
                     "perf s/GiB": ".3f", "machine s/GiB": ".2f"}),
        "tab-checksum-perf": Table(frame=facts.rename(columns={"run_id": "run"}))}
    figures = {
        "fig-checksum-bandwidth": chart_bandwidth(
            steps, f"{main_label}: {main.ratio:.2f}× the bandwidth of no checksum, {main.verdict}"),
        "fig-checksum-ratios": chart_ratios(
            checksums, f"{int(checksums.decided.sum())} of {len(checksums)} ratios decided"),
        "fig-checksum-cpu": chart_cpu(
            steps, f"{costliest.verify} {costliest['mode']} {costliest.phase}s: {costliest.ratio:.0f}× fio's CPU "
                   "per GiB without a checksum")}
    return Report(values=values, tables=tables, figures=figures, findings=findings[:6], evidence=records)
