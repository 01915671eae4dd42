"""The mlperf chapter: its study on the empty and default test databases, each value it states recomputed here from the
files in data/raw/mlperf (their JSON and YAML read directly, not through ingest), the finding-length rule, and its
notebook executed on both."""
import json
import re
import statistics
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SHARED, execute_chapter

from iobook.book import chapters, present
from iobook.book.report import FIRST_FINDING_WORDS, MAX_FINDING_WORDS
from iobook.database import published, store
from iobook.inference import evidence
from iobook.studies import mlperf as study
from iobook.studies.mlperf import analysis

CLOSED = REPO / "data" / "raw" / "mlperf" / "Closed"
# mlcommons/storage Submission_guidelines.md at be18c3e5 (the v1.0 round's timeline), 2.1 Table 1 "Minimum AU%":
# "3D U-Net ... 90%", "ResNet-50 ... 90%", "CosmoFlow ... 70%"
AU_MINIMUM = {"unet3d": 90, "resnet50": 90, "cosmoflow": 70}
# v1.0's reportgen (mlcommons/storage report.py at 16b959b2): "REQUIRED_BENCHMARK_RUNS = 5"
REQUIRED_BENCHMARK_RUNS = 5
# v1.0's benchmark.sh (mlcommons/storage_results_v1.0 at 1c5efa73, Closed/YanRongTech/code/benchmark_code_v1.0/):
# "HOST_MEMORY_MULTIPLIER=5"
HOST_MEMORY_MULTIPLIER = 5
DLIO_MB = 2 ** 20  # dlio_benchmark utils/statscounter.py: samples/s x record_length / 1024 / 1024
DDN = "DDN/AI400X2T_24x14TiB_nvme_8xNDR200_18clients/unet3d-a100/runs"
DDN_SYSTEM = CLOSED / "DDN/systems/AI400X2T_24x14TiB_nvme_8xNDR200_18clients.json"
YANRONG = CLOSED / "YanRongTech/results"
# the report that publishes another result's runs, and that result
COPIED_REPORT = YANRONG / "F8000X_8x7000GiB_nvme_2xHDR200_Nclient1/unet3d-h100/unet3d_1acc/mlperf_storage_report.json"
COPIED_RESULT = YANRONG / "F8000X_8x7000GiB_nvme_2xHDR200_Nclient3/unet3d-h100/unet3d_12acc"


def words(text: str) -> int:
    """A finding's words as the page shows them, roles ({numref}`...`) one word each."""
    return len(re.sub(r"\{[^}]+\}`[^`]*`", "x", text).split())


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    """Every run of data/raw/mlperf from its own files: summary.json and the config.yaml beside it."""
    runs = []
    for path in sorted(CLOSED.rglob("summary.json")):
        doc = json.loads(path.read_text())
        config = yaml.safe_load((path.parent / "configs/config.yaml").read_text())["workload"]
        runs.append({"path": path, "doc": doc, "model": config["model"], "au": config["metric"]["au"],
                     "record_length": config["dataset"]["record_length"],
                     # a result is the folder of its run folders (run1, run_1, run-1, cosmoflow_a100_run_1)
                     "result": re.match(r"(?i)^(.*)/[^/]*run[-_]?\d+/", str(path.relative_to(CLOSED))).group(1),
                     "overrides": (path.parent / "configs/overrides.yaml").read_text()})
    return runs


def client_dram_gib(summary: Path) -> float | None:
    """A run's client DRAM in 2^30 bytes from its system's description, read here from the JSON: the description
    named as the system folder (the folder after results/), else the organisation's only one; its client node types
    are those named '...client...', or its only node type."""
    parts = summary.relative_to(CLOSED).parts
    descriptions = sorted((CLOSED / parts[0] / "systems").glob("*.json"))
    named = CLOSED / parts[0] / "systems" / f"{parts[2]}.json"
    path = named if named.exists() else descriptions[0] if len(descriptions) == 1 else None
    try:
        nodes = json.loads(path.read_text())["nodes"] if path else []
    except json.JSONDecodeError:  # the descriptions that are not JSON (data/raw/mlperf's README)
        return None
    clients = [n for n in nodes if "client" in n["node_type_name"].lower()] or (nodes if len(nodes) == 1 else [])
    dram = [n["DRAM"]["capacity_MiB"] / 1024 if "capacity_MiB" in n["DRAM"] else n["DRAM"]["capacity_GB"] * 1e9 / 2 ** 30
            for n in clients if n.get("DRAM") and ({"capacity_MiB", "capacity_GB"} & set(n["DRAM"]))]
    return max(dram) if dram else None


