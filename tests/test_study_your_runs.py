"""The your_runs chapter (iobook/studies/your_runs.py): configurations, repetitions, sweeps, labels and their
comparison, on the four test databases and on trees made here from real logs; every value checked is read
again from its named raw file in the test."""
import json
import re
import shutil
import statistics

import numpy as np
import pytest
from scipy import stats as scipy_stats

from conftest import BUILT_TOOLS, REPO, execute_chapter
from iobook import build, nb, stats, store
from iobook.ingest import ingest
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


def delta_log(sample, baseline, n):
    """Two mdtest SUMMARY rows' means (max, min, mean, sd) of n iterations each, compared on the log scale by
    the delta method: the ratio of the means, its 95% interval and p from t = log ratio / se with
    Welch-Satterthwaite df."""
    a, b = ((row[3] / row[2]) ** 2 / n for row in (sample, baseline))
    se, df = np.sqrt(a + b), (a + b) ** 2 / ((a**2 + b**2) / (n - 1))
    ratio, half = sample[2] / baseline[2], scipy_stats.t.ppf(0.975, df) * np.sqrt(a + b)
    return ratio, ratio * np.exp(-half), ratio * np.exp(half), 2 * scipy_stats.t.sf(abs(np.log(ratio)) / se, df)


def configurations(db):
    con = store.open_read(db)
    try:
        reps = study.get_repetitions(con)
        return con, reps, study.get_configurations(reps)
    except Exception:
        con.close()
        raise


def config_of(reps, file_suffix, workload):
    rows = reps[reps["file"].str.endswith(file_suffix) & (reps["workload"] == workload)]
    assert rows["config"].nunique() == 1
    return rows["config"].iloc[0]


def test_fio_repetitions_are_the_files_of_one_configuration(databases):
    """data/raw's checksum run read the same 2 GiB file with the same job twice (r1, r2): one configuration
    of 2 repetitions, its mean and sd those of the two JSONs' bw_bytes."""
    con, reps, configs = configurations(databases["default"])
    config = config_of(reps, "002-read-none-direct-r1.fio.json", "read")
    assert config == config_of(reps, "026-read-none-direct-r2.fio.json", "read")
    files = [CHECKSUM / "002-read-none-direct-r1.fio.json", CHECKSUM / "026-read-none-direct-r2.fio.json"]
    jobs = [json.loads(f.read_text())["jobs"][0] for f in files]
    bw = [j["read"]["bw_bytes"] / 2**20 for j in jobs]  # 946444974 and 619228272 B/s
    row = configs.set_index("config").loc[config]
    assert (row["label"], row["tool"], row["repetitions"], row["files"]) == ("checksum", "fio", 2, 2)
    assert (row["bs"], row["direct"], row["ioengine"], row["size"]) == ("1M", 1, "psync", "2G")
    assert pd_isna(row["iodepth"])  # the job states no iodepth: unknown, not fio's default of 1
    assert row["bw_mib_s"] == pytest.approx(statistics.mean(bw))
    assert row["bw_mib_s_sd"] == pytest.approx(statistics.stdev(bw))
    assert row["ops_s"] == pytest.approx(statistics.mean(j["read"]["iops"] for j in jobs))
    assert row["p99_ms"] == pytest.approx(statistics.mean(j["read"]["clat_ns"]["percentile"]["99.000000"] for j in jobs) / 1e6)
    # the interval of a rate stays positive and holds the mean; Cox's log-normal interval recomputed here
    sigma2 = np.log1p((statistics.stdev(bw) / statistics.mean(bw)) ** 2)
    half = scipy_stats.t.ppf(0.975, 1) * np.sqrt(sigma2 / 2 + sigma2**2 / 2)
    assert (row["bw_mib_s_low"], row["bw_mib_s_high"]) == pytest.approx(
        (statistics.mean(bw) * np.exp(-half), statistics.mean(bw) * np.exp(half)))
    assert 0 < row["bw_mib_s_low"] < row["bw_mib_s"] < row["bw_mib_s_high"]
    con.close()


def test_what_a_collector_saw_of_the_load_is_no_parameter(databases):
    """The re-collected checksum run labels each step with the quiet check it passed (busy before and after,
    wait, attempt, under load; scripts/collectlib.py LoadGate.LABELS) and its end-of-run baseline with
    drift_check: conditions of a repetition, not what was run. Its 6 sha256 direct writes (r1-r6 on disk) are
    one configuration of 6 repetitions."""
    import sys

    sys.path.insert(0, str(REPO / "scripts"))
    import collectlib

    assert set(collectlib.LoadGate.LABELS) <= set(study.MANIFEST_CONDITION_KEYS)
    run = REPO / "data" / "raw" / "checksum" / "vm-20261125T030550Z"
    files = sorted(run.glob("*-write-sha256-direct-r*.fio.json"))
    con, reps, configs = configurations(databases["default"])
    (config,) = {config_of(reps, f"{run.name}/{f.name}", "write") for f in files}
    row = configs.set_index("config").loc[config]
    assert (row["repetitions"], row["files"]) == (len(files), len(files)) == (6, 6)
    assert not any(key in (row["other"] or "") for key in study.MANIFEST_CONDITION_KEYS)
    con.close()


