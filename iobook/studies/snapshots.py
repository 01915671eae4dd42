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
    this test is conservative). Ratios' intervals are the difference's over the no-snapshot value. Both
    readings take the rows, measured one after the other, as if they were repeats: the slide gives nothing
    else. Each reading's nine p-values are also given Holm-corrected (stats.holm), as the columns are read
    together."""
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
    df = pd.DataFrame(out)
    # the nine columns are read together: Holm's correction over them, per reading of the noise
    df.insert(df.columns.get_loc("p (snapshot rows' spread)") + 1, "Holm p (snapshot rows' spread)",
              stats.holm(df["p (snapshot rows' spread)"]))
    df.insert(df.columns.get_loc("p (printed std)") + 1, "Holm p (printed std)", stats.holm(df["p (printed std)"]))
    return df


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
    df = pd.DataFrame(out, columns=["column", "state", "ratio", "low", "high", "p"])
    df["p_holm"] = stats.holm(df["p"])  # all states and columns read together
    return df


def chart_seed_states(states: pd.DataFrame, title: str, source: str) -> alt.Chart:
    """Ratio of every snapshot state to "No snapshot" per mdtest column, with the interval from the
    slide's own standard deviation."""
    order = states.drop_duplicates("column")["column"].tolist()
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
                              alt.Tooltip("p:Q", format=".3g"), alt.Tooltip("p_holm:Q", format=".3g", title="Holm p")])
    one = alt.Chart().mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1))
    return alt.layer(one, rules, points, data=states).properties(width=300, height=420, title={
        "text": title, "subtitle": textwrap.wrap(f"source: {source}", 90)})


def select_runs(con, run_folders: Iterable[str] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, status): the snapshot collector runs the chapter reads and every run's status per part
    (local_runs.select_current; a part is an experiment, manifest label `part`, 'metadata' for runs made
    before parts existed): by default the current run of each part, else the runs named by their run folder
    (exact; an unknown name raises nb.UnknownSelection naming the nearest)."""
    return local_runs.select_current(con, STUDY, run_folders, "part", "metadata")


def get_rates(con, run_ids: Iterable[str], end_baseline: bool = False) -> pd.DataFrame:
    """One row per fio result of the runs: its labels (operation = fio phase create/stat/delete, stage =
    manifest label `step`: 'none', the number of snapshots taken, or 'rotation-k'; snapshots present;
    repetition), the files it handled (files_per_job x jobs), fio's group-reported rate (files/s over
    both jobs: all files over the longer job's run time) and run time, and its source_id. The baseline
    measured again at the end of a run (drift_check=end) is left out, or with `end_baseline` the only rows."""
    columns = ["run_id", "step_index", "operation", "stage", "snapshots", "repetition", "files", "source_id",
               "fio_engine", "numjobs", "error", "files_per_s", "runtime_ms"]
    steps = local_runs.get_step_labels(con, run_ids, end_baseline=end_baseline)
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


def get_end_baseline(con, run_ids: Iterable[str], baseline_stage: str, confidence: float) -> pd.DataFrame:
    """Drift: per run and operation, the rate at the end of the run (the data and control subvolumes after every
    snapshot was deleted, drift_check=end) over the baseline stage's repetitions during it
    (local_runs.compare_end_baseline)."""
    during = get_rates(con, run_ids)
    end = get_rates(con, run_ids, end_baseline=True)
    return local_runs.compare_end_baseline(during[during["stage"] == baseline_stage], end, ["operation"],
                                           "files_per_s", confidence)


def end_baseline_finding(drift: pd.DataFrame, confidence: float) -> str:
    """Drift over the metadata runs: their rates at the end against the baseline stage's."""
    return local_runs.end_baseline_text(drift, confidence, "the metadata rate of the baseline stage")


def stage_order(rates: pd.DataFrame) -> list[str]:
    """Stages in the order the collector ran them."""
    return rates.groupby("stage")["step_index"].min().sort_values().index.tolist()


