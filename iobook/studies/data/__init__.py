"""The Data chapter: what the database holds (every file ingest saw, by tool, format and outcome), the files
that could not be read and why, the public SQL views with their columns, and the whole database as Parquet.
Layers: queries/*.sql, analysis (the counts), views (the views and the Parquet export), findings; `report` wires
them for the notebook. A census of files: counts, nothing to compare or decide."""
from __future__ import annotations

from ...book import present
from ...book.report import MAX_ROWS_SEARCHABLE, Html, Report, Table
from .. import your_runs
from . import analysis, findings, views
# the names other tests and modules read from iobook.studies.data
from .analysis import (get_copies, get_failed, get_files_by_kind, get_result_logs, get_run_counts, get_setup_fields,
                       get_sources, get_status_counts)
from .views import VIEW_ROWS, export_parquet, get_views

__all__ = ["VIEW_ROWS", "export_parquet", "get_copies", "get_failed", "get_files_by_kind", "get_result_logs",
           "get_run_counts", "get_setup_fields", "get_sources", "get_status_counts", "get_views", "report"]

HOW_TO_INGEST = ("Ingest a folder of benchmark logs and build the book on it with "
                 "`python -m iobook book --data DIR` (or only ingest with `python -m iobook ingest --db FILE DIR`).")


def report(con) -> Report:
    """The chapter: what was ingested and how it went (a census of the files: counts), the runs the files
    describe, every file that could not be read with its reason and line, the public views, the Parquet
    export of each, and how to open the database the chapter read."""
    if analysis.source_count(con) == 0:
        return Report(values={"has_data": False}, note=present.no_data("ingested files", HOW_TO_INGEST))
    by_kind, status, failed = get_files_by_kind(con), get_status_counts(con), get_failed(con)
    runs, logs, shown_views = get_run_counts(con), get_result_logs(con), get_views(con)
    skipped, sources, exported = analysis.get_skip_reasons(con), get_sources(con), export_parquet(con)
    failed_phases = your_runs.get_failed_phases(con)  # listed as Your runs lists them: one query, one reason
    setup_fields, labels = get_setup_fields(con), analysis.get_labels(con)
    database = analysis.database_path(con)
    return Report(
        values={"has_data": True, "has_io500": runs[analysis.IO500] > 0, "files": int(by_kind.files.sum()),
                "files_ok": status["ok"], "files_gone": status["gone"], "has_failed": not failed.empty,
                "has_skipped": not skipped.empty, "has_gone": status["gone"] > 0, "files_failed": len(failed),
                "has_failed_phases": not failed_phases.empty, "phases_failed": len(failed_phases),
                "files_skipped": int(skipped.files.sum()), "files_listed": len(sources),
                "max_searchable": MAX_ROWS_SEARCHABLE, "views": len(shown_views) - 1,
                "parquet_views": len(exported) - 1, "parquet_links": Html(views.parquet_links(exported)),
                "database": database or "", "open_database": findings.open_database(database),
                "has_labels": not labels.empty, "labelled_logs": int(labels.logs.sum())},
        tables={"tab-data-files": Table(frame=by_kind, formats={"files": ",d", "size (MiB)": ",.3f"}),
                "tab-data-runs": Table(frame=analysis.run_table(runs, logs), formats={"count": ",d"}),
                "tab-data-skipped": Table(frame=skipped, formats={"files": ",d"}),
                "tab-data-failed": Table(frame=failed, formats={"line": ",.0f"}),
                "tab-data-failed-phases": Table(frame=failed_phases, formats={"line": ",d"}),
                "tab-data-sources": Table(frame=sources, formats={"size (bytes)": ",d"}, searchable=True),
                "tab-data-setups": Table(frame=setup_fields, formats={"IO500 runs stating it": ",d"}),
                "tab-data-labels": Table(frame=labels, formats={"logs": ",d"}),
                "tab-data-views": Table(frame=shown_views)},
        findings=findings.chapter_findings(status, failed, runs, shown_views, logs, failed_phases,
                                           get_copies(con), setup_fields))