def pd_isna(value):
    return value is None or (isinstance(value, float) and np.isnan(value))


def test_ior_iterations_of_two_logs_are_one_configuration(databases):
    """The text and the JSON log of the same IOR options, side by side under one label: 6 repetitions."""
    con, reps, configs = configurations(databases["built_tools"])
    config = config_of(reps, "ior/ior_posix_fpp_1m_np2_i3.log", "write")
    assert config == config_of(reps, "ior/ior_json_posix_fpp_1m_np2_i3.log", "write")
    row = configs.set_index("config").loc[config]
    writes = ior_text_bandwidths(IOR_TEXT, "write") + ior_json_bandwidths(IOR_JSON, "write")
    assert len(writes) == 6 and row["repetitions"] == 6
    assert row["bw_mib_s"] == pytest.approx(statistics.mean(writes))
    assert row["bw_mib_s_sd"] == pytest.approx(statistics.stdev(writes))
    # the option block: "type : independent", "ordering in a file : sequential", "ordering inter file : constant task offset"
    assert (row["api"], row["transfer"], row["block"], row["tasks"], row["nodes"]) == ("POSIX", 2**20, 16 * 2**20, 2, 1)
    assert (row["file_per_proc"], row["collective"], row["ordering_in_file"], row["ordering_inter_file"]) == (
        True, False, "sequential", "constant task offset")
    con.close()


def test_mdtest_summaries_pool_their_iterations(databases):
    """mdtest prints the mean and the sample sd (n - 1) of its iterations; two logs of 2,000 items on 2 tasks
    (3 and 2 iterations) pool into 5 repetitions, exactly."""
    i3, i2 = mdtest_row(MDTEST_I3, "File creation"), mdtest_row(MDTEST_I2, "File creation")
    # with 3 iterations max, min and mean fix the third value: the printed sd is the sample sd of those
    third = 3 * i3[2] - i3[0] - i3[1]
    assert statistics.stdev([i3[0], i3[1], third]) == pytest.approx(i3[3], abs=2e-3)
    # --showRankStatistics: per iteration Max, Min, Mean and Std Dev are the last four numbers
    per_iteration = i2[3:]
    assert statistics.stdev(per_iteration[:2]) == pytest.approx(per_iteration[3], abs=2e-3)
    con, reps, configs = configurations(databases["built_tools"])
    config = config_of(reps, "mdtest/mdtest_n1000_i3_np2.log", "File creation")
    assert config == config_of(reps, "mdtest/mdtest_rankstats_np2.log", "File creation")
    row = configs.set_index("config").loc[config]
    assert (row["repetitions"], row["items"], row["tasks"], row["unique_dir"]) == (5, 2000, 2, False)
    assert pd_isna(row["branching"]) and pd_isna(row["depth"])  # not on the command line: unknown
    assert row["ops_s"] == pytest.approx((3 * i3[2] + 2 * per_iteration[2]) / 5)
    values_ss = 2 * i3[3] ** 2 + 1 * per_iteration[3] ** 2 + 3 * (i3[2] - row["ops_s"]) ** 2 + 2 * (per_iteration[2] - row["ops_s"]) ** 2
    assert row["ops_s_sd"] == pytest.approx(np.sqrt(values_ss / 4))
    con.close()


def test_mdtest_options_from_the_command_line():
    assert study.mdtest_options("mdtest '-n' '1000' '-i' '3' '-d' '/tmp/x'") == {
        "branching": None, "depth": None, "write_bytes": None, "read_bytes": None, "unique_dir": False}
    # an IO500 mdtest-hard phase: ./mdtest ... -t -w 3901 -e 3901 -P -G=-1572524095 -N 1 -F -d ...
    assert study.mdtest_options("./mdtest -n 1000000 -t -w 3901 -e 3901 -u -b=3 -z 2 -d /x") == {
        "branching": 3, "depth": 2, "write_bytes": 3901, "read_bytes": 3901, "unique_dir": True}
    assert study.mdtest_options(None) == dict.fromkeys(["branching", "depth", "write_bytes", "read_bytes", "unique_dir"])


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


