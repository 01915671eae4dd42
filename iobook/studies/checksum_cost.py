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


def get_end_baseline(con, run_ids: Iterable[str], labels: Mapping[str, Iterable[str]] | None = None,
                     confidence: float = 0.95) -> pd.DataFrame:
    """Drift: per run, phase and mode, the bandwidth without a checksum measured again at the end of the run
    over its repetitions during it (local_runs.compare_end_baseline)."""
    return local_runs.compare_end_baseline(get_steps(con, run_ids, labels), get_steps(con, run_ids, labels, True),
                                           ["phase", "mode", "verify"], "bw_mib_s", confidence)


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


def slide(pub: pd.DataFrame) -> str:
    """The title of the slide the published table comes from."""
    return pub.source.iloc[0].split(": ", 1)[1]


def published_wide(pub: pd.DataFrame) -> pd.DataFrame:
    """The slide's table as printed: one row per measure, one column per build."""
    wide = pub.pivot(index="row", columns="column", values="printed").reindex(pub.row.drop_duplicates())[BUILDS]
    wide.columns.name = None
    return wide.reset_index(names="measure")


def published_finding(pub: pd.DataFrame) -> str:
    """IBM's result as the slide prints it: one value per build, so no interval."""
    v = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    return (f"IBM's trailer checksum: IOR read {v['IOR Seq Read BW', ga]:g} → {v['IOR Seq Read BW', tc]:g} GB/s on "
            f"one ESS 3500, server CPU idle {v['Server / CPU Idle', ga]:g} → {v['Server / CPU Idle', tc]:g} % "
            "{cite:p}`lewars2023` [one value per build, no spread given]")


def memory_factor_finding(factors: pd.DataFrame) -> str:
    """Which reading of the slide's undefined memory factor reproduces its printed values."""
    matches = factors[factors.per_node_matches]
    return (f"The slide's memory factor is memory traffic per byte a node delivers: {len(matches)} of "
            f"{len(factors)} printed values reproduced ("
            + ", ".join(f"{r.side.lower()} {r.build}" for r in matches.itertuples())
            + "); the others come out " + ", ".join(f"{r.per_node:.2f} (~{r.printed:g})"
                                                    for r in factors[~factors.per_node_matches].itertuples()))


def memory_factor_text(factors: pd.DataFrame, pub: pd.DataFrame) -> str:
    """What the memory-factor table shows, with its numbers."""
    v = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    server, client = (factors[factors.side == side].set_index("build") for side in ("Server", "Client"))
    return (f"Memory bandwidth ÷ all I/O bandwidth gives {', '.join(f'{w:.2f}' for w in factors.whole)}: none of "
            f"the printed factors. The memory factor reads as **bytes of memory traffic on a node per byte of I/O "
            f"that node delivers**: about {client.per_node.iloc[0]:.1f} on a client with either build, and on the "
            f"servers {server.per_node[ga]:.2f} → {server.per_node[tc]:.2f} (printed ~{server.printed[ga]:g} → "
            f"~{server.printed[tc]:g}) while the delivered bandwidth rose. That is the slide's point: with the "
            f"trailer checksum each byte served costs the servers less memory traffic and, per the CPU idle row, less "
            f"CPU (idle {v['Server / CPU Idle', ga]:g} % → {v['Server / CPU Idle', tc]:g} %), while the clients spent "
            f"more CPU (idle {v['Client / CPU Idle', ga]:g} % → {v['Client / CPU Idle', tc]:g} %).")


def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    """The checksum settings per IO500 run as a table that fits a page: submission, system, year, setting,
    value, where it applies ('cluster' for mmlsconfig's common part, else the node classes), listing line."""
    df = settings.assign(
        applies=np.where(settings["scope"].isna(), "–",
                         np.where(settings["scope"] == "common", "cluster", "nodes " + settings["scope"].fillna(""))),
        setting=settings["key"].fillna("(no checksum setting)"), value=settings["value"].fillna("–"))
    return df[["submission", "system", "year", "setting", "value", "applies", "line"]]


