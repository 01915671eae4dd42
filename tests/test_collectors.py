"""The collectors in scripts/: their command line, their prerequisite check, a monitor tool that is missing,
the quiet-machine check, the sequential design and its statistics, and the runs they committed."""
import json
import math
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from iobook.database import store
from iobook.database.ingest import ingest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import collectlib as cl  # noqa: E402

MONITOR_TOOLS = ("vmstat", "mpstat", "perf")
COLLECTORS = {"checksum": "collect_checksum.py", "pagecache": "collect_pagecache.py",
              "snapshots": "collect_snapshots.py"}


def run_collector(script: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "scripts" / script), *args],
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.mark.parametrize("study,script", COLLECTORS.items())
def test_help_names_the_options(study, script):
    # argparse wraps help at the terminal's width, breaking a long default path (a clone at a long path)
    out = run_collector(script, "--help", env={**os.environ, "COLUMNS": "10000"})
    assert out.returncode == 0, out.stderr
    assert "--out" in out.stdout and "--repetitions" in out.stdout
    assert f"data/raw/{study}" in out.stdout  # the default run folder


@pytest.mark.parametrize("script", COLLECTORS.values())
def test_missing_tools_are_named(script, tmp_path):
    # No PATH: every external tool is missing; the collector must say which, exit 2, and write nothing.
    out = run_collector(script, "--out", str(tmp_path / "out"), "--dir" if "snapshots" not in script
                        else "--image-dir", str(tmp_path), env={"PATH": str(tmp_path / "empty")})
    assert out.returncode == 2
    assert "missing tool: fio (Debian package: fio)" in out.stderr
    assert "missing tool: findmnt (Debian package: util-linux)" in out.stderr
    # A monitor is not a prerequisite: the run would go on without it
    assert not any(f"missing tool: {tool}" in out.stderr for tool in MONITOR_TOOLS)
    assert not (tmp_path / "out").exists()


def committed_runs(study: str) -> list[Path]:
    return sorted(p.parent for p in (REPO / "data" / "raw" / study).glob("*/manifest.json"))


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("collectors") / "runs.duckdb"
    ingest([run for study in COLLECTORS for run in committed_runs(study)], path, progress=False)
    return path


@pytest.mark.parametrize("run_dir", [run for study in COLLECTORS for run in committed_runs(study)],
                         ids=lambda run: f"{run.parent.name}/{run.name}")
@pytest.mark.slow
def test_committed_run_parses_and_every_file_has_labels(run_dir, db):
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    listed = {f for step in manifest["steps"] for f in step["files"]}
    with store.open_read(db) as con:
        rows = con.execute(
            "SELECT s.path, s.status, s.error FROM sources s WHERE starts_with(s.path, ?)", [str(run_dir) + "/"]
        ).fetchall()
        labelled = {f for (f,) in con.execute(
            "SELECT DISTINCT file FROM run_labels WHERE run_id = ? AND source_id IS NOT NULL", [run_dir.name]
        ).fetchall()}
    by_name = {Path(p).name: (status, error) for p, status, error in rows}
    superseded = {f for step in manifest["steps"] for f in step.get("superseded_files", [])}
    by_name = {str(Path(p).relative_to(run_dir)): v for p, v in ((p, (s, e)) for p, s, e in rows)}
    # Every file in the folder is either the manifest or listed in it (a step's files, or the files of an
    # attempt repeated because it ran under load), and every listed file exists (the pagecache experiments'
    # set-up steps, losetup and blockdev, list no file).
    assert set(by_name) == listed | superseded | {"manifest.json"}
    # Everything parses; the only exception is fio's empty slat log (psync has no submission latency).
    failed = {n: e for n, (s, e) in by_name.items() if s != "ok" and not (n.endswith("_slat.1.log") and
                                                                        (run_dir / n).stat().st_size == 0)}
    assert failed == {}
    assert labelled == listed


@pytest.mark.slow
def test_snapshot_parts_are_checked_before_anything_runs(tmp_path):
    out = run_collector("collect_snapshots.py", "--parts", "recovery,bogus", "--out", str(tmp_path / "out"),
                        "--image-dir", str(tmp_path), env={"PATH": str(tmp_path / "empty")})
    assert out.returncode == 2
    assert "unknown part 'bogus' in --parts" in out.stderr
    assert "--parts recovery needs cow" in out.stderr
    assert "missing tool: df (Debian package: coreutils)" in out.stderr
    assert not (tmp_path / "out").exists()
