"""Every run the chapter reads, one row each (queries/fio.sql, ior.sql, mdtest.sql, dlio.sql): its label, tool, workload, the
parameters its log states and its design; the phases whose logs say they failed (queries/failed_phases.sql); the
setup of the IO500 runs whose phase logs they are (queries/setups.sql)."""
from __future__ import annotations

import errno
import json
import shlex
from collections.abc import Iterable

import numpy as np
import pandas as pd

from ...database import source_labels, store
from ...inference import evidence
from ...inference.units import MIB
from .parameters import (ALL_PARAMETERS, MEASURE_COLUMNS, OTHER_SEPARATOR, PERCENTILES, cells, missing, parameter_text,
                         plain)

# fio options that name files, logs or output, or only shape the report: not part of what was measured.
IGNORED_OPTIONS = {
    "name", "filename", "directory", "filename_format", "description", "output", "output-format",
    "write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log", "log_avg_msec", "log_hist_msec",
    "log_max_value", "log_offset", "log_prio", "per_job_logs", "group_reporting", "stonewall", "new_group",
    "wait_for", "verify_state_save", "verify_state_load",
}
FIO_NAMED = {"rw", "readwrite", "bs", "blocksize", "iodepth", "numjobs", "direct", "ioengine", "size"}
# Labels a collector gives a step that say how it ran, not what was run: the repetition counter and the quiet-machine
# check's readings (scripts/collectlib.py LoadGate.LABELS; a test keeps them in step). The end-of-run baseline's
# `drift_check=end` stays a parameter: a baseline measured again after every other step is no repetition of it (issue
# 46: pooled, it made 18 configurations a run longer and moved their spread), and its drift is the chapters' to say.
MANIFEST_CONDITION_KEYS = ["repetition", "busy_before_pct", "busy_after_pct", "busy_others_during_pct", "wait_s",
                           "under_load", "attempt"]
# fio's `other` for a job whose output states no options (terse): each parameter is unknown, never a default
UNSTATED_PARAMETERS = "parameters unknown (the output states no job options)"
FIO_SINGLE = {"read": {"read", "randread"}, "write": {"write", "randwrite"}, "trim": {"trim", "randtrim"}}
STATUS_FILE = "as the write's status file says"
FAILED_COLUMNS = ["tool", "file", "phase", "line", "reason"]
RUN_COLUMNS = ["label", "labelled_by", "tool", "workload", *ALL_PARAMETERS, "parameters", "design", "config", "unit",
               "source_id", "file", "values", *MEASURE_COLUMNS, *PERCENTILES]
SETUP_COLUMNS = ["source_id", "flags"]  # with setups.COMPARED's fields


def stonewall(seconds, follows_write: bool) -> str | None:
    """A run's stonewall as its command line states it: its own deadline in seconds, or the status file of the
    write before it (`follows_write`: IO500's later phases), else None."""
    if not missing(seconds) and seconds > 0:
        return f"{int(seconds)} s"
    return STATUS_FILE if follows_write else None


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
    """One row per fio result (job and direction) per file (queries/fio.sql): bandwidth (MiB/s), IOPS, the mean
    total latency and the completion-latency percentiles (ms; only for a single job: percentiles do not add up).
    The run (`unit`) is the file: one fio invocation. A job whose output states no options (terse) is its name and
    operations, its parameters unknown (UNSTATED_PARAMETERS)."""
    df = store.frame(con, __package__, "fio", [MANIFEST_CONDITION_KEYS, MIB])
    df.loc[df["entries"] > 1, ["lat_ms", *PERCENTILES]] = np.nan
    df["workload"] = [_fio_workload(*row) for row in zip(cells(df["rw"]), df["direction"], cells(df["unstated_key"]),
                                                          cells(df["operations"]))]
    df["other"] = [UNSTATED_PARAMETERS if key is not None else _fio_other(o, m) for key, o, m in
                   zip(cells(df["unstated_key"]), cells(df["options"]), cells(df["manifest"]))]
    df["unit"] = df["source_id"].astype(str)
    return df.drop(columns=["options", "manifest", "entries", "groupid", "direction", "unstated_key", "operations"])


def get_ior(con) -> pd.DataFrame:
    """One row per IOR iteration of a write or read (queries/ior.sql). The run (`unit`) is the test of one
    invocation that the iterations (-i) repeat."""
    df = store.frame(con, __package__, "ior")
    df["unit"] = df["source_id"].astype(str) + ":" + df["test_index"].astype(str)
    df["stonewall"] = [stonewall(s, "stoneWallingStatusFile" in (c or "")) for s, c in
                       zip(cells(df.stonewall_s), cells(df.command))]
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
    """One row per rate (ops/s) an mdtest SUMMARY printed (queries/mdtest.sql): the mean of the iterations (-i) of
    that invocation, which is one run (`unit`); mdtest prints no iteration's own rate. Phases the run did not do
    and phases that failed (get_failed_phases) are left out."""
    df = store.frame(con, __package__, "mdtest")
    tree = pd.DataFrame([mdtest_options(c) for c in cells(df["command"])], index=df.index,
                        columns=["branching", "depth", "write_bytes", "read_bytes", "unique_dir", "stonewall"])
    df = pd.concat([df.drop(columns=["command"]), tree], axis=1)
    df["unit"] = df["source_id"].astype(str) + ":" + df["summary_index"].astype(str)
    return df.drop(columns=["summary_index"])


