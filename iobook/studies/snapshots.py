"""Snapshot overhead (seed 003, LuxProvide's MeluXina talk): the talk's mdtest table as published figures
(which definitions reproduce its two summary rows; which way each state moved against "No snapshot", and why
the order the rows ran in confounds that), and the same method run locally (scripts/collect_snapshots.py:
btrfs snapshots over a loop device, fio's file metadata engines, rounds per stage): copy-on-write space as an
exact check, write latency, recovery after deletion, and metadata rates on the snapshotted subvolume paired
with the never-snapshotted control run beside each stage. Every verdict is evidence.decide's."""
from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import evidence, present, published, stats
from ..evidence import Comparison, Count, Replicate
from ..report import Finding, Prose, Report, Table
from . import local_runs

SEED_TABLE = "seed003_snapshot_mdtest"
SEED_CONFIGURATION = "seed003_test_configuration"
SUMMARY_ROWS = ("Std. deviation", "Diff with/without")
OPERATIONS = ["create", "stat", "delete"]  # fio engines filecreate, filestat, filedelete, in run order
STUDY = "snapshots"
HOW_TO_ADD = ("Collect a run with `sudo python3 scripts/collect_snapshots.py` (root, fio, btrfs-progs), then "
              "`python -m iobook book --data data/raw` (the run is written under data/raw/snapshots/).")
TALK = ("LuxProvide's talk on MeluXina's Lustre snapshots (Robert de Rooy, Senior HPC Engineer; the seed text "
        "names no event)")
BASELINE_STAGE = "none"  # the metadata part's stage before its first snapshot (manifest label `step`)
END_STAGE = "end"  # after every snapshot was deleted and the cleaner waited for (label drift_check=end)
DATA, CONTROL = "data", "control"  # the snapshotted subvolume and the never-snapshotted one (label `subvolume`)
MIB = 1 << 20
COW_PHASES = ["overwrite", "append"]  # fio random overwrite of every block, then an append, per repetition
LATENCY_MEASURES = {"mean": "clat_mean_us", "p99": "clat_p99_us"}
# The findings' order (at most six: the page check): the exact check leads, then the talk's question (metadata
# rates) and why it is paired, latency, recovery, and last what the talk's table cannot answer.
# the outcome leads (issue 36): the metadata comparisons' verdicts, then the copy-on-write space check of the method
FINDING_ORDER = ["tab-snapshots-local", "tab-snapshots-cow-space", "fig-snapshots-drift", "fig-snapshots-cow-latency",
                 "fig-snapshots-recovery", "fig-snapshots-seed-ratios"]
INTERVAL = f"{evidence.CONFIDENCE:.0%} Welch intervals on the log scale"  # the comparisons' charts say so
WRITE_BYTES = 4096  # the collector's fio writes are 4 KiB (scripts/collect_snapshots.py, --bs=4k)
FREED_SHARE = 0.9  # recovery: the first sample by which this share of the freed space was back
FREED_BY = f"{100 * FREED_SHARE:.0f} % freed by (s)"


# ---------------------------------------------------------------- the talk's table: published figures

def seed_source(table: pd.DataFrame) -> str:
    """The talk, slide headings and CSV a published table quotes, for captions."""
    # the seed text escapes markdown ("mdtest\\*"): the caption shows the heading as the slide prints it
    headings = ['"' + s.partition(": ")[2].replace("\\", "") + '"' for s in sorted(table["source"].unique())]
    slides = f"slide{'s' if len(headings) > 1 else ''} {'; '.join(headings)}"
    return f"{TALK}, {slides}, data/published/{table.attrs['name']}.csv"

def _load(name: str) -> pd.DataFrame:
    table = published.load(name)
    table.attrs["name"] = name
    return table

def get_seed_table() -> pd.DataFrame:
    """The talk's mdtest table, one printed cell a row (published CSV; seed_wide lays it out as printed)."""
    return _load(SEED_TABLE)

def seed_wide(seed: pd.DataFrame, values: str = "value") -> pd.DataFrame:
    """The long seed table as the slide prints it: state rows (then the two summary rows) by operation
    columns; `values="printed"` gives the strings as printed."""
    rows = seed.drop_duplicates("row").sort_values("line")["row"].tolist()
    columns = seed.drop_duplicates("column").sort_values("field")["column"].tolist()
    wide = seed.pivot(index="row", columns="column", values=values).loc[rows, columns]
    wide.columns.name = None
    return wide

def get_seed_configuration() -> pd.DataFrame:
    """The backup slide's MeluXina Tier2 against the DDN test system, and the method slide's mdtest clients."""
    return _load(SEED_CONFIGURATION)

def seed_clients(configuration: pd.DataFrame) -> dict[str, str | int]:
    """The mdtest clients of the method slide: nodes (a number), 'c' as printed ('560c'), CPUs, interconnect."""
    clients = configuration[configuration["table"] == "mdtest_clients"].set_index("column")
    return {"nodes": int(clients.loc["nodes", "value"]), "c": clients.loc["c", "printed"],
            "c_note": clients.loc["c", "note"], "cpus": clients.loc["CPUs", "printed"],
            "interconnect": clients.loc["interconnect", "printed"]}

def get_summary_checks(seed: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Which definitions of the slide's "Std. deviation" and "Diff with/without" rows reproduce them from
    the eight printed state rows (iobook.stats.recompute_summary): per definition, how many of the nine
    columns round to the printed value and how many are reached by inputs within their own rounding
    (± 0.005); and the per-column detail of the definitions that reach all nine."""
    wide = seed_wide(seed)
    states = wide.drop(index=list(SUMMARY_ROWS))
    detail = pd.concat([
        stats.recompute_summary(states, wide.loc[row], definitions, input_decimals=2, printed_decimals=2)
        .assign(row=row)
        for row, definitions in (("Std. deviation", stats.STD_DEFINITIONS),
                                 ("Diff with/without", stats.PERCENT_DEFINITIONS))
    ], ignore_index=True)
    per_definition = detail.groupby(["row", "definition"], sort=False).agg(
        columns=("column", "size"), rounds_to_printed=("rounds_to_printed", "sum"),
        reached_within_input_rounding=("reached_within_input_rounding", "sum")).reset_index()
    working = per_definition[per_definition["reached_within_input_rounding"] == per_definition["columns"]]
    return per_definition, detail.merge(working[["row", "definition"]])

def short_column(column: str) -> str:
    """A slide column as a short table header: 'Directory (kiops/s) / Create' -> 'dir create'."""
    group, _, operation = column.partition(" / ")
    return f"{group.split(' (')[0].lower().replace('directory', 'dir')} {operation.lower()}"

def seed_printed(seed: pd.DataFrame) -> pd.DataFrame:
    """The slide's table as printed, with short headers (short_column) so that it fits a page."""
    wide = seed_wide(seed, "printed")
    return wide.rename(columns=short_column).reset_index(names="state")

def get_seed_ratios(seed: pd.DataFrame) -> pd.DataFrame:
    """Each printed snapshot state over the printed "No snapshot" row, per column, with the state's position in
    the order the slide lists (and the method slide ran) them: published figures, no spread, no test."""
    states = seed_wide(seed).drop(index=list(SUMMARY_ROWS))
    baseline = states.index[0]
    ratios = (states.iloc[1:] / states.loc[baseline]).reset_index(names="state")
    long = ratios.melt(id_vars="state", var_name="column", value_name="ratio")
    long["order"] = long["state"].map({s: i for i, s in enumerate(states.index)})
    long["column"] = long["column"].map(short_column)
    return long


def get_seed_signs(ratios: pd.DataFrame) -> tuple[pd.DataFrame, list[Count]]:
    """Per column, how many of the snapshot states the slide prints below "No snapshot" (a count over every
    printed state: no interval), with the lowest and highest ratio."""
    rows, counts = [], []
    for column, group in ratios.groupby("column", sort=False):
        below = evidence.count(int((group["ratio"] < 1).sum()), len(group), of=Replicate.PUBLISHED,
                               quantity=f"{column}: snapshot states below 'No snapshot'")
        counts.append(below)
        rows.append({"column": column, "states": below.n, "below 'No snapshot'": below.k,
                     "lowest ratio": group["ratio"].min(), "highest ratio": group["ratio"].max()})
    return pd.DataFrame(rows), counts


def chart_seed_ratios(ratios: pd.DataFrame, title: str, source: str) -> alt.Chart:
    """Every printed state over "No snapshot" per column, coloured by the order the states ran in: published
    figures, one value each, so no interval."""
    points = alt.Chart(ratios).mark_point(filled=True, size=40).encode(
        x=alt.X("ratio:Q", title='printed rate / printed rate with "No snapshot" (ratio)', scale=alt.Scale(zero=False)),
        y=alt.Y("column:N", sort=ratios["column"].unique().tolist(), title=None),
        color=alt.Color("order:O", title="run order (1 = first snapshot state)", scale=alt.Scale(scheme="viridis"),
                        legend=alt.Legend(orient="bottom")),
        tooltip=["column", "state", alt.Tooltip("ratio:Q", format=".3f")])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, points, data=ratios).properties(width=420, height=260, title={
        "text": title, "subtitle": textwrap.wrap(f"dashed: 'No snapshot', measured once, first; source: {source}", 70)})


