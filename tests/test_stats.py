"""iobook.inference.stats' ratios, Holm's correction and the repetitions that would decide (under iobook.inference.evidence), on
values read from the committed collector runs (data/raw) and seed 003's published table."""
import json

import numpy as np
import pytest
from conftest import REPO
from scipy import stats as sps

from iobook.inference import evidence, stats
from iobook.studies import snapshots

RAW = REPO / "data" / "raw"


def fio_bw(path, direction: str) -> float:
    """fio's bandwidth of the file's one job in `direction`, MiB/s, read from its JSON output."""
    return json.loads(path.read_text())["jobs"][0][direction]["bw_bytes"] / 2**20


def test_log_interval_of_a_rate_stays_positive():
    # direct io_uring reads at depth 64, three repetitions (the chapter once printed "2,836 (-476-6,148) MiB/s":
    # an arithmetic t interval)
    run = RAW / "pagecache" / "vm-20261123T160557Z"
    bw = [fio_bw(p, "read") for p in sorted(run.glob("*-read-direct-io_uring-qd64-r*.fio.json"))]
    assert len(bw) == 3
    assert round(np.mean(bw)) == 2836
    assert sps.t.interval(0.95, 2, loc=np.mean(bw), scale=sps.sem(bw))[0] < 0  # the arithmetic interval's low end
    log = evidence.estimate(bw, quantity="read bandwidth", unit="MiB/s", replicate=evidence.Replicate.ROUND)
    assert 0 < log.low < log.value < log.high and log.n == 3
    assert log.value == pytest.approx(np.exp(np.mean(np.log(bw))))  # the geometric mean
    low, high = np.exp(sps.t.interval(0.95, 2, loc=np.mean(np.log(bw)), scale=sps.sem(np.log(bw))))
    assert (log.low, log.high) == pytest.approx((low, high))
    with pytest.raises(ValueError):  # no log scale for a zero
        evidence.estimate([0.0, 1.0], quantity="x", unit="", replicate=evidence.Replicate.RUN)


def test_ratio_on_the_log_scale_with_welch():
    run = RAW / "checksum" / "vm-20261121T131428Z"
    sha = [fio_bw(run / f"{s}.fio.json", "write") for s in ("011-write-sha256-direct-r1", "035-write-sha256-direct-r2")]
    none = [fio_bw(run / f"{s}.fio.json", "write") for s in ("001-write-none-direct-r1", "025-write-none-direct-r2")]
    row = stats.ratio_row(sha, none)
    assert row["ratio"] == pytest.approx(np.sqrt(sha[0] * sha[1] / (none[0] * none[1])))
    welch = sps.ttest_ind(np.log(sha), np.log(none), equal_var=False)
    assert row["p"] == pytest.approx(welch.pvalue)
    assert 0 < row["low"] < row["ratio"] < row["high"] < 1
    assert (row["n"], row["n_baseline"]) == (2, 2)
    one = stats.ratio_row(sha[:1], none)
    assert np.isnan(one["low"]) and np.isnan(one["p"]) and one["ratio"] == pytest.approx(sha[0] / np.sqrt(none[0] * none[1]))
    # two repetitions a side are never decided, whatever the interval: the minimum is three
    [verdict] = evidence.decide([evidence.compare(sha, none, quantity="write bandwidth", unit="MiB/s",
                                                  replicate=evidence.Replicate.ROUND, family="sha256")])
    assert verdict.verdict is evidence.Verdict.TOO_FEW
    assert verdict.n_to_decide is None  # 2 a side: too few to size a study from (evidence.MIN_UNITS_TO_SIZE)