def test_two_labels_of_one_configuration_are_compared(tmp_path):
    """IOR read back 1 MiB transfers at 17,563 MiB/s (text log) and 22,754 MiB/s (JSON log): the JSON run's
    label reads 1.30x faster in geometric mean, decided by Welch's t on the logs; their writes do not differ
    decidedly, and no number of repetitions up to a thousand a side would decide them at the logs' spread."""
    _, db = ior_tree(tmp_path)
    con, reps, configs = configurations(db)
    assert sorted(set(configs["label"])) == ["a", "b"] and study.labels_sharing(configs) == ["a", "b"]
    baseline, note = study.choose_baseline(configs, "")
    assert (baseline, note) == ("a", None)
    comparisons = study.get_comparisons(reps, configs, baseline).set_index("workload")
    text, js = ior_text_bandwidths(IOR_TEXT, "read"), ior_json_bandwidths(IOR_JSON, "read")
    read = comparisons.loc["read"]
    assert (read["label"], read["n"], read["n_baseline"]) == ("b", 3, 3)
    assert (read["ratio"], read["low"], read["high"], read["p_welch"]) == pytest.approx(log_welch(js, text))
    assert read["decided"] and 1 < read["low"] < read["ratio"] < read["high"]
    assert read["method"] == "Welch's t on log values" and read["ratio_of"] == "geometric mean"
    write = comparisons.loc["write"]
    assert not write["decided"] and write["low"] < 1 < write["high"]
    text_w, js_w = np.log(ior_text_bandwidths(IOR_TEXT, "write")), np.log(ior_json_bandwidths(IOR_JSON, "write"))
    sd_log = np.sqrt((text_w.var(ddof=1) + js_w.var(ddof=1)) / 2)
    # 1.02x at a spread of 0.85 on the log scale: 26,780 a side would decide, past n_per_side's limit of 1,000
    assert stats.n_per_side(js_w.mean() - text_w.mean(), sd_log, 0.05, max_n=100_000) == 26_780
    assert pd_isna(write["n_to_decide"])
    text_table, shared = study.comparison_table(study.get_comparisons(reps, configs, baseline))
    assert text_table.set_index("run")["verdict"].to_dict() == {"ior read": "decided", "ior write": "undecided"}
    effects = study.sweep_effects(reps, configs, study.get_sweeps(configs)[1])
    lines = study.findings(configs, effects, study.get_comparisons(reps, configs, baseline))
    assert lines[0].startswith("**b** gives 1.3× the geometric mean bandwidth of **a** in ior read")
    con.close()


def test_labels_yml_names_the_runs_and_notes_what_it_cannot_use(tmp_path):
    tree, db = ior_tree(tmp_path, '"a/*.log": before the upgrade\nb: after the upgrade\n"c/*": nothing here\n')
    con = store.open_read(db)
    labels, files, notes = study.get_labels(con, study.get_repetitions(con)["source_id"])
    by_file = dict(zip(labels["source_id"].map(dict(con.execute("SELECT source_id, path FROM sources").fetchall())),
                       labels["label"]))
    assert by_file[str(tree.resolve() / "a" / IOR_TEXT.name)] == "before the upgrade"
    assert by_file[str(tree.resolve() / "b" / IOR_JSON.name)] == "after the upgrade"
    assert files.to_dict("records") == [{"labels file": "results/labels.yml", "patterns": 3, "files labelled": 2}]
    assert notes == ["results/labels.yml: 1 pattern(s) label no fio, IOR or mdtest file: c/*"]
    con.close()
    # a labels file changed after ingest is not applied (its page would not match its data): folders label
    (tree / "labels.yml").write_text("b: renamed\n")
    con = store.open_read(db)
    labels, _, notes = study.get_labels(con, study.get_repetitions(con)["source_id"])
    assert sorted(set(labels["label"])) == ["a", "b"]
    assert notes == ["results/labels.yml: changed since it was ingested: rebuild the book to apply it"]
    con.close()


def test_labels_csv_and_a_broken_labels_file(tmp_path):
    tree = tmp_path / "t"
    (tree / "x" / "deep").mkdir(parents=True)
    shutil.copyfile(IOR_TEXT, tree / "x" / "deep" / IOR_TEXT.name)
    (tree / "labels.csv").write_text("pattern,label\nx/deep,from the csv\n")
    (tree / "x" / "labels.yml").write_text("this: [is not: a mapping\n")  # nearer, but unreadable
    db = tmp_path / "t.duckdb"
    ingest([tree], db, progress=False)
    con = store.open_read(db)
    labels, _, notes = study.get_labels(con, study.get_repetitions(con)["source_id"])
    assert labels["label"].tolist() == ["from the csv"]
    assert len(notes) == 1 and notes[0].startswith("t/x/labels.yml: not YAML") and notes[0].endswith("not applied")
    con.close()


def test_io500_phase_logs_take_their_runs_system(databases):
    con, reps, _ = configurations(databases["default"])
    ior = reps[reps["tool"].eq("ior")]
    by_io500 = ior[ior["labelled_by"] == "IO500 run"]
    assert {"Aurora", "Wolf", "Tianhe-2E"} <= set(by_io500["label"])  # Argonne's and Intel's DAOS, NSCC's Lustre
    # the 2017 script's logs in DKRZ's submission 109 belong to no IO500 run the database holds, and the runs that
    # submission bundles whose files state no site (JCAHPC, STFC, STFC-64, IBM's sonasad) have no system: their folder
    folder = ior[ior["labelled_by"] == "folder"]
    assert set(folder["label"]) == {"io500"}
    assert set(folder["file"].str.extract(r"submission-109/([^/]+)/", expand=False)) == {
        "JCAHPC", "JCAHPC-17", "STFC", "STFC-64", "sonasad"}
    con.close()


PAGECACHE = REPO / "data" / "raw" / "pagecache" / "vm-20261123T160557Z"  # its queue-depth experiment


