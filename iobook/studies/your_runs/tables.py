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
from ...inference.evidence import number
from .analysis import rankable
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


def estimate_text(value, spread, low=np.nan, high=np.nan, lowest=np.nan, highest=np.nan) -> str:
    """'value ±spread% (low–high)': the geometric mean over the runs, their spread as sd / mean (from two runs on),
    and the interval where the rule gives one (evidence.MIN_UNITS runs), else the runs' range where they differ:
    '(runs lowest–highest)'."""
    if not np.isfinite(value):
        return "–"
    text = number(value) + (f" ±{spread:.0%}" if np.isfinite(spread) and spread > 0 else "")
    if np.isfinite(low):
        return text + f" ({number(low)}–{number(high)})"
    if np.isfinite(lowest) and highest > lowest:
        return text + f" ({RUNS_RANGE} {number(lowest)}–{number(highest)})"
    return text


def split_constant(table: pd.DataFrame, keep: Iterable[str] = ()) -> tuple[pd.DataFrame, str]:
    """A table without the columns holding one value in every row (but `keep`), and those columns said once:
    'name=value ...' ('–' values left out). A table of one row keeps its columns."""
    shown, shared = present.constant_columns(table, keep)
    return shown, said(shared)


def said(shared: dict) -> str:
    """Columns every row shares as the page says them: 'name=value ...' ('–' and empty values left out)."""
    return " ".join(f"{c}={v}" if c != "other" else str(v) for c, v in shared.items() if str(v) not in ("–", ""))


NOT_RANKED = "not ranked"  # in a configuration's text: RANK_RULE_SHORT, said once under its table


def configuration_table(configs: pd.DataFrame, tool: str) -> tuple[pd.DataFrame, str]:
    """The configurations of one tool as shown, and what every one of them shares (split_constant): the main measure
    first, as 'geometric mean ±sd/mean (interval)' (estimate_text: in the fixed first column, in view at any width;
    issue 37), runs, label, workload, the configuration as one wrapping text (its design and the parameters that tell
    it from the others, those its log does not state left out; 15 to 18 columns of them did not fit the page at 1280
    px, issue 50), the other measures as 'geometric mean ±sd/mean', and fio's clat p99."""
    g = configs[configs["tool"] == tool] if len(configs) else configs
    if g.empty:
        return pd.DataFrame(), ""
    parameters = pd.DataFrame({"design": g["design"]})
    for p in PARAMETERS[tool]:
        if p != "rw":  # the workload says it
            parameters[SHOWN_NAMES.get(p, p)] = [shown_value(p, v) for v in g[p]]
    if tool in BOUNDED_BY_STONEWALL:  # a count the stonewall stops long before is a bound, not what was done
        stopped = g["stonewall"].notna().to_numpy()
        # IOR loops over segments, each a block: with several segments (ior-hard) the segment count is the bound
        several = ((pd.to_numeric(g["segments"], errors="coerce").fillna(1) > 1).to_numpy() if tool == "ior"
                   else np.zeros(len(g), dtype=bool))
        for column, rows in [(BOUNDED_BY_STONEWALL[tool], stopped & ~several), ("segments", stopped & several)]:
            if rows.any():
                parameters[column] = np.where(rows, "at most " + parameters[column].astype(str), parameters[column])
    parameters["ranked"] = np.where(rankable(g), "", NOT_RANKED)
    differing, shared = split_constant(parameters.reset_index(drop=True))
    m = MAIN_MEASURE[tool]
    out = pd.DataFrame({
        MEASURES[tool][m]: [estimate_text(*v) for v in zip(g[m], g[f"{m}_spread"], g[f"{m}_low"], g[f"{m}_high"],
                                                           g[f"{m}_min"], g[f"{m}_max"])],
        "runs": g["runs"].astype(int).to_numpy(), "label": g["label"].to_numpy(), "workload": g["workload"].to_numpy(),
        "configuration": [configuration_text(row) for _, row in differing.iterrows()] if len(differing.columns)
        else "–"})
    for other, name in MEASURES[tool].items():
        if other != m:
            out[name] = [estimate_text(a, s) for a, s in zip(g[other], g[f"{other}_spread"])]
    if tool == "fio":
        out["clat p99 (ms)"] = g["p99_ms"].map(number).to_numpy()
    # a column every row shares tells no row apart (the label of a one-label data set, a measure no run has)
    shown, said_too = split_constant(out, keep=[MEASURES[tool][m], "runs", "label", "workload"])
    return shown, " ".join(x for x in (shared, said_too) if x)


