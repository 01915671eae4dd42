"""The your_runs chapter (iobook/studies/your_runs.py): configurations, their runs (the unit: iterations of one
invocation aggregated to it), designs never pooled, sweeps, labels and their comparison, on the four test
databases and on trees made here from real logs; every value checked is read again from its named raw file in
the test."""
import functools
import json
import math
import re
import shutil
import statistics
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import BUILT_TOOLS, REPO, chapter_report, execute_chapter
from scipy import stats as scipy_stats

from iobook.book import build, comparison, present
from iobook.database import source_labels, store
from iobook.database.ingest import ingest
from iobook.inference import evidence, selection
from iobook.studies import your_runs as study

CHECKSUM = REPO / "data" / "raw" / "checksum" / "vm-20261121T131428Z"
IOR_TEXT = BUILT_TOOLS / "ior" / "ior_posix_fpp_1m_np2_i3.log"  # ior -a POSIX -F -w -r -C -e -i 3 -t 1m -b 16m
IOR_JSON = BUILT_TOOLS / "ior" / "ior_json_posix_fpp_1m_np2_i3.log"  # the same options, summaryFormat=JSON
MDTEST_I3 = BUILT_TOOLS / "mdtest" / "mdtest_n1000_i3_np2.log"  # mdtest -n 1000 -i 3, 2 tasks
MDTEST_I2 = BUILT_TOOLS / "mdtest" / "mdtest_rankstats_np2.log"  # mdtest --showRankStatistics -P -n 1000 -i 2


def ior_text_bandwidths(path, access):
    """IOR's results table as printed: 'write     207.19     207.24 ...' -> the bw(MiB/s) of each iteration
    (the rows between "Results:" and "Summary of all tests")."""
    table = path.read_text().split("Results:")[1].split("Summary of all tests")[0]
    return [float(m.group(1)) for m in re.finditer(rf"^{access}\s+([\d.]+)\s", table, re.M)]


def ior_json_bandwidths(path, access):
    return [r["bwMiB"] for r in json.loads(path.read_text())["tests"][0]["Results"] if r["access"] == access]


def mdtest_row(path, operation):
    """The numbers of a SUMMARY rate row: '   File creation   18987.601   1598.965 ...'."""
    line = next(x for x in path.read_text().splitlines() if x.strip().startswith(operation))
    return [float(v) for v in line.split()[len(operation.split()):]]


def log_welch(sample, baseline):
    """Welch's t-test on the logs of two groups of positive values: the ratio of their geometric means, its
    95% interval (scipy's confidence_interval of the difference of log means, taken back) and p."""
    test = scipy_stats.ttest_ind(np.log(sample), np.log(baseline), equal_var=False)
    ci = test.confidence_interval(0.95)
    return np.exp(np.log(sample).mean() - np.log(baseline).mean()), np.exp(ci.low), np.exp(ci.high), test.pvalue


def geometric_mean(values):
    return float(np.exp(np.mean(np.log(values))))


def log_t_interval(values):
    """The 95% t interval of the geometric mean of positive values (on their logs, taken back)."""
    logs = np.log(values)
    half = scipy_stats.t.ppf(0.975, len(logs) - 1) * logs.std(ddof=1) / np.sqrt(len(logs))
    return np.exp(logs.mean() - half), np.exp(logs.mean() + half)