@pytest.fixture(scope="module")
def default_report(databases):
    """The chapter's report on data/raw's database with the registry's parameters (the connection closed after it:
    DuckDB refuses a second one to the file while one is open)."""
    with store.open_read(databases["default"]) as con:
        return study.report(con, **{c.name: c for c in chapters.load_registry()}["mlperf"].parameters)


def test_empty_database_says_what_to_add(databases):
    with store.open_read(databases["empty"]) as con:
        r = study.report(con)
    assert r.values == {"has_data": False} and not r.findings and "MLPerf Storage" in r.note


def test_counts_come_from_the_files(default_report, corpus):
    v = default_report.values
    au = [(r["doc"]["metric"]["train_au_mean_percentage"], AU_MINIMUM[r["model"]]) for r in corpus]
    memory = [sum(r["doc"]["host_memory_GB"]) for r in corpus]
    data_set = [r["doc"]["data_size_per_host_GB"] * r["doc"]["num_hosts"] for r in corpus]
    # 575 summary.json files of 10 organisations (the folder under Closed/), each result a folder of runs
    assert v["runs"] == len(corpus) == 575
    assert v["organisations"] == len({r["path"].relative_to(CLOSED).parts[0] for r in corpus}) == 10
    assert v["reports"] == len(list(CLOSED.rglob("mlperf_storage_report.json"))) == 115
    # issue 48's counts, from each summary.json's metric and host lists
    assert v["within_one_point"] == sum(m <= a < m + 1 for a, m in au) == 165
    assert v["below_5x"] == sum(d < HOST_MEMORY_MULTIPLIER * m for d, m in zip(data_set, memory)) == 145
    assert v["no_memory"] == sum(0 in r["doc"]["host_memory_GB"] for r in corpus) == 120
    assert v["caching"] == sum(any(c > 0 for c in r["doc"]["potential_caching"]) for r in corpus) == 55
    assert v["epoch_below"] == sum(a >= m and min(r["doc"]["metric"]["train_au_percentage"]) < m
                                   for (a, m), r in zip(au, corpus))
    # the hosts listed with 0 GB: in every run the list still sums to num_hosts x MemTotal (kB) of the host that
    # wrote the file, within 0.1 % (the run's other hosts differ from it by kB to MB)
    whole = [abs(m - r["doc"]["num_hosts"] * int(r["doc"]["host_meminfo"]["MemTotal"].split()[0]) / 2 ** 20)
             <= 1e-3 * m for r, m in zip(corpus, memory)]
    assert v["sum_whole"] == sum(whole) == 575
    # against each system description's client DRAM (capacity_MiB / 1024, or capacity_GB in 10^9 bytes), the runs
    # of the systems whose description is read and states it
    described = [(d, r["doc"]["num_hosts"] * dram) for r, d in zip(corpus, data_set)
                 if (dram := client_dram_gib(r["path"])) is not None]
    assert (v["below_5x_described"], v["described_memory_runs"]) == (
        sum(d < 5 * m for d, m in described), len(described)) == (25, 365)


def audited(report, code: str) -> int:
    """The runs the chapter's audit table says a code flags."""
    table = report.tables["tab-mlperf-audit"].frame
    (runs,) = table.loc[table.code == code, [c for c in table.columns if c.startswith("runs")][0]]
    return runs


