"""Your runs: every IOR, mdtest and fio run in the database, whatever folders it came from, grouped into run
configurations, with their runs, the sweeps they form and the labels they compare. The rules (the chapter's
method section says them to readers; book/methods.md says how the book decides):

- A *configuration* is a label, a tool, a workload (fio's rw, with the direction when rw mixes them; IOR's
  access; mdtest's phase), the parameters the log states (PARAMETERS) and a design. A parameter the log does
  not state is unknown (None), never a default filled in. fio's JSON options not in PARAMETERS (except those
  naming files, logs or output: IGNORED_OPTIONS) and a collector's manifest labels (except those saying how a
  step ran: MANIFEST_CONDITION_KEYS) are parameters too, in `other`.
- A *run* is the unit of replication (evidence.Replicate.RUN): one fio file, one IOR test of one invocation,
  one mdtest SUMMARY. The iterations (-i) of one IOR or mdtest invocation share its placement and caches: they
  are aggregated to the run (IOR: the geometric mean of its iterations; mdtest: the mean its SUMMARY prints),
  never counted as repetitions.
- A *design* (DESIGN_RULE) is what makes runs of equal parameters one experiment: the collector run a file
  belongs to (its manifest: one machine state, one schedule), else the tool and the version its log prints.
  Runs of different designs are never pooled: sweeps and their changes are per design, shown side by side.
- A *ranking* (the largest change, the widest spread) names only rankable configurations (RANK_RULE).
- A run's *label*: the first matching pattern of the nearest `labels.yml` / `labels.csv` above its file
  (path glob: label), else the system of the IO500 run whose phase log it is, else its file's top folder
  under the data's root (the deepest folder holding every file ingested).
"""
from __future__ import annotations

import errno
import json
import math
import re
import shlex
from collections.abc import Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import evidence, present, selection, setups, source_labels
from .. import report as report_
from ..report import Prose
from ..units import MIB

TOOLS = source_labels.TOOLS
HOW_TO_ADD = ("Build the book on folders of fio (JSON or text), IOR or mdtest output: "
              "`make book DATA=\"results/system-a results/system-b\"`. Each file's top folder names its label; "
              "a `labels.yml` beside the data (path glob: label) names them otherwise.")

# The parameters that define a configuration, per tool, in the order shown; fio's `other` holds the rest.
PARAMETERS = {
    "fio": ["rw", "bs", "iodepth", "numjobs", "direct", "ioengine", "size", "other"],
    "ior": ["api", "transfer", "block", "segments", "tasks", "nodes", "file_per_proc", "collective",
            "ordering_in_file", "ordering_inter_file", "stonewall"],
    "mdtest": ["items", "item_kind", "tasks", "nodes", "branching", "depth", "unique_dir", "write_bytes",
               "read_bytes", "stonewall"],
}
ALL_PARAMETERS = list(dict.fromkeys(p for ps in PARAMETERS.values() for p in ps))
SHOWN_NAMES = {"file_per_proc": "file per process", "ordering_in_file": "offsets", "ordering_inter_file": "reorder",
               "unique_dir": "unique dir", "item_kind": "items are", "write_bytes": "write bytes",
               "read_bytes": "read bytes"}
# With a stonewall (IOR -D, mdtest -W) a write stops when it expires, and the phases after it do what it did (IOR's
# stoneWallingStatusFile, mdtest's -x): the block or item count is only an upper bound, which IO500 sets far beyond
# what a run reaches (mdtest -n 2,000,000,000,000)
BOUNDED_BY_STONEWALL = {"ior": "block", "mdtest": "items"}
STATUS_FILE = "as the write's status file says"


def stonewall(seconds, follows_write: bool) -> str | None:
    """A run's stonewall as its command line states it: its own deadline in seconds, or the status file of the
    write before it (`follows_write`: IO500's later phases), else None."""
    if not _missing(seconds) and seconds > 0:
        return f"{int(seconds)} s"
    return STATUS_FILE if follows_write else None
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
# fio's `other` for a job whose output states no options (terse): each parameter is unknown, never a default
UNSTATED_PARAMETERS = "parameters unknown (the output states no job options)"
FIO_SINGLE = {"read": {"read", "randread"}, "write": {"write", "randwrite"}, "trim": {"trim", "randtrim"}}

# Measures, per tool: column -> name shown, with its unit. All are positive (rates, latencies).
MEASURES = {"fio": {"bw_mib_s": "bandwidth (MiB/s)", "ops_s": "IOPS", "lat_ms": "latency (ms)"},
            "ior": {"bw_mib_s": "bandwidth (MiB/s)", "ops_s": "IOPS", "lat_ms": "latency (ms)"},
            "mdtest": {"ops_s": "rate (ops/s)"}}
MEASURE_COLUMNS = ["bw_mib_s", "ops_s", "lat_ms"]
# fio's completion latency percentiles (its default list holds them all; fio_io): column -> name shown
TAIL_PERCENTILES = {"p50_ms": "clat p50", "p99_ms": "clat p99", "p999_ms": "clat p99.9", "p9999_ms": "clat p99.99"}
PERCENTILES = list(TAIL_PERCENTILES)
MAIN_MEASURE = {"fio": "bw_mib_s", "ior": "bw_mib_s", "mdtest": "ops_s"}  # what sweeps and comparisons use
MAX_SWEEP_PARAMETERS = 3  # configurations varying in more parameters at once are not one sweep
MAX_SWEEP_LINES = 8
UNITS = {"bw_mib_s": "MiB/s", "ops_s": "ops/s", "lat_ms": "ms"}
DESIGN_RULE = ("a file a collector's manifest lists belongs to that collector run, one design; any other file's "
               "design is its tool and the version its log prints")
TREE_PHASE = "Tree "  # mdtest's "Tree creation" / "Tree removal": the time to make or remove its directory tree
MIN_RANKED_ITEMS = 2  # a phase timing fewer items (one mkdir) is shown but never ranked
RANK_RULE_SHORT = "a tree phase of one directory or of a size not stated"
RANK_RULE = (f"mdtest's tree phases rank only when the command line states a tree (-b and -z) of at least "
             f"{MIN_RANKED_ITEMS} directories: without -z the tree is one directory, and its rate times one mkdir")
MIN_SWEEP_VALUES = 3  # an x axis of two values is a comparison of two configurations, not a sweep


def _values(column: pd.Series) -> list:
    """A column's values with None for missing ones (pandas gives NaN or NA)."""
    return column.astype(object).where(column.notna(), None).tolist()


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


# --- runs: one row per run of a configuration ----------------------------------------------------------------

