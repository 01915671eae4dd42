"""Runs (runs.get_runs) into configurations with their estimates, the sweeps the configurations form in each design,
and each sweep line's change as an evidence.Comparison; every comparison of the report decided at once
(decide_together). The labels compared, their tails and whole curves are in compared.py."""
from __future__ import annotations

from dataclasses import fields

import numpy as np
import pandas as pd

from ...inference import evidence
from .parameters import (ALL_PARAMETERS, BYTE_PARAMETERS, MAIN_MEASURE, MEASURES, MEASURE_COLUMNS, PARAMETERS,
                         PERCENTILES, SHOWN_NAMES, TAIL_PERCENTILES, UNITS, missing, numeric_values, parameter_text,
                         plain, shown_value, size_bytes, sort_key, what)

DESIGN_RULE = ("a file a collector's manifest lists belongs to that collector run, one design; any other file's "
               "design is its tool and the version its log prints")
TREE_PHASE = "Tree "  # mdtest's "Tree creation" / "Tree removal": the time to make or remove its directory tree
MIN_RANKED_ITEMS = 2  # a phase timing fewer items (one mkdir) is shown but never ranked
RANK_RULE_SHORT = "a tree phase of one directory or of a size not stated"
RANK_RULE = (f"mdtest's tree phases rank only when the command line states a tree (-b and -z) of at least "
             f"{MIN_RANKED_ITEMS} directories: without -z the tree is one directory, and its rate times one mkdir")
MAX_SWEEP_PARAMETERS = 3  # configurations varying in more parameters at once are not one sweep
MAX_SWEEP_LINES = 8
MIN_SWEEP_VALUES = 3  # an x axis of two values is a comparison of two configurations, not a sweep
SWEEP_FAMILY = "sweeps: largest x over smallest"  # the sweep lines' changes, corrected together (evidence.decide)
SWEEP_COLUMNS = ["sweep", "label", "tool", "workload", "design", "x", "lines", "fixed", "configurations", "measure",
                 "log_x"]
POINT_COLUMNS = ["sweep", "tool", "workload", "design", "x", "x_shown", "x_name", "line", "mean", "low", "high", "n",
                 "measure", "config"]
EFFECT_COLUMNS = ["sweep", "tool", "workload", "design", "line", "x_name", "x_from", "x_to", "measure",
                  "config_baseline"]
# A Comparison's fields as with_records puts them beside what a row is (its label and baseline are the row's own)
RECORD_FIELDS = [f.name for f in fields(evidence.Comparison) if f.name not in ("label", "baseline_label")]


def observations(runs: pd.DataFrame, measure: str) -> evidence.Observations:
    """The runs' values of one measure, each its own unit, with their designs (one, in a configuration)."""
    known = runs[runs[measure].notna()]
    return evidence.Observations(values=known[measure].to_numpy(dtype=float), units=known["unit"].tolist(),
                                 designs=known["design"].tolist())