def get_dlio(con) -> pd.DataFrame:
    """One row per DLIO run of your own (queries/dlio.sql; MLPerf Storage submissions are the MLPerf chapter's): its
    MiB/s (DLIO's MB), MiB/s per simulated accelerator, samples/s and AU, each DLIO's mean over the epochs. The run
    (`unit`) is the summary.json."""
    df = store.frame(con, __package__, "dlio")
    df["unit"] = df["source_id"].astype(str)
    return df


def get_failed_phases(con) -> pd.DataFrame:
    """The phases whose log says they failed (queries/failed_phases.sql): an mdtest phase that printed that its
    operations failed (mdtest_results.failed), a fio job whose output states an error (fio_jobs.error, an errno) and
    a DLIO run whose log has no summary.json beside it (dlio_logs.status 'unfinished'). No run: each is listed with
    the file as readers see it, the phase (fio: the job and its rw; dlio: training or data generation), the line of
    the first such message (mdtest; dlio: the log's last) and the reason (mdtest's message, with how many more the
    phase printed; fio's errno and its name; how far the DLIO run got)."""
    df = store.frame(con, __package__, "failed_phases")
    df["file"] = store.reader_paths(con, df["file"])
    more = df["failure_lines"].fillna(1) - 1
    df["reason"] = [f"fio error {int(e)} ({errno.errorcode.get(int(e), 'not a Linux errno')})" if pd.notna(e) else
                    f + (f" (and {int(n):,} more such line{'' if n == 1 else 's'})" if n else "")
                    for e, f, n in zip(df["errno"], df["failure"], more)]
    return df[FAILED_COLUMNS]


def get_dlio_logs(con) -> dict:
    """DLIO's logs beside the DLIO runs of your own (queries/dlio_logs.sql): the runs, those whose log printed its
    averaged metrics, those whose metrics agree with summary.json, the blocks the logs state and how far a block's AU
    (rank 0's) lies from summary.json's AU of its epoch (every rank's), in points."""
    df = store.frame(con, __package__, "dlio_logs")
    counts = {key: int(df[key].fillna(0).iloc[0]) for key in ("runs", "logged", "agree", "blocks")}
    return {**counts, "max_au_gap": None if df["max_au_gap"].isna().iloc[0] else float(df["max_au_gap"].iloc[0])}


def get_runs(con) -> pd.DataFrame:
    """Every run of every fio, IOR, mdtest and DLIO configuration, one row each: label, labelled_by, tool, workload,
    the parameters (ALL_PARAMETERS; None where the tool has no such parameter or its log does not state it),
    `parameters` (the known ones as text), `design` (source_labels.designs), `config` (equal for equal label, tool,
    workload, parameters and design), `unit` (the run), the file as readers see it, `values` (the measured
    values the run's are the geometric mean of: IOR's iterations, the jobs of one fio file alike) and the
    measures (MEASURE_COLUMNS; PERCENTILES their mean)."""
    parts = [part.assign(tool=tool) for tool, get in (("fio", get_fio), ("ior", get_ior), ("mdtest", get_mdtest),
                                                      ("dlio", get_dlio)) if len(part := get(con))]
    if not parts:
        return pd.DataFrame(columns=RUN_COLUMNS)
    df = pd.concat(parts, ignore_index=True)
    for column in [*ALL_PARAMETERS, *MEASURE_COLUMNS, *PERCENTILES]:
        if column not in df:
            df[column] = None
    labels, _, _ = source_labels.label_sources(con, df["source_id"])
    df = df.merge(labels, on="source_id", how="left")
    df["design"] = df["source_id"].map(source_labels.designs(con, df["source_id"]))
    paths = dict(con.execute(store.query(__package__, "paths"), [sorted({int(s) for s in df["source_id"]})]).fetchall())
    df["file"] = store.reader_paths(con, df["source_id"].map(paths))
    params = [dict(zip(ALL_PARAMETERS, row)) for row in zip(*(cells(df[p]) for p in ALL_PARAMETERS))]
    df["parameters"] = [parameter_text(tool, p) for tool, p in zip(df["tool"], params)]
    keys = zip(df["label"], df["tool"], df["workload"], params, df["design"])
    df["config"] = [json.dumps([label, tool, workload, [plain(p[k]) for k in ALL_PARAMETERS], design])
                    for label, tool, workload, p, design in keys]
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


def get_setups(con, source_ids: Iterable[int]) -> pd.DataFrame:
    """Per file its setup fields that a comparison names (setups.COMPARED; queries/setups.sql): an IO500 run's phase
    log's from its run's setup, with the codes of its validity audit's flags, comma-separated; another log's from a
    setup.yml beside it."""
    ids = sorted({int(i) for i in source_ids})
    if not ids:
        return pd.DataFrame(columns=SETUP_COLUMNS)
    return store.frame(con, __package__, "setups", [ids, ids])