def test_au_minimum_is_v1s_and_every_run_meets_it(default_report, corpus):
    """v1.0's minimum (Table 1) is what every run's own config asked of DLIO (metric.au 0.9, 0.7), every summary.json
    says train_au_meet_expectation "success" (v1.0's reportgen rejects "fail"), and no run's AU is under it."""
    assert {(r["model"], round(100 * r["au"])) for r in corpus} == set(AU_MINIMUM.items())
    assert {r["doc"]["metric"]["train_au_meet_expectation"] for r in corpus} == {"success"}
    below = sum(r["doc"]["metric"]["train_au_mean_percentage"] < AU_MINIMUM[r["model"]] for r in corpus)
    assert audited(default_report, "au_below_minimum") == below == 0


def test_every_result_has_v1s_five_runs_of_one_setting(default_report, corpus):
    """v1.0's reportgen (report.py at 16b959b2) wants REQUIRED_BENCHMARK_RUNS runs per result and rejects runs that
    differ in model or accelerator (overrides.yaml's workload=<model>_<accelerator>), accelerators, training files or
    samples per file (summary.json): recomputed from the files, no result breaks either, as the audit says."""
    results: dict[str, list[dict]] = {}
    for r in corpus:
        results.setdefault(r["result"], []).append(r)
    assert sum(len(runs) != REQUIRED_BENCHMARK_RUNS for runs in results.values()) == 0
    assert {json.loads(p.read_text())["overall"]["num_benchmark_runs"]
            for p in CLOSED.rglob("mlperf_storage_report.json")} == {REQUIRED_BENCHMARK_RUNS}
    checked = [[(re.search(r"workload=(\S+)", r["overrides"]).group(1), r["doc"]["num_accelerators"],
                 r["doc"]["num_files_train"], r["doc"]["num_samples_per_file"]) for r in runs]
               for runs in results.values()]
    assert sum(len(set(c)) > 1 for c in checked) == 0
    assert audited(default_report, "not_five_runs") == audited(default_report, "settings_differ") == 0


def test_data_set_under_5x_memory_by_v1s_rule(default_report, corpus):
    """v1.0's 5x check takes the memory the submitter states (benchmark.sh datasize --client-host-memory-in-gb, which
    no run file records): each system description's client DRAM x hosts, else the memory the run's summary.json
    lists (sum of host_memory_GB); the data set is data_size_per_host_GB x num_hosts (both GB of 2^30 bytes)."""
    memory = []
    for r in corpus:
        dram = client_dram_gib(r["path"])
        memory.append(r["doc"]["num_hosts"] * dram if dram is not None else sum(r["doc"]["host_memory_GB"]))
    data_set = [r["doc"]["data_size_per_host_GB"] * r["doc"]["num_hosts"] for r in corpus]
    below = sum(d < HOST_MEMORY_MULTIPLIER * m for d, m in zip(data_set, memory))
    # 25 of the 365 described runs and 110 of the 210 others, against 145 by the memory DLIO measured
    assert audited(default_report, "data_set_below_5x_memory") == default_report.values["below_5x_v1"] == below == 135
    measured = sum(d < HOST_MEMORY_MULTIPLIER * sum(r["doc"]["host_memory_GB"]) for d, r in zip(data_set, corpus))
    assert audited(default_report, "data_set_below_5x_measured") == measured == 145


def test_dlio_mb_is_two_to_the_twentieth_bytes(default_report, corpus):
    """Every run's MB/s is samples/s x record length / 2^20: DLIO's MB is MiB."""
    for r in corpus:
        metric = r["doc"]["metric"]
        assert metric["train_io_mean_MB_per_second"] == pytest.approx(
            metric["train_throughput_mean_samples_per_second"] * r["record_length"] / DLIO_MB, rel=1e-12), r["path"]
    assert default_report.values["units_runs"] == len(corpus)


