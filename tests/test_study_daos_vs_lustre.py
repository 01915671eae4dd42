"""The daos_vs_lustre chapter: its study module on the four test databases, and the notebook executed on each."""
import pandas as pd
import papermill
import pytest

from iobook import families, nb, store
from iobook.studies import daos_vs_lustre as study

from conftest import execute_chapter

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
        # lists apart: ISC20 and SC20 are two columns of 2020, runs without a version go by year
        assert {"ISC20", "SC20", "2020 (list not named)"} <= set(study.runs_per_period(chosen).columns)
        assert study.tianhe_runs(con).empty
        assert not study.list_against_raw(con, "seed002_sc19_list")["in raw logs"].any()


def test_tianhe_per_server(databases):
    with store.open_read(databases["default"]) as con:
        tianhe = study.tianhe_runs(con)
        lustre = tianhe[tianhe.matches_sc19_score].iloc[0]
        assert lustre.run_key == "submission-15" and len(tianhe) == 3
        servers = study.server_counts(con, int(lustre.run_id))
        slide = study.tianhe_slide_vs_raw(con, int(lustre.run_id))
    # National Supercomputing Center in Changsha/Tianhe-2E/Tianhe-FS/2019/submission-15/results/
    # io-500-summary.2019.11.10-17.49.07.txt:16-19: num_client_nodes=480, num_data_server_nodes=52, ...=40
    own = servers.iloc[0]
    assert own["from"].startswith("the run's own log")
    assert (own["data servers"], own["metadata servers"], own["client nodes"]) == (52, 40, 480)
    daos = servers[servers.setup == "DAOS, ISC20"].iloc[0]
    assert (daos["data servers"], daos["client nodes"]) == (24, 24)  # seed 002 line 420: "We use 24 servers"
    assert slide.equal.all() and len(slide) == 12
    per = study.per_server(lustre, study.daos_rescored(), servers).set_index("run")
    assert per.loc[study.LUSTRE_LABEL, "bw per server (GiB/s)"] == pytest.approx(209.432915 / 52, rel=1e-6)
    assert per.loc[study.DAOS_TABLES["daos_isc20_full"], "bw per server (GiB/s)"] == pytest.approx(108.924621 / 24,
                                                                                                  rel=1e-6)


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


def test_unknown_family_names_the_nearest(databases, tmp_path):
    with store.open_read(databases["other_io500"]) as con:
        runs = study.get_runs(con)
    with pytest.raises(nb.UnknownSelection, match="'Lustre'"):
        nb.select(["Lustr"], runs.family, "file-system family")
    with pytest.raises(papermill.PapermillExecutionError, match=r"'DAOSS': nearest \[[^]]*'DAOS'"):
        execute_chapter("daos_vs_lustre", databases["other_io500"], tmp_path, families=["DAOSS"])


@pytest.mark.parametrize("name", ["empty", "built_tools", "other_io500", "default"])
def test_notebook_executes(databases, tmp_path, name):
    text = "\n".join(execute_chapter("daos_vs_lustre", databases[name], tmp_path))
    if name == "empty":
        assert "This database holds no IO500 runs" in text and "<table" not in text and "## Findings" not in text
        return
    assert "## Findings" in text and "<table" in text
    assert ("## Score by family and list" in text) == (name != "built_tools")
    assert ("submission-15 has the SC19 list" in text) == (name == "default")
    assert "different numbers of data servers (52 and 24)" in text
    assert ("## The IO500 lists, kept apart" in text) == (name != "built_tools")
    assert ("On 10 client nodes each (the 10-node list)" in text) == (name == "default")
    assert "the book has no value from them and shows none" in text  # seed 004's charts without numbers


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
    assert wolf.list_kind == "10-node list (and full)"
    assert wolf.bw_per_client_node == pytest.approx(wolf.bw_gib_s / 10) and round(wolf.bw_gib_s, 3) == 123.894
    differ = study.declared_against_logs(normalised).set_index("run_key")
    assert differ.loc["submission-88", ["client_nodes", "declared_client_nodes"]].tolist() == [10, 480]
    apart = study.lists_apart(normalised).set_index("period")
    assert (apart.ten_node <= apart.client_nodes_known).all() and (apart.client_nodes_known <= apart.runs).all()
    assert apart.runs.sum() == len(normalised)
    medians = study.per_node_medians(normalised).set_index(["family", "list_kind"])
    assert medians.loc[("DAOS", "10-node list (and full)"), "median_client_nodes"] == 10
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
