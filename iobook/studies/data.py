"""The Data chapter: what the database holds (every file ingest saw, by tool, format and outcome), the files
that could not be read and why, and the public SQL views with their columns."""
from __future__ import annotations

import hashlib
import html
import shutil

import pandas as pd

from .. import charts, evidence, present, setups
from ..evidence import plural
from ..report import MAX_ROWS_SEARCHABLE, Finding, Html, Report, Table
from ..units import MIB
from . import your_runs

HOW_TO_INGEST = ("Ingest a folder of benchmark logs and build the book on it with "
                 "`python -m iobook book --data DIR` (or only ingest with `python -m iobook ingest --db FILE DIR`).")

# One line per public view: what one row is. A test fails when a view of the database has no line here
# or a line names a view the database lacks, so this table cannot drift from iobook/views/*.sql.
VIEW_ROWS = {
    "sources": "file seen by ingest (a table): path as resolved at ingest (a byte of a name that is not UTF-8 "
               "shown as \\xNN, the name's bytes in path_bytes), status ok, error, skipped or gone, why it failed "
               "or was skipped",
    "io500_runs": "IO500 run (the files describing one run grouped); institution, system, file system, family, "
                  "year from the archive's folders where its own files agree, else its own files or labels.yml "
                  "(attributed_by, family_reason; 'attribution unknown' in a folder bundling other sites' runs); "
                  "counted: false for a later copy of a run filed twice; implausible: why a value cannot be; "
                  "run_key names it in chapter parameters",
    "setups": "IO500 run: its setup, a column a field (machine, release, API, data protection, client nodes, what "
              "changed during it, ...), from its own files, then setup.yml, then data/reference (iobook/setups.py)",
    "setup_fields_stated": "setup field: how many IO500 runs state it and the kinds of source that say so",
    "io500_run_limits": "limit an IO500 run's setup states, in GiB/s: client links, server links or drives, each "
                        "count x rate as stated",
    "io500_run_bounds": "bandwidth phase of an IO500 run against the least limit its setup states: GiB/s, limit, "
                        "which limit, its share",
    "io500_run_flags": "finding of the validity audit on an IO500 run: code (RANDOM_READ_CACHED, CHANGED_DURING_RUN, "
                       "UNPROTECTED, ABOVE_LINKS, IMPLAUSIBLE), what its files show, source",
    "io500_implausible_phases": "IO500 phase claiming more than 5e9 items/s per process (one item per cycle of a "
                                "5 GHz core): value, processes, reason",
    "io500_run_files": "file of an IO500 run, with its role (summary, result.txt, copy, ...)",
    "io500_run_system_files": "file describing an IO500 run's system (Storage Scale mmlsconfig, mmlscluster, mmlsfs; "
                              "system-information.txt or .json): "
                              "in the folder of one of the run's files or above it",
    "io500_phases": "phase of an IO500 run, named as the C app names it: value in GiB/s or kIOPS, time, "
                    "scored, valid",
    "io500_scores": "IO500 run: bandwidth, metadata and total score recomputed from its phases beside the "
                    "reported ones, validity and why",
    "io500_system_info": "io500_info_* line of a bash IO500 run's log, how its submitters described the system "
                         "(server and client nodes, file system), as printed; also its io500_workdir and its "
                         "[Exec] command lines (key exec)",
    "duplicate_logs": "fio, IOR or mdtest log stored more than once (the same bytes: a folder copied, a log filed "
                      "twice): each copy but the last ingested, with that last copy; Your runs and History count the "
                      "run once",
    "io500_duplicate_runs": "IO500 run stored more than once (same phase values: filed twice, or the archive copied): "
                            "each copy but the last ingested, with that last copy",
    "io500_phase_log_links": "IO500 phase and the IOR/mdtest log the run wrote for it",
    "io500_phase_logs": "IO500 phase with its own IOR/mdtest log: the log's value, the summary's, the rule "
                        "relating them, whether they agree",
    "io500_phase_log_disagreements": "IO500 phase whose log does not give the summary's value",
    "io500_scores_from_logs": "IO500 run whose phase logs are linked: score recomputed with the logs' values",
    "io500_score_mismatches": "IO500 run whose score is reproduced neither from its summary nor from its "
                              "logs, and why",
    "ior_tests": "IOR test: version, api, tasks, nodes, transfer and block size in bytes, segments, "
                 "file-per-process, command",
    "ior_iterations": "IOR result row: access, iteration, MiB/s, IOPS, latency, open/wr-rd/close/total seconds",
    "ior_summary": "IOR summary row per access: max/min/mean/std MiB/s and ops, from the log's summary or "
                   "computed from its iterations",
    "ior_ranks": "per-rank CSV row (saveRankPerformanceDetailsCSV)",
    "ior_rank_csv_links": "per-rank CSV linked to the IOR log that wrote it",
    "mdtest_runs": "mdtest SUMMARY block: version, tasks, items, iterations, command",
    "mdtest_results": "operation of an mdtest summary: table_kind rate (ops/s) or time (s); max, min, mean, "
                      "stddev and its formula by version (stddev_kind: population or sample); failed when the log "
                      "printed that the operation failed (failure, failure_line): no rate then",
    "mdtest_ranks": "per-rank CSV row (--saveRankPerformanceDetails) per operation",
    "mdworkbench_phases": "md-workbench phase line (IO500 extended mode's mdworkbench-create, -bench, -delete): "
                          "over all processes or one process; time, rates, errors",
    "mdworkbench_latencies": "operation of an md-workbench phase line: min, quartiles, 90th and 99th percentile "
                             "and max latency in seconds",
    "fio_jobs": "fio job: version, rw, bs, iodepth, numjobs, direct, ioengine, runtime, error; whether its output "
                "states its options (terse states none), the operations it did, and its name and operations where "
                "the options are unknown",
    "fio_io": "fio job and direction: bytes, bytes/s, IOPS, latency mean and percentiles in ns, usr/sys CPU %",
    "fio_percentiles": "latency percentile fio printed, in ns",
    "fio_clat_bins": "bin of fio's json+ completion-latency histogram",
    "fio_group_status": "'Run status group' line of fio's normal output",
    "fio_series": "sample of fio's bw/iops/lat logs",
    "gpfs_config": "Storage Scale mmlsconfig setting, with its node-class scope",
    "gpfs_nodes": "Storage Scale mmlscluster node",
    "gpfs_filesystems": "Storage Scale file system",
    "gpfs_fs_attributes": "attribute line of a Storage Scale mmlsfs listing: flag, value, description",
    "gpfs_fs_disks": "disk (NSD) of a Storage Scale file system as mmlsfs -d lists it, with the mount point "
                     "and, for mmvdisk names, recovery group, log group and vdisk set",
    "runs": "collector run (its manifest.json): host, CPU, memory, kernel, load average at start, target",
    "run_sources": "ingested file under a collector run's folder",
    "run_labels": "key/value label of a collector run's output file (the run's labels merged with its step's)",
    "run_steps": "command a collector ran: start, end, seconds, exit code",
    "run_facts": "host or tool fact recorded in a run's manifest",
    "monitor_series": "vmstat / mpstat / /proc sample: time, metric, value",
    "perf_counters": "perf stat counter of a collector step (null where the machine does not support it)",
    "step_cpu_busy": "mpstat sample of a collector step: share of all CPUs busy",
    "pfind_runs": "pfind CSV of an IO500 find phase (find.csv, find-easy.csv, find-hard.csv): run time, rate, "
                  "ranks, errors, found, checked, and failed (ranks reported errors)",
}


