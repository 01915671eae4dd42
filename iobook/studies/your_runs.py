"""Your runs: every IOR, mdtest and fio run in the database, whatever folders it came from, grouped into run
configurations, with their repetitions, the sweeps they form and the labels they compare.

- A *configuration* is a label, a tool, a workload (fio's rw, with the direction when rw mixes them; IOR's
  access; mdtest's phase) and the parameters the log states (PARAMETERS). A parameter the log does not state
  is unknown (None), never a default filled in. fio's JSON options not in PARAMETERS (except those naming
  files, logs or output: IGNORED_OPTIONS) and a collector's manifest labels (except those saying how a step ran: MANIFEST_CONDITION_KEYS)
  are parameters too, in `other`.
- A *repetition* is one measured value: one fio job's result in one file, one IOR iteration, or one mdtest
  SUMMARY row, which is the mean (and sample sd) of the iterations it says it summarises.
- A run's *label*: the first matching pattern of the nearest `labels.yml` / `labels.csv` above its file
  (path glob: label), else the system of the IO500 run whose phase log it is, else its file's top folder
  under the data's root (the deepest folder holding every file ingested).
"""
from __future__ import annotations

import html
import json
import math
import os
import re
import shlex
from collections.abc import Iterable
from pathlib import PurePosixPath

import altair as alt
import numpy as np
import pandas as pd
from IPython.display import HTML

from .. import charts, labels, nb, stats
from ..units import MIB

TOOLS = ("fio", "ior", "mdtest")
HOW_TO_ADD = ("Build the book on folders of fio (JSON or text), IOR or mdtest output: "
              "`make book DATA=\"results/system-a results/system-b\"`. Each file's top folder names its label; "
              "a `labels.yml` beside the data (path glob: label) names them otherwise.")

# The parameters that define a configuration, per tool, in the order shown; fio's `other` holds the rest.
PARAMETERS = {
    "fio": ["rw", "bs", "iodepth", "numjobs", "direct", "ioengine", "size", "other"],
    "ior": ["api", "transfer", "block", "segments", "tasks", "nodes", "file_per_proc", "collective",
            "ordering_in_file", "ordering_inter_file"],
    "mdtest": ["items", "item_kind", "tasks", "nodes", "branching", "depth", "unique_dir", "write_bytes",
               "read_bytes"],
}
ALL_PARAMETERS = list(dict.fromkeys(p for ps in PARAMETERS.values() for p in ps))
SHOWN_NAMES = {"file_per_proc": "file per process", "ordering_in_file": "offsets", "ordering_inter_file": "reorder",
               "unique_dir": "unique dir", "item_kind": "items are", "write_bytes": "write bytes",
               "read_bytes": "read bytes"}
# Sizes in bytes, as fio writes them ("4k", "1m") or as numbers of bytes (IOR, mdtest).
BYTE_PARAMETERS = {"bs", "size", "transfer", "block", "write_bytes", "read_bytes"}
# fio options that name files, logs or output, or only shape the report: not part of what was measured.
IGNORED_OPTIONS = {
    "name", "filename", "directory", "filename_format", "description", "output", "output-format",
    "write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log", "log_avg_msec", "log_hist_msec",
    "log_max_value", "log_offset", "log_prio", "per_job_logs", "group_reporting", "stonewall", "new_group",
    "wait_for", "verify_state_save", "verify_state_load",
}
OTHER_SEPARATOR = ", "  # between fio's other options and manifest labels (a label's value may hold spaces)
FIO_NAMED = {"rw", "readwrite", "bs", "blocksize", "iodepth", "numjobs", "direct", "ioengine", "size"}
# Labels a collector gives a step that say how it ran, not what was run: the repetition counter, the quiet-machine
# check's readings (scripts/collectlib.py LoadGate.LABELS; a test keeps them in step) and the end-of-run baseline.
MANIFEST_CONDITION_KEYS = ["repetition", "busy_before_pct", "busy_after_pct", "busy_others_during_pct", "wait_s",
                           "under_load", "attempt", "drift_check"]
FIO_SINGLE = {"read": {"read", "randread"}, "write": {"write", "randwrite"}, "trim": {"trim", "randtrim"}}

# Measures, per tool: column -> name shown, with its unit. All are positive (rates, latencies).
MEASURES = {"fio": {"bw_mib_s": "bandwidth (MiB/s)", "ops_s": "IOPS", "lat_ms": "latency (ms)"},
            "ior": {"bw_mib_s": "bandwidth (MiB/s)", "ops_s": "IOPS", "lat_ms": "latency (ms)"},
            "mdtest": {"ops_s": "rate (ops/s)"}}
MEASURE_COLUMNS = ["bw_mib_s", "ops_s", "lat_ms"]
PERCENTILES = ["p50_ms", "p99_ms", "p999_ms"]  # fio's completion latency percentiles
MAIN_MEASURE = {"fio": "bw_mib_s", "ior": "bw_mib_s", "mdtest": "ops_s"}  # what sweeps and comparisons use
MAX_SWEEP_PARAMETERS = 3  # configurations varying in more parameters at once are not one sweep
MAX_SWEEP_LINES = 8
MIN_SWEEP_VALUES = 3  # an x axis of two values is a comparison of two configurations, not a sweep


def _values(column: pd.Series) -> list:
    """A column's values with None for missing ones (pandas gives NaN or NA)."""
    return column.astype(object).where(column.notna(), None).tolist()


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


# --- labels ------------------------------------------------------------------------------------------------

def data_root(con) -> PurePosixPath | None:
    """The deepest folder holding every file the database read (and did not lose since)."""
    folders = [str(PurePosixPath(p).parent) for (p,) in
               con.execute("SELECT path FROM sources WHERE status <> 'gone'").fetchall()]
    return PurePosixPath(os.path.commonpath(folders)) if folders else None


def io500_systems(con) -> dict[int, str]:
    """source_id -> the system of the IO500 run whose phase log the file is (io500_phase_log_links); the
    institution, then the file system, are added where the name alone is not unique among those runs."""
    df = con.execute(
        """
        SELECT DISTINCT l.source_id, r.institution, r.system, r.filesystem
        FROM io500_phase_log_links l JOIN io500_runs r USING (run_id) WHERE r.system IS NOT NULL
        """).df()
    if df.empty:
        return {}
    name = df["system"].astype(str)
    for extra in ("institution", "filesystem"):
        shared = df.groupby(name)[extra].transform("nunique") > 1
        name = name.where(~shared, name + " · " + df[extra].astype(str))
    return dict(zip(df["source_id"].astype(int), name))