def test_ddn_against_its_links(default_report):
    """DDN's 18-client unet3d a100 result: its system JSON states one 100 Gbit/s port per client; its fastest run's
    summary.json the MB/s (of 2^20 bytes) and 18 hosts."""
    system = json.loads(DDN_SYSTEM.read_text())
    (client,) = [n for n in system["nodes"] if n["node_type_name"] == "client"]
    gbit = sum(p["bitrate"] * p["count_of_this_type"] for p in client["nic_ports"])
    assert gbit == 100  # one port of 100 Gbit/s
    docs = [json.loads(p.read_text()) for p in (CLOSED / DDN.split("/", 1)[0] / "results" / DDN.split("/", 1)[1])
            .rglob("summary.json")]
    fastest = max(docs, key=lambda d: d["metric"]["train_io_mean_MB_per_second"])
    hosts = fastest["num_hosts"]
    assert hosts == 18 and len(system["benchmark_hosts"]) == 18
    read = fastest["metric"]["train_io_mean_MB_per_second"] * DLIO_MB  # bytes/s
    share = read / (hosts * gbit * 1e9 / 8)
    assert round(100 * share, 1) == 46.6  # 44 % only when DLIO's MB is taken as 10^6 bytes
    (links,) = [f for f in default_report.findings if f.target == "fig-mlperf-links"]
    assert f"{share:.1%} of {hosts * gbit / 8:,.0f} GB/s" in links.text and f"{read / 1e9:,.1f} GB/s" in links.text
    assert "flagged: host_reports_no_memory" in links.text  # 13 of its 18 hosts report 0 GB (test_mlperf)
    assert links.text.startswith("No run reads faster than its hosts' links")


def test_the_copied_report(default_report):
    """YanRongTech's 1-accelerator unet3d report publishes the mean of its 3-client 12-accelerator result's runs."""
    report = json.loads(COPIED_REPORT.read_text())["overall"]
    theirs = [json.loads(p.read_text())["metric"] for p in sorted(COPIED_RESULT.rglob("summary.json"))]
    ours = [json.loads(p.read_text()) for p in sorted(COPIED_REPORT.parent.rglob("summary.json"))]
    assert report["train_throughput_mean_MB_per_second"] == pytest.approx(
        statistics.mean(m["train_io_mean_MB_per_second"] for m in theirs), rel=1e-12)
    assert report["train_throughput_stdev_MB_per_second"] == pytest.approx(  # the population stdev (ddof 0)
        statistics.pstdev(m["train_io_mean_MB_per_second"] for m in theirs), rel=1e-9)
    assert {d["num_accelerators"] for d in ours} == {1} and int(report["train_num_accelerators"]) == 12
    v = default_report.values
    assert (v["reports_reproduced"], v["reports"]) == (114, 115)
    (found,) = [f for f in default_report.findings if f.target == "tab-mlperf-reports"]
    assert "report for 1 accelerator on 1 host publishes the runs of 12 accelerators on 3 hosts" in found.text
    table = default_report.tables["tab-mlperf-reports"].frame
    assert (table.iloc[0]["published (MiB/s)"], table.iloc[0]["stdev too"]) == (
        report["train_throughput_mean_MB_per_second"], "no")  # listed first
    copied = " / ".join(["YanRongTech", *COPIED_RESULT.relative_to(YANRONG).parts])
    assert f"publishes the runs of {present.md_escape(copied)} (12 accelerators on 3 hosts)" in v["reports_text"]


def test_every_other_report_is_its_runs_mean_and_population_stdev():
    """The 114 other reports, recomputed here from the summary.json files under each report's folder."""
    reproduced = 0
    for path in sorted(CLOSED.rglob("mlperf_storage_report.json")):
        overall = json.loads(path.read_text())["overall"]
        rates = [json.loads(p.read_text())["metric"]["train_io_mean_MB_per_second"]
                 for p in path.parent.rglob("summary.json")]
        reproduced += (overall["train_throughput_mean_MB_per_second"] == pytest.approx(statistics.mean(rates))
                       and overall["train_throughput_stdev_MB_per_second"] == pytest.approx(statistics.pstdev(rates)))
    assert reproduced == 114


