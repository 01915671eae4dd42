"""The comparison kit: every chapter shows decided comparisons (evidence.Comparison after evidence.decide) in one
form, so a reader meets one shape for one idea (as benchstat prints one): one table (the measure, ratio and
interval, then what tells the rows apart, units a side, Holm's p and the verdict, its codes explained once under it),
one forest chart (ratio and
interval on a log axis, filled when decided), one range sentence, and one drift check (a baseline measured again
at the end of a run against itself during it); a frame of keyed comparisons decided at once (decide_rows) and shown
field by field (record_frame). Every record shows as evidence.as_shown: no interval the rule
withholds."""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import altair as alt
import numpy as np
import pandas as pd

from ..inference import evidence
from ..inference.evidence import Comparison, Replicate
from . import charts, present
from .report import Table

RATIO = "ratio"
INTERVAL = f"{evidence.CONFIDENCE:.0%} interval"
UNITS = "units a side"
HOLM_P = "Holm p"
VERDICT = "verdict"
COLUMNS = ["measure", RATIO, INTERVAL, UNITS, HOLM_P, VERDICT]
NO_INTERVAL = "–"  # a withheld interval's cell: the legend under the table says why, once
DECIDED_LEGEND = "filled: decided (the methods page gives the rule); hollow: not decided"
FOREST_WIDTH = 340  # px of the plot: with the rows' names beside it, within the 660 px of a chart's box
DRIFT_QUANTITY = "{what} at the end ÷ {baseline}"
# Each verdict's meaning, said once under a table that shows it (issue 50: a verdict column repeated the sentence)
VERDICT_LEGEND = {
    evidence.Verdict.DECIDED: (f"at least {evidence.MIN_UNITS} units a side and Holm p below "
                               f"{1 - evidence.CONFIDENCE:.2g}"),
    evidence.Verdict.UNDECIDED: (f"enough units but Holm p not below {1 - evidence.CONFIDENCE:.2g}; from "
                                 f"{evidence.MIN_UNITS_TO_SIZE} units a side, the units a side that would decide it"),
    evidence.Verdict.TOO_FEW: (f"fewer than {evidence.MIN_UNITS} units on a side, so no interval, no verdict and no "
                               "number a side sized"),
    evidence.Verdict.NO_SPREAD: "no variation between units to test against",
}


def ratio_text(record: Comparison) -> str:
    """'1.01×': the ratio as the book prints one (its interval is interval_text)."""
    c = evidence.as_shown(record)
    return _ratio(c.ratio) if np.isfinite(c.ratio) else "–"


def interval_text(record: Comparison) -> str:
    """'0.98–1.05', or NO_INTERVAL where the rule withholds one."""
    c = evidence.as_shown(record)
    return NO_INTERVAL if c.low is None else f"{c.low:.3g}–{c.high:.3g}"


def sides_text(record: Comparison, reference: str = "published") -> str:
    """Units a side with their noun: '5 runs / 5', or '4 runs / published' against a reference figure (`reference`
    names what it is: a published figure, a model's expectation)."""
    noun = evidence.plural(record.n, str(record.replicate)) if record.replicate is not Replicate.CENSUS else (
        f"{record.n:,}")
    return f"{noun} / {reference if record.reference is not None else f'{record.n_baseline:,}'}"


def verdict_text(record: Comparison) -> str:
    """The verdict's short code, with the units a side that would decide an undecided comparison where they can be
    sized; VERDICT_LEGEND says what each code means."""
    verdict = str(record.verdict) if record.verdict else "not yet decided"
    return verdict + (f", {record.n_to_decide:,} a side would decide it" if record.n_to_decide and not record.decided
                      else "")


def legend(records: Iterable[Comparison]) -> str:
    """What the verdicts of `records` mean, each verdict shown once: the note under their table."""
    shown = dict.fromkeys(c.verdict for c in records if c.verdict is not None)
    return "; ".join(f"{verdict}: {VERDICT_LEGEND[verdict]}" for verdict in shown) + ("." if shown else "")


def table(records: Sequence[Comparison], descriptors: pd.DataFrame | None = None,
          formats: dict[str, str] | None = None, reference: str = "published", keep=()) -> Table:
    """The comparison table: one row per record, the measure, ratio and interval first (a reader sees them without
    scrolling), then the descriptor columns that tell the rows apart (a frame of the same length: run,
    configuration, year...; one that is the same in every row, but those in `keep`, is said once above the table
    instead, Table.shared), units a side (a reference figure's side named `reference`), Holm's p and the verdict,
    whose codes the note under the table explains once (legend)."""
    descriptors = pd.DataFrame(index=range(len(records))) if descriptors is None else descriptors.reset_index(drop=True)
    if len(descriptors) != len(records):
        raise ValueError(f"{len(descriptors)} descriptor rows for {len(records)} records")
    # a column with one value in every row (but `keep`) tells no rows apart: said once (it pushed ratios off 1280 px);
    # the descriptors only, not present.said_once's whole frame: the records' own columns always stay
    descriptors, shared = present.constant_columns(descriptors, keep)
    frame = pd.concat([pd.DataFrame({"measure": [c.quantity for c in records],
                                     RATIO: [ratio_text(c) for c in records],
                                     INTERVAL: [interval_text(c) for c in records]}),
                       descriptors,
                       pd.DataFrame({UNITS: [sides_text(c, reference) for c in records],
                                     HOLM_P: [evidence.as_shown(c).p_adjusted for c in records],
                                     VERDICT: [verdict_text(c) for c in records]})], axis=1)
    return Table(frame=frame, formats={HOLM_P: ".2g", **(formats or {})}, shared=shared, note=legend(records))