def get_comparisons(rates: pd.DataFrame, baseline_stage: str, confidence: float) -> pd.DataFrame:
    """Per run, operation and stage: the stage's rate over the baseline stage's on the log scale, its
    repetitions (a stage's create, stat and delete loops) on each side (stats.ratio_row), and the verdicts
    of all a run's stage comparisons read together (stats.add_verdicts: Holm, at least
    stats.MIN_REPETITIONS a side). Stages are compared one by one, never pooled: they ran one after the
    other with a growing number of snapshots, so they are not repeats of one condition. `faster` marks a
    stage whose rate came out above the baseline's. Runs without the baseline stage are left out."""
    order = stage_order(rates)
    out = []
    for (run_id, operation), group in rates.groupby(["run_id", "operation"], sort=True):
        baseline = group.loc[group["stage"] == baseline_stage, "files_per_s"]
        if baseline.empty:
            continue
        for stage in [s for s in order if s != baseline_stage and (group["stage"] == s).any()]:
            sample = group.loc[group["stage"] == stage, "files_per_s"]
            out.append({"run_id": run_id, "operation": operation, "stage": stage,
                        "mean (files/s)": float(np.exp(np.log(sample).mean())),
                        **stats.ratio_row(sample, baseline, confidence)})
    df = pd.DataFrame(out, columns=["run_id", "operation", "stage", "mean (files/s)", *stats.RATIO_COLUMNS])
    df = stats.add_verdicts(df, confidence, ["run_id"])
    df["faster"] = df["ratio"] > 1
    df["operation"] = pd.Categorical(df["operation"], OPERATIONS, ordered=True)
    return df.sort_values(["run_id", "operation"], kind="stable").reset_index(drop=True).astype({"operation": str})


def get_baseline_conditions(con, rates: pd.DataFrame, baseline_stage: str) -> pd.DataFrame:
    """Per run, where and when its baseline stage ran (manifest labels and steps): `baseline_first` (the
    metadata part's first step is a baseline step), the seconds from the run's start to the first baseline
    step, the baseline's runs an operation (`baseline_runs`), how many on the data subvolume and how many on
    the never-snapshotted control subvolume (label `subvolume`; runs made before the control existed have only
    data), how many started before the metadata part's first snapshot and after it, the snapshot stages the
    runs after it ran beside (label `during_step`) out of the run's snapshot stages, `baseline_only_first` (no
    baseline run after the first snapshot: the baseline is then the run's beginning only), and the machine's
    cores and load averages when the run started (manifest)."""
    columns = ["run_id", "baseline_first", "baseline_only_first", "baseline_after_s", "baseline_runs", "on_data",
               "on_control", "before_first_snapshot", "after_first_snapshot", "stages_beside", "snapshot_stages",
               "cores", "load_avg_1m", "load_avg_5m", "load_avg_15m"]
    if rates.empty:
        return pd.DataFrame(columns=columns)
    run_ids = rates.run_id.unique().tolist()
    starts = con.execute(
        """
        SELECT r.run_id, r.cores, r.load_avg_1m, r.load_avg_5m, r.load_avg_15m,
               epoch(min(s.started_utc)) - epoch(r.started_utc) AS baseline_after_s
        FROM runs r JOIN run_steps s USING (run_id) JOIN run_labels l USING (run_id, step_index)
        WHERE list_contains(?, r.run_id) AND l.key = 'step' AND l.value = ?
        GROUP BY r.run_id, r.cores, r.load_avg_1m, r.load_avg_5m, r.load_avg_15m, r.started_utc
        """,
        [run_ids, baseline_stage]).df()
    snapshots_taken = get_snapshot_steps(con, run_ids)
    snapshots_taken = snapshots_taken[snapshots_taken.step.str.startswith("create-")]
    labels = local_runs.get_step_labels(con, run_ids)
    where = labels[["run_id", "step_index"]].assign(
        subvolume=labels["subvolume"].fillna("data") if "subvolume" in labels else "data",
        during_step=labels["during_step"] if "during_step" in labels else np.nan)
    out = []
    for run_id, run_rates in rates.groupby("run_id"):
        # the cow part's snapshots come before the metadata part's first step
        first_snapshot = snapshots_taken.loc[(snapshots_taken.run_id == run_id)
                                             & (snapshots_taken.step_index > run_rates.step_index.min()),
                                             "step_index"].min()
        baseline = run_rates[run_rates.stage == baseline_stage].merge(where, on=["run_id", "step_index"], how="left")
        baseline = baseline.assign(after=baseline.step_index > first_snapshot)
        one = baseline[baseline.operation == baseline.operation.iloc[0]] if len(baseline) else baseline
        after = one[one.after]
        out.append({"run_id": run_id,
                    "baseline_first": run_rates.sort_values("step_index").stage.iloc[0] == baseline_stage,
                    "baseline_runs": len(one), "on_data": int((one.subvolume == "data").sum()),
                    "on_control": int((one.subvolume == "control").sum()),
                    "before_first_snapshot": int((~one.after).sum()), "after_first_snapshot": len(after),
                    "stages_beside": after.during_step.nunique(),
                    "snapshot_stages": run_rates.loc[run_rates.stage != baseline_stage, "stage"].nunique()})
    df = pd.DataFrame(out).merge(starts, on="run_id")
    df["baseline_only_first"] = df.after_first_snapshot == 0
    return df[columns]


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
    """Every repetition's rate per stage, the stage means as a line, one panel per operation and run (the panel
    names the run, so the tooltips do not; the download has every column)."""
    order = stage_order(rates)
    base = alt.Chart(rates).encode(x=alt.X("stage:N", sort=order, title="stage (snapshots taken, then rotations)"))
    points = base.mark_circle(size=40, opacity=0.6).encode(
        y=alt.Y("files_per_s:Q", title="files per second (files/s)"),
        color=alt.Color("operation:N", sort=OPERATIONS, legend=None),
        tooltip=["operation", "stage", "snapshots", "repetition", alt.Tooltip("files_per_s:Q", format=",.0f")])
    means = base.mark_line(color="black").encode(y="mean(files_per_s):Q")
    return alt.layer(points, means).properties(width=140, height=200).facet(
        column=alt.Column("operation:N", sort=OPERATIONS, title=None),
        row=alt.Row("run_id:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start"))
    ).properties(title={"text": "fio file metadata rate per stage on btrfs",
                        "subtitle": "points: repetitions; line: stage mean (source: fio_io, run_labels views)"})


