"""The IO500 score recomputed for every run beside the score its tool printed, what one phase weighs in it,
and seed 000's SC23 table (IBM's three SC23 submissions) reproduced from the raw logs."""
from __future__ import annotations

import re

import altair as alt
import pandas as pd

from .. import evidence, io500_runs, present, published, selection
from ..report import Finding, Html, Prose, Report, Table
from ..parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES

TOLERANCE = io500_runs.SCORE_TOLERANCE  # recomputed equals reported within 0.1 %
PHASES = list(STANDARD_BW_PHASES + STANDARD_MD_PHASES)
SC23_TABLE = "seed000_sc23_io500"
# Seed 000's SC23 table: its column labels and the run_key of the same run
SC23_RUNS = {"IBM Tucson": "submission-679", "IBM Ehningen": "submission-690", "IBM Cloud HPC": "submission-687"}
SC23_TOTALS = {"Bandwidth GiB/s": "bw_gib_s", "kIOPS": "md_kiops", "TOTAL Score": "score"}
_RELEASE = re.compile(r"(?:^|-)(isc|sc)(\d\d)(?![0-9])")


def release_label(io500_version: str | None) -> str | None:
    """The benchmark release an io500 version names ("io500-isc22_v1" -> "ISC22", "sc17" -> "SC17"): the
    release of the IO500 code the run used, not the list it was submitted to (runs of 2023 print ISC22); None
    when the version names none (bash scripts print no version)."""
    m = _RELEASE.search(io500_version) if isinstance(io500_version, str) else None
    return f"{m.group(1).upper()}{m.group(2)}" if m else None


