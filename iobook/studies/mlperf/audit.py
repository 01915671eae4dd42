"""The MLPerf Storage validity audit as the chapter shows it: each code of view mlperf_run_flags with its rule and
its source (the rules themselves are the view's, iobook/database/views/mlperf.sql), and how many runs and results
each flags: a census of every run, so counts and no interval."""
from __future__ import annotations

import pandas as pd

from ...inference import evidence

GUIDELINES = "mlcommons/storage v1.0 Submission_guidelines.md"
STATSCOUNTER = "DLIO's summary.json (dlio_benchmark utils/statscounter.py)"

# code -> (rule, source), in the order the view lists them
CODES = {
    "au_below_minimum": ("AU, the mean over epochs, below the workload's minimum: unet3d and resnet50 90 %, "
                         "cosmoflow 70 %", f"{GUIDELINES}; DLIO's train_au_meet_expectation"),
    "au_within_one_point": ("AU at the minimum or less than one point above it",
                            "this book's margin: AU can be met while the storage barely keeps up "
                            "(mlcommons/storage issue 464)"),
    "data_set_below_5x_memory": ("data set (data_size_per_host_GB x hosts) under 5x the memory DLIO measured "
                                 "on the hosts", "mlcommons/storage v1.0 benchmark.sh datasize; mlpstorage "
                                 "rules.py: the data set at least 5x the hosts' total memory"),
    "host_reports_no_memory": ("a host whose host_memory_GB is 0: its memory is missing from the 5x check",
                               STATSCOUNTER),
    "potential_caching": ("a host with more memory than its share of the data set (DLIO's potential_caching)",
                          STATSCOUNTER),
    "not_five_runs": ("a result with other than five runs", GUIDELINES),
    "settings_differ": ("a result whose runs differ in workload, accelerators, hosts or DLIO's I/O parameters",
                        GUIDELINES),
    "rate_above_links": ("a run reading faster than its hosts' links as the system description states them",
                         "this book's bound: data that did not cross the clients' network (IO500 issue 88)"),
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
