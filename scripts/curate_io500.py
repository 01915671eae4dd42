"""Copy the IO500 submissions the book's chapters need from a clone of the public archive into data/raw/io500.

Full submissions (every file) for the systems the chapters study in depth; of every other submission its
summary files (result_summary.txt, result.txt, io-500-summary*) and the files that state its setup
(system-information.txt/.json, config*.ini, *.sh: iobook.database.setups; 649 files, 2.7 MB). The folder layout
<institution>/<system>/<file system>/<year>/submission-<id>/ is kept, since ingest reads naming from it.

    python scripts/curate_io500.py ../shared/io500-submissions data/raw/io500
"""
import argparse
import shutil
from pathlib import Path

FULL = [  # folders copied whole, as path components below the archive root
    ("IBM",), ("IBM Cloud HPC",), ("IBM Ehningen System",), ("IBM Tucson",), ("IBM Tuscon",), ("IBMDL",),
    ("Intel", "Wolf"), ("National Supercomputing Center in Changsha", "Tianhe-2E"),
    ("EPCC", "NextGENIO"), ("Argonne National Laboratory", "Aurora"),
    # bash-era runs whose summaries print phases to 3 decimals: their phase logs reproduce the printed score
    ("DKRZ", "Mistral", "lustre02", "2019", "submission-109"), ("DKRZ", "Mistral", "lustre02", "2019", "submission-199"),
]
SUMMARY_NAMES = ("result_summary.txt", "result.txt")


def is_summary(path: Path) -> bool:
    return path.name in SUMMARY_NAMES or path.name.startswith("io-500-summary")


def states_setup(path: Path) -> bool:
    return path.name.startswith("system-information") or path.suffix in (".ini", ".sh")


def wanted(rel: Path) -> bool:
    return any(rel.parts[: len(prefix)] == prefix for prefix in FULL) or is_summary(rel) or states_setup(rel)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path, help="clone of the IO500 submission archive")
    ap.add_argument("dest", type=Path)
    args = ap.parse_args()
    copied = 0
    for src in sorted(args.archive.rglob("*")):
        rel = src.relative_to(args.archive)
        if src.is_file() and wanted(rel):
            target = args.dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
            copied += 1
    print(f"copied {copied} files into {args.dest}")


if __name__ == "__main__":
    main()
