"""Change points of histories: ruptures' binary segmentation, each split kept only when a permutation test finds it,
the runs either side compared (evidence.compare) and decided by evidence.decide over each measure's family. The
History chapter, `iobook check` and the benchmarks search with it (a history's runs: database.repeated_runs.get_runs;
`what else changed` is plain text, escaped where a page shows it)."""
from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pandas as pd
import ruptures as rpt

from . import evidence, stats
from .evidence import Replicate

MIN_RUNS = 2 * evidence.MIN_UNITS  # a change point needs MIN_UNITS runs on each side to be compared at all
PERMUTATIONS = 499  # p resolution 1/500, well below 1 - CONFIDENCE
TIE_TOLERANCE = 1e-9  # relative: gains equal but for rounding are ties
SEED = 0
SEARCH_ROUNDS = 4  # searches with more shuffles (searched_enough), each sized to the last one's splits
# What a history is searched on: a column of get_runs -> its name, unit and whether more is better. Each measure is
# its own family of change points (evidence.decide).
MEASURES = {"bw_bytes_s": ("bandwidth", "B/s", True), "p99_ns": ("clat p99", "ns", False),
            "ops_s": ("rate", "ops/s", True), "slowest_job": ("slowest job over the median job", "×", True)}
CHANGE_COLUMNS = ["label", "history", "workload", "measure", "run", "started", "permutation p", "runs before",
                  "runs after", "what else changed"]


class RunningSumsL2(rpt.base.BaseCost):
    """ruptures' least-squares cost (CostL2: a segment's sum of squared deviations from its mean) from running
    sums: one subtraction a segment instead of a pass over it. It finds a segment's own best split (split_gain);
    the shuffles of the permutation test take the same sums for all of them at once (shuffle_gains)."""
    model = "l2_running_sums"
    min_size = 1

    def fit(self, signal) -> "RunningSumsL2":
        self.signal = np.asarray(signal, dtype=float).reshape(len(signal), -1)  # what Binseg reads its length from
        x = self.signal.ravel()
        x = x - x.mean()  # centred: the sums of squares keep their precision
        self.sums = np.concatenate([[0.0], np.cumsum(x)])
        self.squares = np.concatenate([[0.0], np.cumsum(x * x)])
        return self

    def error(self, start: int, end: int) -> float:
        total = self.sums[end] - self.sums[start]
        return max(float(self.squares[end] - self.squares[start] - total * total / (end - start)), 0.0)


def split_gain(x: np.ndarray, cost: rpt.base.BaseCost | None = None) -> tuple[int, float]:
    """The best single split of x (ruptures' binary segmentation, least squares, at least MIN_UNITS a side):
    its index (first value after) and how much it lowers the sum of squares. `cost`: RunningSumsL2 unless given
    (benchmarks/bench_change_points.py gives ruptures' CostL2, its baseline)."""
    algo = rpt.Binseg(custom_cost=cost or RunningSumsL2(), min_size=evidence.MIN_UNITS, jump=1).fit(x)
    split = algo.predict(n_bkps=1)[0]
    return split, float(algo.cost.error(0, len(x)) - algo.cost.sum_of_costs([split, len(x)]))


def shuffle_gains(shuffles: np.ndarray) -> np.ndarray:
    """split_gain's gain for each row of `shuffles` (a permutation test's shuffles of one segment), all rows at once
    from the same running sums as RunningSumsL2: History's permutation tests fitted ruptures ~96,000 times, one
    shuffle a fit (~35 s of its ~55 s). Equal to split_gain's (tests/test_study_history.py)."""
    centred = shuffles - shuffles.mean(axis=1, keepdims=True)
    zero = np.zeros((len(shuffles), 1))
    sums = np.hstack([zero, np.cumsum(centred, axis=1)])
    squares = np.hstack([zero, np.cumsum(centred * centred, axis=1)])
    n = shuffles.shape[1]
    splits = np.arange(evidence.MIN_UNITS, n - evidence.MIN_UNITS + 1)
    left = np.maximum(squares[:, splits] - sums[:, splits] ** 2 / splits, 0.0)
    right_sums = sums[:, [n]] - sums[:, splits]
    right = np.maximum(squares[:, [n]] - squares[:, splits] - right_sums ** 2 / (n - splits), 0.0)
    total = np.maximum(squares[:, n] - sums[:, n] ** 2 / n, 0.0)
    return total - (left + right).min(axis=1)


