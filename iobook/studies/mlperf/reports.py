"""The published reports recomputed: each mlperf_storage_report.json's mean and stdev of its result's runs, as the
IO500 score is recomputed from its phases. A census of the reports (every one checked): counts, no interval."""
from __future__ import annotations

import pandas as pd

from ...database import store
from ...inference import evidence

# The JSON prints 15-17 significant digits: a mean or stdev recomputed from the runs' summary.json differs from the
# published one in the last of them (the order of a floating-point sum), never by this much
REPRODUCED = 1e-9
COMPARED = ("mb_per_s", "mb_per_s_stdev", "samples_per_s", "samples_per_s_stdev")


def get_reports(con) -> pd.DataFrame:
    """Every report beside its result's recomputed mean and population stdev (queries/reports.sql), `reproduced`
    when it names the result's run count, each of its runs is one of the result's and every published figure comes
    back within REPRODUCED; `stdev_back` when its stdev of MB/s does."""
    reports = store.frame(con, __package__, "reports", [REPRODUCED, REPRODUCED])
    close = {c: (reports[f"published_{c}"] - reports[c]).abs() <= REPRODUCED * reports[f"published_{c}"].abs()
             for c in COMPARED}
    same_runs = (reports.runs_equal == reports.runs) & (reports.report_runs == reports.runs)
    reports["stdev_back"] = close["mb_per_s_stdev"]
    reports["reproduced"] = same_runs & pd.concat(close.values(), axis=1).all(axis=1)
    return reports


def get_sources(con) -> pd.DataFrame:
    """For each report, the results holding runs with its runs' values and how many (queries/report_sources.sql)."""
    return store.frame(con, __package__, "report_sources", [REPRODUCED, REPRODUCED])


def census(reports: pd.DataFrame) -> evidence.Count:
    return evidence.count(k=int(reports.reproduced.sum()), n=len(reports), of=evidence.Replicate.CENSUS,
                          quantity="published reports whose mean and stdev come back from their result's runs")


def not_reproduced(reports: pd.DataFrame, sources: pd.DataFrame) -> pd.DataFrame:
    """The reports that do not come back, each with the result whose runs it publishes where that is another one
    (the result holding most of its runs' values), and the accelerators either states."""
    wrong = reports[~reports.reproduced].copy()
    elsewhere = sources[sources.runs_equal > 0].merge(wrong[["path", "result"]], on="path", suffixes=("", "_own"))
    elsewhere = elsewhere[elsewhere.result != elsewhere.result_own].drop_duplicates("path")
    found = elsewhere.set_index("path")
    wrong["runs_of"] = wrong.path.map(found.result)
    wrong["runs_of_accelerators"] = wrong.path.map(found.accelerators)
    wrong["runs_of_hosts"] = wrong.path.map(found.hosts)
    wrong["runs_of_equal"] = wrong.path.map(found.runs_equal)
    return wrong