def path_without(tmp_path: Path, tools: tuple[str, ...]) -> str:
    """A PATH holding only links to `fio`, `findmnt` and the other tools of this PATH that are not `tools`: the
    machine without them, without uninstalling anything."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if not Path(directory).is_dir():
            continue
        for tool in Path(directory).iterdir():
            if tool.name not in tools and not (bin_dir / tool.name).exists() and os.access(tool, os.X_OK):
                (bin_dir / tool.name).symlink_to(tool.resolve())
    return str(bin_dir)


PATHS = {"as installed": lambda tmp_path: os.environ["PATH"],
         "without monitors": lambda tmp_path: path_without(tmp_path, MONITOR_TOOLS)}


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_monitors_stop_when_the_collector_was_started_in_the_background(tmp_path, path):
    # A shell starts a background job (`python3 scripts/collect_pagecache.py &`) with SIGINT ignored, and
    # vmstat inherits that: it ignored the SIGINT that stops it, Monitors waited 10 s and raised, and the
    # run failed after its first step. The monitors must stop on SIGINT (mpstat prints its averages then).
    # Without the tools (issue 21: FileNotFoundError 'mpstat'), the step runs and the manifest says what
    # was not recorded.
    env = {**os.environ, "PATH": PATHS[path](tmp_path)}
    script = f"""
import signal, sys, json
sys.path.insert(0, {str(REPO / 'scripts')!r})
signal.signal(signal.SIGINT, signal.SIG_IGN)
import collectlib as cl
run = cl.Run("test", {str(tmp_path / 'out')!r}, ["test"], {{}})
mon = cl.Monitors(run, "001-step", settle_s=1.5)
with mon:
    run.step("001-step", ["true"], {{}}, list(mon.files.values()))
