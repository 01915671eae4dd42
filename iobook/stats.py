"""Statistics the chapters share: means of repetitions with t intervals (on the log scale for rates, so that
they stay positive), a ratio of two groups with its interval and Welch's test on the log scale (from their
values, or from their means and sds by the delta method), Holm's
correction when several comparisons are read together, when a comparison counts as decided and the
repetitions per side that would decide one that is not, a share's exact interval, one value set against the
spread of others, and checks that a published summary row (a standard deviation, a percentage) can be
recomputed from the printed rows it summarises, and under which definition."""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

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


# A comparison is decided only with at least this many repetitions on each side: with two, Welch's degrees of
# freedom fall to 1-2 and each side's spread rests on a single difference, which one disturbed repetition
# (a step run under other tenants' load) sets alone.
MIN_REPETITIONS = 3
POWER = 0.8  # of the two-sided t-test, for the repetitions that would decide a comparison


@dataclass(frozen=True, kw_only=True)
class MeanInterval:
    n: int
    mean: float  # arithmetic, or geometric on the log scale
    low: float  # Student's t interval at the requested confidence; NaN with fewer than 2 values
    high: float


def mean_interval(values, confidence: float = 0.95, log: bool = False) -> MeanInterval:
    """Mean of repetitions with its t interval (scipy.stats.t, standard error of the sample). `log`: for
    rates and other positive quantities, the geometric mean and the t interval of the log values taken
    back, which stays positive; NaN when a value is not positive (no log scale for it)."""
    x = np.asarray(values, dtype=float)
    if log:
        if len(x) and (x <= 0).any():
            return MeanInterval(n=len(x), mean=float("nan"), low=float("nan"), high=float("nan"))
        m = mean_interval(np.log(x), confidence)
        return MeanInterval(n=m.n, mean=float(np.exp(m.mean)), low=float(np.exp(m.low)), high=float(np.exp(m.high)))
    mean = float(x.mean()) if len(x) else float("nan")
    if len(x) < 2:
        return MeanInterval(n=len(x), mean=mean, low=float("nan"), high=float("nan"))
    sem = float(stats.sem(x))
    if sem == 0:
        return MeanInterval(n=len(x), mean=mean, low=mean, high=mean)
    low, high = stats.t.interval(confidence, len(x) - 1, loc=mean, scale=sem)
    return MeanInterval(n=len(x), mean=mean, low=float(low), high=float(high))


def intervals(df: pd.DataFrame, by: list[str], measures: dict[str, str], confidence: float = 0.95,
              log: bool = False) -> pd.DataFrame:
    """Per group of `by` and measure (`measures`: column -> name shown), the mean over the rows (the
    repetitions) with its t interval (mean_interval; `log`: geometric mean, interval on the log scale):
    long format, one row per group and measure with repetitions, mean, low, high (NaN with one repetition)."""
    rows = []
    for keys, part in df.groupby(by, sort=True):
        for column, name in measures.items():
            m = mean_interval(part[column].dropna(), confidence, log)
            rows.append({**dict(zip(by, keys)), "measure": name, "repetitions": m.n, "mean": m.mean,
                         "low": m.low, "high": m.high})
    return pd.DataFrame(rows, columns=[*by, "measure", "repetitions", "mean", "low", "high"])


# The columns of a comparison (ratio_row), the frame add_verdicts works on.
RATIO_COLUMNS = ["n", "n_baseline", "ratio", "low", "high", "p", "sd_log"]


def ratio_row(sample, baseline, confidence: float = 0.95, equal_var: bool = False) -> dict[str, float]:
    """Two independent groups of a positive quantity (rates, latencies, CPU per GiB) compared on the log
    scale: `ratio` = geometric mean of `sample` / that of `baseline`; `low`, `high` = Welch's t interval of
    the difference of the log means, taken back (positive); `p` = Welch's two-sided p on the logs; `n`,
    `n_baseline`; `sd_log` = the two sides' spread of the log values (root of the mean of their variances),
    which sets the repetitions that would decide. Interval, p and sd_log are NaN with fewer than two values
    on a side, or when neither side varies. `equal_var`: Student's pooled t instead of Welch's (sd_log the
    pooled spread), which also works with ONE value on a side: its spread is then the other side's, and the
    test is that of one more draw against the others (a check measured once against its repetitions)."""
    a, b = np.log(np.asarray(sample, dtype=float)), np.log(np.asarray(baseline, dtype=float))
    row = {"n": len(a), "n_baseline": len(b), "ratio": float(np.exp(a.mean() - b.mean())),
           "low": np.nan, "high": np.nan, "p": np.nan, "sd_log": np.nan}
    enough = min(len(a), len(b)) >= 1 and len(a) + len(b) >= 3 if equal_var else min(len(a), len(b)) >= 2
    if not enough or (a.var() == 0 and b.var() == 0):
        return row
    test = stats.ttest_ind(a, b, equal_var=equal_var)
    ci = test.confidence_interval(confidence)
    squares = [(len(x) - 1) * x.var(ddof=1) for x in (a, b) if len(x) > 1]
    sd_log = (np.sqrt(sum(squares) / (len(a) + len(b) - 2)) if equal_var
              else np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / 2))
    return row | {"low": float(np.exp(ci.low)), "high": float(np.exp(ci.high)), "p": float(test.pvalue),
                  "sd_log": float(sd_log)}


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


