"""The book's one verdict rule (iobook/inference/evidence.py) on real values: a census, iterations nested in runs, and
two collector runs of different designs."""
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import BUILT_TOOLS, REPO

from iobook.inference import evidence
from iobook.inference.evidence import Observations, Replicate, Verdict
from iobook.parsers import ior_csv, ior_json, ior_text
from iobook.parsers.ior_records import IorIteration

CHECKSUM = REPO / "data" / "raw" / "checksum"
# The checksum collector's first design (vm-20261121T131428Z) and the one that superseded it
# (vm-20261125T030550Z): different step orders and modes, so their rounds are two experiments.
FIRST, SECOND = CHECKSUM / "vm-20261121T131428Z", CHECKSUM / "vm-20261125T030550Z"
# IOR runs built here, each `-i 3` (three iterations of one invocation): README of fixtures/built-tools.
IOR_I3 = ["ior_posix_fpp_1m_np2_i3.log", "ior_csv_posix_fpp_1m_np2_i3.log", "ior_json_posix_fpp_1m_np2_i3.log"]


def _write_bw(folder: Path) -> list[float]:
    """fio's write bw_bytes of every round of the direct, no-checksum write step of one collector run."""
    return [json.loads(p.read_text())["jobs"][0]["write"]["bw_bytes"]
            for p in sorted(folder.glob("*-write-none-direct-r*.fio.json"))]


def _ior_iterations(name: str) -> list[float]:
    text = (BUILT_TOOLS / "ior" / name).read_text()
    parse = {"ior_json": ior_json.parse_json, "ior_csv_": ior_csv.parse_summary_csv}.get(name[:8], ior_text.parse_text)
    parsed = parse(text)
    return [r.bw_mib_s for r in parsed.records if isinstance(r, IorIteration) and r.access == "write"]


def test_a_census_is_counted_never_given_an_interval():
    # every IOR -i 3 log built here printed three write iterations (the logs' "Results" tables)
    logs = [_ior_iterations(name) for name in IOR_I3]
    census = evidence.count(sum(len(x) == 3 for x in logs), len(logs), quantity="logs with 3 write iterations")
    assert (census.k, census.n) == (3, 3)
    assert not hasattr(census, "low") and not hasattr(census, "high")
    assert evidence.phrase(census) == "3 of 3 runs (100.0%)"


def test_iterations_of_one_run_are_one_unit():
    values = [bw for name in IOR_I3 for bw in _ior_iterations(name)]
    runs = [name for name in IOR_I3 for _ in range(3)]
    assert len(values) == 9
    by_run = evidence.estimate(Observations(values=values, units=runs), quantity="write bandwidth", unit="MiB/s",
                               replicate=Replicate.RUN)
    assert by_run.n == 3  # three invocations, not nine iterations
    # the unit's value is the geometric mean of its iterations
    first = np.exp(np.mean(np.log(_ior_iterations(IOR_I3[0]))))
    assert Observations(values=values, units=runs).per_unit()[0] == pytest.approx(first)
    assert 0 < by_run.low < by_run.value < by_run.high


def test_two_designs_are_not_pooled_and_each_is_decided_by_the_one_rule():
    first, second = _write_bw(FIRST), _write_bw(SECOND)
    assert (len(first), len(second)) == (2, 7)  # the rounds each collector run holds (file names -rN)
    pooled = Observations(values=first + second, designs=["first"] * len(first) + ["second"] * len(second))
    with pytest.raises(evidence.MixedDesigns):
        evidence.estimate(pooled, quantity="write bandwidth", unit="B/s", replicate=Replicate.ROUND)
    # within the second design: its first three rounds against its last four, read as one family
    c = evidence.compare(second[3:], second[:3], quantity="write bandwidth", unit="B/s", replicate=Replicate.ROUND,
                         family="test", label="late", baseline_label="early")
    [decided] = evidence.decide([c])
    assert decided.verdict in (Verdict.DECIDED, Verdict.UNDECIDED)
    assert decided.n == 4 and decided.n_baseline == 3
    # two rounds on one side can never be decided, whatever p
    [few] = evidence.decide([evidence.compare(first, second, quantity="write bandwidth", unit="B/s",
                                              replicate=Replicate.ROUND, family="test")])
    assert few.verdict is Verdict.TOO_FEW and not few.decided
    # its interval, on two rounds a side, is computed but never shown: the sentence says the data cannot tell
    assert few.low is not None and evidence.as_shown(few).low is None
    assert "interval" not in evidence.phrase(few).replace("no interval", "") and "too few units" in evidence.phrase(few)


def test_holm_within_a_family_and_positive_intervals():
    # four comparisons of one family: Holm multiplies the smallest p by 4
    rng_values = [_ior_iterations(name) for name in IOR_I3]
    cs = [evidence.compare([a * k for a in rng_values[0]], rng_values[1], quantity="bw", unit="MiB/s",
                           replicate=Replicate.RUN, family="f", label=str(k)) for k in (1, 2, 3, 4)]
    out = evidence.decide(cs)
    smallest = min(range(4), key=lambda i: cs[i].p)
    assert out[smallest].p_adjusted == pytest.approx(min(1, 4 * cs[smallest].p))
    assert all(c.family_size == 4 for c in out)
    assert all(c.low > 0 for c in out)


def test_against_a_published_figure_the_sample_alone_needs_three_units():
    values = _write_bw(SECOND)
    c = evidence.compare_to_reference(values, float(np.median(values)), quantity="write bandwidth", unit="B/s",
                                      replicate=Replicate.ROUND, family="ref", reference_label="its median")
    [d] = evidence.decide([c])
    assert d.n == 7 and d.n_baseline == 0 and d.verdict is not Verdict.TOO_FEW