def test_holm_on_the_talks_nine_columns():
    # each column's "No snapshot" value against its seven snapshot rows taken as repeats: the prediction t
    # test of one more draw (se = sd * sqrt(1 + 1/n), n - 1 degrees of freedom)
    states = snapshots.seed_wide(snapshots.get_seed_table()).drop(index=list(snapshots.SUMMARY_ROWS))

    def p_new_draw(value, others):
        t = (value - others.mean()) / (others.std(ddof=1) * np.sqrt(1 + 1 / len(others)))
        return 2 * sps.t.sf(abs(t), len(others) - 1)

    p = np.array([p_new_draw(states[c].iloc[0], states[c].iloc[1:]) for c in states.columns])
    adjusted = stats.holm(p)
    # Holm's definition, step by step: the k-th smallest p times (m - k + 1), never below an earlier one
    order, m, running = np.argsort(p), len(p), 0.0
    expected = np.empty(m)
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * p[i]))
        expected[i] = running
    assert adjusted == pytest.approx(expected)
    assert (p < 0.05).sum() == 5 and (adjusted < 0.05).sum() == 3
    with_nan = stats.holm(np.append(p, np.nan))
    assert np.isnan(with_nan[-1]) and with_nan[:-1] == pytest.approx(adjusted)  # a NaN is not a test


def test_benjamini_hochberg_on_its_papers_fifteen_tests():
    # Benjamini and Hochberg (1995), J. R. Stat. Soc. B 57(1), section 4.2: 15 p-values of a multiple-endpoint
    # trial; at 0.05 their procedure rejects four, Bonferroni-type rules three (Holm too: 0.0095 x 12 = 0.114)
    p = np.array([0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
                  0.6528, 0.7590, 1.000])
    assert (stats.benjamini_hochberg(p) < 0.05).sum() == 4 and (stats.holm(p) < 0.05).sum() == 3
    with_nan = stats.benjamini_hochberg(np.append(p, np.nan))
    assert np.isnan(with_nan[-1]) and with_nan[:-1] == pytest.approx(stats.benjamini_hochberg(p))


@pytest.mark.parametrize("d, n", [(0.5, 64), (0.8, 26), (1.0, 17)])
def test_repetitions_per_side_match_the_textbook(d, n):
    # two-sample t-test, two-sided alpha 0.05, power 0.8: Cohen's table (G*Power gives the same 64, 26, 17)
    assert stats.n_per_side(d, 1.0, 0.05, 0.8) == n


def test_repetitions_per_side_reach_the_power():
    n = stats.n_per_side(np.log(0.5), 0.3, 0.01)
    for k, reached in ((n, True), (n - 1, False)):
        df, shift = 2 * k - 2, abs(np.log(0.5)) / (0.3 * np.sqrt(2 / k))
        critical = sps.t.ppf(1 - 0.01 / 2, df)
        power = sps.nct.sf(critical, df, shift) + sps.nct.cdf(-critical, df, shift)
        assert (power >= 0.8) == reached
    assert stats.n_per_side(0.0, 0.3) is None and stats.n_per_side(0.1, float("nan")) is None
    assert stats.n_per_side(5.0, 0.01) == 2  # the least a t-test runs on; evidence.decide floors at MIN_UNITS


def test_a_side_of_identical_values_compares_without_a_warning():
    """fio prints completion-latency percentiles in buckets: the sweep example's tmpfs 4 KiB random reads at depth 1
    have p50 548 ns in all three runs (rep1-3.json, "50.000000" : 548), their p99 812, 788 and 764 ns. Against a side
    that varies, Welch's test rests on that side's spread; scipy warned of precision loss on the constant side's
    mean (the suite's one warning), which says nothing of such a side."""
    import warnings

    folder = REPO / "data/examples/sweep/tmpfs/fio-randread-bs4k-qd1"
    percentiles = [json.loads((folder / f"rep{i}.json").read_text())["jobs"][0]["read"]["clat_ns"]["percentile"]
                   for i in (1, 2, 3)]
    p50, p99 = [p["50.000000"] for p in percentiles], [p["99.000000"] for p in percentiles]
    assert (p50, p99) == ([548, 548, 548], [812, 788, 764])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = stats.ratio_row(p99, p50)
    assert 0 < row["low"] < row["ratio"] < row["high"] and row["p"] < 0.01
