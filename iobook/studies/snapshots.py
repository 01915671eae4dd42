"""Snapshot overhead (seed 003, LuxProvide's MeluXina talk): the talk's mdtest table with every state
compared with "No snapshot" under an interval and a test, which definitions reproduce its two summary
rows, and the same method run locally (scripts/collect_snapshots.py: btrfs snapshots, fio's file
metadata engines, repetitions per stage) with bootstrap intervals and Welch's t-tests."""
from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd
from scipy import stats as sps

from .. import published, stats
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


def seed_source(table: pd.DataFrame) -> str:
    """The talk, slide headings and CSV a published table quotes, for captions."""
    headings = [f'"{s.partition(": ")[2]}"' for s in sorted(table["source"].unique())]
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


def _difference_interval(difference: float, se: float, df: int, confidence: float) -> tuple[float, float, float]:
    """Interval and two-sided p-value of a t-distributed difference with standard error se."""
    half = sps.t.ppf(0.5 + confidence / 2, df) * se
    return difference - half, difference + half, float(2 * sps.t.sf(abs(difference / se), df))


def get_seed_pooled(seed: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per column, the slide's "Diff with/without" recomputed (mean of the seven snapshot rows over the
    "No snapshot" row) with two intervals and tests for the difference, since the slide has one value
    per state: (a) the seven snapshot rows taken as repetitions, the no-snapshot value as one more
    run with the same noise (t = (mean - x0) / (sd * sqrt(1 + 1/7)), 6 degrees of freedom; the
    prediction test of stats.value_against_spread); (b) the slide's own "Std. deviation" as the noise
    of one run (sample std of all eight rows, 7 degrees of freedom; it contains the drop itself, so
    this test is conservative). Ratios' intervals are the difference's over the no-snapshot value."""
    wide = seed_wide(seed)
    states = wide.drop(index=list(SUMMARY_ROWS))
    out = []
    for column in states.columns:
        x = states[column].to_numpy(dtype=float)
        x0, snaps = x[0], x[1:]
        spread = stats.value_against_spread(x0, snaps)
        difference = spread.mean - x0
        n = len(snaps)
        low_a, high_a, p_a = _difference_interval(difference, spread.sd * np.sqrt(1 + 1 / n), n - 1, confidence)
        printed_sd = float(wide.loc["Std. deviation", column])
        low_b, high_b, p_b = _difference_interval(difference, printed_sd * np.sqrt(1 + 1 / n), n, confidence)
        out.append({"column": column, "printed Diff with/without (%)": float(wide.loc["Diff with/without", column]),
                    "with/without (%)": 100 * spread.mean / x0,
                    "low (snapshot rows' spread, %)": 100 * (1 + low_a / x0),
                    "high (snapshot rows' spread, %)": 100 * (1 + high_a / x0), "p (snapshot rows' spread)": p_a,
                    "low (printed std, %)": 100 * (1 + low_b / x0), "high (printed std, %)": 100 * (1 + high_b / x0),
                    "p (printed std)": p_b, "snapshot rows' sd": spread.sd, "printed std": printed_sd})
    return pd.DataFrame(out)


def get_seed_states(seed: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Each snapshot state against "No snapshot", per column: the ratio of the two printed values, with an
    interval and a t-test that take the slide's "Std. deviation" as the noise of each single
    value (difference se = std * sqrt(2), 7 degrees of freedom). One value per state is all the slide
    gives, so this is the only per-state interval it allows; the std contains the snapshot effect,
    which makes the interval wide rather than narrow."""
    wide = seed_wide(seed)
    states = wide.drop(index=list(SUMMARY_ROWS))
    baseline = states.index[0]
    out = []
    for column in states.columns:
        x0, sd = float(states.loc[baseline, column]), float(wide.loc["Std. deviation", column])
        for state, x in states[column].iloc[1:].items():
            low, high, p = _difference_interval(float(x) - x0, sd * np.sqrt(2), len(states) - 1, confidence)
            out.append({"column": column, "state": state, "ratio": x / x0, "low": 1 + low / x0,
                        "high": 1 + high / x0, "p": p})
    return pd.DataFrame(out)