def test_h100_over_a100_is_decided_near_what_the_configs_predict(default_report):
    """DLIO's configs: an accelerator reads record length x batch per computation time; the H100 configs halve the
    computation time of unet3d (0.636 s to 0.323 s, record and batch the same)."""
    compared = {c.label: c for c in default_report.evidence
                if isinstance(c, evidence.Comparison) and c.family == analysis.H100_OVER_A100}
    assert sorted(compared) == ["cosmoflow h100", "resnet50 h100", "unet3d h100"]
    assert all(c.decided and c.replicate == evidence.Replicate.SYSTEM for c in compared.values())
    configs = {}
    for path in CLOSED.rglob("overrides.yaml"):
        chosen = [line.split("=", 1)[1].strip() for line in path.read_text().splitlines() if "workload=" in line]
        config = yaml.safe_load((path.parent / "config.yaml").read_text())["workload"]
        if chosen:
            configs[chosen[0].split("_")[-1], config["model"]] = config["train"]["computation_time"]
    assert (configs["a100", "unet3d"], configs["h100", "unet3d"]) == (0.636, 0.323)
    unet3d = compared["unet3d h100"]
    assert unet3d.low < configs["a100", "unet3d"] / configs["h100", "unet3d"] < unet3d.high


def test_findings_are_short_and_carry_their_records(default_report):
    found = default_report.findings
    assert 3 <= len(found) <= 6
    assert words(found[0].text) <= FIRST_FINDING_WORDS
    assert all(words(f.text) <= MAX_FINDING_WORDS for f in found), [words(f.text) for f in found]
    assert all(f.evidence and f.target for f in found)
    # the main result: a census of every run, so counts and no interval
    assert all(isinstance(r, evidence.Count) for r in found[0].evidence)


def test_audit_table_states_every_code_the_view_emits(default_report):
    """Every code of view mlperf_run_flags (its comment lists them) has a rule and a source in the chapter's table."""
    view = (REPO / "iobook/database/views/mlperf.sql").read_text()
    codes = set(re.findall(r"^--\s{3}(\w+)\s{2,}", view, re.M))
    table = default_report.tables["tab-mlperf-audit"].frame
    assert codes == set(table.code) and table.rule.str.contains(r" \(source: \w", regex=True).all()


def test_systems_without_a_readable_description_are_named(default_report):
    """The systems whose description data/raw/mlperf leaves out (not JSON: its README) are the runs' systems without
    one: Juicedata's, Micron's 6500 and YanRongTech's four (their folder names differ from the descriptions')."""
    text = default_report.values["descriptions_text"]
    assert text.startswith("6 of the 41 systems the runs name have no description read here")
    assert all(present.md_escape(name) in text for name in (
        "Juicedata / JuiceFS-cloud-nvme-distributed-cache", "Micron / Micron_6500_Gen4_High_Capacity_NVMe",
        "YanRongTech / F9000X_10x7000GiB_nvme_2xNDR400_Nclient3"))
    assert default_report.values["descriptions"] == len(list(CLOSED.glob("*/systems/*.json"))) == 36


def test_a_link_example_the_data_lack_is_left_out(databases):
    with store.open_read(databases["default"]) as con:
        r = study.report(con, link_example="no/such/result")
    (links,) = [f for f in r.findings if f.target == "fig-mlperf-links"]
    assert "DDN" not in links.text and len(links.evidence) == 4  # the censuses and the top run's share


@pytest.mark.parametrize("db", ["empty", "default"])
def test_chapter_executes(databases, db, tmp_path):
    execute_chapter("mlperf", databases[db], tmp_path)


def test_corpus_copy_is_small():
    """data/raw/mlperf stays the part of the corpus the chapter reads (its README says what was left out)."""
    size = sum(p.stat().st_size for p in Path(CLOSED).rglob("*") if p.is_file())
    assert size < 8 * 2 ** 20


SUPPLEMENT = SHARED / "mlperf-storage-v1.0" / "MLPerf Storage v1.0 Supplementals.txt"