def release_text(runs: pd.DataFrame) -> str:
    """How many runs print a release named for a list of an earlier year than their archive year, with the
    latest such run as the example (Markdown): the evidence that the version names a release, not a list."""
    list_year = runs.io500_version.map(release_label).map(
        lambda release: 2000 + int(release[-2:]) if isinstance(release, str) else float("nan"))
    earlier = runs.assign(list_year=list_year)[list_year < runs.year]
    if earlier.empty:
        return "no run here prints a release named for an earlier year's list than its archive year."
    last = earlier.sort_values(["year", "run_key"]).iloc[-1]
    runs_text = f"{len(earlier):,} run" + ("" if len(earlier) == 1 else "s")
    return (f"{runs_text} here print a release named for an earlier year's list than their archive year "
            f"({last.run_key}, of {int(last.year)}, prints `{last.io500_version}`).")


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run: recomputed and reported score, validity, whether a value is implausible
    (io500_runs.implausible), the score recomputed from its phase logs, and whether it is a copy of a run filed in
    two submissions (`duplicate`: not io500_runs.counted; agreement and the charts count each run once)."""
    runs = con.execute(
        """
        SELECT r.run_key, r.run_id, r.institution, r.system, r.filesystem, r.year, r.io500_version, r.implausible,
               s.score, s.reported_score, s.reported_score_native, s.bw_gib_s, s.md_kiops, s.valid,
               s.score_rule, s.score_matches, s.score_check, s.invalid_reasons,
               l.score AS score_from_logs, l.matches_reported AS logs_match, NOT r.counted AS duplicate
        FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN io500_scores_from_logs l USING (run_id)
        ORDER BY r.run_key
        """
    ).df()
    runs["release"] = runs.io500_version.map(release_label)
    return runs


def agreement(runs: pd.DataFrame) -> dict[str, int]:
    """How many runs' printed scores the recomputation reproduces, from the summary or from the phase logs: a
    census of the runs, each archive copy of a run counted once."""
    copies = int(runs.duplicate.sum())
    runs = runs[~runs.duplicate]
    comparable = runs[runs.score_matches.notna()]
    from_summary = comparable.score_matches.astype(bool)
    from_logs = ~from_summary & comparable.logs_match.fillna(False).astype(bool)
    return {"runs": len(runs), "valid": int(runs.valid.sum()), "comparable": len(comparable),
            "from_summary": int(from_summary.sum()), "from_logs": int(from_logs.sum()),
            "neither": int((~from_summary & ~from_logs).sum()),
            "not_comparable": len(runs) - len(comparable), "copies": copies}


def chart_recomputed_vs_reported(runs: pd.DataFrame) -> alt.Chart:
    """One point per run with a printed sqrt-rule score: recomputed against printed, log scales."""
    counts = agreement(runs)
    # only the columns it draws: a list column (invalid_reasons) aggregated in no fixed order would change the
    # spec, and so the chart's id, from one execution to the next
    plotted = runs[~runs.duplicate & (runs.score > 0) & (runs.reported_score > 0)][
        ["run_key", "institution", "system", "year", "release", "reported_score", "score", "valid"]].assign(
        validity=lambda d: d.valid.map({True: "valid run", False: "invalid run"}))
    return alt.Chart(plotted).mark_point(filled=True, opacity=0.6).encode(
        x=alt.X("reported_score:Q", scale=alt.Scale(type="log"), title="printed score (√(GiB/s · kIOPS))"),
        y=alt.Y("score:Q", scale=alt.Scale(type="log"), title="recomputed score (√(GiB/s · kIOPS))"),
        color=alt.Color("validity:N", title=None, legend=alt.Legend(orient="bottom")),
        tooltip=["run_key", "institution", "system", "year", "release",
                 alt.Tooltip("reported_score:Q", format=".3f"), alt.Tooltip("score:Q", format=".3f")],
    ).properties(width=420, height=380, title=alt.TitleParams(
        f"{counts['from_summary'] + counts['from_logs']} of {counts['comparable']} printed scores recomputed "
        f"within {TOLERANCE:.1%}", subtitle=f"source: io500_scores, io500_scores_from_logs; {len(plotted)} runs"))


def describe(runs: pd.DataFrame, run_key: str) -> str:
    """A run as the prose names it: run_key, with institution and system where the archive layout gives them."""
    run = runs[runs.run_key == run_key].iloc[0]
    where = ", ".join(str(v) for v in (run.institution, run.system) if isinstance(v, str))
    return f"{run_key} ({where})" if where else run_key


def get_mismatches(con) -> pd.DataFrame:
    """Runs (each counted once: io500_runs.counted) whose printed score is reproduced neither from the summary nor
    from the logs, or cannot be compared."""
    return con.execute(
        """
        SELECT r.run_key, r.institution, r.system, m.score, m.score_from_logs, m.reported_score_native, m.reason
        FROM io500_score_mismatches m JOIN io500_runs r USING (run_id) WHERE r.counted ORDER BY r.run_key, r.run_id
        """
    ).df()


def get_flags(con) -> pd.DataFrame:
    """The validity audit's flags (view io500_run_flags: one coded finding per run, with what its files show and
    where), of each run counted once."""
    return con.execute(
        """
        SELECT r.run_key, r.institution, r.system, f.code, f.detail, f.source
        FROM io500_run_flags f JOIN io500_runs r USING (run_id) WHERE r.counted ORDER BY f.code, r.run_key
        """
    ).df()


def flags_finding(flags: pd.DataFrame, bounds: pd.DataFrame, runs: int) -> tuple[Finding, evidence.Count]:
    """How many runs the validity audit flags, by code, and how many state the limits of their setup and reach them
    (censuses); none of the flagged runs is shown as an example."""
    flagged = evidence.count(flags.run_key.nunique(), runs, quantity="runs the validity audit flags",
                             of=evidence.Replicate.CENSUS)
    by_code = flags.groupby("code").run_key.nunique()
    parts = ", ".join(f"{code} {n:,}" for code, n in by_code.items())
    limits, limit_records = bounds_text(bounds, runs)
    return Finding(text=(f"The validity audit flags {flagged.k:,} of the {flagged.n:,} runs"
                         + (f" ({parts})" if parts else "")
                         + f"; no flagged run is shown as an example. {limits}."),
                   target="tab-io500-flags" if len(flags) else None,  # the audit's table shows only with a flag
                   evidence=(flagged, *limit_records)), flagged


# A run "reaches" its setup's limit when its best bandwidth phase moves at least this share of it
REACHES_LIMIT = 0.5


def get_bounds(con) -> pd.DataFrame:
    """Each bandwidth phase of the runs (counted once) whose setup states a limit, against the least such limit
    (view io500_run_bounds)."""
    return con.execute(
        """
        SELECT r.run_key, b.phase, b.gib_s, b.bound_gib_s, b.binding, b.stated, b.share
        FROM io500_run_bounds b JOIN io500_runs r USING (run_id) WHERE r.counted ORDER BY r.run_key, b.phase
        """
    ).df()


def bounds_text(bounds: pd.DataFrame, runs: int) -> tuple[str, list[evidence.Count]]:
    """How many runs state a limit of their setup, and how many of those reach REACHES_LIMIT of it (a census): a
    clause of the audit's finding, and its records."""
    best = bounds.groupby("run_key").share.max()
    stating = evidence.count(len(best), runs, quantity="runs whose setup states a limit (links or drives x rate)",
                             of=evidence.Replicate.CENSUS)
    text = f"{stating.k:,} of the {stating.n:,} state a limit of their setup (links or drives times their rate)"
    if not len(best):
        return text, [stating]
    reaching = evidence.count(int((best >= REACHES_LIMIT).sum()), len(best), of=evidence.Replicate.CENSUS,
                              quantity=f"runs reaching {REACHES_LIMIT:.0%} of their setup's least limit")
    bests = f"{best.min():.0%}" if len(best) == 1 else f"from {best.min():.0%} to {best.max():.0%}"
    return (text + f", {reaching.k:,} of those reach {REACHES_LIMIT:.0%} of it in a phase (their best phase: "
            f"{bests})"), [stating, reaching]


