"""The daos_vs_lustre chapter: its study module on the four test databases, and the notebook executed on each."""
import shutil
from pathlib import Path

import pandas as pd
import pytest

from iobook import families, nb, store
from iobook.ingest import ingest
from iobook.studies import daos_vs_lustre as study

from conftest import ARCHIVE, BUILT_TOOLS, SHARED, execute_chapter

RAW = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
SEED_002 = SHARED / "seeds" / "002_df21f42c5216a842.txt"

BOOK_FAMILIES = ["DAOS", "Lustre", "Storage Scale/GPFS", "WekaFS", "BeeGFS", "IME", "GekkoFS"]


def test_runs_on_each_database(any_db):
    name, con = any_db
    runs = study.get_runs(con)
    span = study.archive_years(runs)
    if name == "empty":
        assert runs.empty and span["counts"].empty
        return
    assert len(runs) == {"built_tools": 1, "other_io500": 16, "default": 258}[name]
    years = {int(y): int(n) for y, n in span["counts"].items()}
    if name == "built_tools":  # a results folder outside the archive layout: no year, hence no family
        assert years == {} and span["outside_layout"] == 1 and runs.family.tolist() == ["unknown"]
        assert study.choose(runs, BOOK_FAMILIES, []).empty
    elif name == "other_io500":
        assert years == {2019: 4, 2020: 7, 2021: 1, 2023: 3, 2024: 1} and span["missing"] == [2022]
    else:
        assert years == {2018: 4, 2019: 95, 2020: 66, 2021: 24, 2023: 37, 2024: 30, 2025: 2}
        assert span["missing"] == [2022]


def test_other_submissions(databases):
    with store.open_read(databases["other_io500"]) as con:
        runs = study.get_runs(con).set_index("run_key")
        # TACC/Frontera/DAOS/2020/submission-13/result.txt:107 "SCORE = 507.129018"
        assert runs.loc["submission-13", "family"] == "DAOS"
        assert round(runs.loc["submission-13", "score"], 6) == 507.129018
        assert runs.loc["submission-589", "family"] == "Storage Scale/GPFS"  # NLHPC Guacolda ESS
        chosen = study.choose(runs.reset_index(), BOOK_FAMILIES, [])
        assert chosen.family.value_counts().to_dict() == {"Lustre": 7, "Storage Scale/GPFS": 3, "DAOS": 1, "BeeGFS": 1}
        # runs go by archive year, whatever release their io500 version names
        assert set(study.runs_per_period(chosen).columns) == {"family", "2019", "2020", "2021", "2023", "2024"}
        assert study.tianhe_runs(con).empty
        assert not study.list_against_raw(con, "seed002_sc19_list")["in raw logs"].any()


def test_tianhe_same_servers(databases):
    with store.open_read(databases["default"]) as con:
        tianhe = study.tianhe_runs(con)
        lustre = tianhe[tianhe.matches_sc19_score].iloc[0]
        assert lustre.run_key == "submission-15" and len(tianhe) == 3
        servers = study.server_counts(con, int(lustre.run_id))
        slide = study.tianhe_slide_vs_raw(con, int(lustre.run_id))
    # National Supercomputing Center in Changsha/Tianhe-2E/Tianhe-FS/2019/submission-15/results/
    # io-500-summary.2019.11.10-17.49.07.txt:16-19: num_client_nodes=480, num_data_server_nodes=52, ...=40
    own = servers.iloc[0]
    assert own["source"].startswith("the run's own log")
    assert (own["storage servers"], own["metadata servers"], own["client nodes"]) == (52, 40, 480)
    # seed 002 says both: the DAOS runs used the SC19 run's storage servers, and "24 servers" on its lessons slide
    seed = SEED_002.read_text(encoding="utf-8")
    assert "Using the same storage servers, we prepared our IO-500 runs with Intel DAOS." in seed
    assert "We use 24 servers (Xeon 8 cores, 2 sockets) and 24 clients" in seed
    daos = servers[servers.setup == "DAOS, ISC20"].set_index("source")["storage servers"]
    assert daos.to_dict() == {"seed 002 slide 'ISC 2020'": "the same storage servers",
                              "seed 002 slide '# of CPU cores matters.'": 24}
    assert slide.equal.all() and len(slide) == 12
    # no division by a server count: the whole systems, DAOS's [SCORE] Bandwidth 108.924621 (slide 'ISC 2020')
    whole = study.same_servers(lustre, study.daos_rescored()).set_index("measure")
    assert list(whole.columns) == ["Lustre, SC19 (raw log)", "DAOS, ISC20 full run (slide)", "DAOS / Lustre"]
    assert whole.loc["bandwidth (GiB/s)", "DAOS / Lustre"] == pytest.approx(108.924621 / 209.432915, rel=1e-6)
    assert whole.loc["metadata (kIOPS)", "DAOS / Lustre"] > 1 > whole.loc["bandwidth (GiB/s)", "DAOS / Lustre"]


