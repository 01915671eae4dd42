"""Ingest speed as a ratio to `cat` of the same files, peak memory, scaling with archive size, Dask throughput,
and the book's build times.

    .venv/bin/python benchmarks/bench_ingest.py ../shared/io500-submissions [--scales 1,4,16] [--dask-workers 1,2]
    make bench BENCH_ARGS="--scales 1,4,16"
    make bench-mlperf    # the MLPerf Storage v1.0 corpus (../shared/mlperf-storage-v1.0): one scale, no Dask, no book

Writes _build/bench.json and prints a table:
- cat_s (the fastest of 3), ingest_s (median of 3 local ingests, each into a new database), reingest_s
  (median of 5 ingests of the same files again: nothing changed), each also as a ratio to cat
  (ingest_over_cat, reingest_over_cat); all read from a warm page cache (one untimed `cat` first). Goals
  (issue 14): ingest <= 10x cat, re-ingest <= 2x cat.
- peak_rss_mib: the largest resident set of any one process of the ingest child (the child or a parse
  worker; os.wait4's ru_maxrss). Goal: <= 500 MiB however large the tree.
- scales: the archive hard-linked (copied when links fail) N times into a temp folder; seconds per file
  and peak RSS of a fresh ingest of each (1x: the median run above), and the marginal seconds per file
  between consecutive scales (what the files added cost, the start-up taken out). Goal: seconds per file
  within 20% of each other. 16x is opt-in (`--scales 1,4,16`): 82,544 files.
- dask: files/s of `--engine dask` on a LocalCluster of 1 and 2 single-threaded workers, writing Parquet;
  the cluster is started (and its workers import iobook) before the clock starts. Also the time of
  `--from-parquet` into a new database.
- book: seconds of a clean `python -m iobook book` (what `make book` runs, on data/raw, into a new database)
  and of the same again with nothing changed, in a copy of the repository's tracked files so that the
  working tree's build is left alone (`--no-book` to skip: the clean build takes minutes).
CPU seconds (user + sys of the command and its children) are recorded beside the wall seconds: on a shared
machine wall-clock numbers are as noisy as its load, CPU seconds much less.
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
from statistics import median

REPO = Path(__file__).resolve().parents[1]
INGEST_RUNS = 3  # first ingests of the archive (median): one run on a shared machine is as noisy as its load
REINGEST_RUNS = 5


def run(cmd: list[str], ok: tuple[int, ...] = (0,), **kw) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB of the process tree's largest process, CPU seconds: user + sys of the
    command and the children it waited for) of one command, which must exit with one of `ok`."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if "input" in kw else None, stdout=subprocess.DEVNULL,
                            stderr=kw.get("stderr"), cwd=kw.get("cwd"), env=kw.get("env"))
    if "input" in kw:
        proc.stdin.write(kw["input"])
        proc.stdin.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in ok:
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), cmd)
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


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

    from iobook.database.dask_ingest import dask_ingest, load_parquet

    parts = tmp / f"parts-{workers}"
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("iobook.database.dask_ingest"))
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


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo; platform.processor() is empty on Linux)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor()
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), platform.processor())


def book_seconds(tmp: Path) -> dict:
    """Wall and CPU seconds of a clean `python -m iobook book` on data/raw (a new database, no executed
    chapters, no HTML) and of the same build again with nothing changed, in a copy of the tracked files."""
    copy = tmp / "repo"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, copy / name)
    (tmp / "shared").symlink_to(REPO.parent / "shared")  # ../shared as the repository sees it
    env = {**os.environ, "PYTHONPATH": str(copy)}  # the copy's package, not the editable install's
    cmd = [sys.executable, "-m", "iobook", "book", "--quiet", "--data", "data/raw", "--db", "data/iobook.duckdb"]
    clean_s, _, clean_cpu = run(cmd, cwd=copy, env=env)
    again_s, _, again_cpu = run(cmd, cwd=copy, env=env)
    return {"clean_s": round(clean_s, 1), "clean_cpu_s": round(clean_cpu, 1),
            "no_change_s": round(again_s, 2), "no_change_cpu_s": round(again_cpu, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path)
    ap.add_argument("--scales", default="1,4", help="copies of the archive to ingest (default 1,4; add 16 for 16x)")
    ap.add_argument("--dask-workers", default="1,2", help="LocalCluster sizes to measure (default 1,2; '' for none)")
    ap.add_argument("--no-book", action="store_true", help="skip the book's clean and no-change build times")
    ap.add_argument("--out", type=Path, default=REPO / "_build" / "bench.json")
    ap.add_argument("--allow-failed-files", action="store_true",
                    help="an ingest's exit 1 (files that do not parse, each recorded) is a measured ingest: the MLPerf "
                         "corpus holds 6 system descriptions that are not JSON")
    args = ap.parse_args()
    archive = args.archive.resolve()
    files = sorted(str(p) for p in archive.rglob("*") if p.is_file())
    ingest_ok = (0, 1) if args.allow_failed_files else (0,)
    nbytes = sum(os.path.getsize(f) for f in files)
    file_list = "\0".join(files).encode()

    def cat() -> tuple[float, float, float]:
        return run(["xargs", "-0", "cat"], input=file_list)

    cat()  # warm the page cache
    cat_s, _, cat_cpu = min(cat() for _ in range(3))
    result = {"archive": str(archive), "files": len(files), "mib": round(nbytes / 2**20, 1),
              "cpus": os.cpu_count(), "machine": platform.machine(), "processor": cpu_model(),
              "loadavg_at_start": os.getloadavg(), "cat_s": round(cat_s, 3), "cat_cpu_s": round(cat_cpu, 3)}
    with tempfile.TemporaryDirectory(prefix="iobook-bench-") as tmp:
        tmp = Path(tmp)
        firsts = []  # each into a new database; the last one's is re-ingested
        for k in range(INGEST_RUNS):
            db = tmp / f"bench-{k}.duckdb"
            firsts.append(run(ingest_cmd(db, archive), ingest_ok))
        ingest_s, ingest_cpu = median(s for s, _, _ in firsts), median(c for _, _, c in firsts)
        peak = max(rss for _, rss, _ in firsts)
        agains = [run(ingest_cmd(db, archive), ingest_ok) for _ in range(REINGEST_RUNS)]
        reingest_s, reingest_cpu = median(s for s, _, _ in agains), median(c for _, _, c in agains)
        result.update(ingest_s=round(ingest_s, 3), ingest_cpu_s=round(ingest_cpu, 2),
                      ingest_over_cat=round(ingest_s / cat_s, 1),
                      reingest_s=round(reingest_s, 3), reingest_cpu_s=round(reingest_cpu, 3),
                      reingest_over_cat=round(reingest_s / cat_s, 1), peak_rss_mib=round(peak),
                      ingest_runs_s=[round(s, 3) for s, _, _ in firsts],
                      reingest_runs_s=[round(s, 3) for s, _, _ in agains])
        result["scales"] = []
        for n in [int(s) for s in args.scales.split(",") if s]:
            if n == 1:
                seconds, rss, cpu = ingest_s, peak, ingest_cpu
            else:
                tree = tmp / f"x{n}"
                replicate(archive, n, tree)
                seconds, rss, cpu = run(ingest_cmd(tmp / f"x{n}.duckdb", tree), ingest_ok)
                shutil.rmtree(tree)
                (tmp / f"x{n}.duckdb").unlink()
            scale = {"copies": n, "files": n * len(files), "seconds": round(seconds, 2),
                     "ms_per_file": round(1000 * seconds / (n * len(files)), 3),
                     "cpu_ms_per_file": round(1000 * cpu / (n * len(files)), 3), "peak_rss_mib": round(rss)}
            if result["scales"]:  # what each file past the previous scale cost: the start-up cost taken out
                prior = result["scales"][-1]
                scale["marginal_ms_per_file"] = round(1000 * (seconds - prior["seconds"]) / (scale["files"] - prior["files"]), 3)
            result["scales"].append(scale)
        result["dask"] = [dask_files_per_s(archive, int(w), tmp, len(files))
                          for w in args.dask_workers.split(",") if w]
        if not args.no_book:
            result["book"] = book_seconds(tmp)
    result["loadavg_at_end"] = os.getloadavg()
    per_file = [s["ms_per_file"] for s in result["scales"]]
    marginal = [s["marginal_ms_per_file"] for s in result["scales"][1:]]
    result["goals"] = {
        "ingest_over_cat <= 10": result["ingest_over_cat"] <= 10,
        "reingest_over_cat <= 2": result["reingest_over_cat"] <= 2,
        "peak_rss_mib <= 500": max([result["peak_rss_mib"], *(s["peak_rss_mib"] for s in result["scales"])]) <= 500,
        "ms_per_file within 20%": max(per_file) <= 1.2 * min(per_file) if len(per_file) > 1 else None,
        "marginal ms_per_file within 20%": max(marginal) <= 1.2 * min(marginal) if len(marginal) > 1 else None,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    print(f"files {len(files)}, {nbytes / 2**20:.1f} MiB, {os.cpu_count()} CPUs, "
          f"load {result['loadavg_at_start'][0]:.1f} at start, {result['loadavg_at_end'][0]:.1f} at end")
    print(f"cat            {cat_s:8.3f} s")
    print(f"ingest (new)   {ingest_s:8.3f} s   {result['ingest_over_cat']:6.1f}x cat   peak RSS {peak:.0f} MiB   "
          f"CPU {ingest_cpu:.1f} s")
    print(f"ingest (again) {reingest_s:8.3f} s   {result['reingest_over_cat']:6.1f}x cat   CPU {reingest_cpu:.2f} s")
    print(f"{'copies':>6} {'files':>8} {'seconds':>9} {'ms/file':>8} {'marginal':>9} {'CPU ms/file':>12} {'peak MiB':>9}")
    for s in result["scales"]:
        marginal_ms = f"{s['marginal_ms_per_file']:>9.3f}" if "marginal_ms_per_file" in s else f"{'':>9}"
        print(f"{s['copies']:>5}x {s['files']:>8} {s['seconds']:>9.2f} {s['ms_per_file']:>8.3f} {marginal_ms} "
              f"{s['cpu_ms_per_file']:>12.3f} {s['peak_rss_mib']:>9}")
    print(f"{'dask workers':>12} {'seconds':>8} {'files/s':>8} {'/worker':>8} {'from-parquet s':>15}")
    for d in result["dask"]:
        print(f"{d['workers']:>12} {d['seconds']:>8.2f} {d['files_per_s']:>8.1f} {d['files_per_s_per_worker']:>8.1f} "
              f"{d['from_parquet_s']:>15.2f}")
    if "book" in result:
        b = result["book"]
        print(f"book: clean build {b['clean_s']:.1f} s (CPU {b['clean_cpu_s']:.1f} s), "
              f"no-change rebuild {b['no_change_s']:.2f} s (CPU {b['no_change_cpu_s']:.2f} s)")
    for goal, met in result["goals"].items():
        print(f"goal {goal}: {'met' if met else 'not measured' if met is None else 'MISSED'}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