print(json.dumps({{tool: p.returncode for tool, p in mon.procs.items()}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    (run_dir,) = (tmp_path / "out").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    expected = {tool: shutil.which(tool, path=env["PATH"]) is not None for tool in ("vmstat", "mpstat")}
    assert {t: m["recorded"] for t, m in manifest["facts"]["monitors"].items()} == expected
    # vmstat dies of the signal (-2); mpstat catches it, prints its Average lines and exits 0
    assert json.loads(out.stdout) == {tool: code for tool, code in (("vmstat", -2), ("mpstat", 0)) if expected[tool]}
    assert (run_dir / "001-step.mpstat.txt").exists() == expected["mpstat"]
    assert (run_dir / "001-step.vmstat.txt").exists() == expected["vmstat"]
    if expected["mpstat"]:
        assert "Average:" in (run_dir / "001-step.mpstat.txt").read_text()
    for tool, found in expected.items():
        assert (tool in out.stderr) != found  # a missing monitor is said on stderr
    assert manifest["steps"][0]["files"] == [f"001-step.{t}.txt" for t in ("vmstat", "mpstat") if expected[t]]


# A checksum run small enough for a test: 2 configurations, 3 rounds (the fewest the rule reads), no waiting,
# and one attempt a step, so that the steps run do not depend on how busy the machine is (a step run under
# load is repeated otherwise: test_a_step_that_ran_under_load_is_repeated_once_the_machine_is_quiet).
SMALL_CHECKSUM = ["--size", "8M", "--algorithms", "none,sha256", "--modes", "buffered", "--max-repetitions", "3",
                  "--quiet-sample", "0.2", "--max-wait", "0", "--wait-budget", "0", "--max-attempts", "1",
                  "--seed", "7"]


@pytest.fixture(scope="module")
def checksum_runs(tmp_path_factory) -> dict[str, tuple[Path, subprocess.CompletedProcess, dict]]:
    """Real checksum collections on this machine, as installed and with a PATH that lacks the monitors, run at
    the same time: a collection is ~36 s of waiting (each step's monitors settle 1 s before and after it) and
    ~3 s of CPU. PATH -> (run folder, the finished process, its environment)."""
    started = {}
    for path, make_path in PATHS.items():
        tmp_path = tmp_path_factory.mktemp("checksum")
        env = {**os.environ, "PATH": make_path(tmp_path)}
        argv = [sys.executable, str(REPO / "scripts" / "collect_checksum.py"), "--dir", str(tmp_path / "files"),
                "--out", str(tmp_path / "out"), *SMALL_CHECKSUM]
        started[path] = (tmp_path, env, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                         text=True, env=env))
    runs = {}
    for path, (tmp_path, env, process) in started.items():
        stdout, stderr = process.communicate(timeout=120)
        (run_dir,) = (tmp_path / "out").iterdir()
        runs[path] = run_dir, subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), env
    return runs


@pytest.fixture(params=list(PATHS))
def checksum_run(request, checksum_runs) -> tuple[str, Path, subprocess.CompletedProcess, dict]:
    """One of checksum_runs: (PATH, run folder, process, environment)."""
    return request.param, *checksum_runs[request.param]


@pytest.mark.slow
def test_a_missing_monitor_is_recorded_and_the_run_goes_on(checksum_run):
    path, run_dir, out, env = checksum_run
    assert out.returncode == 0, out.stderr
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    found = {tool: shutil.which(tool, path=env["PATH"]) is not None for tool in MONITOR_TOOLS}
    if path == "without monitors":
        assert not any(found.values())
    assert {t: m["recorded"] for t, m in manifest["facts"]["monitors"].items()} == found
    for tool, recorded in found.items():
        assert (tool in out.stderr) != recorded
    suffix = {"vmstat": ".vmstat.txt", "mpstat": ".mpstat.txt", "perf": ".perf.txt"}
    fio_steps = [s for s in manifest["steps"] if s["labels"].get("phase")]
    assert fio_steps and all(s["exit_code"] == 0 for s in fio_steps)
    for step in fio_steps:
        assert f"{step['name']}.fio.json" in step["files"]
        for tool, recorded in found.items():
            assert (f"{step['name']}{suffix[tool]}" in step["files"]) == recorded
            assert (run_dir / f"{step['name']}{suffix[tool]}").exists() == recorded
    # what was recorded lands: every file parses and carries its labels
    db = run_dir.parent / "run.duckdb"
    ingest([run_dir], db, progress=False)
    with store.open_read(db) as con:
        statuses = dict(con.execute("SELECT path, status FROM sources").fetchall())
        labelled = {f for (f,) in con.execute("SELECT DISTINCT file FROM run_labels WHERE source_id IS NOT NULL")
                    .fetchall()}
    assert set(statuses.values()) == {"ok"}
    assert labelled == {f for s in manifest["steps"] for f in s["files"]}


@pytest.mark.slow
def test_configurations_are_interleaved_in_the_seeded_order(checksum_run):
    _path, run_dir, out, _env = checksum_run
    manifest = json.loads((run_dir / "manifest.json").read_text())
    design = manifest["facts"]["design"]
    configs = design["configurations"]
    rng = random.Random(7)  # --seed 7: each round is a fresh shuffle of every configuration
    expected = []
    for recorded in design["rounds"]:
        order = list(configs)
        rng.shuffle(order)
        assert recorded["order"] == order
        expected += [(c["verify"], c["mode"], str(recorded["round"])) for c in order for _phase in ("write", "read")]
    ran = [(s["labels"]["verify"], s["labels"]["mode"], s["labels"]["repetition"]) for s in manifest["steps"]
           if s["labels"].get("phase") and "drift_check" not in s["labels"]]
    assert ran == expected
    # the baseline is measured again at the end, after every round
    end = [s for s in manifest["steps"] if s["labels"].get("drift_check") == "end"]
    assert [(s["labels"]["verify"], s["labels"]["phase"]) for s in end] == [("none", "write"), ("none", "read")]
    assert manifest["steps"].index(end[0]) > max(manifest["steps"].index(s) for s in manifest["steps"]
                                                 if s["labels"].get("repetition") == "3" and "drift_check" not in
                                                 s["labels"])


@pytest.mark.slow
# an 8 MiB buffered step can run at the same bandwidth each round (three equal values on a side): scipy then warns
# of precision lost in its moments, which is the data being identical, not lost (iobook.inference.stats.ratio_row ignores it so)
@pytest.mark.filterwarnings("ignore:Precision loss occurred in moment calculation:RuntimeWarning")
def test_the_stopping_rule_reads_the_runs_own_files_as_the_book_would(checksum_run):
    # The collector's stdlib Welch interval of the log ratio, after the last round, is scipy's on the bandwidths
    # fio wrote (read back here from the run's own files), and its verdict follows the recorded rule.
    _path, run_dir, _out, _env = checksum_run
    manifest = json.loads((run_dir / "manifest.json").read_text())
    decision = manifest["facts"]["decision"]
    assert decision["rounds"] == len(manifest["facts"]["design"]["rounds"])
    assert decision["stopped_because"]
    steps = [s for s in manifest["steps"] if s["labels"].get("phase") and "drift_check" not in s["labels"]]

    def bandwidths(verify, phase):
        values = []
        for s in steps:
            if (s["labels"]["verify"], s["labels"]["phase"]) == (verify, phase):
                job = json.loads((run_dir / f"{s['name']}.fio.json").read_text())["jobs"][0]
                values.append(job[phase]["bw_bytes"] / 2**20)
        return np.log(values)

    rows = {r["name"]: r for r in decision["after_round"][-1]["comparisons"]}
    for phase in ("write", "read"):
        row = rows[f"sha256 / none, buffered {phase}, bandwidth"]
        a, b = bandwidths("sha256", phase), bandwidths("none", phase)
        test = stats.ttest_ind(a, b, equal_var=False)
        ci = test.confidence_interval(0.95)
        assert (row["n"], row["n_baseline"]) == (len(a), len(b)) == (3, 3)
        # the manifest keeps 6 decimals (collectlib rounds its rows): a small bound's relative error may pass 1e-5
        kept = {"rel": 1e-5, "abs": 5e-7}
        assert row["ratio"] == pytest.approx(math.exp(a.mean() - b.mean()), **kept)
        assert row["low"] == pytest.approx(math.exp(ci.low), **kept)
        assert row["high"] == pytest.approx(math.exp(ci.high), **kept)
        assert row["p"] == pytest.approx(test.pvalue, rel=1e-4, abs=1e-6)
    for row in rows.values():
        assert row["decided"] == (row["p_holm"] is not None and row["p_holm"] < 0.05)
    assert decision["decided"] == all(r["decided"] for r in rows.values())
    assert decision["stopped_because"].startswith("every main comparison decided" if decision["decided"]
                                                  else "--max-repetitions 3 reached")


@pytest.mark.slow
def test_every_measured_step_records_the_quiet_check(checksum_run):
    _path, run_dir, _out, _env = checksum_run
    manifest = json.loads((run_dir / "manifest.json").read_text())
    policy = manifest["facts"]["load_policy"]
    assert (policy["max_wait_s"], policy["wait_budget_s"]) == (0, 0)
    for step in (s for s in manifest["steps"] if s["labels"].get("phase")):
        load, labels = step["load"], step["labels"]
        busy_before, busy_after = load["before"]["busy_pct"], load["after"]["busy_pct"]
        assert labels["busy_before_pct"] == str(busy_before) and labels["busy_after_pct"] == str(busy_after)
        assert load["before"]["quiet"] == (busy_before < policy["quiet_below_busy_pct"])
        assert load["before"]["samples_busy_pct"][-1] == busy_before
        assert load["before"]["samples_busy_pct"] == [busy_before]  # no wait budget: one sample, no waiting
        assert labels["under_load"] == str(not (load["before"]["quiet"] and load["after"]["quiet"])).lower()
        assert 0 <= step["cpu"]["own_pct"] <= 100 and 0 <= step["cpu"]["others_pct"] <= step["cpu"]["busy_pct"]


class ScriptedGate(cl.LoadGate):
    """A gate whose checks say what a test needs: busy before the first attempt, quiet everywhere after."""

    def __init__(self):
        super().__init__(quiet_busy_pct=25, sample_s=0, max_wait_s=0, wait_budget_s=0, max_attempts=2)
        self.checks = 0

    def _sample(self):
        self.checks += 1
        busy = 90.0 if self.checks == 1 else 5.0
        return {"busy_pct": busy, "steal_pct": 0.0, "seconds": 0.0, "quiet": busy < self.quiet_busy_pct}


@pytest.mark.slow
@pytest.mark.parametrize("repeatable", [True, False])
def test_a_step_that_ran_under_load_is_repeated_once_the_machine_is_quiet(tmp_path, repeatable):
    run = cl.Run("test", tmp_path, ["test"], {})
    run.gate = ScriptedGate()
    argv = ["sh", "-c", f'echo "$$" > {run.dir}/001-step.txt']
    kept = run.measure("001-step", argv, {"phase": "read"}, ["001-step.txt"], repeatable=repeatable)
    steps = run.manifest["steps"]
    if not repeatable:
        assert len(steps) == 1 and kept["load"]["under_load"] and not kept["load"]["repeated"]
        assert kept["labels"]["under_load"] == "true" and kept["files"] == ["001-step.txt"]
        return
    first, second = steps
    assert second is kept
    assert first["load"]["under_load"] and first["load"]["repeated"] and first["labels"]["attempt"] == "1"
    assert first["files"] == [] and first["superseded_files"] == ["superseded/attempt-1/001-step.txt"]
    assert not second["load"]["under_load"] and second["labels"]["attempt"] == "2"
    # both attempts' outputs are kept, each its own process's
    first_pid = (run.dir / "superseded/attempt-1/001-step.txt").read_text()
    assert first_pid != (run.dir / "001-step.txt").read_text()
    # ingest: the kept attempt's file carries the labels, the superseded one lands without any
    db = tmp_path / "db.duckdb"
    ingest([run.dir], db, progress=False)
    with store.open_read(db) as con:
        labelled = {f for (f,) in con.execute("SELECT DISTINCT file FROM run_labels").fetchall()}
    assert labelled == {"001-step.txt"}


@pytest.mark.parametrize("df", [0.7, 1, 1.5, 2, 2.6, 3, 4.2, 7, 12.5, 30, 120, 1000])
def test_student_t_matches_scipy(df):
    for p in (0.5, 0.6, 0.9, 0.975, 0.995, 0.9995, 0.025, 1e-4):
        assert cl.t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-8, abs=1e-10)
    for t in (0.0, 0.3, 1.0, 2.5, 7.0, 40.0, -1.7):
        assert cl.t_sf(t, df) == pytest.approx(stats.t.sf(t, df), rel=1e-8, abs=1e-15)


