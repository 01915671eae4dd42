"""Ingest speed as a ratio to `cat` of the same files, measured in the same run, plus peak memory.

    .venv/bin/python benchmarks/bench_ingest.py ../shared/io500-submissions

Both read from a warm page cache (one untimed `cat` first). Goal: ingest <= 10x cat, peak RSS <= 1 GB.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], **kw) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=False, **kw)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path)
    args = ap.parse_args()
    files = sorted(str(p) for p in args.archive.rglob("*") if p.is_file())
    nbytes = sum(os.path.getsize(f) for f in files)
    file_list = "\0".join(files).encode()

    def cat() -> float:
        return timed(["xargs", "-0", "cat"], input=file_list, stdout=subprocess.DEVNULL)

    cat()  # warm the page cache
    cat_s = min(cat() for _ in range(3))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        ingest_s = timed([sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), str(args.archive)],
                         stdout=subprocess.DEVNULL)
        rerun_s = timed([sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), str(args.archive)],
                        stdout=subprocess.DEVNULL)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"files {len(files)}, {nbytes / 2**20:.1f} MiB")
    print(f"cat            {cat_s:8.3f} s")
    print(f"ingest (new)   {ingest_s:8.3f} s   ratio {ingest_s / cat_s:6.1f}x cat")
    print(f"ingest (again) {rerun_s:8.3f} s   ratio {rerun_s / cat_s:6.1f}x cat")
    print(f"peak RSS of ingest {peak_mb:.0f} MiB")


if __name__ == "__main__":
    main()