def chart_comparison(comparisons: pd.DataFrame, seed_points: pd.DataFrame, baseline_stage: str,
                     title: str, confidence: float, source: str) -> alt.Chart:
    """Local ratios to the baseline stage with their intervals (log axis) beside the slide's file columns."""
    local = comparisons.assign(
        measured_on=comparisons["run_id"] + " (btrfs, fio)",
        verdict=np.where(comparisons["decided"], "decided (Holm)", "undecided"))
    both = pd.concat([
        local[["measured_on", "operation", "stage", "ratio", "low", "high", "verdict"]],
        seed_points.assign(measured_on="seed 003 (Lustre, mdtest)", verdict="seed: one value per state"),
    ], ignore_index=True)
    order = both["stage"].drop_duplicates().tolist()
    base = alt.Chart(both).encode(
        x=alt.X("stage:N", sort=order, title="stage"),
        color=alt.Color("measured_on:N", title=None, legend=alt.Legend(orient="bottom", columns=1)),
        xOffset="measured_on:N")
    intervals = base.mark_rule().encode(
        y=alt.Y("low:Q", title=f"rate ÷ rate at '{baseline_stage}' (ratio)", scale=alt.Scale(type="log")), y2="high:Q")
    centers = base.mark_point(filled=True, size=40).encode(
        y="ratio:Q", shape=alt.Shape("verdict:N", title=None, legend=alt.Legend(orient="bottom", columns=1)),
        tooltip=["measured_on", "operation", "stage", alt.Tooltip("ratio:Q", format=".3f"),
                 alt.Tooltip("low:Q", format=".3f"), alt.Tooltip("high:Q", format=".3f"), "verdict"])
    one = alt.Chart(both).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return alt.layer(one, intervals, centers).properties(width=140, height=220).facet(
        column=alt.Column("operation:N", sort=OPERATIONS, title=None)
    ).properties(title={
        "text": title,
        "subtitle": [f"{confidence:.0%} Welch intervals on the log scale (source: fio_io, run_labels views);",
                     *textwrap.wrap(f"seed: {source}", 90)]})