def test_log_ratio_matches_scipys_welch_on_real_bandwidths():
    # bandwidths fio measured in the committed page-cache run (buffered and direct reads, 3 repetitions)
    run_dir = REPO / "data/raw/pagecache/vm-20261123T161929Z"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    bw = {"buffered": [], "direct": []}
    for step in manifest["steps"]:
        if step["labels"].get("phase") == "read":
            job = json.loads((run_dir / f"{step['name']}.fio.json").read_text())["jobs"][0]
            bw[step["labels"]["mode"]].append(job["read"]["bw_bytes"] / 2**20)
    assert len(bw["buffered"]) == len(bw["direct"]) == 3
    for confidence in (0.9, 0.95, 0.99):
        row = cl.log_ratio(bw["buffered"], bw["direct"], confidence)
        a, b = np.log(bw["buffered"]), np.log(bw["direct"])
        test = stats.ttest_ind(a, b, equal_var=False)
        ci = test.confidence_interval(confidence)
        assert row["ratio"] == pytest.approx(math.exp(a.mean() - b.mean()))
        assert (row["low"], row["high"]) == (pytest.approx(math.exp(ci.low)), pytest.approx(math.exp(ci.high)))
        assert row["p"] == pytest.approx(test.pvalue)
        assert row["df"] == pytest.approx(test.df)


