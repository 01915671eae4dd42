"""The whole book at a centre's scale: wall time and peak resident memory of every step of `python -m iobook
book` (ingest, each chapter, the HTML site) on 1, 4 and 16 copies of an archive.

    .venv/bin/python benchmarks/bench_book.py ../shared/io500-submissions [--scales 1,4,16]
    make bench-book                      # the same, on ../shared/io500-submissions, 1, 4 and 16 copies

Each scale gets a new temporary folder: the archive hard-linked N times (copied where links fail), a copy of
the repository's tracked files (so the working tree's book/ and database are left alone; its package is the
one imported, PYTHONPATH) and a new database. The steps are what `python -m iobook book` runs, one process
each so that each has its own peak memory: `iobook ingest --prune`, `iobook chapters --only <chapter>
--force` per chapter, then the site build (`build.build_site`). Per step: wall and CPU seconds (user + sys
of the step and the children it waited for), the peak RSS of the step's largest process (os.wait4's
ru_maxrss: the papermill process or its kernel), and the exit status; a failed step is recorded, not fatal.
The JSON (_build/bench-book.json) is rewritten after every step, so a scale that runs out of time still
leaves its finished steps. Goals (issue 30): every process under 2 GB; 4 and 16 copies within 4.5 and 18
times the time of one copy.

Memory against the archive's size (issue 46: the archive chapter in flat memory): each scale records the archive's
files and bytes, and each step its peak RSS per GiB of archive and over the same step's on 1 copy in the same run
(`rss_over_1x`, the baseline: flat memory is a ratio near 1 while the archive grows 4 or 16 times). `--chapters`
runs only the chapters named (e.g. io500_archive) and no site build:

    .venv/bin/python benchmarks/bench_book.py ../shared/io500-submissions --scales 1,4 --chapters io500_archive
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import REPO, cpu_model, replicate  # noqa: E402  (one way to copy an archive N times)

RSS_LIMIT_MIB = 2048  # issue 30: every process of the book under 2 GB resident
GIB = 2**30


def step(cmd: list[str], cwd: Path, env: dict, log: Path) -> dict:
    """Wall and CPU seconds, peak RSS (MiB) of the largest process and exit status of one command."""
    started = time.perf_counter()
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(proc.pid, 0)
    return {"wall_s": round(time.perf_counter() - started, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mib": round(usage.ru_maxrss / 1024), "exit": os.waitstatus_to_exitcode(status)}


def copy_repository(dest: Path) -> None:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes(source.read_bytes())


def chapter_names() -> list[str]:
    sys.path.insert(0, str(REPO))
    from iobook.book import chapters
    return [c.name for c in chapters.load_registry()]


def bench_scale(archive: Path, copies: int, result: dict, save, only: list[str] | None = None) -> None:
    scale = result.setdefault("scales", {}).setdefault(str(copies), {"steps": {}})
    with tempfile.TemporaryDirectory(prefix=f"iobook-bench-book-{copies}x-") as tmp:
        tmp = Path(tmp)
        replicate(archive, copies, tmp / "archive")
        repo = tmp / "repo"
        copy_repository(repo)
        (tmp / "shared").symlink_to(REPO.parent / "shared")  # ../shared as the repository sees it
        env = {**os.environ, "PYTHONPATH": str(repo)}
        db, log = tmp / "book.duckdb", tmp / "steps.log"
        iobook = [sys.executable, "-m", "iobook"]
        steps = [("ingest", [*iobook, "ingest", "--quiet", "--prune", "--db", str(db), str(tmp / "archive")])]
        steps += [(f"chapter {name}", [*iobook, "chapters", "--db", str(db), "--only", name, "--force"])
                  for name in only or chapter_names()]
        if not only:
            steps.append(("site", [sys.executable, "-c", "import sys; from pathlib import Path; "
                                   "from iobook.book.build import build_site; sys.exit(build_site(Path(sys.argv[1])))",
                                   str(db)]))
        files = [f for f in (tmp / "archive").rglob("*") if f.is_file()]
        scale["files"], scale["archive_bytes"] = len(files), sum(f.stat().st_size for f in files)
        for name, cmd in steps:
            scale["steps"][name] = step(cmd, repo, env, log)
            if scale["steps"][name]["exit"]:  # why, from the step's own output
                scale["steps"][name]["tail"] = log.read_text(errors="replace")[-600:]
            print(f"{copies:>3}x {name:<28} {scale['steps'][name]}", flush=True)
            save()
            log.write_text("")
    done = scale["steps"].values()
    scale.update(wall_s=round(sum(s["wall_s"] for s in done), 1),
                 peak_rss_mib=max(s["peak_rss_mib"] for s in done),
                 failed=[n for n, s in scale["steps"].items() if s["exit"]])
    save()


def table(result: dict) -> str:
    scales = list(result["scales"])
    names = list(next(iter(result["scales"].values()))["steps"])
    head = "| step | " + " | ".join(f"{s}x s | {s}x MiB | {s}x RSS / 1x" for s in scales) + " |"
    lines = [head, "|" + " --- |" * (1 + 3 * len(scales))]
    for name in names:
        cells = []
        for s in scales:
            got = result["scales"][s]["steps"].get(name)
            cells += ([f"{got['wall_s']:.1f}" + (" (failed)" if got["exit"] else ""), f"{got['peak_rss_mib']:,}",
                       f"{got.get('rss_over_1x', '')}"] if got else ["", "", ""])
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    totals = [c for s in scales for c in (f"{result['scales'][s].get('wall_s', 0):.1f}",
                                          f"{result['scales'][s].get('peak_rss_mib', 0):,}",
                                          f"{result['scales'][s].get('archive_bytes', 0) / GIB:.2f} GiB archive")]
    lines.append("| total (peak: largest process) | " + " | ".join(totals) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path)
    ap.add_argument("--scales", default="1,4,16", help="copies of the archive (default 1,4,16)")
    ap.add_argument("--out", type=Path, default=REPO / "_build" / "bench-book.json")
    ap.add_argument("--chapters", default="", help="only these chapters (comma-separated), no site build")
    args = ap.parse_args()
    archive = args.archive.resolve()
    result = {"archive": str(archive), "cpu": cpu_model(), "cores": os.cpu_count(),
              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rss_limit_mib": RSS_LIMIT_MIB}
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")

    for copies in map(int, args.scales.split(",")):
        bench_scale(archive, copies, result, save, [c for c in args.chapters.split(",") if c])
    one = result["scales"].get("1", {}).get("wall_s")
    for copies, scale in result["scales"].items():
        if one:
            scale["time_over_1x"] = round(scale["wall_s"] / one, 2)
        scale["over_rss_limit"] = [n for n, s in scale["steps"].items() if s["peak_rss_mib"] > RSS_LIMIT_MIB]
        for name, got in scale["steps"].items():
            got["mib_per_gib_archive"] = round(got["peak_rss_mib"] / (scale["archive_bytes"] / GIB), 1)
            base = result["scales"].get("1", {}).get("steps", {}).get(name)
            if base and base["peak_rss_mib"]:
                got["rss_over_1x"] = round(got["peak_rss_mib"] / base["peak_rss_mib"], 2)
    save()
    print(table(result))


if __name__ == "__main__":
    main()