def chart_seed_states(states: pd.DataFrame, source: str, confidence: float) -> alt.Chart:
    """Ratio of every snapshot state to "No snapshot" per mdtest column, with the interval from the
    slide's own standard deviation."""
    order = states.drop_duplicates("column")["column"].tolist()
    worst = states.loc[states["ratio"].idxmin()]
    base = alt.Chart(states).encode(
        y=alt.Y("column:N", sort=order, title=None),
        yOffset=alt.YOffset("state:N", sort=states["state"].unique().tolist()),
        color=alt.Color("state:N", sort=states["state"].unique().tolist(), title="state",
                        legend=alt.Legend(orient="bottom", columns=4)))
    rules = base.mark_rule().encode(x=alt.X("low:Q", title='rate / rate with "No snapshot" (ratio)',
                                            scale=alt.Scale(zero=False)), x2="high:Q")
    points = base.mark_point(filled=True, size=30).encode(
        x="ratio:Q", tooltip=["column", "state", alt.Tooltip("ratio:Q", format=".3f"),
                              alt.Tooltip("low:Q", format=".3f"), alt.Tooltip("high:Q", format=".3f"),
                              alt.Tooltip("p:Q", format=".3g")])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, rules, points, data=states).properties(width=300, height=420, title={
        "text": f"Seed 003: the lowest state is {worst['column']} at {worst['ratio']:.2f}x, "
                f"{confidence:.0%} intervals from the slide's std",
        "subtitle": textwrap.wrap(f"source: {source}", 90)})


def select_runs(con, run_folders: Iterable[str] | None) -> pd.DataFrame:
    """The snapshot collector runs named by their run folder (exact; all when empty); an unknown name
    raises nb.UnknownSelection naming the nearest."""
    return local_runs.select_runs(con, STUDY, run_folders)


def get_rates(con, run_ids: Iterable[str]) -> pd.DataFrame:
    """One row per fio result of the runs: its labels (operation = fio phase create/stat/delete, stage =
    manifest label `step`: 'none', the number of snapshots taken, or 'rotation-k'; snapshots present;
    repetition), the files it handled (files_per_job x jobs), fio's group-reported rate (files/s over
    both jobs: all files over the longer job's run time) and run time, and its source_id."""
    columns = ["run_id", "step_index", "operation", "stage", "snapshots", "repetition", "files", "source_id",
               "fio_engine", "numjobs", "error", "files_per_s", "runtime_ms"]
    steps = local_runs.get_step_labels(con, run_ids)
    if "phase" in steps:  # the copy-on-write and recovery parts' fio outputs have other phases
        steps = steps[steps["phase"].isin(OPERATIONS)]
    if steps.empty:
        return pd.DataFrame(columns=columns)
    labels = pd.DataFrame({
        "run_id": steps["run_id"], "step_index": steps["step_index"], "operation": steps["phase"],
        "stage": steps["step_label"], "snapshots": steps["snapshots"].astype("int32"),
        "repetition": steps["repetition"].astype("int32"),
        "files": steps["files_per_job"].astype("int32") * steps["jobs"].astype("int32"),
        "source_id": steps["source_id"]})
    fio = con.execute(
        "SELECT j.source_id, j.jobname AS fio_engine, j.numjobs, j.error, io.iops AS files_per_s, io.runtime_ms "
        "FROM fio_jobs j JOIN fio_io io USING (job_id) WHERE list_contains(?, j.source_id)",
        [[int(i) for i in labels["source_id"]]]).df()
    return labels.merge(fio, on="source_id").sort_values(["run_id", "step_index"], kind="stable")[columns] \
        .reset_index(drop=True)


def stage_order(rates: pd.DataFrame) -> list[str]:
    """Stages in the order the collector ran them."""
    return rates.groupby("stage")["step_index"].min().sort_values().index.tolist()