def source_count(con) -> int:
    """How many files the database has seen (0: an empty database)."""
    return con.execute("SELECT count(*) FROM sources").fetchone()[0]


def get_files_by_kind(con) -> pd.DataFrame:
    """Files of this build and MiB per tool, detected format and outcome; '–' where ingest detected no format.
    Files gone from the folders ingested (a previous build's) are not among them."""
    return con.execute(
        """
        SELECT coalesce(tool, '–') AS tool, coalesce(format, '–') AS format, status,
               count(*) AS files, sum(bytes) / ? AS "size (MiB)"
        FROM sources WHERE status <> 'gone' GROUP BY ALL ORDER BY tool, format, status
        """,
        [MIB],
    ).df()


def get_status_counts(con) -> dict[str, int]:
    """Files per outcome: ok, error, skipped, gone (0 for an outcome no file has)."""
    counts = dict(con.execute("SELECT status, count(*) FROM sources GROUP BY status").fetchall())
    return {status: counts.get(status, 0) for status in ("ok", "error", "skipped", "gone")}


def get_skip_reasons(con) -> pd.DataFrame:
    """Why files were skipped (not a log format iobook reads, binary, a symlink leading out...), with counts."""
    return con.execute(
        "SELECT coalesce(error, '–') AS reason, count(*) AS files FROM sources WHERE status = 'skipped' "
        "GROUP BY ALL ORDER BY files DESC, reason"
    ).df()


