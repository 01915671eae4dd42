"""MLPerf Storage v1.0 (issue 48): DLIO's summary.json and per_epoch_stats.json, Hydra's config.yaml and overrides.yaml,
mlperf_storage_report.json and the systems' descriptions, parsed and viewed (mlperf_runs, mlperf_run_flags), on real
files: DDN's fixtures (tests/fixtures/mlperf/SOURCES.md) and the shared corpus (../shared/mlperf-storage-v1.0)."""
from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import yaml
from conftest import REPO, SHARED

from iobook.database.ingest import ingest
from iobook.database.parsing import parse_bytes
from iobook.parsers import (ParseError, detect, dlio_config, dlio_epochs, dlio_summary, hydra_overrides, mlperf_report,
                            mlperf_system)

CORPUS = SHARED / "mlperf-storage-v1.0"
FIXTURES = REPO / "tests" / "fixtures" / "mlperf"
DDN_RESULT = FIXTURES / "Closed/DDN/results/AI400X2T_24x14TiB_nvme_8xNDR200_18clients/unet3d-a100/runs"
DDN_RUN = DDN_RESULT / "run1" / "c013"
DDN_SYSTEM = FIXTURES / "Closed/DDN/systems/AI400X2T_24x14TiB_nvme_8xNDR200_18clients.json"
MLPERF_MODULES = (dlio_summary, dlio_epochs, dlio_config, hydra_overrides, mlperf_report, mlperf_system)
MB = 10 ** 6  # the MB/s of 1 Gbit/s: 10^9 / 8 / MB
MIB = 2 ** 20  # DLIO's MB: samples/s x record length / 1024 / 1024 (dlio_benchmark utils/statscounter.py)
MB_PER_GBIT = 125
# mlcommons/storage Submission_guidelines.md at be18c3e5 (the v1.0 round's timeline), 2.1 Table 1 "Minimum AU%"
AU_MINIMUM = {"unet3d": 90, "resnet50": 90, "cosmoflow": 70}


def parsed(path: Path):
    text = path.read_text(encoding="utf-8")
    fmt = detect(text)
    assert fmt is not None, path
    return fmt.name, fmt.parse(text).records


def test_ddn_run_every_field_equals_its_summary_json():
    doc = json.loads((DDN_RUN / "summary.json").read_text())
    name, records = parsed(DDN_RUN / "summary.json")
    assert name == "dlio-summary"
    run = records[0]
    metric = doc["metric"]
    assert run == dlio_summary.DlioSummary(
        started=doc["start"], ended=doc["end"], hostname=doc["hostname"], num_accelerators=doc["num_accelerators"],
        num_hosts=doc["num_hosts"], epochs=doc["epochs"], num_files_train=doc["num_files_train"],
        num_files_eval=doc["num_files_eval"], num_samples_per_file=doc["num_samples_per_file"],
        au_mean_pct=metric["train_au_mean_percentage"], au_stdev_pct=metric["train_au_stdev_percentage"],
        au_expectation=metric["train_au_meet_expectation"],
        samples_per_s=metric["train_throughput_mean_samples_per_second"],
        samples_per_s_stdev=metric["train_throughput_stdev_samples_per_second"],
        mb_per_s=metric["train_io_mean_MB_per_second"], mb_per_s_stdev=metric["train_io_stdev_MB_per_second"],
        data_size_per_host_gb=doc["data_size_per_host_GB"], host_processor_name=doc["host_processor_name"],
        cpu_model=doc["host_cpuinfo"]["model name"], mem_total_kb=int(doc["host_meminfo"]["MemTotal"].split()[0]))
    assert (run.num_accelerators, run.num_hosts, run.mb_per_s) == (72, 18, 99836.41096104909)  # summary.json's
    epochs = [r for r in records if isinstance(r, dlio_summary.DlioSummaryEpoch)]
    assert [(e.au_pct, e.samples_per_s) for e in epochs] == list(zip(metric["train_au_percentage"],
                                                                      metric["train_throughput_samples_per_second"]))
    hosts = [r for r in records if isinstance(r, dlio_summary.DlioSummaryHost)]
    assert [(h.cpu_count, h.memory_gb, h.potential_caching) for h in hosts] == list(zip(
        doc["host_cpu_count"], doc["host_memory_GB"], doc["potential_caching"]))
    assert sum(h.memory_gb == 0 for h in hosts) == 13  # 13 of DDN's 18 hosts report 0.0 GB in this summary.json


