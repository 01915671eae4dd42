"""The one place the book decides. Every chapter states what it measured as records of this module (a
census as a `Count`, a value as an `Estimate`, two groups or a group and a published figure as a
`Comparison`, two measures of the same units as a `Correlation`), and `decide` alone says which comparisons are
decided. The rules, written once (book/methods.md explains them to readers):

- a census (every run checked) is counted, never given an interval;
- a repetition is an independent unit: a run (its iterations, phases and ranks aggregated to it), a system
  (its repeat submissions counted once), or a round of one collector run; values nested in a unit are
  aggregated to it (`Observations.per_unit`) or resampled by it (`cluster_bootstrap`);
- values from different designs (collector runs, eras, models, releases) are never pooled: `Observations`
  refuses them, and the chapter compares within each design and shows the designs side by side;
- a comparison is decided when it has at least MIN_UNITS units a side (a published figure counts as exact) and
  its Holm-adjusted p, within the family of comparisons read together, is below 1 - CONFIDENCE; an undecided
  one says how many units a side would decide it at the ratio and spread observed.
Rates and ratios are compared on the log scale (geometric means, Welch's t), so every interval stays positive.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum

import numpy as np
import pandas as pd
from scipy import stats as sps

from . import stats
from .stats import holm, n_per_side, ratio_row

CONFIDENCE = 0.95  # every interval and test in the book
# Two units a side leave Welch's t 1-2 degrees of freedom and each side's spread resting on one difference,
# which one disturbed unit sets alone: three is the least that can decide.
MIN_UNITS = 3
# The fewest units a side from which a study's size is computed: a spread estimated from fewer is too uncertain to
# plan with (at 3 a side the sd's own 95 % interval spans about 0.5-6x it), so "n a side would decide it" is not said
MIN_UNITS_TO_SIZE = 5
CORRECTION = "Holm"  # within a family: the family-wise error stays below 1 - CONFIDENCE, whatever the tests' dependence
BOOTSTRAP_RESAMPLES = 9999
# A correlation's percentile-bootstrap interval from this many units on: on fewer, resamples repeat a unit so often
# that the interval spans most of -1 to 1 whatever the data (the IO500 archive's 5 machines per node: 0.11-1.00)
MIN_CORRELATION_UNITS = 10


class Replicate(StrEnum):
    """What one independent unit of a record is."""
    CENSUS = "census"  # every run checked: counted, never an interval
    RUN = "run"  # one invocation; its iterations, phases and ranks are aggregated to it
    SYSTEM = "system"  # institution + system + file system; its repeat submissions count once
    MACHINE = "machine"  # one installation whatever its labels (iobook.database.setups: LRZ's four SuperMUC-NG-Phase2 names)
    ROUND = "round"  # one repetition inside one collector run
    PUBLISHED = "published figure"  # a number printed on a slide: no spread, no n
    POINT = "sweep point"  # one x of a sweep, its runs its own: the points of one sweep are independent of each other


class Verdict(StrEnum):
    DECIDED = "decided"
    UNDECIDED = "undecided"  # enough units, but the adjusted p is not below the level
    TOO_FEW = "too few units"  # fewer than MIN_UNITS on a side
    NO_SPREAD = "no spread"  # no unit-to-unit variation to test against (one value a side, or identical values)


class MixedDesigns(ValueError):
    """Values of more than one design were given as one group: they are compared within each design."""


def plural(n: int, noun: str) -> str:
    """'1 run', '2 runs', '1,075 files', '2 processes': a count with its noun in the right number."""
    return f"{n:,} {noun}" + ("" if n == 1 else ("es" if noun.endswith("s") else "s"))


def geometric_mean(values) -> float:
    """exp(mean(log x)) of positive values; NaN when there are none or one is not positive."""
    x = np.asarray(values, dtype=float)
    # scipy's gmean, written out without its ~0.3 ms of array-API dispatch per call (Your runs pays it thousands
    # of times), and with log and exp of the same bits on every machine
    return float(stats.exp(stats.log(x).mean())) if len(x) and (x > 0).all() else float("nan")


@dataclass(frozen=True, kw_only=True)
class Observations:
    """Positive values with the independent unit each belongs to (a run id: its iterations share it) and the
    design each came from (a collector run, an era, a model, a release). None: each value is its own unit /
    one design."""
    values: Sequence[float]
    units: Sequence[Hashable] | None = None
    designs: Sequence[Hashable] | None = None

    def per_unit(self) -> np.ndarray:
        """One value per unit, the geometric mean of its values, in order of first appearance. Raises
        MixedDesigns when the values span more than one design."""
        values = np.asarray(self.values, dtype=float)
        if self.designs is not None and len(set(self.designs)) > 1:
            raise MixedDesigns(f"values of {len(set(self.designs))} designs ({sorted(map(str, set(self.designs)))}) "
                               "are not pooled: compare within each design")
        if self.units is None:
            return values
        if len(set(self.units)) == len(self.units):  # one value a unit (most runs): its own geometric mean
            return values
        frame = pd.DataFrame({"unit": list(self.units), "log": stats.log(values)})
        return stats.exp(frame.groupby("unit", sort=False)["log"].mean().to_numpy())


def _per_unit(values) -> np.ndarray:
    return values.per_unit() if isinstance(values, Observations) else np.asarray(values, dtype=float)


@dataclass(frozen=True, kw_only=True)
class Count:
    """A census: k of the n units checked have the property. Deterministic: no interval."""
    quantity: str
    k: int
    n: int
    of: Replicate = Replicate.RUN

    @property
    def share(self) -> float:
        return self.k / self.n if self.n else float("nan")


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """A value over n units with its interval at CONFIDENCE (None, with the reason, when there is none)."""
    quantity: str
    unit: str
    value: float
    low: float | None
    high: float | None
    n: int
    replicate: Replicate
    method: str
    no_interval: str | None = None


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """`label` against `baseline_label` (or against a published `reference`): the ratio of geometric means with
    its interval; `p` before, `p_adjusted` after the family's correction; verdict and n_to_decide set by
    `decide` only."""
    quantity: str
    unit: str
    label: str
    baseline_label: str
    ratio: float
    low: float | None
    high: float | None
    p: float | None
    n: int
    n_baseline: int  # 0 against a published figure
    replicate: Replicate
    family: str
    sd_log: float | None
    reference: float | None = None
    p_adjusted: float | None = None
    family_size: int = 0
    decided: bool = False
    verdict: Verdict | None = None
    n_to_decide: int | None = None


@dataclass(frozen=True, kw_only=True)
class Correlation:
    """Two measures of the same units (`x`, `y`): a rank (Spearman) or linear (Pearson) correlation with its
    percentile bootstrap interval over the units, and the test of no association; verdict set by `decide` only.
    `reference`, `n_baseline` and `sd_log` are what `decide` reads of any record: tested against 0, one group,
    no size computed (a correlation's sample size is not the ratio's)."""
    quantity: str
    x: str
    y: str
    method: str  # "Spearman" or "Pearson"
    value: float
    low: float | None
    high: float | None
    p: float | None
    n: int
    replicate: Replicate
    family: str
    reference: float = 0.0
    n_baseline: int = 0
    sd_log: None = None
    p_adjusted: float | None = None
    family_size: int = 0
    decided: bool = False
    verdict: Verdict | None = None
    n_to_decide: int | None = None


# Up to this many units a correlation's p enumerates every order (7! = 5,040 of them); from 8 (40,320) the t
# distribution of r, which is close to the exact one there
EXACT_PERMUTATION_UNITS = 7


def _rank_rows(values: np.ndarray) -> np.ndarray:
    return sps.rankdata(values, axis=-1)


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row pair (the bootstrap's resamples as rows)."""
    dx, dy = x - x.mean(axis=-1, keepdims=True), y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # a resample of one repeated unit has no spread: NaN
        return (dx * dy).sum(axis=-1) / np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))


