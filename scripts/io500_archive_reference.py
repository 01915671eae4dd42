"""Write data/reference/io500_archive_runs.csv: every run of the IO500 submission archive by the fingerprint of its
phase values (io500_run_info.fingerprint), with the institution, system, file system, year and submission its
archive folders name. A run copied out of the archive's folder layout (a results folder on its own) whose files
declare no institution is attributed by this listing (iobook.database.io500_runs.attribute): the same phase values are
the same run.

    python scripts/io500_archive_reference.py ../shared/io500-submissions
"""
import argparse
import csv
import tempfile
from pathlib import Path

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.database.io500_runs import ARCHIVE_RUNS_CSV

COLUMNS = ["fingerprint", "institution", "system", "filesystem", "year", "submission"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path, help="clone of the IO500 submission archive")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "archive.duckdb"
        ingest([args.archive], db, progress=False)
        con = store.open_read(db)
        rows = con.execute(  # of a run submitted twice, the counted copy (the latest submission)
            f"""SELECT {', '.join(COLUMNS)} FROM io500_runs
                WHERE counted AND submission IS NOT NULL AND attributed_by = 'archive folders'
                ORDER BY fingerprint""").fetchall()
        con.close()
    with ARCHIVE_RUNS_CSV.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS)
        out.writerows(rows)
    print(f"{len(rows)} runs into {ARCHIVE_RUNS_CSV}")


if __name__ == "__main__":
    main()