def get_comparisons(rates: pd.DataFrame, baseline_stage: str, confidence: float) -> pd.DataFrame:
    """Per run, operation and stage: the stage's mean rate over the baseline stage's, with a bootstrap
    percentile interval and Welch's t-test (stats.ratio_of_means), plus one row 'all but baseline'
    pooling every other stage (the local counterpart of the slide's "Diff with/without"). A stage is
    'distinguishable' when the interval excludes 1 and Welch's p < 1 - confidence, 'within noise' when
    neither, 'unclear (one test)' when only one of the two says so. Runs without the baseline stage
    are left out."""
    alpha = 1 - confidence
    order = stage_order(rates)
    out = []
    for (run_id, operation), group in rates.groupby(["run_id", "operation"], sort=True):
        baseline = group.loc[group["stage"] == baseline_stage, "files_per_s"]
        if baseline.empty:
            continue
        others = [(s, group.loc[group["stage"] == s, "files_per_s"]) for s in order
                  if s != baseline_stage and (group["stage"] == s).any()]
        for stage, sample in others + [("all but baseline", group.loc[group["stage"] != baseline_stage,
                                                                       "files_per_s"])]:
            r = stats.ratio_of_means(sample, baseline, confidence=confidence)
            out.append({"run_id": run_id, "operation": operation, "stage": stage, "repetitions": len(sample),
                        "baseline repetitions": len(baseline), "mean (files/s)": sample.mean(), "ratio": r.ratio,
                        "low": r.low, "high": r.high, "p (Welch)": r.p_welch, "interval excludes 1": not r.low <= 1 <= r.high,
                        "p below alpha": r.p_welch < alpha})
    df = pd.DataFrame(out, columns=["run_id", "operation", "stage", "repetitions", "baseline repetitions",
                                    "mean (files/s)", "ratio", "low", "high", "p (Welch)", "interval excludes 1",
                                    "p below alpha"])
    both = df["interval excludes 1"] & df["p below alpha"]
    df["verdict"] = np.where(both, "distinguishable",
                             np.where(df["interval excludes 1"] == df["p below alpha"], "within noise",
                                      "unclear (one test)"))
    df["operation"] = pd.Categorical(df["operation"], OPERATIONS, ordered=True)
    return df.sort_values(["run_id", "operation"], kind="stable").reset_index(drop=True).astype({"operation": str})


def get_seed_points(seed: pd.DataFrame, seed_rows: Mapping[str, str], seed_columns: Mapping[str, str],
                    baseline_stage: str) -> pd.DataFrame:
    """The slide's file columns as ratios to its row mapped to the local baseline stage, renamed to the
    local stages (seed_rows: slide row -> stage) and operations (seed_columns: slide column -> fio
    operation); empty when no slide row maps to the baseline stage."""
    row_of = {stage: row for row, stage in seed_rows.items()}
    if baseline_stage not in row_of:
        return pd.DataFrame(columns=["stage", "operation", "ratio"])
    values = seed_wide(seed).loc[list(seed_rows), list(seed_columns)]
    ratios = (values / values.loc[row_of[baseline_stage]]).drop(index=row_of[baseline_stage])
    return (ratios.rename(columns=dict(seed_columns)).rename(index=dict(seed_rows))
            .reset_index(names="stage").melt(id_vars="stage", var_name="operation", value_name="ratio"))


def chart_rates(rates: pd.DataFrame) -> alt.Chart:
    """Every repetition's rate per stage, the stage means as a line, one panel per operation and run."""
    order = stage_order(rates)
    base = alt.Chart(rates).encode(x=alt.X("stage:N", sort=order, title="stage (snapshots taken, then rotations)"))
    points = base.mark_circle(size=40, opacity=0.6).encode(
        y=alt.Y("files_per_s:Q", title="files per second (files/s)"),
        color=alt.Color("operation:N", sort=OPERATIONS, legend=None),
        tooltip=["run_id", "operation", "stage", "snapshots", "repetition",
                 alt.Tooltip("files_per_s:Q", format=",.0f"), "runtime_ms"])
    means = base.mark_line(point=True, color="black").encode(y="mean(files_per_s):Q")
    return alt.layer(points, means).properties(width=140, height=200).facet(
        column=alt.Column("operation:N", sort=OPERATIONS, title=None),
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": "fio file metadata rate per stage on btrfs",
                        "subtitle": "points: repetitions; line: stage mean (source: fio_io, run_labels views)"})


