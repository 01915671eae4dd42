"""Labels compared: each configuration another label ran as the baseline label did (its main measure, and fio's
latency tails), and each sweep line of another label against the baseline's (its points, and the whole curve);
every record undecided until analysis.decide_together."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ...book import present
from ...database import setups
from ...inference import evidence
from .analysis import MIN_SWEEP_VALUES, compare, with_records
from .parameters import MAIN_MEASURE, MEASURES, TAIL_PERCENTILES, what, what_was_run

COMPARISON_COLUMNS = ["tool", "workload", "parameters", "config_baseline", "config", "label", "baseline", "design",
                      "design_baseline", "measure"]
TAIL_COLUMNS = ["tool", "workload", "config_baseline", "label", "baseline", "percentile", "value_ms", "baseline_ms"]
# Where a curve saturates: its knee is the smallest x whose geometric mean reaches this share of the curve's largest.
KNEE_SHARE = 0.9
CURVE_COLUMNS = ["curve", "tool", "workload", "line", "x_name", "label", "baseline", "points", "knee", "knee_baseline",
                 "knee_moved"]
CURVE_POINT_COLUMNS = ["curve", "x", "x_shown", "label", "baseline", "config_baseline"]


def labels_sharing(configs: pd.DataFrame) -> list[str]:
    """Labels with a configuration (tool, workload, parameters) that another label has too, sorted."""
    if configs.empty:
        return []
    key = configs["config"].map(what_was_run)
    shared = configs.groupby(key)["label"].transform("nunique") > 1
    return sorted(set(configs.loc[shared, "label"]))


def choose_baseline(configs: pd.DataFrame, requested: str) -> tuple[str | None, str | None]:
    """The label others are compared with: `requested` (chapters.check_parameters has checked, before the chapter
    runs, that it is a label of the data, naming the nearest ones when not), else the first (A-Z) sharing a
    configuration; and a note (MyST) when the requested label shares none, so that nothing is compared."""
    sharing = labels_sharing(configs)
    if not requested:
        return (sharing[0] if sharing else None), None
    if requested in sharing:
        return requested, None
    return None, (f"The baseline label **{present.md_escape(requested)}** ran no configuration that another label "
                  "ran: no label is compared.")


def label_comparisons(runs: pd.DataFrame, configs: pd.DataFrame, baseline: str | None) -> pd.DataFrame:
    """Each configuration run under `baseline` and another label, one design a side (a label holding the job in
    two designs gives a row per design): the other's main measure over the baseline's (compare, one family), what
    each row is (COMPARISON_COLUMNS) beside its Comparison (with_records)."""
    rows, records = [], []
    if configs.empty or baseline is None:
        return with_records(pd.DataFrame(columns=COMPARISON_COLUMNS), records)
    family = f"labels over {baseline}"
    for _, g in configs.groupby(configs["config"].map(what_was_run), sort=False):
        if baseline not in set(g["label"]) or g["label"].nunique() < 2:
            continue
        for _, base in g[g["label"] == baseline].iterrows():
            for _, other in g[g["label"] != baseline].iterrows():
                rows.append({"tool": base["tool"], "workload": base["workload"], "parameters": base["parameters"],
                             "config_baseline": base["config"], "config": other["config"], "label": other["label"],
                             "baseline": baseline,
                             "design": other["design"], "design_baseline": base["design"],
                             "measure": MEASURES[base["tool"]][MAIN_MEASURE[base["tool"]]]})
                records.append(compare(runs, other, base, family=family, label=other["label"], baseline_label=baseline))
    return with_records(pd.DataFrame(rows, columns=COMPARISON_COLUMNS), records)


def setup_differences(runs: pd.DataFrame, setup: pd.DataFrame, config_baseline: str, config: str) -> str:
    """The setup fields (setups.COMPARED) the runs behind two configurations state differently (an IO500 run's
    files, a setup.yml), 'baseline → other' ('not stated' where a side's files do not say); empty where neither
    side states a setup."""
    def stated(cfg: str) -> dict[str, str | None]:
        rows = setup[setup.source_id.isin(runs.loc[runs["config"] == cfg, "source_id"])]
        return {f: ", ".join(sorted({str(v) for v in rows[f].dropna()})) or None for f in setups.COMPARED}

    if setup.empty:
        return ""
    return "; ".join(setups.differences(stated(config_baseline), stated(config)))


def tail_comparisons(runs: pd.DataFrame, comparisons: pd.DataFrame) -> pd.DataFrame:
    """Per fio configuration compared between labels (label_comparisons' rows) whose runs state completion-latency
    percentiles (a single job: fio's percentiles of several jobs do not add up): each of TAIL_PERCENTILES, the
    other label's runs against the baseline's, one value per run and percentile (evidence.compare, log scale).
    The percentiles of one configuration and label are one family (read together: is its tail longer?); what each
    row is (TAIL_COLUMNS) beside its Comparison (with_records)."""
    rows, records = [], []
    fio = comparisons[comparisons["tool"] == "fio"] if len(comparisons) else comparisons
    by_config = runs.drop_duplicates("config").set_index("config", drop=False)
    for _, c in fio.iterrows():
        base, other = by_config.loc[c["config_baseline"]], by_config.loc[c["config"]]
        family = f"clat tails: {c['label']} over {c['baseline']}, {c['tool']} {c['parameters']} ({c['design']})"
        for column, name in TAIL_PERCENTILES.items():
            sides = [runs.loc[(runs["config"] == k) & (runs[column] > 0), column]
                     for k in (c["config"], c["config_baseline"])]
            if min(map(len, sides)) == 0:
                continue
            rows.append({"tool": c["tool"], "workload": c["workload"], "config_baseline": c["config_baseline"],
                         "label": c["label"], "baseline": c["baseline"], "percentile": name,
                         "value_ms": evidence.geometric_mean(sides[0]),
                         "baseline_ms": evidence.geometric_mean(sides[1])})
            records.append(compare(runs, other, base, family=family, label=c["label"], baseline_label=c["baseline"],
                                   measure=column))
    return with_records(pd.DataFrame(rows, columns=TAIL_COLUMNS), records)


def knee(xs: pd.Series, means: pd.Series) -> int:
    """The position (in xs' order) of the smallest x whose mean reaches KNEE_SHARE of the largest mean."""
    order = np.argsort(xs.to_numpy())
    reached = means.to_numpy()[order] >= KNEE_SHARE * np.nanmax(means.to_numpy())
    return int(order[np.argmax(reached)])


def curve_comparisons(runs: pd.DataFrame, points: pd.DataFrame,
                      baseline: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each sweep line (a curve) of another label against the baseline label's curve of the same job: the points
    whose configuration (what_was_run) both labels ran, at least MIN_SWEEP_VALUES of them. Per point the ratio of
    the runs' geometric means (compare; the points of one curve one family), and one summary ratio over the curve:
    the geometric mean of the per-point ratios with a t interval over the points (evidence.compare_to_reference of
    the ratios against 1, Replicate.POINT; the summaries one family). Why a t interval over points and not
    evidence.cluster_bootstrap over runs: every run belongs to one point of one label (a fio invocation of its own),
    so the points' ratios are independent of each other, and with 3 runs a point a side a bootstrap resamples from
    10 distinct sets per side, too few for a percentile interval. The interval thus covers the run-to-run noise of
    each point and how the ratio varies along the curve. The knee of each side (knee(): the smallest x reaching
    KNEE_SHARE of its curve's largest mean) and whether it moved. Returns (curves: CURVE_COLUMNS beside the
    summary's record, points: CURVE_POINT_COLUMNS beside theirs), undecided until decide_together."""
    empty = (with_records(pd.DataFrame(columns=CURVE_COLUMNS), []),
             with_records(pd.DataFrame(columns=CURVE_POINT_COLUMNS), []))
    if points.empty or baseline is None:
        return empty
    by_config = runs.drop_duplicates("config").set_index("config", drop=False)
    points = points.assign(job=points["config"].map(what_was_run),
                           label=points["config"].map(lambda c: json.loads(c)[0]))
    base = points[points["label"] == baseline].drop_duplicates("job").set_index("job")
    curves, summaries, point_rows, point_records = [], [], [], []
    for (sweep, line), g in points[points["label"] != baseline].groupby(["sweep", "line"], sort=False):
        g = g[g["job"].isin(base.index)].drop_duplicates("job").sort_values("x")
        if len(g) < MIN_SWEEP_VALUES:
            continue
        b = base.loc[g["job"]]
        name = (f"{g['label'].iloc[0]} · {g['tool'].iloc[0]} {g['workload'].iloc[0]}"
                + (f" · {line}" if line != "all" else ""))
        family = f"curve points: {name} over {baseline}"
        records = [compare(runs, by_config.loc[o], by_config.loc[k], family=family, label=g["label"].iloc[0],
                           baseline_label=baseline) for o, k in zip(g["config"], b["config"])]
        point_records += records
        point_rows += [{"curve": name, "x": x, "x_shown": shown, "label": g["label"].iloc[0], "baseline": baseline,
                        "config_baseline": k} for x, shown, k in zip(g["x"], g["x_shown"], b["config"])]
        summaries.append(evidence.compare_to_reference(
            [r.ratio for r in records], 1.0, quantity=f"{what(g['measure'].iloc[0])[0]} over the curve", unit="ratio",
            replicate=evidence.Replicate.POINT, family=f"whole curves over {baseline}", label=g["label"].iloc[0],
            reference_label=baseline))
        mine, theirs = knee(g["x"], g["mean"]), knee(b["x"], b["mean"])
        curves.append({"curve": name, "tool": g["tool"].iloc[0], "workload": g["workload"].iloc[0], "line": line,
                       "x_name": g["x_name"].iloc[0], "label": g["label"].iloc[0], "baseline": baseline,
                       "points": len(g), "knee": g["x_shown"].iloc[mine], "knee_baseline": b["x_shown"].iloc[theirs],
                       "knee_moved": bool(g["x"].iloc[mine] != b["x"].iloc[theirs])})
    if not curves:
        return empty
    return (with_records(pd.DataFrame(curves, columns=CURVE_COLUMNS), summaries),
            with_records(pd.DataFrame(point_rows, columns=CURVE_POINT_COLUMNS), point_records))