def correlate(x, y, *, quantity: str, x_name: str, y_name: str, method: str, replicate: Replicate, family: str,
              seed: int = 0) -> Correlation:
    """`x` and `y`: one value each per independent unit, paired. The interval resamples whole units (percentile
    bootstrap); the p tests no association: exactly, over every order, up to EXACT_PERMUTATION_UNITS units (the t
    approximation gives 3 units in the same order p = 0), by the t distribution of r from there (a random
    permutation test's p moved a Holm verdict at 0.05 with its seed). Spearman's rs is Pearson's r of the ranks.
    No interval on fewer than MIN_CORRELATION_UNITS units; nothing without spread."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if method == "Spearman":
        x, y = _rank_rows(x), _rank_rows(y)
    n = len(x)
    value = low = high = p = None
    if n >= 2 and x.std() > 0 and y.std() > 0:
        if n <= EXACT_PERMUTATION_UNITS:  # every order of one measure against the other: exact, no randomness
            # one sample permuted against the other fixed: its n! orders are every pairing (both samples permuted,
            # scipy's (n!)^2, give each pairing n! times: the same p, and 68 s at 7 units)
            test = sps.permutation_test((x,), lambda a, axis=-1: _pearson_rows(a, y),
                                        permutation_type="pairings", vectorized=True, n_resamples=np.inf)
        else:  # the t distribution of r (of the ranks: scipy.stats.spearmanr's p)
            test = sps.pearsonr(x, y)
        value, p = float(test.statistic), float(test.pvalue)
        if n >= MIN_CORRELATION_UNITS:
            # the percentile bootstrap over units, by hand: scipy.stats.bootstrap has no way to leave out the
            # resamples that draw one unit only (no spread, no correlation), which make its interval NaN
            picks = np.random.default_rng(seed).integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))
            a, b = x[picks], y[picks]
            if method == "Spearman":  # a resample's ranks are ranked again: its ties are its own
                a, b = _rank_rows(a), _rank_rows(b)
            resampled = _pearson_rows(a, b)
            resampled = resampled[np.isfinite(resampled)]
            tail = (1 - CONFIDENCE) / 2 * 100
            low, high = (float(v) for v in np.percentile(resampled, [tail, 100 - tail]))
    return Correlation(quantity=quantity, x=x_name, y=y_name, method=method,
                       value=float("nan") if value is None else value, low=low, high=high, p=_finite(p), n=n,
                       replicate=replicate, family=family)


def _finite(x) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def estimate(values, *, quantity: str, unit: str, replicate: Replicate, log: bool = True) -> Estimate:
    """The mean of independent units with Student's t interval; `log` (rates, times, sizes): the geometric mean
    and the interval of the log values taken back, which stays positive."""
    x = _per_unit(values)
    method = "geometric mean, t interval of the logs" if log else "mean, t interval"
    if log:
        if len(x) and (x <= 0).any():
            raise ValueError(f"{quantity}: a log-scale estimate needs positive values")
        x = stats.log(x)
    back = stats.exp if log else float
    value = float(back(x.mean())) if len(x) else float("nan")
    reason = ("one unit" if len(x) == 1 else "no units") if len(x) < 2 else (
        "no spread between units" if x.std() == 0 else None)
    if reason:
        return Estimate(quantity=quantity, unit=unit, value=value, low=None, high=None, n=len(x),
                        replicate=replicate, method=method, no_interval=reason)
    low, high = sps.t.interval(CONFIDENCE, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    return Estimate(quantity=quantity, unit=unit, value=value, low=float(back(low)), high=float(back(high)),
                    n=len(x), replicate=replicate, method=method)


def described(value: float, *, quantity: str, unit: str, n: int, replicate: Replicate, how: str) -> Estimate:
    """A number a finding states that is no estimate of a population: a figure a slide prints (Replicate.PUBLISHED),
    one run's own value, the range over a few runs; `how` says what it is, and why it has no interval."""
    return Estimate(quantity=quantity, unit=unit, value=float(value), low=None, high=None, n=int(n),
                    replicate=replicate, method=how, no_interval=how)


