"""The MLPerf Storage validity audit as the chapter shows it: each code of view mlperf_run_flags with its rule and
its source (the rules themselves are the view's, iobook/database/views/mlperf.sql), and how many runs and results
each flags: a census of every run, so counts and no interval."""
from __future__ import annotations

import pandas as pd

from ...inference import evidence

# The v1.0 texts each code cites, with the commit read (the rules as the view states them:
# iobook/database/views/mlperf.sql). mlcommons/storage's v1.0 tag keeps no stored copy of the guidelines: the earliest
# stored one is the v2.0 draft begun from them, its timeline still the v1.0 round's ("Aug 21, 2024 | Submissions due")
# (the chapter says so once, under what it cannot say; the table names the copy)
RULES_V1 = "mlcommons/storage Submission_guidelines.md at be18c3e5"
# the reportgen whose keys (model, accelerator, num_benchmark_runs, ...) the v1.0 mlperf_storage_report.json files carry
REPORTGEN_V1 = "mlcommons/storage report.py at 16b959b2 (v1.0's reportgen)"
# Closed/YanRongTech/code/benchmark_code_v1.0/benchmark.sh there (a path too long for a table cell)
BENCHMARK_V1 = ("v1.0's benchmark.sh as YanRongTech submitted it, the mlcommons storage_results_v1.0 repository at "
                "1c5efa73")
# v2.0's code, for the rule v1.0 does not have
RULES_V2_CODE = "mlcommons/storage mlpstorage/rules.py at 2319cad5, calculate_training_data_size"
SUMMARY = "DLIO's summary.json"

# code -> (rule, source), in the order the view lists them
CODES = {
    "au_below_minimum": ("AU, the mean over epochs, below the workload's minimum: unet3d and resnet50 90 %, "
                         "cosmoflow 70 %",
                         f"v1.0: {RULES_V1}, section 2.1, Table 1 \"Minimum AU%\" (3D U-Net 90%, ResNet-50 90%, "
                         f"CosmoFlow 70%); {REPORTGEN_V1} rejects a run whose train_au_meet_expectation is \"fail\""),
    "au_within_one_point": ("AU at the minimum or less than one point above it",
                            "this book: AU met while the storage barely keeps up, mlcommons/storage issue 464"),
    "data_set_below_5x_memory": ("data set under 5x the clients' memory as the submitter states it: the system "
                                 "description's client DRAM times the hosts, or where no description read states "
                                 "it the memory DLIO measured",
                                 f"v1.0: {RULES_V1}, section 6.6 Caching: \"the dataset size must be at least 5x "
                                 "larger than the sum of memory across all of the MLPerf Storage nodes\"; v1.0 sized "
                                 f"it from the memory the submitter gave, measuring none ({BENCHMARK_V1}: datasize, "
                                 "HOST_MEMORY_MULTIPLIER=5, --client-host-memory-in-gb)"),
    "data_set_below_5x_measured": ("data set under 5x the memory DLIO measured on the hosts (the sum of "
                                   "summary.json's host_memory_GB)",
                                   f"v2.0's rule applied to v1.0 results: {RULES_V2_CODE} collects \"Total Memory\" "
                                   "from /proc/meminfo on each host where given none"),
    "host_reports_no_memory": ("a host listed with 0 GB (the sum still holds every host's memory where it equals "
                               "the hosts times the memory of the host that wrote the file)",
                               f"{SUMMARY}, host_memory_GB"),
    "potential_caching": ("a host with more memory than its share of the data set",
                          f"{SUMMARY}, potential_caching"),
    "not_five_runs": ("a result with other than five runs",
                      f"v1.0: {REPORTGEN_V1}, REQUIRED_BENCHMARK_RUNS = 5; {RULES_V1}, section 3: \"A benchmark "
                      "result is the mean of 5 run results\""),
    "settings_differ": ("a result whose runs differ in workload, accelerators, hosts or DLIO's I/O parameters",
                        f"v1.0: {REPORTGEN_V1} rejects runs differing in model, accelerator, number of "
                        "accelerators, training files or samples per file; the other settings are this book's"),
    "clients_differ": ("a result whose runs name another client host, CPU model or per-host CPU counts, or whose "
                       "measured memory is more than 1 % apart",
                       f"v1.0: {RULES_V1}, section 3, a benchmark result: \"The 5 runs must be done on the same "
                       "machine(s)\" (v1.0's reportgen checks none of it)"),
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