def configuration_text(configuration: pd.DataFrame, seed: pd.DataFrame) -> str:
    """The talk's mdtest clients and test system, as its method and backup slides print them."""
    clients = seed_clients(configuration)
    config = configuration[configuration["table"] == "test_configuration"].set_index(["row", "column"])
    test, tier2 = "Test system(DDN)", "Tier2 (Melluxina)"
    footnote = seed["note"].iloc[0].lstrip("* ")
    return (f"The method slide (\"MDTest\") ran mdtest from {clients['nodes']} nodes (printed "
            f"\"{clients['nodes']} nodes ({clients['c']})\"; {clients['c_note'].partition(': ')[2]}) with "
            f"{clients['cpus']} CPUs and {clients['interconnect']} interconnect against a DDN test system: no "
            f"snapshot, then after each of five `lctl snapshot_create`, then twice after destroying the oldest "
            f"snapshot and creating a new one, each time running mdtest \"at 0, 10, 30, 60, 120 min intervals\". "
            f"Per the backup slide \"Configuration differences\" that test system had "
            f"{config.loc[(test, '#OST'), 'printed']} OSTs of {config.loc[(test, 'OST Size(TB)'), 'printed']} TB "
            f"behind {config.loc[(test, '#OSS'), 'printed']} OSS, against MeluXina Tier2's "
            f"{config.loc[(tier2, '#OST'), 'printed']} OSTs of {config.loc[(tier2, 'OST Size(TB)'), 'printed']} TB "
            f"behind {config.loc[(tier2, '#OSS'), 'printed']} OSS; its MDS are listed as "
            f"{config.loc[(test, '#MDS'), 'printed']}, while the mdtest slide's footnote says \"{footnote}\".")

def seed_finding(signs: pd.DataFrame, counts: list[Count]) -> str:
    """The talk's table in one sentence: the sign pattern, and what it is confounded with."""
    all_below = [c for c in counts if c.k == c.n]
    return (f"The talk's table prints every snapshot state below \"No snapshot\" in {len(all_below)} of {len(counts)} "
            "columns; \"No snapshot\" ran once, first, so the rows' order confounds the pattern "
            "{cite:p}`derooy-meluxina`")


def seed_order_text(signs: pd.DataFrame, baseline_runs: int) -> str:
    """What the sign pattern of the talk's table rests on: one 'No snapshot' value, measured before every
    snapshot state."""
    all_below = signs[signs["below 'No snapshot'"] == signs["states"]]["column"].tolist()
    states = int(signs["states"].max())
    return (f"In {len(all_below)} of {len(signs)} columns ({', '.join(all_below)}) every one of the {states} snapshot "
            f"states is printed below \"No snapshot\". That row is printed once ({baseline_runs} row) and was measured "
            "first: the method slide creates the snapshots one after the other and runs mdtest after each, so the "
            f"states are also the 2nd to {states + 1}th measurements of the test. Anything that changed over the test "
            "(the file system's contents, caches, the lab system's other work) moves every state against that one "
            "value alike: the sign pattern is confounded with order, and the table cannot separate the two. An "
            "answer needs \"No snapshot\" measured again between and after the states (as the local runs' control "
            "subvolume is), or repeated in an interleaved order.")


# ---------------------------------------------------------------- the local runs: which, and their metadata rates