def get_failed(con) -> pd.DataFrame:
    """Files that could not be read: path as shown to readers, format, the reason and the 1-based line
    where reading stopped (null when the parser could not say)."""
    df = con.execute(
        "SELECT path, format, error AS reason, error_line AS line FROM sources WHERE status = 'error' ORDER BY path"
    ).df()
    df["path"] = present.reader_paths(con, df["path"])
    return df


def get_sources(con) -> pd.DataFrame:
    """Every file of this build (not those gone from the folders ingested), path as shown to readers, sorted by it."""
    df = con.execute(
        """SELECT path, coalesce(format, '–') AS format, status, bytes AS "size (bytes)" FROM sources
           WHERE status <> 'gone'"""
    ).df()
    df["path"] = present.reader_paths(con, df["path"])
    return df.sort_values("path", kind="stable", ignore_index=True)


def get_run_counts(con) -> dict[str, int]:
    """IO500 runs (each once: a copy stored again is not counted, io500_runs.counted) and collector runs (per
    study) the database holds."""
    counts = dict(con.execute("SELECT study, count(*) FROM runs GROUP BY study ORDER BY study").fetchall())
    return {"IO500": con.execute("SELECT count(*) FILTER (WHERE counted) FROM io500_runs").fetchone()[0], **counts}


def get_copies(con) -> int:
    """IO500 runs and fio, IOR or mdtest logs stored again (io500_duplicate_runs, duplicate_logs): not counted."""
    return con.execute("SELECT (SELECT count(*) FROM io500_duplicate_runs) + (SELECT count(*) FROM duplicate_logs)"
                       ).fetchone()[0]


TOOL_NAMES = {"fio": "fio", "ior": "IOR", "mdtest": "mdtest"}


def get_result_logs(con) -> dict[str, int]:
    """fio, IOR and mdtest files holding at least one result, counted as the Your runs chapter reads them (its
    get_fio, get_ior, get_mdtest: every such file, whatever run it belongs to), so that both chapters give the
    same counts. Tool (as shown) -> files, for the tools that have any."""
    counts = {tool: get(con).source_id.nunique() for tool, get in
              (("fio", your_runs.get_fio), ("ior", your_runs.get_ior), ("mdtest", your_runs.get_mdtest))}
    return {shown: counts[tool] for tool, shown in TOOL_NAMES.items() if counts[tool]}


def get_setup_fields(con) -> pd.DataFrame:
    """Each setup field (iobook.setups.FIELDS, in its order) with what it is, the IO500 runs stating it and the
    kinds of source that do: a census."""
    stated = con.execute("SELECT field, runs, sources FROM setup_fields_stated").df().set_index("field")
    return pd.DataFrame([{"field": field, "what": what, "IO500 runs stating it": int(stated.runs.get(field, 0)),
                          "from": stated.sources.get(field, "–")} for field, what in setups.FIELDS.items()])


def run_table(runs: dict[str, int], other: dict[str, int]) -> pd.DataFrame:
    """get_run_counts and get_result_logs as one table: a row per study, then per tool of the result logs."""
    what = ["IO500 runs" if study == "IO500" else f"{study} collector runs" for study in runs]
    what += [f"{tool} logs with a result (files, read in Your runs)" for tool in other]
    return pd.DataFrame({"what": what, "count": [*runs.values(), *other.values()]})


# the setup fields the Data chapter's finding names, as it names them
SETUP_FINDING = {"client_nodes": "their client nodes", "release": "their software release",
                 "protection": "their data protection", "changed_during_run": "what their scripts change while they run"}


def setup_finding(setup_fields: pd.DataFrame, io500_runs: int) -> list[Finding]:
    """How many IO500 runs state the setup fields chapters compare by (a census), or nothing without IO500 runs."""
    if not io500_runs:
        return []
    stated = setup_fields.set_index("field")["IO500 runs stating it"]
    records = {field: evidence.count(int(stated[field]), io500_runs, quantity=f"IO500 runs stating {what}",
                                     of=evidence.Replicate.CENSUS) for field, what in SETUP_FINDING.items()}
    parts = [f"{records[field].k:,} {what}" for field, what in SETUP_FINDING.items()]
    return [Finding(text=(f"Each IO500 run's setup is read from its own files first, then a setup.yml beside them, then "
                          f"curated references that cite their source: of the {plural(io500_runs, 'run')}, "
                          + ", ".join(parts[:-1]) + f" and {parts[-1]}."), target="tab-data-setups",
                    evidence=tuple(records.values()))]