def test_cluster_bootstrap_resamples_runs_not_values():
    values = [bw for name in IOR_I3 for bw in _ior_iterations(name)]
    runs = [name for name in IOR_I3 for _ in range(3)]
    low, high = evidence.cluster_bootstrap(values, runs, np.median)
    # resampling three runs: every resample's median lies within the range of the run medians' extremes
    assert min(values) <= low <= high <= max(values)
    assert np.isnan(evidence.cluster_bootstrap(values, ["one"] * 9, np.median)[0])


def test_a_described_number_reads_without_an_interval_and_says_why():
    # seed 000's checksum table: 90 GB/s read, one figure the slide prints (data/published/seed000_checksum_cpu_memory.csv)
    printed = evidence.described(90, quantity="IOR Seq Read BW", unit="GB/s", n=1,
                                 replicate=evidence.Replicate.PUBLISHED, how="one figure the slide prints")
    assert (printed.low, printed.high, printed.n) == (None, None, 1)
    assert evidence.phrase(printed) == "90 GB/s (no interval on 1 figure)"
    spread = evidence.described(22.0, quantity="range", unit="x", n=3, replicate=evidence.Replicate.RUN,
                                how="a range over 3 runs, not an interval")
    assert evidence.phrase(spread) == "22 x (no interval: a range over 3 runs, not an interval; 3 runs)"


def test_groups_decided_together_are_one_family_given_back_by_group():
    """IOR's write bandwidth of both real histories (data/examples/ior-history), one family in two groups: decided
    as one call decides it (Holm over both), each group given back in its order."""
    from test_comparison import split

    together = evidence.decide([split("change", "ior"), split("steady", "ior")])
    first, second = evidence.decide_groups([split("change", "ior")], [split("steady", "ior")])
    assert (first, second) == ([together[0]], [together[1]])
    assert {c.family_size for c in together} == {2}


def test_an_exact_correlation_p_is_the_share_of_every_order():
    """At 7 units (EXACT_PERMUTATION_UNITS) the p of no association is exact: twice the smaller tail share of the 7! =
    5,040 orders of one measure against the other (enumerated here with itertools). scipy permuted both samples, (7!)^2
    pairings, each order 5,040 times: the same p, but minutes per correlation (issue 46's archive chapter)."""
    import itertools

    x, y = np.arange(7.0), np.array([3.0, 1.0, 2.0, 7.0, 5.0, 6.0, 4.0])
    (record,) = evidence.decide([evidence.correlate(x, y, quantity="q", x_name="a", y_name="b", method="Pearson",
                                                    replicate=evidence.Replicate.MACHINE, family="f")])
    observed = np.corrcoef(x, y)[0, 1]
    null = np.array([np.corrcoef(x, y[list(order)])[0, 1] for order in itertools.permutations(range(7))])
    tol = 1e-12
    expected = min(1.0, 2 * min(np.mean(null <= observed + tol), np.mean(null >= observed - tol)))
    assert record.n == 7 and record.p == pytest.approx(expected)


def test_a_correlation_shows_an_interval_from_its_stated_minimum_of_units():
    """Issue 46: the IO500 archive's per-node sub-scores on 5 machines printed rs 0.90 (95% interval 0.11-1.00): a
    bootstrap over 5 units spans most of -1 to 1. Below MIN_CORRELATION_UNITS no interval; the p still tests."""
    x = np.arange(12.0)
    y = x + np.array([0.5, -0.3, 0.8, -0.6, 0.1, 0.9, -0.8, 0.4, -0.2, 0.7, -0.5, 0.3])
    n = evidence.MIN_CORRELATION_UNITS
    few, enough = (evidence.correlate(x[:k], y[:k], quantity="q", x_name="a", y_name="b", method="Spearman",
                                      replicate=evidence.Replicate.MACHINE, family="f") for k in (n - 1, n))
    assert few.low is None and few.p is not None and "no interval below 10 units" in evidence.phrase(few)
    assert enough.low is not None and enough.low < enough.value <= enough.high


def test_only_the_publications_own_selection_reproduces_it():
    """Issue 46: the IO500 archive chapter said it rebuilt a paper's analysis of 61 submissions of four lists on 2 of
    the lists and 19 machines. A chapter may say 'reproduces' only on the publication's own selection."""
    paper = (("ISC21", "SC21", "ISC22", "SC22"), 61)
    assert evidence.reanalysis(paper, paper, selection="every list", publication="the paper") == "reproduces the paper"
    assert evidence.reanalysis((("ISC21", "SC21"), 24), paper, selection="2 of its 4 lists",
                               publication="the paper") == "re-analysis on 2 of its 4 lists"
    # the same lists with other units (machines, not submissions) are another selection too
    assert evidence.reanalysis((paper[0], 22), paper, selection="22 machines",
                               publication="the paper").startswith("re-analysis")


def test_one_number_format_for_sentences_tables_and_ratios():
    """evidence.number, the book's one format of a measured value (issue 49): three significant digits, whole from 100
    on with thousands separated. The values are worked by hand: nb.table's own format had printed 1,234.5 as
    '1.23e+03' and evidence's 999.7 as '1e+03'."""
    import pandas as pd

    from iobook.book import nb

    assert [evidence.number(x) for x in (0.012345, 45.67, 123.5, 999.7, 1234.5, -1500.2, float("inf"), None)] == [
        "0.0123", "45.7", "124", "1,000", "1,234", "-1,500", "–", "–"]
    cells = nb.table(pd.DataFrame({"value": [1234.5, 0.5]})).data
    assert "<td class=\"n\">1,234</td>" in cells and "<td class=\"n\">0.5</td>" in cells