def test_daos_slides_rescored():
    rescored = study.daos_rescored().set_index("run")
    # three [SCORE] numbers are garbled on the slides (full: Bandwidth; 10 nodes: Bandwidth and IOPS)
    assert rescored["garbled printed numbers"].tolist() == [1, 2]
    assert (rescored.score - rescored["printed score"]).abs().max() < 2e-6


def test_lists_against_raw(databases):
    with store.open_read(databases["default"]) as con:
        historic = study.list_against_raw(con, "seed002_historic_top_list")
        sc19 = study.list_against_raw(con, "seed002_sc19_list")
    assert (int(historic["in raw logs"].sum()), len(historic)) == (7, 8)  # TACC Frontera 763.80 has no raw run
    assert sc19["in raw logs"].all() and sc19["numbers agree"].all()
    assert not sc19.set_index("run_key").loc["submission-3", "names agree"]  # the slide's "WekalO"


def test_family_colours():
    domain, colours = families.colours(["DAOS", "Lustre", "BrandNewFS", "DAOS"])
    assert domain == ["DAOS", "Lustre", "BrandNewFS"]
    assert colours == [families.COLOURS["DAOS"], families.COLOURS["Lustre"], families.OTHER_COLOUR]
    assert len(set(families.COLOURS.values())) == len(families.COLOURS)


def test_unknown_family_is_a_note_not_a_failure(databases, tmp_path):
    with store.open_read(databases["other_io500"]) as con:
        runs = study.get_runs(con)
    with pytest.raises(nb.UnknownSelection, match="'Lustre'"):
        nb.select(["Lustr"], runs.family, "file-system family")
    wanted, note = study.select_families(runs, ["DAOSS", "Lustre"])
    assert wanted == ["Lustre"] and "'DAOSS'" in note and "'DAOS'" in note
    text = "\n".join(execute_chapter("daos_vs_lustre", databases["other_io500"], tmp_path, families=["DAOSS"]))
    assert "left out: no file-system family named 'DAOSS'" in text


@pytest.mark.parametrize("name", ["empty", "built_tools", "other_io500", "default"])
def test_notebook_executes(databases, tmp_path, name):
    text = "\n".join(execute_chapter("daos_vs_lustre", databases[name], tmp_path))
    if name == "empty":
        assert "This database holds no IO500 runs" in text and "<table" not in text and "{numref}" not in text
        return
    assert "<table" in text and "{numref}`tab-daos-lists-historic`" in text
    assert ("{numref}`fig-daos-balance-years`" in text) == (name in ("default", "other_io500"))
    assert ("submission-15" in text) == (name == "default")
    assert ("{numref}`tab-daos-ten-node`" in text) == (name == "default")
    assert "the same storage servers" in text


@pytest.fixture(scope="module")
def flat_tree(tmp_path_factory):
    """A user's folder of logs outside the archive layout: the built-tools runs and a few archive files copied
    flat (no <institution>/<system>/<file system>/<year> folders), ingested."""
    tree = tmp_path_factory.mktemp("flat")
    shutil.copytree(BUILT_TOOLS, tree / "built-tools")
    for i, path in enumerate([
            ARCHIVE / "TACC" / "Frontera" / "DAOS" / "2020" / "submission-13" / "result.txt",
            ARCHIVE / "ACC Cyfronet AGH" / "Helios" / "Lustre" / "2024" / "submission-708" / "results"
            / "2024.05.03-09.25.44" / "result_summary.txt"]):
        shutil.copy(path, tree / f"run{i}-{path.name}")
    db = tree / "flat.duckdb"
    ingest([tree], db, progress=False)
    return db


@pytest.mark.parametrize("pinned", [[], ["DAOS", "Lustre", "Storage Scale/GPFS", "WekaFS", "BeeGFS", "IME", "GekkoFS"]])
def test_data_outside_the_archive_layout(flat_tree, tmp_path, pinned):
    with store.open_read(flat_tree) as con:
        runs = study.get_runs(con)
        assert len(runs) == 3 and set(runs.family) == {"unknown"} and runs.year.isna().all()
    text = "\n".join(execute_chapter("daos_vs_lustre", flat_tree, tmp_path, families=pinned))
    assert "No IO500 run here has a known file-system family (3 runs; 3 outside the archive layout)" in text
    assert ("left out: no file-system family named 'DAOS'" in text) == bool(pinned)