def test_ddn_epochs_config_overrides_report_and_system_equal_their_files():
    epochs_doc = json.loads((DDN_RUN / "per_epoch_stats.json").read_text())
    _, records = parsed(DDN_RUN / "per_epoch_stats.json")
    epochs = [r for r in records if isinstance(r, dlio_epochs.DlioEpoch)]
    assert [(e.epoch, e.started, e.duration_s) for e in epochs] == [
        (int(k), v["start"], float(v["duration"])) for k, v in epochs_doc.items()]
    steps = [r.step for r in records if isinstance(r, dlio_epochs.DlioEpochStep)]
    assert steps == ["block1"] * 5 + ["ckpt1"]  # per_epoch_stats.json: a block per epoch, a checkpoint in the 5th

    config = yaml.safe_load((DDN_RUN / "configs/config.yaml").read_text())["workload"]
    name, (cfg,) = parsed(DDN_RUN / "configs/config.yaml")
    assert name == "dlio-config"
    assert (cfg.model, cfg.num_files_train, cfg.record_length_bytes, cfg.batch_size, cfg.au_min) == (
        config["model"], config["dataset"]["num_files_train"], config["dataset"]["record_length"],
        config["reader"]["batch_size"], config["metric"]["au"])
    name, overrides = parsed(DDN_RUN / "configs/overrides.yaml")
    assert name == "hydra-overrides"
    assert (overrides[0].key, overrides[0].value) == ("workload", "unet3d_a100")  # overrides.yaml's first line
    assert (overrides[3].prefix, overrides[3].key, overrides[3].value) == (
        "++", "workload.dataset.num_files_train", "252000")

    report = json.loads((DDN_RESULT / "mlperf_storage_report.json").read_text())
    name, records = parsed(DDN_RESULT / "mlperf_storage_report.json")
    overall, runs = records[0], records[1:]
    assert name == "mlperf-storage-report" and overall.num_accelerators == 72  # "train_num_accelerators": "72"
    assert overall.mb_per_s == report["overall"]["train_throughput_mean_MB_per_second"]
    # the published mean and stdev are those of its five runs
    assert statistics.mean(r.mb_per_s for r in runs) == pytest.approx(overall.mb_per_s, rel=1e-12)
    assert statistics.pstdev(r.mb_per_s for r in runs) == pytest.approx(overall.mb_per_s_stdev, rel=1e-9)

    name, records = parsed(DDN_SYSTEM)
    assert name == "mlperf-storage-system"
    ports = [r for r in records if isinstance(r, mlperf_system.MlperfSystemPort)]
    hosts = [r for r in records if isinstance(r, mlperf_system.MlperfSystemHost)]
    drives = [r for r in records if isinstance(r, mlperf_system.MlperfSystemDrive) and r.node_index is None]
    # the description: client nodes with one 100 Gbit/s port, 18 benchmark hosts, 24 PHISON drives
    assert (ports[0].node_index, ports[0].bitrate_gbps, ports[0].count) == (0, 100, 1)
    assert len(hosts) == 18 and {h.node_type_name for h in hosts} == {"client"}
    assert [(d.count, d.model) for d in drives] == [(24, "EPM5970-15360GB")]


@pytest.mark.parametrize("path", [DDN_RUN / "summary.json", DDN_RUN / "per_epoch_stats.json", DDN_SYSTEM,
                                  DDN_RESULT / "mlperf_storage_report.json"], ids=lambda p: p.name)