def test_sweeps_are_found(databases):
    """data/raw's two page-cache queue-depth runs read one file at iodepth 1 to 64 with libaio and io_uring (3
    and 5 repetitions, the same configurations: 8): a sweep over iodepth, a line per engine; the buffered
    read at iodepth 1 beside them (other collector labels) is no line of it. Its IO500 runs differ in block size, tasks and nodes all at
    once, a line of one point each: not sweeps. built-tools' mdtest logs ran 100 to 2,000 items on 1 and 2
    tasks: a sweep over items where every phase ran, not where one log (-F) adds a line of its own."""
    con, reps, configs = configurations(databases["default"])
    sweeps, points = study.get_sweeps(configs)
    assert sweeps["sweep"].tolist() == ["pagecache · fio read"]
    assert sweeps[["x", "lines", "configurations"]].values.tolist() == [["iodepth", "ioengine", 8]]
    libaio = points[points["line"] == "ioengine=libaio"].set_index("x")
    files = sorted(PAGECACHE.parent.glob("*/*-read-direct-libaio-qd64-r*.fio.json"))
    assert len(files) == 8 and libaio.loc[64.0, "n"] == 8
    assert libaio.loc[64.0, "mean"] == pytest.approx(statistics.mean(
        json.loads(f.read_text())["jobs"][0]["read"]["bw_bytes"] / 2**20 for f in files))
    assert sorted(libaio.index) == [1.0, 4.0, 16.0, 64.0]
    con.close()
    con, reps, configs = configurations(databases["built_tools"])
    found = study.get_sweeps(configs)[0].set_index("sweep")
    assert (found.loc["mdtest · mdtest Directory creation", ["x", "lines"]] == ["items", "tasks"]).all()
    assert "mdtest · mdtest File creation" not in found.index
    con.close()


def read_bandwidths(files):
    return [json.loads(f.read_text())["jobs"][0]["read"]["bw_bytes"] / 2**20 for f in files]


def test_a_sweep_effect_is_a_comparison_with_its_interval_and_verdict(databases):
    """Along a sweep line the largest x is compared with the smallest as two labels are (study.compare): the
    page-cache reads with libaio at iodepth 64 over those at iodepth 1, 8 files each, read 1.27x as fast in
    geometric mean, but Welch's t on the logs gives p 0.25 and an interval holding 1: undecided. The first
    finding says so, with the repetitions per side that would decide it (44: stats.n_per_side at the logs'
    spread), instead of printing 1.27x as a result."""
    con, reps, configs = configurations(databases["default"])
    points = study.get_sweeps(configs)[1]
    effects = study.sweep_effects(reps, configs, points)
    e = effects.set_index(["sweep", "line"]).loc[("pagecache · fio read", "ioengine=libaio")]
    qd64, qd1 = (read_bandwidths(sorted(PAGECACHE.parent.glob(f"*/*-read-direct-libaio-qd{qd}-r*.fio.json")))
                 for qd in (64, 1))
    assert (e["n"], e["n_baseline"]) == (len(qd64), len(qd1)) == (8, 8)
    ratio, low, high, p = log_welch(qd64, qd1)
    assert (e["ratio"], e["low"], e["high"], e["p_welch"]) == pytest.approx((ratio, low, high, p)) and p > 0.05
    assert 0 < e["low"] < 1 < e["high"] and not e["decided"]
    assert (e["mean"], e["mean_baseline"]) == pytest.approx((np.exp(np.log(qd64).mean()), np.exp(np.log(qd1).mean())))
    # the repetitions a side at which a t-test on the logs finds this ratio with 80% power, at their spread
    sd_log = np.sqrt((np.log(qd64).var(ddof=1) + np.log(qd1).var(ddof=1)) / 2)
    n = int(e["n_to_decide"])
    assert n == stats.n_per_side(np.log(ratio), sd_log, 0.05) == 44
    comparisons = study.get_comparisons(reps, configs, study.choose_baseline(configs, "")[0])
    first = study.findings(configs, effects, comparisons)[0]
    assert first.startswith("**pagecache** fio read geometric mean bandwidth") and f"{e['ratio']:.3g}×" in first
    assert f"(95% interval {e['low']:.3g}–{e['high']:.3g}; n = 8, 8), undecided: n≈{n} a side would decide" in first
    con.close()


def test_every_database_and_its_findings(any_db):
    name, con = any_db
    reps = study.get_repetitions(con)
    configs = study.get_configurations(reps)
    sweeps, points = study.get_sweeps(configs)
    baseline, _ = study.choose_baseline(configs, "")
    comparisons = study.get_comparisons(reps, configs, baseline)
    effects = study.sweep_effects(reps, configs, points)
    lines = study.findings(configs, effects, comparisons)
    if name == "empty":
        assert reps.empty and configs.empty and len(lines) == 1
        return
    assert 3 <= len(lines) <= 6
    assert all(re.search(r"\{numref\}`(fig|tab)-runs-[a-z-]+`$", line) for line in lines)
    # the first finding: a number and, where there are repetitions, its interval, in at most 30 words
    # besides the labels it names
    first = re.sub(r"\*\*[^*]+\*\*", "LABEL", lines[0])
    assert len(first.split()) <= 30 + 1, first
    lows = np.concatenate([configs[["bw_mib_s_low", "ops_s_low", "lat_ms_low"]].to_numpy(dtype=float).ravel(),
                           effects["low"].to_numpy(dtype=float)])
    assert (lows[~np.isnan(lows)] > 0).all()  # intervals of rates, latencies and their ratios stay positive