def get_labels(con, source_ids: Iterable[int]) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Each source's label and what gave it (`labelled_by`: a labels file's pattern, 'IO500 run' or
    'folder'); the labels files found (file, patterns, files labelled); and notes (a labels file that
    cannot be used, patterns that label nothing), the paths in them as readers see them."""
    ids = sorted({int(s) for s in source_ids})
    paths = dict(con.execute("SELECT source_id, path FROM sources WHERE list_contains(?, source_id)", [ids]).fetchall())
    root = data_root(con)
    label_files = labels.label_files(con)
    shown = dict(zip([p for p, _ in label_files], nb.reader_paths(con, pd.Series([p for p, _ in label_files], dtype=str))))
    notes, rules = [], {}
    for path, sha in label_files:
        rules[path], problems = labels.read_rules(path, sha)
        notes += [f"{shown[path]}: {problem}" for problem in problems]
    systems = io500_systems(con)
    used: dict[tuple[str, int], int] = {}
    rows = []
    for source_id in ids:
        path = PurePosixPath(paths[source_id])
        label = by = None
        match = labels.first_match(rules, path)
        if match is not None and (fields := rules[match[0]][match[1]][1]).get("label", fields.get("system")):
            labels_path, hit = match
            label, by = fields.get("label", fields.get("system")), f"{shown[labels_path]}: {rules[labels_path][hit][0]}"
            used[match] = used.get(match, 0) + 1
        if label is None and source_id in systems:
            label, by = systems[source_id], "IO500 run"
        if label is None:
            parts = path.relative_to(root).parts if root is not None and path.is_relative_to(root) else path.parts
            label, by = (parts[0] if len(parts) > 1 else (root.name if root is not None else path.parent.name)), "folder"
        rows.append({"source_id": source_id, "label": label, "labelled_by": by})
    files = []
    for labels_path, file_rules in rules.items():
        unused = [p for i, (p, _) in enumerate(file_rules) if (labels_path, i) not in used]
        if unused:
            notes.append(f"{shown[labels_path]}: {len(unused)} pattern(s) label no fio, IOR or mdtest file: "
                         + ", ".join(unused[:5]) + (", …" if len(unused) > 5 else ""))
        files.append({"labels file": shown[labels_path], "patterns": len(file_rules),
                      "files labelled": sum(n for (lp, _), n in used.items() if lp == labels_path)})
    return (pd.DataFrame(rows, columns=["source_id", "label", "labelled_by"]),
            pd.DataFrame(files, columns=["labels file", "patterns", "files labelled"]), notes)


# --- repetitions: one row per measured value -----------------------------------------------------------------

def _fio_workload(rw: str | None, direction: str) -> str:
    if rw is None:
        return direction
    return rw if rw in FIO_SINGLE.get(direction, ()) else f"{rw} ({direction})"


def _fio_other(options: str | None, manifest: str | None) -> str | None:
    """The defining options not in PARAMETERS, 'key=value' sorted, then a collector's manifest labels but those
    that repeat an option (the checksum collector labels its runs bs=1M, verify=md5, ... as it set them)."""
    opts = json.loads(options) if options else {}
    parts = [f"{k}={v}" if v != "" else k for k, v in sorted(opts.items()) if k not in IGNORED_OPTIONS | FIO_NAMED]
    given = {f"{k}={v}" for k, v in opts.items()}
    parts += [label for label in (manifest.split(OTHER_SEPARATOR) if manifest else []) if label not in given]
    return OTHER_SEPARATOR.join(parts) or None


def get_fio(con) -> pd.DataFrame:
    """One row per fio result (job and direction) per file; the jobs of one group with equal options in a file
    are summed (fio without group_reporting prints each of numjobs' jobs): bandwidth (MiB/s), IOPS, the mean
    total latency and the completion-latency percentiles (ms; only for a single job: percentiles do not add
    up). Jobs that reported an error are left out."""
    df = con.execute(
        """
        WITH manifest AS (
            SELECT source_id, string_agg(DISTINCT key || '=' || value, ', ' ORDER BY key || '=' || value) AS manifest
            FROM run_labels WHERE source_id IS NOT NULL AND NOT list_contains(?, key) GROUP BY source_id
        )
        SELECT j.source_id, j.groupid, j.rw, j.bs, j.iodepth, j.numjobs, j.direct, j.ioengine, j.size, j.options,
               m.manifest, io.direction, count(*) AS entries, sum(io.bw_bytes_s) / ? AS bw_mib_s,
               sum(io.iops) AS ops_s, max(io.lat_mean_ns) / 1e6 AS lat_ms, max(io.lat_p50_ns) / 1e6 AS p50_ms,
               max(io.lat_p99_ns) / 1e6 AS p99_ms, max(io.lat_p999_ns) / 1e6 AS p999_ms
        FROM fio_jobs j JOIN fio_io io USING (job_id) LEFT JOIN manifest m USING (source_id)
        WHERE coalesce(j.error, 0) = 0 AND io.bw_bytes_s > 0
        GROUP BY ALL
        ORDER BY j.source_id, j.groupid, io.direction
        """,
        [MANIFEST_CONDITION_KEYS, MIB],
    ).df()
    df.loc[df["entries"] > 1, ["lat_ms", *PERCENTILES]] = np.nan
    df["workload"] = [_fio_workload(rw, d) for rw, d in zip(_values(df["rw"]), df["direction"])]
    df["other"] = [_fio_other(o, m) for o, m in zip(_values(df["options"]), _values(df["manifest"]))]
    df["repetition"] = "file"
    df["n"], df["sd"] = 1, 0.0
    return df.drop(columns=["options", "manifest", "entries", "groupid", "direction"])


def get_ior(con) -> pd.DataFrame:
    """One row per IOR iteration of a write or read: bandwidth (MiB/s), IOPS and IOR's Latency(s) column (ms)."""
    df = con.execute(
        """
        SELECT t.source_id, t.api, t.transfer_bytes AS transfer, t.block_bytes AS block, t.segments,
               t.tasks, t.nodes, t.file_per_proc, t.collective, t.ordering_in_file, t.ordering_inter_file,
               i.access AS workload, i.iteration, i.bw_mib_s, i.iops AS ops_s, i.latency_s * 1000 AS lat_ms
        FROM ior_tests t JOIN ior_iterations i USING (test_id)
        WHERE i.access IN ('write', 'read') AND i.bw_mib_s > 0
        ORDER BY t.source_id, t.test_index, i.access, i.iteration
        """).df()
    df["repetition"] = "iteration " + df["iteration"].astype(str)
    df["n"], df["sd"] = 1, 0.0
    return df.drop(columns=["iteration"])


def mdtest_options(command: str | None) -> dict:
    """Tree shape, unique folders and file sizes as mdtest's command line set them: -b (branching), -z
    (depth), -w and -e (bytes written and read per file), -u. A valued option not on the line is unknown
    (mdtest's default applies, which the log does not print); a flag not on a known line is off."""
    valued = {"-b": "branching", "-z": "depth", "-w": "write_bytes", "-e": "read_bytes"}
    out: dict = dict.fromkeys([*valued.values(), "unique_dir"])
    if not command:
        return out
    try:
        words = shlex.split(command)  # mdtest 3.4+ quotes every word: mdtest '-n' '1000' ...
    except ValueError:  # an unbalanced quote: the words as they stand
        words = command.split()
    out["unique_dir"] = "-u" in words
    for i, word in enumerate(words):
        flag = word[:2]
        if flag in valued and not word.startswith("--"):
            value = word[2:].lstrip("=") or (words[i + 1] if i + 1 < len(words) else "")
            if value.isdigit():
                out[valued[flag]] = int(value)
    return out


def get_mdtest(con) -> pd.DataFrame:
    """One row per rate (ops/s) an mdtest SUMMARY printed, with the iterations it is the mean of and their
    sample sd (mdtest 4.x prints sd with n - 1). Phases the run did not do (printed as 0) are left out."""
    df = con.execute(
        """
        SELECT r.source_id, r.command, r.items, r.item_kind, r.tasks, r.nodes, r.iterations AS n,
               x.operation AS workload, x.mean AS ops_s, x.stddev AS sd
        FROM mdtest_runs r JOIN mdtest_results x USING (mdtest_id)
        WHERE x.table_kind = 'rate' AND x.mean > 0
        ORDER BY r.source_id, r.summary_index, x.line
        """).df()
    tree = pd.DataFrame([mdtest_options(c) for c in _values(df["command"])], index=df.index,
                        columns=["branching", "depth", "write_bytes", "read_bytes", "unique_dir"])
    df = pd.concat([df.drop(columns=["command"]), tree], axis=1)
    df["sd"] = df["sd"].where(df["n"] > 1, 0.0)
    df["repetition"] = "mean of " + df["n"].astype(str) + " iteration(s)"
    return df


def get_repetitions(con) -> pd.DataFrame:
    """Every measured value of every fio, IOR and mdtest run, one row each: label, labelled_by, tool,
    workload, the parameters (ALL_PARAMETERS; None where the tool has no such parameter or its log does not
    state it), `parameters` (the known ones as text), `config` (equal for equal label, tool, workload and
    parameters), the file as readers see it, n and sd (an mdtest row is a mean of n iterations), and the
    measures (MEASURE_COLUMNS, PERCENTILES)."""
    columns = ["label", "labelled_by", "tool", "workload", *ALL_PARAMETERS, "parameters", "config", "source_id",
               "file", "repetition", "n", "sd", *MEASURE_COLUMNS, *PERCENTILES]
    parts = [part.assign(tool=tool) for tool, get in (("fio", get_fio), ("ior", get_ior), ("mdtest", get_mdtest))
             if len(part := get(con))]
    if not parts:
        return pd.DataFrame(columns=columns)
    df = pd.concat(parts, ignore_index=True)
    for column in [*ALL_PARAMETERS, *MEASURE_COLUMNS, *PERCENTILES]:
        if column not in df:
            df[column] = None
    labels, _, _ = get_labels(con, df["source_id"])
    df = df.merge(labels, on="source_id", how="left")
    paths = dict(con.execute("SELECT source_id, path FROM sources WHERE list_contains(?, source_id)",
                             [sorted({int(s) for s in df["source_id"]})]).fetchall())
    df["file"] = nb.reader_paths(con, df["source_id"].map(paths))
    params = [dict(zip(ALL_PARAMETERS, row)) for row in zip(*(_values(df[p]) for p in ALL_PARAMETERS))]
    df["parameters"] = [parameter_text(tool, p) for tool, p in zip(df["tool"], params)]
    df["config"] = [json.dumps([label, tool, workload, [_plain(p[k]) for k in ALL_PARAMETERS]])
                    for label, tool, workload, p in zip(df["label"], df["tool"], df["workload"], params)]
    for column in ALL_PARAMETERS:
        df[column] = pd.Series([p[column] for p in params], index=df.index, dtype=object)
    return df[columns]


def _plain(value):
    """A parameter value as JSON takes it (numpy scalars to Python; whole floats to int)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) or (isinstance(value, (float, np.floating)) and float(value).is_integer()):
        return int(value)
    return value if isinstance(value, str) else float(value)


def config_without_label(config: str) -> str:
    """A configuration key that leaves the label out: equal for the same run on two labels."""
    return json.dumps(json.loads(config)[1:])


# --- how parameters read ----------------------------------------------------------------------------------------

FIO_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?", re.I)
SIZE_FACTOR = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
FIO_TEXT_BS = re.compile(r"\(R\)\s*([\d.]+[KMGTP]?i?B)-([\d.]+[KMGTP]?i?B)")


def size_bytes(value) -> float | None:
    """A size in bytes: numbers as they are; fio's '4k', '64KiB', '1m' (powers of 1024, fio's default
    kb_base) and the '(R) 64.0KiB-64.0KiB, (W) ...' of its text output when reads have one size. None for
    what is not one size (a range, one size per direction, a percentage)."""
    if _missing(value):
        return None
    if not isinstance(value, str):
        return float(value)
    text = value.strip()
    if m := FIO_TEXT_BS.match(text):
        if m.group(1) != m.group(2):
            return None
        text = m.group(1)
    m = FIO_SIZE.fullmatch(text)
    return float(m.group(1)) * SIZE_FACTOR[m.group(2).lower()] if m else None


def binary_size(n) -> str:
    """Bytes in the largest binary unit that divides them: 1048576 -> '1 MiB', 47008 -> '47008 B'."""
    n = int(n)
    for unit, factor in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


def shown_value(parameter: str, value) -> str:
    """A parameter's value as the reader sees it: '–' unknown, yes/no, sizes in binary units unless fio's."""
    if _missing(value):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        if FIO_TEXT_BS.match(value) and (number := size_bytes(value)) is not None and number.is_integer():
            return binary_size(number)  # fio's text output: "(R) 64.0KiB-64.0KiB, (W) ..."
        return value
    if parameter in BYTE_PARAMETERS:
        return binary_size(value)
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def parameter_text(tool: str, values: dict, only: Iterable[str] | None = None) -> str:
    """'bs=4k iodepth=16 ...': the known parameters of a tool (or of `only` these), as the reader sees them."""
    names = [p for p in PARAMETERS[tool] if only is None or p in only]
    return " ".join(str(values[p]) if p == "other" else f"{SHOWN_NAMES.get(p, p)}={shown_value(p, values[p])}"
                    for p in names if not _missing(values.get(p)))


def _sort_key(parameter: str, value):
    """Configurations sort by parameter values: unknown first, then numbers (sizes by bytes), then text."""
    if _missing(value):
        return (0, 0.0, "")
    number = size_bytes(value) if parameter in BYTE_PARAMETERS else (
        float(value) if isinstance(value, (int, float, np.integer, np.floating)) else None)
    return (1, number, "") if number is not None else (2, 0.0, str(value))


# --- configurations -------------------------------------------------------------------------------------------

def get_configurations(reps: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """One row per configuration: label, tool, workload, parameters, files, repetitions (the n of its main
    measure), and per measure its n, mean, sample sd (stats.pooled over the repetitions) and positive interval
    (stats.positive_interval; NaN below two repetitions); fio's percentiles as the mean over repetitions.
    Sorted by label, tool, workload, then parameter values."""
    if reps.empty:
        return pd.DataFrame()
    firsts = reps.drop_duplicates("config").set_index("config")
    numbers = reps[["config", "source_id", "n", "sd", *MEASURE_COLUMNS, *PERCENTILES]]
    rows = []
    for config, g in numbers.groupby("config", sort=False):
        first = firsts.loc[config]
        row = {"config": config, **{c: first[c] for c in ["label", "tool", "workload", *ALL_PARAMETERS, "parameters"]}}
        row["files"] = g["source_id"].nunique()
        n, sd = g["n"].to_numpy(dtype=float), g["sd"].to_numpy(dtype=float)
        for m in MEASURE_COLUMNS:
            values = g[m].to_numpy(dtype=float)
            known = ~np.isnan(values)
            if not known.any():
                row.update({f"{m}_n": 0, m: np.nan, f"{m}_sd": np.nan, f"{m}_low": np.nan, f"{m}_high": np.nan})
                continue
            # only mdtest's rate rows stand for several iterations (sd over them); any other value is one value
            s = stats.pooled(n[known], values[known], sd[known] if m == "ops_s" else np.zeros(known.sum()))
            low, high = stats.positive_interval(s.n, s.mean, s.sd, confidence)
            row.update({f"{m}_n": s.n, m: s.mean, f"{m}_sd": s.sd, f"{m}_low": low, f"{m}_high": high})
        for p in PERCENTILES:
            row[p] = g[p].mean()
        row["repetitions"] = row[f"{MAIN_MEASURE[first['tool']]}_n"]
        rows.append(row)
    out = pd.DataFrame(rows)
    keys = pd.DataFrame({"label": out["label"], "tool": out["tool"], "workload": out["workload"],
                         **{p: [_sort_key(p, v) for v in out[p]] for p in ALL_PARAMETERS}})
    return out.loc[keys.sort_values(list(keys.columns)).index].reset_index(drop=True)


def _num(x) -> str:
    """3 significant digits and thousands separators: 1234.5 -> '1,234', 0.01234 -> '0.0123'."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def estimate_text(mean, sd, low=np.nan, high=np.nan) -> str:
    """'mean ±cv% (low–high)': the mean, the spread of the repetitions as sd / mean (from two on), and the
    interval of the mean where there is one."""
    if not np.isfinite(mean):
        return "–"
    text = _num(mean) + (f" ±{sd / mean:.0%}" if np.isfinite(sd) and sd > 0 else "")
    return text + (f" ({_num(low)}–{_num(high)})" if np.isfinite(low) else "")