def test_client_nodes_from_logs_before_declarations(databases):
    with store.open_read(databases["default"]) as con:
        nodes = study.client_nodes(con)
        runs = study.wolf_and_tianhe(con, nodes).set_index("run_key")
    tianhe_88 = runs.loc["submission-88"]
    # .../Tianhe-FS/2019/submission-88/results/mdtest_easy_write.txt:3 "160 total task(s) on 10 node(s)", while
    # io-500-summary.2019.11.11-18.18.04.txt:16 declares "io500_info_num_client_nodes=480" (the SC19 run's number)
    assert (tianhe_88.client_nodes, tianhe_88.declared_client_nodes) == (10, 480)
    assert tianhe_88.nodes_from == "phase logs (IOR, mdtest)" and tianhe_88.data_servers == 52
    # Intel/Wolf/DAOS/2020/submission-1/ior_easy_write.txt:25 "nodes               : 52"
    assert runs.loc["submission-1", "client_nodes"] == 52 and pd.isna(runs.loc["submission-1", "data_servers"])
    # Intel/Wolf/DAOS/2019/submission-11/results/mdtest_hard_stat.txt:3 "310 total task(s) on 10 node(s)"
    assert runs.loc["submission-11", "client_nodes"] == 10
    assert runs.loc["submission-15", "client_nodes"] == 480  # its ior and mdtest logs and io500_info agree
    # Intel/Wolf/DAOS/2019/submission-4/results/io-500-summary.2019.11.08-10.28.23.txt declares
    # io500_info_system_classification="Validation/CI"
    with store.open_read(databases["default"]) as con:
        declared = study.declared_classification(con).set_index(["key", "value"]).runs
    assert declared[("system_classification", "Validation/CI")] == 2  # Wolf submissions 4 and 11
    assert declared[("system_classification", "production")] == 6
    assert set(nodes.nodes_from) == {"phase logs (IOR, mdtest)", "declared (io500_info)", "unknown"}


def test_lists_apart_and_per_client_node(databases):
    with store.open_read(databases["default"]) as con:
        runs = study.get_runs(con)
        normalised = study.per_client_node(study.choose(runs, BOOK_FAMILIES, []), study.client_nodes(con))
    wolf = normalised.set_index("run_key").loc["submission-11"]
    # Intel/Wolf/DAOS/2019/submission-11/results/result_summary.txt:13 "[SCORE] Bandwidth 123.894 GB/s", 10 nodes
    assert wolf.list_kind == study.TEN_CLIENTS
    assert wolf.bw_per_client_node == pytest.approx(wolf.bw_gib_s / 10) and round(wolf.bw_gib_s, 3) == 123.894
    differ = study.declared_against_logs(normalised).set_index("run_key")
    assert differ.loc["submission-88", ["client_nodes", "declared_client_nodes"]].tolist() == [10, 480]
    apart = study.lists_apart(normalised).set_index("period")
    assert (apart.ten_node <= apart.client_nodes_known).all() and (apart.client_nodes_known <= apart.runs).all()
    assert apart.runs.sum() == len(normalised)
    medians = study.per_node_medians(normalised).set_index(["family", "period", "list_kind"])
    assert medians.loc[("DAOS", "2019", study.TEN_CLIENTS), "median_client_nodes"] == 10
    study.chart_per_client_node(normalised).to_dict()


def test_wolf_against_tianhe_per_client_node(databases):
    with store.open_read(databases["default"]) as con:
        runs = study.wolf_and_tianhe(con, study.client_nodes(con))
        per_node = study.phases_per_client_node(con, runs)
    ratios = study.phase_ratios(per_node, ["submission-4"], ["submission-15"]).set_index("phase")
    # Intel/Wolf/DAOS/2019/submission-4/results/result_summary.txt:1 ior_easy_write 108.237 GB/s, on 26 client
    # nodes; Tianhe-FS/2019/submission-15 608.644 GiB/s on 480 (seed 002's 608.64)
    assert ratios.loc["ior-easy-write", "lowest ratio"] == pytest.approx((108.237 / 26) / (608.644 / 480))
    assert ratios.pairs.unique().tolist() == [1] and len(ratios) == 12
    ten = study.phase_ratios(per_node, ["submission-11", "submission-6", "submission-8"],
                             ["submission-87", "submission-88"]).set_index("phase")
    assert ten.pairs.unique().tolist() == [6]
    assert (ten["lowest ratio"] <= ten["highest ratio"]).all()
    assert ten.loc["ior-easy-write", "lowest ratio"] < 1 < ten.loc["mdtest-hard-write", "lowest ratio"]


