"""The IO500 score recomputed for every run beside the score its tool printed, what one phase weighs in it,
and seed 000's SC23 table (IBM's three SC23 submissions) reproduced from the raw logs (the chapter `io500_score`).
Layers: queries/*.sql, analysis, sc23 (the seed's table), charts, findings; `report` wires them for the notebook.
The study compares no groups (its records are censuses and described values): nothing to decide."""
from __future__ import annotations

from ...book import present
from ...book.report import Html, Prose, Report, Table
from ...inference import selection
from . import analysis, charts, findings, ports, sc23
from .analysis import release_label, release_text
from .sc23 import SC23_RUNS, SC23_TABLE

__all__ = ["SC23_RUNS", "release_label", "release_text", "report"]

HOW_TO_ADD = ("Ingest IO500 results (a `result_summary.txt`, `result.txt` or `io-500-summary*` file per run) with "
              "`python -m iobook ingest --db my.duckdb DIR` or build the book from them with "
              "`python -m iobook book --data DIR`.")
SCORE_FORMAT = ",.3f"  # scores and GiB/s to three decimals: the tolerance is 0.1 %
MISMATCH_COLUMNS = {"run_key": "runs", "score": "recomputed score", "score_from_logs": "recomputed from logs",
                    "reported_score_native": "printed score (its own scale)"}
BOUNDS_COLUMNS = {"run_key": "run", "gib_s": "GiB/s", "bound_gib_s": "limit GiB/s", "binding": "least limit",
                  "stated": "as stated", "share": "share of limit"}


def _tables(con, *, mismatches, weights, phases, shown, featured, table, elsewhere, flags, coverage,
            census, bounds, checks) -> dict:
    """The chapter's tables (the SC23 ones only when its runs are all held; the weights and phases only when a run
    has a score)."""
    tables = {
        "tab-io500-mismatches": present.said_once(  # one institution and system: said once above
            analysis.mismatch_table(mismatches).rename(columns=MISMATCH_COLUMNS),
            {name: SCORE_FORMAT for name in list(MISMATCH_COLUMNS.values())[1:]}),
        "tab-io500-sources": Table(frame=analysis.get_sources(con, featured)),
    }
    if shown:
        tables["tab-io500-weights"] = Table(frame=weights.rename(columns={"exponent": "exponent in the score"}),
                                            formats={"exponent in the score": ".4f", "factor when halved": ".4f"})
        tables["tab-io500-phases"] = Table(frame=analysis.phase_table(phases), formats={k: SCORE_FORMAT for k in shown})
    if len(table):
        tables["tab-io500-sc23"] = Table(frame=sc23.sc23_wide(table))
        tables["tab-io500-sc23-differ"] = Table(
            frame=sc23.differ_table(elsewhere),
            formats={"raw value": ",.6f", "raw rounded": ",.1f", "raw rounded twice": ",.1f", "printed elsewhere": ",.1f"})
    sources = analysis.sources_of(flags)
    tables["tab-io500-audit"] = Table(frame=coverage.assign(source=[
        sources.get(code, "each run's own, in the table of flags" if code in set(flags.code) else "–")
        for code in coverage.flag]))
    tables["tab-io500-ports"] = Table(frame=ports.census_table(census))
    tables["tab-io500-flags"] = Table(frame=analysis.flags_table(flags))
    if len(checks):
        tables["tab-io500-lists"] = Table(frame=analysis.list_check_table(checks))
    tables["tab-io500-bounds"] = Table(frame=bounds.rename(columns=BOUNDS_COLUMNS), formats={
        "GiB/s": SCORE_FORMAT, "limit GiB/s": SCORE_FORMAT, "share of limit": ".0%"})
    return tables