def n_per_side(log_ratio: float, sd_log: float, alpha: float = 0.05, power: float = POWER,
               max_n: int = 1000) -> int | None:
    """Repetitions per side at which a two-sided two-sample t-test at level `alpha` finds a ratio of
    exp(log_ratio) with probability `power` (noncentral t, scipy.stats.nct), given the spread sd_log of one
    repetition's log value; never fewer than MIN_REPETITIONS. None when no ratio or spread is known, or
    when more than max_n would be needed."""
    if not (np.isfinite(log_ratio) and np.isfinite(sd_log)) or log_ratio == 0 or sd_log <= 0:
        return None
    n = np.arange(2, max_n + 1)
    df = 2 * n - 2
    shift = abs(log_ratio) / (sd_log * np.sqrt(2 / n))
    critical = stats.t.ppf(1 - alpha / 2, df)
    reached = stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift) >= power
    return max(int(n[reached.argmax()]), MIN_REPETITIONS) if reached.any() else None


def add_verdicts(comparisons: pd.DataFrame, confidence: float = 0.95, family: list[str] | None = None,
                 min_sample: int = MIN_REPETITIONS) -> pd.DataFrame:
    """Comparisons (RATIO_COLUMNS) read together, with `p_holm` (Holm within each group of `family`, the
    whole frame when None), `family_size`, `repetitions_enough`, `decided` (at least MIN_REPETITIONS a side and
    p_holm below 1 - confidence;
    `min_sample` on the sample's side instead, for a check measured once against the baseline's
    repetitions, whose spread ratio_row(equal_var=True) takes from them),
    and for the others `n_to_decide`: the repetitions per side that would decide at the observed ratio and
    spread, at the level a Bonferroni share of the family gets (n_per_side)."""
    alpha = 1 - confidence
    out = comparisons.copy()
    groups = [part.index for _, part in out.groupby(family, sort=False)] if family else [out.index]
    out["p_holm"] = np.nan
    out["family_size"] = 0
    for index in groups:
        out.loc[index, "p_holm"] = holm(out.loc[index, "p"])
        out.loc[index, "family_size"] = int(out.loc[index, "p"].notna().sum())
    out["repetitions_enough"] = (out["n"] >= min_sample) & (out["n_baseline"] >= MIN_REPETITIONS)
    out["decided"] = out["repetitions_enough"] & (out["p_holm"] < alpha)
    out["n_to_decide"] = [
        None if decided else n_per_side(np.log(r), sd, alpha / max(size, 1))
        for decided, r, sd, size in zip(out["decided"], out["ratio"], out["sd_log"], out["family_size"])]
    out["n_to_decide"] = out["n_to_decide"].astype("Int64")
    return out


def proportion_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson (exact) interval of the share k/n (scipy.stats.binomtest): within 0 and 1."""
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    return float(ci.low), float(ci.high)


@dataclass(frozen=True, kw_only=True)
class AgainstSpread:
    """One value (e.g. the no-snapshot run) against n others taken as repetitions of one condition."""
    mean: float  # of the others
    sd: float  # sample standard deviation of the others
    n: int
    z: float  # (value - mean) / sd
    p_one_sample: float  # t-test of the others' mean against value, taking value as exact
    p_new_observation: float  # value as one more draw from the others' distribution (prediction t)


def value_against_spread(value: float, others) -> AgainstSpread:
    others = np.asarray(others, dtype=float)
    n, mean, sd = len(others), float(others.mean()), float(others.std(ddof=1))
    one_sample = stats.ttest_1samp(others, value)
    # value has its own run-to-run noise, assumed equal to the others': se = sd * sqrt(1 + 1/n), df = n - 1
    t_new = (value - mean) / (sd * np.sqrt(1 + 1 / n))
    return AgainstSpread(mean=mean, sd=sd, n=n, z=float((value - mean) / sd), p_one_sample=float(one_sample.pvalue),
                         p_new_observation=float(2 * stats.t.sf(abs(t_new), n - 1)))
