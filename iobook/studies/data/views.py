"""The public views: what one row of each is, their columns, and the whole database as Parquet files (the sources
table and every view, each holding only this build's files)."""
from __future__ import annotations

import hashlib
import html
import shutil

import pandas as pd
import pyarrow.parquet as pq

from ...book import charts
from ...database import store

SOURCES = "sources"  # the one table among the views
DIGEST_HEX = 12  # the export folder's name: enough of the files' digest to tell two databases apart

# One line per public view: what one row is. A test fails when a view of the database has no line here
# or a line names a view the database lacks, so this table cannot drift from iobook/database/views/*.sql.
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
              "changed during it, ...), from its own files, then setup.yml, then data/reference (iobook/database/setups.py)",
    "setup_fields_stated": "setup field: how many IO500 runs state it and the kinds of source that say so, with their runs",
    "io500_run_limits": "limit an IO500 run's setup states, in GiB/s: client links, server links or drives, each "
                        "count x rate as stated",
    "io500_run_bounds": "bandwidth phase of an IO500 run against the least limit its setup states: GiB/s, limit, "
                        "which limit, its share",
    "log_setups": "fio, IOR or mdtest log: its setup, a column a field, from a setup.yml beside it (links, drives "
                  "and their rates, release, protection) and its client nodes from the log",
    "setup_limits": "limit a setup states, of an IO500 run (unit 'IO500 run', id its run_id) or a log (unit 'log', "
                    "id its source_id), in GiB/s: client links, server links or drives, each count x rate as stated",
    "setup_bounds": "IO500 run or log (unit, id) whose setup states a limit: the least one (GiB/s), which limit, "
                    "as stated",
    "log_bounds": "fio, IOR or mdtest log whose setup states a limit: the least one (GiB/s), which limit, as stated",
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
    "ior_iterations": "IOR result row: access, iteration, MiB/s, IOPS, latency, open/wr-rd/close/total seconds; "
                      "latency_is_phase_time where the latency column cannot be per operation (IOR 3.3.0 printed the "
                      "phase's time there)",
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
    "mlperf_systems": "MLPerf Storage system description (systems/<id>.json): clients, their CPU, memory, links, "
                      "accelerators stated, storage hosts and drives, as written",
    "mlperf_runs": "MLPerf Storage run (one DLIO summary.json in a result tree <organisation>/results/<system>/): "
                   "organisation, system, workload and accelerator (and whether from the config or the folder), run, "
                   "accelerators, hosts, AU, samples/s and MB/s as DLIO writes them (DLIO's MB = 2^20 bytes), data "
                   "set, host memory (and the memory the 5x check uses, with its source), the clients' links",
    "mlperf_run_flags": "finding of the MLPerf Storage validity audit on a run: code (AU below or within one point "
                        "of its minimum, data set below 5x memory, no memory reported, potential caching, not five "
                        "runs, settings that differ, clients that differ, rate above links, a log that disagrees "
                        "with its summary.json), what its files show",
    "dlio_summary_runs": "DLIO run (one summary.json): an MLPerf Storage submission's (in a result tree "
                         "<organisation>/results/<system>/: mlperf_runs) or your own (dlio_runs), the columns of "
                         "mlperf_runs",
    "dlio_runs": "DLIO run of your own (one summary.json outside an MLPerf Storage result tree: "
                 "scripts/collect_dlio.py or DLIO run by hand): workload, simulated accelerators, hosts, the data set "
                 "and DLIO's I/O parameters, AU, samples/s, MB/s and MB/s per accelerator (DLIO's MB = 2^20 bytes); "
                 "what Your runs, History and iobook check read",
    "dlio_logs": "DLIO's own log (dlio.log): training or data generation, finished, data generated or unfinished "
                 "(a training log with no summary.json beside it: a failed run, with how far it got), processes, data "
                 "per host, hosts' memory, the averaged metrics it prints ([METRIC] lines, four decimals) and whether "
                 "they agree with the summary.json beside it",
    "dlio_log_blocks": "training block a DLIO log states: steps and seconds, rank 0's AU and samples/s (times the "
                       "ranks), which summary.json does not hold, and its epoch's steps expected and completed",
}


def get_views(con) -> pd.DataFrame:
    """The public views (and the sources table) with what one row is and their columns in order."""
    df = store.frame(con, __package__, "views")
    df.insert(1, "one row per", df["view"].map(VIEW_ROWS))
    order = {name: i for i, name in enumerate(VIEW_ROWS)}
    return df.sort_values("view", key=lambda v: v.map(order).fillna(len(order)), ignore_index=True, kind="stable")


def _names_a_file(con, view: str) -> bool:
    """Whether a column of `view` holds a source_id (source_id, csv_source_id, manifest_source_id, ...)."""
    return bool(con.execute(store.query(__package__, "source_columns"), [view]).fetchall())


def export_parquet(con) -> pd.DataFrame:
    """Write the sources table and every public view as one Parquet file each into the book's downloads
    (a relation written to a file, not the database: a read-only connection does it), holding only this build's
    files: a file gone from the folders ingested is in no download, nor are rows that name it. One row per
    file: view, rows, and its link relative to a chapter page."""
    # A folder per database content: Sphinx does not overwrite a changed static file of the same name. Paths
    # as readers see them, so the link (checked by nbval) is the same on every checkout of the same files.
    files = store.frame(con, __package__, "build_files")
    files["path"] = store.reader_paths(con, files["path"])
    digest = hashlib.sha256("".join(f"{p}\0{h}\0{st}\n" for p, h, st in files.itertuples(index=False)).encode()
                            ).hexdigest()[:DIGEST_HEX]
    folder = charts.DOWNLOADS / f"database-{digest}"
    for old in charts.DOWNLOADS.glob("database-*"):
        if old != folder:
            shutil.rmtree(old)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    views = [SOURCES, *store.frame(con, __package__, "view_names").view]
    for view in views:
        # a view none of whose columns names a file holds no row of a gone file
        query = "export_view_in_build" if _names_a_file(con, view) else "export_view"
        target = folder / f"{view}.parquet"
        con.sql(store.query(__package__, query), params=[view]).write_parquet(target.as_posix())
        rows.append({"view": view, "rows": pq.read_metadata(target).num_rows,
                     "href": f"{charts.DOWNLOADS_HREF}/{folder.name}/{view}.parquet"})
    return pd.DataFrame(rows)


def parquet_links(files: pd.DataFrame) -> str:
    """The exported files as an HTML list of download links."""
    items = "".join(f'<li><a href="{html.escape(f.href)}" download><code>{html.escape(f.view)}.parquet</code></a> '
                    f"({f.rows:,} rows)</li>" for f in files.itertuples())
    return (f'<details><summary>{len(files)} Parquet files</summary><ul class="iobook-downloads">{items}</ul>'
            "</details>")
