"""mdtest's parser on a log with one very long line, against reading the same text line by line, in one run.

    .venv/bin/python benchmarks/bench_long_lines.py [--log FILE] [--repeat 5]

Aurora's submission-688 mdtest-easy-delete.txt prints a Nodemap of 62,409 characters on one line (62,400 tasks):
a parser that scans such a line once per pattern slows with its length. Prints the median seconds of
mdtest.parse_log and of the baseline, `text.splitlines()` with a `len` of every line, over --repeat runs, and their
ratio; the ratio is what to compare between machines.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from iobook.parsers import mdtest  # noqa: E402

AURORA_688 = (Path(__file__).resolve().parents[2] / "shared" / "io500-submissions" / "Argonne National Laboratory"
              / "Aurora" / "DAOS" / "2023" / "submission-688" / "results" / "2023.11.07-03.43.32"
              / "mdtest-easy-delete.txt")


def median_seconds(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", type=Path, default=AURORA_688)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    text = args.log.read_text(encoding="utf-8")
    parse = median_seconds(lambda: mdtest.parse_log(text), args.repeat)
    baseline = median_seconds(lambda: sum(len(line) for line in text.splitlines()), args.repeat)
    print(f"longest line {max(map(len, text.splitlines())):,} characters; parse_log {parse:.4f} s, "
          f"lines {baseline:.4f} s, ratio {parse / baseline:.1f}")


if __name__ == "__main__":
    main()