def findings(status: dict[str, int], failed: pd.DataFrame, runs: dict[str, int], views: pd.DataFrame,
             other: dict[str, int], failed_phases: pd.DataFrame, copies: int,
             setup_fields: pd.DataFrame) -> list[Finding]:
    """The chapter's findings, each with the table that shows it: the files' outcomes first (the main result),
    then the failures, the runs they describe and the views chapters read them through."""
    files = sum(n for outcome, n in status.items() if outcome != "gone")  # this build's files

    outcome = (f"{status['ok']:,} of the {plural(files, 'file')} ingested were parsed ({status['ok'] / files:.1%}); "
               f"{status['error']:,} failed, {status['skipped']:,} were skipped as not logs iobook reads"
               + (f", {status['gone']:,} are gone from the folders ingested." if status["gone"] else "."))
    failure = (("No file in a format iobook reads failed to parse.", "tab-data-files") if failed.empty else
               (f"{plural(len(failed), 'file')} could not be read; each is listed with the parser's reason and line.",
                "tab-data-failed"))
    phases = [] if failed_phases.empty else [Finding(
        text=(f"{plural(len(failed_phases), 'phase')} ({', '.join(sorted(set(failed_phases['tool'])))}) say they "
              f"failed: parsed, listed with the reason, and never read as a rate."),
        target="tab-data-failed-phases")]
    collector = sum(runs.values()) - runs["IO500"]
    per_study = ", ".join(f"{study} {n:,}" for study, n in runs.items() if study != "IO500")
    described = (f"They describe {plural(runs['IO500'], 'IO500 run')}, {plural(collector, 'collector run')}"
                 + (f" ({per_study})" if per_study else "")
                 + f"; {plural(sum(other.values()), 'fio, IOR or mdtest log')} hold results"
                 + (f" ({', '.join(f'{tool} {n:,}' for tool, n in other.items())}), every one read in Your runs"
                    if other else "")
                 + (f"; {copies:,} more {'was a copy' if copies == 1 else 'were copies'} of a run or log stored "
                    "already, each counted once." if copies else "."))
    parsed = evidence.count(status["ok"], files, quantity="files parsed", of=evidence.Replicate.CENSUS)
    unread = evidence.count(len(failed), files, quantity="files that could not be read", of=evidence.Replicate.CENSUS)
    logs = evidence.count(sum(other.values()), files, quantity="fio, IOR or mdtest logs holding results",
                          of=evidence.Replicate.CENSUS)
    return [Finding(text=outcome, target="tab-data-files", evidence=(parsed,)),
            Finding(text=failure[0], target=failure[1], evidence=(unread,)), *phases,
            Finding(text=described, target="tab-data-runs", evidence=(logs,)), *setup_finding(setup_fields, runs["IO500"]),
            Finding(text=f"Chapters read them through {len(views) - 1} public views and the `sources` table.",
                    target="tab-data-views")]


def get_views(con) -> pd.DataFrame:
    """The public views (and the sources table) with what one row is and their columns in order."""
    df = con.execute(
        """
        SELECT table_name AS view, string_agg(column_name, ', ' ORDER BY ordinal_position) AS columns
        FROM information_schema.columns
        WHERE table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal) OR table_name = 'sources'
        GROUP BY table_name
        """
    ).df()
    df.insert(1, "one row per", df["view"].map(VIEW_ROWS))
    order = {name: i for i, name in enumerate(VIEW_ROWS)}
    return df.sort_values("view", key=lambda v: v.map(order).fillna(len(order)), ignore_index=True)


IN_BUILD = "status <> 'gone'"  # a sources row of a file in this build (gone: no longer in the folders ingested)


def _source_columns(con, view: str) -> list[str]:
    """A view's columns that hold a source_id (source_id, csv_source_id, manifest_source_id, ...)."""
    return [c for (c,) in con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                                      "AND column_name LIKE '%source_id' ORDER BY ordinal_position", [view]).fetchall()]