def shuffles_for(tests: int) -> int:
    """The shuffles each split of a family of `tests` splits is tested against: PERMUTATIONS, or more, so that the
    smallest p a split can have, 1 / (shuffles + 1), still passes Holm's correction over all of them."""
    return max(PERMUTATIONS, math.ceil(tests / (1 - evidence.CONFIDENCE)))


def searched_enough(search) -> tuple[list[dict], list]:
    """`search(permutations)` -> (rows, comparisons), run again with more shuffles until every family's splits could
    pass Holm's correction (shuffles_for: binary segmentation searches each side of a split again, so how many
    splits a family tests is known only after a search; mdtest's ten phases of one history made 1/500 too coarse).
    A search with more shuffles may test other splits: at most a few rounds settle it."""
    permutations = PERMUTATIONS
    for _ in range(SEARCH_ROUNDS):
        rows, comparisons = search(permutations)
        tests = max(Counter(c.family for c in comparisons).values(), default=0)
        if shuffles_for(tests) <= permutations:
            break
        permutations = shuffles_for(tests)
    return rows, comparisons


def change_points(values, *, permutations: int = PERMUTATIONS, seed: int = SEED) -> list[tuple[int, float]]:
    """Every split binary segmentation tests in a series (log values in run order), as (index of the first run
    after, permutation p), in order: a segment's best split, its p the share of `permutations` shuffles of the
    segment whose best split gains as much (a tie counts against it); a split with p below 1 - CONFIDENCE has each
    side searched again. Which are change points is its family's correction's to say (evidence.decide)."""
    rng = np.random.default_rng(seed)
    tested: list[tuple[int, float]] = []

    def search(start: int, end: int) -> None:
        x = np.asarray(values[start:end], dtype=float)
        if len(x) < MIN_RUNS or np.ptp(x) == 0:
            return
        split, gain = split_gain(x)
        null = shuffle_gains(np.array([rng.permutation(x) for _ in range(permutations)]))
        # a shuffle that leaves the same values either side of the split ties with the series: it counts against
        # the change, whichever way rounding tipped its sums
        p = (1 + np.count_nonzero(null >= gain * (1 - TIE_TOLERANCE))) / (permutations + 1)
        tested.append((start + split, p))
        if p < 1 - evidence.CONFIDENCE:
            search(start, start + split)
            search(start + split, end)

    search(0, len(values))
    return sorted(tested)


