"""The statistical tools under iobook.inference.evidence (which alone decides): a ratio of two groups with Welch's
interval and test on the log scale, Holm's correction, the repetitions per side a two-sample t-test needs for
a given power; and checks that a published summary row (a standard deviation, a percentage) can be
recomputed from the printed rows it summarises, and under which definition."""
from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import stats

# Statistics of one column of a table whose first row is the baseline ("No snapshot") and whose other
# rows are the conditions compared with it. Each takes an array of shape (..., rows) and reduces the
# last axis, so that attainable_range can evaluate many perturbed columns at once.
Statistic = Callable[[np.ndarray], np.ndarray]

STD_DEFINITIONS: dict[str, Statistic] = {
    "sample std (n-1) of all rows": lambda x: x.std(axis=-1, ddof=1),
    "population std (n) of all rows": lambda x: x.std(axis=-1, ddof=0),
    "sample std (n-1) of the rows after the first": lambda x: x[..., 1:].std(axis=-1, ddof=1),
    "population std (n) of the rows after the first": lambda x: x[..., 1:].std(axis=-1, ddof=0),
}

PERCENT_DEFINITIONS: dict[str, Statistic] = {
    "mean of the rows after the first / first row": lambda x: 100 * x[..., 1:].mean(axis=-1) / x[..., 0],
    "mean of all rows / first row": lambda x: 100 * x.mean(axis=-1) / x[..., 0],
    "median of the rows after the first / first row": lambda x: 100 * np.median(x[..., 1:], axis=-1) / x[..., 0],
    "min of the rows after the first / first row": lambda x: 100 * x[..., 1:].min(axis=-1) / x[..., 0],
    "last row / first row": lambda x: 100 * x[..., -1] / x[..., 0],
}


def attainable_range(values, statistic: Statistic, half_unit: float) -> tuple[float, float]:
    """Smallest and largest statistic over the corners of the box values ± half_unit, i.e. over the
    unrounded inputs that print as `values`. Exact for statistics monotone in each input (means, medians,
    minima and their ratios); for a standard deviation (convex) the maximum is exact and the true minimum
    may be lower. By continuity every value between the two is attained inside the box."""
    values = np.asarray(values, dtype=float)
    corners = np.array(list(itertools.product((-half_unit, half_unit), repeat=len(values))))
    results = statistic(values + corners)
    return float(results.min()), float(results.max())


def recompute_summary(rows: pd.DataFrame, printed: pd.Series, definitions: dict[str, Statistic],
                      input_decimals: int, printed_decimals: int) -> pd.DataFrame:
    """For each definition and column of `rows` (first row = baseline): the recomputed value, whether it
    rounds to the printed one, and whether inputs within their own rounding reach a value that does
    (a summary computed from unrounded measurements may differ from one computed from printed rows)."""
    input_half, printed_half = 0.5 * 10.0 ** -input_decimals, 0.5 * 10.0 ** -printed_decimals
    tolerance = 1e-9  # float error in the comparisons below, far below any printed digit
    out = []
    for name, statistic in definitions.items():
        for column in rows.columns:
            values = rows[column].to_numpy(dtype=float)
            value = float(statistic(values[None, :])[0])
            low, high = attainable_range(values, statistic, input_half)
            target = float(printed[column])
            out.append({
                "definition": name, "column": column, "recomputed": value, "printed": target,
                "rounds_to_printed": abs(value - target) <= printed_half + tolerance,
                "reached_within_input_rounding": low <= target + printed_half + tolerance
                and high >= target - printed_half - tolerance,
            })
    return pd.DataFrame(out)


def _log(v: float) -> float:
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def log(values) -> np.ndarray:
    """np.log with the same bits on every machine. numpy takes the vector path the CPU offers, and its AVX-512
    log and exp differ from its AVX2 ones in the last bit: a ratio on a page, and the download name hashed
    from it, moved between two machines (issue 37). The C library's log, a value at a time, does not."""
    x = np.asarray(values, dtype=float)
    return np.fromiter(map(_log, x.ravel()), float, x.size).reshape(x.shape)


def exp(values) -> np.ndarray:
    """np.exp with the same bits on every machine (see `log`)."""
    x = np.asarray(values, dtype=float)
    return np.fromiter(map(_exp, x.ravel()), float, x.size).reshape(x.shape)


POWER = 0.8  # of the two-sided t-test, for the repetitions that would decide a comparison


def ratio_row(sample, baseline, confidence: float = 0.95) -> dict[str, float]:
    """Two independent groups of a positive quantity (rates, latencies, CPU per GiB) compared on the log
    scale: `ratio` = geometric mean of `sample` / that of `baseline`; `low`, `high` = Welch's t interval of
    the difference of the log means, taken back (positive); `p` = Welch's two-sided p on the logs; `n`,
    `n_baseline`; `sd_log` = the two sides' spread of the log values (root of the mean of their variances),
    which sets the repetitions that would decide. Interval, p and sd_log are NaN with fewer than two values
    on a side, or when neither side varies."""
    a, b = log(sample), log(baseline)
    row = {"n": len(a), "n_baseline": len(b), "ratio": _exp(a.mean() - b.mean()),
           "low": np.nan, "high": np.nan, "p": np.nan, "sd_log": np.nan}
    if min(len(a), len(b)) < 2 or (a.var() == 0 and b.var() == 0):
        return row
    with warnings.catch_warnings():
        if a.var() == 0 or b.var() == 0:  # a side of identical values (fio's bucketed percentiles): no spread, and
            # scipy's rounding of its mean is no precision lost from data
            warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        test = stats.ttest_ind(a, b, equal_var=False)
    ci = test.confidence_interval(confidence)
    return row | {"low": _exp(ci.low), "high": _exp(ci.high), "p": float(test.pvalue),
                  "sd_log": float(np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2))}


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values of tests read together (the family-wise error stays below the
    level each adjusted p is compared with); NaN p-values stay NaN and do not count as tests."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    steps = (len(order) - np.arange(len(order))) * p[order]
    adjusted[order] = np.minimum(1, np.maximum.accumulate(steps))
    return adjusted


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini and Hochberg's false-discovery-rate adjusted p-values (q) of tests read together
    (scipy.stats.false_discovery_control); NaN p-values stay NaN and do not count as tests. The rule of analyses the
    book sets its own beside (the IO500 archive paper's); the book's verdicts are Holm's (`holm`)."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    if tested.any():
        adjusted[tested] = stats.false_discovery_control(p[tested], method="bh")
    return adjusted


def n_per_side(log_ratio: float, sd_log: float, alpha: float = 0.05, power: float = POWER,
               max_n: int = 1000) -> int | None:
    """Repetitions per side at which a two-sided two-sample t-test at level `alpha` finds a ratio of
    exp(log_ratio) with probability `power` (noncentral t, scipy.stats.nct), given the spread sd_log of one
    repetition's log value (at least 2: the least a t-test can run on). None when no ratio or spread is known,
    or when more than max_n would be needed."""
    if not (np.isfinite(log_ratio) and np.isfinite(sd_log)) or log_ratio == 0 or sd_log <= 0:
        return None
    n = np.arange(2, max_n + 1)
    df = 2 * n - 2
    shift = abs(log_ratio) / (sd_log * np.sqrt(2 / n))
    critical = stats.t.ppf(1 - alpha / 2, df)
    reached = stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift) >= power
    return int(n[reached.argmax()]) if reached.any() else None
