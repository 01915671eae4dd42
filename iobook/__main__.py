"""Command line: `python -m iobook ingest|chapters ...`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m iobook", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_ingest = sub.add_parser("ingest", help="parse benchmark logs (files or folders, recursive) into DuckDB")
    p_ingest.add_argument("paths", nargs="+", type=Path)
    p_ingest.add_argument("--db", type=Path, default=store.DEFAULT_DB, help="DuckDB file (default: %(default)s)")
    p_ingest.add_argument("--quiet", action="store_true", help="no progress bar")

    p_chapters = sub.add_parser("chapters", help="execute the chapter templates with papermill into book/")
    p_chapters.add_argument("--config", type=Path, default=Path("notebooks/chapters.yml"))
    p_chapters.add_argument("--only", nargs="*", help="names of the chapters to run (default: all)")

    args = parser.parse_args(argv)
    if args.command == "ingest":
        from .ingest import ingest

        counts = ingest(args.paths, args.db, progress=not args.quiet)
        print("ingest: " + ", ".join(f"{k} {counts[k]}" for k in
                                      ("seen", "new", "changed", "unchanged", "parsed", "skipped", "failed")))
        return 1 if counts["failed"] else 0
    if args.command == "chapters":
        from .chapters import run_chapters

        return run_chapters(args.config, args.only)
    return 2


if __name__ == "__main__":
    sys.exit(main())