def test_chapter_executes_on_every_database(databases, tmp_path):
    """On every test database, with a baseline label none of them holds: the chapter runs, glues every key its
    markdown pastes, and says what it did with the label."""
    import nbformat

    for name in databases:
        (tmp_path / name).mkdir()
        execute_chapter("your_runs", databases[name], tmp_path / name, baseline_label="no such label")
        executed = nbformat.read(tmp_path / name / "your_runs.ipynb", 4)
        glued = {o["metadata"]["scrapbook"]["name"] for c in executed.cells if c.cell_type == "code"
                 for o in c.get("outputs", []) if "scrapbook" in o.get("metadata", {})}
        pasted = {m for c in executed.cells if c.cell_type == "markdown"
                  for m in re.findall(r"\{glue:(?:md|text)\}`([^`:]+)|\{glue:(?:figure|md)\} ([^\s]+)", c.source)
                  for m in m if m}
        assert pasted and pasted <= glued, (name, pasted - glued)
        notes = next(o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])
                     if o.get("metadata", {}).get("scrapbook", {}).get("name") == "label-notes")
        assert "no such label" in json.dumps(notes["data"]), name


def test_a_pinned_baseline_that_matches_nothing_is_a_note(tmp_path):
    _, db = ior_tree(tmp_path)
    text = "\n".join(execute_chapter("your_runs", db, tmp_path, baseline_label="zz"))
    assert "no label sharing a configuration named" in text
    con, reps, configs = configurations(db)
    assert study.choose_baseline(configs, "b")[0] == "b"
    con.close()


def test_names_from_folders_reach_the_page_as_text(tmp_path):
    """A folder named like Markdown or HTML labels its runs as typed, not as markup."""
    tree = tmp_path / "t"
    for folder in ("<b>x", "**y** {numref}`z`"):
        (tree / folder).mkdir(parents=True)
        shutil.copyfile(IOR_TEXT, tree / folder / IOR_TEXT.name)
    db = tmp_path / "t.duckdb"
    ingest([tree], db, progress=False)
    con, reps, configs = configurations(db)
    comparisons = study.get_comparisons(reps, configs, study.choose_baseline(configs, "")[0])
    effects = study.sweep_effects(reps, configs, study.get_sweeps(configs)[1])
    text = study.findings_md(configs, effects, comparisons) + study.read_sentence(con, reps, configs)
    assert r"\<b\>x" in text and r"\*\*y\*\* \{numref\}\`z\`" in text
    assert "<b>" not in text and "**y**" not in text
    con.close()


def test_md_escape_and_select_or_note():
    assert nb.md_escape("a_b *c* <d>\n`e`") == r"a\_b \*c\* \<d\> \`e\`"
    assert nb.select_or_note(["x", "DAOS"], ["DAOS", "Lustre"], "family")[0] == ["DAOS"]
    chosen, note = nb.select_or_note(["x"], ["DAOS", "Lustre"], "family")
    assert chosen == ["DAOS", "Lustre"] and "no family named 'x'" in note
    assert nb.select_or_note([], ["b", "a"], "family") == (["a", "b"], None)


def test_summary_statistics():
    values = [207.19, 1098.75, 1196.93]  # IOR's three writes of ior_posix_fpp_1m_np2_i3.log
    s = stats.pooled([1, 1, 1], values, [0, 0, 0])
    assert (s.n, s.mean, s.sd) == (3, pytest.approx(statistics.mean(values)), pytest.approx(statistics.stdev(values)))
    parts = stats.pooled([2, 1], [statistics.mean(values[:2]), values[2]], [statistics.stdev(values[:2]), 0])
    assert (parts.mean, parts.sd) == (pytest.approx(s.mean), pytest.approx(s.sd))
    low, high = stats.positive_interval(s.n, s.mean, s.sd)
    t_low, t_high = scipy_stats.t.interval(0.95, 2, loc=s.mean, scale=s.sd / np.sqrt(3))
    assert t_low < 0 < low < s.mean < high  # Student's interval of this rate goes negative; this one does not
    # small spread: close to Student's t interval
    near = stats.positive_interval(10, 100.0, 1.0)
    assert near == pytest.approx(scipy_stats.t.interval(0.95, 9, loc=100, scale=1 / np.sqrt(10)), rel=1e-3)
    assert np.isnan(stats.positive_interval(1, 5.0, 0.0)[0])
    # means of 3 iterations: the delta method's interval and p agree, and rest on the same t
    r = stats.ratio_from_summaries(stats.Summary(3, 110, 5), stats.Summary(3, 100, 5))
    assert (r["ratio"], r["low"], r["high"], r["p"]) == pytest.approx(delta_log([0, 0, 110, 5], [0, 0, 100, 5], 3))
    assert r["low"] < 1.1 < r["high"] and r["p"] > 0.05
    assert r["sd_log"] == pytest.approx(np.sqrt(((5 / 110) ** 2 + (5 / 100) ** 2) / 2))
    for sd in np.linspace(1, 10, 37):  # across the edge of deciding, the interval excludes 1 exactly when p < 0.05
        r = stats.ratio_from_summaries(stats.Summary(3, 110, sd), stats.Summary(4, 100, sd))
        assert (r["low"] > 1) == (r["p"] < 0.05)
    assert np.isnan(stats.ratio_from_summaries(stats.Summary(1, 110, 0), stats.Summary(3, 100, 5))["p"])