def count(k: int, n: int, *, quantity: str, of: Replicate = Replicate.RUN) -> Count:
    return Count(quantity=quantity, k=int(k), n=int(n), of=of)


def compare(sample, baseline, *, quantity: str, unit: str, replicate: Replicate, family: str, label: str = "",
            baseline_label: str = "", selection_p: float | None = None) -> Comparison:
    """Two independent groups of a positive quantity: the ratio of their geometric means with Welch's t
    interval and p on the log values. `sample`, `baseline`: one value per unit, or Observations.
    `selection_p`: where the groups were chosen by looking at the values, the p of the test that knows it (History's
    permutation test of a change point: the split is the best of many, which a t test of its sides ignores). The
    comparison must pass both tests, so its p is the larger (an intersection-union test)."""
    r = ratio_row(_per_unit(sample), _per_unit(baseline), CONFIDENCE)
    p = r["p"] if selection_p is None or not np.isfinite(r["p"]) else max(r["p"], selection_p)
    return Comparison(quantity=quantity, unit=unit, label=label, baseline_label=baseline_label, ratio=r["ratio"],
                      low=_finite(r["low"]), high=_finite(r["high"]), p=_finite(p), n=r["n"],
                      n_baseline=r["n_baseline"], replicate=replicate, family=family, sd_log=_finite(r["sd_log"]))