def chart_comparison(comparisons: pd.DataFrame, seed_points: pd.DataFrame, baseline_stage: str,
                     confidence: float, source: str) -> alt.Chart:
    """Local ratios to the baseline stage with their bootstrap intervals beside the slide's file columns."""
    per_stage = comparisons[comparisons["stage"] != "all but baseline"]
    both = pd.concat([
        per_stage.assign(measured_on=per_stage["run_id"] + " (btrfs, fio)")[
            ["measured_on", "operation", "stage", "ratio", "low", "high", "verdict"]],
        seed_points.assign(measured_on="seed 003 (Lustre, mdtest)", verdict="seed: one value per state"),
    ], ignore_index=True)
    order = both["stage"].drop_duplicates().tolist()
    distinguishable = int((per_stage["verdict"] == "distinguishable").sum())
    base = alt.Chart(both).encode(
        x=alt.X("stage:N", sort=order, title="stage"),
        color=alt.Color("measured_on:N", title=None, legend=alt.Legend(orient="bottom", columns=1)),
        xOffset="measured_on:N")
    intervals = base.mark_rule().encode(y=alt.Y("low:Q", title=f"rate / rate at '{baseline_stage}' (ratio)"),
                                        y2="high:Q")
    centers = base.mark_point(filled=True, size=40).encode(
        y="ratio:Q", shape=alt.Shape("verdict:N", title=None, legend=alt.Legend(orient="bottom", columns=1)),
        tooltip=["measured_on", "operation", "stage", alt.Tooltip("ratio:Q", format=".3f"),
                 alt.Tooltip("low:Q", format=".3f"), alt.Tooltip("high:Q", format=".3f"), "verdict"])
    one = alt.Chart(both).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return alt.layer(one, intervals, centers).properties(width=140, height=220).facet(
        column=alt.Column("operation:N", sort=OPERATIONS, title=None)
    ).properties(title={
        "text": f"{distinguishable} of {len(per_stage)} local stage ratios are distinguishable from noise",
        "subtitle": [f"{confidence:.0%} bootstrap intervals (source: fio_io, run_labels views);",
                     *textwrap.wrap(f"seed: {source}", 90)]})


def chart_run_order(rates: pd.DataFrame) -> alt.Chart:
    """Rates in the order fio ran them: a drift over the run would look like a stage effect."""
    return alt.Chart(rates).mark_line(point=True).encode(
        x=alt.X("step_index:Q", title="manifest step (run order, step number)"),
        y=alt.Y("files_per_s:Q", title="files per second (files/s)"),
        color=alt.Color("operation:N", sort=OPERATIONS, legend=alt.Legend(orient="bottom")),
        tooltip=["run_id", "operation", "stage", "repetition", alt.Tooltip("files_per_s:Q", format=",.0f")],
    ).properties(width=460, height=200).facet(
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))).properties(
        title={"text": "fio file metadata rate in run order",
               "subtitle": "source: fio_io, run_labels views"})


def get_noise(rates: pd.DataFrame) -> pd.DataFrame:
    """Per run and operation: the coefficient of variation (sd / mean, %) of the repetitions within a
    stage, its lowest, median and highest over the stages, and the repetitions per stage."""
    per_stage = rates.groupby(["run_id", "operation", "stage"])["files_per_s"].agg(["mean", "std", "size"])
    per_stage["cv"] = 100 * per_stage["std"] / per_stage["mean"]
    out = per_stage.groupby(["run_id", "operation"]).agg(
        **{"repetitions per stage": ("size", "max"), "lowest CV (%)": ("cv", "min"),
           "median CV (%)": ("cv", "median"), "highest CV (%)": ("cv", "max")}).reset_index()
    out["operation"] = pd.Categorical(out["operation"], OPERATIONS, ordered=True)
    return out.sort_values(["run_id", "operation"]).reset_index(drop=True).astype({"operation": str})


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

