"""The chapter's tables: the configurations of each tool, the sweeps, the labels; every comparison through the
comparison kit (comparison.table: the measure first, then what tells the rows apart, then ratio, interval, units a
side, Holm p and verdict). Columns every row of a table shares are said once above it (split_constant)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np
import pandas as pd

from ...book import comparison, present
from ...book.report import Table
from .analysis import RANK_RULE_SHORT, rankable
from .compared import KNEE_SHARE
from .parameters import MAIN_MEASURE, MEASURES, PARAMETERS, SHOWN_NAMES, configuration_names, shown_value

# With a stonewall (IOR -D, mdtest -W) a write stops when it expires, and the phases after it do what it did (IOR's
# stoneWallingStatusFile, mdtest's -x): the block or item count is only an upper bound, which IO500 sets far beyond
# what a run reaches (mdtest -n 2,000,000,000,000)
BOUNDED_BY_STONEWALL = {"ior": "block", "mdtest": "items"}
RUNS_RANGE = "runs"  # '(runs 591–903)': the range of fewer runs than an interval needs, never an interval


def searchable(table: Table) -> Table:
    """A table with a filter box (nb.table), but for an empty one: the box's script reads a first row."""
    return replace(table, searchable=len(table.frame) > 0)


def _num(x) -> str:
    """3 significant digits and thousands separators: 1234.5 -> '1,234', 0.01234 -> '0.0123'."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def estimate_text(value, spread, low=np.nan, high=np.nan, lowest=np.nan, highest=np.nan) -> str:
    """'value ±spread% (low–high)': the geometric mean over the runs, their spread as sd / mean (from two runs on),
    and the interval where the rule gives one (evidence.MIN_UNITS runs), else the runs' range where they differ:
    '(runs lowest–highest)'."""
    if not np.isfinite(value):
        return "–"
    text = _num(value) + (f" ±{spread:.0%}" if np.isfinite(spread) and spread > 0 else "")
    if np.isfinite(low):
        return text + f" ({_num(low)}–{_num(high)})"
    if np.isfinite(lowest) and highest > lowest:
        return text + f" ({RUNS_RANGE} {_num(lowest)}–{_num(highest)})"
    return text


def split_constant(table: pd.DataFrame, keep: Iterable[str] = ()) -> tuple[pd.DataFrame, str]:
    """A table without the columns holding one value in every row (but `keep`), and those columns said once:
    'name=value ...' ('–' values left out). A table of one row keeps its columns."""
    shown, shared = present.constant_columns(table, keep)
    return shown, said(shared)


def said(shared: dict) -> str:
    """Columns every row shares as the page says them: 'name=value ...' ('–' values left out)."""
    return " ".join(f"{c}={v}" if c != "other" else str(v) for c, v in shared.items() if str(v) != "–")


def configuration_table(configs: pd.DataFrame, tool: str) -> tuple[pd.DataFrame, str]:
    """The configurations of one tool as shown, and what every one of them shares (split_constant): the main measure
    first, as 'geometric mean ±sd/mean (interval)' (estimate_text: in the fixed first column, in view at any width;
    issue 37), runs, label, workload, design, the parameters ('–' where the log does not state it), the other
    measures as 'geometric mean ±sd/mean', and fio's clat p99."""
    g = configs[configs["tool"] == tool] if len(configs) else configs
    if g.empty:
        return pd.DataFrame(), ""
    out = pd.DataFrame({"label": g["label"], "design": g["design"], "workload": g["workload"]})
    for p in PARAMETERS[tool]:
        if p != "rw":  # the workload says it
            out[SHOWN_NAMES.get(p, p)] = [shown_value(p, v) for v in g[p]]
    if tool in BOUNDED_BY_STONEWALL:  # a count the stonewall stops long before is a bound, not what was done
        stopped = g["stonewall"].notna().to_numpy()
        # IOR loops over segments, each a block: with several segments (ior-hard) the segment count is the bound
        several = ((pd.to_numeric(g["segments"], errors="coerce").fillna(1) > 1).to_numpy() if tool == "ior"
                   else np.zeros(len(g), dtype=bool))
        for column, rows in [(BOUNDED_BY_STONEWALL[tool], stopped & ~several), ("segments", stopped & several)]:
            if rows.any():
                out[column] = np.where(rows, "at most " + out[column].astype(str), out[column])
    m = MAIN_MEASURE[tool]
    out.insert(0, MEASURES[tool][m], [estimate_text(*v) for v in zip(
        g[m], g[f"{m}_spread"], g[f"{m}_low"], g[f"{m}_high"], g[f"{m}_min"], g[f"{m}_max"])])
    out.insert(1, "runs", g["runs"].astype(int))
    for other, name in MEASURES[tool].items():
        if other != m:
            out[name] = [estimate_text(a, s) for a, s in zip(g[other], g[f"{other}_spread"])]
    if tool == "fio":
        out["clat p99 (ms)"] = g["p99_ms"].map(_num)
    out["ranked"] = np.where(rankable(g), "yes", "no: " + RANK_RULE_SHORT)
    return split_constant(out.reset_index(drop=True), keep=[MEASURES[tool][m], "runs", "label", "workload"])