def report(con, *, phase_runs: list[str] = (), sc23_runs: dict[str, str] = SC23_RUNS) -> Report:
    """The chapter: every run's score recomputed beside the printed one (a census), what one phase weighs, the
    runs shown phase by phase (`phase_runs`, by run_key; empty: the three highest valid scores) and seed 000's
    SC23 table (`sc23_runs`: its column label -> run_key) set against the raw logs."""
    runs = analysis.get_runs(con)
    if runs.empty:
        return Report(values={"has_data": False}, note=present.no_data("IO500 runs", HOW_TO_ADD))
    flags = analysis.get_flags(con)
    bounds = analysis.get_bounds(con)
    shown = (selection.select(phase_runs, runs.run_key, "IO500 run") if phase_runs else
             analysis.default_runs(runs, flagged=set(flags.run_key)))
    agree = analysis.agreement(runs)
    # a run killed before its score (or every run so) has no phase set to weigh: those sections are left out
    weights = analysis.phase_weights(con, shown[0]) if shown else None
    best = analysis.describe(runs, shown[0]) if shown else ""
    releases = runs.release.dropna()
    table = sc23.get_sc23(con, sc23_runs)
    elsewhere = sc23.sc23_printed_elsewhere(table) if len(table) else table
    every_mismatch = analysis.get_mismatches(con)
    copies = every_mismatch[every_mismatch.copy_of.notna()]  # counted once, as the run they copy
    mismatches = every_mismatch[every_mismatch.copy_of.isna()]
    phases = analysis.get_phases(con, shown)
    widest, spread = analysis.widest_phase(phases)
    featured = sorted(set(shown) | (set(sc23_runs.values()) if len(table) else set()))
    best_shares, limits = analysis.bounds_records(bounds, agree["runs"])
    coverage = analysis.flag_coverage(con, flags)
    census = ports.port_census(con)
    checks = analysis.list_checks(con)
    found = [findings.main_finding(agree, analysis.census(agree)),
             findings.audit_finding(coverage, flags, agree["runs"], census)]
    # a run's flags, its codes joined: the SC23 runs are shown with theirs (the methods page's rule)
    flagged = flags.groupby("run_key").code.agg(lambda c: ", ".join(sorted(set(c)))).to_dict()
    if len(table):
        found.append(findings.sc23_finding(table, elsewhere,
                                           findings.flagged_text(flagged, list(sc23_runs.values()))))
    if len(checks):
        found.append(findings.lists_finding(checks))
    if shown:
        found += [findings.weights_finding(weights, best), findings.phases_finding(shown, widest, spread)]
    return Report(
        values={
            "has_data": True, "has_scored": bool(shown), "has_no_scored": not shown, "runs": agree["runs"],
            "copies": agree["copies"], "valid": agree["valid"],
            "comparable": agree["comparable"], "reproduced": agree["from_summary"] + agree["from_logs"],
            "mismatches": len(mismatches), "mismatch_copies": len(copies), "releases_named": len(releases),
            "releases": ", ".join(sorted(releases.unique(), key=lambda r: (r[-2:], r))) or "none",
            "release_text": Prose(release_text(runs)), "best": best, "tolerance_pct": 100 * analysis.TOLERANCE,
            "widest": widest, "has_mismatches": len(mismatches) > 0, "has_sc23": len(table) > 0,
            "has_flags": len(flags) > 0, "has_lists": len(checks) > 0, "list_submissions": len(checks),
            "list_differ": int((checks.reason != "AGREES").sum()), "flagged_runs": int(flags.run_key.nunique()),
            "port_runs": int(census[census.above].run_id.nunique()), "port_tested": int(census.run_id.nunique()),
            "has_port_runs": bool(census.above.any()), "port_paths": Prose(ports.paths_text(ports.census_records(census))),
            "has_bounds": len(bounds) > 0, "bounded_runs": int(bounds.run_key.nunique()),
            "bounds_text": findings.bounds_text(best_shares, limits),
            "phase_rule": Prose(("chosen in the parameters (`phase_runs`)" if phase_runs else "the three highest "
                                 "recomputed scores among the valid runs (the default when `phase_runs` is empty)")
                                + ("; every run here carries a validity flag, so these do (the audit's table)"
                                   if set(shown) <= set(flags.run_key) else "")),
            "sc23_source": f"{table.source.iloc[0]} (data/published/{SC23_TABLE}.csv)" if len(table) else "",
            "files_links": Html("".join(present.files_link(analysis.get_sources(con, [key]).path, key)
                                        for key in featured)),
            **findings.summaries(mismatches, copies, table, sc23_runs, elsewhere, flagged)},
        figures={"fig-io500-recomputed": charts.chart_recomputed_vs_reported(runs, agree),
                 **({"fig-io500-phases": charts.chart_phases(phases)} if shown else {})},
        tables=_tables(con, mismatches=mismatches, weights=weights, phases=phases, shown=shown, featured=featured,
                       table=table, elsewhere=elsewhere, flags=flags, coverage=coverage, census=census,
                       bounds=bounds, checks=checks),
        findings=found, evidence=[f for finding in found for f in finding.evidence],
        abstract=[f for f in found if f.target == "tab-io500-sc23"])