COW_PHASES = ["overwrite", "append"]  # fio random overwrite of every block, then an append, per repetition
MIB = 1 << 20


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
        "SELECT j.source_id, io.io_bytes / 4096 AS writes, io.iops, io.clat_mean_ns / 1e3 AS clat_mean_us, "
        "io.lat_p50_ns / 1e3 AS clat_p50_us, io.lat_p99_ns / 1e3 AS clat_p99_us, "
        "io.lat_p999_ns / 1e3 AS clat_p999_us, j.error "
        "FROM fio_jobs j JOIN fio_io io USING (job_id) WHERE io.direction = 'write' AND list_contains(?, j.source_id)",
        [[int(i) for i in steps["source_id"]]]).df()
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


def get_cow_growth(space: pd.DataFrame) -> pd.DataFrame:
    """Space each copy-on-write fio write took: per run, the committed btrfs "Used" and df used after the
    write minus after the step before it (the stage's start or the previous write), in MiB, with the
    snapshots present, the phase and the repetition."""
    columns = ["run_id", "snapshots", "phase", "repetition", "growth_mib", "df_growth_mib"]
    if space.empty:
        return pd.DataFrame(columns=columns)
    space = space.sort_values(["run_id", "step_index"])
    by_run = space.groupby("run_id")
    out = space.assign(growth_mib=by_run["used_bytes"].diff() / MIB, df_growth_mib=by_run["df_used_bytes"].diff() / MIB)
    out = out[out["after"].isin(COW_PHASES)].rename(columns={"after": "phase"})
    return out.astype({"snapshots": "int32", "repetition": "int32"})[columns].reset_index(drop=True)


def _verdict(excludes: pd.Series, significant: pd.Series) -> np.ndarray:
    return np.where(excludes & significant, "distinguishable",
                    np.where(excludes == significant, "within noise", "unclear (one test)"))