def export_parquet(con) -> pd.DataFrame:
    """Write the sources table and every public view as one Parquet file each into the book's downloads
    (COPY ... TO writes files, not the database: a read-only connection does it), holding only this build's
    files: a file gone from the folders ingested is in no download, nor are rows that name it. One row per
    file: view, rows, and its link relative to a chapter page."""
    # A folder per database content: Sphinx does not overwrite a changed static file of the same name. Paths
    # as readers see them, so the link (checked by nbval) is the same on every checkout of the same files.
    sources = con.execute(f"SELECT path, sha256, status FROM sources WHERE {IN_BUILD} ORDER BY path").df()
    sources["path"] = present.reader_paths(con, sources["path"])
    digest = hashlib.sha256("".join(f"{p}\0{h}\0{st}\n" for p, h, st in sources.itertuples(index=False)).encode()
                            ).hexdigest()[:12]
    folder = charts.DOWNLOADS / f"database-{digest}"
    for old in charts.DOWNLOADS.glob("database-*"):
        if old != folder:
            shutil.rmtree(old)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for view in ["sources"] + sorted(v for (v,) in con.execute(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()):
        # names come from the database's own catalogue and this package's folder, never from a log
        kept = [IN_BUILD] if view == "sources" else [
            f'("{c}" IS NULL OR "{c}" IN (SELECT source_id FROM sources WHERE {IN_BUILD}))'
            for c in _source_columns(con, view)]
        query = f'SELECT * FROM "{view}"' + (" WHERE " + " AND ".join(kept) if kept else "")
        target = folder / f"{view}.parquet"
        con.execute(f"COPY ({query}) TO '{target.as_posix()}' (FORMAT parquet)")
        (count,) = con.execute(f"SELECT count(*) FROM ({query})").fetchone()
        rows.append({"view": view, "rows": count, "href": f"{charts.DOWNLOADS_HREF}/{folder.name}/{view}.parquet"})
    return pd.DataFrame(rows)


def parquet_links(files: pd.DataFrame) -> str:
    """The exported files as an HTML list of download links."""
    items = "".join(f'<li><a href="{html.escape(f.href)}" download><code>{html.escape(f.view)}.parquet</code></a> '
                    f"({f.rows:,} rows)</li>" for f in files.itertuples())
    return (f'<details><summary>{len(files)} Parquet files</summary><ul class="iobook-downloads">{items}</ul>'
            "</details>")


def report(con) -> Report:
    """The chapter: what was ingested and how it went (a census of the files: counts), the runs the files
    describe, every file that could not be read with its reason and line, the public views, and the Parquet
    export of each."""
    if source_count(con) == 0:
        return Report(values={"has_data": False}, note=present.no_data("ingested files", HOW_TO_INGEST))
    by_kind, status, failed = get_files_by_kind(con), get_status_counts(con), get_failed(con)
    runs, logs, views = get_run_counts(con), get_result_logs(con), get_views(con)
    skipped, sources, exported = get_skip_reasons(con), get_sources(con), export_parquet(con)
    failed_phases = your_runs.get_failed_phases(con)  # listed as Your runs lists them: one query, one reason
    setup_fields = get_setup_fields(con)
    return Report(
        values={"has_data": True, "has_io500": runs["IO500"] > 0, "files": int(by_kind.files.sum()), "files_ok": status["ok"],
                "files_gone": status["gone"], "has_failed": not failed.empty, "has_skipped": not skipped.empty,
                "has_gone": status["gone"] > 0, "files_failed": len(failed),
                "has_failed_phases": not failed_phases.empty, "phases_failed": len(failed_phases), "files_skipped": int(skipped.files.sum()),
                "files_listed": len(sources), "max_searchable": MAX_ROWS_SEARCHABLE, "views": len(views) - 1,
                "parquet_views": len(exported) - 1, "parquet_links": Html(parquet_links(exported))},
        tables={"tab-data-files": Table(frame=by_kind, formats={"files": ",d", "size (MiB)": ",.3f"}),
                "tab-data-runs": Table(frame=run_table(runs, logs), formats={"count": ",d"}),
                "tab-data-skipped": Table(frame=skipped, formats={"files": ",d"}),
                "tab-data-failed": Table(frame=failed, formats={"line": ",.0f"}),
                "tab-data-failed-phases": Table(frame=failed_phases, formats={"line": ",d"}),
                "tab-data-sources": Table(frame=sources, formats={"size (bytes)": ",d"}, searchable=True),
                "tab-data-setups": Table(frame=setup_fields, formats={"IO500 runs stating it": ",d"}),
                "tab-data-views": Table(frame=views)},
        findings=findings(status, failed, runs, views, logs, failed_phases, get_copies(con), setup_fields))