def compare_to_reference(sample, reference: float, *, quantity: str, unit: str, replicate: Replicate, family: str,
                         label: str = "", reference_label: str = "") -> Comparison:
    """A group against a published figure taken as exact: the ratio of its geometric mean to `reference`, with
    the one-sample t interval and p of the log values against log(reference)."""
    logs = stats.log(_per_unit(sample)) - math.log(reference)
    ratio = float(stats.exp(logs.mean())) if len(logs) else float("nan")
    low = high = p = sd = None
    if len(logs) >= 2 and logs.std() > 0:
        test = sps.ttest_1samp(logs, 0.0)
        ci = test.confidence_interval(CONFIDENCE)
        low, high, p, sd = float(stats.exp(ci.low)), float(stats.exp(ci.high)), float(test.pvalue), float(logs.std(ddof=1))
    return Comparison(quantity=quantity, unit=unit, label=label, baseline_label=reference_label, ratio=ratio, low=low,
                      high=high, p=p, n=len(logs), n_baseline=0, replicate=replicate, family=family, sd_log=sd,
                      reference=float(reference))


def _units_to_decide(c: Comparison, alpha: float) -> int | None:
    """Units a side (or in the sample, against a published figure) at which the test at `alpha` would find the
    observed ratio with power stats.POWER, given the observed spread of one unit's log value; never fewer than
    MIN_UNITS, the least that decides; None from fewer than MIN_UNITS_TO_SIZE units a side."""
    if c.sd_log is None or not np.isfinite(c.ratio) or c.ratio <= 0:
        return None
    if min(c.n, c.n if c.reference is not None else c.n_baseline) < MIN_UNITS_TO_SIZE:
        return None
    # one sample: the two-sample size with the spread shared by sqrt(2) (one side exact) is the same design
    spread = c.sd_log if c.reference is None else c.sd_log / np.sqrt(2)
    n = n_per_side(math.log(c.ratio), spread, alpha)
    return None if n is None else max(n, MIN_UNITS)


def decide(comparisons: Iterable[Comparison | Correlation]) -> list[Comparison | Correlation]:
    """THE verdict rule of the book: Holm's correction within each family; decided when both sides have at
    least MIN_UNITS units (the sample alone against a published figure) and the adjusted p is below
    1 - CONFIDENCE. Every other comparison gets the units a side that would decide it at the level its share
    of the family gets (Bonferroni), or None when no spread is known."""
    items = list(comparisons)
    alpha = 1 - CONFIDENCE
    out: list[Comparison] = list(items)
    for family in dict.fromkeys(c.family for c in items):
        index = [i for i, c in enumerate(items) if c.family == family]
        p = [np.nan if items[i].p is None else items[i].p for i in index]
        adjusted = holm(p)
        size = int(np.isfinite(p).sum())
        for i, q in zip(index, adjusted):
            c = items[i]
            enough = c.n >= MIN_UNITS and (c.reference is not None or c.n_baseline >= MIN_UNITS)
            # two units always lie on a line: a correlation needs MIN_UNITS before its lack of spread says anything
            least = MIN_UNITS if isinstance(c, Correlation) else 2
            if c.p is None:
                verdict = Verdict.NO_SPREAD if min(c.n, c.n_baseline or c.n) >= least else Verdict.TOO_FEW
            elif not enough:
                verdict = Verdict.TOO_FEW
            else:
                verdict = Verdict.DECIDED if q < alpha else Verdict.UNDECIDED
            decided = verdict is Verdict.DECIDED
            out[i] = replace(c, p_adjusted=_finite(q), family_size=size, decided=decided, verdict=verdict,
                             n_to_decide=None if decided else _units_to_decide(c, alpha / max(size, 1)))
    return out


