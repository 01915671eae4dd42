"""The Data chapter's counts: every file ingest saw by tool, format and outcome, the files it could not read, the
runs they describe, the copies counted once, the setup fields stated, and the database's own file."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...database import setups, source_labels, store
from ...inference.units import MIB
from .. import your_runs

STATUSES = ("ok", "error", "skipped", "gone")
TOOL_NAMES = {"fio": "fio", "ior": "IOR", "mdtest": "mdtest"}
IO500 = "IO500"  # the IO500 runs' row among the collector studies


def source_count(con) -> int:
    """How many files the database has seen (0: an empty database)."""
    return con.execute(store.query(__package__, "source_count")).fetchone()[0]


def get_files_by_kind(con) -> pd.DataFrame:
    """Files of this build and MiB per tool, detected format and outcome (queries/files_by_kind.sql)."""
    return store.frame(con, __package__, "files_by_kind", [MIB])


def get_status_counts(con) -> dict[str, int]:
    """Files per outcome: ok, error, skipped, gone (0 for an outcome no file has)."""
    counts = dict(con.execute(store.query(__package__, "status_counts")).fetchall())
    return {status: counts.get(status, 0) for status in STATUSES}


def get_skip_reasons(con) -> pd.DataFrame:
    """Why files were skipped, with counts (queries/skip_reasons.sql)."""
    return store.frame(con, __package__, "skip_reasons")


def get_failed(con) -> pd.DataFrame:
    """Files that could not be read: path as shown to readers, format, the reason and the 1-based line
    where reading stopped (null when the parser could not say)."""
    df = store.frame(con, __package__, "failed")
    df["path"] = store.reader_paths(con, df["path"])
    return df


def get_sources(con) -> pd.DataFrame:
    """Every file of this build (not those gone from the folders ingested), path as shown to readers, sorted by it."""
    df = store.frame(con, __package__, "files")
    df["path"] = store.reader_paths(con, df["path"])
    return df.sort_values("path", kind="stable", ignore_index=True)


def get_run_counts(con) -> dict[str, int]:
    """IO500 runs (each once: a copy stored again is not counted, io500_runs.counted) and collector runs (per
    study) the database holds."""
    counts = dict(con.execute(store.query(__package__, "collector_runs")).fetchall())
    return {IO500: con.execute(store.query(__package__, "io500_runs")).fetchone()[0], **counts}


def get_copies(con) -> int:
    """IO500 runs and fio, IOR or mdtest logs stored again (io500_duplicate_runs, duplicate_logs): not counted."""
    return con.execute(store.query(__package__, "copies")).fetchone()[0]


def get_result_logs(con) -> dict[str, int]:
    """fio, IOR and mdtest files holding at least one result, counted as the Your runs chapter reads them (its
    get_fio, get_ior, get_mdtest: every such file, whatever run it belongs to), so that both chapters give the
    same counts. Tool (as shown) -> files, for the tools that have any."""
    counts = {tool: get(con).source_id.nunique() for tool, get in
              (("fio", your_runs.get_fio), ("ior", your_runs.get_ior), ("mdtest", your_runs.get_mdtest))}
    return {shown: counts[tool] for tool, shown in TOOL_NAMES.items() if counts[tool]}


def get_setup_fields(con) -> pd.DataFrame:
    """Each setup field (iobook.database.setups.FIELDS, in its order) with what it is, the IO500 runs stating it and the
    kinds of source that do, each with its runs: a census."""
    stated = store.frame(con, __package__, "setup_fields_stated").set_index("field")
    return pd.DataFrame([{"field": field, "what": what, "IO500 runs stating it": int(stated.runs.get(field, 0)),
                          "from (runs)": stated.sources.get(field, "–")} for field, what in setups.FIELDS.items()])


def get_labels(con) -> pd.DataFrame:
    """Each label of the fio, IOR and mdtest logs (source_labels: a labels.yml pattern, the IO500 run of the file,
    else the top folder under the DATA folder holding it), what gave it and how many logs carry it: a census."""
    ids = store.frame(con, __package__, "labelled_sources").source_id
    labelled = source_labels.label_sources(con, ids)[0]
    return (labelled.groupby(["label", "labelled_by"], sort=True).size().rename("logs").reset_index()
            .rename(columns={"labelled_by": "labelled by"}))


def run_table(runs: dict[str, int], other: dict[str, int]) -> pd.DataFrame:
    """get_run_counts and get_result_logs as one table: a row per study, then per tool of the result logs."""
    what = ["IO500 runs" if study == IO500 else f"{study} collector runs" for study in runs]
    what += [f"{tool} logs with a result (files, read in Your runs)" for tool in other]
    return pd.DataFrame({"what": what, "count": [*runs.values(), *other.values()]})


def database_path(con) -> str | None:
    """The file of the database the chapter reads, as readers see it (relative to the repository when inside it:
    data/iobook.duckdb for the published book, _build/<name>-<digest>/iobook.duckdb for a build on other data); None for a
    database in memory."""
    (path,) = con.execute(store.query(__package__, "database_path")).fetchone()
    return store.shown_path(str(Path(path).resolve())) if path else None