def split_constant(table: pd.DataFrame, keep: Iterable[str] = ()) -> tuple[pd.DataFrame, str]:
    """A table without the columns holding one value in every row (but `keep`), and those columns said once:
    'name=value ...' ('–' values left out). A table of one row keeps its columns."""
    if len(table) < 2:
        return table, ""
    constant = [c for c in table.columns if c not in keep and table[c].astype(str).nunique() == 1]
    said = " ".join(f"{c}={table[c].iloc[0]}" if c != "other" else str(table[c].iloc[0])
                    for c in constant if str(table[c].iloc[0]) != "–")
    return table.drop(columns=constant), said


def configuration_table(configs: pd.DataFrame, tool: str, confidence: float = 0.95) -> tuple[pd.DataFrame, str]:
    """The configurations of one tool as shown, and what every one of them shares (split_constant): label,
    workload, the parameters ('–' where the log does not state it), repetitions, the main measure as 'mean
    ±sd/mean (interval)' (the interval at `confidence`), the others as 'mean ±sd/mean', and fio's clat p99."""
    g = configs[configs["tool"] == tool] if len(configs) else configs
    if g.empty:
        return pd.DataFrame(), ""
    out = pd.DataFrame({"label": g["label"], "workload": g["workload"]})
    for p in PARAMETERS[tool]:
        if p != "rw":  # the workload says it
            out[SHOWN_NAMES.get(p, p)] = [shown_value(p, v) for v in g[p]]
    out["n"] = g["repetitions"].astype(int)
    for m, name in MEASURES[tool].items():
        if m == MAIN_MEASURE[tool]:
            out[name] = [
                estimate_text(*v) for v in zip(g[m], g[f"{m}_sd"], g[f"{m}_low"], g[f"{m}_high"])]
        else:
            out[name] = [estimate_text(a, sd) for a, sd in zip(g[m], g[f"{m}_sd"])]
    if tool == "fio":
        out["clat p99 (ms)"] = g["p99_ms"].map(_num)
    return split_constant(out.reset_index(drop=True), keep=["label", "workload", "n"])