def default_runs(runs: pd.DataFrame, n: int = 3, flagged: set[str] = frozenset()) -> list[str]:
    """The runs shown phase by phase when none are chosen: the n highest recomputed scores among valid runs,
    or among all runs with a score when none is valid; never a run with an implausible value, one the validity
    audit flags (`flagged`: run_keys) or a copy of a run shown already (three copies of one run are one run)."""
    scored = runs[runs.score.notna() & runs.implausible.isna() & ~runs.run_key.isin(flagged) & ~runs.duplicate]
    pool = scored[scored.valid] if scored.valid.any() else scored
    return pool.sort_values(["score", "run_key"], ascending=[False, True]).run_key.head(n).tolist()


def get_phases(con, run_keys: list[str]) -> pd.DataFrame:
    """The scored phases of the chosen runs (run_key as the runs view names them), in run order."""
    return con.execute(
        """
        SELECT r.run_key, p.phase, p.value, p.unit, p.time_s, p.valid
        FROM io500_runs r JOIN io500_phases p USING (run_id)
        WHERE list_contains(?, r.run_key) AND p.scored
        ORDER BY list_position(?, r.run_key), p.position
        """,
        [run_keys, run_keys],
    ).df()


def phase_table(phases: pd.DataFrame) -> pd.DataFrame:
    """One row per phase, one column per run (values in the phase's unit)."""
    wide = phases.pivot(index=["phase", "unit"], columns="run_key", values="value")
    wide = wide[list(dict.fromkeys(phases.run_key))].reset_index()
    order = {p: i for i, p in enumerate(dict.fromkeys(phases.phase))}
    return wide.sort_values("phase", key=lambda s: s.map(order))


def widest_phase(phases: pd.DataFrame) -> tuple[str, tuple]:
    """The scored phase whose results differ most between the runs shown (ratio of highest to lowest), as text, and
    its record (a range over the runs shown, no interval)."""
    spread = phases[phases.value > 0].groupby("phase", sort=False).value.agg(lambda v: v.max() / v.min())
    if len(phases.run_key.unique()) < 2 or spread.empty:
        return "no phase (one run shown)", ()
    runs = phases.run_key.nunique()
    record = evidence.described(spread.max(), quantity=f"{spread.idxmax()}: highest over lowest of the runs shown",
                                unit="x", n=runs, replicate=evidence.Replicate.RUN,
                                how=f"a range over {runs} runs, not an interval")
    return f"{spread.idxmax()} ({spread.max():,.1f}× between the highest and the lowest)", (record,)


