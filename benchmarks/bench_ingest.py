"""Ingest speed as a ratio to `cat` of the same files, peak memory, scaling with archive size, and Dask throughput.

    .venv/bin/python benchmarks/bench_ingest.py ../shared/io500-submissions [--scales 1,4,16] [--dask-workers 1,2]
    make bench BENCH_ARGS="--scales 1,4,16"

Writes _build/bench.json and prints a table:
- cat_s, ingest_s (local ingest into a new database), reingest_s (the same again: nothing changed), each also
  as a ratio to cat; both read from a warm page cache (one untimed `cat` first). Goal: ingest <= 10x cat.
- peak_rss_mib: the largest resident set of any one process of the ingest child (the child or a parse
  worker; os.wait4's ru_maxrss). Goal: <= 1 GiB.
- scales: the archive hard-linked (copied when links fail) N times into a temp folder; seconds per file
  and peak RSS of a fresh ingest of each. 16x is opt-in (`--scales 1,4,16`): its ingest of 82,544 files
  took 564 s on the 2 shared cores this was written on, the whole run 16 min (1x and 4x alone: ~6 min).
- dask: files/s of `--engine dask` on a LocalCluster of 1 and 2 single-threaded workers, writing Parquet;
  the cluster is started (and its workers import iobook) before the clock starts. Also the time of
  `--from-parquet` into a new database.
Numbers are wall-clock: on a shared machine they are as noisy as its load.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(cmd: list[str], **kw) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB of the process tree's largest process) of one command."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if "input" in kw else None,
                            stdout=subprocess.DEVNULL, stderr=kw.get("stderr"))
    if "input" in kw:
        proc.stdin.write(kw["input"])
        proc.stdin.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024


def ingest_cmd(db: Path, *paths: Path) -> list[str]:
    return [sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), *map(str, paths)]


def replicate(archive: Path, n: int, dest: Path) -> None:
    def link_or_copy(src, dst):
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    for k in range(n):
        shutil.copytree(archive, dest / f"copy-{k:02d}", copy_function=link_or_copy, symlinks=True)


def dask_files_per_s(archive: Path, workers: int, tmp: Path, n_files: int) -> dict:
    from distributed import Client, LocalCluster

    from iobook.dask_ingest import dask_ingest, load_parquet

    parts = tmp / f"parts-{workers}"
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("iobook.dask_ingest"))
        started = time.perf_counter()
        dask_ingest([archive], parts, client=client, progress=False)
        seconds = time.perf_counter() - started
    started = time.perf_counter()
    load_parquet(parts, tmp / f"from-parquet-{workers}.duckdb")
    load_s = time.perf_counter() - started
    parquet_mib = sum(p.stat().st_size for p in parts.rglob("*.parquet")) / 2**20
    return {"workers": workers, "seconds": round(seconds, 3), "files_per_s": round(n_files / seconds, 1),
            "files_per_s_per_worker": round(n_files / seconds / workers, 1), "from_parquet_s": round(load_s, 3),
            "parquet_mib": round(parquet_mib, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path)
    ap.add_argument("--scales", default="1,4", help="copies of the archive to ingest (default 1,4; add 16 for 16x)")
    ap.add_argument("--dask-workers", default="1,2", help="LocalCluster sizes to measure (default 1,2; '' for none)")
    ap.add_argument("--out", type=Path, default=REPO / "_build" / "bench.json")
    args = ap.parse_args()
    archive = args.archive.resolve()
    files = sorted(str(p) for p in archive.rglob("*") if p.is_file())
    nbytes = sum(os.path.getsize(f) for f in files)
    file_list = "\0".join(files).encode()

    def cat() -> float:
        return run(["xargs", "-0", "cat"], input=file_list)[0]

    cat()  # warm the page cache
    cat_s = min(cat() for _ in range(3))
    result = {"archive": str(archive), "files": len(files), "mib": round(nbytes / 2**20, 1),
              "cpus": os.cpu_count(), "machine": platform.machine(), "loadavg_at_start": os.getloadavg(),
              "cat_s": round(cat_s, 3)}
    with tempfile.TemporaryDirectory(prefix="iobook-bench-") as tmp:
        tmp = Path(tmp)
        db = tmp / "bench.duckdb"
        ingest_s, peak = run(ingest_cmd(db, archive))
        reingest_s, _ = run(ingest_cmd(db, archive))
        result.update(ingest_s=round(ingest_s, 3), ingest_over_cat=round(ingest_s / cat_s, 1),
                      reingest_s=round(reingest_s, 3), reingest_over_cat=round(reingest_s / cat_s, 1),
                      peak_rss_mib=round(peak))
        result["scales"] = []
        for n in [int(s) for s in args.scales.split(",") if s]:
            if n == 1:
                seconds, rss = ingest_s, peak
            else:
                tree = tmp / f"x{n}"
                replicate(archive, n, tree)
                seconds, rss = run(ingest_cmd(tmp / f"x{n}.duckdb", tree))
                shutil.rmtree(tree)
                (tmp / f"x{n}.duckdb").unlink()
            result["scales"].append({"copies": n, "files": n * len(files), "seconds": round(seconds, 2),
                                     "ms_per_file": round(1000 * seconds / (n * len(files)), 3),
                                     "peak_rss_mib": round(rss)})
        result["dask"] = [dask_files_per_s(archive, int(w), tmp, len(files))
                          for w in args.dask_workers.split(",") if w]
    result["loadavg_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    print(f"files {len(files)}, {nbytes / 2**20:.1f} MiB, {os.cpu_count()} CPUs, "
          f"load {result['loadavg_at_start'][0]:.1f} at start, {result['loadavg_at_end'][0]:.1f} at end")
    print(f"cat            {cat_s:8.3f} s")
    print(f"ingest (new)   {ingest_s:8.3f} s   {result['ingest_over_cat']:6.1f}x cat   peak RSS {peak:.0f} MiB")
    print(f"ingest (again) {reingest_s:8.3f} s   {result['reingest_over_cat']:6.1f}x cat")
    print(f"{'copies':>6} {'files':>8} {'seconds':>9} {'ms/file':>8} {'peak MiB':>9}")
    for s in result["scales"]:
        print(f"{s['copies']:>5}x {s['files']:>8} {s['seconds']:>9.2f} {s['ms_per_file']:>8.3f} {s['peak_rss_mib']:>9}")
    print(f"{'dask workers':>12} {'seconds':>8} {'files/s':>8} {'/worker':>8} {'from-parquet s':>15}")
    for d in result["dask"]:
        print(f"{d['workers']:>12} {d['seconds']:>8.2f} {d['files_per_s']:>8.1f} {d['files_per_s_per_worker']:>8.1f} "
              f"{d['from_parquet_s']:>15.2f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