def test_claims_beside_their_files(default_report):
    """The supplements' claims (data/published/mlperf_v1_supplementals.csv, each cell checked against the text by
    test_published) beside the files: WEKA's "peak throughput of 34.57 GB/s for Unet3D" (line 201) is the mean of its
    unet3d h100 runs' MB/s ÷ 1,000, and its comparison is their geometric mean over it; simplyblock's "24 H100
    accelerators" (line 173) have no result (its summary.json files state 1 accelerator)."""
    claims = default_report.tables["tab-mlperf-claims"].frame
    text = SUPPLEMENT.read_bytes().decode("cp1252").split("\n")
    assert len(claims) == len(published.load("mlperf_v1_supplementals")) == 65
    assert "34.57 GB/s for Unet3D" in text[200] and "exercised 24 H100 accelerators" in text[172]
    weka = [json.loads(p.read_text())["metric"]["train_io_mean_MB_per_second"]
            for p in sorted((CLOSED / "WEKA/results/weka-1-client-dual-socket-56-cores/unet3d-h100").rglob("summary.json"))]
    row = claims[claims.claim == "single client Unet3D H100: peak throughput"].iloc[0]
    assert (row["claimed (printed)"], round(row["measured (files)"], 2)) == ("34.57 GB/s", 34.57)
    assert row["measured (files)"] == pytest.approx(statistics.mean(weka) / 1000, rel=1e-12)
    (compared,) = [c for c in default_report.evidence if isinstance(c, evidence.Comparison)
                   and c.quantity == "WEKA: single client Unet3D H100: peak throughput"]
    assert compared.ratio == pytest.approx(statistics.geometric_mean(weka) / 1000 / 34.57, rel=1e-9)
    assert compared.n == len(weka) == 5 and compared.reference == 34.57
    simplyblock = {json.loads(p.read_text())["num_accelerators"] for p in (CLOSED / "simplyblock").rglob("summary.json")}
    row = claims[(claims["said by"] == "simplyblock") & (claims["claimed (printed)"] == "24 accelerators")].iloc[0]
    assert simplyblock == {1} and row["what the files show"] == "no result that fits has that many (they have 1)"
    (found,) = [f for f in default_report.findings if f.target == "tab-mlperf-claims"]
    assert "simplyblock\\: 24 accelerators" in found.text


def test_the_ddn_claim_beside_its_run_and_links(default_report):
    """DDN's "near-full saturation of the DDN AI400X2T appliance (110 GB/s max reads)" (supplement line 15): a claim;
    beside it its fastest result's runs (18 clients, unet3d a100) and the 18 x 100 Gbit/s its description states."""
    runs = [json.loads(p.read_text()) for p in (CLOSED / DDN.split("/", 1)[0] / "results" / DDN.split("/", 1)[1])
            .rglob("summary.json")]
    mean = statistics.mean(d["metric"]["train_io_mean_MB_per_second"] for d in runs)
    text = default_report.values["claim_text"]
    assert "near\\-full saturation of the DDN AI400X2T appliance" in text and "(110 GB\\/s)" in text
    assert f"measured {mean / 1000:,.1f} GB/s" in text and f"{mean * DLIO_MB / 1e9:,.1f} GB/s of 10^9 bytes" in text
    assert f"{mean * DLIO_MB / (18 * 100e9 / 8):.1%} of the 225 GB/s of links its 18 client hosts" in text


def test_a_run_above_its_drives_stated_peak_is_said_to_be(default_report):
    # Micron's 9550 description states its one data drive's peak read as "10000 MB/s" (systems/
    # Micron_9550_Gen5_Performance_NVMe.json, line 33); its fastest run, resnet50/a100/runs/run5, prints
    # train_io_mean_MB_per_second 10510.04 in DLIO's MB (2^20 bytes): 11,021 MB/s of 10^6 bytes, above that peak
    micron = CLOSED / "Micron"
    stated = json.loads((micron / "systems" / "Micron_9550_Gen5_Performance_NVMe.json").read_text())
    (drive,) = [d for node in stated["nodes"] for d in node.get("drives", [])
                if d.get("performance", {}).get("read_bandwidth", {}).get("peak_bandwidth")]
    peak = float(drive["performance"]["read_bandwidth"]["peak_bandwidth"].removesuffix(" MB/s"))
    best = max(json.loads(p.read_text())["metric"]["train_io_mean_MB_per_second"]
               for p in (micron / "results" / "Micron_9550_Gen5_Performance_NVMe").rglob("summary.json")) * 2**20 / 1e6
    assert peak == 10_000 and round(best) == 11_021
    text = str(default_report.values["drives_text"])
    assert (f"read {best:,.0f} MB/s (10^6 bytes, the drives' unit), {best / peak:.0%} of its drives' {peak:,.0f} MB/s: "
            "above the peak its description states") in text