def what_changed(before: pd.Series, after: pd.Series) -> str:
    """What the logs state differently in the last run before and the first run after a change point: the tool's
    version and every option (fio's job options; IOR's and mdtest's tasks, nodes and sizes), and what a setup.yml
    states of them (with_stated_setup)."""
    a, b = json.loads(before.options or "{}"), json.loads(after.options or "{}")
    changed = [f"{k}: {a.get(k, '–')} → {b.get(k, '–')}" for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    if before.version != after.version:
        changed.insert(0, f"{before.tool} {before.version} → {after.version}")
    return "; ".join(changed) or f"nothing the {before.tool} output states"


def segment_changes(h: pd.DataFrame, column: str, quantity: str, unit: str, family: str,
                    permutations: int) -> tuple[list[dict], list]:
    """Every split change_points tests in one history of one column (its runs in time order, the column known and
    positive), each with the runs either side of it up to the next splits below 1 - CONFIDENCE compared (ratio of
    geometric means, Replicate.RUN, p the larger of Welch's and the permutation test's; undecided until
    evidence.decide): (rows of what each is, `found` when its p alone is below 1 - CONFIDENCE; their Comparisons)."""
    h = h[h[column] > 0].reset_index(drop=True)
    if len(h) < MIN_RUNS:
        return [], []
    tested = change_points(stats.log(h[column].to_numpy(dtype=float)), permutations=permutations)
    edges = sorted({0, len(h), *(i for i, p in tested if p < 1 - evidence.CONFIDENCE)})
    rows, comparisons = [], []
    for i, p in tested:
        start, end = max(e for e in edges if e < i), min(e for e in edges if e > i)
        before, after = h[column][start:i], h[column][i:end]
        comparisons.append(evidence.compare(after, before, quantity=quantity, unit=unit, replicate=Replicate.RUN,
                                            family=family, label=f"runs {i + 1}–{end}", baseline_label=f"runs {start + 1}–{i}",
                                            selection_p=p))
        rows.append({"measure": quantity, "run": int(h.run[i]), "started": h.started[i], "permutation p": p,
                     "runs before": len(before), "runs after": len(after), "at": i,
                     "found": p < 1 - evidence.CONFIDENCE})
    return rows, comparisons


def decided_changes(rows: list[dict], comparisons: list, columns: list[str]) -> tuple[pd.DataFrame, list]:
    """The splits whose p alone is below 1 - CONFIDENCE (rows' `found`), each decided over every split tested in its
    family: the change points shown (`columns`, with ratio, interval and verdict) and their records."""
    kept = [(row, c) for row, c in zip(rows, evidence.decide(comparisons)) if row["found"]]
    decided = [c for _, c in kept]
    changes = pd.DataFrame([row for row, _ in kept], columns=columns)
    record = evidence.frame(decided)
    if len(changes):
        changes = changes.assign(ratio=record.ratio, low=record.low, high=record.high, verdict=record.verdict)
    return changes, decided


def histories_of(runs: pd.DataFrame) -> pd.DataFrame:
    """The histories searched: label, workload, name (`history`) and runs of each with at least MIN_RUNS runs, in
    the order of their first run, and `one_collector_run`: its runs are the steps of one collector run (one
    schedule in one machine state, minutes apart: repetitions of one experiment, not a system over time)."""
    one_run = runs.collector_step if "collector_step" in runs else False
    sizes = (runs.assign(one_run=one_run).groupby(["label", "workload", "history"], sort=False)
             .agg(runs=("run", "size"), designs=("design", "nunique"), one_run=("one_run", "all")).reset_index())
    sizes["one_collector_run"] = sizes.one_run & (sizes.designs == 1)
    return sizes[sizes.runs >= MIN_RUNS].drop(columns=["designs", "one_run"]).reset_index(drop=True)


def history_changes(runs: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """Per history (label and workload with at least MIN_RUNS runs) and measure (MEASURES, each its own family): its
    change points, each with the runs of the segment before and after compared, decided by evidence.decide."""
    shown = histories_of(runs)
    searched = set(zip(shown.label, shown.workload))

    def search(permutations: int) -> tuple[list[dict], list]:
        rows, comparisons = [], []
        for column, (quantity, unit, _) in MEASURES.items():
            for (label, workload), h in runs.groupby(["label", "workload"], sort=False):
                if (label, workload) not in searched:
                    continue
                found, records = segment_changes(h, column, quantity, unit, f"change points: {quantity}", permutations)
                known = h[h[column] > 0].reset_index(drop=True)
                rows += [{**row, "label": label, "workload": workload, "history": known.history[row["at"]],
                          "what else changed": what_changed(known.iloc[row["at"] - 1], known.iloc[row["at"]])}
                         for row in found]
                comparisons += records
        return rows, comparisons

    return decided_changes(*searched_enough(search), CHANGE_COLUMNS)


def slower(measure: str, ratio: float) -> bool:
    """Whether a change of `measure` by `ratio` (after over before) is a slowdown: less bandwidth or rate, a longer
    latency."""
    more_is_better = {name: better for name, _, better in MEASURES.values()}[measure]
    return ratio < 1 if more_is_better else ratio > 1