def settings_finding(settings: pd.DataFrame) -> str | None:
    """How many of the IO500 runs with a Storage Scale listing set nsdRAIDClientOnlyChecksum."""
    if settings.empty:
        return None
    runs = settings.groupby("submission")
    setting = settings[settings["key"].fillna("").str.lower() == "nsdraidclientonlychecksum"]
    on = setting[setting["value"].str.lower() == "yes"].submission.unique()
    if not len(on):
        return f"None of {runs.ngroups} IO500 runs with a Storage Scale listing sets `nsdRAIDClientOnlyChecksum yes`"
    return (f"{len(on)} of {runs.ngroups} IO500 runs with a Storage Scale listing set "
            f"`nsdRAIDClientOnlyChecksum yes` [{span(setting.year)}; submissions "
            f"{', '.join(str(s) for s in sorted(on))}], in production beside the slide's development build")


def main_comparison(comparisons: pd.DataFrame) -> pd.Series | None:
    """The costliest checksum's bandwidth with direct I/O (lowest ratio to no checksum over both phases;
    any mode when no direct steps ran)."""
    bw = comparisons[comparisons.measure == "bandwidth"]
    if bw.empty:
        return None
    direct = bw[bw["mode"] == "direct"]
    pick = direct if len(direct) else bw
    return pick.loc[pick["ratio"].idxmin()]


def main_finding(row: pd.Series, confidence: float, runs: pd.DataFrame, steps: pd.DataFrame) -> str:
    """The chapter's first finding: the costliest checksum's bandwidth, with its interval and verdict, said to
    be fio hashing in software on the run's cores (manifest host), "busy" when the collector's quiet check found
    the machine under load around most of the comparison's steps (label under_load; runs made before the check
    have none). Short: the first finding has at most nb.FIRST_FINDING_WORDS words."""
    host = runs.set_index("run_id").loc[row["run_id"]]
    compared = steps[(steps.run_id == row["run_id"]) & (steps.phase == row["phase"]) & (steps["mode"] == row["mode"])
                     & steps.verify.isin([row["verify"], "none"])]
    busy = "under_load" in compared and (compared.under_load == "true").mean() > 0.5
    return (f"fio's software {row['verify']} on {host.cores} {'busy ' if busy else ''}{host.cpu_model} cores cut "
            f"{row['mode']} {row['phase']}s to " + local_runs.ratio_text(row, confidence, "no checksum's bandwidth"))


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
            f"steps: fio computed every checksum in software, on one of {runs.cores.max()} {runs.cpu_model.iloc[0]} "
            "cores, beside that load.")


def load_finding(load: pd.DataFrame, steps: pd.DataFrame, row: pd.Series) -> str | None:
    """Other tenants' load per repetition of the main comparison's run, and what fio got of a CPU in the
    main comparison's steps; None when the repetitions' load does not differ (get_load)."""
    run = load[load.run_id == row["run_id"]].sort_values("repetition")
    if not run.load_differs.any():
        return None
    own = steps[(steps.run_id == row["run_id"]) & (steps.phase == row["phase"]) & (steps["mode"] == row["mode"])
                & (steps.verify == row["verify"])].sort_values("repetition")
    return (f"Other tenants' load differed between the repetitions: "
            f"{' then '.join(f'{b:.2f}' for b in run.busy_before)} busy CPUs before the steps [mpstat, "
            f"{int(run.steps.sum())} steps]; fio's {row['verify']} {row['mode']} {row['phase']}s got "
            f"{' then '.join(f'{u:.0f} %' for u in own.usr_cpu_pct)} of a CPU")


def span(values) -> str:
    """'2' for one distinct value, '2–3' for several."""
    values = sorted(set(values))
    return f"{values[0]}" if len(values) == 1 else f"{values[0]}–{values[-1]}"