def decide_groups(*groups: Iterable[Comparison | Correlation]) -> list[list[Comparison | Correlation]]:
    """Every record of the groups through one `decide` (a report decides once, so no family is corrected in parts;
    each record's `family` keeps families apart), given back group by group."""
    groups = [list(g) for g in groups]
    decided = iter(decide([r for g in groups for r in g]))
    return [[next(decided) for _ in g] for g in groups]


def examples(frame: pd.DataFrame, flags: str = "validity_flags") -> pd.DataFrame:
    """The rows an example, a "worst" or a "best" run may be picked from: those without a validity flag (column
    `flags`, a flagged run's codes); every row where all are flagged, and then the finding names the flag
    (flag_note)."""
    clean = frame[frame[flags].isna()]
    return clean if len(clean) else frame


def flag_note(row: pd.Series, flags: str = "validity_flags") -> str:
    """' (flagged: CHANGED_DURING_RUN)' for an example picked from flagged runs only (examples), else ''."""
    return f" (flagged: {row[flags]})" if pd.notna(row.get(flags)) else ""


def reanalysis(taken, published, *, selection: str, publication: str) -> str:
    """What a chapter that redoes a publication's analysis may call it (issue 46): 'reproduces <publication>' only
    where its selection is the publication's (`taken` == `published`: what identifies each selection, e.g. its lists
    and how many submissions), else 're-analysis on <selection>' (`selection` says what was taken, against what the
    publication took): numbers from another selection are no test of the publication's."""
    return f"reproduces {publication}" if taken == published else f"re-analysis on {selection}"


def as_shown(record: Count | Estimate | Comparison | Correlation) -> Count | Estimate | Comparison | Correlation:
    """A record as the book shows it: where fewer than MIN_UNITS units stand behind it (a comparison `decide`
    found to have too few units, an estimate over fewer), the data cannot tell, and its interval (on one or
    two values a side, often orders of magnitude wide) and its p, before and after correction, are withheld; any
    other record as it is."""
    if isinstance(record, (Comparison, Correlation)) and record.verdict == Verdict.TOO_FEW:
        return replace(record, low=None, high=None, p=None, p_adjusted=None)
    if isinstance(record, Estimate) and record.n < MIN_UNITS and record.low is not None:
        return replace(record, low=None, high=None, no_interval=f"fewer than {MIN_UNITS} units")
    return record


def cluster_bootstrap(values, clusters, statistic: Callable[[np.ndarray], float], *,
                      seed: int = 0) -> tuple[float, float]:
    """Percentile interval at CONFIDENCE of `statistic` over `values` when values nested in one cluster (the
    phases of a run) are not independent: whole clusters are resampled with replacement (scipy.stats.bootstrap
    over the cluster labels). NaN bounds with fewer than two clusters."""
    frame = pd.DataFrame({"cluster": list(clusters), "value": np.asarray(values, dtype=float)})
    groups = [g.to_numpy() for _, g in frame.groupby("cluster", sort=True)["value"]]
    if len(groups) < 2:
        return float("nan"), float("nan")

    def resampled(picks: np.ndarray) -> float:
        return statistic(np.concatenate([groups[int(i)] for i in picks]))

    boot = sps.bootstrap((np.arange(len(groups)),), resampled, vectorized=False, n_resamples=BOOTSTRAP_RESAMPLES,
                         confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(seed))
    return float(boot.confidence_interval.low), float(boot.confidence_interval.high)


def number(x: float | None) -> str:
    """A measured value or ratio as the book prints one, in sentences and tables alike: three significant digits
    (0.0123, 45.7), whole from 100 on with thousands separated (1,234; '.3g' printed it '1.23e+03', and 999.7
    '1e+03'), '–' for none or a non-finite one. (present.significant rounds every magnitude to its digits instead:
    11,336 to four is 11,340, which a table of IO500 scores asks for; this keeps a whole number's every digit.)"""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _interval(low: float | None, high: float | None) -> str:
    return f"{CONFIDENCE:.0%} interval {number(low)}–{number(high)}"