def chart_run_order(rates: pd.DataFrame) -> alt.Chart:
    """Rates in the order fio ran them: a drift over the run would look like a stage effect."""
    return alt.Chart(rates).mark_line(point=True).encode(
        x=alt.X("step_index:Q", title="manifest step (run order, step number)"),
        y=alt.Y("files_per_s:Q", title="files per second (files/s)"),
        color=alt.Color("operation:N", sort=OPERATIONS, legend=alt.Legend(orient="bottom")),
        tooltip=["operation", "stage", "repetition", alt.Tooltip("files_per_s:Q", format=",.0f")],
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


def get_cow_growth(space: pd.DataFrame, writes: pd.DataFrame) -> pd.DataFrame:
    """Space each copy-on-write fio write took: per run, the committed btrfs "Used" (data + metadata
    copies), its data block groups' Used, its metadata's, and df's used after the write minus after the
    step before it (the stage's start or the previous write), in bytes, with the snapshots present, the
    phase, the repetition and the bytes fio wrote (`written`: 4 KiB writes x 4096)."""
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
    out["written"] = out["writes"] * 4096
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


def get_cow_latency_comparisons(writes: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per run, phase and latency measure (mean and p99 completion latency of each repetition's fio run):
    each snapshot count's latency over the no-snapshot stage's on the log scale (stats.ratio_row), with the
    verdicts of a run's comparisons read together (stats.add_verdicts). Counts are compared one by one:
    their stages ran in sequence, so they are not repeats of one condition."""
    out = []
    for (run_id, phase), group in writes.groupby(["run_id", "phase"], sort=False):
        baseline = group[group["snapshots"] == 0]
        if baseline.empty:
            continue
        for count, sample in group[group["snapshots"] > 0].groupby("snapshots"):
            for measure, column in (("mean", "clat_mean_us"), ("p99", "clat_p99_us")):
                out.append({"run_id": run_id, "phase": phase, "latency": measure, "snapshots": int(count),
                            "mean (µs)": float(np.exp(np.log(sample[column]).mean())),
                            "baseline mean (µs)": float(np.exp(np.log(baseline[column]).mean())),
                            **stats.ratio_row(sample[column], baseline[column], confidence)})
    df = pd.DataFrame(out, columns=["run_id", "phase", "latency", "snapshots", "mean (µs)", "baseline mean (µs)",
                                    *stats.RATIO_COLUMNS])
    return stats.add_verdicts(df, confidence, ["run_id"])


def chart_cow_latency(comparisons: pd.DataFrame, title: str, confidence: float) -> alt.Chart:
    """Write latency with k snapshots over with none, per phase and latency measure, with intervals (log axis)."""
    data = comparisons.assign(verdict=np.where(comparisons["decided"], "decided", "undecided"))[
        ["run_id", "phase", "latency", "snapshots", "n", "n_baseline", "ratio", "low", "high", "p_holm", "verdict"]]
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
                 alt.Tooltip("p_holm:Q", format=".2g", title="Holm p"), "verdict"])
    one = alt.Chart(data).mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1))
    return _by_phase_and_run(alt.layer(one, rules, points, data=data), title, [
        f"fio direct 4 KiB writes on btrfs; {confidence:.0%} Welch intervals on the log scale; filled: decided "
        "after Holm's correction", "(source: fio_io, run_labels views)"])


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
        "points: each write step (data, metadata); black tick: the data growth copy-on-write requires",
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


def get_recovery_summary(con, recovery: pd.DataFrame, confidence: float) -> pd.DataFrame:
    """Per run: the snapshots deleted and how long each delete took to return, how long `btrfs subvolume
    sync` waited, btrfs Used just before the deletes and at the last sample (MiB freed), the first sample
    by which 90 % of that was freed, and the overwrite latency while the cleaner ran (samples before the
    sync returned) over after on the log scale (stats.ratio_row, each sample one repetition) with its
    verdict (stats.add_verdicts), and the highest sample p99 latency on each side (ms)."""
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
        r = stats.ratio_row(during["clat_mean_us"], after["clat_mean_us"], confidence)
        out.append({"run_id": run_id, "snapshots deleted": int(deletes.loc[run_id, "deletes"]),
                    "longest delete (s)": deletes.loc[run_id, "longest_delete_s"],
                    "sync waited (s)": sync.loc[run_id, "seconds"], "used before delete (MiB)": before[run_id],
                    "used at last sample (MiB)": group["used_mib"].iloc[-1], "freed (MiB)": freed,
                    "90 % freed by (s)": reached["t_s"].iloc[0] if len(reached) else np.nan,
                    "samples while cleaning": len(during), "samples after": len(after),
                    **r,
                    "highest p99 while cleaning (ms)": during["clat_p99_us"].max() / 1e3,
                    "highest p99 after (ms)": after["clat_p99_us"].max() / 1e3})
    return stats.add_verdicts(pd.DataFrame(out), confidence)


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

def short_column(column: str) -> str:
    """A slide column as a short table header: 'Directory (kiops/s) / Create' -> 'dir create'."""
    group, _, operation = column.partition(" / ")
    return f"{group.split(' (')[0].lower().replace('directory', 'dir')} {operation.lower()}"


def seed_printed(seed: pd.DataFrame) -> pd.DataFrame:
    """The slide's table as printed, with short headers (short_column) so that it fits a page."""
    wide = seed_wide(seed, "printed")
    return wide.rename(columns=short_column).reset_index(names="state")


def seed_readings(pooled: pd.DataFrame) -> pd.DataFrame:
    """get_seed_pooled long: one row per column and reading of the noise, with its interval of the
    with/without percentage, p and Holm p over the nine columns."""
    rows = []
    for kind, label in (("snapshot rows' spread", "rows as repeats"), ("printed std", "printed std")):
        rows.append(pd.DataFrame({
            "column": pooled["column"].map(short_column), "noise from": label,
            "with/without (%)": pooled["with/without (%)"], "low (%)": pooled[f"low ({kind}, %)"],
            "high (%)": pooled[f"high ({kind}, %)"], "p": pooled[f"p ({kind})"],
            "Holm p": pooled[f"Holm p ({kind})"]}))
    return pd.concat(rows, ignore_index=True)


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


def seed_finding(pooled: pd.DataFrame, states: pd.DataFrame, confidence: float) -> str:
    """The talk's table read honestly: undecided, with what the earlier reading gave before and after
    Holm's correction."""
    alpha = 1 - confidence
    p, holm = pooled["p (snapshot rows' spread)"], pooled["Holm p (snapshot rows' spread)"]
    kept = pooled.loc[holm < alpha, "column"].map(short_column)
    return (f"The talk's table cannot decide a snapshot cost: one value per state, states in sequence, no repeats; "
            f"read as repeats, {int((p < alpha).sum())} of {len(pooled)} columns drop, {int((holm < alpha).sum())} "
            f"after Holm ({', '.join(kept) or 'none'}); {int((states.p_holm < alpha).sum())} of {len(states)} single "
            "states differ beyond the printed std {cite:p}`derooy-meluxina`")


def cow_space_finding(check: pd.DataFrame, writes: pd.DataFrame) -> str:
    """The exact check of copy-on-write space, as the chapter's first finding, over every run selected (the
    runs may overwrite files of different sizes)."""
    overwrite = check[check.phase == "overwrite"].groupby("with_snapshots").agg(
        exact=("exact", "sum"), writes=("writes", "sum"), sizes=("expected", lambda e: sorted(set(e))))
    sizes = " or ".join(f"{size / MIB:.0f}" for size in overwrite.loc[True, "sizes"])
    return (f"Overwriting a {sizes} MiB file under a snapshot added exactly its size in data in "
            f"{overwrite.loc[True, 'exact']} of {overwrite.loc[True, 'writes']} writes, 0 in "
            f"{overwrite.loc[False, 'exact']} of {overwrite.loc[False, 'writes']} without [exact check]")


def cow_latency_finding(latency: pd.DataFrame, confidence: float) -> str:
    """Overwrite latency per snapshot count, per run: the range of the ratios and how many are decided."""
    mean = latency[(latency.latency == "mean") & (latency.phase == "overwrite")]
    n = mean.n_to_decide.dropna()
    need = f"; {n.min()}–{n.max()} a side would decide" if len(n) else ""
    return (f"Mean overwrite latency with 1 to {mean.snapshots.max()} snapshots: {mean.ratio.min():.2f}× to "
            f"{mean.ratio.max():.2f}× that with none [{int(mean.decided.sum())} of {len(mean)} decided; "
            f"{mean.n.min()} and {mean.n_baseline.min()} repetitions a count, Holm over "
            f"{latency.family_size.max()}{need}]")


def metadata_finding(comparisons: pd.DataFrame, conditions: pd.DataFrame) -> str:
    """The local metadata rates per stage against the baseline stage, flagged when most came out faster
    with snapshots: copy-on-write snapshots add work, so that points at the baseline's conditions, which
    the flag states per run (get_baseline_conditions)."""
    faster = int(comparisons.faster.sum())
    said = (f"{int(comparisons.decided.sum())} decided after Holm, ratios "
            f"{comparisons.ratio.min():.2f}–{comparisons.ratio.max():.2f}×")
    if faster <= len(comparisons) / 2:
        return (f"File metadata rates on a snapshotted tree against the baseline stage: {len(comparisons)} stage "
                f"comparisons, {said}")
    several = len(conditions) > 1
    where = "; ".join((f"{c.run_id}: " if several else "") + baseline_text(c) for c in conditions.itertuples())
    faster_decided = int((comparisons.faster & comparisons.decided).sum())
    reading = (": read as the run's drift, not as a snapshot effect" if conditions.baseline_only_first.all() else
               f"; {faster_decided} of the {faster} faster decided: not read as a snapshot effect")
    return (f"**Flag:** file metadata rates came out faster with snapshots in {faster} of {len(comparisons)} stage "
            f"comparisons [{said}]; {where}{reading}")


def baseline_text(c) -> str:
    """Where and when one run's baseline stage ran (a row of get_baseline_conditions)."""
    if c.baseline_only_first:
        return (f"the baseline ran first, {c.baseline_after_s:.0f} s into a run that started at a load average of "
                f"{c.load_avg_1m:.2f} on {c.cores} cores")
    beside = ("each of the" if c.stages_beside == c.snapshot_stages else f"{c.stages_beside} of the")
    return (f"the baseline stage is {c.baseline_runs} runs an operation: {c.on_data} on the data subvolume before its "
            f"first snapshot and {c.on_control} on the never-snapshotted control subvolume, "
            f"{c.before_first_snapshot - c.on_data} of them before the first snapshot and {c.after_first_snapshot} "
            f"beside {beside} {c.snapshot_stages} snapshot stages")


def baseline_conditions_text(conditions: pd.DataFrame) -> str:
    """Where and when each run's baseline stage ran, and what that leaves a drift over the run able to do."""
    out = []
    for c in conditions.itertuples():
        if c.baseline_only_first:
            out.append(f"In {c.run_id} {baseline_text(c)}, when the machine's load and the fresh file system's "
                       "state may have differed from the later stages; the run records no per-step load that would "
                       "tell.")
        else:
            out.append(f"In {c.run_id} {baseline_text(c)}: a drift over the run reaches the baseline as well as the "
                       "stages, though each stage samples only its own minutes of it.")
    return " ".join(out)


def time_finding(since: pd.DataFrame) -> str:
    """How long after creating a snapshot these runs measured, against the talk's 0 to 120 minutes."""
    s = since.seconds_since_snapshot.dropna()
    return (f"These runs measured {s.min():.0f}–{s.max():.0f} s after each snapshot was created; the talk's "
            "recovery question, mdtest \"at 0, 10, 30, 60, 120 min\" after `snapshot_create`, they do not answer")


def recovery_finding(summary: pd.DataFrame, confidence: float) -> str:
    """After the snapshots were deleted: space freed, when, and overwrite latency while the cleaner ran."""
    r = summary.iloc[0]
    return (f"After deleting {r['snapshots deleted']} snapshots, {r['freed (MiB)']:,.0f} MiB came back by "
            f"{r['90 % freed by (s)']:.0f} s; overwrite latency while the cleaner ran was "
            + local_runs.ratio_text(r, confidence, "that after"))