def configuration_numbers(configs: pd.DataFrame) -> pd.DataFrame:
    """Every configuration with its parameters and measures as numbers, for the download."""
    if configs.empty:
        return configs
    keep = ["label", "tool", "workload", *ALL_PARAMETERS, "files", "repetitions"]
    keep += [f"{m}{s}" for m in MEASURE_COLUMNS for s in ("_n", "", "_sd", "_low", "_high")] + PERCENTILES
    return configs[keep]


# --- sweeps --------------------------------------------------------------------------------------------------------

def numeric_values(parameter: str, values: pd.Series) -> pd.Series | None:
    """The parameter's values as numbers (sizes in bytes), or None when one of them is not a number."""
    if parameter in BYTE_PARAMETERS:
        numbers = values.map(size_bytes)
    elif values.map(lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))).all():
        numbers = values.astype(float)
    else:
        return None
    return None if numbers.isna().any() else numbers.astype(float)


# What compare (labels compared, below) gives for two configurations; a sweep's ends are compared as labels are.
COMPARED = ["n", "n_baseline", "mean", "mean_baseline", "ratio_of", "ratio", "low", "high", "p_welch", "method",
            "decided", "n_to_decide"]
GEOMETRIC_MEAN, MEAN = "geometric mean", "mean"  # what a comparison's ratio is of (its `ratio_of`)
SWEEP_COLUMNS = ["sweep", "label", "tool", "workload", "x", "lines", "fixed", "configurations", "measure", "log_x"]
POINT_COLUMNS = ["sweep", "tool", "workload", "x", "x_shown", "x_name", "line", "mean", "low", "high", "n", "measure",
                 "config"]


