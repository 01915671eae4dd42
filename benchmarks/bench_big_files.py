"""Time and peak memory of ingesting one very large file (issue 13: peak memory under 1 GiB for any single
file, time linear in size or a fast clear refusal; issue 21: a 1 GiB fio log under 500 MiB).

    .venv/bin/python benchmarks/bench_big_files.py [FIO_LOG...] [--line-mb 200] [--repeat-fio-log LOG --gib 1]

- "single line": a real IOR JSON log (built-tools ior_json_posix_fpp_1m_np2_i3.log) with its newlines made
  spaces, repeated to --line-mb MB on one line, once without a final newline (a cut file: refused) and once
  with it (that many IOR runs, each parsed).
- "fio log": each FIO_LOG as it is, a real fio bandwidth log; make one of ~1 GiB with
  `fio --name=bwlog --ioengine=null --rw=write --bs=4k --size=100g --time_based --runtime=32
   --write_bw_log=fiobw --log_avg_msec=0` (one line per I/O; 1.25 GiB on the machine this was written on),
  or with --repeat-fio-log LOG: the lines of the real fio log LOG (e.g. one of data/raw/pagecache) repeated
  to --gib GiB in the temporary folder (not kept). Such logs are streamed into the store in pieces.
Each is ingested alone into a new database by `python -m iobook ingest` in a child process; prints wall
seconds, the child's peak RSS (os.wait4 ru_maxrss: the largest of the child and its workers) and what
sources recorded, and for a fio log the rows stored against its lines. Numbers are as noisy as the
machine's load.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from conftest import BUILT_TOOLS  # noqa: E402  (the shared folder as the tests find it)


def ingest_alone(path: Path, work: Path) -> dict:
    folder, db = work / "tree", work / "big.duckdb"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    os.link(path, folder / path.name)
    db.unlink(missing_ok=True)
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), str(folder)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    row = con.execute("SELECT status, error, error_line FROM sources").fetchone()
    rows = con.execute("SELECT count(*) FROM raw_fio_series").fetchone()[0]
    con.close()
    return {"file": path.name, "mib": round(path.stat().st_size / 2**20, 1), "seconds": round(seconds, 1),
            "peak_rss_mib": round(usage.ru_maxrss / 1024), "exit": os.waitstatus_to_exitcode(status),
            "status": row[0], "error": (row[1] or "")[:120], "error_line": row[2], "fio_series_rows": rows}


def repeated_log(source: Path, gib: float, target: Path) -> int:
    """`source`'s lines written again and again to `gib` GiB at `target`; the number of lines."""
    data = source.read_bytes()
    copies = int(gib * 2**30 // len(data))
    block = data * max(1, (1 << 20) // len(data))  # written 1 MiB at a time: this process stays small
    with open(target, "wb") as out:
        left = copies
        while left:
            n = min(left, len(block) // len(data))
            out.write(block[: n * len(data)])
            left -= n
    return copies * data.count(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("fio_logs", type=Path, nargs="*")
    parser.add_argument("--line-mb", type=int, default=200)
    parser.add_argument("--repeat-fio-log", type=Path, metavar="LOG", help="a real fio log to repeat to --gib GiB")
    parser.add_argument("--gib", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # The fio logs first, while this process is small: a child's ru_maxrss counts this process's peak
        # memory from before the child's exec (Linux folds the vfork'd parent's high-water mark into it).
        for log in args.fio_logs:
            print(json.dumps(ingest_alone(log, work)), flush=True)
        if args.repeat_fio_log:
            made = work / args.repeat_fio_log.name  # the view takes the log's kind from fio's name for it
            lines = repeated_log(args.repeat_fio_log, args.gib, made)
            print(json.dumps({**ingest_alone(made, work), "lines": lines}), flush=True)
            made.unlink()
        one = (BUILT_TOOLS / "ior" / "ior_json_posix_fpp_1m_np2_i3.log").read_bytes().replace(b"\n", b" ")
        line = one * (args.line_mb * 10**6 // len(one))
        (work / "single-line-cut.json").write_bytes(line)
        print(json.dumps(ingest_alone(work / "single-line-cut.json", work)), flush=True)
        (work / "single-line-cut.json").unlink()
        (work / "single-line.json").write_bytes(line + b"\n")
        print(json.dumps(ingest_alone(work / "single-line.json", work)), flush=True)

if __name__ == "__main__":
    main()