def get_configurations(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: label, tool, workload, parameters, design, files, runs (the n of its main
    measure), and per measure the geometric mean over its runs with its interval as shown (evidence.estimate on
    the runs, evidence.as_shown: none below evidence.MIN_UNITS runs), `<measure>_spread`, the runs' sd over their
    mean, and `<measure>_min` / `_max`, their range; fio's percentiles as the mean over runs, and `estimate`, the
    main measure's evidence.Estimate. Sorted by label, tool, workload, parameter values, then design."""
    if runs.empty:
        return pd.DataFrame()
    rows = []
    for config, g in runs.groupby("config", sort=False):
        first = g.iloc[0]
        row = {"config": config, **{c: first[c] for c in ["label", "tool", "workload", *ALL_PARAMETERS, "parameters",
                                                          "design"]}, "files": g["source_id"].nunique()}
        for m in MEASURE_COLUMNS:
            known = g[m].dropna()
            if known.empty:
                row.update({f"{m}_n": 0, m: np.nan, f"{m}_spread": np.nan, f"{m}_low": np.nan, f"{m}_high": np.nan,
                            f"{m}_min": np.nan, f"{m}_max": np.nan})
                continue
            e = evidence.estimate(observations(g, m), quantity=MEASURES[first["tool"]].get(m, m), unit=UNITS[m],
                                  replicate=evidence.Replicate.RUN)
            shown = evidence.as_shown(e)
            spread = known.std(ddof=1) / known.mean() if len(known) > 1 else np.nan
            row.update({f"{m}_n": e.n, m: e.value, f"{m}_spread": spread,
                        f"{m}_low": np.nan if shown.low is None else shown.low,
                        f"{m}_high": np.nan if shown.high is None else shown.high,
                        f"{m}_min": known.min(), f"{m}_max": known.max()})
            if m == MAIN_MEASURE[first["tool"]]:
                row["estimate"] = e
        for p in PERCENTILES:
            row[p] = g[p].mean()
        row["runs"] = row[f"{MAIN_MEASURE[first['tool']]}_n"]
        rows.append(row)
    out = pd.DataFrame(rows)
    keys = pd.DataFrame({"label": out["label"], "tool": out["tool"], "workload": out["workload"],
                         **{p: [sort_key(p, v) for v in out[p]] for p in ALL_PARAMETERS}, "design": out["design"]})
    return out.loc[keys.sort_values(list(keys.columns)).index].reset_index(drop=True)


def tree_directories(branching, depth) -> int | None:
    """The directories of mdtest's tree as its command line states it: 1 + b + ... + b^z; None without -z
    (with -z but no -b, mdtest's branching of 1 is no tree to time either: one directory a level)."""
    if missing(depth):
        return None
    b = 1 if missing(branching) else int(branching)
    return sum(b**level for level in range(int(depth) + 1))


def rankable(configs: pd.DataFrame) -> pd.Series:
    """Which configurations a ranking may name (RANK_RULE): all but mdtest's tree phases that time fewer than
    MIN_RANKED_ITEMS directories or a tree whose size the command line does not state."""
    if configs.empty:
        return pd.Series(dtype=bool)
    tree = configs["workload"].str.startswith(TREE_PHASE)
    size = [tree_directories(b, z) for b, z in zip(configs["branching"], configs["depth"])]
    return ~tree | pd.Series([s is not None and s >= MIN_RANKED_ITEMS for s in size], index=configs.index)


def get_sweeps(configs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Sweeps found in the configurations. Within one label, tool, workload and design (never across designs),
    the configurations that state the same parameters (a text log stating fewer than a JSON one is a set of
    its own) and the same other options and collector labels (fio's `other`: text, never an axis, and
    unreadable as a line) and differ in 1 to MAX_SWEEP_PARAMETERS of them. The x axis is the differing
    numeric parameter with the most values, at least MIN_SWEEP_VALUES (sizes in KiB; log scale when it spans
    10x or more); each combination of the other differing ones is a line (at most MAX_SWEEP_LINES, of 2
    points on average at least: runs that merely differ, as IO500 submissions do, are scattered points, not a
    sweep). A sweep's name is its label, tool and workload, and its design where that workload has several.
    Returns one row per sweep and one point per configuration (x, line, the tool's main measure with its
    interval as shown, its `config` key)."""
    sweeps, points = [], []
    if configs.empty:
        return pd.DataFrame(columns=SWEEP_COLUMNS), pd.DataFrame(columns=POINT_COLUMNS)
    stated = configs[ALL_PARAMETERS].notna().apply(tuple, axis=1)
    other = configs["other"].fillna("")
    designs = configs.groupby(["label", "tool", "workload"])["design"].transform("nunique")
    for (label, tool, workload, design, _, _), g in configs.groupby(
            [configs["label"], configs["tool"], configs["workload"], configs["design"], stated, other], sort=False):
        params = [p for p in PARAMETERS[tool] if p != "other" and g[p].notna().all()]
        varying = [p for p in params if g[p].map(plain).nunique() > 1]
        if not 1 <= len(varying) <= MAX_SWEEP_PARAMETERS:
            continue
        numeric = {p: numeric_values(p, g[p]) for p in varying}
        candidates = [p for p in varying if numeric[p] is not None]
        if not candidates:
            continue
        x = max(candidates, key=lambda p: (numeric[p].nunique(), -varying.index(p)))
        if numeric[x].nunique() < MIN_SWEEP_VALUES:
            continue
        others = [p for p in varying if p != x]
        lines = [parameter_text(tool, dict(zip(ALL_PARAMETERS, row)), others) or "all"
                 for row in g[ALL_PARAMETERS].itertuples(index=False, name=None)]
        counts = pd.Series(lines).value_counts()
        if len(counts) > MAX_SWEEP_LINES or len(counts) * 2 > len(g):  # lines of 2 points on average, at least
            continue
        kib = x in BYTE_PARAMETERS
        xs = numeric[x] / (1024 if kib else 1)
        measure = MAIN_MEASURE[tool]
        name = f"{label} · {tool} {workload}" + (f" · {design}" if designs[g.index[0]] > 1 else "")
        taken = sum(sw["sweep"] == name or sw["sweep"].startswith(name + " (") for sw in sweeps)
        name += f" ({taken + 1})" if taken else ""  # configurations of one workload stating other parameters
        x_name = SHOWN_NAMES.get(x, x) + (" (KiB)" if kib else "")
        sweeps.append({"sweep": name, "label": label, "tool": tool, "workload": workload, "design": design, "x": x_name,
                       "lines": ", ".join(SHOWN_NAMES.get(p, p) for p in others) or "–",
                       "fixed": parameter_text(tool, g.iloc[0].to_dict(), [p for p in params if p not in varying]),
                       "configurations": len(g), "measure": MEASURES[tool][measure],
                       "log_x": bool(xs.max() >= 10 * xs.min() > 0)})
        for (_, r), xv, raw, line in zip(g.iterrows(), xs, g[x], lines):
            points.append({"sweep": name, "tool": tool, "workload": workload, "design": design, "x": xv,
                           "x_shown": shown_value(x, raw if not kib else size_bytes(raw)),
                           "x_name": SHOWN_NAMES.get(x, x), "line": line, "mean": r[measure],
                           "low": r[f"{measure}_low"], "high": r[f"{measure}_high"], "n": r[f"{measure}_n"],
                           "measure": MEASURES[tool][measure], "config": r["config"]})
    return pd.DataFrame(sweeps, columns=SWEEP_COLUMNS), pd.DataFrame(points, columns=POINT_COLUMNS)


def compare(runs: pd.DataFrame, sample: pd.Series, baseline: pd.Series, *, family: str, label: str,
            baseline_label: str, measure: str | None = None) -> evidence.Comparison:
    """Two configurations (rows of get_configurations) of one tool by its main measure (or `measure`: a column of
    runs, MEASURES' or TAIL_PERCENTILES'), run against run (evidence.compare: the ratio of the runs' geometric
    means, Welch's t on their logs); undecided until evidence.decide."""
    m = measure or MAIN_MEASURE[baseline["tool"]]
    name, unit = (TAIL_PERCENTILES[m], "ms") if m in TAIL_PERCENTILES else what(MEASURES[baseline["tool"]][m])
    sample_runs, base_runs = (runs[(runs["config"] == c["config"]) & (runs[m] > 0)] for c in (sample, baseline))
    return evidence.compare(observations(sample_runs, m), observations(base_runs, m), quantity=name, unit=unit,
                            replicate=evidence.Replicate.RUN, family=family, label=label, baseline_label=baseline_label)


def with_records(meta: pd.DataFrame, records: list) -> pd.DataFrame:
    """Rows that say what was compared beside their Comparisons' fields (evidence.frame; any a frame held before
    replaced), and each record itself (`record`), for the tables and evidence.phrase."""
    meta = meta.drop(columns=[*RECORD_FIELDS, "record"], errors="ignore").reset_index(drop=True)
    if meta.empty:
        return meta.assign(record=pd.Series(dtype=object))
    frame = evidence.frame(records).drop(columns=["label", "baseline_label"], errors="ignore")
    return pd.concat([meta, frame.reset_index(drop=True)], axis=1).assign(record=records)


def decide_together(*frames: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    """The frames (of with_records) with every record of all of them decided in one evidence.decide call: a report
    decides once, so no family is corrected in parts (each record's `family` keeps families apart)."""
    decided = evidence.decide_groups(*(f["record"] for f in frames))
    return tuple(with_records(f, records) for f, records in zip(frames, decided))


def sweep_effects(runs: pd.DataFrame, configs: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """Per sweep and line (so per design): the largest-x configuration compared with the smallest-x one as two
    labels are (compare, family SWEEP_FAMILY): what each line is (EFFECT_COLUMNS) beside its Comparison
    (with_records), undecided until decide_together."""
    if points.empty:
        return with_records(pd.DataFrame(columns=EFFECT_COLUMNS), [])
    by_config = configs.set_index("config", drop=False)
    rows, records = [], []
    for (sweep, line), g in points.groupby(["sweep", "line"], sort=False):
        if len(g) < 2:
            continue
        g = g.sort_values("x")
        lo, hi = g.iloc[0], g.iloc[-1]
        rows.append({"sweep": sweep, "tool": lo["tool"], "workload": lo["workload"], "design": lo["design"],
                     "line": line, "x_name": lo["x_name"], "x_from": lo["x_shown"], "x_to": hi["x_shown"],
                     "measure": lo["measure"], "config_baseline": lo["config"]})
        records.append(compare(runs, by_config.loc[hi["config"]], by_config.loc[lo["config"]], family=SWEEP_FAMILY,
                               label=f"{lo['x_name']} {hi['x_shown']}",
                               baseline_label=f"{lo['x_name']} {lo['x_shown']}"))
    return with_records(pd.DataFrame(rows, columns=EFFECT_COLUMNS), records)
