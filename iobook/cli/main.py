"""Command line: `iobook book|ingest|check|chapters|registry|new-chapter ...` (or `python -m iobook ...`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..book.chapters import REGISTRY
from ..database import store

DEFAULT_DATA = Path("data/raw")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="iobook", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_book = sub.add_parser("book", help="the whole book on your data: ingest, execute changed chapters, build HTML")
    p_book.add_argument("--data", nargs="+", type=Path, default=[DEFAULT_DATA],
                        help="folders or files of logs; the book shows exactly these (default: data/raw, the published "
                             "book in book/ and _build/html; other data builds in _build/<its name>-<digest>/)")
    p_book.add_argument("--db", type=Path, help="DuckDB file, kept between builds (default: data/iobook.duckdb for "
                        "data/raw, else iobook.duckdb in the build's folder _build/<data's name>-<digest>/)")
    p_book.add_argument("--config", type=Path, default=REGISTRY, help="chapter registry (notebooks/chapters.yml)")
    p_book.add_argument("--force", action="store_true", help="execute every chapter even if its inputs are unchanged")
    p_book.add_argument("--quiet", action="store_true", help="no progress bars")
    p_book.add_argument("--replace", action="store_true",
                        help="let --db be a database that holds the book of other data (it is replaced)")
    p_book.add_argument("--anonymize", action="store_true",
                        help="show host, node and user names, IP addresses and absolute path prefixes as stable "
                             "pseudonyms in every page and download (the database keeps the originals)")

    p_ingest = sub.add_parser("ingest", help="parse benchmark logs (files or folders, recursive) into DuckDB")
    p_ingest.add_argument("paths", nargs="*", type=Path)
    p_ingest.add_argument("--db", type=Path, default=store.DEFAULT_DB, help="DuckDB file (default: data/iobook.duckdb)")
    p_ingest.add_argument("--prune", action="store_true",
                          help="hold exactly the files under PATHS: files no longer there (deleted, or under a "
                               "renamed folder) are marked gone and their records dropped")
    p_ingest.add_argument("--quiet", action="store_true", help="no progress bar")
    p_ingest.add_argument("--engine", choices=["local", "dask"], default="local",
                          help="dask: parse on a Dask cluster into Parquet parts (--parquet), not into --db")
    p_ingest.add_argument("--parquet", type=Path, metavar="DIR", help="with --engine dask: new or empty folder for the parts")
    p_ingest.add_argument("--scheduler", metavar="ADDRESS", help="with --engine dask: a running scheduler "
                          "(e.g. tcp://host:8786); default: a LocalCluster on this machine")
    p_ingest.add_argument("--workers", type=int, default=2, help="with --engine dask: LocalCluster processes (default 2)")
    p_ingest.add_argument("--files-per-task", type=int, default=200, help="with --engine dask: files per Dask task")
    p_ingest.add_argument("--from-parquet", type=Path, metavar="DIR",
                          help="load the parts of a Dask ingest into a new --db and build its derived tables")

    p_check = sub.add_parser(
        "check", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="CI gate: exit 1 when the newest runs of a history (fio job, IOR test, mdtest phase) show a decided "
             "change in the direction named (default: slower); exit 2 when it could not search everything",
        description="Search every history in the data (runs of one fio job, IOR test or mdtest phase under one "
                    "label, in the order the tools dated them) for change points, as the History chapter does.",
        epilog="exit status:\n"
               "  0  every history was searched and none shows a decided change in the direction named\n"
               "  1  a decided change in the direction named in the newest runs of a history (even where some\n"
               "     input could not be read: the report says what was not checked)\n"
               "  2  not checked: a path given does not exist, a file could not be read, the data holds no dated\n"
               "     runs, a history has fewer runs than a search needs, or --db holds other data\n"
               "The report (stdout, --report-md, --report-json) lists the histories searched, the change points,\n"
               "and every file not read whole with its reason and line.\n"
               "window: by default, each history's change points from its last decided one on (all, when none is\n"
               "decided), so a change stays failing until runs after it make a new level; --since or --last\n"
               "narrows that to the change points that start within it.")
    p_check.add_argument("--data", nargs="+", type=Path, default=[DEFAULT_DATA], help="folders or files of logs")
    p_check.add_argument("--db", type=Path, help="DuckDB file (default: the one `book --data` uses)")
    p_check.add_argument("--replace", action="store_true", help="let --db be a database built from other data")
    window = p_check.add_mutually_exclusive_group()
    window.add_argument("--since", metavar="RUN|DATE",
                        help="only change points starting at or after DATE (2026-11-01), or at or after run number RUN")
    window.add_argument("--last", type=int, metavar="N", help="only change points among a history's last N runs")
    p_check.add_argument("--direction", choices=["slower", "faster", "either"], default="slower",
                         help="which decided changes fail the gate: slower (less bandwidth or rate, longer clat p99)")
    p_check.add_argument("--report-md", type=Path, metavar="FILE", help="write the report as Markdown")
    p_check.add_argument("--report-json", type=Path, metavar="FILE", help="write the report as JSON")
    p_check.add_argument("--quiet", action="store_true", help="no progress bar")

    p_chapters = sub.add_parser("chapters", help="execute the chapters whose inputs changed into book/")
    p_chapters.add_argument("--db", type=Path, default=store.DEFAULT_DB)
    p_chapters.add_argument("--config", type=Path, default=REGISTRY)
    p_chapters.add_argument("--only", nargs="*", help="names of the chapters to run (default: all)")
    p_chapters.add_argument("--force", action="store_true", help="execute even if the inputs are unchanged")
    p_chapters.add_argument("--anonymize", action="store_true", help="pseudonyms in the outputs, as `book --anonymize`")

    p_registry = sub.add_parser("registry", help="write _toc.yml and the chapter tables from notebooks/chapters.yml")
    p_registry.add_argument("--config", type=Path, default=REGISTRY)

    p_new = sub.add_parser("new-chapter", help="write a new chapter that runs (study, notebook, test, registry entry)")
    p_new.add_argument("name", help="lower-case letters, digits and _ (the files are named after it)")
    p_new.add_argument("--title", help="the chapter's title (default: from the name)")

    args = parser.parse_args(argv)
    if args.command == "book":
        from ..book.build import build_book

        return build_book(args.data, args.db, args.config, force=args.force, progress=not args.quiet,
                          anonymize=args.anonymize, replace=args.replace)
    if args.command == "ingest":
        from ..database.ingest import format_ingest

        if args.from_parquet:
            if args.paths or args.engine != "local":
                parser.error("--from-parquet loads parts already written: no PATHS, no --engine")
            from ..database.dask_ingest import load_parquet

            try:
                counts = load_parquet(args.from_parquet, args.db)
            except (FileExistsError, FileNotFoundError) as e:
                parser.error(str(e))
        elif not args.paths:
            parser.error("ingest: PATHS required (or --from-parquet DIR)")
        elif args.engine == "dask":
            if not args.parquet or args.prune:
                parser.error("--engine dask writes Parquet parts: give --parquet DIR (and no --prune)")
            from ..database.dask_ingest import dask_ingest

            try:
                counts = dask_ingest(args.paths, args.parquet, scheduler=args.scheduler, workers=args.workers,
                                     files_per_task=args.files_per_task, progress=not args.quiet)
            except (FileExistsError, FileNotFoundError) as e:
                parser.error(str(e))
        else:
            from ..database.ingest import ingest

            counts = ingest(args.paths, args.db, progress=not args.quiet, prune=args.prune)
        print(format_ingest(counts))
        return 1 if counts["failed"] or counts["failed before"] else 0
    if args.command == "check":
        from .check import check, window_start

        try:
            window_start(args.since)
        except ValueError:
            parser.error(f"--since {args.since}: neither a run number nor a date (2026-11-01)")

        return check(args.data, args.db, since=args.since, last=args.last, direction=args.direction,
                     report_md=args.report_md, report_json=args.report_json, progress=not args.quiet,
                     replace=args.replace)
    if args.command == "chapters":
        from ..book.chapters import format_summary, run_chapters

        summary = run_chapters(args.db, args.config, only=args.only, force=args.force, anonymize=args.anonymize)
        print(format_summary(summary))
        return 1 if any(r["status"].startswith("FAILED") for r in summary) else 0
    if args.command == "new-chapter":
        from ..book.new_chapter import new_chapter

        try:
            written = new_chapter(args.name, args.title)
        except (ValueError, FileExistsError) as e:
            parser.error(str(e))
        for path in written:
            print(f"wrote {path}")
        print(f"next: `make lab` to edit notebooks/{args.name}.ipynb and iobook/studies/{args.name}/, then `make book`")
        return 0
    if args.command == "registry":
        from ..book.chapters import load_registry, write_generated

        for path in write_generated(load_registry(args.config)):
            print(f"wrote {path}")
        return 0
    return 2