def chart_phases(phases: pd.DataFrame) -> alt.Chart:
    """The chosen runs' phases as points on a log axis (a bar on a log axis has no zero to start from)."""
    return alt.Chart(phases[phases.value > 0]).mark_point(filled=True, size=80).encode(
        x=alt.X("value:Q", scale=alt.Scale(type="log"), title="GiB/s (ior phases) or kIOPS (mdtest, find)"),
        y=alt.Y("phase:N", title=None, sort=list(dict.fromkeys(phases.phase))),
        color=alt.Color("run_key:N", title="run", legend=alt.Legend(orient="bottom", columns=1)),
        shape=alt.Shape("run_key:N", title="run"),
        tooltip=["run_key", "phase", alt.Tooltip("value:Q", format=".3f"), "unit",
                 alt.Tooltip("time_s:Q", format=".1f", title="time (s)")],
    ).properties(width=460, title=alt.TitleParams(
        "Phase results of the runs shown, spanning "
        f"{phases.value[phases.value > 0].min():.3g} to {phases.value.max():,.0f}",
        subtitle="source: io500_phases view"))


def phase_weights(con, run_key: str) -> pd.DataFrame:
    """For each scored phase of one run: its exponent in the score and the factor by which the score changes
    when that phase alone is halved, recomputed by io500_runs.recompute from the run's own values."""
    values = dict(con.execute(
        "SELECT p.phase, p.value FROM io500_runs r JOIN io500_phases p USING (run_id) "
        "WHERE r.run_key = ? AND p.scored", [run_key]).fetchall())
    base = io500_runs.recompute(values).score
    rows = []
    for phase in PHASES:
        group = STANDARD_BW_PHASES if phase in STANDARD_BW_PHASES else STANDARD_MD_PHASES
        halved = io500_runs.recompute({**values, phase: values[phase] / 2}).score
        rows.append({"phase": phase, "group": "bandwidth" if group is STANDARD_BW_PHASES else "metadata",
                     "exponent": 1 / (2 * len(group)), "factor when halved": halved / base})
    return pd.DataFrame(rows)


def get_sc23(con, sc23_runs: dict[str, str]) -> pd.DataFrame:
    """Seed 000's SC23 table cell by cell beside the same value from the raw logs: each phase from the run's
    summary, the three totals recomputed; rounded to the slide's one decimal half-up. Empty when a run of `sc23_runs` (column label -> run_key) is not in the database."""
    keys = list(sc23_runs.values())
    held = {k for (k,) in con.execute(
        "SELECT run_key FROM io500_runs WHERE list_contains(?, run_key)", [keys]).fetchall()}
    if held != set(keys):
        return pd.DataFrame()
    label_of = {key: label for label, key in sc23_runs.items()}
    phases = get_phases(con, keys)
    raw = phases.assign(column=phases.run_key.map(label_of)).rename(columns={"phase": "row"})[
        ["column", "row", "value", "run_key"]]
    totals = con.execute(
        "SELECT r.run_key, s.bw_gib_s, s.md_kiops, s.score FROM io500_runs r JOIN io500_scores s USING (run_id) "
        "WHERE list_contains(?, r.run_key)", [keys]).df()
    totals = totals.melt(id_vars="run_key", var_name="measure", value_name="value").assign(
        column=lambda d: d.run_key.map(label_of),
        row=lambda d: d.measure.map({v: k for k, v in SC23_TOTALS.items()}))
    raw = pd.concat([raw, totals[["column", "row", "value", "run_key"]]], ignore_index=True)
    table = published.load(SC23_TABLE).merge(raw, on=["row", "column"], how="left",
                                              suffixes=("_published", "_raw"))
    table["raw rounded"] = table.value_raw.map(lambda x: present.half_up(x, 1))
    table["same"] = table["raw rounded"] == table.value_published
    return table


def sc23_wide(table: pd.DataFrame) -> pd.DataFrame:
    """The SC23 comparison as the slide lays it out: one row per slide row, per column the published value
    and the raw one with the digits the summary prints (the totals recomputed)."""
    out = table.assign(cell=lambda d: d.value_published.map("{:,.1f}".format) + " / "
                       + d.value_raw.map("{:,.6f}".format))
    wide = out.pivot(index="row", columns="column", values="cell")
    return wide.loc[list(dict.fromkeys(table.row)), list(dict.fromkeys(table.column))].reset_index()