def sweeps_table(sweeps: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    return split_constant(sweeps.drop(columns=["sweep", "log_x"]).rename(columns={
        "x": "swept (x axis)", "lines": "one line per", "fixed": "the same in every run"}),
        keep=["label", "workload", "swept (x axis)"])


def _compared(frame: pd.DataFrame, descriptors: dict, keep: list[str]) -> tuple[Table, str]:
    """The kit's table of a frame of decided records (analysis.with_records), its descriptors (column -> values)
    but those every row shares (split_constant, but `keep`), which are said once."""
    shown = comparison.table(list(frame["record"]), pd.DataFrame(descriptors, index=range(len(frame))), keep=keep)
    return replace(shown, shared={}), said(shown.shared)  # said by the chapter's sentence above it


def effects_table(effects: pd.DataFrame) -> tuple[Table, str]:
    """Each sweep line's change, largest x over smallest, in its design (never pooled across designs): the sweep
    without the design its name may end in, which the design column says."""
    sweep = [s.replace(f" · {d}", "") for s, d in zip(effects["sweep"], effects["design"])]
    return _compared(effects, {"sweep": sweep, "design": effects["design"], "line": effects["line"],
                               "from → to": effects["x_name"] + " " + effects["x_from"] + " → " + effects["x_to"]},
                     keep=["line"])


def comparison_table(comparisons: pd.DataFrame) -> tuple[Table, str]:
    """The labels compared, each configuration by what tells it from the others (distinguishing), each side's
    design, and the setup fields the two sides' files (an IO500 run's, a setup.yml) state differently."""
    c = comparisons
    descriptors = {"label": c["label"], "configuration": configuration_names(c), "design": c["design"],
                   "baseline design": c["design_baseline"]}
    if "setups_differ" in c and c["setups_differ"].astype(bool).any():
        descriptors["setups differ in"] = c["setups_differ"].replace("", "nothing stated").to_numpy()
    return _compared(c, descriptors, keep=["label", "configuration"])


def tails_table(tails: pd.DataFrame) -> tuple[Table, str]:
    """Each latency percentile compared (the measure): the job, the label, the geometric means over each side's
    runs (ms), then the kit's ratio, interval and verdict."""
    t = tails
    return _compared(t, {"label": t["label"], "configuration": configuration_names(t),
                         "label (ms)": t["value_ms"].map(_num), "baseline (ms)": t["baseline_ms"].map(_num)},
                     keep=["label", "configuration"])


def curves_table(curves: pd.DataFrame) -> tuple[Table, str]:
    """Each curve compared: the summary ratio over its points with its interval and verdict, and the knee of each
    side. The kit says a one-sample record's other side is 'published': here it is the baseline's curve, each
    point paired with its own."""
    c = curves
    table, shared = _compared(c, {"curve": c["curve"], "swept (x axis)": c["x_name"],
                                  f"knee ({KNEE_SHARE:.0%} of the largest): baseline → label":
                                      c["knee_baseline"] + " → " + c["knee"],
                                  "knee moved": np.where(c["knee_moved"], "yes", "no")}, keep=["curve"])
    table.frame[comparison.UNITS] = [f"{n:,} paired sweep points" for n in c["points"]]
    return table, shared


def curve_points_table(points: pd.DataFrame) -> tuple[Table, str]:
    """Every point of every curve compared: its ratio over the baseline's point with its interval and verdict."""
    return _compared(points, {"curve": points["curve"], "x": points["x_shown"]}, keep=["curve", "x"])


def labels_table(runs: pd.DataFrame, setup: pd.DataFrame) -> pd.DataFrame:
    """Per label and what gave it: files, designs, configurations, runs and tools; and, where its files are IO500
    runs' phase logs, the validity audit's flags on those runs (io500_run_flags codes: the IO500 score chapter)."""
    columns = ["label", "labelled by", "files", "designs", "configurations", "runs", "tools"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    flags = runs["source_id"].map(setup.set_index("source_id")["flags"]) if len(setup) else pd.Series(index=runs.index)
    table = (runs.assign(by=runs["labelled_by"], flags=flags)
             .groupby(["label", "by"], sort=True)
             .agg(files=("source_id", "nunique"), designs=("design", "nunique"), configurations=("config", "nunique"),
                  runs=("unit", "size"), tools=("tool", lambda t: ", ".join(sorted(set(t)))),
                  flags=("flags", lambda f: ", ".join(sorted({c for v in f.dropna() for c in v.split(", ")}))))
             .reset_index().rename(columns={"by": "labelled by", "flags": "validity flags (IO500 runs)"}))
    return table if table["validity flags (IO500 runs)"].astype(bool).any() else table[columns]