def test_sizes_read_as_fio_and_ior_write_them():
    assert study.size_bytes("4k") == 4096 and study.size_bytes("1m") == 2**20 and study.size_bytes("64KiB") == 65536
    # fio's text output: "bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB"
    assert study.size_bytes("(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB") == 65536
    assert study.size_bytes("4k-64k") is None and study.size_bytes("100%") is None
    assert study.binary_size(47008) == "47008 B" and study.binary_size(2**20) == "1 MiB"


def test_parsers_keep_the_options_the_chapter_needs(databases):
    con = store.open_read(databases["default"])
    size, options = con.execute(
        "SELECT j.size, j.options FROM fio_jobs j JOIN sources s USING (source_id) WHERE s.path LIKE ?",
        ["%/checksum/vm-20261121T131428Z/007-write-md5-direct-r1.fio.json"]).fetchone()
    job = json.loads((CHECKSUM / "007-write-md5-direct-r1.fio.json").read_text())["jobs"][0]["job options"]
    assert size == job["size"] == "2G" and json.loads(options) == job
    con.close()


def test_glued_findings_give_the_landing_page_its_headline(tmp_path):
    _, db = ior_tree(tmp_path)
    execute_chapter("your_runs", db, tmp_path)
    text, anchor = build.headline(tmp_path / "your_runs.ipynb")
    # a glued finding keeps its {numref} link, which resolves from the landing page too (build.headline)
    assert text.startswith("**b** gives 1.3×") and text.endswith("{numref}`tab-runs-comparisons`") and anchor is None


SWEEP = REPO / "data" / "examples" / "sweep"  # fio, IOR and mdtest on three systems (its README, MANIFEST.tsv)
VDA = "ext4, virtio disk"  # its labels.yml: "vda-ext4/**: ext4, virtio disk"
LOOP = "ext4, loop device"
TMPFS = "tmpfs (RAM)"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    db = tmp_path_factory.mktemp("sweep") / "sweep.duckdb"
    ingest([SWEEP], db, progress=False)
    con, reps, configs = configurations(db)
    yield db, con, reps, configs
    con.close()


def fio_bandwidths(folder, direction="read"):
    return [json.loads(f.read_text())["jobs"][0][direction]["bw_bytes"] / 2**20 for f in sorted(folder.glob("rep*.json"))]


def test_sweep_example_configurations_from_its_files(sweep):
    _, _, reps, configs = sweep
    assert sorted(set(configs["label"])) == [LOOP, VDA, TMPFS]
    assert set(reps["labelled_by"]) == {f"data/examples/sweep/labels.yml: {g}" for g in ("vda-ext4/**", "loop-ext4/**", "tmpfs/**")}
    by = configs.set_index("config")
    # fio: the three rep*.json of a folder are the repetitions of one configuration
    folder = SWEEP / "vda-ext4" / "fio-randread-bs4k-qd16"
    row = by.loc[config_of(reps, "vda-ext4/fio-randread-bs4k-qd16/rep1.json", "randread")]
    assert (row["label"], row["bs"], row["iodepth"], row["direct"], row["size"], row["repetitions"]) == (VDA, "4k", 16, 1, "256m", 3)
    assert row["bw_mib_s"] == pytest.approx(statistics.mean(fio_bandwidths(folder)))
    assert row["bw_mib_s_sd"] == pytest.approx(statistics.stdev(fio_bandwidths(folder)))
    # the same job's text output states no direct and no size: a configuration of its own
    text = by.loc[config_of(reps, "vda-ext4/fio-randread-bs64k-qd16-text/rep1.txt", "randread")]
    assert (text["repetitions"], text["iodepth"]) == (3, 16) and pd_isna(text["direct"]) and pd_isna(text["size"])
    assert text.name != config_of(reps, "vda-ext4/fio-randread-bs64k-qd16/rep1.json", "randread")
    # IOR: rep1.log (text) and rep2.json of a folder, 3 iterations each: 6 repetitions
    folder = SWEEP / "tmpfs" / "ior-shared-t4m-b64m-np2"
    row = by.loc[config_of(reps, "tmpfs/ior-shared-t4m-b64m-np2/rep1.log", "write")]
    writes = ior_text_bandwidths(folder / "rep1.log", "write") + ior_json_bandwidths(folder / "rep2.json", "write")
    assert (row["repetitions"], row["transfer"], row["tasks"], row["file_per_proc"]) == (6, 4 * 2**20, 2, False)
    assert row["bw_mib_s"] == pytest.approx(statistics.mean(writes))
    # mdtest: one log of 3 iterations
    rates = mdtest_row(SWEEP / "loop-ext4" / "mdtest-n5000-np2" / "rep1.log", "File stat")
    row = by.loc[config_of(reps, "loop-ext4/mdtest-n5000-np2/rep1.log", "File stat")]
    assert (row["repetitions"], row["items"], row["tasks"]) == (3, 10000, 2)
    assert (row["ops_s"], row["ops_s_sd"]) == (pytest.approx(rates[2]), pytest.approx(rates[3]))


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
    assert p.loc[("iodepth=16", 4.0), "mean"] == pytest.approx(statistics.mean(fio_bandwidths(SWEEP / "vda-ext4" / "fio-randread-bs4k-qd16")))
    assert p.loc[("iodepth=1", 1024.0), "mean"] == pytest.approx(statistics.mean(fio_bandwidths(SWEEP / "vda-ext4" / "fio-randread-bs1m-qd1")))
    assert len(p) == 6 and (p["low"] > 0).all() and (p["low"] < p["mean"]).all() and (p["mean"] < p["high"]).all()
    assert study.chart_sweeps(sweeps, points).to_dict()


