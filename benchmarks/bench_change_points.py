"""History's permutation test against the same search on ruptures' own least-squares cost, in one run.

    .venv/bin/python benchmarks/bench_change_points.py [--runs 7,30,100] [--repeat 3]

For each history length n: the best single split (change_points.split_gain: ruptures' Binseg, at least MIN_UNITS a
side) of PERMUTATIONS shuffles of n log-normal values, once on change_points.RunningSumsL2 (what the chapter uses)
and once on ruptures' CostL2 (the baseline), and the gains of all shuffles at once (change_points.shuffle_gains, what
the permutation test uses); prints the median seconds of each over --repeat runs, their ratios to the baseline, and
whether all found the same gain (to 1e-9) in every shuffle (and the first two the same split). Numbers are as noisy as the
machine's load; the ratio is what to compare between machines.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import ruptures as rpt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from iobook.inference import change_points  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", default="7,30,100", help="history lengths, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(change_points.SEED)
    print(f"{'runs':>5} {'running sums s':>15} {'at once s':>10} {'CostL2 s':>9} {'ratio':>6} {'at once ratio':>14}"
          "  same splits")
    for n in map(int, args.runs.split(",")):
        series = rng.normal(20.0, 0.3, n)
        shuffles = [rng.permutation(series) for _ in range(change_points.PERMUTATIONS)]
        seconds = {}
        found = {}
        for name, make_cost in (("running sums", change_points.RunningSumsL2), ("CostL2", rpt.costs.CostL2)):
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                found[name] = [change_points.split_gain(x, make_cost()) for x in shuffles]
                times.append(time.perf_counter() - started)
            seconds[name] = statistics.median(times)
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            at_once = change_points.shuffle_gains(np.array(shuffles))
            times.append(time.perf_counter() - started)
        seconds["at once"] = statistics.median(times)
        same = all(a[0] == b[0] and abs(a[1] - b[1]) <= 1e-9 * max(abs(b[1]), 1e-300)
                   for a, b in zip(found["running sums"], found["CostL2"])) and all(
            abs(a - b[1]) <= 1e-9 * max(abs(b[1]), 1e-300) for a, b in zip(at_once, found["CostL2"]))
        print(f"{n:>5} {seconds['running sums']:>15.3f} {seconds['at once']:>10.4f} {seconds['CostL2']:>9.3f} "
              f"{seconds['running sums'] / seconds['CostL2']:>6.2f} {seconds['at once'] / seconds['CostL2']:>14.4f}  {same}")


if __name__ == "__main__":
    main()
