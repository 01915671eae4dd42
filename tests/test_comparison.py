"""The comparison kit (iobook/book/comparison.py) on real IOR runs: data/examples/ior-history, made on this machine by
scripts/collect_ior_history.sh. In `change/` IOR's target moves from tmpfs to a direct-I/O loop ext4 at run 13
(MANIFEST.tsv); `steady/` is its twin with no change."""

import pandas as pd
import pytest
from conftest import REPO

from iobook.book import comparison, nb
from iobook.inference import evidence
from iobook.inference.evidence import Replicate
from iobook.parsers import ior_text

HISTORIES = REPO / "data" / "examples" / "ior-history"
CHANGED_AT = 13  # MANIFEST.tsv: run 13 is the first on the loop ext4


def write_mib_s(history: str) -> list[float]:
    """Each run's IOR write bandwidth (its summary's mean), in run order."""
    out = []
    for run in sorted((HISTORIES / history).glob("run*")):
        parsed = ior_text.parse_text((run / "ior.txt").read_text(encoding="utf-8"))
        out += [r.bw_mean_mib_s for r in parsed.records if type(r).__name__ == "IorSummary" and r.access == "write"]
    return out


def split(history: str, family: str) -> evidence.Comparison:
    bw = write_mib_s(history)
    return evidence.compare(bw[CHANGED_AT - 1:], bw[:CHANGED_AT - 1], quantity="IOR write bandwidth", unit="MiB/s",
                            replicate=Replicate.RUN, family=family, label=f"{history} runs 13-24",
                            baseline_label=f"{history} runs 1-12")


@pytest.fixture(scope="module")
def decided() -> list[evidence.Comparison]:
    return evidence.decide([split("change", "kit"), split("steady", "kit")])


def test_the_table_puts_the_measure_first_and_decides_the_real_change(decided):
    # the folder of both histories is the same: it tells no row apart, and is left out (it pushed the ratio past
    # 1280 px in the Checksum chapter, where every row named the one current run)
    both = pd.DataFrame({"history": ["change", "steady"], "folder": ["ior-history", "ior-history"]})
    shown = comparison.table(decided, both).frame
    # the measure, ratio and interval first: a reader sees them without scrolling (issue 50)
    assert list(shown.columns) == ["measure", comparison.RATIO, comparison.INTERVAL, "history", comparison.UNITS,
                                   comparison.HOLM_P, comparison.VERDICT]
    shown_table = comparison.table(decided, both)
    assert shown_table.shared == {"folder": "ior-history"}  # said once above the table
    assert nb.table(shown_table.frame, shared=shown_table.shared).data.startswith(
        '<p class="iobook-table-shared">Every row: folder ior-history.</p>')
    assert "folder" in comparison.table(decided[:1], both[:1]).frame.columns  # one row: what it is, said
    assert shown.loc[0, comparison.UNITS] == "12 runs / 12"
    assert shown.loc[0, comparison.VERDICT] == "decided"  # the target's move to disk
    ratio = float(shown.loc[0, comparison.RATIO].split("×")[0])
    assert ratio < 0.2  # History finds 0.076× at run 13 on the same logs (tests/test_study_history.py)
    assert not decided[1].decided  # the twin never changed
    # each verdict shown is explained once, under the table, not in every row
    legend = comparison.table(decided, both).note
    assert legend.startswith("decided: at least 3 units a side") and legend.count("undecided:") == 1
    assert legend in nb.table(shown, note=legend).data
    # the interval stays on one line in a table narrowed to the page: a browser breaks '0.0693–' over '0.083'
    low, high = shown.loc[0, comparison.INTERVAL].split("–")
    assert f'<span class="iobook-range">{low}–{high}</span>' in nb.table(shown).data


def test_no_interval_on_fewer_units_than_the_rule_allows():
    bw = write_mib_s("change")
    two = evidence.decide([evidence.compare(bw[-2:], bw[:2], quantity="IOR write bandwidth", unit="MiB/s",
                                            replicate=Replicate.RUN, family="two")])[0]
    assert two.verdict == evidence.Verdict.TOO_FEW and two.low is not None  # the record keeps it; the page does not
    assert comparison.interval_text(two) == comparison.NO_INTERVAL
    shown = comparison.table([two])
    assert shown.frame.loc[0, comparison.INTERVAL] == comparison.NO_INTERVAL
    assert shown.frame.loc[0, comparison.VERDICT] == "too few units"  # a short code; its meaning said once, below
    assert shown.note == "too few units: fewer than 3 units on a side, so no interval, no verdict and no number a side sized."


def test_records_sharing_a_qualifier_say_it_once():
    """Two undecided comparisons on two runs a side, listed in one sentence: what both share (no interval, too few
    units) is said once after the list, what each has alone stays with it (issue 50: Checksum's sentence repeated
    '(no interval; 1 round vs 6; too few units; ...)' after every ratio)."""
    change, steady = write_mib_s("change"), write_mib_s("steady")
    two = evidence.decide([evidence.compare(bw[-2:], bw[:2], quantity="IOR write bandwidth", unit="MiB/s",
                                            replicate=Replicate.RUN, family="two") for bw in (change, steady)])
    text = evidence.phrases([("change", two[0]), ("steady", two[1])])
    assert text.count("too few units") == 1 and text.count("no interval") == 1
    assert text.startswith(f"change {two[0].ratio:.3g}×; steady {two[1].ratio:.3g}× (each: no interval; 2 runs vs 2;")
    assert evidence.phrases([("change", two[0])]) == "change " + evidence.phrase(two[0])


def test_the_range_sentence_counts_what_is_decided(decided):
    low, high = sorted(c.ratio for c in decided)
    assert comparison.range_sentence(decided) == f"{low:.3g}× to {high:.3g}×, 1 of 2 ratios decided"
    assert comparison.range_sentence(decided[:1]) == f"{decided[0].ratio:.3g}×, decided"
    assert comparison.farthest(decided) is decided[0]


def test_the_forest_fills_decided_points_and_draws_no_withheld_interval(decided):
    spec = comparison.forest(decided, ["change", "steady"], title="IOR write, runs 13-24 over 1-12").to_dict()
    rows = next(rows for rows in spec["datasets"].values() if "decided" in rows[0])
    assert [r["decided"] for r in rows] == [True, False]
    assert rows[0]["low"] == pytest.approx(decided[0].low)


def test_drift_is_its_own_family_per_run():
    bw = write_mib_s("steady")
    record = comparison.drift(bw[-3:], bw[:-3], what="IOR write bandwidth", unit="MiB/s",
                              configuration="easy write", run_id="steady")
    assert record.family == "steady: drift" and record.n == 3 and record.n_baseline == len(bw) - 3
    assert record.quantity == "IOR write bandwidth at the end ÷ during the run"
