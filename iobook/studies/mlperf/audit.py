"""The MLPerf Storage validity audit as the chapter shows it: each code of view mlperf_run_flags with its rule and
its source (the rules themselves are the view's, iobook/database/views/mlperf.sql), and how many runs and results
each flags: a census of every run, so counts and no interval."""
from __future__ import annotations

import pandas as pd

from ...inference import evidence

GUIDELINES = "MLPerf Storage v1.0 submission guidelines"
# the rules' text as mlcommons/storage keeps it now (its sections as numbered there; v1.0's own copy was not read)
RULES_TEXT = "mlcommons/storage Submission_guidelines.md"
SUMMARY = "DLIO's summary.json"

# code -> (rule, source), in the order the view lists them
CODES = {
    "au_below_minimum": ("AU, the mean over epochs, below the workload's minimum: unet3d and resnet50 90 %, "
                         "cosmoflow 70 %", f"{GUIDELINES}; DLIO's own AU check"),
    "au_within_one_point": ("AU at the minimum or less than one point above it",
                            "this book: AU met while the storage barely keeps up, mlcommons/storage issue 464"),
    "data_set_below_5x_memory": ("data set under 5x the clients' memory: the sum DLIO lists in summary.json, or "
                                 "where it lists none the system description's DRAM times the hosts",
                                 f"{RULES_TEXT} 6.6 Caching; mlpstorage rules.py calculate_training_data_size"),
    "host_reports_no_memory": ("a host listed with 0 GB (the sum still holds every host's memory where it equals "
                               "the hosts times the memory of the host that wrote the file)",
                               f"{SUMMARY}, host_memory_GB"),
    "potential_caching": ("a host with more memory than its share of the data set",
                          f"{SUMMARY}, potential_caching"),
    "not_five_runs": ("a result with other than five runs", GUIDELINES),
    "settings_differ": ("a result whose runs differ in workload, accelerators, hosts or DLIO's I/O parameters",
                        GUIDELINES),
    "clients_differ": ("a result whose runs name another client host, CPU model or per-host CPU counts, or whose "
                       "clients' memory is more than 1 % apart",
                       f"{RULES_TEXT} 3, a benchmark result: \"The 5 runs must be done on the same machine(s)\""),
    "rate_above_links": ("a run reading faster than its hosts' links as its system's description states them",
                         "this book's bound: data that did not cross the network, IO500 issue 88"),
    "log_disagrees_with_summary": ("the run's dlio.log prints a metric its summary.json does not hold, beyond the "
                                   "log's four printed decimals", "DLIO's dlio.log and summary.json"),
}


def flagged_runs(runs: pd.DataFrame, flags: pd.DataFrame) -> pd.Series:
    """Each run's codes, joined (', '), or missing for a run with none: the column evidence.examples reads."""
    codes = flags.groupby("path").code.agg(lambda c: ", ".join(sorted(c)))
    return runs.path.map(codes)


def census(flags: pd.DataFrame, code: str, runs: int) -> evidence.Count:
    """How many of the runs one code flags."""
    return evidence.count(k=flags.loc[flags.code == code, "path"].nunique(), n=runs,
                          quantity=f"runs flagged {code}", of=evidence.Replicate.CENSUS)


def table(runs: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    """One row per code: its rule and source, and the runs and results it flags (0 where it flags none)."""
    by_code = flags.groupby("code").agg(runs=("path", "nunique"), results=("result", "nunique"))
    unknown = sorted(set(by_code.index) - set(CODES))
    if unknown:  # a code the view emits that this table cannot state a rule for
        raise ValueError(f"mlperf_run_flags codes without a rule here: {unknown}")
    rows = [{"code": code, "rule": rule, "source": source,
             "runs": int(by_code.runs.get(code, 0)), "results": int(by_code.results.get(code, 0))}
            for code, (rule, source) in CODES.items()]
    return pd.DataFrame(rows).rename(columns={"runs": f"runs (of {len(runs):,})",
                                              "results": f"results (of {runs.result.nunique():,})"})