def _units(n: int, replicate: Replicate) -> str:
    """n with the noun of its unit; a census counts whatever its quantity names, so it has none."""
    if replicate is Replicate.CENSUS:
        return f"{n:,}"
    noun = {Replicate.RUN: "run", Replicate.SYSTEM: "system", Replicate.MACHINE: "machine", Replicate.ROUND: "round",
            Replicate.PUBLISHED: "figure", Replicate.POINT: "point"}[replicate]
    return plural(n, noun)


def phrase(record: Count | Estimate | Comparison | Correlation) -> str:
    """The one way a record reads in a sentence, as shown (as_shown: no interval on fewer than MIN_UNITS)."""
    record = as_shown(record)
    if isinstance(record, Count):
        return f"{record.k:,} of {_units(record.n, record.of)} ({record.share:.1%})"
    if isinstance(record, Estimate):
        unit = f" {record.unit}" if record.unit else ""
        units = _units(record.n, record.replicate)
        if record.low is not None:
            return f"{number(record.value)}{unit} ({_interval(record.low, record.high)}; {units})"
        if record.n < MIN_UNITS:  # the methods page says why: too few units for any interval
            return f"{number(record.value)}{unit} (no interval on {units})"
        return f"{number(record.value)}{unit} (no interval: {record.no_interval}; {units})"
    if isinstance(record, Correlation):
        name = {"Spearman": "rs", "Pearson": "r"}[record.method]
        interval = (f"{CONFIDENCE:.0%} interval {record.low:.2f}–{record.high:.2f}" if record.low is not None
                    else f"no interval below {MIN_CORRELATION_UNITS} units" if record.n < MIN_CORRELATION_UNITS
                    else "no interval")
        verdict = record.verdict or "not yet decided"
        return f"{name} = {record.value:.2f} ({interval}; {_units(record.n, record.replicate)}; {verdict})"
    c = record
    interval = _interval(c.low, c.high) if c.low is not None else "no interval"
    sides = (f"{_units(c.n, c.replicate)} against {c.baseline_label or 'the published figure'}"
             if c.reference is not None else f"{_units(c.n, c.replicate)} vs {c.n_baseline:,}")
    verdict = str(c.verdict) if c.verdict else "not yet decided"
    if c.verdict is not None and not c.decided:
        verdict += (f"; {c.n_to_decide:,} a side would decide it" if c.n_to_decide
                    else "; no n can be sized from these data")
    return f"{number(c.ratio)}× ({interval}; {sides}; {verdict})"


def phrases(labelled: Sequence[tuple[str, Count | Estimate | Comparison | Correlation]], joiner: str = "; ") -> str:
    """Several records in one sentence, each qualifier said once (issue 50): each as '<label> <value>' with what
    only it has in brackets, then what all share once, '(each: ...)'. 'sha256 0.06× (1 round vs 6); crc32 0.5×
    (1 round vs 4) (each: no interval; too few units)'. One record reads as phrase does."""
    if len(labelled) == 1:
        label, record = labelled[0]
        return f"{label} {phrase(record)}".strip()
    split = []
    for label, record in labelled:
        text = phrase(record)
        head, _, tail = text.partition(" (")
        split.append((label, head, tail.removesuffix(")").split("; ") if tail else []))
    common = [part for part in split[0][2] if all(part in parts for _, _, parts in split[1:])]
    items = []
    for label, head, parts in split:
        own = [part for part in parts if part not in common]
        items.append(f"{label} {head}".strip() + (f" ({'; '.join(own)})" if own else ""))
    return joiner.join(items) + (f" (each: {'; '.join(common)})" if common else "")


def frame(records: Iterable[Count | Estimate | Comparison]) -> pd.DataFrame:
    """Records as a table, one row each, their fields as columns (enums as their text)."""
    rows = [{k: (str(v) if isinstance(v, StrEnum) else v) for k, v in asdict(r).items()} for r in records]
    return pd.DataFrame(rows)