def get_cow_latency_comparisons(writes: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per run, phase and latency measure (mean and p99 completion latency of each repetition's fio run):
    each snapshot count's mean over the no-snapshot stage's, with a bootstrap interval and Welch's p
    (stats.ratio_of_means), and one row 'with snapshots' pooling every stage with one or more."""
    out = []
    for (run_id, phase), group in writes.groupby(["run_id", "phase"], sort=False):
        baseline = group[group["snapshots"] == 0]
        if baseline.empty:
            continue
        stages = [(str(k), g) for k, g in group[group["snapshots"] > 0].groupby("snapshots")]
        for label, sample in stages + [("with snapshots", group[group["snapshots"] > 0])]:
            for measure, column in (("mean", "clat_mean_us"), ("p99", "clat_p99_us")):
                r = stats.ratio_of_means(sample[column], baseline[column], confidence=confidence)
                out.append({"run_id": run_id, "phase": phase, "latency": measure, "snapshots": label,
                            "repetitions": len(sample), "baseline repetitions": len(baseline),
                            "mean (µs)": sample[column].mean(), "baseline mean (µs)": baseline[column].mean(),
                            "ratio": r.ratio, "low": r.low, "high": r.high, "p (Welch)": r.p_welch})
    df = pd.DataFrame(out, columns=["run_id", "phase", "latency", "snapshots", "repetitions", "baseline repetitions",
                                    "mean (µs)", "baseline mean (µs)", "ratio", "low", "high", "p (Welch)"])
    df["verdict"] = _verdict(~((df["low"] <= 1) & (1 <= df["high"])), df["p (Welch)"] < 1 - confidence)
    return df


def get_cow_space_comparisons(growth: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per run and phase: the space one write step took with snapshots present (all stages with one or
    more, pooled, and each count) minus with none, in MiB, with Welch's t interval and p."""
    out = []
    for (run_id, phase), group in growth.groupby(["run_id", "phase"], sort=False):
        baseline = group.loc[group["snapshots"] == 0, "growth_mib"]
        if len(baseline) < 2:
            continue
        stages = [(str(k), g["growth_mib"]) for k, g in group[group["snapshots"] > 0].groupby("snapshots")]
        for label, sample in stages + [("with snapshots", group.loc[group["snapshots"] > 0, "growth_mib"])]:
            difference, low, high, p = stats.welch_difference(sample, baseline, confidence)
            out.append({"run_id": run_id, "phase": phase, "snapshots": label, "repetitions": len(sample),
                        "baseline repetitions": len(baseline), "growth (MiB)": sample.mean(),
                        "baseline growth (MiB)": baseline.mean(), "difference (MiB)": difference, "low": low,
                        "high": high, "p (Welch)": p})
    df = pd.DataFrame(out, columns=["run_id", "phase", "snapshots", "repetitions", "baseline repetitions",
                                    "growth (MiB)", "baseline growth (MiB)", "difference (MiB)", "low", "high",
                                    "p (Welch)"])
    df["verdict"] = _verdict(~((df["low"] <= 0) & (0 <= df["high"])), df["p (Welch)"] < 1 - confidence)
    return df


def chart_cow_latency(comparisons: pd.DataFrame, confidence: float) -> alt.Chart:
    """Write latency with k snapshots over with none, per phase and latency measure, with intervals."""
    per_stage = comparisons[comparisons["snapshots"] != "with snapshots"]
    pooled = comparisons[(comparisons["snapshots"] == "with snapshots") & (comparisons["latency"] == "mean")]
    title = "; ".join(f"{r['phase']} mean latency {r['ratio']:.2f}x with snapshots" for _, r in pooled.iterrows())
    base = alt.Chart(per_stage).encode(
        x=alt.X("snapshots:O", title="snapshots present (count)"),
        color=alt.Color("latency:N", title="completion latency", legend=alt.Legend(orient="bottom")),
        xOffset="latency:N")
    rules = base.mark_rule().encode(y=alt.Y("low:Q", title="latency / latency with no snapshot (ratio)",
                                            scale=alt.Scale(zero=False)), y2="high:Q")
    points = base.mark_point(filled=True, size=40).encode(
        y="ratio:Q", tooltip=["run_id", "phase", "latency", "snapshots", alt.Tooltip("ratio:Q", format=".2f"),
                              alt.Tooltip("low:Q", format=".2f"), alt.Tooltip("high:Q", format=".2f"),
                              alt.Tooltip("p (Welch):Q", format=".2g"), "verdict"])
    one = alt.Chart(per_stage).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return _by_phase_and_run(alt.layer(one, rules, points, data=per_stage), title, [
        f"fio direct 4 KiB writes on btrfs; {confidence:.0%} bootstrap intervals over the repetitions",
        "(source: fio_io, run_labels views)"])


def _by_phase_and_run(layer: alt.LayerChart, title: str, subtitle: list[str]) -> alt.FacetChart:
    """The copy-on-write charts' layout: a panel per write phase (columns) and run (rows)."""
    return layer.properties(width=200, height=220).facet(
        column=alt.Column("phase:N", sort=COW_PHASES, title=None),
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": title, "subtitle": subtitle})


def chart_cow_space(growth: pd.DataFrame, comparisons: pd.DataFrame, confidence: float) -> alt.Chart:
    """Space each write step took per snapshot count: the repetitions and the mean with its Welch interval."""
    stage = stats.intervals(growth, ["run_id", "phase", "snapshots"], {"growth_mib": "space"}, confidence)
    # one data set for the facet: each repetition's row carries its stage's mean and interval
    data = growth.merge(stage[["run_id", "phase", "snapshots", "mean", "low", "high"]],
                        on=["run_id", "phase", "snapshots"])
    pooled = comparisons[comparisons["snapshots"] == "with snapshots"]
    title = "; ".join(f"{r['phase']} takes {r['difference (MiB)']:+.2f} MiB more with snapshots"
                      for _, r in pooled.iterrows())
    x = alt.X("snapshots:O", title="snapshots present (count)")
    base = alt.Chart(data)
    points = base.mark_circle(size=30, opacity=0.5, color="gray").encode(
        x=x, y=alt.Y("growth_mib:Q", title="space taken by one write step (MiB)"),
        tooltip=["run_id", "phase", "snapshots", "repetition", alt.Tooltip("growth_mib:Q", format=".2f")])
    rules = base.mark_rule(strokeWidth=2).encode(x=x, y="low:Q", y2="high:Q")
    means = base.mark_tick(thickness=2, size=18).encode(
        x=x, y="mean:Q", tooltip=["phase", "snapshots", alt.Tooltip("mean:Q", format=".2f"),
                                  alt.Tooltip("low:Q", format=".2f"), alt.Tooltip("high:Q", format=".2f")])
    return _by_phase_and_run(alt.layer(points, rules, means, data=data), title, [
        f"btrfs filesystem usage 'Used' after the step minus before it; tick: mean, bar: {confidence:.0%} t interval",
        "(source: monitor_series, run_labels views)"])


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


def get_recovery_summary(con, recovery: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per run: the snapshots deleted and how long each delete took to return, how long `btrfs subvolume
    sync` waited, btrfs Used just before the deletes and at the last sample (MiB freed), the first sample
    by which 90 % of that was freed, and the overwrite latency while the cleaner ran (samples before the
    sync returned) over after, with a bootstrap interval and Welch's p (stats.ratio_of_means), and the
    highest sample p99 latency on each side (ms)."""
    out = []
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
        reached = group[before[run_id] - group["used_mib"] >= 0.9 * freed]
        during, after = group[~group["sync_returned"]], group[group["sync_returned"]]
        if min(len(during), len(after)) >= 2:
            r = stats.ratio_of_means(during["clat_mean_us"], after["clat_mean_us"], confidence=confidence)
        else:  # one sample on a side: a ratio, but no interval or test (ratio_text then says it cannot tell)
            r = stats.Ratio(during["clat_mean_us"].mean() / after["clat_mean_us"].mean(), np.nan, np.nan, np.nan)
        out.append({"run_id": run_id, "snapshots deleted": int(deletes.loc[run_id, "deletes"]),
                    "longest delete (s)": deletes.loc[run_id, "longest_delete_s"],
                    "sync waited (s)": sync.loc[run_id, "seconds"], "used before delete (MiB)": before[run_id],
                    "used at last sample (MiB)": group["used_mib"].iloc[-1], "freed (MiB)": freed,
                    "90 % freed by (s)": reached["t_s"].iloc[0] if len(reached) else np.nan,
                    "samples while cleaning": len(during), "samples after": len(after),
                    "latency during / after": r.ratio, "low": r.low, "high": r.high, "p (Welch)": r.p_welch,
                    "highest p99 while cleaning (ms)": during["clat_p99_us"].max() / 1e3,
                    "highest p99 after (ms)": after["clat_p99_us"].max() / 1e3})
    return pd.DataFrame(out)


def chart_recovery(recovery: pd.DataFrame, summary: pd.DataFrame) -> alt.VConcatChart:
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
    first = summary.iloc[0]
    return alt.vconcat(
        alt.layer(space, returned).properties(width=460, height=160),
        alt.layer(spread, means, returned).properties(width=460, height=160),
    ).properties(title={
        "text": f"{first['freed (MiB)']:,.0f} MiB came back {first['90 % freed by (s)']:.0f} s after the delete; "
                f"btrfs subvolume sync returned at {first['sync waited (s)']:.0f} s",
        "subtitle": ["dashed: sync returned; points: mean latency, bars: p50 to p99 of each sample",
                     "(source: monitor_series, fio_io, run_steps views)"]})