@functools.cache
def _runs_and_configurations(db: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Computed once a database (~5 s on data/raw's): the tests only read them."""
    with store.open_read(db) as con:
        runs = study.get_runs(con)
    return runs, study.get_configurations(runs)


def configurations(db):
    """(read-only connection, runs, configurations) of a database; the frames are copies of the cached ones."""
    runs, configs = _runs_and_configurations(Path(db))
    return store.open_read(db), runs.copy(), configs.copy()


def config_of(runs, file_suffix, workload):
    rows = runs[runs["file"].str.endswith(file_suffix) & (runs["workload"] == workload)]
    assert rows["config"].nunique() == 1
    return rows["config"].iloc[0]


@pytest.mark.slow
def test_fio_runs_are_the_files_of_one_configuration(databases):
    """data/raw's checksum run vm-20261121T131428Z read the same 2 GiB file with the same job twice (r1, r2): one
    configuration of 2 runs, its value the geometric mean of the two JSONs' bw_bytes. Two runs are fewer than
    evidence.MIN_UNITS: no interval (issue 36: the table printed a t interval on them), the range of the runs in
    its place."""
    con, runs, configs = configurations(databases["default"])
    config = config_of(runs, "002-read-none-direct-r1.fio.json", "read")
    assert config == config_of(runs, "026-read-none-direct-r2.fio.json", "read")
    files = [CHECKSUM / "002-read-none-direct-r1.fio.json", CHECKSUM / "026-read-none-direct-r2.fio.json"]
    jobs = [json.loads(f.read_text())["jobs"][0] for f in files]
    bw = [j["read"]["bw_bytes"] / 2**20 for j in jobs]  # 946444974 and 619228272 B/s
    row = configs.set_index("config").loc[config]
    assert (row["label"], row["tool"], row["runs"], row["files"]) == ("checksum", "fio", 2, 2)
    assert row["design"] == "collector run vm-20261121T131428Z"
    assert (row["bs"], row["direct"], row["ioengine"], row["size"]) == ("1M", 1, "psync", "2G")
    assert pd_isna(row["iodepth"])  # the job states no iodepth: unknown, not fio's default of 1
    assert row["bw_mib_s"] == pytest.approx(geometric_mean(bw))
    assert row["bw_mib_s_spread"] == pytest.approx(statistics.stdev(bw) / statistics.mean(bw))
    assert row["ops_s"] == pytest.approx(geometric_mean([j["read"]["iops"] for j in jobs]))
    assert row["p99_ms"] == pytest.approx(statistics.mean(j["read"]["clat_ns"]["percentile"]["99.000000"] for j in jobs) / 1e6)
    assert pd_isna(row["bw_mib_s_low"]) and pd_isna(row["bw_mib_s_high"])
    assert row["estimate"].n == 2 and row["estimate"].replicate == evidence.Replicate.RUN
    assert evidence.as_shown(row["estimate"]).low is None
    table, _ = study.configuration_table(configs, "fio")
    cell = table.loc[(table["label"] == "checksum") & table["bandwidth (MiB/s)"].str.startswith(f"{geometric_mean(bw):,.0f} "),
                     "bandwidth (MiB/s)"]
    # 946444974 and 619228272 B/s: 591 and 903 MiB/s
    assert cell.tolist() == [f"{geometric_mean(bw):,.0f} ±{statistics.stdev(bw) / statistics.mean(bw):.0%} "
                             f"(runs {min(bw):,.0f}–{max(bw):,.0f})"]
    con.close()


@pytest.mark.slow
def test_what_a_collector_saw_of_the_load_is_no_parameter(databases):
    """The re-collected checksum run labels each step with the quiet check it passed (busy before and after,
    wait, attempt, under load; scripts/collectlib.py LoadGate.LABELS) and its end-of-run baseline with
    drift_check: conditions of a run, not what was run. Its 6 sha256 direct writes (r1-r6 on disk) are one
    configuration of 6 runs."""
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    import collectlib

    assert set(collectlib.LoadGate.LABELS) <= set(study.MANIFEST_CONDITION_KEYS)
    run = REPO / "data" / "raw" / "checksum" / "vm-20261125T030550Z"
    files = sorted(run.glob("*-write-sha256-direct-r*.fio.json"))
    con, runs, configs = configurations(databases["default"])
    (config,) = {config_of(runs, f"{run.name}/{f.name}", "write") for f in files}
    row = configs.set_index("config").loc[config]
    assert (row["runs"], row["files"]) == (len(files), len(files)) == (6, 6)
    assert not any(key in (row["other"] or "") for key in study.MANIFEST_CONDITION_KEYS)
    con.close()


@pytest.mark.slow
def test_an_end_of_run_check_is_no_repetition(databases):
    """Issue 46: a collector measures its baseline again after every other step (manifest label drift_check=end) to
    check for drift; pooled, data/raw/checksum/vm-20261125T030550Z's direct writes without a checksum were one
    configuration of 7 runs. Its manifest's six rounds r1-r6 are one configuration of 6 runs, the end step r7 one of
    its own, whose configuration says it is the end check."""
    run = REPO / "data" / "raw" / "checksum" / "vm-20261125T030550Z"
    steps = {s["name"]: s["labels"].get("drift_check") for s in json.loads((run / "manifest.json").read_text())["steps"]
             if "-write-none-direct-r" in s["name"]}
    rounds = [f"{name}.fio.json" for name, check in steps.items() if check is None]
    (end,) = [f"{name}.fio.json" for name, check in steps.items() if check == "end"]
    con, runs, configs = configurations(databases["default"])
    con.close()
    (config,) = {config_of(runs, f"{run.name}/{f}", "write") for f in rounds}
    end_config = config_of(runs, f"{run.name}/{end}", "write")
    by_config = configs.set_index("config")
    assert (len(rounds), by_config.loc[config, "runs"], by_config.loc[end_config, "runs"]) == (6, 6, 1)
    assert "drift_check=end" in by_config.loc[end_config, "other"] and "drift" not in by_config.loc[config, "other"]
    table, _ = study.configuration_table(configs, "fio")
    assert table["configuration"].str.contains("drift_check=end").sum() == (configs["other"].fillna("")
                                                                              .str.contains("drift_check=end")).sum()


def pd_isna(value):
    return value is None or (isinstance(value, float) and np.isnan(value))


@pytest.mark.slow
def test_ior_iterations_of_one_invocation_are_one_run(databases):
    """`-i 3` repeats a test inside one IOR invocation: same placement, same caches. The text and the JSON log
    of the same options (built-tools MANIFEST.tsv lines of ior_posix_fpp_1m_np2_i3.log and
    ior_json_posix_fpp_1m_np2_i3.log) are 2 runs, not 6 repetitions; each run's value is the geometric mean of
    its 3 iterations, as printed in its results table."""
    con, runs, configs = configurations(databases["built_tools"])
    config = config_of(runs, "ior/ior_posix_fpp_1m_np2_i3.log", "write")
    assert config == config_of(runs, "ior/ior_json_posix_fpp_1m_np2_i3.log", "write")
    row = configs.set_index("config").loc[config]
    per_run = [geometric_mean(ior_text_bandwidths(IOR_TEXT, "write")), geometric_mean(ior_json_bandwidths(IOR_JSON, "write"))]
    assert row["runs"] == 2 and row["design"] == "ior 4.1.0+dev"  # "IOR-4.1.0+dev: MPI Coordinated Test..."
    assert row["bw_mib_s"] == pytest.approx(geometric_mean(per_run))
    assert pd_isna(row["bw_mib_s_low"])  # two runs: no interval (evidence.MIN_UNITS)
    # the option block: "type : independent", "ordering in a file : sequential", "ordering inter file : constant task offset"
    assert (row["api"], row["transfer"], row["block"], row["tasks"], row["nodes"]) == ("POSIX", 2**20, 16 * 2**20, 2, 1)
    assert (row["file_per_proc"], row["collective"], row["ordering_in_file"], row["ordering_inter_file"]) == (
        True, False, "sequential", "constant task offset")
    con.close()


@pytest.mark.slow
def test_mdtest_iterations_are_one_run(databases):
    """An mdtest SUMMARY is one invocation: mdtest_n1000_i3_np2.log (-i 3) and mdtest_rankstats_np2.log (-i 2)
    are 2 runs of 2,000 items on 2 tasks, each the mean its File creation row prints (with
    --showRankStatistics the last four numbers are the iterations' max, min, mean and sd), not 5 repetitions."""
    i3, i2 = mdtest_row(MDTEST_I3, "File creation")[2], mdtest_row(MDTEST_I2, "File creation")[3:][2]
    con, runs, configs = configurations(databases["built_tools"])
    config = config_of(runs, "mdtest/mdtest_n1000_i3_np2.log", "File creation")
    assert config == config_of(runs, "mdtest/mdtest_rankstats_np2.log", "File creation")
    row = configs.set_index("config").loc[config]
    assert (row["runs"], row["items"], row["tasks"], row["unique_dir"]) == (2, 2000, 2, False)
    assert pd_isna(row["branching"]) and pd_isna(row["depth"])  # not on the command line: unknown
    assert row["ops_s"] == pytest.approx(geometric_mean([i3, i2]))
    con.close()


def test_mdtest_options_from_the_command_line():
    assert study.mdtest_options("mdtest '-n' '1000' '-i' '3' '-d' '/tmp/x'") == {
        "branching": None, "depth": None, "write_bytes": None, "read_bytes": None, "unique_dir": False,
        "stonewall": None}
    # an IO500 mdtest-hard phase: ./mdtest ... -t -w 3901 -e 3901 -P -G=-1572524095 -N 1 -F -d ...
    assert study.mdtest_options("./mdtest -n 1000000 -t -w 3901 -e 3901 -u -b=3 -z 2 -d /x") == {
        "branching": 3, "depth": 2, "write_bytes": 3901, "read_bytes": 3901, "unique_dir": True, "stonewall": None}
    assert study.mdtest_options(None) == dict.fromkeys(
        ["branching", "depth", "write_bytes", "read_bytes", "unique_dir", "stonewall"])
    # built-tools' mdtest_stonewall_W2_np2.log line 4; IO500 submission-679's mdtest-hard-stat.txt reads the
    # write's status file (-x .../mdtest-hard.stonewall)
    assert study.mdtest_options("mdtest '-F' '-W' '2' '-n' '200000' '-x' '/tmp/sw.status' '-C'")["stonewall"] == "2 s"
    assert study.mdtest_options("./mdtest '-n' '1000000' '-x' '/r/mdtest-hard.stonewall' '-T'")["stonewall"] == \
        study.STATUS_FILE
    assert study.tree_directories(3, 2) == 1 + 3 + 9 and study.tree_directories(None, None) is None


def ior_tree(tmp_path, labels_yml=None):
    """Two folders holding the two IOR logs of the same options: a/ the text log, b/ the JSON log."""
    tree = tmp_path / "results"
    for folder, log in (("a", IOR_TEXT), ("b", IOR_JSON)):
        (tree / folder).mkdir(parents=True)
        shutil.copyfile(log, tree / folder / log.name)
    if labels_yml is not None:
        (tree / "labels.yml").write_text(labels_yml)
    db = tmp_path / "ior.duckdb"
    ingest([tree], db, progress=False)
    return tree, db


def test_two_labels_of_one_run_each_are_compared_undecided(tmp_path):
    """IOR read back 1 MiB transfers at a geometric mean of its 3 iterations in each log: one run a label. The
    JSON run's label over the text run's is the ratio of those two runs, with no interval (one run a side) and
    undecided (evidence.MIN_UNITS runs a side at least): before the evidence model, its 3 iterations a side read
    as a decided 1.30x."""
    _, db = ior_tree(tmp_path)
    con, runs, configs = configurations(db)
    assert sorted(set(configs["label"])) == ["a", "b"] and study.labels_sharing(configs) == ["a", "b"]
    assert study.choose_baseline(configs, "") == ("a", None) and study.choose_baseline(configs, "b") == ("b", None)
    (comparisons,) = study.decide_together(study.label_comparisons(runs, configs, "a"))
    comparisons = comparisons.set_index("workload")
    read = comparisons.loc["read"]
    ratio = geometric_mean(ior_json_bandwidths(IOR_JSON, "read")) / geometric_mean(ior_text_bandwidths(IOR_TEXT, "read"))
    assert (read["label"], read["n"], read["n_baseline"]) == ("b", 1, 1)
    assert read["ratio"] == pytest.approx(ratio) and pd_isna(read["low"])
    assert not read["decided"] and read["verdict"] == evidence.Verdict.TOO_FEW
    con.close()


def test_labels_yml_names_the_runs_and_notes_what_it_cannot_use(tmp_path):
    tree, db = ior_tree(tmp_path, '"a/*.log": before the upgrade\nb: after the upgrade\n"c/*": nothing here\n')
    con = store.open_read(db)
    labels, files, notes = source_labels.label_sources(con, study.get_runs(con)["source_id"])
    by_file = dict(zip(labels["source_id"].map(dict(con.execute("SELECT source_id, path FROM sources").fetchall())),
                       labels["label"]))
    assert by_file[str(tree.resolve() / "a" / IOR_TEXT.name)] == "before the upgrade"
    assert by_file[str(tree.resolve() / "b" / IOR_JSON.name)] == "after the upgrade"
    assert files.to_dict("records") == [{"labels file": "results/labels.yml", "patterns": 3, "files labelled": 2}]
    assert notes == ["results/labels.yml: 1 pattern(s) label no fio, IOR, mdtest or DLIO file: c/*"]
    con.close()
    # a labels file changed after ingest is not applied (its page would not match its data): folders label
    (tree / "labels.yml").write_text("b: renamed\n")
    con = store.open_read(db)
    labels, _, notes = source_labels.label_sources(con, study.get_runs(con)["source_id"])
    assert sorted(set(labels["label"])) == ["a", "b"]
    assert notes == ["results/labels.yml: changed since it was ingested: rebuild the book to apply it"]
    con.close()


@pytest.mark.slow
def test_labels_csv_and_a_broken_labels_file(tmp_path):
    tree = tmp_path / "t"
    (tree / "x" / "deep").mkdir(parents=True)
    shutil.copyfile(IOR_TEXT, tree / "x" / "deep" / IOR_TEXT.name)
    (tree / "labels.csv").write_text("pattern,label\nx/deep,from the csv\n")
    (tree / "x" / "labels.yml").write_text("this: [is not: a mapping\n")  # nearer, but unreadable
    db = tmp_path / "t.duckdb"
    ingest([tree], db, progress=False)
    con = store.open_read(db)
    labels, _, notes = source_labels.label_sources(con, study.get_runs(con)["source_id"])
    assert labels["label"].tolist() == ["from the csv"]
    assert len(notes) == 1 and notes[0].startswith("t/x/labels.yml: not YAML") and notes[0].endswith("not applied")
    con.close()


@pytest.mark.slow
def test_io500_phase_logs_take_their_runs_system(databases):
    con, runs, _ = configurations(databases["default"])
    ior = runs[runs["tool"].eq("ior")]
    by_io500 = ior[ior["labelled_by"] == "IO500 run"]
    assert {"Aurora", "Wolf", "Tianhe-2E"} <= set(by_io500["label"])  # Argonne's and Intel's DAOS, NSCC's Lustre
    # the 2017 script's logs in DKRZ's submission 109 belong to no IO500 run the database holds, and the runs that
    # submission bundles whose files state no site (JCAHPC, STFC, STFC-64, IBM's sonasad) have no system: their folder
    folder = ior[ior["labelled_by"] == "folder"]
    assert set(folder["label"]) == {"io500"}
    assert set(folder["file"].str.extract(r"submission-109/([^/]+)/", expand=False)) == {
        "JCAHPC", "JCAHPC-17", "STFC", "STFC-64", "sonasad"}
    con.close()


PAGECACHE = REPO / "data" / "raw" / "pagecache"
QD_RUNS = {"vm-20261125T035437Z": 5, "vm-20261123T160557Z": 3}  # the queue-depth experiment's two collector runs: r1-r5, r1-r3


def read_bandwidths(files):
    return [json.loads(f.read_text())["jobs"][0]["read"]["bw_bytes"] / 2**20 for f in files]


@pytest.mark.slow
def test_sweeps_are_found_per_design(databases):
    """data/raw's two page-cache queue-depth runs read one file at iodepth 1 to 64 with libaio and io_uring:
    one sweep over iodepth per collector run (a line per engine), each point the geometric mean of that run's
    files only; the buffered read at iodepth 1 beside them (other collector labels) is no line of it. Its
    IO500 runs differ in block size, tasks and nodes all at once, a line of one point each: not sweeps.
    built-tools' mdtest logs ran 100 to 2,000 items on 1 and 2 tasks: a sweep over items where every phase
    ran, not where one log (-F) adds a line of its own."""
    con, runs, configs = configurations(databases["default"])
    sweeps, points = study.get_sweeps(configs)
    assert sorted(sweeps["sweep"]) == [f"pagecache · fio read · collector run {run}" for run in sorted(QD_RUNS)]
    assert sweeps[["x", "lines", "configurations"]].values.tolist() == [["iodepth", "ioengine", 8]] * 2
    for run, n in QD_RUNS.items():
        libaio = points[(points["line"] == "ioengine=libaio") & (points["design"] == f"collector run {run}")].set_index("x")
        files = sorted((PAGECACHE / run).glob("*-read-direct-libaio-qd64-r*.fio.json"))
        assert len(files) == n == libaio.loc[64.0, "n"]
        assert libaio.loc[64.0, "mean"] == pytest.approx(geometric_mean(read_bandwidths(files)))
        assert sorted(libaio.index) == [1.0, 4.0, 16.0, 64.0]
    con.close()
    con, runs, configs = configurations(databases["built_tools"])
    found = study.get_sweeps(configs)[0].set_index("sweep")
    assert (found.loc["mdtest · mdtest Directory creation", ["x", "lines"]] == ["items", "tasks"]).all()
    # the -F logs' items (mdtest_stonewall_W2_np2.log: -W 2 -n 200000) are bounds their stonewall stopped: no point
    # of the File creation sweep, which holds the four files/directories configurations of 100 to 2,000 items
    assert found.loc["mdtest · mdtest File creation", ["x", "lines", "configurations"]].tolist() == ["items", "tasks", 4]
    con.close()


@pytest.mark.slow
def test_two_collector_runs_are_two_designs_never_pooled(databases):
    """data/raw/pagecache holds the queue-depth experiment twice: vm-20261123T160557Z (fixed order, r1-r3) and
    vm-20261125T035437Z (rounds with a stopping rule, r1-r5). iodepth 1 -> 64 with libaio, pooled over both,
    read 1.27x (n = 8); within each run it is 1.01x and 1.85x: one sweep line per collector run, each of its
    own files only (Welch's t on their logs), and no line of 8. Neither is decided; the first finding shows the
    current run's, the next the superseded one's with its interval and verdict (issue 46: it stood without them)."""
    con, runs, configs = configurations(databases["default"])
    sweeps, points = study.get_sweeps(configs)
    (effects,) = study.decide_together(study.sweep_effects(runs, configs, points))
    libaio = effects[effects["line"] == "ioengine=libaio"].set_index("design")
    assert len(libaio) == 2
    for run, n in QD_RUNS.items():
        qd64, qd1 = (read_bandwidths(sorted((PAGECACHE / run).glob(f"*-read-direct-libaio-qd{qd}-r*.fio.json")))
                     for qd in (64, 1))
        e = libaio.loc[f"collector run {run}"]
        assert (e["n"], e["n_baseline"]) == (len(qd64), len(qd1)) == (n, n)
        ratio, low, high, p = log_welch(qd64, qd1)
        assert (e["ratio"], e["low"], e["high"], e["p"]) == pytest.approx((ratio, low, high, p))
        assert e["verdict"] == evidence.Verdict.UNDECIDED
    assert libaio.loc["collector run vm-20261125T035437Z", "ratio"] == pytest.approx(1.01, abs=0.01)
    assert libaio.loc["collector run vm-20261123T160557Z", "ratio"] == pytest.approx(1.85, abs=0.01)
    first, superseded = chapter_report("your_runs", Path(databases["default"])).findings[:2]
    assert "1.01×" in first.text and "vm\\-20261125T035437Z" in first.text and "1.85×" not in first.text
    e = libaio.loc["collector run vm-20261123T160557Z"]
    assert superseded.evidence == (e["record"],) and "vm\\-20261123T160557Z" in superseded.text
    assert f"1.85× (95% interval {e['low']:.3g}–{e['high']:.3g}; 3 runs vs 3; undecided" in superseded.text
    con.close()


AURORA_688 = (REPO / "data" / "raw" / "io500" / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-688"
              / "results" / "2023.11.07-03.43.32" / "mdtest-easy-write.txt")


@pytest.mark.slow
def test_a_one_directory_tree_phase_is_never_ranked(databases):
    """Aurora's mdtest-easy-write (submission-688) states no -z: its tree is mdtest's root directory alone, and
    "Tree creation" times that one mkdir: shown, never ranked (largest change, widest spread). Its File
    creation, 10,000,000 items a task, is ranked. Before, Aurora's Tree creation (2 runs, 100 % spread) topped
    the published spread finding."""
    command = next(x for x in AURORA_688.read_text().splitlines() if x.startswith("Command line used"))
    assert "'-z'" not in command and "'-n' '10000000'" in command
    con, runs, configs = configurations(databases["default"])
    ranked = study.rankable(configs)
    rel = str(AURORA_688.relative_to(REPO))
    for workload, expected in (("Tree creation", False), ("File creation", True)):
        config = config_of(runs, rel, workload)
        assert bool(ranked[configs["config"] == config].iloc[0]) is expected, workload
    assert not ranked[configs["workload"].str.startswith("Tree ") & configs["depth"].isna()].any()
    assert not any("Tree " in f.text for f in chapter_report("your_runs", Path(databases["default"])).findings)
    con.close()


@pytest.mark.slow
def test_a_baseline_label_sharing_no_configuration_is_said(tmp_path):
    """An unknown baseline_label is refused before the chapter runs (chapters.check_parameters, naming the
    nearest labels). A label of the data that ran nothing another label ran (c/: an mdtest log beside the two
    IOR logs of a/ and b/) compares nothing, and the page says so; "b" compares a with b."""
    tree, _ = ior_tree(tmp_path)
    (tree / "c").mkdir()
    shutil.copyfile(MDTEST_I3, tree / "c" / MDTEST_I3.name)
    db = tmp_path / "abc.duckdb"
    ingest([tree], db, progress=False)
    con = store.open_read(db)
    r = study.report(con, baseline_label="c")
    assert not r.values["has-comparisons"] and "**c** ran no configuration" in r.values["label-notes"]
    r = study.report(con, baseline_label="b")
    assert len(r.tables["tab-runs-comparisons"].frame) == 2  # ior read and write, of one label, said once
    assert present.md_escape("label=a ") in str(r.values["shared-comparisons"])
    con.close()


@pytest.mark.slow
def test_every_database_and_its_findings(any_db):
    name, con = any_db
    r = study.report(con)
    if name == "empty":
        assert len(r.findings) == 1 and not r.figures
        return
    assert 3 <= len(r.findings) <= 6
    assert all(f.target is None or re.fullmatch(r"(fig|tab)-runs-[a-z-]+", f.target) for f in r.findings)  # None: a section absent here
    # the first finding: a number and, where there are runs, its interval, in at most 30 words besides the labels
    first = re.sub(r"\*\*[^*]+\*\*", "LABEL", r.findings[0].text)
    assert len(first.split()) <= 30 + 1, first
    intervals = [(x.low, x.high) for x in r.evidence if getattr(x, "low", None) is not None]
    assert all(0 < low <= high for low, high in intervals)  # rates and their ratios stay positive
    assert intervals or name == "other_io500"  # one IO500 run a configuration there: no interval anywhere
    # a run is the unit of every record; the census of runs against their setup's limits counts runs
    assert all(x.replicate == evidence.Replicate.RUN for x in r.evidence if not isinstance(x, evidence.Count))


@pytest.mark.slow
def test_chapter_executes_on_every_database(databases, tmp_path):
    """On every test database the chapter runs and glues its report (tests/test_glue_keys.py checks that every
    key its shown markdown pastes is in the report); no cell prints a warning."""
    for name in ("empty", "default"):  # the others: test_glue_keys.py, test_own_logs_book.py
        (tmp_path / name).mkdir()
        outputs = execute_chapter("your_runs", databases[name], tmp_path / name)  # raises on a cell's error
        assert not [o for o in outputs if "Warning: " in o], name
        r = chapter_report("your_runs", Path(databases[name]))
        assert {"read", "tab-runs-labels"} <= {*r.values, *r.tables} and r.findings, name


@pytest.mark.slow
def test_names_from_folders_reach_the_page_as_text(tmp_path):
    """A folder named like Markdown or HTML labels its runs as typed, not as markup."""
    tree = tmp_path / "t"
    for folder, log in (("<b>x", IOR_TEXT), ("**y** {numref}`z`", IOR_JSON)):  # two runs (a copy is one run)
        (tree / folder).mkdir(parents=True)
        shutil.copyfile(log, tree / folder / log.name)
    db = tmp_path / "t.duckdb"
    ingest([tree], db, progress=False)
    con = store.open_read(db)
    r = study.report(con)
    text = "\n".join(f.text for f in r.findings) + r.values["read"]
    assert r"\<b\>x" in text and r"\*\*y\*\* \{numref\}\`z\`" in text
    assert "<b>" not in text and "**y**" not in text
    con.close()


def test_md_escape_and_select():
    assert present.md_escape("a_b *c* <d>\n`e`") == r"a\_b \*c\* \<d\> \`e\`"
    assert selection.select([], ["b", "a"], "family") == ["a", "b"]
    with pytest.raises(selection.UnknownSelection, match="no family named 'x'.*nearest"):
        selection.select(["x", "DAOS"], ["DAOS", "Lustre"], "family")


def test_sizes_read_as_fio_and_ior_write_them():
    assert study.size_bytes("4k") == 4096 and study.size_bytes("1m") == 2**20 and study.size_bytes("64KiB") == 65536
    # fio's text output: "bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB"
    assert study.size_bytes("(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB") == 65536
    assert study.size_bytes("4k-64k") is None and study.size_bytes("100%") is None
    assert study.binary_size(47008) == "47008 B" and study.binary_size(2**20) == "1 MiB"


@pytest.mark.slow
def test_parsers_keep_the_options_the_chapter_needs(databases):
    con = store.open_read(databases["default"])
    size, options = con.execute(
        "SELECT j.size, j.options FROM fio_jobs j JOIN sources s USING (source_id) WHERE s.path LIKE ?",
        ["%/checksum/vm-20261121T131428Z/007-write-md5-direct-r1.fio.json"]).fetchone()
    job = json.loads((CHECKSUM / "007-write-md5-direct-r1.fio.json").read_text())["jobs"][0]["job options"]
    assert size == job["size"] == "2G" and json.loads(options) == job
    con.close()


SWEEP = REPO / "data" / "examples" / "sweep"  # fio, IOR and mdtest on three systems (its README, MANIFEST.tsv)
VDA = "ext4, virtio disk"  # its labels.yml: "vda-ext4/**: ext4, virtio disk"
LOOP = "ext4, loop device"
TMPFS = "tmpfs (RAM)"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    db = tmp_path_factory.mktemp("sweep") / "sweep.duckdb"
    ingest([SWEEP], db, progress=False)
    con, runs, configs = configurations(db)
    yield db, con, runs, configs
    con.close()


def fio_bandwidths(folder, direction="read"):
    return [json.loads(f.read_text())["jobs"][0][direction]["bw_bytes"] / 2**20 for f in sorted(folder.glob("rep*.json"))]


@pytest.mark.slow
def test_sweep_example_configurations_from_its_files(sweep):
    """The sweep example's README: fio 3.33 (one file a run), IOR-4.1.0+dev (rep1.log and rep2.json, 3
    iterations each: 2 runs), mdtest-4.1.0+dev (one log of -i 3: 1 run)."""
    _, _, runs, configs = sweep
    assert sorted(set(configs["label"])) == [LOOP, VDA, TMPFS]
    assert set(runs["labelled_by"]) == {f"data/examples/sweep/labels.yml: {g}" for g in ("vda-ext4/**", "loop-ext4/**", "tmpfs/**")}
    assert set(configs["design"]) == {"fio 3.33", "ior 4.1.0+dev", "mdtest 4.1.0+dev"}
    by = configs.set_index("config")
    folder = SWEEP / "vda-ext4" / "fio-randread-bs4k-qd16"
    row = by.loc[config_of(runs, "vda-ext4/fio-randread-bs4k-qd16/rep1.json", "randread")]
    assert (row["label"], row["bs"], row["iodepth"], row["direct"], row["size"], row["runs"]) == (VDA, "4k", 16, 1, "256m", 3)
    assert row["bw_mib_s"] == pytest.approx(geometric_mean(fio_bandwidths(folder)))
    assert (row["bw_mib_s_low"], row["bw_mib_s_high"]) == pytest.approx(log_t_interval(fio_bandwidths(folder)))
    # the same job's text output states no direct and no size: a configuration of its own
    text = by.loc[config_of(runs, "vda-ext4/fio-randread-bs64k-qd16-text/rep1.txt", "randread")]
    assert (text["runs"], text["iodepth"]) == (3, 16) and pd_isna(text["direct"]) and pd_isna(text["size"])
    assert text.name != config_of(runs, "vda-ext4/fio-randread-bs64k-qd16/rep1.json", "randread")
    folder = SWEEP / "tmpfs" / "ior-shared-t4m-b64m-np2"
    row = by.loc[config_of(runs, "tmpfs/ior-shared-t4m-b64m-np2/rep1.log", "write")]
    per_run = [geometric_mean(ior_text_bandwidths(folder / "rep1.log", "write")),
               geometric_mean(ior_json_bandwidths(folder / "rep2.json", "write"))]
    assert (row["runs"], row["transfer"], row["tasks"], row["file_per_proc"]) == (2, 4 * 2**20, 2, False)
    assert row["bw_mib_s"] == pytest.approx(geometric_mean(per_run))
    rates = mdtest_row(SWEEP / "loop-ext4" / "mdtest-n5000-np2" / "rep1.log", "File stat")
    row = by.loc[config_of(runs, "loop-ext4/mdtest-n5000-np2/rep1.log", "File stat")]
    assert (row["runs"], row["items"], row["tasks"]) == (1, 10000, 2)
    assert row["ops_s"] == pytest.approx(rates[2]) and pd_isna(row["ops_s_low"])  # one run: no interval


@pytest.mark.slow
def test_sweep_example_sweeps(sweep):
    _, _, _, configs = sweep
    sweeps, points = study.get_sweeps(configs)
    found = sweeps.set_index("sweep")
    for label in (VDA, LOOP, TMPFS):
        for rw in ("randread", "randwrite"):
            fio = found.loc[f"{label} · fio {rw}"]
            assert (fio["x"], fio["lines"], fio["configurations"], fio["log_x"]) == ("bs (KiB)", "iodepth", 6, True)
        ior = found.loc[f"{label} · ior write"]
        assert (ior["x"], ior["lines"], ior["configurations"]) == ("transfer (KiB)", "tasks, file per process", 12)
        assert (found.loc[f"{label} · mdtest File creation", ["x", "lines"]] == ["items", "tasks"]).all()
    p = points[points["sweep"] == f"{VDA} · fio randread"].set_index(["line", "x"])
    assert p.loc[("iodepth=16", 4.0), "mean"] == pytest.approx(geometric_mean(fio_bandwidths(SWEEP / "vda-ext4" / "fio-randread-bs4k-qd16")))
    assert p.loc[("iodepth=1", 1024.0), "mean"] == pytest.approx(geometric_mean(fio_bandwidths(SWEEP / "vda-ext4" / "fio-randread-bs1m-qd1")))
    assert len(p) == 6 and (p["low"] > 0).all() and (p["low"] < p["mean"]).all() and (p["mean"] < p["high"]).all()
    assert study.chart_sweeps(sweeps, points).to_dict()


@pytest.mark.slow
def test_sweep_example_labels_compared(sweep):
    """tmpfs against the loop device, fio randread at iodepth 1, 3 files a side: the ratio of the two folders'
    geometric mean bandwidths with the interval and p of Welch's t on their logs, recomputed from their JSONs;
    its verdict is evidence.decide's, Holm within the labels compared. mdtest File stat at 10,000 items, one
    run a side: the ratio of the printed means, no interval, undecided."""
    _, _, runs, configs = sweep
    (comparisons,) = study.decide_together(study.label_comparisons(runs, configs, LOOP))
    assert set(comparisons["label"]) == {VDA, TMPFS} and (comparisons["baseline"] == LOOP).all()
    assert (comparisons["family"] == f"labels over {LOOP}").all()
    for bs in ("4k", "1m"):
        tmpfs, loop = (fio_bandwidths(SWEEP / s / f"fio-randread-bs{bs}-qd1") for s in ("tmpfs", "loop-ext4"))
        row = comparisons[(comparisons["label"] == TMPFS) & (comparisons["workload"] == "randread")
                          & (comparisons["parameters"].str.contains(f"bs={bs} iodepth=1 "))].iloc[0]
        assert (row["n"], row["n_baseline"]) == (3, 3)
        assert (row["ratio"], row["low"], row["high"], row["p"]) == pytest.approx(log_welch(tmpfs, loop))
        assert row["p"] > 0.05 and not row["decided"]  # 9.24x (0.766-111), p 0.064; 2.12x (0.885-5.08), p 0.072
    md = comparisons[(comparisons["tool"] == "mdtest") & (comparisons["label"] == TMPFS)
                     & (comparisons["workload"] == "File stat") & comparisons["parameters"].str.contains("items=10,000")].iloc[0]
    a, b = (mdtest_row(SWEEP / s / "mdtest-n5000-np2" / "rep1.log", "File stat") for s in ("tmpfs", "loop-ext4"))
    assert md["ratio"] == pytest.approx(a[2] / b[2]) and pd_isna(md["low"]) and not md["decided"]


@pytest.mark.slow
def test_sweep_example_effects_by_one_rule(sweep):
    """Randwrite from 4 KiB to 1 MiB blocks at iodepth 1, 3 files a side, by Welch's t on the logs: on the VM's
    disk 75.1x in geometric mean, p 0.020; on the loop device 22.8x, p 0.0045: the ratios and raw p from the
    files; whether they stand is Holm's call over every sweep line (family SWEEP_FAMILY), so p_adjusted is at
    least p times the lines above it."""
    _, _, runs, configs = sweep
    points = study.get_sweeps(configs)[1]
    (effects,) = study.decide_together(study.sweep_effects(runs, configs, points))
    assert (effects["family"] == study.SWEEP_FAMILY).all() and len(effects) > 30
    by = effects.set_index(["sweep", "line"])
    for folder, label in (("vda-ext4", VDA), ("loop-ext4", LOOP)):
        large, small = (fio_bandwidths(SWEEP / folder / f"fio-randwrite-bs{bs}-qd1", "write") for bs in ("1m", "4k"))
        e = by.loc[(f"{label} · fio randwrite", "iodepth=1")]
        ratio, low, high, p = log_welch(large, small)
        assert (e["ratio"], e["low"], e["high"], e["p"]) == pytest.approx((ratio, low, high, p))
        assert e["p_adjusted"] >= p and (e["n"], e["n_baseline"]) == (3, 3)
    # mdtest -n 5000 and -n 1000 on 2 tasks, one run each: the printed means' ratio, no interval
    large, small = (mdtest_row(SWEEP / "vda-ext4" / f"mdtest-n{n}-np2" / "rep1.log", "File creation") for n in (5000, 1000))
    e = by.loc[(f"{VDA} · mdtest File creation", "tasks=2")]
    assert e["ratio"] == pytest.approx(large[2] / small[2]) and pd_isna(e["low"]) and not e["decided"]


@pytest.mark.slow
def test_glued_findings_give_the_landing_page_its_headline(tmp_path):
    _, db = ior_tree(tmp_path)
    execute_chapter("your_runs", db, tmp_path, kernel=True)
    text = build.headline(tmp_path / "your_runs.ipynb")
    # one run a label: the ratio of the two runs, said to be too few to decide
    assert text.startswith("**b** over **a** in ior read bandwidth: ") and "too few units" in text


TERSE = REPO / "tests" / "fixtures" / "fio"  # fio333-multi.terse{3,4,5}.txt: jobs/multi.fio run three times (SOURCES.md)


@pytest.mark.slow
def test_fio_terse_jobs_are_told_apart_by_name_and_say_their_parameters_are_unknown(tmp_path):
    """fio's terse output states no job options (man fio, TERSE OUTPUT): the jobs of jobs/multi.fio (seq-write,
    seq-read, randrw-4k, randread-aio: field 3 of each terse line) are configurations of their own, named by job
    and operations, never pooled as one "read"; each of the three files (terse versions 3, 4, 5) is one run of
    each; their parameters are shown as unknown."""
    tree = tmp_path / "terse"
    tree.mkdir()
    for version in (3, 4, 5):
        shutil.copyfile(TERSE / f"fio333-multi.terse{version}.txt", tree / f"fio333-multi.terse{version}.txt")
    names = {line.split(";")[2] for line in (TERSE / "fio333-multi.terse5.txt").read_text().splitlines() if ";" in line}
    assert names == {"seq-write", "seq-read", "randrw-4k", "randread-aio"}
    db = tmp_path / "terse.duckdb"
    ingest([tree], db, progress=False)
    con, runs, configs = configurations(db)
    fio = configs[configs["tool"] == "fio"].set_index("workload")
    assert set(fio.index) == {"seq-write (write)", "seq-read (read)", "randread-aio (read)",
                              "randrw-4k (read+write): read", "randrw-4k (read+write): write"}
    assert (fio["runs"] == 3).all() and fio["other"].eq(study.UNSTATED_PARAMETERS).all()
    assert fio[["rw", "bs", "iodepth", "ioengine"]].isna().all().all()
    table, shared = study.configuration_table(configs, "fio")
    assert study.UNSTATED_PARAMETERS in shared
    con.close()


MDTEST_FIXTURES = REPO / "tests" / "fixtures" / "mdtest"


@pytest.mark.slow
def test_failed_mdtest_phases_are_no_runs_and_say_why(tmp_path):
    """A phase whose log printed that its operations failed is no run: sub699-2024-mdtest-easy-delete.txt line 10
    ("WARNING: Unable to remove directory", line 19's File removal 78262024.955 ops/s), sub733-...-write.txt line
    10 ("WARNING: unable to create tree directory"), sub661-...-read.txt line 31 ("ERROR: verifying the data on
    read"). The chapter lists each with its file, line and reason instead."""
    db = tmp_path / "t.duckdb"
    ingest([MDTEST_FIXTURES], db, progress=False)
    con = store.open_read(db)
    rates = study.get_mdtest(con).merge(con.execute("SELECT source_id, path FROM sources").df(), on="source_id")
    rates["name"] = rates["path"].str.rsplit("/", n=1).str[-1]
    assert not rates[rates["name"].str.startswith(("sub699", "sub733", "sub661"))].size
    assert mdtest_row(MDTEST_FIXTURES / "sub785-2025-mdtest-easy-write.txt", "File creation")[2] in set(rates["ops_s"])
    failed = study.get_failed_phases(con)
    assert [(f.rsplit("/", 1)[-1], op, line) for f, op, line in zip(failed["file"], failed["phase"], failed["line"])] == [
        ("sub661-2023-mdtest-hard-read.txt", "File read", 31),
        ("sub699-2024-mdtest-easy-delete.txt", "File removal", 10),
        ("sub699-2024-mdtest-easy-delete.txt", "Tree removal", 10),
        ("sub733-2024-mdtest-easy-write.txt", "File creation", 10),
        ("sub733-2024-mdtest-easy-write.txt", "Tree creation", 10)]
    assert failed["reason"].iloc[1] == ("WARNING: Unable to remove directory "
                                        "./datafiles/2024.04.30-14.51.21/mdtest-easy/test-dir.0-0/mdtest_tree.0.0/ "
                                        "(and 1 more such line)")
    r = study.report(con)
    assert r.tables["tab-runs-failed"].frame.equals(failed)
    assert str(r.values["failed"]).startswith("5 mdtest phases in 3 files say they failed")


@pytest.mark.slow
def test_counts_a_stonewall_stopped_are_shown_as_bounds(databases):
    """IO500 submission-651's mdtest-easy-write.txt line 4: "-n 10000000000 ... -x .../mdtest-easy.stonewall -C -Y
    -W 300" on 200 tasks: 2,000,000,000,000 items (as mdtest counts them, 10^10 a rank) is what the run may do, not
    what it did before its 300 s stonewall; its later phases (-x, the status file) do what the write did."""
    con, runs, configs = configurations(databases["default"])
    con.close()
    table, _ = study.configuration_table(configs, "mdtest")
    said = table["configuration"]  # the design and parameters that tell configurations apart, as one text
    easy = said[table["label"] == "Arches 2 Storage Scale 3500 BBs"]
    assert easy.str.contains("items=at most 2,000,000,000,000 tasks=200 ").all()
    assert {"stonewall=300 s", f"stonewall={study.STATUS_FILE}"} == {
        x for text in easy for x in ("stonewall=300 s", f"stonewall={study.STATUS_FILE}") if x in text}
    # a count no stonewall stops is shown as it is: the bash-era runs without -W or -x
    unbounded = said[~said.str.contains("stonewall=")]
    assert len(unbounded) and not unbounded.str.contains("items=at most").any()
    assert said[said.str.contains("stonewall=")].str.contains("items=at most").all()


@pytest.mark.slow
def test_labels_compared_name_the_setups_that_differ_and_their_flags(databases):
    """data/raw's IBM ESS 3500 runs: Ehningen's submission-690 (DACH Storage Scale System 3500) and Tucson's 679
    (Arches Storage Scale System 3500) ran the same IO500 IOR jobs; their installed releases differ (5.1.8.1 and
    5.1.9.0: data/reference/releases.csv, seed 000 line 277), and 679's find_script changes the file system while
    it runs (the validity audit's CHANGED_DURING_RUN; tests/test_setups.py)."""
    with store.open_read(databases["default"]) as con:
        r = study.report(con, baseline_label="DACH Storage Scale System 3500")
    comparisons = r.tables["tab-runs-comparisons"].frame
    tucson = comparisons[comparisons.label == "Arches Storage Scale System 3500"]
    assert len(tucson) and (tucson["setups differ in"] == "release 5.1.8.1 → 5.1.9.0").all()
    labels = r.tables["tab-runs-labels"].frame.set_index("label")
    assert "CHANGED_DURING_RUN" in labels.loc["Arches Storage Scale System 3500", "validity flags (IO500 runs)"]
    assert labels.loc["Aurora", "validity flags (IO500 runs)"] == "UNPROTECTED"  # DAOS S1/SX object classes


@pytest.mark.slow
def test_a_fio_job_that_states_an_error_is_a_failed_run_shown(tmp_path):
    """tests/fixtures/fio/fio333-error-path.json (SOURCES.md: its target under a regular file, error 20, ENOTDIR)
    beside a fio file that ran: the failed job is listed with its errno in Your runs' and the Data chapter's
    failed phases, never silently absent (issue 36)."""
    from conftest import REPO

    from iobook.studies import data

    fixtures = REPO / "tests" / "fixtures" / "fio"
    for name in ("fio333-error-path.json", "fio333-multi.json"):
        (tmp_path / "logs").mkdir(exist_ok=True)
        (tmp_path / "logs" / name).write_bytes((fixtures / name).read_bytes())
    db = tmp_path / "failed.duckdb"
    ingest([tmp_path / "logs"], db, progress=False)
    with store.open_read(db) as con:
        failed = study.get_failed_phases(con)
        r = data.report(con)
    assert failed[["tool", "phase", "reason"]].values.tolist() == [["fio", "broken-path (write)", "fio error 20 (ENOTDIR)"]]
    assert r.values["phases_failed"] == 1
    assert r.tables["tab-data-failed-phases"].frame.equals(failed)


@pytest.mark.slow
def test_the_current_design_leads_and_no_non_finding_is_made(databases):
    """Issue 36: the page led with the superseded queue-depth run (data/raw/pagecache/vm-20261123T160557Z, 3 rounds)
    and printed '0 of 2 configurations ... are decided (2 too few units)'. The current run (vm-20261125T035437Z, 5
    rounds a side) leads with its interval, the superseded one beside it; labels that share configurations run once
    a side are said to be not comparable yet."""
    with store.open_read(databases["default"]) as con:
        r = study.report(con)
    lead = r.findings[0]
    (record,) = lead.evidence
    assert (record.n, record.n_baseline) == (5, 5) and "vm\\-20261125T035437Z: 1.01×" in lead.text
    # its verdict and interval: Welch's t on the logs of r1-r5 at iodepth 64 and 1 (libaio), from the JSONs
    run = PAGECACHE / "vm-20261125T035437Z"
    qd64, qd1 = (read_bandwidths(sorted(run.glob(f"*-read-direct-libaio-qd{qd}-r*.fio.json"))) for qd in (64, 1))
    ratio, low, high, p = log_welch(qd64, qd1)
    assert (record.ratio, record.low, record.high, record.p) == pytest.approx((ratio, low, high, p))
    assert record.verdict is evidence.Verdict.UNDECIDED and record.p_adjusted >= p
    assert f"1.01× (95% interval {low:.3g}–{high:.3g}; 5 runs vs 5; undecided" in lead.text
    assert "superseded collector run vm\\-20261123T160557Z" in r.findings[1].text
    (labels,) = [f for f in r.findings if f.target == "tab-runs-comparisons"]
    assert all(str(c.verdict) == "too few units" for c in labels.evidence)
    assert "no label can be compared with it yet" in labels.text and "decided" not in labels.text


# An interval as a cell shows it, "(0.98–1.05)"; the runs' range "(runs 591–903)" and "(no interval)" are none
SHOWN_INTERVAL = re.compile(r"\((?!runs |no interval)[^()]*\d–[^()]*\)")
# "3 runs / 2", "4 runs / published", or a curve's "5 paired sweep points"
UNITS_A_SIDE = re.compile(r"([\d,]+) [^/]+?(?: / ([\d,]+|published))?")


def intervals_on_too_few(r) -> list[str]:
    """What the chapter shows with an interval on fewer than evidence.MIN_UNITS runs (or points) a side: rows of its
    comparison tables (the kit's ratio and units columns), cells of its configuration tables (beside their runs
    column), and marks of its charts (their data's low, beside its n or verdict)."""
    found = []
    for key, table in r.tables.items():
        frame = table.frame
        if comparison.RATIO in frame:
            assert frame.columns[0] == "measure", key  # the measure first: visible at 1280 px (issue 37)
            for i, (ratio, units) in enumerate(zip(frame[comparison.RATIO], frame[comparison.UNITS])):
                n, base = UNITS_A_SIDE.fullmatch(units).groups()
                fewest = min(int(n.replace(",", "")), math.inf if base in (None, "published") else int(base.replace(",", "")))
                if SHOWN_INTERVAL.search(ratio) and fewest < evidence.MIN_UNITS:
                    found.append(f"{key} row {i}: {ratio}, {units}")
        elif "runs" in frame:
            few = frame["runs"] < evidence.MIN_UNITS
            found += [f"{key} row {i}, {column}" for column in frame.columns
                      for i in frame.index[few & frame[column].astype(str).str.contains(SHOWN_INTERVAL)]]
    for key, figure in r.figures.items():
        for rows in figure.to_dict()["datasets"].values():
            found += [f"{key}: {row}" for row in rows if row.get("low") is not None
                      and (row.get("n", math.inf) < evidence.MIN_UNITS or "too few" in str(row.get("verdict")))]
    return found


@pytest.mark.slow
def test_no_interval_on_fewer_than_three_runs_anywhere(databases, sweep):
    """Issue 36: "every configuration" printed a t interval on 2 runs (data/raw's checksum r1 and r2; the sweep
    example's IOR folders, rep1.log and rep2.json). On data/raw, the built-tools logs and the sweep example, no table
    row and no chart mark of the chapter shows one: below evidence.MIN_UNITS a side, the runs' range or nothing."""
    db, *_ = sweep
    for path in (databases["default"], databases["built_tools"], db):
        r = chapter_report("your_runs", Path(path))
        assert not intervals_on_too_few(r), path
        for tool, measure in (("fio", "bandwidth (MiB/s)"), ("ior", "bandwidth (MiB/s)"), ("mdtest", "rate (ops/s)")):
            frame = r.tables[f"tab-runs-{tool}"].frame  # the measure in the fixed first column, in view (issue 37)
            assert frame.empty or frame.columns[0] == measure, (path, tool)
        # where configurations ran three times or more (not built-tools': two at most), intervals are shown
        assert (any(SHOWN_INTERVAL.search(str(v)) for t in r.tables.values() for v in t.frame.to_numpy().ravel())
                or path == databases["built_tools"]), path


def axis_labels(svg: str) -> list[list[tuple[str, float, float, float, str]]]:
    """Each axis' visible tick labels in an SVG Vega drew: (text, x, y, font size in px, anchor)."""
    axes = []
    for group in re.findall(r'<g class="mark-text role-axis-label"[^>]*>(.*?)</g>', svg):
        labels = [(text, float(x), float(y), float(size), anchor) for anchor, x, y, size, opacity, text in re.findall(
            r'<text text-anchor="(\w+)" transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*font-size="([\d.]+)px"'
            r'[^>]*opacity="([\d.]+)"[^>]*>([^<]*)</text>', group) if float(opacity) > 0]
        axes.append(labels)
    return axes


GLYPH_EM = 0.55  # a digit of Source Sans Pro is 0.5 em wide; a little more, so that labels nearly touching count


def overlapping(labels) -> list[tuple[str, str]]:
    """Pairs of neighbouring labels of one axis whose boxes overlap: along x for an axis whose labels share a y
    (width GLYPH_EM em a character, placed by their anchor), else along y (one font size high)."""
    horizontal = len({y for _, _, y, _, _ in labels}) == 1
    boxes = []
    for text, x, y, size, anchor in labels:
        if horizontal:
            width = GLYPH_EM * size * len(text)
            left = x - {"start": 0, "middle": width / 2, "end": width}[anchor]
            boxes.append((left, left + width, text))
        else:
            boxes.append((y - size, y, text))
    boxes.sort()
    return [(a[2], b[2]) for a, b in zip(boxes, boxes[1:]) if b[0] < a[1]]


@pytest.mark.slow
def test_sweep_and_curve_panels_are_legible(sweep):
    """Issue 37: the sweep panels were 140 x 120 px with 10 px text. On the sweep example (24 sweep panels, 24 curve
    panels), every text of both charts is at least 11 px, and no two tick labels of one axis overlap (the curves' bs
    axis printed "2030" and "1,0002,000")."""
    import vl_convert

    from iobook.book import charts

    db, *_ = sweep
    r = chapter_report("your_runs", Path(db))
    charts._register_font()
    for key in ("fig-runs-sweeps", "fig-runs-curves"):
        spec = charts.wrap_titles(r.figures[key].to_dict())
        spec.setdefault("config", {})["font"] = charts.FONT
        svg = vl_convert.vegalite_to_svg(spec)
        assert min(float(size) for size in re.findall(r'font-size="([\d.]+)px"', svg)) >= 11, key
        axes = axis_labels(svg)
        assert len(axes) >= 2 * 24, key
        assert not [pair for labels in axes for pair in overlapping(labels)], key


def test_a_setup_yml_gives_runs_their_limit_and_the_cached_read_is_above_it(tmp_path):
    """Did it deliver what its hardware allows? IOR_TEXT ran 2 tasks on 1 node (its header: 'nodes : 1'); a
    setup.yml beside it states one 10 Gbit/s link per client node (the user's statement): the limit is
    1 x 1 x 10 Gbit/s = 1,192.1 MiB/s. Its reads (15772, 18050, 18867 MiB/s, lines 36-40) came from the page
    cache of the one machine, far above any link; its writes (207.19, 1098.75, 1196.93 MiB/s) reach 54 %."""
    (tmp_path / "logs" / "ior").mkdir(parents=True)
    shutil.copy(IOR_TEXT, tmp_path / "logs" / "ior")
    (tmp_path / "logs" / "setup.yml").write_text('"ior/*":\n  client_links: 1\n  client_link_gbit_s: 10\n')
    ingest([tmp_path / "logs"], tmp_path / "db.duckdb", progress=False)
    con = store.open_read(tmp_path / "db.duckdb")
    stated = con.execute("SELECT field, value, source FROM log_setup ORDER BY field").fetchall()
    report = study.report(con)
    con.close()
    assert stated == [("client_link_gbit_s", "10", "setup.yml: ior/*"), ("client_links", "1", "setup.yml: ior/*")]
    limit = 10e9 / 8 / 2**20
    shown = report.tables["tab-runs-limits"].frame.set_index("workload")
    assert shown["limit (MiB/s)"].tolist() == pytest.approx([limit, limit])
    reads, writes = [15772, 18050, 18867], [207.19, 1098.75, 1196.93]
    assert shown.loc["read", "share of limit"] == pytest.approx(statistics.geometric_mean(reads) / limit, rel=1e-3)
    assert shown.loc["write", "share of limit"] == pytest.approx(statistics.geometric_mean(writes) / limit, rel=1e-3)
    assert report.values["has-limits"] and shown.loc["read", "as stated"] == "1 node x 1 x 10.0 Gbit/s"
    (limits,) = [f for f in report.findings if f.target == "tab-runs-limits"]
    assert [(c.k, c.n) for c in limits.evidence] == [(2, 2), (2, 2), (1, 2)]  # stating, reaching 50 %, above



def test_two_labels_name_the_setup_fields_a_setup_yml_states_differently(tmp_path):
    """What else changed between two labels of one configuration, for logs that are no IO500 run's: a setup.yml
    says a/ ran on release 2.15.3 and b/ on 2.15.4 (the user's statement; the logs cannot say), so the labels
    compared name it, as they name an IO500 run's (test_..._tucson: release 5.1.8.1 → 5.1.9.0)."""
    tree, _ = ior_tree(tmp_path)
    (tree / "setup.yml").write_text('"a/*":\n  release: 2.15.3\n"b/*":\n  release: 2.15.4\n')
    db = tmp_path / "with-setup.duckdb"
    ingest([tree], db, progress=False)
    con = store.open_read(db)
    report = study.report(con)
    con.close()
    # both rows (write, read) differ in it: said once above the table (tables.split_constant)
    assert len(report.tables["tab-runs-comparisons"].frame) == 2
    assert present.md_escape("setups differ in=release 2.15.3 → 2.15.4") in str(report.values["shared-comparisons"])


SWEEP = REPO / "data" / "examples" / "sweep"


def _labels_of(tmp_path, data: list[Path]) -> dict[str, set[str]]:
    """label -> the configuration folders of its fio runs, after the book's (pruned) ingest of `data`."""
    db = tmp_path / "labels.duckdb"
    ingest(data, db, progress=False, prune=True)
    with store.open_read(db) as con:
        ids = [i for (i,) in con.execute("SELECT source_id FROM sources WHERE tool = 'fio'").fetchall()]
        paths = dict(con.execute("SELECT source_id, path FROM sources").fetchall())
        labelled = source_labels.label_sources(con, ids)[0]
    out: dict[str, set[str]] = {}
    for source_id, label in zip(labelled.source_id, labelled.label):
        out.setdefault(label, set()).add(Path(paths[source_id]).parent.name)
    return out


@pytest.mark.slow
def test_a_label_is_the_top_folder_under_data_in_every_layout(tmp_path):
    """Issue 47: with one system folder (results/vda-ext4/<config>/rep*.json) the configuration folders became the
    labels (the deepest folder holding every file was vda-ext4/), not vda-ext4 as the README says. The sweep's
    real fio runs (data/examples/sweep, without its labels.yml) in three layouts."""
    one, several, flat = tmp_path / "one" / "results", tmp_path / "several" / "results", tmp_path / "flat" / "results"
    configs = ["fio-randread-bs4k-qd1", "fio-randread-bs4k-qd16"]
    for config in configs:
        shutil.copytree(SWEEP / "vda-ext4" / config, one / "vda-ext4" / config)
        for system in ("vda-ext4", "tmpfs"):
            shutil.copytree(SWEEP / system / config, several / system / config)
    flat.mkdir(parents=True)
    for rep in ("rep1", "rep2", "rep3"):
        shutil.copy(SWEEP / "tmpfs" / configs[0] / f"{rep}.json", flat / f"{rep}.json")
    assert _labels_of(tmp_path / "one", [one]) == {"vda-ext4": set(configs)}
    assert _labels_of(tmp_path / "several", [several]) == {"vda-ext4": set(configs), "tmpfs": set(configs)}
    assert _labels_of(tmp_path / "flat", [flat]) == {"results": {"results"}}
    # the Data chapter lists the labels it found and what gave them: 2 configurations x 3 repetitions of vda-ext4
    from iobook.studies.data import analysis as data_analysis

    with store.open_read(tmp_path / "one" / "labels.duckdb") as con:
        labels = data_analysis.get_labels(con)
    assert labels.to_dict("records") == [{"label": "vda-ext4", "labelled by": "folder", "logs": 6}]