def select_runs(con, run_folders: Iterable[str] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the snapshot collector runs the chapter reads and every run's status per part
    (local_runs.select_current; a part is an experiment, manifest label `part`, 'metadata' for runs made
    before parts existed): by default the current run of each part, else the runs named by their run folder
    (exact; an unknown name raises selection.UnknownSelection naming the nearest)."""
    return local_runs.select_current(con, STUDY, run_folders, "part", "metadata")

def get_rates(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """One row per fio create/stat/delete result of the runs' metadata part: run, step_index, operation, stage
    (manifest label `step`: 'none', the snapshots taken, 'rotation-k', and 'end' after every snapshot was
    deleted, label drift_check=end), subvolume ('data', snapshotted; 'control', never snapshotted; runs made
    before the control existed have only data), `during` (the stage the step ran beside: its own on data,
    label `during_step` on the control), snapshots present, repetition, files (files_per_job x jobs),
    source_id, fio's engine, jobs and error, fio's group-reported files per second (all files over the longer
    job's runtime) and runtime (ms), the manifest step's seconds, and the CPU share other work took during
    the step (label busy_others_during_pct; NaN in runs that did not record it)."""
    columns = ["run_id", "step_index", "operation", "stage", "subvolume", "during", "snapshots", "repetition",
               "files", "source_id", "fio_engine", "numjobs", "error", "files_per_s", "runtime_ms", "step_s",
               "others_pct"]
    parts = [local_runs.get_step_labels(con, run_ids, end_baseline=end) for end in (False, True)]
    steps = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else parts[0]
    if "phase" in steps:  # the copy-on-write and recovery parts' fio outputs have other phases
        steps = steps[steps["phase"].isin(OPERATIONS)]
    if steps.empty:
        return pd.DataFrame(columns=columns)
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
    fio = con.execute(
        "SELECT j.source_id, j.jobname AS fio_engine, j.numjobs, j.error, io.iops AS files_per_s, io.runtime_ms "
        "FROM fio_jobs j JOIN fio_io io USING (job_id) WHERE list_contains(?, j.source_id)",
        [[int(i) for i in labels["source_id"]]]).df()
    return labels.merge(fio, on="source_id").sort_values(["run_id", "step_index"], kind="stable")[columns] \
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


def _keyed(keys: list[dict], records: list) -> pd.DataFrame:
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
    its family says so. Stages are never pooled: they ran one after the other."""
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
    records = evidence.decide(records)
    return _keyed(keys, records), records


def compare_control_drift(rates: pd.DataFrame) -> tuple[pd.DataFrame, list[Comparison]]:
    """Per run and operation, the never-snapshotted control's files per second at the end of the run over
    beside its first stage: how far the machine and the file system drifted with no snapshot involved."""
    keys, records = [], []
    control = rates[rates["subvolume"] == CONTROL]
    for (run_id, operation), group in _by_run_and_operation(control):
        start = group.loc[group["during"] == BASELINE_STAGE, "files_per_s"]
        end = group.loc[group["during"] == END_STAGE, "files_per_s"]
        if start.empty or end.empty:
            continue
        keys.append({"run_id": run_id, "operation": operation})
        records.append(evidence.compare(end, start, quantity=rate_quantity(operation), unit="files/s",
                                        replicate=Replicate.ROUND, family=f"{run_id}: control drift",
                                        label="control at the end",
                                        baseline_label=f"control beside stage {BASELINE_STAGE}"))
    records = evidence.decide(records)
    return _keyed(keys, records), records


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


def chart_rates(rates: pd.DataFrame) -> alt.Chart:
    """Every round's rate by the stage it ran beside, data and control side by side, one panel per operation
    and run (the panel names the run, so the tooltips do not; the download has every column)."""
    order = stage_order(rates.assign(stage=rates["during"]))
    base = alt.Chart(rates).encode(x=alt.X("during:N", sort=order, title="stage (snapshots taken, then rotations)"),
                                   color=alt.Color("subvolume:N", sort=[DATA, CONTROL], title="subvolume",
                                                   legend=alt.Legend(orient="bottom")))
    points = base.mark_circle(size=40, opacity=0.6).encode(
        y=alt.Y("files_per_s:Q", title="files per second (files/s)"),
        xOffset=alt.XOffset("subvolume:N", sort=[DATA, CONTROL]),
        tooltip=["operation", "during", "subvolume", "repetition", alt.Tooltip("files_per_s:Q", format=",.0f"),
                 alt.Tooltip("runtime_ms:Q", title="fio runtime (ms)")])
    means = base.mark_line().encode(y="mean(files_per_s):Q")
    return alt.layer(points, means).properties(width=220, height=200).facet(
        column=alt.Column("operation:N", sort=OPERATIONS, title=None),
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": "fio file metadata rate per stage on btrfs, data and control",
                        "subtitle": "points: rounds; lines: stage means (source: fio_io, run_labels views)"})


def chart_drift(drift: pd.DataFrame, title: str) -> alt.Chart:
    """The control's rounds over its first stage's geometric mean, by the stage they ran beside (log axis)."""
    order = stage_order(drift.assign(stage=drift["during"]))
    base = alt.Chart(drift).encode(x=alt.X("during:N", sort=order, title="stage the control ran beside"),
                                   color=alt.Color("operation:N", sort=OPERATIONS, legend=alt.Legend(orient="bottom")))
    points = base.mark_circle(size=35, opacity=0.7).encode(
        y=alt.Y("ratio:Q", title="control rate / its rate beside stage none (ratio)", scale=alt.Scale(type="log")),
        tooltip=["run_id", "operation", "during", "repetition", alt.Tooltip("ratio:Q", format=".2f"),
                 alt.Tooltip("files_per_s:Q", format=",.0f")])
    means = base.mark_line().encode(y="mean(ratio):Q")
    one = alt.Chart(drift).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return alt.layer(one, points, means).properties(width=460, height=220).facet(
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": title, "subtitle": ["points: control rounds; lines: stage means",
                                                    "(source: fio_io, run_labels views)"]})


def chart_comparison(comparisons: pd.DataFrame, title: str) -> alt.Chart:
    """Data over its concurrent control per stage with the intervals (log axis), filled when decided."""
    data = comparisons.assign(verdict=comparisons["verdict"].astype(str))[
        ["run_id", "operation", "stage", "ratio", "low", "high", "n", "n_baseline", "p_adjusted", "verdict"]]
    order = data["stage"].drop_duplicates().tolist()
    base = alt.Chart(data).encode(x=alt.X("stage:N", sort=order, title="stage"),
                                  color=alt.Color("run_id:N", title=None, legend=alt.Legend(orient="bottom")),
                                  xOffset="run_id:N")
    intervals = base.mark_rule().encode(
        y=alt.Y("low:Q", title="data rate / concurrent control rate (ratio)", scale=alt.Scale(type="log")), y2="high:Q")
    centers = base.mark_point(size=40).encode(
        y="ratio:Q", fill=alt.Fill("verdict:N", scale=alt.Scale(domain=["decided", "undecided"], range=["black", "white"]),
                                   legend=alt.Legend(orient="bottom", title=None)),
        tooltip=["run_id", "operation", "stage", alt.Tooltip("ratio:Q", format=".3f"), alt.Tooltip("low:Q", format=".3f"),
                 alt.Tooltip("high:Q", format=".3f"), "n", "n_baseline",
                 alt.Tooltip("p_adjusted:Q", format=".2g", title="Holm p"), "verdict"])
    one = alt.Chart(data).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return alt.layer(one, intervals, centers).properties(width=200, height=220).facet(
        column=alt.Column("operation:N", sort=OPERATIONS, title=None)
    ).properties(title={"text": title, "subtitle": [
        f"{INTERVAL}; filled: decided (see the methods page)",
        "(source: fio_io, run_labels views)"]})