def configuration_text(row: pd.Series) -> str:
    """A configuration's design and parameters as one text: 'collector run vm-…; bs=1M iodepth=16 direct=1 …' ('–'
    values, which the log does not state, and an empty rank left out; fio's other options and labels as they are)."""
    design = row.get("design")
    parameters = " ".join(str(v) if c == "other" else (v if c == "ranked" else f"{c}={v}")
                          for c, v in row.items() if c != "design" and str(v) not in ("–", ""))
    return "; ".join(x for x in (design, parameters) if x) or "–"


def sweeps_table(sweeps: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The sweeps found: label, tool and workload, design, what is swept, and in one wrapping column what draws one
    line each and what stays fixed (nine columns did not fit the page at 1280 px); configurations and measure."""
    lines = ["; ".join(x for x in (f"one line per {n}" if n != "–" else "", f"fixed: {f}" if f else "") if x) or "–"
             for n, f in zip(sweeps["lines"], sweeps["fixed"])]
    frame = pd.DataFrame({"label": sweeps["label"], "workload": sweeps["tool"] + " " + sweeps["workload"],
                          "design": sweeps["design"], "swept (x axis)": sweeps["x"], "lines and fixed": lines,
                          "configurations": sweeps["configurations"], "measure": sweeps["measure"]})
    return split_constant(frame.reset_index(drop=True), keep=["label", "workload", "swept (x axis)"])


def _compared(frame: pd.DataFrame, descriptors: dict, keep: list[str]) -> tuple[Table, str]:
    """The kit's table of a frame of decided records (analysis.with_records), its descriptors (column -> values)
    but those every row shares (split_constant, but `keep`), which are said once."""
    shown = comparison.table(list(frame["record"]), pd.DataFrame(descriptors, index=range(len(frame))), keep=keep)
    return replace(shown, shared={}), said(shown.shared)  # said by the chapter's sentence above it


def effects_table(effects: pd.DataFrame) -> tuple[Table, str]:
    """Each sweep line's change, largest x over smallest, in its design (never pooled across designs): the sweep
    without the design its name may end in, and the design and line in one wrapping column (apart, they pushed the
    verdict past the page at 1280 px)."""
    sweep = [s.replace(f" · {d}", "") for s, d in zip(effects["sweep"], effects["design"])]
    line = [d if x == "all" else f"{d}; {x}" for d, x in zip(effects["design"], effects["line"])]
    return _compared(effects, {"sweep": sweep, "design; line": line,
                               "from → to": effects["x_name"] + " " + effects["x_from"] + " → " + effects["x_to"]},
                     keep=["design; line"])


def comparison_table(comparisons: pd.DataFrame) -> tuple[Table, str]:
    """The labels compared, each configuration by what tells it from the others (distinguishing), each side's
    design, and the setup fields the two sides' files (an IO500 run's, a setup.yml) state differently."""
    c = comparisons
    descriptors = {"label": c["label"], "configuration": configuration_names(c), "design": c["design"],
                   "baseline design": c["design_baseline"]}
    if "setups_differ" in c and c["setups_differ"].astype(bool).any():
        descriptors["setups differ in"] = c["setups_differ"].replace("", "nothing stated").to_numpy()
    # one label compared in every row: said once above the table (a system's name with its "(early pre-GA build)"
    # stood in every row)
    return _compared(c, descriptors, keep=["configuration"])


def tails_table(tails: pd.DataFrame) -> tuple[Table, str]:
    """Each latency percentile compared (the measure): the job, the label, the geometric means over each side's
    runs (ms) in one column, then the kit's ratio, interval and verdict."""
    t = tails
    return _compared(t, {"label": t["label"], "configuration": configuration_names(t),
                         "label / baseline (ms)": [f"{number(a)} / {number(b)}" for a, b in zip(t["value_ms"], t["baseline_ms"])]},
                     keep=["label", "configuration"])


def curves_table(curves: pd.DataFrame) -> tuple[Table, str]:
    """Each curve compared: the summary ratio over its points with its interval and verdict, and the knee of each
    side and whether it moved. The kit says a one-sample record's other side is 'published': here it is the baseline's curve, each
    point paired with its own."""
    c = curves
    table, shared = _compared(c, {"curve": c["curve"], "swept (x axis)": c["x_name"],
                                  f"knee ({KNEE_SHARE:.0%} of the largest): baseline → label":
                                      c["knee_baseline"] + " → " + c["knee"]
                                      + np.where(c["knee_moved"], ", moved", ", did not move")}, keep=["curve"])
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