def decided_finding(comparisons: pd.DataFrame, confidence: float) -> str:
    """How many of the comparisons are decided, with the repetitions per side the others would need."""
    n = comparisons["n_to_decide"].dropna()
    need = f"; {span([n.min(), n.max()])} a side would decide those with a measurable effect" if len(n) else ""
    return (f"{int(comparisons.decided.sum())} of {len(comparisons)} checksum comparisons decided "
            f"[{span([*comparisons.n, *comparisons.n_baseline])} repetitions a side, {stats.MIN_REPETITIONS} needed; "
            f"Welch on the logs, Holm over {comparisons.family_size.max()} per measure]{need}")


def faster_text(comparisons: pd.DataFrame, confidence: float) -> str:
    """The checksum configurations whose bandwidth came out above no checksum's, flagged: a checksum only
    adds work to fio's, so such a ratio is the noise or load of the runs, not the checksum."""
    faster = comparisons[(comparisons.measure == "bandwidth") & (comparisons.ratio > 1)]
    if faster.empty:
        return "No checksum's bandwidth came out above no checksum's."
    return ("**Flag:** faster than no checksum: " + "; ".join(
        f"{r.phase} {r['mode']} {r.verify} " + local_runs.ratio_text(r, confidence) for _, r in faster.iterrows())
        + ". A checksum only adds work to fio's; these runs do not show why those steps came out faster (buffered "
          "writes include writing the dirty pages back, `end_fsync=1`, on a disk shared with other work, and the "
          "other tenants' load differed between repetitions).")


def findings(pub: pd.DataFrame, factors: pd.DataFrame, settings: pd.DataFrame, comparisons: pd.DataFrame,
             load: pd.DataFrame, steps: pd.DataFrame, runs: pd.DataFrame, confidence: float,
             drift: pd.DataFrame | None = None) -> list[tuple[str, str]]:
    """The chapter's findings with the figure or table each links to: the local main result first when
    there are local runs, else IBM's published one; the drift of the runs read (get_end_baseline) after
    the local comparisons."""
    out = []
    row = main_comparison(comparisons) if len(comparisons) else None
    if row is not None:
        out.append((main_finding(row, confidence, runs, steps), "tab-checksum-comparisons"))
        said = load_finding(load, steps, row)
        if said:
            out.append((said, "tab-checksum-load"))
        out.append((decided_finding(comparisons, confidence), "fig-checksum-ratios"))
        if drift is not None and len(drift):
            out.append((local_runs.end_baseline_text(drift, confidence, "the bandwidth of their repetitions"),
                        "tab-checksum-drift"))
    out.append((published_finding(pub), "tab-checksum-published"))
    said = settings_finding(settings)
    if said:
        out.append((said, "tab-checksum-settings"))
    out.append((memory_factor_finding(factors), "tab-checksum-factors"))
    return out[:6]


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


def chart_ratios(comparisons: pd.DataFrame, title: str, confidence: float = 0.95) -> alt.Chart:
    """Each checksum's bandwidth and fio CPU per GiB as a ratio to no checksum, with its interval on a log
    axis, one panel per measure and phase; filled points are decided."""
    data = comparisons.assign(verdict=np.where(comparisons.decided, "decided", "undecided"))[
        ["run_id", "phase", "mode", "verify", "measure", "n", "n_baseline", "ratio", "low", "high", "p_holm",
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
                 alt.Tooltip("p_holm:Q", format=".2g", title="Holm p"), "verdict"])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, rules, points, data=data).properties(width=180, height=180).facet(
        column=alt.Column("phase:N", title=None, sort=PHASES), row=alt.Row("measure:N", title=None),
    ).properties(title={"text": title, "subtitle": f"point: ratio of geometric means; line: {confidence:.0%} Welch "
                                                   "interval on the log scale; dashed: no change (source: fio_io)"})


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