def get_time_since_snapshot(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """For every labelled fio step of the runs' metadata and copy-on-write parts (not the recovery part,
    which runs after the deletes): the seconds from the
    moment the newest snapshot's `btrfs subvolume snapshot` returned to the step's start (NaN before the
    first snapshot). The talk asks about performance 0 to 120 minutes after a snapshot is created; this is
    how long after one these runs measured."""
    return con.execute(
        """
        WITH snaps AS (
            SELECT run_id, step_index, finished_utc FROM run_steps
            WHERE list_contains(?, run_id) AND starts_with(command, 'btrfs subvolume snapshot ')
        ),
        fio AS (
            SELECT DISTINCT s.run_id, s.step_index, s.name AS step, s.started_utc
            FROM run_steps s JOIN run_labels l USING (run_id, step_index)
            WHERE list_contains(?, s.run_id) AND ends_with(l.file, '.fio.json')
              AND (s.run_id, s.step_index) NOT IN (SELECT (run_id, step_index) FROM run_labels
                                                   WHERE key = 'part' AND value = 'recovery')
        )
        SELECT f.run_id, f.step_index, f.step,
               epoch(f.started_utc) - epoch(max(n.finished_utc)) AS seconds_since_snapshot
        FROM fio f LEFT JOIN snaps n ON n.run_id = f.run_id AND n.step_index < f.step_index
        GROUP BY f.run_id, f.step_index, f.step, f.started_utc ORDER BY f.run_id, f.step_index
        """,
        [list(run_ids), list(run_ids)]).df()

def get_snapshot_steps(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """The snapshot create and delete commands of the runs (run_steps), with how long each took to return."""
    return con.execute(
        """
        SELECT run_id, step_index, name AS step, seconds, exit_code
        FROM run_steps
        WHERE list_contains(?, run_id)
          AND (starts_with(command, 'btrfs subvolume snapshot ') OR starts_with(command, 'btrfs subvolume delete '))
        ORDER BY run_id, step_index
        """,
        [list(run_ids)],
    ).df()

def get_run_facts(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """fio and btrfs versions and the prefill file count of each run (run_facts)."""
    return con.execute(
        """
        SELECT run_id,
               any_value(value) FILTER (key = 'tools.fio') AS fio,
               any_value(value) FILTER (key = 'tools.btrfs') AS btrfs,
               CAST(any_value(value) FILTER (key = 'facts.prefill.files') AS INTEGER) AS "prefilled files"
        FROM run_facts WHERE list_contains(?, run_id) GROUP BY run_id ORDER BY run_id
        """,
        [list(run_ids)],
    ).df()

# ---------------------------------------------------------------- copy-on-write writes, space, and recovery

def _labelled(con, run_ids: Iterable[str], suffix: str, part: str) -> pd.DataFrame:
    """get_step_labels of one collector part's files, with each step's start time (run_steps)."""
    steps = local_runs.get_step_labels(con, run_ids, suffix)
    if "part" not in steps:
        return steps.iloc[0:0]
    steps = steps[steps["part"] == part]
    started = con.execute("SELECT run_id, step_index, started_utc FROM run_steps WHERE list_contains(?, run_id)",
                          [list(run_ids)]).df()
    return steps.merge(started, on=["run_id", "step_index"]).reset_index(drop=True)

def _fio_writes(con, steps: pd.DataFrame) -> pd.DataFrame:
    """fio's write result of each labelled step: writes, IOPS and completion latency mean and percentiles (µs)."""
    fio = con.execute(
        "SELECT j.source_id, io.io_bytes / ? AS writes, io.iops, io.clat_mean_ns / 1e3 AS clat_mean_us, "
        "io.lat_p50_ns / 1e3 AS clat_p50_us, io.lat_p99_ns / 1e3 AS clat_p99_us, "
        "io.lat_p999_ns / 1e3 AS clat_p999_us, j.error "
        "FROM fio_jobs j JOIN fio_io io USING (job_id) WHERE io.direction = 'write' AND list_contains(?, j.source_id)",
        [WRITE_BYTES, [int(i) for i in steps["source_id"]]]).df()
    return steps.merge(fio, on="source_id")

def get_cow_writes(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """One row per fio write of the copy-on-write part (manifest label part=cow): run, step, phase
    (overwrite: every 4 KiB block of a file once, random order; append), snapshots present, repetition
    (the file), source_id, and fio's writes, IOPS and completion latency (clat mean, p50, p99, p99.9, µs)."""
    columns = ["run_id", "step_index", "phase", "snapshots", "repetition", "source_id", "writes", "iops",
               "clat_mean_us", "clat_p50_us", "clat_p99_us", "clat_p999_us", "error"]
    steps = _labelled(con, run_ids, ".fio.json", "cow")
    if steps.empty:
        return pd.DataFrame(columns=columns)
    steps = steps.astype({"snapshots": "int32", "repetition": "int32"})
    return _fio_writes(con, steps).sort_values(["run_id", "step_index"])[columns].reset_index(drop=True)

def get_space(con, run_ids: Iterable[str], part: str) -> pd.DataFrame:
    """One row per space measurement of a collector part ('cow' or 'recovery'): the `btrfs filesystem usage
    -b` file and the `df -B1` file of the same moment, with the usage step's start time and its labels
    (one column each): btrfs's Overall "Used" (data + metadata copies), its data and metadata block
    groups' Used, and df's used, in bytes."""
    columns = ["run_id", "step_index", "started_utc", "usage_source_id", "df_source_id", "used_bytes",
               "data_used_bytes", "metadata_used_bytes", "df_used_bytes"]
    usage = _labelled(con, run_ids, ".btrfs-usage.txt", part)
    df = _labelled(con, run_ids, ".df.txt", part)
    if usage.empty:
        return pd.DataFrame(columns=columns)
    values = con.execute(
        """
        SELECT source_id,
               max(value) FILTER (tool = 'btrfs-usage' AND metric = 'Used') AS used_bytes,
               sum(value) FILTER (tool = 'btrfs-usage' AND metric LIKE 'Data,% Used') AS data_used_bytes,
               sum(value) FILTER (tool = 'btrfs-usage' AND metric LIKE 'Metadata,% Used') AS metadata_used_bytes,
               max(value) FILTER (tool = 'df' AND metric = 'used') AS df_used_bytes
        FROM monitor_series WHERE list_contains(?, source_id) GROUP BY source_id
        """, [[int(i) for i in pd.concat([usage["source_id"], df["source_id"]])]]).df().set_index("source_id")
    # the df step directly follows its usage step (collect_snapshots.space)
    df = df.assign(step_index=df["step_index"] - 1)[["run_id", "step_index", "source_id"]]
    out = usage.merge(df, on=["run_id", "step_index"], suffixes=("", "_df"))
    out["usage_source_id"], out["df_source_id"] = out["source_id"], out["source_id_df"]
    for c in ["used_bytes", "data_used_bytes", "metadata_used_bytes"]:
        out[c] = out["usage_source_id"].map(values[c])
    out["df_used_bytes"] = out["df_source_id"].map(values["df_used_bytes"])
    label_keys = [c for c in usage.columns if c not in local_runs.STEP_COLUMNS + ["started_utc"]]
    return out[columns + label_keys].sort_values(["run_id", "step_index"]).reset_index(drop=True)

def get_cow_growth(space: pd.DataFrame, writes: pd.DataFrame) -> pd.DataFrame:
    """Space each copy-on-write fio write took: per run, the committed btrfs "Used" (data + metadata
    copies), its data block groups' Used, its metadata's, and df's used after the write minus after the
    step before it (the stage's start or the previous write), in bytes, with the snapshots present, the
    phase, the repetition and the bytes fio wrote (`written`: writes x WRITE_BYTES)."""
    columns = ["run_id", "snapshots", "phase", "repetition", "written", "growth", "data_growth", "metadata_growth",
               "df_growth"]
    if space.empty:
        return pd.DataFrame(columns=columns)
    space = space.sort_values(["run_id", "step_index"])
    by_run = space.groupby("run_id")
    out = space.assign(growth=by_run["used_bytes"].diff(), data_growth=by_run["data_used_bytes"].diff(),
                       metadata_growth=by_run["metadata_used_bytes"].diff(), df_growth=by_run["df_used_bytes"].diff())
    out = out[out["after"].isin(COW_PHASES)].rename(columns={"after": "phase"})
    out = out.astype({"snapshots": "int32", "repetition": "int32"}).merge(
        writes[["run_id", "phase", "snapshots", "repetition", "writes"]], on=["run_id", "phase", "snapshots", "repetition"])
    out["written"] = out["writes"] * WRITE_BYTES
    return out[columns].reset_index(drop=True)

def expected_data_growth(phase: str, snapshots: int, written: float) -> float:
    """What btrfs's data block groups must grow by when a write step commits: an append adds what it
    wrote; an overwrite of every block adds a whole new copy while a snapshot still holds the old blocks,
    and nothing when none does (the old blocks are freed as the new ones are written)."""
    return written if phase == "append" or snapshots > 0 else 0.0

def get_cow_space_check(growth: pd.DataFrame) -> pd.DataFrame:
    """The exact check of copy-on-write space (no test: the quantity cannot vary): per run, phase and
    whether snapshots were present, how many writes' data growth equals expected_data_growth to the byte,
    out of how many, the bytes expected, and the range of the metadata growth beside it (bytes)."""
    columns = ["run_id", "phase", "with_snapshots", "writes", "exact", "expected", "metadata_low", "metadata_high"]
    if growth.empty:
        return pd.DataFrame(columns=columns)
    df = growth.assign(with_snapshots=growth["snapshots"] > 0)
    df["expected"] = [expected_data_growth(p, k, w) for p, k, w in zip(df["phase"], df["snapshots"], df["written"])]
    df["exact"] = df["data_growth"] == df["expected"]
    out = df.groupby(["run_id", "phase", "with_snapshots"], sort=False).agg(
        writes=("exact", "size"), exact=("exact", "sum"), expected=("expected", "max"),
        metadata_low=("metadata_growth", "min"), metadata_high=("metadata_growth", "max")).reset_index()
    return out[columns]

def compare_cow_latency(writes: pd.DataFrame) -> tuple[pd.DataFrame, list[Comparison]]:
    """Per run, phase and latency measure (mean and p99 completion latency of each round's fio write), each
    snapshot count over no snapshot, the files written (rounds of the collector run) as the units, a run's
    comparisons one family. Counts are compared one by one: their stages ran in sequence."""
    keys, records = [], []
    for (run_id, phase), group in writes.groupby(["run_id", "phase"], sort=False):
        baseline = group[group["snapshots"] == 0]
        if baseline.empty:
            continue
        for count, sample in group[group["snapshots"] > 0].groupby("snapshots"):
            for measure, column in LATENCY_MEASURES.items():
                keys.append({"run_id": run_id, "phase": phase, "latency": measure, "snapshots": int(count)})
                records.append(evidence.compare(
                    sample[column], baseline[column], quantity=f"{phase} {measure} completion latency", unit="µs",
                    replicate=Replicate.ROUND, family=f"{run_id}: write latency with snapshots / none",
                    label=f"{count} snapshots", baseline_label="no snapshot"))
    records = evidence.decide(records)
    return _keyed(keys, records), records


def chart_cow_latency(comparisons: pd.DataFrame, title: str) -> alt.Chart:
    """Write latency with k snapshots over with none, per phase and latency measure, with intervals (log axis)."""
    data = comparisons.assign(verdict=comparisons["verdict"].astype(str))[
        ["run_id", "phase", "latency", "snapshots", "n", "n_baseline", "ratio", "low", "high", "p_adjusted", "verdict"]]
    base = alt.Chart(data).encode(
        x=alt.X("snapshots:O", title="snapshots present (count)"),
        color=alt.Color("latency:N", title="completion latency", legend=alt.Legend(orient="bottom")),
        xOffset="latency:N")
    rules = base.mark_rule().encode(y=alt.Y("low:Q", title="latency ÷ latency with no snapshot (ratio)",
                                            scale=alt.Scale(type="log")), y2="high:Q")
    points = base.mark_point(size=40).encode(
        y="ratio:Q", fill=alt.Fill("verdict:N", scale=alt.Scale(domain=["decided", "undecided"],
                                                                 range=["black", "white"]),
                                   legend=alt.Legend(orient="bottom", title=None)),
        tooltip=["run_id", "phase", "latency", "snapshots", "n", "n_baseline", alt.Tooltip("ratio:Q", format=".2f"),
                 alt.Tooltip("low:Q", format=".2f"), alt.Tooltip("high:Q", format=".2f"),
                 alt.Tooltip("p_adjusted:Q", format=".2g", title="Holm p"), "verdict"])
    one = alt.Chart(data).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return _by_phase_and_run(alt.layer(one, rules, points, data=data), title, [
        f"fio direct 4 KiB writes on btrfs; {INTERVAL};", "filled: decided (see the methods page)",
        "(source: fio_io, run_labels views)"])


def _by_phase_and_run(layer: alt.LayerChart, title: str, subtitle: list[str]) -> alt.FacetChart:
    """The copy-on-write charts' layout: a panel per write phase (columns) and run (rows)."""
    return layer.properties(width=200, height=220).facet(
        column=alt.Column("phase:N", sort=COW_PHASES, title=None),
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": title, "subtitle": subtitle})

def chart_cow_space(growth: pd.DataFrame, title: str) -> alt.Chart:
    """Data and metadata growth of each write step per snapshot count, beside what the data must grow by."""
    data = growth.assign(
        expected_mib=[expected_data_growth(p, k, w) / MIB for p, k, w in zip(growth["phase"], growth["snapshots"],
                                                                              growth["written"])],
        data_mib=growth["data_growth"] / MIB, metadata_mib=growth["metadata_growth"] / MIB)[
        ["run_id", "phase", "snapshots", "repetition", "expected_mib", "data_mib", "metadata_mib"]]
    long = data.melt(id_vars=["run_id", "phase", "snapshots", "repetition", "expected_mib"],
                     value_vars=["data_mib", "metadata_mib"], var_name="part", value_name="mib")
    long["part"] = long["part"].map({"data_mib": "data", "metadata_mib": "metadata"})
    x = alt.X("snapshots:O", title="snapshots present (count)")
    points = alt.Chart().mark_circle(size=30, opacity=0.6).encode(
        x=x, y=alt.Y("mib:Q", title="growth of btrfs Used per write step (MiB)"),
        color=alt.Color("part:N", title="block groups", legend=alt.Legend(orient="bottom")),
        tooltip=["phase", "snapshots", "repetition", "part", alt.Tooltip("mib:Q", format=".4f"),
                 alt.Tooltip("expected_mib:Q", format=".4f", title="data expected (MiB)")])
    expected = alt.Chart().mark_tick(thickness=2, size=22, color="black").encode(x=x, y="expected_mib:Q")
    return _by_phase_and_run(alt.layer(expected, points, data=long), title, [
        "points: each write step (data, metadata);", "black tick: the data growth copy-on-write requires",
        "(source: monitor_series, run_labels views: btrfs filesystem usage -b)"])

def get_recovery(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """The recovery part, one row per sample: seconds from the start of `btrfs subvolume sync` (started
    right after the last snapshot delete returned) to the sample, whether the sync had returned, space
    (btrfs Used, df used; MiB) and the sample's fio overwrite latency (mean, p50, p99; µs)."""
    columns = ["run_id", "sample", "t_s", "sync_returned", "used_mib", "df_used_mib", "clat_mean_us", "clat_p50_us",
               "clat_p99_us", "source_id", "usage_source_id"]
    space = get_space(con, run_ids, "recovery")
    writes = _labelled(con, run_ids, ".fio.json", "recovery")
    if space.empty or writes.empty:
        return pd.DataFrame(columns=columns)
    sync = get_sync_steps(con, run_ids)[["run_id", "started_utc"]].rename(columns={"started_utc": "sync_started"})
    writes = _fio_writes(con, writes)
    samples = space[space["sample"].notna()].merge(
        writes[["run_id", "sample", "source_id", "clat_mean_us", "clat_p50_us", "clat_p99_us"]], on=["run_id", "sample"])
    samples = samples.merge(sync, on="run_id")
    samples["t_s"] = (samples["started_utc"] - samples["sync_started"]).dt.total_seconds()
    samples["sample"] = samples["sample"].astype(int)
    samples["sync_returned"] = samples["sync_returned"] == "True"
    samples["used_mib"], samples["df_used_mib"] = samples["used_bytes"] / MIB, samples["df_used_bytes"] / MIB
    return samples.sort_values(["run_id", "sample"])[columns].reset_index(drop=True)

def get_sync_steps(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """The `btrfs subvolume sync` of each run's recovery part: when it started and how long it waited."""
    return con.execute(
        "SELECT run_id, step_index, started_utc, seconds, exit_code FROM run_steps "
        "WHERE list_contains(?, run_id) AND name = 'recovery-subvolume-sync' ORDER BY run_id",
        [list(run_ids)]).df()

def get_recovery_summary(con, recovery: pd.DataFrame) -> tuple[pd.DataFrame, list[evidence.Estimate]]:
    """Per run: the snapshots deleted and how long the longest delete took to return, how long `btrfs subvolume
    sync` waited, btrfs Used just before the deletes and at the last sample (MiB freed), the first sample by
    which FREED_SHARE of that was freed, the samples while the cleaner ran (before the sync returned) and
    after, and the highest sample p99 latency on each side (ms); with the ratio of the samples' mean overwrite
    latency while cleaning over after (geometric means): one deletion, whose samples are consecutive moments of it,
    not repetitions, so a description of one run, with no interval and no verdict."""
    out, records = [], []
    run_ids = recovery["run_id"].unique().tolist()
    before = get_space(con, run_ids, "recovery")
    before = before[before["when"] == "before-delete"].set_index("run_id")["used_bytes"] / MIB
    sync = get_sync_steps(con, run_ids).set_index("run_id")
    deletes = con.execute(
        "SELECT run_id, count(*) AS deletes, max(seconds) AS longest_delete_s FROM run_steps "
        "WHERE list_contains(?, run_id) AND starts_with(name, 'delete-cow-snap-') GROUP BY run_id",
        [run_ids]).df().set_index("run_id")
    for run_id, group in recovery.groupby("run_id"):
        freed = before[run_id] - group["used_mib"].iloc[-1]
        reached = group[before[run_id] - group["used_mib"] >= FREED_SHARE * freed]
        during, after = group[~group["sync_returned"]], group[group["sync_returned"]]
        records.append(evidence.described(
            evidence.geometric_mean(during["clat_mean_us"]) / evidence.geometric_mean(after["clat_mean_us"]),
            quantity=f"{run_id}: overwrite mean completion latency while the cleaner ran over after the sync returned",
            unit="x", n=1, replicate=Replicate.RUN, how="one deletion: its samples are moments of it, no repetitions"))
        out.append({"run_id": run_id, "snapshots deleted": int(deletes.loc[run_id, "deletes"]),
                    "longest delete (s)": deletes.loc[run_id, "longest_delete_s"],
                    "sync waited (s)": sync.loc[run_id, "seconds"], "used before delete (MiB)": before[run_id],
                    "used at last sample (MiB)": group["used_mib"].iloc[-1], "freed (MiB)": freed,
                    FREED_BY: reached["t_s"].iloc[0] if len(reached) else np.nan,
                    "samples while cleaning": len(during), "samples after": len(after),
                    "highest p99 while cleaning (ms)": during["clat_p99_us"].max() / 1e3,
                    "highest p99 after (ms)": after["clat_p99_us"].max() / 1e3})
    return pd.DataFrame(out), records


def chart_recovery(recovery: pd.DataFrame, summary: pd.DataFrame, title: str) -> alt.VConcatChart:
    """Space used and overwrite latency per sample after the snapshots were deleted, with the moment
    `btrfs subvolume sync` returned."""
    sync = summary[["run_id", "sync waited (s)"]].rename(columns={"sync waited (s)": "t_s"})
    x = alt.X("t_s:Q", title="seconds since the snapshots were deleted (s)")
    returned = alt.Chart(sync).mark_rule(strokeDash=[4, 3], color="gray").encode(x="t_s:Q")
    color = alt.Color("run_id:N", title=None, legend=alt.Legend(orient="bottom"))
    space = alt.Chart(recovery).mark_line(point=True).encode(
        x=x, y=alt.Y("used_mib:Q", title="btrfs Used (MiB)"), color=color,
        tooltip=["run_id", "sample", alt.Tooltip("t_s:Q", format=".1f"), alt.Tooltip("used_mib:Q", format=",.1f")])
    latency = alt.Chart(recovery).encode(x=x, color=color)
    spread = latency.mark_rule(opacity=0.5).encode(y=alt.Y("clat_p50_us:Q", title="overwrite latency (µs)",
                                                          scale=alt.Scale(type="log")), y2="clat_p99_us:Q")
    means = latency.mark_point(filled=True).encode(
        y="clat_mean_us:Q", tooltip=["run_id", "sample", alt.Tooltip("t_s:Q", format=".1f"),
                                     alt.Tooltip("clat_mean_us:Q", format=",.0f"),
                                     alt.Tooltip("clat_p50_us:Q", format=",.0f"),
                                     alt.Tooltip("clat_p99_us:Q", format=",.0f")])
    return alt.vconcat(
        alt.layer(space, returned).properties(width=460, height=160),
        alt.layer(spread, means, returned).properties(width=460, height=160),
    ).properties(title={
        "text": title,
        "subtitle": ["dashed: sync returned; points: mean latency, bars: p50 to p99 of each sample",
                     "(source: monitor_series, fio_io, run_steps views)"]})

# ---------------------------------------------------------------- what the chapter says

def comparison_table(keyed: pd.DataFrame, keys: list[str]) -> Table:
    """Comparisons as a table narrow enough for a page beside the sidebar: the keys that name each, the ratio
    with its interval, the rounds a side, Holm's p within its family and the verdict (with the rounds a side
    that would decide it)."""
    def interval(r) -> str:
        return f"{r.ratio:.2f}× (no interval)" if pd.isna(r.low) else f"{r.ratio:.2f}× ({r.low:.2f}–{r.high:.2f})"

    def verdict(r) -> str:
        return str(r.verdict) + (f", {int(r.n_to_decide)} a side" if not r.decided and not pd.isna(r.n_to_decide) else "")

    frame = keyed[keys].assign(**{
        f"ratio ({evidence.CONFIDENCE:.0%} interval)": [interval(r) for r in keyed.itertuples()],
        "rounds": [f"{r.n} / {r.n_baseline}" for r in keyed.itertuples()],
        "Holm p": keyed["p_adjusted"], "verdict": [verdict(r) for r in keyed.itertuples()]})
    return Table(frame=frame, formats={"Holm p": ".2g"})


def farthest(records: list[Comparison]) -> Comparison:
    """The comparison whose ratio lies farthest from 1 on the log scale."""
    return max(records, key=lambda c: abs(math.log(c.ratio)))


def cow_space_finding(check: pd.DataFrame) -> tuple[str, list[Count]]:
    """The exact check of copy-on-write space over every run selected, as counts of writes (the runs may
    overwrite files of different sizes)."""
    overwrite = check[check.phase == "overwrite"].groupby("with_snapshots").agg(
        exact=("exact", "sum"), writes=("writes", "sum"), sizes=("expected", lambda e: sorted(set(e))))
    under, without = (evidence.count(int(overwrite.loc[w, "exact"]), int(overwrite.loc[w, "writes"]),
                                     of=Replicate.ROUND, quantity=f"overwrites whose data grew as copy-on-write requires, "
                                                                  f"{'with' if w else 'without'} a snapshot")
                      for w in (True, False))
    sizes = " or ".join(f"{size / MIB:.0f}" for size in overwrite.loc[True, "sizes"])
    return (f"Under a snapshot, overwriting a {sizes} MiB file added exactly {sizes} MiB of data in "
            f"{evidence.phrase(under)}; without one, none in {evidence.phrase(without)}", [under, without])


def cow_latency_finding(records: list[Comparison]) -> str:
    """Mean overwrite latency per snapshot count: the range of the ratios, how many are decided, the farthest."""
    mean = [c for c in records if c.quantity == "overwrite mean completion latency"]
    ratios = [c.ratio for c in mean]
    return (f"Mean overwrite latency with snapshots ran {min(ratios):.2f}× to {max(ratios):.2f}× that with none, "
            f"{sum(c.decided for c in mean)} of {len(mean)} decided; the farthest, {farthest(mean).label}: "
            + evidence.phrase(farthest(mean)))


def metadata_finding(records: list[Comparison]) -> str:
    """The paired metadata comparisons: range, decided, and the farthest."""
    ratios = [c.ratio for c in records]
    far = farthest(records)
    return (f"Snapshots changed no metadata rate decidedly ({sum(c.decided for c in records)} of {len(records)} "
            f"comparisons): the snapshotted subvolume ran {min(ratios):.2f}× to {max(ratios):.2f}× a "
            f"never-snapshotted control's rate; farthest: {far.quantity}, {far.label}")


def first_stage_finding(records: list[Comparison]) -> str:
    """Runs made without a control: every stage against the one that ran first, flagged as order-confounded."""
    ratios = [c.ratio for c in records]
    return (f"**Flag:** without a control subvolume, stages with snapshots ran {min(ratios):.2f}× to "
            f"{max(ratios):.2f}× the stage before the first snapshot, which ran first: order and snapshots are "
            f"confounded ({sum(c.decided for c in records)} of {len(records)} decided)")


def drift_finding(records: list[Comparison]) -> str:
    """The control's drift over the run: why each stage is paired with its concurrent control."""
    ratios = [c.ratio for c in records]
    far = farthest(records)
    return (f"By the end of the run the never-snapshotted control ran {min(ratios):.2f}× to {max(ratios):.2f}× its "
            f"rate beside the first stage, {sum(c.decided for c in records)} of {len(records)} decided; the farthest, "
            f"{far.quantity}: {evidence.phrase(far)}. A baseline pooled over the run would take such drift for a "
            "snapshot effect")


def recovery_finding(summary: pd.DataFrame, record: evidence.Estimate) -> str:
    """After the snapshots were deleted: space freed, when, and overwrite latency while the cleaner ran, as one
    deletion shows it."""
    r = summary.iloc[0]
    return (f"After deleting {r['snapshots deleted']} snapshots, {r['freed (MiB)']:,.0f} MiB came back by "
            f"{r[FREED_BY]:.0f} s; overwrite latency while the cleaner ran was {record.value:.2f}× that after it, "
            "in one deletion (its samples are moments of it, not repetitions: no interval, no verdict)")


def _metadata(con, report: Report, run_ids: list[str]) -> set[int]:
    """The metadata part into the report: rates, the paired comparisons, the control's drift, the steps'
    durations. Returns the source ids of the files it read (none: the part is not in the runs)."""
    rates = get_rates(con, run_ids)
    if rates.empty:
        return set()
    compared, records = compare_stages(rates)
    with_snapshots = [c for c in records if "data with snapshots" in c.family]
    first_stage = [c for c in records if "which ran first" in c.family]
    report.evidence += records
    report.findings += ([Finding(text=metadata_finding(with_snapshots), target="tab-snapshots-local",
                                 evidence=tuple(with_snapshots))] if with_snapshots else []) + (
        [Finding(text=first_stage_finding(first_stage), target="tab-snapshots-local", evidence=tuple(first_stage))]
        if first_stage else [])
    drift_keyed, drift = compare_control_drift(rates)
    report.evidence += drift
    if drift:
        report.findings.append(Finding(text=drift_finding(drift), target="fig-snapshots-drift", evidence=tuple(drift)))
        ratios = [c.ratio for c in drift]
        report.figures["fig-snapshots-drift"] = chart_drift(
            get_control_drift(rates), f"The control ran {min(ratios):.2f}× to {max(ratios):.2f}× its first stage's rate "
                                      "by the end")
        report.tables["tab-snapshots-drift"] = comparison_table(drift_keyed.rename(columns={"run_id": "run"}),
                                                                ["run", "operation"])
    durations = get_step_durations(rates)
    report.values |= {
        "has_drift": bool(drift),
        "rates": len(rates), "rate_errors": int((rates["error"] != 0).sum()),
        "fio_runtime_ms_low": int(rates["runtime_ms"].min()), "fio_runtime_ms_high": int(rates["runtime_ms"].max()),
        "fio_ms_share_pct": 100 / float(rates["runtime_ms"].min()),
        "step_s_low": float(rates["step_s"].min()), "step_s_high": float(rates["step_s"].max()),
        "others_pct_low": float(rates["others_pct"].min()), "others_pct_high": float(rates["others_pct"].max()),
        "cv_median_pct": float(durations["median CV of rounds (%)"].median())}
    report.figures["fig-snapshots-rates"] = chart_rates(rates)
    report.figures["fig-snapshots-local-ratios"] = chart_comparison(
        compared, f"{sum(c.decided for c in records)} of {len(records)} stage ratios decided")
    report.tables["tab-snapshots-local"] = comparison_table(compared.rename(columns={"run_id": "run"}),
                                                            ["run", "operation", "stage"])
    report.tables["tab-snapshots-durations"] = Table(frame=pd.DataFrame({
        "run": durations["run_id"], "operation": durations["operation"], "steps": durations["steps"],
        "fio runtime (ms)": [f"{a:.0f}–{b:.0f}" for a, b in zip(durations.runtime_low, durations.runtime_high)],
        "step (s)": [f"{a:.2f}–{b:.2f}" for a, b in zip(durations.step_low, durations.step_high)],
        "others' CPU (%)": [f"{a:.0f}–{b:.0f}" for a, b in zip(durations.others_low, durations.others_high)],
        "median CV of rounds (%)": durations["median CV of rounds (%)"]}), formats={"median CV of rounds (%)": ".1f"})
    steps = get_snapshot_steps(con, run_ids)
    longest = {action: 1e3 * float(steps.loc[steps.step.str.startswith(f"{action}-"), "seconds"].max())
               for action in ("create", "delete")}
    report.values |= {"snapshot_create_ms_high": longest["create"], "snapshot_delete_ms_high": longest["delete"]}
    report.tables["tab-snapshots-steps"] = Table(frame=steps.rename(columns={
        "run_id": "run", "step_index": "step number", "seconds": "time to return (s)", "exit_code": "exit code"}),
        formats={"time to return (s)": ".3f"})
    return set(rates["source_id"])


def _cow(con, report: Report, run_ids: list[str]) -> set[int]:
    """The copy-on-write part into the report: the exact space check and the write latency. Returns the source
    ids of the files it read (none: the part is not in the runs)."""
    writes = get_cow_writes(con, run_ids)
    if writes.empty:
        return set()
    space = get_space(con, run_ids, "cow")
    growth = get_cow_growth(space, writes)
    check = get_cow_space_check(growth)
    text, counts = cow_space_finding(check)
    latency, records = compare_cow_latency(writes)
    report.evidence += [*counts, *records]
    report.findings += [Finding(text=text, target="tab-snapshots-cow-space", evidence=tuple(counts)),
                        Finding(text=cow_latency_finding(records), target="fig-snapshots-cow-latency",
                                evidence=tuple(records))]
    under = counts[0]
    report.values |= {"cow_writes": len(writes), "cow_errors": int((writes["error"] != 0).sum())}
    report.figures["fig-snapshots-cow-space"] = chart_cow_space(
        growth, f"Under a snapshot an overwrite adds exactly its "
                f"{check.loc[check.phase == 'overwrite', 'expected'].max() / MIB:.0f} MiB ({under.k} of {under.n} writes)")
    report.tables["tab-snapshots-cow-space"] = Table(
        frame=pd.DataFrame({
            "run": check.run_id, "phase": check.phase, "snapshots": check.with_snapshots.map({True: "yes", False: "no"}),
            "writes": check.writes, "exact": check.exact, "data expected (MiB)": check.expected / MIB,
            "metadata growth (KiB)": [f"{a / 1024:,.0f} to {b / 1024:,.0f}"
                                      for a, b in zip(check.metadata_low, check.metadata_high)]}),
        formats={"data expected (MiB)": ".0f"})
    report.figures["fig-snapshots-cow-latency"] = chart_cow_latency(
        latency, f"{sum(c.decided for c in records)} of {len(records)} latency ratios decided")
    report.tables["tab-snapshots-cow-latency"] = comparison_table(
        latency.assign(measure=latency["phase"] + " " + latency["latency"]).rename(columns={"run_id": "run"}),
        ["run", "measure", "snapshots"])
    return set(writes["source_id"]) | set(space["usage_source_id"]) | set(space["df_source_id"])


def _recovery(con, report: Report, run_ids: list[str]) -> set[int]:
    """The recovery part into the report: space freed and latency while the cleaner ran. Returns the source ids
    of the files it read (none: the part is not in the runs)."""
    recovery = get_recovery(con, run_ids)
    if recovery.empty:
        return set()
    summary, records = get_recovery_summary(con, recovery)
    report.evidence += records
    report.findings.append(Finding(text=recovery_finding(summary, records[0]), target="fig-snapshots-recovery",
                                   evidence=(records[0],)))
    first = summary.iloc[0]
    report.figures["fig-snapshots-recovery"] = chart_recovery(
        recovery, summary, f"{first['freed (MiB)']:,.0f} MiB back {first[FREED_BY]:.0f} s after the deletes; "
                           f"sync returned at {first['sync waited (s)']:.0f} s")
    formats = {"snapshots deleted": ".0f", "longest delete (s)": ".3f", "sync waited (s)": ".1f",
               "used before delete (MiB)": ",.1f", "used at last sample (MiB)": ",.1f", "freed (MiB)": ",.1f",
               FREED_BY: ".1f", "samples while cleaning": ".0f", "samples after": ".0f",
               "highest p99 while cleaning (ms)": ",.1f", "highest p99 after (ms)": ",.1f"}
    shown = pd.DataFrame({"measure": [*formats, "latency while cleaning / after"]} | {
        run: [*(format(row[m], formats[m]) for m in formats), evidence.phrase(record)]
        for (run, row), record in zip(summary.set_index("run_id").iterrows(), records)})
    report.tables["tab-snapshots-recovery"] = Table(frame=shown)
    space = get_space(con, run_ids, "recovery")
    return set(recovery["source_id"]) | set(space["usage_source_id"]) | set(space["df_source_id"])


def report(con, *, run_folders: Iterable[str] = ()) -> Report:
    """The chapter: the talk's table (published figures: the summary rows' definitions and the sign pattern
    with its order), then the local runs selected (select_runs: by default the current run of each part) part
    by part. Findings: the local results first (copy-on-write space, the exact check, leads), then the
    limits."""
    out = Report()
    seed = get_seed_table()
    source = seed_source(seed)
    configuration = get_seed_configuration()
    per_definition, reproducing = get_summary_checks(seed)
    ratios = get_seed_ratios(seed)
    signs, sign_counts = get_seed_signs(ratios)
    states = seed_wide(seed).drop(index=list(SUMMARY_ROWS))
    baseline_runs = int((states.index == states.index[0]).sum())
    all_below = int((signs["below 'No snapshot'"] == signs["states"]).sum())
    out.evidence += sign_counts
    out.values |= {
        "configuration_text": Prose(configuration_text(configuration, seed)), "seed_source": source,
        "configuration_source": seed_source(configuration), "state_rows": len(states), "snapshot_rows": len(states) - 1,
        "seed_baseline_runs": baseline_runs,
        "seed_baseline_first": bool(states.index[0] == "No snapshot"),
        "seed_order_text": Prose(seed_order_text(signs, baseline_runs))}
    out.tables |= {
        "tab-snapshots-configuration": Table(frame=configuration[["table", "row", "column", "printed", "unit"]]),
        "tab-snapshots-seed": Table(frame=seed_printed(seed)),
        "tab-snapshots-definitions": Table(frame=per_definition.rename(columns={
            "rounds_to_printed": "rounds to printed", "reached_within_input_rounding": "reached within rounding"})),
        "tab-snapshots-reproducing": Table(
            frame=reproducing[["row", "column", "definition", "printed", "recomputed", "rounds_to_printed"]].assign(
                column=lambda d: d["column"].map(short_column)).rename(columns={"rounds_to_printed": "rounds to printed"}),
            formats={"printed": ".2f", "recomputed": ".4f"}),
        "tab-snapshots-seed-signs": Table(frame=signs, formats={"lowest ratio": ".3f", "highest ratio": ".3f"})}
    out.findings.append(Finding(text=seed_finding(signs, sign_counts), target="fig-snapshots-seed-ratios",
                                evidence=tuple(sign_counts)))
    out.figures["fig-snapshots-seed-ratios"] = chart_seed_ratios(
        ratios, f"{all_below} of {len(signs)} columns: every snapshot state below 'No snapshot'", source)

    runs, status = select_runs(con, run_folders)
    cow_ids, recovery_ids, metadata_ids = (local_runs.selected_ids(status, p) for p in ("cow", "recovery", "metadata"))
    read = {"has_cow": _cow(con, out, cow_ids), "has_recovery": _recovery(con, out, recovery_ids),
            "has_local": _metadata(con, out, metadata_ids)}
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
    out.tables["tab-snapshots-runs"] = Table(frame=pd.DataFrame({
        "run": runs["run_folder"], "kernel": runs["kernel"],
        "load at start (1 / 5 / 15 min)": [f"{a:.2f} / {b:.2f} / {c:.2f}" for a, b, c in
                                           zip(runs.load_avg_1m, runs.load_avg_5m, runs.load_avg_15m)]}).merge(
        facts.rename(columns={"run_id": "run"}), how="left"))
    out.tables["tab-snapshots-status"] = Table(frame=local_runs.status_table(status)[
        ["experiment", "run", "started (UTC)", "design", "files", "status", "read here"]])
    source_ids = set(runs["manifest_source_id"]).union(*read.values())
    out.values["files_link"] = present.files_link(present.sources(con, source_ids).path, "The files of the local runs")
    return out