def decide_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` (keys and a `record` column of evidence.Comparison) with each record replaced by its verdict
    from evidence.decide, the one rule (Holm within each family, at least MIN_UNITS a side)."""
    return rows.assign(record=evidence.decide(list(rows.record)) if len(rows) else [])


def record_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` (keys and a `record` column) beside their records' fields as shown (evidence.as_shown) as columns
    (evidence.frame); a key named like a field keeps the key's values."""
    if rows.empty:
        return rows
    fields = evidence.frame([evidence.as_shown(r) for r in rows.record])
    numbers = [c for c in ("ratio", "low", "high", "p", "p_adjusted", "sd_log") if c in fields]
    fields[numbers] = fields[numbers].astype(float)  # None (no interval, no p) as NaN
    fields = fields.drop(columns=[c for c in fields if c in rows])
    return pd.concat([rows.reset_index(drop=True), fields.reset_index(drop=True)], axis=1)


def _ratio(x: float) -> str:
    """A ratio as the book prints one (evidence.number): '0.873×', '5,010×', not '5.01e+03×'."""
    return f"{evidence.number(x)}×"


def range_sentence(records: Iterable[Comparison], what: str = "ratios") -> str:
    """'0.87× to 1.12×, 3 of 9 decided' (one ratio: '1.01×, decided'): the span of the ratios and how many
    are decided, for a finding that sums up a family."""
    records = [c for c in records if np.isfinite(c.ratio)]
    if not records:
        return f"no {what}"
    decided = sum(c.decided for c in records)
    if len(records) == 1:
        return f"{_ratio(records[0].ratio)}, {'decided' if decided else str(records[0].verdict)}"
    low, high = min(c.ratio for c in records), max(c.ratio for c in records)
    return f"{_ratio(low)} to {_ratio(high)}, {decided} of {len(records)} {what} decided"


def farthest(records: Iterable[Comparison]) -> Comparison:
    """The comparison whose ratio lies farthest from 1 on the log scale."""
    return max(records, key=lambda c: abs(math.log(c.ratio)))


def forest(records: Sequence[Comparison], labels: Sequence[str], *, title: str, x_title: str = "ratio",
           color: Sequence[str] | None = None, color_title: str = "", source: str = "") -> alt.Chart:
    """One row per record: its ratio (point) and interval (rule) on a log axis with a rule at 1; filled points are
    decided, hollow ones are not. `color` groups rows (a measure, a year), one legend; `source` names the data
    under the subtitle."""
    shown = [evidence.as_shown(c) for c in records]
    data = pd.DataFrame({"label": list(labels), "ratio": [c.ratio for c in shown],
                         "low": [c.low for c in shown], "high": [c.high for c in shown],
                         "decided": [bool(c.decided) for c in shown], "verdict": [verdict_text(c) for c in shown],
                         "group": list(color) if color is not None else [""] * len(shown)})
    y = alt.Y("label:N", title=None, sort=list(dict.fromkeys(labels)), axis=alt.Axis(labelLimit=0))  # names whole
    x = alt.X("ratio:Q", title=x_title, scale=alt.Scale(type="log"), axis=alt.Axis(format=charts.ROUNDED))
    hue = (alt.Color("group:N", title=color_title or None) if color is not None
           else alt.value("#1f77b4"))
    base = alt.Chart(data)
    tooltip = ["label", alt.Tooltip("ratio:Q", format=".3g"), alt.Tooltip("low:Q", format=".3g"),
               alt.Tooltip("high:Q", format=".3g"), "verdict"]
    rules = base.transform_filter("isValid(datum.low)").mark_rule().encode(
        y=y, x=alt.X("low:Q", scale=alt.Scale(type="log")), x2="high:Q", color=hue)
    points = base.mark_point(size=70, strokeWidth=2).encode(
        y=y, x=x, color=hue, tooltip=tooltip,
        fill=alt.condition("datum.decided", alt.Color("group:N", legend=None) if color is not None else hue,
                           alt.value("white")))  # the fill repeats the colour: no second legend
    one = alt.Chart(pd.DataFrame({"ratio": [1.0]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="ratio:Q")
    return (one + rules + points).properties(
        title=alt.TitleParams(title, subtitle=[f"{evidence.CONFIDENCE:.0%} intervals; {DECIDED_LEGEND}",
                                               *([f"({source})"] if source else [])]),
        width=FOREST_WIDTH, height=alt.Step(22))


def drift(end, during, *, what: str, unit: str, configuration: str, run_id: str,
          baseline: str = "during the run") -> Comparison:
    """The drift check: a configuration measured again at the end of a run (its end rounds) over its rounds
    `baseline` (during the run, or a stage of it), each round a unit; one family per run, so a run's drift is
    decided apart from its comparisons. The end rounds are never among those compared."""
    return evidence.compare(np.asarray(end, dtype=float), np.asarray(during, dtype=float),
                            quantity=DRIFT_QUANTITY.format(what=what, baseline=baseline), unit=unit,
                            replicate=Replicate.ROUND, family=f"{run_id}: drift", label=f"{configuration} at the end",
                            baseline_label=f"{configuration} {baseline}")