def test_a_cut_json_fails_with_its_file_and_line(path):
    data = path.read_bytes()
    cut = data[:data.index(b"\n", len(data) // 2) + 5]  # inside a line in the middle
    outcome = parse_bytes(str(path), cut)
    assert outcome.row["status"] == "error" and "cut short" in outcome.row["error"]
    assert outcome.row["error_line"] == cut.count(b"\n") + 1  # the line the text ends in
    assert parse_bytes(str(path), data).row["status"] == "ok"  # whole, without a final newline, it is read


def test_bad_values_raise_parse_error_at_their_key():
    text = (DDN_RUN / "summary.json").read_text()
    with pytest.raises(ParseError) as e:
        dlio_summary.parse(text.replace('"num_hosts": 18', '"num_hosts": "18"'))
    assert e.value.line == 4  # summary.json's line of "num_hosts"
    for bad in ('"train_io_mean_MB_per_second": NaN', '"train_io_mean_MB_per_second": 1e999'):
        with pytest.raises(ParseError):
            dlio_summary.parse(re.sub(r'"train_io_mean_MB_per_second": [\d.]+', bad, text))
    with pytest.raises(ParseError):
        dlio_config.parse((DDN_RUN / "configs/config.yaml").read_text().replace("batch_size: 7", "batch_size: [7"))


def test_every_cut_and_swap_of_the_fixtures_raises_only_parse_error():
    """Fuzz-like and deterministic: each fixture cut at every 97th character, and with its tokens swapped."""
    for path in [p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".yaml")]:
        text = path.read_text()
        fmt = detect(text)
        variants = [text[:i] for i in range(0, len(text), 97)]
        variants += [text.replace(a, b) for a, b in ((":", ","), ("{", "["), ("1", "x"), ('"', ""), ("-", "~"))]
        for variant in variants:
            try:
                fmt.parse(variant)
            except ParseError:
                pass


def test_other_tools_files_are_not_claimed():
    from test_fuzz_all_parsers import SEEDS

    ours = {f.name for m in MLPERF_MODULES for f in m.FORMATS}
    for name, path in SEEDS.items():
        if name not in ours:
            assert detect(path.read_text()[:1 << 20]).name == name, path


@pytest.mark.slow
def test_ddn_fixture_run_in_mlperf_runs_and_flags(tmp_path):
    db = tmp_path / "ddn.duckdb"
    ingest([FIXTURES], db, progress=False)
    doc = json.loads((DDN_RUN / "summary.json").read_text())
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT * FROM mlperf_runs").df().iloc[0]
        flags = dict(con.execute("SELECT code, detail FROM mlperf_run_flags").fetchall())
    assert row.path == str((DDN_RUN / "summary.json").resolve())
    assert (row.organisation, row.system, row.workload, row.accelerator, row.run) == (
        "DDN", "AI400X2T_24x14TiB_nvme_8xNDR200_18clients", "unet3d", "a100", 1)
    assert (row.workload_source, row.accelerator_source, row.system_match) == ("config", "overrides", "name")
    assert (row.accelerators, row.hosts, row.au_mean_pct, row.samples_per_s, row.mb_per_s) == (
        doc["num_accelerators"], doc["num_hosts"], doc["metric"]["train_au_mean_percentage"],
        doc["metric"]["train_throughput_mean_samples_per_second"], doc["metric"]["train_io_mean_MB_per_second"])
    assert str(row.started) == doc["start"].replace("T", " ")
    assert row.hosts_memory_gb == pytest.approx(sum(doc["host_memory_GB"]))
    # the description: 18 hosts x one 100 Gbit/s port = 225,000 MB/s; the run read 47 % of it (DLIO's 99,836 MB of
    # 2^20 bytes a second are 104,686 MB of 10^6: 44 % only when the two MBs are taken as one)
    assert row.links_mb_per_s == 18 * 100 * MB_PER_GBIT
    assert row.mb_per_s == pytest.approx(row.samples_per_s * row.record_length_bytes / MIB)
    assert round(100 * row.mb_per_s * MIB / MB / row.links_mb_per_s) == 47
    assert flags == {"host_reports_no_memory": "13 of 18 hosts report 0 GB of memory",
                     "not_five_runs": f"1 runs in {DDN_RESULT.resolve()}"}  # only run1 is in the fixtures


# One run folder of each organisation's layout (../shared/mlperf-storage-v1.0/Closed/<org>/results/...), with the
# workload, accelerator and run its folder names say (Juicedata's say no accelerator: its overrides.yaml says h100)
LAYOUTS = {
    "DDN/results/AI400X2T_24x14TiB_nvme_8xNDR200_18clients/unet3d-a100/runs/run1/c013": ("unet3d", "a100", 1),
    "Hammerspace/results/Hammerspace_unet3d_1Client_A100/run4": ("unet3d", "a100", 4),
    "IEI/results/AS13000_16x7.68TiB_NVMe_4xNDR400_3xStorageNode_IntelHost/cosmoflow-a100/1hosts@51GPUs/runs/run4":
        ("cosmoflow", "a100", 4),
    "Juicedata/results/JuiceFS-cloud-nvme-distributed-cache/cosmoflow-10acc/run4": ("cosmoflow", "h100", 4),
    "MangoBoost/results/1-client-amd-nvme-tcp-dpu/cosmoflow-a100/runs/run4": ("cosmoflow", "a100", 4),
    "Micron/results/Micron_6500_Gen4_High_Capacity_NVMe/cosmoflow/h100/run_2": ("cosmoflow", "h100", 2),
    "Nutanix/results/Nutanix-Unified-Storage-4-Nodes-1-Host-resnet50-a100/run4": ("resnet50", "a100", 4),
    "WEKA/results/weka-1-client-dual-socket-56-cores/resnet-a100/run4": ("resnet50", "a100", 4),
    "YanRongTech/results/F8000X_8x7000GiB_nvme_2xHDR200_Nclient3/cosmoflow-h100/cosmoflow_60acc/run4":
        ("cosmoflow", "h100", 4),
    "simplyblock/results/resnet-h100/runs/run4": ("resnet50", "h100", 4),
}


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("mlperf") / "mlperf.duckdb"
    ingest([CORPUS], db, progress=False)
    return db


@pytest.mark.slow
def test_a_layout_of_each_organisation_maps_to_workload_accelerator_and_run(corpus_db):
    with duckdb.connect(str(corpus_db), read_only=True) as con:
        for folder, expected in LAYOUTS.items():
            summary = CORPUS / "Closed" / folder / "summary.json"
            row = con.execute("SELECT workload, accelerator, run, organisation FROM mlperf_runs WHERE path = ?",
                              [str(summary)]).fetchone()
            assert row[:3] == expected, folder
            assert row[3] == folder.split("/")[0]
            config = yaml.safe_load((summary.parent / "configs/config.yaml").read_text())
            assert config["workload"]["model"] == expected[0]


def _audit_from_the_json(root: Path) -> dict[str, int]:
    """The issue's counts, from the files alone: each summary.json and the config.yaml beside it."""
    counts = dict.fromkeys(("runs", "au_below_minimum", "au_within_one_point", "data_set_below_5x_measured",
                            "host_reports_no_memory", "potential_caching"), 0)
    organisations, clients = set(), {}
    for path in root.rglob("summary.json"):
        doc = json.loads(path.read_text())
        model = yaml.safe_load((path.parent / "configs/config.yaml").read_text())["workload"]["model"]
        au, minimum, memory = doc["metric"]["train_au_mean_percentage"], AU_MINIMUM[model], doc["host_memory_GB"]
        organisations.add(path.relative_to(root).parts[1])
        counts["runs"] += 1
        counts["au_below_minimum"] += au < minimum
        counts["au_within_one_point"] += minimum <= au < minimum + 1
        data_set = doc["data_size_per_host_GB"] * doc["num_hosts"]
        counts["data_set_below_5x_measured"] += data_set < 5 * sum(memory)
        counts["host_reports_no_memory"] += any(m == 0 for m in memory)
        counts["potential_caching"] += any(c > 0 for c in doc["potential_caching"])
        # a result is the folder of its run folders (run1, run_1, run-1, cosmoflow_a100_run_1)
        result = re.match(r"(?i)^(.*)/[^/]*run[-_]?\d+/", str(path.relative_to(root))).group(1)
        clients.setdefault(result, []).append(
            ((doc["hostname"], doc["host_cpuinfo"]["model name"], tuple(doc["host_cpu_count"])), sum(memory)))
    counts["organisations"] = len(organisations)
    # clients_differ: the runs of a result name another host, CPU or CPU counts, or their memory is > 1 % apart
    counts["clients_differ"] = sum(len(runs) for runs in clients.values() if len({c for c, _ in runs}) > 1 or
                                   max(m for _, m in runs) > 1.01 * min(m for _, m in runs))
    return counts


@pytest.mark.slow
def test_the_audit_counts_equal_those_recomputed_from_the_json_and_the_issue(corpus_db):
    expected = _audit_from_the_json(CORPUS)
    # issue 48's figures: 575 runs of 10 organisations, all pass AU, 165 by less than a point, 145 below 5x the
    # memory DLIO measured, 120 with hosts reporting 0 GB, 55 with potential_caching
    # (the 120 runs' 0 GB hosts hide no memory: their lists sum to the hosts x the memory of the host that wrote
    # the file, as every run's does, so the 5x check stays at 145: test_study_mlperf's test_counts_come_from_the_files;
    # v1.0's own 5x check, against the memory the descriptions state, is test_study_mlperf's too)
    assert expected == {"runs": 575, "organisations": 10, "au_below_minimum": 0, "au_within_one_point": 165,
                        "data_set_below_5x_measured": 145, "host_reports_no_memory": 120,
                        "potential_caching": 55, "clients_differ": 0}
    with duckdb.connect(str(corpus_db), read_only=True) as con:
        runs, organisations = con.execute("SELECT count(*), count(DISTINCT organisation) FROM mlperf_runs").fetchone()
        flagged = dict(con.execute("SELECT code, count(DISTINCT path) FROM mlperf_run_flags GROUP BY code").fetchall())
        ddn = con.execute("SELECT max(mb_per_s), any_value(links_mb_per_s) FROM mlperf_runs WHERE system = "
                          "'AI400X2T_24x14TiB_nvme_8xNDR200_18clients' AND workload = 'unet3d'").fetchone()
        errors = con.execute("SELECT count(*) FROM sources WHERE status = 'error'").fetchone()[0]
    got = {code: flagged.get(code, 0) for code in expected if code not in ("runs", "organisations")}
    assert {"runs": runs, "organisations": organisations, **got} == expected
    # every result holds five runs of one configuration on the same clients, and no run reads faster than its
    # clients' links
    assert not {"not_five_runs", "settings_differ", "clients_differ", "rate_above_links"} & set(flagged)
    assert ddn == (pytest.approx(99933.2, abs=0.1), 225000)  # DDN's fastest unet3d run: 46.6 % of 18 x 100 Gbit/s
    assert errors == 6  # the system descriptions that are not JSON: Juicedata's, one of Micron's, YanRongTech's four


def test_a_result_run_on_another_client_is_flagged(tmp_path):
    """WEKA's unet3d h100 result, its fifth run's summary.json rewritten as if another host had written it: the
    audit's clients_differ flags the five runs; the same result as published is not flagged."""
    result = tmp_path / "WEKA/results/weka-1-client-dual-socket-56-cores/unet3d-h100"
    shutil.copytree(CORPUS / "Closed/WEKA/results/weka-1-client-dual-socket-56-cores/unet3d-h100", result)
    (fifth,) = result.glob("run5/summary.json")
    doc = json.loads(fifth.read_text())
    for db, hostname in ((tmp_path / "as-published.duckdb", doc["hostname"]), (tmp_path / "moved.duckdb", "other-host")):
        fifth.write_text(json.dumps({**doc, "hostname": hostname}, indent=4))
        ingest([tmp_path / "WEKA"], db, progress=False)
        with duckdb.connect(str(db), read_only=True) as con:
            flagged = con.execute("SELECT count(DISTINCT path) FROM mlperf_run_flags WHERE code = 'clients_differ'"
                                  ).fetchone()[0]
        assert flagged == (0 if hostname == doc["hostname"] else 5), hostname


def test_the_data_drives_each_description_states(tmp_path):
    """Three descriptions of data/raw/mlperf: drives as a storage-system component (DDN), per node of a type whose
    hosts the description lists (Hammerspace) and on the benchmark's own host with a peak read written with its unit
    (Micron)."""
    closed = REPO / "data" / "raw" / "mlperf" / "Closed"
    for org, name in (("DDN", "AI400X2T_24x14TiB_nvme_8xNDR200_18clients"),
                      ("Hammerspace", "Hammerspace_unet3d_5Client_H100"),
                      ("Micron", "Micron_9550_Gen5_Performance_NVMe")):
        (tmp_path / org / "systems").mkdir(parents=True)
        shutil.copy(closed / org / "systems" / f"{name}.json", tmp_path / org / "systems")
    ingest([tmp_path], tmp_path / "db.duckdb", progress=False)
    with duckdb.connect(str(tmp_path / "db.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT * FROM mlperf_systems ORDER BY organisation").df().set_index("organisation")
    # DDN's storage_system.hardware_components: "component_name": "drives", "count": 24, "model": "EPM5970-15360GB"
    # (its line 211); its nodes' drives hold the OS; no peak bandwidth of a data drive
    ddn = rows.loc["DDN"]
    assert (ddn.data_drives_stated, ddn.data_drives_total, ddn.data_drive_models) == (24, 24, "EPM5970-15360GB")
    assert ddn.data_drives_source == "storage_system.hardware_components" and pd.isna(ddn.drive_read_peak_stated)
    # Hammerspace: node type "Storage", 12 drives "Holds MLPerf Data" (line 192) with 22 hosts listed of that type,
    # node type "Anvil", 1 "Metadata" drive with 2 hosts listed; peaks 500 and 1000 without a unit, read as none
    hammerspace = rows.loc["Hammerspace"]
    assert (hammerspace.data_drives_stated, hammerspace.data_drives_total) == (12 + 1, 12 * 22 + 1 * 2)
    assert hammerspace.storage_hosts_listed == 22 + 2 and pd.isna(hammerspace.drive_read_peak_mb_per_s)
    assert set(hammerspace.drive_read_peak_stated.split("; ")) == {"500", "1000"}
    # Micron: its only node type "Localhost" holds 1 drive "Device Under Test", "peak_bandwidth": "10000 MB/s" (line 33)
    micron = rows.loc["Micron"]
    assert (micron.data_drives_total, micron.drive_read_peak_mb_per_s, micron.drives_read_mb_per_s) == (1, 10000, 10000)
    assert micron.data_drives_source == "nodes: Localhost drives"