def test_sweep_example_labels_compared(sweep):
    """tmpfs against the loop device, fio randread 1 MiB at iodepth 1: the ratio of the two folders' geometric
    mean bandwidths, 2.12x, with the interval and p of Welch's t on their logs recomputed from their JSONs:
    (0.885-5.08), p 0.072, undecided. mdtest File stat at 10,000 items, means of 3 iterations: the ratio of the
    printed means, the delta method's interval and p from the printed sds."""
    _, _, reps, configs = sweep
    comparisons = study.get_comparisons(reps, configs, LOOP)
    assert set(comparisons["label"]) == {VDA, TMPFS} and (comparisons["baseline"] == LOOP).all()
    tmpfs, loop = fio_bandwidths(SWEEP / "tmpfs" / "fio-randread-bs1m-qd1"), fio_bandwidths(SWEEP / "loop-ext4" / "fio-randread-bs1m-qd1")
    row = comparisons[(comparisons["label"] == TMPFS) & (comparisons["workload"] == "randread")
                      & (comparisons["parameters"].str.contains("bs=1m iodepth=1 "))].iloc[0]
    assert (row["ratio"], row["low"], row["high"], row["p_welch"]) == pytest.approx(log_welch(tmpfs, loop))
    assert row["p_welch"] > 0.05 and not row["decided"]
    md = comparisons[(comparisons["tool"] == "mdtest") & (comparisons["label"] == TMPFS)
                     & (comparisons["workload"] == "File stat") & comparisons["parameters"].str.contains("items=10,000")].iloc[0]
    a, b = (mdtest_row(SWEEP / s / "mdtest-n5000-np2" / "rep1.log", "File stat") for s in ("tmpfs", "loop-ext4"))
    assert (md["ratio"], md["low"], md["high"], md["p_welch"]) == pytest.approx(delta_log(a, b, 3))
    assert md["method"].startswith("delta method") and md["ratio_of"] == "mean"
    assert (md["mean"], md["mean_baseline"]) == (pytest.approx(a[2]), pytest.approx(b[2]))
    lines = study.findings(configs, study.sweep_effects(reps, configs, study.get_sweeps(configs)[1]), comparisons)
    assert lines[0].startswith(f"**{nb.md_escape(TMPFS)}** gives") and "geometric mean bandwidth" in lines[0]
    assert r"in fio randwrite bs\=4k iodepth\=1 (95% interval" in lines[0]


def test_sweep_example_effects_decided_or_not(sweep):
    """Randwrite from 4 KiB to 1 MiB blocks at iodepth 1, 3 files a side, by Welch's t on the logs: on the VM's
    disk 75.1x in geometric mean (4.49-1,257), p 0.020; on the loop device 22.8x (5.52-94.4), p 0.0045 (the
    bootstrap's interval above 1 beside Welch's p 0.076 on the raw values left it undecided). An mdtest line
    compares means of iterations: the delta method from the printed means and sds, 3.82x, p 0.0037."""
    _, _, reps, configs = sweep
    points = study.get_sweeps(configs)[1]
    effects = study.sweep_effects(reps, configs, points).set_index(["sweep", "line"])
    for folder, label in (("vda-ext4", VDA), ("loop-ext4", LOOP)):
        large, small = (fio_bandwidths(SWEEP / folder / f"fio-randwrite-bs{bs}-qd1", "write") for bs in ("1m", "4k"))
        e = effects.loc[(f"{label} · fio randwrite", "iodepth=1")]
        assert (e["ratio"], e["low"], e["high"], e["p_welch"]) == pytest.approx(log_welch(large, small))
        assert e["p_welch"] < 0.05 and 1 < e["low"] < e["ratio"] < e["high"]
        assert e["decided"] and pd_isna(e["n_to_decide"])
    # mdtest -n 5000 and -n 1000 on 2 tasks: 10,000 and 2,000 items
    large, small = (mdtest_row(SWEEP / "vda-ext4" / f"mdtest-n{n}-np2" / "rep1.log", "File creation") for n in (5000, 1000))
    e = effects.loc[(f"{VDA} · mdtest File creation", "tasks=2")]
    assert (e["ratio"], e["low"], e["high"], e["p_welch"]) == pytest.approx(delta_log(large, small, 3))
    assert e["method"].startswith("delta method") and e["decided"]
    # the largest decided change along a sweep is the one the findings name, with its interval
    line = next(x for x in study.findings(configs, effects.reset_index(), study.get_comparisons(reps, configs, LOOP))
                if x.endswith("{numref}`fig-runs-sweeps`"))
    vda = effects.loc[(f"{VDA} · fio randwrite", "iodepth=1")]
    assert line.startswith(f"**{nb.md_escape(VDA)}** fio randwrite geometric mean bandwidth") and "undecided" not in line
    assert f"{vda['ratio']:.3g}× (95% interval {vda['low']:.3g}–{vda['high']:,.0f}; n = 3, 3)" in line  # 1,257, not 1.26e+03