def get_sweeps(configs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Sweeps found in the configurations. Within one label, tool and workload, the configurations that
    state the same parameters (a text log stating fewer than a JSON one is a set of its own) and the same
    other options and collector labels (fio's `other`: text, never an axis, and unreadable as a line) and
    differ in 1 to MAX_SWEEP_PARAMETERS of them. The x axis is the differing numeric parameter with the most
    values, at least MIN_SWEEP_VALUES (sizes in KiB; log scale when it spans 10x or more); each combination of
    the other differing ones is a line (at most MAX_SWEEP_LINES, of 2 points on average at least: runs that
    merely differ, as IO500 submissions do, are scattered points, not a sweep). Returns one row per sweep and
    one point per configuration (x, line, the tool's main measure with its interval, its `config` key)."""
    sweeps, points = [], []
    if configs.empty:
        return pd.DataFrame(columns=SWEEP_COLUMNS), pd.DataFrame(columns=POINT_COLUMNS)
    stated = configs[ALL_PARAMETERS].notna().apply(tuple, axis=1)
    other = configs["other"].fillna("")
    for (label, tool, workload, _, _), g in configs.groupby(
            [configs["label"], configs["tool"], configs["workload"], stated, other], sort=False):
        params = [p for p in PARAMETERS[tool] if p != "other" and g[p].notna().all()]
        varying = [p for p in params if g[p].map(_plain).nunique() > 1]
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
        name = f"{label} · {tool} {workload}"
        taken = sum(sw["sweep"] == name or sw["sweep"].startswith(name + " (") for sw in sweeps)
        name += f" ({taken + 1})" if taken else ""  # configurations of one workload stating other parameters
        x_name = SHOWN_NAMES.get(x, x) + (" (KiB)" if kib else "")
        sweeps.append({"sweep": name, "label": label, "tool": tool, "workload": workload, "x": x_name,
                       "lines": ", ".join(SHOWN_NAMES.get(p, p) for p in others) or "–",
                       "fixed": parameter_text(tool, g.iloc[0].to_dict(), [p for p in params if p not in varying]),
                       "configurations": len(g), "measure": MEASURES[tool][measure],
                       "log_x": bool(xs.max() >= 10 * xs.min() > 0)})
        for (_, r), xv, raw, line in zip(g.iterrows(), xs, g[x], lines):
            points.append({"sweep": name, "tool": tool, "workload": workload, "x": xv, "x_shown": shown_value(x, raw if not kib else size_bytes(raw)),
                           "x_name": SHOWN_NAMES.get(x, x), "line": line, "mean": r[measure],
                           "low": r[f"{measure}_low"], "high": r[f"{measure}_high"], "n": r[f"{measure}_n"],
                           "measure": MEASURES[tool][measure], "config": r["config"]})
    return pd.DataFrame(sweeps, columns=SWEEP_COLUMNS), pd.DataFrame(points, columns=POINT_COLUMNS)


EFFECT_COLUMNS = ["sweep", "tool", "workload", "line", "x_name", "x_from", "x_to", "measure", *COMPARED]


def sweep_effects(reps: pd.DataFrame, configs: pd.DataFrame, points: pd.DataFrame,
                  confidence: float = 0.95) -> pd.DataFrame:
    """Per sweep and line: the largest-x configuration compared with the smallest-x one as two labels are
    (compare: the smallest x is the baseline, `mean_baseline` its main measure's mean, `mean` the largest x's)."""
    if points.empty:
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    by_config = configs.set_index("config", drop=False)
    rows = []
    for (sweep, line), g in points.groupby(["sweep", "line"], sort=False):
        if len(g) < 2:
            continue
        g = g.sort_values("x")
        lo, hi = g.iloc[0], g.iloc[-1]
        rows.append({"sweep": sweep, "tool": lo["tool"], "workload": lo["workload"], "line": line,
                     "x_name": lo["x_name"], "x_from": lo["x_shown"], "x_to": hi["x_shown"], "measure": lo["measure"],
                     **compare(reps, by_config.loc[hi["config"]], by_config.loc[lo["config"]], confidence)})
    return pd.DataFrame(rows, columns=EFFECT_COLUMNS)


MAX_SWEEP_PANELS = 24  # ~19 KB of SVG a panel: 36 put the sweep example's page over 1.5 MB; the rest are in the table


def sweep_order(sweeps: pd.DataFrame) -> pd.DataFrame:
    """Sweeps in the order they are drawn: by tool (TOOLS), mdtest's file phases before its directory and tree
    phases, then workload and label, so that one row of panels is one workload on every label."""
    phase = sweeps["workload"].map(lambda w: 2 if w.startswith("Tree ") else 1 if w.startswith("Directory ") else 0)
    keys = pd.DataFrame({"tool": sweeps["tool"].map(TOOLS.index), "phase": phase, "workload": sweeps["workload"],
                         "label": sweeps["label"], "sweep": sweeps["sweep"]})
    return sweeps.loc[keys.sort_values(list(keys.columns)).index]


def chart_sweeps(sweeps: pd.DataFrame, points: pd.DataFrame):
    """One panel per sweep (the first MAX_SWEEP_PANELS in sweep_order): the main measure's mean over the swept
    parameter, one line per combination of the other differing parameters, its interval as a vertical rule.
    Panels with the same x parameter and measure form one chart, a row per workload and a column per label
    (up to three), each panel with its own y axis."""
    import textwrap

    shown = sweep_order(sweeps).head(MAX_SWEEP_PANELS)
    charts = []
    for (x_name, measure, log_x), s in shown.groupby(["x", "measure", "log_x"], sort=False):
        data = points[points["sweep"].isin(s["sweep"])].drop(columns=["x_name", "measure", "tool", "workload", "config"])
        # the panel's title in lines that fit its width (Vega draws a list as lines)
        data["title"] = data["sweep"].map(lambda name: "\n".join(
            line for part in name.split(" · ") for line in textwrap.wrap(part, 34)))
        top, bottom = data["high"].fillna(data["mean"]).max(), data["low"].fillna(data["mean"]).min()
        log_y = bool(top >= 100 * bottom)  # intervals of a few repetitions span decades: a log axis keeps them readable
        xs = alt.X("x:Q", title=x_name, scale=alt.Scale(type="log", nice=False) if log_x else alt.Scale(zero=False, nice=False),
                   # greedy: of labels that would overlap (5,000 beside 10,000 on a log axis) every other is left out
                   axis=alt.Axis(values=sorted(data["x"].unique().tolist()), labelAngle=0, labelOverlap="greedy",
                                 format=",.0f" if (data["x"] % 1 == 0).all() else ",.3~f"))
        ys = alt.Y("mean:Q", title=measure + (" (log scale)" if log_y else ""),
                   scale=alt.Scale(type="log") if log_y else alt.Scale(zero=True))
        color = alt.Color("line:N", title=" / ".join(s["lines"].unique()), legend=alt.Legend(orient="bottom", columns=2, labelLimit=0, titleLimit=0))
        tooltip = ["sweep:N", "line:N", alt.Tooltip("x_shown:N", title=x_name),
                   alt.Tooltip("mean:Q", format=",.4g"), alt.Tooltip("low:Q", format=",.4g"),
                   alt.Tooltip("high:Q", format=",.4g"), "n:Q"]
        base = alt.Chart()
        layer = alt.layer(
            base.mark_line().encode(xs, ys, color),
            base.mark_rule(clip=True).encode(xs, alt.Y("low:Q"), alt.Y2("high:Q"), color),
            base.mark_point(filled=True, size=30).encode(xs, ys, color, tooltip=tooltip),
            data=data,
        ).properties(width=140, height=120)
        columns = min(3, s["label"].nunique())
        facet = alt.Facet("title:N", title=None, sort=s["sweep"].map(dict(zip(data["sweep"], data["title"]))).tolist(),
                          header=alt.Header(labelExpr="split(datum.value, '\\n')", labelFontSize=10))
        charts.append(layer.facet(facet=facet, columns=columns).resolve_scale(x="independent", y="independent"))
    if len(charts) == 1:
        return charts[0]
    return alt.vconcat(*charts).resolve_scale(color="independent").resolve_legend(color="independent")


# --- labels compared ------------------------------------------------------------------------------------------

COMPARISON_COLUMNS = ["tool", "workload", "parameters", "config_baseline", "label", "baseline", "measure", *COMPARED]


def labels_sharing(configs: pd.DataFrame) -> list[str]:
    """Labels with a configuration (tool, workload, parameters) that another label has too, sorted."""
    if configs.empty:
        return []
    key = configs["config"].map(config_without_label)
    shared = configs.groupby(key)["label"].transform("nunique") > 1
    return sorted(set(configs.loc[shared, "label"]))


def compare(reps: pd.DataFrame, sample: pd.Series, baseline: pd.Series, confidence: float = 0.95) -> dict:
    """Two configurations (rows of get_configurations) of one tool by its main measure (COMPARED), on the log
    scale by one test whose interval and p agree: when every repetition is one value, the ratio of their
    geometric means with Welch's t on the log values (stats.ratio_row); when one is an mdtest mean of
    iterations, the ratio of the means with the delta method (stats.ratio_from_summaries). `mean`,
    `mean_baseline`: the means the ratio is of (`ratio_of`). `decided`: the interval excludes 1, i.e.
    p < 1 - confidence; otherwise `n_to_decide` repetitions per side would decide the ratio seen with the
    power of stats.n_per_side at the spread seen (None with fewer than 2 a side). A repetition of 0 (a job that
    moved no data) leaves the ratio of the means, undecided, with no interval."""
    m = MAIN_MEASURE[baseline["tool"]]
    sample_reps, base_reps = (reps[(reps["config"] == c["config"]) & reps[m].notna()] for c in (sample, baseline))
    if (sample_reps[m] <= 0).any() or (base_reps[m] <= 0).any():  # a job that moved nothing: no logarithm
        means = [float(x[m].mean()) for x in (sample_reps, base_reps)]
        ratio = means[0] / means[1] if means[1] > 0 else np.nan
        return {"n": int(sample[f"{m}_n"]), "n_baseline": int(baseline[f"{m}_n"]), "mean": means[0], "mean_baseline": means[1],
                "ratio_of": MEAN, "ratio": ratio, "low": np.nan, "high": np.nan, "p_welch": np.nan,
                "method": "none: a repetition measured 0", "decided": False, "n_to_decide": None}
    if (sample_reps["n"] == 1).all() and (base_reps["n"] == 1).all():
        r = stats.ratio_row(sample_reps[m], base_reps[m], confidence)
        ratio_of, method = GEOMETRIC_MEAN, "Welch's t on log values"
        means = [float(np.exp(np.log(x[m]).mean())) for x in (sample_reps, base_reps)]
    else:
        r = stats.ratio_from_summaries(*(stats.Summary(int(c[f"{m}_n"]), c[m], c[f"{m}_sd"]) for c in (sample, baseline)),
                                       confidence=confidence)
        ratio_of, method = MEAN, "delta method on log means, Welch df"
        means = [sample[m], baseline[m]]
    if min(r["n"], r["n_baseline"]) < 2:
        method = "none: one repetition on a side"
    decided = bool(r["low"] > 1 or r["high"] < 1)  # False when there is no interval (NaN)
    need = None if decided else stats.n_per_side(np.log(r["ratio"]), r["sd_log"], 1 - confidence)
    return {"n": r["n"], "n_baseline": r["n_baseline"], "mean": means[0], "mean_baseline": means[1],
            "ratio_of": ratio_of, "ratio": r["ratio"], "low": r["low"], "high": r["high"], "p_welch": r["p"],
            "method": method, "decided": decided, "n_to_decide": need}


def get_comparisons(reps: pd.DataFrame, configs: pd.DataFrame, baseline: str | None,
                    confidence: float = 0.95) -> pd.DataFrame:
    """Each configuration run under `baseline` and another label: the other's main measure over the
    baseline's (compare)."""
    if configs.empty or baseline is None:
        return pd.DataFrame(columns=COMPARISON_COLUMNS)
    rows = []
    for _, g in configs.groupby(configs["config"].map(config_without_label), sort=False):
        if baseline not in set(g["label"]) or g["label"].nunique() < 2:
            continue
        base = g[g["label"] == baseline].iloc[0]
        m = MAIN_MEASURE[base["tool"]]
        for _, other in g[g["label"] != baseline].iterrows():
            rows.append({"tool": base["tool"], "workload": base["workload"], "parameters": base["parameters"],
                         "config_baseline": base["config"], "label": other["label"], "baseline": baseline,
                         "measure": MEASURES[base["tool"]][m],
                         **compare(reps, other, base, confidence)})
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)


def verdict(row) -> str:
    if row["decided"]:
        return "decided"
    if not _missing(row["n_to_decide"]):
        return f"undecided: n≈{int(row['n_to_decide']):,} a side would decide"
    return "undecided" + (": one repetition on a side" if min(row["n"], row["n_baseline"]) < 2 else "")


def distinguishing(configs: Iterable[str], within_label: bool = False) -> list[str]:
    """What tells configurations (their `config` keys) apart, per configuration: the parameters whose values
    differ among those of its tool (and label, `within_label`), and the ones it leaves unknown that most of
    them state."""
    rows = [json.loads(c) for c in configs]
    values = [dict(zip(ALL_PARAMETERS, r[3])) for r in rows]
    out = []
    for (label, tool, _, _), v in zip(rows, values):
        same = [w for (lb, t, _, _), w in zip(rows, values) if t == tool and (lb == label or not within_label)]
        names = [p for p in PARAMETERS[tool] if p != "rw"]
        differ = [p for p in names if len({shown_value(p, w[p]) for w in same if w[p] is not None}) > 1]
        usual = [p for p in names if sum(w[p] is not None for w in same) * 2 > len(same)]
        shown = {p: v[p] for p in differ if v[p] is not None}
        if shown.get("other"):  # fio's other options: only those not shared by every configuration that has some
            common = set.intersection(*(set(w["other"].split(OTHER_SEPARATOR)) for w in same if w.get("other")))
            shown["other"] = OTHER_SEPARATOR.join(x for x in v["other"].split(OTHER_SEPARATOR) if x not in common) or None
        text = parameter_text(tool, shown, differ)
        unknown = [SHOWN_NAMES.get(p, p) for p in usual if v[p] is None]
        out.append("; ".join(x for x in (text, f"{', '.join(unknown)} unknown" if unknown else "") if x) or "–")
    return out


def ratio_name(ratio_of: pd.Series) -> str:
    """What the comparisons' ratios are of: 'ratio of geometric means', or '... of geometric means or means'
    when they hold both kinds."""
    return "ratio of " + " or ".join(f"{kind}s" for kind in dict.fromkeys(ratio_of))


def comparison_table(comparisons: pd.DataFrame, confidence: float = 0.95) -> tuple[pd.DataFrame, str]:
    """The comparisons as shown, each configuration by what tells it from the others (distinguishing), and
    the columns all of them share said once (split_constant). The ratio's header names what it is of; a
    "ratio of" column does so per row when the comparisons hold both kinds."""
    c = comparisons
    if c.empty:
        return pd.DataFrame(), ""
    table = pd.DataFrame({
        "run": c["tool"] + " " + c["workload"], "parameters": distinguishing(c["config_baseline"]),
        "label": c["label"],  # every comparison is over the one baseline label, of the tool's main measure
        "n / n baseline": [f"{a} / {b}" for a, b in zip(c["n"], c["n_baseline"])],
        f"{ratio_name(c['ratio_of'])} ({confidence:.0%} interval)": [
            f"{r:.3g}× ({lo:.3g}–{hi:.3g})" if np.isfinite(lo) else f"{r:.3g}×"
            for r, lo, hi in zip(c["ratio"], c["low"], c["high"])],
        **({"ratio of": c["ratio_of"] + "s"} if c["ratio_of"].nunique() > 1 else {}),
        "Welch p": [f"{p:.2g}" if np.isfinite(p) else "–" for p in c["p_welch"]],
        "verdict": [verdict(r) for _, r in c.iterrows()], "interval and p from": c["method"]})
    return split_constant(table, keep=["run", "parameters", "label", "verdict"])


def chart_comparisons(comparisons: pd.DataFrame):
    """Each shared configuration's ratio (of geometric means or means: ratio_name) over the baseline label
    (log scale) with its interval, one colour per label; filled when decided."""
    table, _ = comparison_table(comparisons)
    data = comparisons.assign(
        configuration=(table["run"] + ": " + table["parameters"]).str.replace(": –", "", regex=False).tolist(),
        verdict=comparisons["decided"].map({True: "decided", False: "undecided"}))[
        ["configuration", "label", "ratio_of", "ratio", "low", "high", "p_welch", "n", "n_baseline", "verdict"]]
    x = alt.X("ratio:Q", title=f"{ratio_name(comparisons['ratio_of'])} over {comparisons['baseline'].iloc[0]} (log scale)",
              scale=alt.Scale(type="log"))
    y = alt.Y("configuration:N", title=None, sort=None, axis=alt.Axis(labelLimit=0))
    color = alt.Color("label:N", legend=alt.Legend(orient="bottom", columns=1, labelLimit=0))  # whole labels, one a line
    tooltip = ["configuration:N", "label:N", alt.Tooltip("ratio_of:N", title="ratio of"),
               alt.Tooltip("ratio:Q", format=".3g"), alt.Tooltip("low:Q", format=".3g"), alt.Tooltip("high:Q", format=".3g"),
               alt.Tooltip("p_welch:Q", format=".2g"), "n:Q", "n_baseline:Q",
               "verdict:N"]
    base = alt.Chart(data)
    return alt.layer(
        base.mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(1)),
        base.mark_rule().encode(alt.X("low:Q", scale=alt.Scale(type="log")), alt.X2("high:Q"), y, color),
        base.mark_point(size=60).encode(x, y, color, tooltip=tooltip,  # filled: decided
                                        fill=alt.condition("datum.verdict == 'decided'", alt.Fill("label:N", legend=None),
                                                           alt.value("white"))),
    ).properties(width=260, height=max(60, 18 * data["configuration"].nunique()))


# --- findings -------------------------------------------------------------------------------------------------------

def _what(measure: str) -> tuple[str, str]:
    """'bandwidth (MiB/s)' -> ('bandwidth', 'MiB/s'); 'IOPS' -> ('IOPS', 'IOPS')."""
    name, _, unit = measure.partition(" (")
    return name, unit.rstrip(")") or name


def _log_size(ratio: float) -> float:
    return abs(math.log(ratio)) if ratio > 0 else 0.0


def _times(ratio: float) -> str:
    """A ratio to 3 significant digits, never in exponent notation: 0.0181, 1.3, 5,010."""
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"


def _largest(frame: pd.DataFrame):
    """The row with the largest ratio (either way) of the first tool, in TOOLS' order, that has one: bandwidth
    before metadata rates, and an mdtest tree phase (a handful of directories) never before a file phase."""
    order = frame["tool"].map(TOOLS.index) * 10 + frame["workload"].str.startswith("Tree ").astype(int)
    first = frame[order == order.min()]
    return first.loc[first["ratio"].map(_log_size).idxmax()]


def _effect(e, ci: str) -> str:
    """A sweep effect's ratio with its interval and, unless decided, its verdict (a ratio reads as a result only
    when its interval decides it): '1.42× (95% interval 0.901–2.13; n = 8, 8), undecided: n≈22 a side would
    decide'; n at the smallest x first."""
    interval = f"{ci} interval {_times(e['low'])}–{_times(e['high'])}; " if np.isfinite(e["low"]) else ""
    text = f"{_times(e['ratio'])}× ({interval}n = {e['n_baseline']}, {e['n']})"
    return text if e["decided"] else f"{text}, {verdict(e)}"


def findings(configs: pd.DataFrame, effects: pd.DataFrame, comparisons: pd.DataFrame,
             confidence: float = 0.95) -> list[str]:
    """The chapter's findings (MyST), each ending with a {numref} link to the figure or table showing it. The
    first, at most 30 words with its number and interval, is the largest decided difference between labels,
    else the largest decided change along a sweep (sweep_effects), else the largest undecided one, said so,
    else the best-repeated configuration's mean. Then, where the data holds them: the sweep, the labels
    compared, the run-to-run spread."""
    ci = f"{confidence:.0%}"
    if configs.empty:
        return ["This database holds no fio, IOR or mdtest run, so there is nothing to find yet. " + HOW_TO_ADD]
    sweep_line = comparison_line = spread_line = None
    sweep_has_intervals = False
    if len(effects):
        intervals = effects["n"].ge(2) & effects["n_baseline"].ge(2)
        sweep_has_intervals = bool(intervals.any())
        decided_effects = effects[effects["decided"]]
        e = _largest(decided_effects if len(decided_effects) else effects[intervals] if sweep_has_intervals else effects)
        label, run = (md_escape(part) for part in e["sweep"].split(" · ", 1))
        name, unit = _what(e["measure"])
        # the ends' intervals are left to the figure: the line stays within the first finding's 30 words
        sweep_line = (f"**{label}** {run} {e['ratio_of']} {name}: {_num(e['mean_baseline'])} → {_num(e['mean'])} {unit} "
                      f"from {md_escape(e['x_name'])} {md_escape(e['x_from'])} to {md_escape(e['x_to'])}"
                      + (f", {md_escape(e['line'])}" if e["line"] != "all" else "")
                      + f": {_effect(e, ci)} {{numref}}`fig-runs-sweeps`")
    decided = comparisons[comparisons["decided"]]
    main_comparison = None
    if len(comparisons):
        shown = comparison_table(comparisons, confidence)[0]["parameters"]
        base = md_escape(comparisons["baseline"].iloc[0])
        if len(decided):
            d = _largest(decided)
            i = d.name
            params = f" {md_escape(shown[i])}" if shown[i] != "–" else ""
            main_comparison = (
                f"**{md_escape(d['label'])}** gives {_times(d['ratio'])}× the {d['ratio_of']} {_what(d['measure'])[0]} of **{base}** in "
                f"{d['tool']} {md_escape(d['workload'])}{params} ({ci} interval {_times(d['low'])}–{_times(d['high'])}; "
                f"n = {d['n']}, {d['n_baseline']}) {{numref}}`tab-runs-comparisons`")
        needs = comparisons["n_to_decide"].dropna()
        comparison_line = (
            f"{len(decided):,} of {len(comparisons):,} configurations run under **{base}** and another label differ "
            f"decidedly" + (f" ({', '.join(f'{r:.2f}×' for r in decided['ratio'].sort_values())})" if 0 < len(decided) <= 4 else "")
            + (f"; of the undecided, {len(needs):,} would be decided ({stats.POWER:.0%} power) by {int(needs.min()):,} "
               f"to {int(needs.max()):,} repetitions per side at the ratio and spread seen" if len(needs)
               else "; the others stay undecided")
            + " {numref}`tab-runs-comparisons`")
    repeated = configs[configs["repetitions"] >= 2]
    if len(repeated):
        main = [MAIN_MEASURE[t] for t in repeated["tool"]]
        cv = pd.Series([r[f"{m}_sd"] / r[m] for (_, r), m in zip(repeated.iterrows(), main)], index=repeated.index)
        worst = repeated.loc[cv.idxmax()]
        spread_line = (
            f"Run to run, the main measure of the {len(repeated):,} configurations repeated at least twice varies "
            f"by a median {cv.median():.0%} of its mean (sd / mean); most, {cv.max():.0%}, in "
            f"**{md_escape(worst['label'])}** {worst['tool']} {md_escape(worst['workload'])} (n = {worst['repetitions']}) {{numref}}`tab-runs-{worst['tool']}`")
    out = []
    repeated_first = configs.sort_values("repetitions", ascending=False, kind="stable").iloc[0]
    if main_comparison:
        out.append(main_comparison)
    elif sweep_line and (sweep_has_intervals or repeated_first["repetitions"] < 2):
        out.append(sweep_line)
    else:  # no decided comparison, no sweep with intervals: the best-repeated configuration
        best = repeated_first
        m = MAIN_MEASURE[best["tool"]]
        name, unit = _what(MEASURES[best["tool"]][m])
        interval = (f"{ci} interval {_num(best[f'{m}_low'])}–{_num(best[f'{m}_high'])}, " if np.isfinite(best[f"{m}_low"])
                    else "")
        params = distinguishing(configs["config"], within_label=True)[int(np.flatnonzero(configs["config"] == best["config"])[0])]
        out.append(f"**{md_escape(best['label'])}** {best['tool']} {md_escape(best['workload'])}"
                   + (f" {md_escape(params)}" if params != "–" else "") + f" {name}: {_num(best[m])} {unit} "
                   f"({interval}n = {best['repetitions']}) {{numref}}`tab-runs-{best['tool']}`")
    out += [line for line in (sweep_line, comparison_line, spread_line) if line and line not in out]
    if not sweep_line:
        out.append(f"No sweep: no label and workload has configurations differing in 1 to {MAX_SWEEP_PARAMETERS} "
                   "parameters, one of them numeric, on lines of 2 points or more on average {numref}`tab-runs-sweeps`")
    if not comparison_line:
        out.append("No configuration was run under two labels, so no label is compared with another "
                   "{numref}`tab-runs-comparisons`")
    return out


# --- what the page glues ------------------------------------------------------------------------------------------

def choose_baseline(configs: pd.DataFrame, requested: str | None) -> tuple[str | None, str | None]:
    """The label others are compared with: `requested` when it shares a configuration, else the first label
    (alphabetically) that does; and a note when the requested one matches nothing (nb.select_or_note)."""
    sharing = labels_sharing(configs)
    if not sharing:
        note = (f"The baseline label {md_escape(requested)} is not compared: no configuration was run under two "
                "labels." if requested else None)
        return None, note
    chosen, note = nb.select_or_note([requested] if requested else [], sharing, "label sharing a configuration")
    return chosen[0], (md_escape(note) if note else None)


def md_escape(text) -> str:
    return nb.md_escape(text)


def note_html(text: str) -> HTML:
    return HTML(f'<p class="iobook-note">{html.escape(text)}</p>')


TOOL_NAMES = {"fio": "fio", "ior": "IOR", "mdtest": "mdtest"}
MAX_LABEL_TABLES = 8  # more labels than this share one table, with a column naming each row's label


def configuration_html(configs: pd.DataFrame, tool: str, confidence: float = 0.95) -> HTML:
    """One tool's configurations: what they all share said once, then a table per label (one table with a
    label column past MAX_LABEL_TABLES labels), and their numbers (configuration_numbers) as a CSV download;
    a note when the database has none."""
    table, shared = configuration_table(configs, tool, confidence)
    if table.empty:
        return note_html(f"This database holds no {TOOL_NAMES[tool]} run.")
    numbers = configuration_numbers(configs[configs["tool"] == tool])
    parts = [f"<p>Every {TOOL_NAMES[tool]} configuration here: {html.escape(shared)}.</p>" if shared else ""]
    labels = list(dict.fromkeys(table["label"]))
    if len(labels) > MAX_LABEL_TABLES:
        parts.append(nb.table(table, searchable=True).data)
    else:
        for label in labels:
            rows = table[table["label"] == label].drop(columns=["label"])
            parts.append(f'<p class="iobook-table-label"><strong>{html.escape(label)}</strong></p>'
                         + nb.table(rows, searchable=True).data)
    return HTML("".join(parts) + charts.download(numbers, f"Download every {TOOL_NAMES[tool]} configuration as numbers"))


def sweeps_html(sweeps: pd.DataFrame) -> HTML:
    if sweeps.empty:
        return note_html("No sweep found: no label and workload has configurations that differ in 1 to "
                         f"{MAX_SWEEP_PARAMETERS} parameters, one of them numeric, on lines of 2 points or more on average.")
    table, said = split_constant(sweeps.drop(columns=["sweep", "log_x"]).rename(columns={
        "x": "swept (x axis)", "lines": "one line per", "fixed": "the same in every run"}),
        keep=["label", "workload", "swept (x axis)"])
    head = f"<p>Every sweep: {html.escape(said)}.</p>" if said else ""
    return HTML(head + nb.table(table, searchable=True).data)


def comparisons_html(comparisons: pd.DataFrame, confidence: float) -> HTML:
    """The comparisons: what they all share said once, then a table per label compared with the baseline (one
    table with a label column past MAX_LABEL_TABLES labels); a note when no label shares a configuration."""
    if comparisons.empty:
        return note_html("No configuration was run under two labels: nothing to compare.")
    table, shared = comparison_table(comparisons, confidence)
    parts = [f"<p>Every comparison here: {html.escape(shared)}.</p>" if shared else ""]
    labels = list(dict.fromkeys(table["label"]))
    if len(labels) > MAX_LABEL_TABLES:
        parts.append(nb.table(table, searchable=True).data)
    else:
        over = comparisons["baseline"].iloc[0]
        for label in labels:
            rows = table[table["label"] == label].drop(columns=["label"])
            parts.append(f'<p class="iobook-table-label"><strong>{html.escape(label)}</strong> over '
                         f'<strong>{html.escape(over)}</strong></p>' + nb.table(rows, searchable=True).data)
    return HTML("".join(parts))


def labels_table(reps: pd.DataFrame) -> pd.DataFrame:
    """Per label and what gave it: files, configurations, repetitions and tools."""
    if reps.empty:
        return pd.DataFrame()
    return (reps.assign(by=reps["labelled_by"])
            .groupby(["label", "by"], sort=True)
            .agg(files=("source_id", "nunique"), configurations=("config", "nunique"),
                 repetitions=("n", "size"), tools=("tool", lambda t: ", ".join(sorted(set(t)))))
            .reset_index().rename(columns={"by": "labelled by"}))


def read_sentence(con, reps: pd.DataFrame, configs: pd.DataFrame) -> str:
    """What the chapter read, for the page (MyST): files per tool, repetitions, configurations, labels."""
    if reps.empty:
        return "This database holds no fio, IOR or mdtest result. " + HOW_TO_ADD
    files = reps.groupby("tool")["source_id"].nunique()
    per_tool = ", ".join(f"{files[t]:,} {t if t != 'ior' else 'IOR'}" for t in TOOLS if t in files)
    labels = sorted(set(reps["label"]))
    shown = ", ".join(f"**{md_escape(x)}**" for x in labels[:8]) + (f" and {len(labels) - 8:,} more" if len(labels) > 8 else "")
    return (f"{reps['source_id'].nunique():,} files hold fio, IOR or mdtest results ({per_tool}): {len(reps):,} "
            f"repetitions of {len(configs):,} configurations under {len(labels):,} label(s): {shown}.")


def findings_md(configs: pd.DataFrame, effects: pd.DataFrame, comparisons: pd.DataFrame,
                confidence: float = 0.95) -> str:
    """The findings as the Markdown list the page shows ({glue:md} with :format: myst); with no run, the
    sentence saying so (no list: nothing for the landing page to quote)."""
    lines = findings(configs, effects, comparisons, confidence)
    return lines[0] if configs.empty else "\n".join(f"- {line}" for line in lines)


def sweeps_caption(sweeps: pd.DataFrame, effects: pd.DataFrame, confidence: float = 0.95) -> str:
    """The sweeps figure's caption (MyST), stating the largest change it shows (bandwidth first, as findings)
    with its interval and verdict (sweep_effects)."""
    if sweeps.empty:
        return "No sweep in this data."
    e = _largest(effects)
    drawn = (f"the first {MAX_SWEEP_PANELS} of {len(sweeps):,} sweeps (all are in the table above)"
             if len(sweeps) > MAX_SWEEP_PANELS else f"{len(sweeps):,} sweep(s)")
    return (f"The mean of each configuration's main measure with its interval, {drawn}; the largest change in "
            f"{e['ratio_of']} is {md_escape(e['sweep'])} from {md_escape(e['x_name'])} {md_escape(e['x_from'])} to {md_escape(e['x_to'])}"
            + (f" at {md_escape(e['line'])}" if e["line"] != "all" else "") + f": {_effect(e, f'{confidence:.0%}')}.")


def comparisons_caption(comparisons: pd.DataFrame) -> str:
    if comparisons.empty:
        return "No configuration was run under two labels."
    decided = comparisons[comparisons["decided"]]
    return (f"Each label's {ratio_name(comparisons['ratio_of'])} over {md_escape(comparisons['baseline'].iloc[0])}, "
            f"with its interval: {len(decided):,} of {len(comparisons):,} decided (filled points).")


def label_notes_md(label_files: pd.DataFrame, notes: list[str], baseline_note: str | None) -> str:
    """Which labels files were read and what could not be applied, for the page (MyST)."""
    lines = []
    if len(label_files):
        lines.append("Labels files read: " + "; ".join(
            f"{md_escape(r['labels file'])} ({r['patterns']:,} pattern(s), {r['files labelled']:,} file(s) labelled)"
            for _, r in label_files.iterrows()) + ".")
    else:
        lines.append("No `labels.yml` or `labels.csv` was found among the files read: labels come from IO500 runs "
                     "and folders.")
    lines += [f"- {md_escape(n)}" for n in notes]
    if baseline_note:
        lines.append(f"- {baseline_note}")
    return "\n".join(lines)
