"""AI training storage: MLPerf Storage v1.0's results read as data (the chapter `mlperf`): every run's accelerator
utilisation against its workload's minimum, the coded validity audit (view mlperf_run_flags), each run's rate against
its hosts' links as its system's description states them, MiB/s per simulated accelerator by workload and accelerator
type, each published report's mean and stdev recomputed from its runs, and the organisations' own claims (published
figures) beside what their files show.
Layers: queries/*.sql, analysis (runs -> records), audit (the codes' rules and sources), reports (the published
reports recomputed), claims (the supplements' figures against the results), charts, findings; `report` wires them
for the notebook."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Prose, Report
from ...database import store
from ...inference import evidence
from . import analysis, audit, charts, claims, findings, reports, tables

HOW_TO_ADD = ("Ingest MLPerf Storage results (the `<organisation>/results/<system>/...` trees of DLIO's `summary.json`, "
              "`per_epoch_stats.json`, `configs/` and `mlperf_storage_report.json`, with `<organisation>/systems/"
              "<system>.json`) with `python -m iobook ingest --db my.duckdb DIR`, or build the book on them with "
              "`python -m iobook book --data DIR`.")
SYSTEM_FORMAT = "mlperf-storage-system"  # the format name of a system description (iobook/parsers/mlperf_system.py)


def report(con, *, link_example: str = "", claim_example: str = "") -> Report:
    """The chapter: the AU census, the audit, the runs against their links (with the result `link_example` names,
    by its key organisation/<folders under results/>, as the example beside the run reading the largest share; a
    key the data lack leaves the example out), MiB/s per accelerator with H100 over A100 decided once, the
    published reports recomputed, and the organisations' claims beside their files (`claim_example`: the row label
    of the claim the page sets out in a sentence); on any database, the empty one included."""
    runs = analysis.get_runs(con)
    if runs.empty:
        return Report(values={"has_data": False}, note=present.no_data("MLPerf Storage runs", HOW_TO_ADD))
    flags = analysis.get_flags(con)
    runs = analysis.with_flags(runs, flags)
    au, memory = analysis.au_records(runs, flags), analysis.memory_records(runs, flags)
    units = analysis.units_census(runs)
    limits = analysis.link_records(runs)
    above = audit.census(flags, "rate_above_links", len(runs))
    top, named = analysis.link_examples(runs, link_example) if limits[0].k else (None, None)
    results, workloads = analysis.results(runs), analysis.workloads(runs)
    said, every_result = claims.load(), claims.results(runs)
    compared, claimed = evidence.decide_groups(analysis.accelerator_comparisons(runs),
                                               claims.compared(said, runs, every_result))
    predicted = [p for p in (analysis.predicted_ratio(workloads, c.label.split()[0]) for c in compared) if p]
    every_report = reports.get_reports(con)
    wrong = reports.not_reproduced(every_report, reports.get_sources(con))
    reproduced = reports.census(every_report)
    unread = store.frame(con, __package__, "unread_descriptions", [SYSTEM_FORMAT])
    systems = store.frame(con, __package__, "systems")
    beside = claims.beside(said, every_result, systems)
    names = tables.short_names(pd.concat([runs[["organisation", "system"]], systems[["organisation", "system"]]]))
    found = [findings.au_finding(au), findings.memory_finding(memory), findings.links_finding(limits, above, top, named)]
    if compared:
        found.append(findings.accelerator_finding(compared, predicted))
    if len(every_report):
        found.append(findings.reports_finding(reproduced, wrong))
    found.append(findings.claims_finding(len(said), claimed, beside, units))
    return Report(
        values={"has_data": True, "runs": len(runs), "results": runs.result.nunique(),
                "organisations": runs.organisation.nunique(), "systems": runs.system_key.nunique(),
                "descriptions": len(systems), "descriptions_unread": len(unread),
                "within_one_point": au["within"].k, "epoch_below": au["epoch"].k,
                "below_5x": memory["below_5x"].k, "below_5x_v1": memory["below_5x_v1"].k,
                "sum_whole": memory["sum_whole"].k,
                "below_5x_described": memory["below_5x_described"].k,
                "described_memory_runs": memory["below_5x_described"].n,
                "no_memory": memory["no_memory"].k, "caching": memory["caching"].k,
                "stating_links": limits[0].k, "units_runs": units.k, "reports": len(every_report),
                "reports_reproduced": reproduced.k, "has_links": limits[0].k > 0, "has_comparisons": bool(compared),
                "has_reports": len(every_report) > 0, "has_report_mismatches": len(wrong) > 0,
                "claims": len(said), "claims_compared": len(claimed), "has_claims_compared": bool(claimed),
                "claims_units_text": Prose(findings.claims_units_text(claimed)),
                "claim_text": Prose(findings.claim_sentence(claims.example(said, beside, every_result, claim_example))),
                "drives_text": Prose(findings.drives_text(systems, names)),
                **findings.summaries(runs, unread, wrong)},
        figures={"fig-mlperf-au": charts.chart_au_margin(runs, au["within"]),
                 **({"fig-mlperf-links": charts.chart_links(runs, limits[1])} if limits[0].k else {}),
                 "fig-mlperf-per-accelerator": charts.chart_per_accelerator(results, workloads)},
        tables={"tab-mlperf-audit": tables.audit_codes(runs, flags),
                "tab-mlperf-results": tables.results(results, names),
                "tab-mlperf-workloads": tables.workloads(workloads),
                "tab-mlperf-systems": tables.system_clients(systems, names),
                "tab-mlperf-storage": tables.system_storage(systems, names),
                **({"tab-mlperf-accelerators": tables.accelerators(compared)} if compared else {}),
                **({"tab-mlperf-reports": tables.reports(every_report, names)} if len(every_report) else {}),
                "tab-mlperf-claims": tables.claims(beside, names),
                **({"tab-mlperf-claims-compared": tables.claims_compared(claimed)} if claimed else {})},
        findings=found, evidence=[*compared, *(r for f in found for r in f.evidence)])