# Where seed 000 prints a cell of its SC23 table again, in another table of the same talk: (table, column) ->
# the SC23 table's column (run) it repeats. Ehningen's comparison labels its Tucson column "ISC23" but prints
# the SC23 values (its percent column is computed from them).
SC23_ELSEWHERE = {("seed000_cloud_hpc_sc23", "SCORE"): "IBM Cloud HPC",
                  ("seed000_tucson_isc23_to_sc23", "SC23"): "IBM Tucson",
                  ("seed000_ehningen_vs_tucson", "IBM Tucson"): "IBM Tucson",
                  ("seed000_ehningen_vs_tucson", "IBM Ehningen"): "IBM Ehningen"}


def sc23_printed_elsewhere(sc23: pd.DataFrame) -> pd.DataFrame:
    """Each SC23 cell that is not the raw value rounded once: the raw value rounded twice (to two decimals, then
    one: a rule that would fit, but one the talk does not state), and what the same talk prints for the same
    run and phase in its other tables (the seed's lines), with whether that is the raw value rounded once."""
    differ = sc23[~sc23.same].assign(
        **{"raw rounded twice": lambda d: d.value_raw.map(lambda x: present.half_up(present.half_up(x, 2), 1))})
    frames = [published.load(table).query("column == @column").assign(column=run)
              for (table, column), run in SC23_ELSEWHERE.items()]
    elsewhere = pd.concat(frames, ignore_index=True).rename(columns={"value": "elsewhere"})
    out = differ[["row", "column"]].merge(elsewhere[["row", "column", "elsewhere", "line"]], on=["row", "column"])
    out = out.groupby(["row", "column", "elsewhere"], sort=False).line.agg(
        lambda lines: ", ".join(map(str, sorted(lines)))).rename("seed lines").reset_index()
    out = differ.merge(out, on=["row", "column"], how="left")
    out["elsewhere equals rounded once"] = out.elsewhere == out["raw rounded"]
    return out


def findings(agree: dict[str, int], census: evidence.Count, weights: pd.DataFrame, best: str, shown: list[str],
             phases: pd.DataFrame, mismatches: pd.DataFrame, sc23: pd.DataFrame,
             elsewhere: pd.DataFrame) -> list[Finding]:
    """The chapter's findings (MyST), each with the figure or table that shows it; the first is the main result:
    a census of the runs (every run checked), so counts and no interval."""
    by_group = weights.groupby("group")["factor when halved"].first()
    found = [Finding(text=f"{census.k:,} of {census.n:,} printed scores come back within {TOLERANCE:.1%} from the "
                          f"summary's phases; {agree['from_logs']:,} more from the phase logs.",
                     target="fig-io500-recomputed", evidence=(census,))]
    if len(sc23):
        once = evidence.count(int(sc23.same.sum()), len(sc23), quantity="SC23 cells equal to the raw value rounded once",
                              of=evidence.Replicate.CENSUS)
        seen = elsewhere[elsewhere["elsewhere equals rounded once"]]
        found.append(Finding(
            text=f"IBM's SC23 table {{cite:p}}`lewars2023` from the raw logs: {once.k} of its {once.n} cells equal the "
                 "raw value rounded once; the talk prints "
                 + ("each of the other" if len(seen) == once.n - once.k else f"{len(seen)} of the other")
                 + f" {once.n - once.k} that way in another of its tables.", target="tab-io500-sc23", evidence=(once,)))
    if len(mismatches):
        no_score = evidence.count(agree["not_comparable"], agree["runs"], of=evidence.Replicate.CENSUS,
                                  quantity="runs with no printed score to compare with")
        neither = evidence.count(agree["neither"], agree["comparable"], of=evidence.Replicate.CENSUS,
                                 quantity="printed scores reproduced neither from the summary nor from the logs")
        found.append(Finding(
            text=f"{no_score.k:,} of the {no_score.n:,} runs have no printed score to compare with "
                 "(the run stopped before its score line, or the script printed 0 for an invalid run); "
                 + (f"{neither.k:,} printed scores are reproduced neither way." if neither.k else
                    "every printed score is reproduced one way or the other."), target="tab-io500-mismatches",
            evidence=(no_score, neither)))
    halved = tuple(evidence.described(by_group[group], quantity=f"score factor when one {group} phase is halved",
                                      unit="x", n=1, replicate=evidence.Replicate.RUN,
                                      how="the score's formula on one run's phases")
                   for group in ("bandwidth", "metadata"))
    found.append(Finding(
        text=f"One phase weighs little: halving one bandwidth phase of {present.md_escape(best)} multiplies its score by "
             f"{by_group['bandwidth']:.3f} (0.5^(1/8)), halving one metadata phase by {by_group['metadata']:.3f} "
             "(0.5^(1/16)).", target="tab-io500-weights", evidence=halved))
    widest, spread = widest_phase(phases)
    found.append(Finding(
        text=f"The highest recomputed scores are {', '.join(map(present.md_escape, shown))}; their phases differ most in "
             f"{present.md_escape(widest)}.", target="fig-io500-phases", evidence=spread))
    return found