def _fio_workload(rw: str | None, direction: str, unstated_key: str | None, operations: str | None) -> str:
    """fio's rw, with the direction when rw mixes them; for output stating no options (terse), the job's name and
    operations (fio_jobs.unstated_key), with the direction when it did several."""
    if unstated_key is not None:
        return unstated_key if operations == direction else f"{unstated_key}: {direction}"
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
    up). Jobs that reported an error are left out. The run (`unit`) is the file: one fio invocation. A job whose
    output states no options (terse) is its name and operations, its parameters unknown (UNSTATED_PARAMETERS)."""
    df = con.execute(
        f"""
        WITH manifest AS (
            SELECT source_id, string_agg(DISTINCT key || '=' || value, ', ' ORDER BY key || '=' || value) AS manifest
            FROM run_labels WHERE source_id IS NOT NULL AND NOT list_contains(?, key) GROUP BY source_id
        )
        SELECT j.source_id, j.groupid, j.rw, j.bs, j.iodepth, j.numjobs, j.direct, j.ioengine, j.size, j.options,
               j.unstated_key, j.operations, m.manifest, io.direction, count(*) AS entries, sum(io.bw_bytes_s) / ? AS bw_mib_s,
               sum(io.iops) AS ops_s, max(io.lat_mean_ns) / 1e6 AS lat_ms, max(io.lat_p50_ns) / 1e6 AS p50_ms,
               max(io.lat_p99_ns) / 1e6 AS p99_ms, max(io.lat_p999_ns) / 1e6 AS p999_ms,
               max(io.lat_p9999_ns) / 1e6 AS p9999_ms
        FROM fio_jobs j JOIN fio_io io USING (job_id) LEFT JOIN manifest m USING (source_id)
        WHERE coalesce(j.error, 0) = 0 AND io.bw_bytes_s > 0
          AND {selection.not_a_copy('j.source_id')}
        GROUP BY ALL
        ORDER BY j.source_id, j.groupid, io.direction
        """,
        [MANIFEST_CONDITION_KEYS, MIB],
    ).df()
    df.loc[df["entries"] > 1, ["lat_ms", *PERCENTILES]] = np.nan
    df["workload"] = [_fio_workload(*row) for row in zip(_values(df["rw"]), df["direction"], _values(df["unstated_key"]),
                                                          _values(df["operations"]))]
    df["other"] = [UNSTATED_PARAMETERS if key is not None else _fio_other(o, m) for key, o, m in
                   zip(_values(df["unstated_key"]), _values(df["options"]), _values(df["manifest"]))]
    df["unit"] = df["source_id"].astype(str)
    return df.drop(columns=["options", "manifest", "entries", "groupid", "direction", "unstated_key", "operations"])


def get_ior(con) -> pd.DataFrame:
    """One row per IOR iteration of a write or read: bandwidth (MiB/s), IOPS and IOR's Latency(s) column (ms).
    The run (`unit`) is the test of one invocation that the iterations (-i) repeat."""
    df = con.execute(
        f"""
        SELECT t.source_id, t.test_index, t.api, t.transfer_bytes AS transfer, t.block_bytes AS block, t.segments,
               t.tasks, t.nodes, t.file_per_proc, t.collective, t.ordering_in_file, t.ordering_inter_file,
               t.stonewall_s, t.command,
               i.access AS workload, i.bw_mib_s, i.iops AS ops_s, i.latency_s * 1000 AS lat_ms
        FROM ior_tests t JOIN ior_iterations i USING (test_id)
        WHERE i.access IN ('write', 'read') AND i.bw_mib_s > 0
          AND {selection.not_a_copy('t.source_id')}
        ORDER BY t.source_id, t.test_index, i.access, i.iteration
        """).df()
    df["unit"] = df["source_id"].astype(str) + ":" + df["test_index"].astype(str)
    df["stonewall"] = [stonewall(s, "stoneWallingStatusFile" in (c or "")) for s, c in
                       zip(_values(df.stonewall_s), _values(df.command))]
    return df.drop(columns=["test_index", "stonewall_s", "command"])


def mdtest_options(command: str | None) -> dict:
    """Tree shape, unique folders, file sizes and stonewall as mdtest's command line set them: -b (branching), -z
    (depth), -w and -e (bytes written and read per file), -u, -W (stonewall seconds) or -x (the write's stonewall
    status file: a later phase does what the write did). A valued option not on the
    line is unknown (mdtest's default applies, which the log does not print); a flag not on a known line is off."""
    valued = {"-b": "branching", "-z": "depth", "-w": "write_bytes", "-e": "read_bytes", "-W": "stonewall_s"}
    out: dict = dict.fromkeys([*valued.values(), "unique_dir"])
    if not command:
        out["stonewall"] = stonewall(out.pop("stonewall_s"), False)
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
    out["stonewall"] = stonewall(out.pop("stonewall_s"), "-x" in words)
    return out


def get_mdtest(con) -> pd.DataFrame:
    """One row per rate (ops/s) an mdtest SUMMARY printed: the mean of the iterations (-i) of that invocation,
    which is one run (`unit`); mdtest prints no iteration's own rate. Phases the run did not do (printed as 0)
    and phases that failed (get_failed_phases) are left out."""
    df = con.execute(
        f"""
        SELECT r.source_id, r.summary_index, r.command, r.items, r.item_kind, r.tasks, r.nodes,
               r.iterations, x.operation AS workload, x.mean AS ops_s
        FROM mdtest_runs r JOIN mdtest_results x USING (mdtest_id)
        WHERE x.table_kind = 'rate' AND x.mean > 0 AND NOT x.failed
          AND {selection.not_a_copy('r.source_id')}
        ORDER BY r.source_id, r.summary_index, x.line
        """).df()
    tree = pd.DataFrame([mdtest_options(c) for c in _values(df["command"])], index=df.index,
                        columns=["branching", "depth", "write_bytes", "read_bytes", "unique_dir", "stonewall"])
    df = pd.concat([df.drop(columns=["command"]), tree], axis=1)
    df["unit"] = df["source_id"].astype(str) + ":" + df["summary_index"].astype(str)
    return df.drop(columns=["summary_index"])


FAILED_COLUMNS = ["tool", "file", "phase", "line", "reason"]


def get_failed_phases(con) -> pd.DataFrame:
    """The phases whose log says they failed: an mdtest phase that printed that its operations failed
    (mdtest_results.failed) and a fio job whose output states an error (fio_jobs.error, an errno). No run: each is
    listed with the file as readers see it, the phase (fio: the job and its rw), the line of the first such message
    (mdtest) and the reason (mdtest's message, with how many more the phase printed; fio's errno and its name)."""
    df = con.execute(
        f"""
        SELECT 'mdtest' AS tool, r.path AS file, x.operation AS phase, x.failure_line AS line, x.failure,
               x.failure_lines, NULL::BIGINT AS errno, r.summary_index AS position, x.line AS within
        FROM mdtest_runs r JOIN mdtest_results x USING (mdtest_id)
        WHERE x.table_kind = 'rate' AND x.failed
        UNION ALL
        SELECT 'fio', s.path, j.jobname || ' (' || coalesce(j.rw, 'rw not stated') || ')', NULL, NULL, NULL, j.error,
               j.job_index, 0
        FROM fio_jobs j JOIN sources s USING (source_id)
        WHERE j.error <> 0 AND {selection.not_a_copy('j.source_id')}
        ORDER BY file, tool, position, within
        """).df()
    df["file"] = present.reader_paths(con, df["file"])
    more = df["failure_lines"].fillna(1) - 1
    df["reason"] = [f"fio error {int(e)} ({errno.errorcode.get(int(e), 'not a Linux errno')})" if pd.notna(e) else
                    f + (f" (and {int(n):,} more such line{'' if n == 1 else 's'})" if n else "")
                    for e, f, n in zip(df["errno"], df["failure"], more)]
    return df[FAILED_COLUMNS]


def failed_sentence(failed: pd.DataFrame) -> str:
    """How many phases are no run because their log printed a failure, for the page (MyST)."""
    if failed.empty:
        return "No phase read here says it failed."
    n, files = len(failed), failed["file"].nunique()
    return (f"{n:,} {'/'.join(sorted(set(failed['tool'])))} phase{'' if n == 1 else 's'} in {files:,} "
            f"file{'' if files == 1 else 's'} say they failed (mdtest: a warning or error naming the operation; "
            "fio: the error its output states for the job): a failed phase is no run and its printed rate is not "
            "read; each is listed below with its file, the line and the message.")


RUN_COLUMNS = ["label", "labelled_by", "tool", "workload", *ALL_PARAMETERS, "parameters", "design", "config", "unit",
               "source_id", "file", "values", *MEASURE_COLUMNS, *PERCENTILES]


def get_runs(con) -> pd.DataFrame:
    """Every run of every fio, IOR and mdtest configuration, one row each: label, labelled_by, tool, workload,
    the parameters (ALL_PARAMETERS; None where the tool has no such parameter or its log does not state it),
    `parameters` (the known ones as text), `design` (source_labels.designs), `config` (equal for equal label, tool,
    workload, parameters and design), `unit` (the run), the file as readers see it, `values` (the measured
    values the run's are the geometric mean of: IOR's iterations, the jobs of one fio file alike) and the
    measures (MEASURE_COLUMNS; PERCENTILES their mean)."""
    parts = [part.assign(tool=tool) for tool, get in (("fio", get_fio), ("ior", get_ior), ("mdtest", get_mdtest))
             if len(part := get(con))]
    if not parts:
        return pd.DataFrame(columns=RUN_COLUMNS)
    df = pd.concat(parts, ignore_index=True)
    for column in [*ALL_PARAMETERS, *MEASURE_COLUMNS, *PERCENTILES]:
        if column not in df:
            df[column] = None
    labels, _, _ = source_labels.label_sources(con, df["source_id"])
    df = df.merge(labels, on="source_id", how="left")
    df["design"] = df["source_id"].map(source_labels.designs(con, df["source_id"]))
    paths = dict(con.execute("SELECT source_id, path FROM sources WHERE list_contains(?, source_id)",
                             [sorted({int(s) for s in df["source_id"]})]).fetchall())
    df["file"] = present.reader_paths(con, df["source_id"].map(paths))
    params = [dict(zip(ALL_PARAMETERS, row)) for row in zip(*(_values(df[p]) for p in ALL_PARAMETERS))]
    df["parameters"] = [parameter_text(tool, p) for tool, p in zip(df["tool"], params)]
    df["config"] = [json.dumps([label, tool, workload, [_plain(p[k]) for k in ALL_PARAMETERS], design])
                    for label, tool, workload, p, design in zip(df["label"], df["tool"], df["workload"], params, df["design"])]
    for column in ALL_PARAMETERS:
        df[column] = pd.Series([p[column] for p in params], index=df.index, dtype=object)
    for column in [*MEASURE_COLUMNS, *PERCENTILES]:
        df[column] = df[column].astype(float)
    # a measure printed as 0 (IOR's latency below its 4 decimals) has no logarithm: unknown, as one not printed
    df[MEASURE_COLUMNS] = df[MEASURE_COLUMNS].where(df[MEASURE_COLUMNS] > 0)
    first = df.groupby(["config", "unit"], sort=False).first()
    grouped = df.groupby(["config", "unit"], sort=False)
    runs = first.drop(columns=[*MEASURE_COLUMNS, *PERCENTILES]).assign(
        values=grouped.size(),
        **{m: grouped[m].agg(lambda v: evidence.geometric_mean(v.dropna()) if v.notna().any() else np.nan)
           for m in MEASURE_COLUMNS},
        **{p: grouped[p].mean() for p in PERCENTILES})
    return runs.reset_index()[RUN_COLUMNS]


def _plain(value):
    """A parameter value as JSON takes it (numpy scalars to Python; whole floats to int)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) or (isinstance(value, (float, np.floating)) and float(value).is_integer()):
        return int(value)
    return value if isinstance(value, str) else float(value)


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

def observations(runs: pd.DataFrame, measure: str) -> evidence.Observations:
    """The runs' values of one measure, each its own unit, with their designs (one, in a configuration)."""
    known = runs[runs[measure].notna()]
    return evidence.Observations(values=known[measure].to_numpy(dtype=float), units=known["unit"].tolist(),
                                 designs=known["design"].tolist())


def get_configurations(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: label, tool, workload, parameters, design, files, runs (the n of its main
    measure), and per measure the geometric mean over its runs with its interval (evidence.estimate on the
    runs; none below two runs) and `<measure>_spread`, the runs' sd over their mean; fio's percentiles as
    the mean over runs, and `estimate`, the main measure's evidence.Estimate. Sorted by label, tool,
    workload, parameter values, then design."""
    if runs.empty:
        return pd.DataFrame()
    rows = []
    for config, g in runs.groupby("config", sort=False):
        first = g.iloc[0]
        row = {"config": config, **{c: first[c] for c in ["label", "tool", "workload", *ALL_PARAMETERS, "parameters", "design"]},
               "files": g["source_id"].nunique()}
        for m in MEASURE_COLUMNS:
            values = g[m].dropna()
            if values.empty:
                row.update({f"{m}_n": 0, m: np.nan, f"{m}_spread": np.nan, f"{m}_low": np.nan, f"{m}_high": np.nan})
                continue
            e = evidence.estimate(observations(g, m), quantity=MEASURES[first["tool"]].get(m, m), unit=UNITS[m],
                                  replicate=evidence.Replicate.RUN)
            spread = values.std(ddof=1) / values.mean() if len(values) > 1 else np.nan
            row.update({f"{m}_n": e.n, m: e.value, f"{m}_spread": spread,
                        f"{m}_low": np.nan if e.low is None else e.low, f"{m}_high": np.nan if e.high is None else e.high})
            if m == MAIN_MEASURE[first["tool"]]:
                row["estimate"] = e
        for p in PERCENTILES:
            row[p] = g[p].mean()
        row["runs"] = row[f"{MAIN_MEASURE[first['tool']]}_n"]
        rows.append(row)
    out = pd.DataFrame(rows)
    keys = pd.DataFrame({"label": out["label"], "tool": out["tool"], "workload": out["workload"],
                         **{p: [_sort_key(p, v) for v in out[p]] for p in ALL_PARAMETERS}, "design": out["design"]})
    return out.loc[keys.sort_values(list(keys.columns)).index].reset_index(drop=True)


def tree_directories(branching, depth) -> int | None:
    """The directories of mdtest's tree as its command line states it: 1 + b + ... + b^z; None without -z
    (with -z but no -b, mdtest's branching of 1 is no tree to time either: one directory a level)."""
    if _missing(depth):
        return None
    b = 1 if _missing(branching) else int(branching)
    return sum(b**level for level in range(int(depth) + 1))


def rankable(configs: pd.DataFrame) -> pd.Series:
    """Which configurations a ranking may name (RANK_RULE): all but mdtest's tree phases that time fewer than
    MIN_RANKED_ITEMS directories or a tree whose size the command line does not state."""
    if configs.empty:
        return pd.Series(dtype=bool)
    tree = configs["workload"].str.startswith(TREE_PHASE)
    size = [tree_directories(b, z) for b, z in zip(configs["branching"], configs["depth"])]
    return ~tree | pd.Series([s is not None and s >= MIN_RANKED_ITEMS for s in size], index=configs.index)


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


SWEEP_COLUMNS = ["sweep", "label", "tool", "workload", "design", "x", "lines", "fixed", "configurations", "measure", "log_x"]
POINT_COLUMNS = ["sweep", "tool", "workload", "design", "x", "x_shown", "x_name", "line", "mean", "low", "high", "n",
                 "measure", "config"]


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
    interval, its `config` key)."""
    sweeps, points = [], []
    if configs.empty:
        return pd.DataFrame(columns=SWEEP_COLUMNS), pd.DataFrame(columns=POINT_COLUMNS)
    stated = configs[ALL_PARAMETERS].notna().apply(tuple, axis=1)
    other = configs["other"].fillna("")
    designs = configs.groupby(["label", "tool", "workload"])["design"].transform("nunique")
    for (label, tool, workload, design, _, _), g in configs.groupby(
            [configs["label"], configs["tool"], configs["workload"], configs["design"], stated, other], sort=False):
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


SWEEP_FAMILY = "sweeps: largest x over smallest"  # the sweep lines' changes, corrected together (evidence.decide)


def compare(runs: pd.DataFrame, sample: pd.Series, baseline: pd.Series, *, family: str, label: str,
            baseline_label: str, measure: str | None = None) -> evidence.Comparison:
    """Two configurations (rows of get_configurations) of one tool by its main measure (or `measure`: a column of
    runs, MEASURES' or TAIL_PERCENTILES'), run against run (evidence.compare: the ratio of the runs' geometric
    means, Welch's t on their logs); undecided until evidence.decide."""
    m = measure or MAIN_MEASURE[baseline["tool"]]
    name, unit = (TAIL_PERCENTILES[m], "ms") if m in TAIL_PERCENTILES else _what(MEASURES[baseline["tool"]][m])
    sample_runs, base_runs = (runs[(runs["config"] == c["config"]) & (runs[m] > 0)] for c in (sample, baseline))
    return evidence.compare(observations(sample_runs, m), observations(base_runs, m), quantity=name, unit=unit,
                            replicate=evidence.Replicate.RUN, family=family, label=label, baseline_label=baseline_label)


EFFECT_COLUMNS = ["sweep", "tool", "workload", "design", "line", "x_name", "x_from", "x_to", "measure", "config_baseline"]


def sweep_effects(runs: pd.DataFrame, configs: pd.DataFrame, points: pd.DataFrame) -> pd.DataFrame:
    """Per sweep and line (so per design): the largest-x configuration compared with the smallest-x one as two
    labels are (compare, family SWEEP_FAMILY, decided together by evidence.decide): what each line is
    (EFFECT_COLUMNS) beside its Comparison (with_records)."""
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
                               label=f"{lo['x_name']} {hi['x_shown']}", baseline_label=f"{lo['x_name']} {lo['x_shown']}"))
    return with_records(pd.DataFrame(rows, columns=EFFECT_COLUMNS), evidence.decide(records))


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
        data = points[points["sweep"].isin(s["sweep"])].drop(columns=["x_name", "measure", "tool", "workload", "config", "design"])
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
        columns = min(3, len(s[["label", "design"]].drop_duplicates()))
        facet = alt.Facet("title:N", title=None, sort=s["sweep"].map(dict(zip(data["sweep"], data["title"]))).tolist(),
                          header=alt.Header(labelExpr="split(datum.value, '\\n')", labelFontSize=10))
        charts.append(layer.facet(facet=facet, columns=columns).resolve_scale(x="independent", y="independent"))
    if len(charts) == 1:
        return charts[0]
    return alt.vconcat(*charts).resolve_scale(color="independent").resolve_legend(color="independent")


# --- labels compared ------------------------------------------------------------------------------------------

COMPARISON_COLUMNS = ["tool", "workload", "parameters", "config_baseline", "config", "label", "baseline", "design",
                      "design_baseline", "measure"]


def what_was_run(config: str) -> str:
    """A configuration key without its label and design: equal for the same job run under two labels."""
    return json.dumps(json.loads(config)[1:4])


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
    return None, (f"The baseline label **{md_escape(requested)}** ran no configuration that another label ran: "
                  "no label is compared.")


def label_comparisons(runs: pd.DataFrame, configs: pd.DataFrame, baseline: str | None) -> pd.DataFrame:
    """Each configuration run under `baseline` and another label, one design a side (a label holding the job in
    two designs gives a row per design): the other's main measure over the baseline's (compare, decided
    together by evidence.decide), what each row is (COMPARISON_COLUMNS) beside its Comparison (with_records)."""
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
    return with_records(pd.DataFrame(rows, columns=COMPARISON_COLUMNS), evidence.decide(records))


def get_setups(con, source_ids: Iterable[int]) -> pd.DataFrame:
    """Per file that is a phase log of an IO500 run: that run's setup (the setups view's fields that a comparison
    names, setups.COMPARED) and the codes of its validity audit's flags (io500_run_flags), comma-separated."""
    fields = ", ".join(f"s.{f}" for f in setups.COMPARED)
    return con.execute(
        f"""
        SELECT l.source_id, {fields},
               (SELECT string_agg(DISTINCT f.code, ', ' ORDER BY f.code) FROM io500_run_flags f
                WHERE f.run_id = l.run_id) AS flags
        FROM io500_phase_log_links l JOIN setups s USING (run_id)
        WHERE list_contains(?, l.source_id)
        ORDER BY l.source_id
        """, [sorted({int(i) for i in source_ids})]).df()


def setup_differences(runs: pd.DataFrame, setup: pd.DataFrame, config_baseline: str, config: str) -> str:
    """The setup fields (setups.COMPARED) the IO500 runs behind two configurations state differently, 'baseline →
    other' ('not stated' where a side's files do not say); empty where neither side is an IO500 run's phase log."""
    def stated(cfg: str) -> dict[str, str | None]:
        rows = setup[setup.source_id.isin(runs.loc[runs["config"] == cfg, "source_id"])]
        return {f: ", ".join(sorted({str(v) for v in rows[f].dropna()})) or None for f in setups.COMPARED}

    if setup.empty:
        return ""
    return "; ".join(setups.differences(stated(config_baseline), stated(config)))


def with_records(meta: pd.DataFrame, records: list) -> pd.DataFrame:
    """Rows that say what was compared beside their decided Comparisons' columns (evidence.frame), and each
    record itself (`record`), for phrase()."""
    if meta.empty:
        return meta.assign(record=pd.Series(dtype=object))
    frame = evidence.frame(records).drop(columns=["label", "baseline_label"], errors="ignore")
    return pd.concat([meta.reset_index(drop=True), frame.reset_index(drop=True)], axis=1).assign(record=records)


# --- latency tails compared --------------------------------------------------------------------------------------

TAIL_COLUMNS = ["tool", "workload", "config_baseline", "label", "baseline", "percentile", "value_ms", "baseline_ms"]


def tail_comparisons(runs: pd.DataFrame, comparisons: pd.DataFrame) -> pd.DataFrame:
    """Per fio configuration compared between labels (label_comparisons' rows) whose runs state completion-latency
    percentiles (a single job: fio's percentiles of several jobs do not add up): each of TAIL_PERCENTILES, the
    other label's runs against the baseline's, one value per run and percentile (evidence.compare, log scale).
    The percentiles of one configuration and label are one family (read together: is its tail longer?), decided
    by evidence.decide; what each row is (TAIL_COLUMNS) beside its Comparison (with_records)."""
    rows, records = [], []
    fio = comparisons[comparisons["tool"] == "fio"] if len(comparisons) else comparisons
    by_config = runs.drop_duplicates("config").set_index("config", drop=False)
    for _, c in fio.iterrows():
        base, other = by_config.loc[c["config_baseline"]], by_config.loc[c["config"]]
        family = f"clat tails: {c['label']} over {c['baseline']}, {c['tool']} {c['parameters']} ({c['design']})"
        for column, name in TAIL_PERCENTILES.items():
            sides = [runs.loc[(runs["config"] == k) & (runs[column] > 0), column] for k in (c["config"], c["config_baseline"])]
            if min(map(len, sides)) == 0:
                continue
            rows.append({"tool": c["tool"], "workload": c["workload"], "config_baseline": c["config_baseline"],
                         "label": c["label"], "baseline": c["baseline"], "percentile": name,
                         "value_ms": evidence.geometric_mean(sides[0]), "baseline_ms": evidence.geometric_mean(sides[1])})
            records.append(compare(runs, other, base, family=family, label=c["label"], baseline_label=c["baseline"],
                                   measure=column))
    return with_records(pd.DataFrame(rows, columns=TAIL_COLUMNS), evidence.decide(records))


# --- whole curves compared ----------------------------------------------------------------------------------------

# Where a curve saturates: its knee is the smallest x whose geometric mean reaches this share of the curve's largest.
KNEE_SHARE = 0.9
CURVE_COLUMNS = ["curve", "tool", "workload", "line", "x_name", "label", "baseline", "points", "knee", "knee_baseline",
                 "knee_moved"]
CURVE_POINT_COLUMNS = ["curve", "x", "x_shown", "label", "baseline", "config_baseline"]


def knee(xs: pd.Series, means: pd.Series) -> int:
    """The position (in xs' order) of the smallest x whose mean reaches KNEE_SHARE of the largest mean."""
    order = np.argsort(xs.to_numpy())
    reached = means.to_numpy()[order] >= KNEE_SHARE * np.nanmax(means.to_numpy())
    return int(order[np.argmax(reached)])


def curve_comparisons(runs: pd.DataFrame, points: pd.DataFrame, baseline: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each sweep line (a curve) of another label against the baseline label's curve of the same job: the points
    whose configuration (what_was_run) both labels ran, at least MIN_SWEEP_VALUES of them. Per point the ratio of
    the runs' geometric means (compare; the points of one curve one family, decided by evidence.decide), and
    one summary ratio over the curve: the geometric mean of the per-point ratios with a t interval over the points
    (evidence.compare_to_reference of the ratios against 1, Replicate.POINT; the summaries one family). Why a
    t interval over points and not evidence.cluster_bootstrap over runs: every run belongs to one point of one
    label (a fio invocation of its own), so the points' ratios are independent of each other, and with 3 runs a
    point a side a bootstrap resamples from 10 distinct sets per side, too few for a percentile interval. The
    interval thus covers the run-to-run noise of each point and how the ratio varies along the curve. The knee of
    each side (knee(): the smallest x reaching KNEE_SHARE of its curve's largest mean) and whether it moved.
    Returns (curves: CURVE_COLUMNS beside the summary's record, points: CURVE_POINT_COLUMNS beside theirs)."""
    empty = (with_records(pd.DataFrame(columns=CURVE_COLUMNS), []), with_records(pd.DataFrame(columns=CURVE_POINT_COLUMNS), []))
    if points.empty or baseline is None:
        return empty
    by_config = runs.drop_duplicates("config").set_index("config", drop=False)
    points = points.assign(job=points["config"].map(what_was_run), label=points["config"].map(lambda c: json.loads(c)[0]))
    base = points[points["label"] == baseline].drop_duplicates("job").set_index("job")
    curves, summaries, point_rows, point_records = [], [], [], []
    for (sweep, line), g in points[points["label"] != baseline].groupby(["sweep", "line"], sort=False):
        g = g[g["job"].isin(base.index)].drop_duplicates("job").sort_values("x")
        if len(g) < MIN_SWEEP_VALUES:
            continue
        b = base.loc[g["job"]]
        name = f"{g['label'].iloc[0]} · {g['tool'].iloc[0]} {g['workload'].iloc[0]}" + (f" · {line}" if line != "all" else "")
        family = f"curve points: {name} over {baseline}"
        records = [compare(runs, by_config.loc[o], by_config.loc[k], family=family, label=g["label"].iloc[0],
                           baseline_label=baseline) for o, k in zip(g["config"], b["config"])]
        point_records += records
        point_rows += [{"curve": name, "x": x, "x_shown": shown, "label": g["label"].iloc[0], "baseline": baseline,
                        "config_baseline": k} for x, shown, k in zip(g["x"], g["x_shown"], b["config"])]
        ratios = [r.ratio for r in records]
        summaries.append(evidence.compare_to_reference(
            ratios, 1.0, quantity=f"{_what(g['measure'].iloc[0])[0]} over the curve", unit="ratio",
            replicate=evidence.Replicate.POINT, family=f"whole curves over {baseline}", label=g["label"].iloc[0],
            reference_label=baseline))
        mine, theirs = knee(g["x"], g["mean"]), knee(b["x"], b["mean"])
        curves.append({"curve": name, "tool": g["tool"].iloc[0], "workload": g["workload"].iloc[0], "line": line,
                       "x_name": g["x_name"].iloc[0], "label": g["label"].iloc[0], "baseline": baseline,
                       "points": len(g), "knee": g["x_shown"].iloc[mine], "knee_baseline": b["x_shown"].iloc[theirs],
                       "knee_moved": bool(g["x"].iloc[mine] != b["x"].iloc[theirs])})
    if not curves:
        return empty
    return (with_records(pd.DataFrame(curves, columns=CURVE_COLUMNS), evidence.decide(summaries)),
            with_records(pd.DataFrame(point_rows, columns=CURVE_POINT_COLUMNS), evidence.decide(point_records)))


def distinguishing(configs: Iterable[str]) -> list[str]:
    """What tells configurations (their `config` keys) apart, per configuration: the parameters whose values
    differ among those of its tool, and the ones it leaves unknown that most of them state."""
    rows = [json.loads(c) for c in configs]
    values = [dict(zip(ALL_PARAMETERS, r[3])) for r in rows]
    out = []
    for (_, tool, *_), v in zip(rows, values):
        same = [w for (_, t, *_), w in zip(rows, values) if t == tool]
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


def chart_comparisons(comparisons: pd.DataFrame):
    """Each shared configuration's ratio of geometric means over the baseline label (log scale) with its
    interval, one colour per label; filled when decided (evidence.decide)."""
    configuration = [f"{tool} {workload}" + (f": {p}" if p != "–" else "") for tool, workload, p in
                     zip(comparisons["tool"], comparisons["workload"], distinguishing(comparisons["config_baseline"]))]
    data = comparisons.assign(configuration=configuration)[
        ["configuration", "label", "ratio", "low", "high", "p_adjusted", "n", "n_baseline", "verdict"]]
    x = alt.X("ratio:Q", title=f"ratio of geometric means over {comparisons['baseline'].iloc[0]} (log scale)",
              scale=alt.Scale(type="log"))
    y = alt.Y("configuration:N", title=None, sort=None, axis=alt.Axis(labelLimit=0))
    color = alt.Color("label:N", legend=alt.Legend(orient="bottom", columns=1, labelLimit=0))  # whole labels, one a line
    tooltip = ["configuration:N", "label:N", alt.Tooltip("ratio:Q", format=".3g"), alt.Tooltip("low:Q", format=".3g"),
               alt.Tooltip("high:Q", format=".3g"), alt.Tooltip("p_adjusted:Q", title="Holm p", format=".2g"),
               "n:Q", "n_baseline:Q", "verdict:N"]
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


def _largest(frame: pd.DataFrame):
    """The row with the largest ratio (either way) of the first tool, in TOOLS' order, that has one: bandwidth
    before metadata rates."""
    order = frame["tool"].map(TOOLS.index)
    first = frame[order == order.min()]
    return first.loc[first["ratio"].map(_log_size).idxmax()]


def _design_name(design: str) -> str:
    return md_escape(design.removeprefix(source_labels.COLLECTOR_RUN))


def same_line(effects: pd.DataFrame, e) -> pd.DataFrame:
    """The changes of sweep line `e` in every design of its label and workload (its own among them)."""
    return effects[(effects["tool"] == e["tool"]) & (effects["workload"] == e["workload"]) & (effects["line"] == e["line"])
                   & (effects["x_name"] == e["x_name"]) & (effects["sweep"].str.split(" · ").str[0] == e["sweep"].split(" · ")[0])]


def current_of(effects: pd.DataFrame, e) -> pd.Series:
    """The same sweep line's change in the newest design of its label and workload (collector runs are named by
    when they started, so the greatest name is the newest), where the line was swept in several: the current
    result leads, superseded ones beside it."""
    same = same_line(effects, e)
    collector = same[same["design"].str.startswith(source_labels.COLLECTOR_RUN)]
    return collector.sort_values("design").iloc[-1] if len(collector) > 1 else e


def sweep_finding(effects: pd.DataFrame, e) -> str:
    """A sweep line's change (MyST), in its design, and beside it the same line's change in every other design
    of that label and workload (never pooled with it)."""
    label = md_escape(e["sweep"].split(" · ", 1)[0])
    line = f" ({md_escape(e['line'])})" if e["line"] != "all" else ""
    same = same_line(effects, e)
    same = same[same["design"] != e["design"]]
    others = "; ".join(f"{_design_name(o['design'])}: {_times(o['ratio'])}×" for _, o in same.iterrows())
    where = f" in {_design_name(e['design'])}" if len(same) else ""
    return (f"**{label}** {e['tool']} {md_escape(e['workload'])} {_what(e['measure'])[0]}, {md_escape(e['x_name'])} "
            f"{md_escape(e['x_from'])} → {md_escape(e['x_to'])}{line}{where}: {evidence.phrase(e['record'])}"
            + (f"; superseded, {others}" if others and where else f"; {others}" if others else ""))


def _times(ratio: float) -> str:
    """A ratio to 3 significant digits, never in exponent notation: 0.0181, 1.3, 5,010."""
    return f"{ratio:,.0f}" if ratio >= 100 else f"{ratio:.3g}"


def _headline_pool(frame: pd.DataFrame, ranked: set) -> tuple[int, pd.DataFrame]:
    """The comparisons a finding may name (of rankable configurations), best first: (0, the decided), else (1,
    those with an interval), else (2, all); (3, none) when there are none."""
    rows = frame[frame["config_baseline"].isin(ranked)] if len(frame) else frame
    pools = [rows[rows["decided"]], rows[rows["low"].notna()], rows] if len(rows) else []
    return next(((tier, pool) for tier, pool in enumerate(pools) if len(pool)), (3, rows))


def tail_finding(tails: pd.DataFrame) -> report_.Finding | None:
    """The largest clat p99 ratio between labels (decided ones first), and how many percentiles are decided."""
    p99 = tails[tails["percentile"] == TAIL_PERCENTILES["p99_ms"]] if len(tails) else tails
    if p99.empty:
        return None
    pool = p99[p99["decided"]] if p99["decided"].any() else p99
    t = pool.loc[pool["ratio"].map(_log_size).idxmax()]
    parameters = distinguishing(tails["config_baseline"])[tails.index.get_loc(t.name)]
    return report_.Finding(
        text=f"Tail latency: **{md_escape(t['label'])}** over **{md_escape(t['baseline'])}** in {t['tool']} "
             f"{md_escape(t['workload'])} ({md_escape(parameters)}), {t['percentile']}: {evidence.phrase(t['record'])}; "
             f"{int(tails['decided'].sum()):,} of {len(tails):,} percentiles compared "
             f"({', '.join(TAIL_PERCENTILES.values())}) are decided",
        target="tab-runs-tails", evidence=tuple(tails["record"]))


def curve_finding(curves: pd.DataFrame) -> report_.Finding | None:
    """The whole curve whose summary ratio is largest (decided ones first), with where each side's knee is."""
    if curves.empty:
        return None
    pool = curves[curves["decided"]] if curves["decided"].any() else curves
    c = pool.loc[pool["ratio"].map(_log_size).idxmax()]
    moved = "moved" if c["knee_moved"] else "did not move"
    return report_.Finding(
        text=f"Whole curve: **{md_escape(c['label'])}** over **{md_escape(c['baseline'])}**, {md_escape(c['curve'])} "
             f"over {md_escape(c['x_name'])}: {evidence.phrase(c['record'])}; the knee ({KNEE_SHARE:.0%} of the "
             f"largest) {moved}: {md_escape(c['knee_baseline'])} → {md_escape(c['knee'])}",
        target="fig-runs-curves", evidence=(c["record"],))


def findings(configs: pd.DataFrame, effects: pd.DataFrame, comparisons: pd.DataFrame,
             tails: pd.DataFrame | None = None, curves: pd.DataFrame | None = None,
             failed: pd.DataFrame | None = None) -> list[report_.Finding]:
    """The chapter's findings. The first, at most 30 words: the largest difference between labels or change
    along a sweep, decided ones before those with an interval before the rest (labels before sweeps at each
    step), else the best-repeated configuration's estimate; rankings never name what `rankable` leaves out.
    Then, where the data holds them: the sweep, the labels compared (unless none could be: too few units each), the
    run-to-run spread, the phases whose logs say they failed."""
    if configs.empty:
        return [report_.Finding(text="This database holds no fio, IOR or mdtest run, so there is nothing to find yet "
                                     "(what to add: below)", target=None)]
    ranked = set(configs.loc[rankable(configs), "config"])
    out: list[report_.Finding] = []
    sweep = comparison = summary = None
    sweep_tier, pool = _headline_pool(effects, ranked)
    if len(pool):
        e = current_of(effects, _largest(pool))
        sweep = report_.Finding(text=sweep_finding(effects, e), target="fig-runs-sweeps", evidence=(e["record"],))
    comparison_tier, pool = _headline_pool(comparisons, ranked)
    if len(pool):
        base = md_escape(comparisons["baseline"].iloc[0])
        d = _largest(pool)
        comparison = report_.Finding(
            text=f"**{md_escape(d['label'])}** over **{base}** in {d['tool']} {md_escape(d['workload'])} "
                 f"{_what(d['measure'])[0]}: {evidence.phrase(d['record'])}",
            target="tab-runs-comparisons", evidence=(d["record"],))
        verdicts = comparisons["verdict"].astype(str).value_counts()
        needs = comparisons["n_to_decide"].dropna()
        # comparisons none of which has the units to decide: said as what the labels allow, not as "0 of n decided"
        too_few = (comparisons["verdict"].astype(str) == str(evidence.Verdict.TOO_FEW)).all()
        most = int(comparisons[["n", "n_baseline"]].min(axis=1).max())
        summary = report_.Finding(
            text=f"**{base}** shares {evidence.plural(len(comparisons), 'configuration')} with other labels, run at "
                 f"most {most:,} time{'' if most == 1 else 's'} a side: no label can be compared with it yet (the least "
                 f"is {evidence.MIN_UNITS} a side)", target="tab-runs-comparisons",
            evidence=tuple(comparisons["record"])) if too_few else report_.Finding(
            text=f"{int(comparisons['decided'].sum()):,} of {len(comparisons):,} configurations run under **{base}** and "
                 f"another label are decided ({', '.join(f'{n:,} {v}' for v, n in verdicts.items())})"
                 + (f"; {len(needs):,} of the others would be decided by {int(needs.min()):,} to {int(needs.max()):,} "
                    "runs a side at the ratio and spread seen" if len(needs) else ""),
            target="tab-runs-comparisons", evidence=tuple(comparisons["record"]))
    repeated = configs[(configs["runs"] >= 2) & configs["config"].isin(ranked)]
    spread = None
    if len(repeated):
        cv = pd.Series([r[f"{MAIN_MEASURE[r['tool']]}_spread"] for _, r in repeated.iterrows()], index=repeated.index)
        worst = repeated.loc[cv.idxmax()]
        spread = report_.Finding(
            text=f"Run to run, the main measure of the {len(repeated):,} configurations run at least twice varies by a "
                 f"median {cv.median():.0%} of its mean (sd / mean); most, {cv.max():.0%}, in **{md_escape(worst['label'])}** "
                 f"{worst['tool']} {md_escape(worst['workload'])} ({worst['runs']:,} runs)",
            target=f"tab-runs-{worst['tool']}", evidence=(
                evidence.described(cv.median(), quantity="median run-to-run sd / mean over the configurations run "
                                   "at least twice", unit="share", n=len(repeated), replicate=evidence.Replicate.RUN,
                                   how="a median over configurations, each its runs' spread"),))
    if comparison and comparison_tier <= sweep_tier:
        out.append(comparison)
    elif sweep:
        out.append(sweep)
    else:
        best = configs[configs["config"].isin(ranked)].sort_values("runs", ascending=False, kind="stable").iloc[0]
        e = best["estimate"]
        out.append(report_.Finding(text=f"**{md_escape(best['label'])}** {best['tool']} {md_escape(best['workload'])} "
                                       f"{_what(MEASURES[best['tool']][MAIN_MEASURE[best['tool']]])[0]}: {evidence.phrase(e)}",
                                  target=f"tab-runs-{best['tool']}", evidence=(e,)))
    curve = curve_finding(curves) if curves is not None else None
    tail = tail_finding(tails) if tails is not None else None
    failures = None
    if failed is not None and len(failed):
        files = failed["file"].nunique()
        counted = evidence.count(len(failed), len(failed), of=evidence.Replicate.CENSUS,
                                 quantity="phases whose log says they failed, listed and never read as a rate")
        failures = report_.Finding(text=f"{evidence.plural(counted.k, 'phase')} ({', '.join(sorted(set(failed['tool'])))}) in "
                                        f"{evidence.plural(files, 'file')} say they failed: each listed with its reason, none read "
                                        "as a rate", target="tab-runs-failed", evidence=(counted,))
    out += [f for f in (sweep, summary, curve, tail, spread, failures) if f and f not in out]
    if sweep is None:
        out.append(report_.Finding(text=f"No sweep: no label, workload and design has configurations differing in 1 to "
                                       f"{MAX_SWEEP_PARAMETERS} parameters, one of them numeric, on lines of 2 points "
                                       "or more on average"))  # the sweeps section shows only with sweeps
    if not len(comparisons):
        out.append(report_.Finding(text="No configuration was run under two labels, so no label is compared with "
                                       "another"))  # no table to link: its section shows only with comparisons
    return out


# --- tables ---------------------------------------------------------------------------------------------------------

def _num(x) -> str:
    """3 significant digits and thousands separators: 1234.5 -> '1,234', 0.01234 -> '0.0123'."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def estimate_text(value, spread, low=np.nan, high=np.nan) -> str:
    """'value ±spread% (low–high)': the geometric mean over the runs, their spread as sd / mean (from two
    runs on), and the interval where there is one."""
    if not np.isfinite(value):
        return "–"
    text = _num(value) + (f" ±{spread:.0%}" if np.isfinite(spread) and spread > 0 else "")
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


def configuration_table(configs: pd.DataFrame, tool: str) -> tuple[pd.DataFrame, str]:
    """The configurations of one tool as shown, and what every one of them shares (split_constant): label,
    design, workload, the parameters ('–' where the log does not state it), runs, the main measure as
    'geometric mean ±sd/mean (interval)', the others as 'geometric mean ±sd/mean', and fio's clat p99."""
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
    out["runs"] = g["runs"].astype(int)
    for m, name in MEASURES[tool].items():
        if m == MAIN_MEASURE[tool]:
            out[name] = [estimate_text(*v) for v in zip(g[m], g[f"{m}_spread"], g[f"{m}_low"], g[f"{m}_high"])]
        else:
            out[name] = [estimate_text(a, s) for a, s in zip(g[m], g[f"{m}_spread"])]
    if tool == "fio":
        out["clat p99 (ms)"] = g["p99_ms"].map(_num)
    out["ranked"] = np.where(rankable(g), "yes", "no: " + RANK_RULE_SHORT)
    return split_constant(out.reset_index(drop=True), keep=["label", "workload", "runs"])


def sweeps_table(sweeps: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    return split_constant(sweeps.drop(columns=["sweep", "log_x"]).rename(columns={
        "x": "swept (x axis)", "lines": "one line per", "fixed": "the same in every run"}),
        keep=["label", "workload", "swept (x axis)"])


def verdict_text(row) -> str:
    """A comparison's verdict as evidence.decide set it, with the runs a side that would decide it."""
    return str(row["verdict"]) + (f": {int(row['n_to_decide']):,} runs a side would decide"
                             if not row["decided"] and not _missing(row["n_to_decide"]) else "")


def ratio_text(row) -> str:
    interval = f" ({_times(row['low'])}–{_times(row['high'])})" if not _missing(row["low"]) else ""
    return f"{_times(row['ratio'])}×{interval}"


def comparison_table(comparisons: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The comparisons as shown, each configuration by what tells it from the others (distinguishing), each
    side's design, and the columns all of them share said once (split_constant)."""
    c = comparisons
    if c.empty:
        return pd.DataFrame(), ""
    table = pd.DataFrame({
        "run": c["tool"] + " " + c["workload"], "parameters": distinguishing(c["config_baseline"]),
        "label": c["label"], "design": c["design"], "baseline design": c["design_baseline"],
        "runs / runs baseline": [f"{a} / {b}" for a, b in zip(c["n"], c["n_baseline"])],
        f"ratio of geometric means ({evidence.CONFIDENCE:.0%} interval)": [ratio_text(r) for _, r in c.iterrows()],
        "Holm p": [f"{p:.2g}" if not _missing(p) else "–" for p in c["p_adjusted"]],
        "verdict": [verdict_text(r) for _, r in c.iterrows()]})
    if "setups_differ" in c and c["setups_differ"].astype(bool).any():
        table["setups differ in (IO500 runs)"] = c["setups_differ"].replace("", "nothing stated").to_numpy()
    return split_constant(table, keep=["run", "parameters", "label", "verdict"])


def effects_table(effects: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Each sweep line's change, largest x over smallest, in its design (never pooled across designs)."""
    if effects.empty:
        return pd.DataFrame(), ""
    table = pd.DataFrame({
        "sweep": effects["sweep"], "design": effects["design"], "line": effects["line"],
        "from → to": effects["x_name"] + " " + effects["x_from"] + " → " + effects["x_to"],
        "runs / runs baseline": [f"{a} / {b}" for a, b in zip(effects["n"], effects["n_baseline"])],
        f"ratio of geometric means ({evidence.CONFIDENCE:.0%} interval)": [ratio_text(r) for _, r in effects.iterrows()],
        "Holm p": [f"{p:.2g}" if not _missing(p) else "–" for p in effects["p_adjusted"]],
        "verdict": [verdict_text(r) for _, r in effects.iterrows()]})
    return split_constant(table, keep=["sweep", "design", "line", "verdict"])


def tails_table(tails: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Each latency percentile compared: the job, the label, the geometric means over the runs of each side, their
    ratio with its interval and the verdict, the columns all rows share said once (split_constant)."""
    if tails.empty:
        return pd.DataFrame(), ""
    t = tails
    table = pd.DataFrame({
        "run": t["tool"] + " " + t["workload"], "parameters": distinguishing(t["config_baseline"]), "label": t["label"],
        "percentile": t["percentile"], "label (ms)": t["value_ms"].map(_num), "baseline (ms)": t["baseline_ms"].map(_num),
        "runs / runs baseline": [f"{a} / {b}" for a, b in zip(t["n"], t["n_baseline"])],
        f"ratio of geometric means ({evidence.CONFIDENCE:.0%} interval)": [ratio_text(r) for _, r in t.iterrows()],
        "Holm p": [f"{p:.2g}" if not _missing(p) else "–" for p in t["p_adjusted"]],
        "verdict": [verdict_text(r) for _, r in t.iterrows()]})
    return split_constant(table, keep=["run", "parameters", "label", "percentile", "verdict"])


def curves_table(curves: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Each curve compared: its points, the summary ratio over them with its interval and verdict, and the knee of
    each side."""
    if curves.empty:
        return pd.DataFrame(), ""
    c = curves
    table = pd.DataFrame({
        "curve": c["curve"], "swept (x axis)": c["x_name"], "points": c["points"],
        f"ratio over the curve ({evidence.CONFIDENCE:.0%} interval)": [ratio_text(r) for _, r in c.iterrows()],
        "Holm p": [f"{p:.2g}" if not _missing(p) else "–" for p in c["p_adjusted"]],
        "verdict": [verdict_text(r).replace("runs a side", "points") for _, r in c.iterrows()],
        f"knee ({KNEE_SHARE:.0%} of the largest): baseline → label": c["knee_baseline"] + " → " + c["knee"],
        "knee moved": np.where(c["knee_moved"], "yes", "no")})
    return split_constant(table, keep=["curve", "verdict", "knee moved"])


def curve_points_table(points: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Every point of every curve compared: its ratio over the baseline's point with its interval and verdict."""
    if points.empty:
        return pd.DataFrame(), ""
    p = points
    table = pd.DataFrame({
        "curve": p["curve"], "x": p["x_shown"], "runs / runs baseline": [f"{a} / {b}" for a, b in zip(p["n"], p["n_baseline"])],
        f"ratio of geometric means ({evidence.CONFIDENCE:.0%} interval)": [ratio_text(r) for _, r in p.iterrows()],
        "Holm p": [f"{q:.2g}" if not _missing(q) else "–" for q in p["p_adjusted"]],
        "verdict": [verdict_text(r) for _, r in p.iterrows()]})
    return split_constant(table, keep=["curve", "x", "verdict"])


def chart_curves(curves: pd.DataFrame, points: pd.DataFrame):
    """One panel per curve (the first MAX_SWEEP_PANELS): each point's ratio over the baseline label's (log scale)
    with its interval, filled when decided, and the summary ratio over the curve as a dashed rule."""
    shown = curves.head(MAX_SWEEP_PANELS)
    data = points[points["curve"].isin(shown["curve"])][["curve", "x", "x_shown", "ratio", "low", "high", "verdict"]]
    data = data.merge(shown[["curve", "ratio"]].rename(columns={"ratio": "summary"}), on="curve")
    x = alt.X("x:Q", title=" / ".join(f"{name} (KiB)" if name in {SHOWN_NAMES.get(b, b) for b in BYTE_PARAMETERS} else name
                                       for name in shown["x_name"].unique()),
              scale=alt.Scale(type="log", nice=False), axis=alt.Axis(labelOverlap="greedy", format=",.0f"))
    y = alt.Y("ratio:Q", title=f"ratio over {shown['baseline'].iloc[0]} (log scale)", scale=alt.Scale(type="log"))
    tooltip = ["curve:N", alt.Tooltip("x_shown:N", title="x"), alt.Tooltip("ratio:Q", format=".3g"),
               alt.Tooltip("low:Q", format=".3g"), alt.Tooltip("high:Q", format=".3g"), "verdict:N",
               alt.Tooltip("summary:Q", title="over the curve", format=".3g")]
    base = alt.Chart()
    layer = alt.layer(
        base.mark_rule(strokeDash=[4, 3], color="gray").encode(y=alt.datum(1)),
        base.mark_rule(strokeDash=[2, 2]).encode(y=alt.Y("summary:Q")),
        base.mark_rule().encode(x, alt.Y("low:Q"), alt.Y2("high:Q")),
        base.mark_point(size=40).encode(x, y, tooltip=tooltip, fill=alt.condition(
            "datum.verdict == 'decided'", alt.value("black"), alt.value("white")), color=alt.value("black")),
        data=data).properties(width=140, height=120)
    return layer.facet(facet=alt.Facet("curve:N", title=None, sort=shown["curve"].tolist(),
                                       header=alt.Header(labelFontSize=10, labelLimit=200)),
                       columns=3).resolve_scale(x="independent", y="independent")


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


def read_sentence(runs: pd.DataFrame, configs: pd.DataFrame) -> str:
    """What the chapter read, for the page (MyST): files per tool, runs, designs, configurations, labels."""
    if runs.empty:
        return "This database holds no fio, IOR or mdtest result. " + HOW_TO_ADD
    files = runs.groupby("tool")["source_id"].nunique()
    per_tool = ", ".join(f"{files[t]:,} {TOOL_NAMES[t]}" for t in TOOLS if t in files)
    labels = sorted(set(runs["label"]))
    shown = ", ".join(f"**{md_escape(x)}**" for x in labels[:8]) + (f" and {len(labels) - 8:,} more" if len(labels) > 8 else "")
    return (f"{runs['source_id'].nunique():,} files hold fio, IOR or mdtest results ({per_tool}): {len(runs):,} runs "
            f"of {len(configs):,} configurations in {runs['design'].nunique():,} designs under {len(labels):,} "
            f"label(s): {shown}.")


def label_notes_md(label_files: pd.DataFrame, notes: list[str], baseline_note: str | None) -> str:
    """Which labels files were read and what could not be applied, and the baseline label's note, for the page
    (MyST)."""
    lines = []
    if len(label_files):
        lines.append("Labels files read: " + "; ".join(
            f"{md_escape(r['labels file'])} ({r['patterns']:,} pattern(s), {r['files labelled']:,} file(s) labelled)"
            for _, r in label_files.iterrows()) + ".")
    else:
        lines.append("No `labels.yml` or `labels.csv` was found among the files read: labels come from IO500 runs "
                     "and folders.")
    lines += [f"- {md_escape(n)}" for n in notes] + ([f"- {baseline_note}"] if baseline_note else [])
    return "\n".join(lines)


def md_escape(text) -> str:
    return present.md_escape(text)


TOOL_NAMES = {"fio": "fio", "ior": "IOR", "mdtest": "mdtest"}


# --- the report -----------------------------------------------------------------------------------------------------

def searchable(frame: pd.DataFrame) -> report_.Table:
    """A table with a filter box (nb.table), but for an empty one: the box's script reads a first row."""
    return report_.Table(frame=frame, searchable=len(frame) > 0)


def report(con, *, baseline_label: str = "") -> report_.Report:
    """The chapter: every configuration with its runs, the sweeps they form and their changes per design, the
    labels compared with `baseline_label` (empty: the first, A-Z, sharing a configuration: choose_baseline),
    every verdict by evidence.decide."""
    runs = get_runs(con)
    configs = get_configurations(runs)
    sweeps, points = get_sweeps(configs)
    baseline, baseline_note = choose_baseline(configs, baseline_label)
    effects = sweep_effects(runs, configs, points)
    setup = get_setups(con, runs["source_id"]) if len(runs) else pd.DataFrame(columns=["source_id", "flags"])
    comparisons = label_comparisons(runs, configs, baseline)
    comparisons["setups_differ"] = [setup_differences(runs, setup, a, b) for a, b in
                                    zip(comparisons["config_baseline"], comparisons["config"])]
    tails = tail_comparisons(runs, comparisons)
    curves, curve_points = curve_comparisons(runs, points, baseline)
    _, label_files, label_notes = source_labels.label_sources(con, runs["source_id"])
    failed = get_failed_phases(con)
    values: dict = {"confidence": evidence.CONFIDENCE, "min-units": evidence.MIN_UNITS,
                    "rank-rule": Prose(md_escape(RANK_RULE)), "design-rule": Prose(md_escape(DESIGN_RULE)),
                    "read": Prose(read_sentence(runs, configs)),
                    "failed": Prose(failed_sentence(failed)), "has-failed": bool(len(failed)),
                    "label-notes": Prose(label_notes_md(label_files, label_notes, baseline_note)),
                    "baseline": Prose(f"**{md_escape(baseline)}**" if baseline else ""),
                    "has-sweeps": bool(len(sweeps)), "has-comparisons": bool(len(comparisons)),
                    "has-tails": bool(len(tails)), "has-curves": bool(len(curves)), "knee-share": f"{KNEE_SHARE:.0%}",
                    "tail-percentiles": ", ".join(TAIL_PERCENTILES.values())}
    tables = {}
    for tool in TOOLS:
        frame, shared = configuration_table(configs, tool)
        tables[f"tab-runs-{tool}"] = searchable(frame)
        values[f"shared-{tool}"] = Prose(f"Every {TOOL_NAMES[tool]} configuration here: {md_escape(shared)}."
                                            if shared else "" if len(frame) else f"This database holds no {TOOL_NAMES[tool]} run.")
    for key, (frame, shared) in (("sweeps", sweeps_table(sweeps)), ("effects", effects_table(effects)),
                                 ("comparisons", comparison_table(comparisons)), ("tails", tails_table(tails)),
                                 ("curves", curves_table(curves)), ("curve-points", curve_points_table(curve_points))):
        tables[f"tab-runs-{key}"] = searchable(frame)
        values[f"shared-{key}"] = Prose(f"Every row here: {md_escape(shared)}." if shared else "")
    tables["tab-runs-labels"] = searchable(labels_table(runs, setup))
    tables["tab-runs-failed"] = searchable(failed)
    figures = {}
    if len(sweeps):
        figures["fig-runs-sweeps"] = chart_sweeps(sweeps, points)
    if len(comparisons):
        figures["fig-runs-comparisons"] = chart_comparisons(comparisons)
    if len(curves):
        figures["fig-runs-curves"] = chart_curves(curves, curve_points)
    records = [*configs.get("estimate", pd.Series(dtype=object)).dropna(), *effects["record"], *comparisons["record"],
               *tails["record"], *curves["record"], *curve_points["record"]]
    return report_.Report(values=values, tables=tables, figures=figures,
                          findings=findings(configs, effects, comparisons, tails, curves, failed), evidence=records)