def test_holm_is_the_step_down_procedure():
    rng = random.Random(3)
    for _ in range(200):
        p = [rng.choice([None, rng.random() ** 3]) for _ in range(rng.randint(1, 8))]
        adjusted = cl.holm(p)
        tested = sorted((v, i) for i, v in enumerate(p) if v is not None)
        for alpha in (0.01, 0.05, 0.2):
            # the textbook procedure: reject in order of p while p_(k) <= alpha / (m - k)
            rejected = set()
            for k, (v, i) in enumerate(tested):
                if v > alpha / (len(tested) - k):
                    break
                rejected.add(i)
            assert {i for i, a in enumerate(adjusted) if a is not None and a <= alpha} == rejected
        assert [a is None for a in adjusted] == [v is None for v in p]


def test_dlio_help_names_its_options():
    out = run_collector("collect_dlio.py", "--help", env={**os.environ, "COLUMNS": "10000"})
    assert out.returncode == 0, out.stderr
    for option in ("--dlio-venv", "--runs", "--accelerators", "--throttle-read-bps", "--out"):
        assert option in out.stdout
    assert "data/raw/dlio" in out.stdout  # the default run folder


def test_dlio_without_its_environment_is_named_and_writes_nothing(tmp_path):
    out = run_collector("collect_dlio.py", "--dlio-venv", str(tmp_path / "none"), "--out", str(tmp_path / "out"),
                        "--dir", str(tmp_path))
    assert out.returncode == 2
    assert f"{tmp_path / 'none' / 'bin' / 'dlio_benchmark'} not found: make dlio-venv" in out.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("run_dir", committed_runs("dlio"), ids=lambda run: run.name)
def test_committed_dlio_run_lists_every_file_dlio_wrote(run_dir):
    """A DLIO run's folder holds the manifest and the training's output folder, every file of it listed by the step
    that wrote it (collect_dlio lists what DLIO wrote after the step); the run's command is in the manifest."""
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["tools"]["dlio_benchmark"] == "2.0.0"
    listed = {f for step in manifest["steps"] for f in step["files"]}
    held = {str(p.relative_to(run_dir)) for p in run_dir.rglob("*") if p.is_file()}
    assert held == listed | {"manifest.json"}
    trains = [s for s in manifest["steps"] if s["labels"]["phase"] == "train"]
    assert all(s["exit_code"] == 0 and s["command"][1:3] == ["-np", "2"] for s in trains)
    assert {f"r{s['labels']['repetition']}/summary.json" for s in trains} <= listed