def test_sweep_example_intervals_and_verdicts_agree(sweep):
    """A comparison's interval and its verdict come from one test, so a reader never sees an interval that
    excludes 1 beside "undecided": decided exactly when the interval excludes 1, exactly when p is below
    0.05, for every comparison of labels and every sweep line's change. tmpfs over the loop device, fio
    randread 4 KiB at iodepth 1, 3 files a side, is Welch's t on the logs of the bandwidths, recomputed here
    from the fio JSON: 9.24x (0.766-111), p 0.064, undecided."""
    _, _, reps, configs = sweep
    comparisons = study.get_comparisons(reps, configs, LOOP)
    effects = study.sweep_effects(reps, configs, study.get_sweeps(configs)[1])
    for frame in (comparisons, effects):
        judged = frame[np.isfinite(frame["low"].astype(float))]
        assert len(judged) > 50
        excludes_one = (judged["low"] > 1) | (judged["high"] < 1)
        disagree = judged[judged["decided"] != excludes_one]
        assert disagree.empty, f"{len(disagree)} of {len(judged)}: {disagree[['workload', 'ratio', 'low', 'high', 'p_welch']]}"
        assert (judged["decided"] == (judged["p_welch"] < 0.05)).all()
    tmpfs, loop = (np.log(fio_bandwidths(SWEEP / folder / "fio-randread-bs4k-qd1")) for folder in ("tmpfs", "loop-ext4"))
    welch = scipy_stats.ttest_ind(tmpfs, loop, equal_var=False)
    ci = welch.confidence_interval(0.95)
    row = comparisons[(comparisons["label"] == TMPFS) & (comparisons["workload"] == "randread")
                      & comparisons["parameters"].str.contains("bs=4k iodepth=1 ")].iloc[0]
    assert (row["n"], row["n_baseline"]) == (len(tmpfs), len(loop)) == (3, 3)
    assert row["ratio"] == pytest.approx(np.exp(tmpfs.mean() - loop.mean()))
    assert (row["low"], row["high"]) == pytest.approx((np.exp(ci.low), np.exp(ci.high)))
    assert row["p_welch"] == pytest.approx(welch.pvalue) and welch.pvalue > 0.05
    assert not row["decided"] and row["low"] < 1 < row["high"]
    # the repetitions a side at which a t-test on the logs finds this ratio with 80% power, at their spread
    sd_log = np.sqrt((tmpfs.var(ddof=1) + loop.var(ddof=1)) / 2)
    assert row["n_to_decide"] == stats.n_per_side(tmpfs.mean() - loop.mean(), sd_log, 0.05) == 4


def test_a_zero_repetition_is_compared_without_a_log(sweep, recwarn):
    """A job that moved no data (fio reports bw 0 for a job that failed or was cut off) has no logarithm: the
    comparison keeps the ratio of the means, gives no interval and no verdict, and warns of nothing (a warning
    would print in the chapter). The loop device's fio randread 4 KiB at iodepth 1, its first file's bandwidth
    set to 0 as such a job reports it."""
    _, _, reps, configs = sweep
    row = configs[(configs["label"] == LOOP) & (configs["workload"] == "randread")
                  & configs["parameters"].str.contains("bs=4k iodepth=1 ")].iloc[0]
    other = configs[(configs["label"] == TMPFS) & (configs["config"].map(study.config_without_label)
                                                   == study.config_without_label(row["config"]))].iloc[0]
    damaged = reps.copy()
    first = damaged.index[damaged["config"] == row["config"]][0]
    zeroed = damaged.loc[first, "bw_mib_s"]
    damaged.loc[first, "bw_mib_s"] = 0.0
    loop = fio_bandwidths(SWEEP / "loop-ext4" / "fio-randread-bs4k-qd1")
    tmpfs = fio_bandwidths(SWEEP / "tmpfs" / "fio-randread-bs4k-qd1")
    assert zeroed == pytest.approx(min(loop, key=lambda v: abs(v - zeroed)))  # one of the files' values
    compared = study.compare(damaged, other, row, 0.95)
    assert compared["ratio"] == pytest.approx(np.mean(tmpfs) / ((sum(loop) - zeroed) / len(loop)))
    assert np.isnan(compared["low"]) and not compared["decided"] and compared["n_to_decide"] is None
    assert "0" in compared["method"]
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
