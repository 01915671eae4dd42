"""The IO500 score study's findings (MyST), each with the figure or table that shows it and the records it rests on,
and the sentences of the page whose wording depends on the data."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Finding, Prose
from ...inference import evidence
from ...inference.bounds import REACHES_LIMIT
from . import ports
from .analysis import TOLERANCE

CENSUS = evidence.Replicate.CENSUS


def main_finding(agree: dict[str, int], census: evidence.Count) -> Finding:
    """The main result: a census of the runs (every run checked), so counts and no interval; with the runs that print
    no score to compare with and the printed scores reproduced neither way, where there are any (censuses too)."""
    no_score = evidence.count(k=agree["not_comparable"], n=agree["runs"], of=CENSUS,
                              quantity="runs with no printed score to compare with")
    neither = evidence.count(k=agree["neither"], n=agree["comparable"], of=CENSUS,
                             quantity="printed scores reproduced neither from the summary nor from the logs")
    rest = "".join([f"; {no_score.k:,} runs print no score" if no_score.k else "",
                    f"; {neither.k:,} are reproduced neither way" if neither.k else ""])
    return Finding(text=f"{census.k:,} of {census.n:,} printed scores come back within {TOLERANCE:.1%} from the "
                        f"summary's phases; {agree['from_logs']:,} more from the phase logs{rest}.",
                   target="fig-io500-recomputed",
                   evidence=(census, *(c for c in (no_score, neither) if c.k)))


def audit_finding(coverage: pd.DataFrame, flags: pd.DataFrame, runs: int, census: pd.DataFrame) -> Finding:
    """How many runs the validity audit flags, and each flag's count out of the runs it could test (`coverage`:
    analysis.flag_coverage), flagged ones first: a flag tests only the runs whose files state what it reads. Then the
    census of runs above one client port (`census`: ports.port_census), which flags none."""
    flagged = evidence.count(k=flags.run_key.nunique(), n=runs, of=CENSUS, quantity="runs the validity audit flags")
    each = [evidence.count(k=row["runs flagged"], n=row["runs it can test"], of=CENSUS,
                           quantity=f"runs {row.flag} flags of those it can test")
            for _, row in coverage.sort_values(["runs flagged", "runs it can test"], ascending=False).iterrows()]
    parts = ", ".join(f"{c.quantity.split()[1]} {c.k:,} of {c.n:,}" for c in each)
    above = ports.census_records(census)
    return Finding(text=f"The validity audit flags {flagged.k:,} of the {flagged.n:,} runs; each flag tests only the "
                        f"runs whose files state what it reads: {parts}." + ports.census_text(above),
                   target="tab-io500-audit", evidence=(flagged, *each, *above))


def bounds_text(best: pd.Series, limits: list[evidence.Count]) -> str:
    """How many runs state the limits of their setup and reach REACHES_LIMIT of them (`best`: each stating run's best
    share of its limit; `limits`: analysis.bounds_records' censuses), for the section that shows them."""
    stating = limits[0]
    text = f"{stating.k:,} of the {stating.n:,} runs state a limit of their setup (links or drives times their rate)"
    if len(limits) > 1:
        bests = f"{best.min():.0%}" if len(best) == 1 else f"from {best.min():.0%} to {best.max():.0%}"
        text += (f"; {limits[1].k:,} of those reach {REACHES_LIMIT:.0%} of it in a phase (their best phase: "
                 f"{bests})")
    return text + "."


def flagged_text(flagged: dict[str, str], runs: list[str]) -> str:
    """How the audit's flags of `runs` (`flagged`: run_key -> its codes) read where the runs are shown, e.g. "all 3 of
    its runs flagged CHANGED_DURING_RUN" (empty when none is flagged): a flagged run is shown only with its flag."""
    codes = dict.fromkeys(flagged[key] for key in runs if key in flagged)
    hit = [key for key in runs if key in flagged]
    if not hit:
        return ""
    which = (f"all {len(runs)} of its runs" if len(hit) == len(runs) else
             f"{present.md_escape(', '.join(hit))} of its runs")
    return f"{which} flagged {' and '.join(codes)}"


def sc23_finding(sc23: pd.DataFrame, elsewhere: pd.DataFrame, flags: str = "") -> Finding:
    """How many cells of seed 000's SC23 table are the raw value rounded once, and where the talk prints the
    others so; `flags`: flagged_text of its runs."""
    once = evidence.count(k=int(sc23.same.sum()), n=len(sc23), of=CENSUS,
                          quantity="SC23 cells equal to the raw value rounded once")
    seen = elsewhere[elsewhere["elsewhere equals rounded once"]]
    return Finding(
        text="IBM's SC23 table {cite:p}`lewars2023` from the raw logs" + (f" ({flags})" if flags else "")
             + f": {once.k} of its {once.n} cells equal the "
             "raw value rounded once; the talk prints "
             + ("each of the other" if len(seen) == once.n - once.k else f"{len(seen)} of the other")
             + f" {once.n - once.k} that way in another of its tables.", target="tab-io500-sc23", evidence=(once,))


def weights_finding(weights: pd.DataFrame, best: str) -> Finding:
    """What halving one bandwidth and one metadata phase of the run `best` does to its score (the formula on one
    run: described, no interval)."""
    by_group = weights.groupby("group")["factor when halved"].first()
    halved = tuple(evidence.described(by_group[group], quantity=f"score factor when one {group} phase is halved",
                                      unit="x", n=1, replicate=evidence.Replicate.RUN,
                                      how="the score's formula on one run's phases")
                   for group in ("bandwidth", "metadata"))
    return Finding(
        text=f"One phase weighs little: halving one bandwidth phase of {present.md_escape(best)} multiplies its score "
             f"by {by_group['bandwidth']:.3f} (0.5^(1/8)), halving one metadata phase by {by_group['metadata']:.3f} "
             "(0.5^(1/16)).", target="tab-io500-weights", evidence=halved)


def phases_finding(shown: list[str], widest: str, spread: tuple) -> Finding:
    """The runs shown phase by phase and the phase they differ most in (analysis.widest_phase)."""
    return Finding(
        text=f"The highest recomputed scores are {', '.join(map(present.md_escape, shown))}; their phases differ most "
             f"in {present.md_escape(widest)}.", target="fig-io500-phases", evidence=spread)


def copies_text(copies: pd.DataFrame) -> str:
    """The copies of counted runs that view io500_score_mismatches lists too, each with the run it copies: left out
    of the table and of every count (empty when there are none)."""
    if copies.empty:
        return ""
    named = "; ".join(f"{present.md_escape(row.run_key)}, a copy of {present.md_escape(row.copy_of)}"
                      for row in copies.itertuples())
    return (f" View `io500_score_mismatches` also lists {named} (the same phase values, `io500_duplicate_runs`); "
            "a copy counts once, as the run it copies, so the table leaves it out.")


def summaries(mismatches: pd.DataFrame, copies: pd.DataFrame, sc23: pd.DataFrame, sc23_runs: dict[str, str],
              elsewhere: pd.DataFrame, flagged: dict[str, str]) -> dict[str, Prose]:
    """The chapter's sentences whose wording depends on the data (MyST): the mismatches (`mismatches` the runs
    counted, `copies` the copies left out), and seed 000's SC23 table against the raw logs (its runs present or
    not, with the audit's flags (`flagged`: run_key -> its codes), its differing cells and what the talk prints for
    them elsewhere)."""
    runs = ", ".join(f"{label}: {key}" for label, key in sc23_runs.items())
    hit = {key: flagged[key] for key in sc23_runs.values() if key in flagged}
    names = list(hit)
    listed = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1] if names else ""
    codes = " and ".join(dict.fromkeys(hit.values()))
    flag_sentence = (f" {listed} {'are' if len(names) > 1 else 'is'} flagged {codes} "
                     "by the validity audit ({ref}`io500-flags`): the table checks the talk's numbers against the "
                     "runs' own files, not that the runs followed the IO500's rules." if hit else "")
    seen = elsewhere[elsewhere["elsewhere equals rounded once"]] if len(elsewhere) else elsewhere
    twice = int((elsewhere["raw rounded twice"] == elsewhere.value_published).sum()) if len(elsewhere) else 0
    where = "; ".join(f"{row.row} of {row.column}: {row.value_published:,.1f} in this table, {row.elsewhere:,.1f} "
                      f"on seed line {row['seed lines']}" for _, row in seen.iterrows())
    texts = {
        "mismatch_summary": (
            f"The {len(mismatches):,} runs whose printed score is reproduced neither from the summary's phase "
            "values nor from the phase logs, or that cannot be compared, are in {numref}`tab-io500-mismatches` "
            "with the reason ingest found." + copies_text(copies) if len(mismatches) else
            "Every run's printed score is reproduced (view `io500_score_mismatches` is empty)."),
        "sc23_summary": (
            "Seed 000's slide 'IO500 submissions from IBM for SC23' {cite:p}`lewars2023` prints the phases and "
            f"totals of IBM's three SC23 submissions ({runs}). Each cell below is the published value / the raw "
            "value; the phases come from each run's summary, the totals are recomputed from them." + flag_sentence
            if len(sc23) else
            f"IBM's three SC23 submissions ({', '.join(sc23_runs.values())}) are not all in this database, so seed "
            "000's table {cite:p}`lewars2023` cannot be set against raw logs here."),
        "sc23_differ": (
            f"{len(elsewhere)} cells are not the raw value rounded once. Rounding twice (to two decimals, then "
            f"one) gives {twice} of them, but that is a rule chosen after seeing the cells, not one the talk states; "
            "and the talk itself prints the once-rounded value in another table for "
            f"{len(seen)} of them ({where})." if len(elsewhere) else
            "Every cell is the raw value rounded once."),
    }
    return {key: Prose(text) for key, text in texts.items()}


def lists_finding(checks: pd.DataFrame) -> Finding:
    """How many submissions the site's record holds publish their run's own values, and how many do not, by reason
    (censuses over the submissions: analysis.list_checks)."""
    agree = evidence.count(k=int((checks.reason == "AGREES").sum()), n=len(checks), of=CENSUS,
                           quantity="submissions whose list entry publishes their run's own values")
    reasons = checks[checks.reason != "AGREES"].reason.value_counts()
    by_reason = tuple(evidence.count(k=int(k), n=len(checks), of=CENSUS, quantity=f"submissions {code}")
                      for code, k in reasons.items())
    parts = ", ".join(f"{c.quantity.split()[1]} {c.k:,}" for c in by_reason)
    return Finding(text=f"The IO500 list published the run's own bandwidth and metadata scores for {agree.k:,} of the "
                        f"{agree.n:,} submissions whose entry the site's record holds; the other "
                        f"{agree.n - agree.k:,}: {parts}.", target="tab-io500-lists", evidence=(agree, *by_reason))