def summaries(mismatches: pd.DataFrame, sc23: pd.DataFrame, sc23_runs: dict[str, str],
              elsewhere: pd.DataFrame) -> dict[str, Prose]:
    """The chapter's sentences whose wording depends on the data (MyST): the mismatches, and seed 000's SC23
    table against the raw logs (its runs present or not, its differing cells and what the talk prints for them
    elsewhere)."""
    runs = ", ".join(f"{label}: {key}" for label, key in sc23_runs.items())
    seen = elsewhere[elsewhere["elsewhere equals rounded once"]] if len(elsewhere) else elsewhere
    twice = int((elsewhere["raw rounded twice"] == elsewhere.value_published).sum()) if len(elsewhere) else 0
    where = "; ".join(f"{row.row} of {row.column}: {row.value_published:,.1f} in this table, {row.elsewhere:,.1f} "
                      f"on seed line {row['seed lines']}" for _, row in seen.iterrows())
    texts = {
        "mismatch_summary": (
            f"The {len(mismatches):,} runs whose printed score is reproduced neither from the summary's phase "
            "values nor from the phase logs, or that cannot be compared, are in {numref}`tab-io500-mismatches` "
            "with the reason ingest found." if len(mismatches) else
            "Every run's printed score is reproduced (view `io500_score_mismatches` is empty)."),
        "sc23_summary": (
            "Seed 000's slide 'IO500 submissions from IBM for SC23' {cite:p}`lewars2023` prints the phases and "
            f"totals of IBM's three SC23 submissions ({runs}). Each cell below is the published value / the raw "
            "value; the phases come from each run's summary, the totals are recomputed from them." if len(sc23) else
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


def get_sources(con, run_keys: list[str]) -> pd.DataFrame:
    """The files of the given runs (present.sources)."""
    ids = con.execute(
        "SELECT DISTINCT f.source_id FROM io500_run_files f JOIN io500_runs r USING (run_id) "
        "WHERE list_contains(?, r.run_key)", [run_keys]).df().source_id
    return present.sources(con, ids)


HOW_TO_ADD = ("Ingest IO500 results (a `result_summary.txt`, `result.txt` or `io-500-summary*` file per run) with "
              "`python -m iobook ingest --db my.duckdb DIR` or build the book from them with "
              "`python -m iobook book --data DIR`.")


def report(con, *, phase_runs: list[str] = (), sc23_runs: dict[str, str] = SC23_RUNS) -> Report:
    """The chapter: every run's score recomputed beside the printed one (a census), what one phase weighs, the
    runs shown phase by phase (`phase_runs`, by run_key; empty: the three highest valid scores) and seed 000's
    SC23 table (`sc23_runs`: its column label -> run_key) set against the raw logs."""
    runs = get_runs(con)
    if runs.empty:
        return Report(values={"has_data": False}, note=present.no_data("IO500 runs", HOW_TO_ADD))
    flags = get_flags(con)
    bounds = get_bounds(con)
    shown = (selection.select(phase_runs, runs.run_key, "IO500 run") if phase_runs else
             default_runs(runs, flagged=set(flags.run_key)))
    agree = agreement(runs)
    census = evidence.count(agree["from_summary"], agree["comparable"], of=evidence.Replicate.CENSUS,
                            quantity="printed scores recomputed from the summary's phases")
    weights = phase_weights(con, shown[0])
    best = describe(runs, shown[0])
    releases = runs.release.dropna()
    sc23 = get_sc23(con, sc23_runs)
    elsewhere = sc23_printed_elsewhere(sc23) if len(sc23) else pd.DataFrame()
    mismatches = get_mismatches(con)
    phases = get_phases(con, shown)
    featured = sorted(set(shown) | (set(sc23_runs.values()) if len(sc23) else set()))
    sources = get_sources(con, featured)
    tables = {
        "tab-io500-mismatches": Table(frame=mismatches.rename(columns={
            "run_key": "run", "score": "recomputed score", "score_from_logs": "recomputed from logs",
            "reported_score_native": "printed score (its own scale)"}),
            formats={"recomputed score": ",.3f", "recomputed from logs": ",.3f", "printed score (its own scale)": ",.3f"}),
        "tab-io500-weights": Table(frame=weights.rename(columns={"exponent": "exponent in the score"}),
                                   formats={"exponent in the score": ".4f", "factor when halved": ".4f"}),
        "tab-io500-phases": Table(frame=phase_table(phases), formats={k: ",.3f" for k in shown}),
        "tab-io500-sources": Table(frame=sources),
    }
    if len(sc23):
        tables["tab-io500-sc23"] = Table(frame=sc23_wide(sc23))
        tables["tab-io500-sc23-differ"] = Table(
            frame=elsewhere[["row", "column", "printed", "value_raw", "raw rounded", "raw rounded twice", "elsewhere",
                             "seed lines"]].rename(
                columns={"row": "slide row", "column": "slide column", "printed": "published", "value_raw": "raw value",
                         "elsewhere": "printed elsewhere"}),
            formats={"raw value": ",.6f", "raw rounded": ",.1f", "raw rounded twice": ",.1f", "printed elsewhere": ",.1f"})
    found = findings(agree, census, weights, best, shown, phases, mismatches, sc23, elsewhere)
    audit, _ = flags_finding(flags, bounds, agree["runs"])
    found.insert(1, audit)
    tables["tab-io500-flags"] = Table(frame=flags.rename(columns={"run_key": "run"}))
    tables["tab-io500-bounds"] = Table(
        frame=bounds.rename(columns={"run_key": "run", "gib_s": "GiB/s", "bound_gib_s": "limit GiB/s",
                                     "binding": "least limit", "stated": "as stated", "share": "share of limit"}),
        formats={"GiB/s": ",.3f", "limit GiB/s": ",.3f", "share of limit": ".0%"})
    return Report(
        values={
            "has_data": True, "runs": agree["runs"], "copies": agree["copies"], "valid": agree["valid"],
            "comparable": agree["comparable"], "reproduced": agree["from_summary"] + agree["from_logs"],
            "mismatches": len(mismatches), "releases_named": len(releases),
            "releases": ", ".join(sorted(releases.unique(), key=lambda r: (r[-2:], r))) or "none",
            "release_text": Prose(release_text(runs)), "best": best, "tolerance_pct": 100 * TOLERANCE,
            "widest": widest_phase(phases)[0], "has_mismatches": len(mismatches) > 0, "has_sc23": len(sc23) > 0,
            "has_flags": len(flags) > 0, "flagged_runs": int(flags.run_key.nunique()),
            "has_bounds": len(bounds) > 0, "bounded_runs": int(bounds.run_key.nunique()),
            "phase_rule": Prose("chosen in the parameters (`phase_runs`)" if phase_runs else "the three highest "
                                   "recomputed scores among the valid runs (the default when `phase_runs` is empty)"),
            "sc23_source": f"{sc23.source.iloc[0]} (data/published/{SC23_TABLE}.csv)" if len(sc23) else "",
            "files_links": Html("".join(present.files_link(get_sources(con, [key]).path, key) for key in featured)),
            **summaries(mismatches, sc23, sc23_runs, elsewhere)},
        figures={"fig-io500-recomputed": chart_recomputed_vs_reported(runs), "fig-io500-phases": chart_phases(phases)},
        tables=tables, findings=found, evidence=[f for finding in found for f in finding.evidence],
        abstract=[f for f in found if f.target == "tab-io500-sc23"])