def test_release_names_the_benchmark_not_the_list(databases):
    # Arizona State University/Sol/BeeGFS/2023/submission-642/result_summary.txt line 1 prints the ISC22 release,
    # for a run of March 2023 in the archive's 2023 folder
    summary = RAW / "Arizona State University" / "Sol" / "BeeGFS" / "2023" / "submission-642" / "result_summary.txt"
    assert summary.read_text().splitlines()[0].startswith("IO500 version io500-isc22_v1")
    with store.open_read(databases["default"]) as con:
        runs = study.get_runs(con).set_index("run_key")
    sol = runs.loc["submission-642"]
    assert (sol.release, sol.year) == ("io500-isc22_v1", 2023)
    # 109/jcahpc (2019, sc17), 541 (2021, SC20), 642 (2023, ISC22), 699 (2024, SC23)
    assert study.release_text(runs.reset_index()).startswith("4 runs here print a release named for an earlier")
    # University of Tsukuba/Cygnus/CHFS/2021/submission-541/result_summary.txt: a valid run of 2021 printing the
    # SC20 release: it goes with 2021
    cygnus = RAW / "University of Tsukuba" / "Cygnus" / "CHFS" / "2021" / "submission-541" / "result_summary.txt"
    assert cygnus.read_text().splitlines()[0].startswith("IO500 version io500-sc20_v3-2-g26a6fed616ff")
    chosen = study.choose(runs.reset_index(), ["CHFS"], []).set_index("run_key")
    assert chosen.loc["submission-541", ["period", "release"]].tolist() == ["2021", "io500-sc20_v3-2-g26a6fed616ff"]


def test_coverage_describes_this_copy(databases):
    # the archive copy's <year> folders: none is 2022 (in data/raw nor in the shared copy it was taken from)
    years = {p.name for p in RAW.glob("*/*/*/*") if p.name.isdigit()}
    shared = {p.name for p in ARCHIVE.glob("*/*/*/*") if p.name.isdigit()}
    assert "2022" not in years | shared and {"2021", "2023"} <= years
    with store.open_read(databases["default"]) as con:
        cov = study.coverage(study.get_runs(con))
    assert (cov["first_year"], cov["last_year"], cov["missing_years"], cov["runs"]) == (2018, 2025, "2022", 258)
    assert "none from 2022" in cov["coverage_text"] and "not the IO500's lists" in cov["coverage_text"]


def test_eras_are_kept_apart(databases):
    with store.open_read(databases["default"]) as con:
        c = study.chapter(con, [], [])
    ten = c["normalised"][c["normalised"].list_kind == study.TEN_CLIENTS].set_index("run_key")
    # Argonne National Laboratory/Aurora/DAOS/2023/submission-694/.../mdtest-hard-read.txt line 3:
    # "2080 total task(s) on 10 node(s)": a 10-node DAOS run of 2023; the 10-node Lustre runs are all of 2019
    log = RAW / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-694" / "results" / \
        "2023.10.08-18.11.45" / "mdtest-hard-read.txt"
    assert "with 2080 total task(s) on 10 node(s)" in log.read_text().splitlines()[2]
    assert (ten.loc["submission-694", "family"], ten.loc["submission-694", "year"]) == ("DAOS", 2023)
    assert set(ten[ten.family == "Lustre"].year) == {2019}
    # so the 10-node comparison holds 2019 alone: Wolf's submission-11 against the seven Lustre runs of 2019
    assert set(c["ten_years"].year) == {2019}
    assert (c["ten_years"]["DAOS runs"] == 1).all() and (c["ten_years"]["Lustre runs"] == 7).all()
    assert c["ten_years"].verdict.str.startswith("undecided").all()
    assert c["wolf10_year"] == 2019 and c["wolf10"].pairs.unique().tolist() == [2]  # Wolf 11 x Tianhe 87, 88


def test_metadata_per_bandwidth_by_year(databases):
    with store.open_read(databases["default"]) as con:
        c = study.chapter(con, [], [])
    years = c["balance_years"].set_index("year")
    assert list(years.index) == [2019, 2020, 2021, 2023, 2024]  # 2018 holds no DAOS run, 2025 no Lustre run
    assert ((years.low > 0) & (years.low < years.ratio) & (years.ratio < years.high)).all()
    assert (years.q >= years.p).all()  # corrected over the five years
    assert years.loc[2020, ["DAOS runs", "Lustre runs"]].tolist() == [11, 13]
    first, _ = c["findings"][0]
    assert len(first.split()) <= 30 and "95% CI" in first and first.startswith("In 2020")
