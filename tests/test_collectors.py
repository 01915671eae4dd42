"""The collectors in scripts/: their command line, their prerequisite check, and the runs they committed."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iobook import store
from iobook.ingest import ingest

REPO = Path(__file__).resolve().parents[1]
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
    # Every file in the folder is either the manifest or listed in it, and every listed file exists (the
    # pagecache experiments' set-up steps, losetup and blockdev, list no file).
    assert set(by_name) == listed | {"manifest.json"}
    # Everything parses; the only exception is fio's empty slat log (psync has no submission latency).
    failed = {n: e for n, (s, e) in by_name.items() if s != "ok" and not (n.endswith("_slat.1.log") and
                                                                        (run_dir / n).stat().st_size == 0)}
    assert failed == {}
    assert labelled == listed


def test_snapshot_parts_are_checked_before_anything_runs(tmp_path):
    out = run_collector("collect_snapshots.py", "--parts", "recovery,bogus", "--out", str(tmp_path / "out"),
                        "--image-dir", str(tmp_path), env={"PATH": str(tmp_path / "empty")})
    assert out.returncode == 2
    assert "unknown part 'bogus' in --parts" in out.stderr
    assert "--parts recovery needs cow" in out.stderr
    assert "missing tool: df (Debian package: coreutils)" in out.stderr
    assert not (tmp_path / "out").exists()
def test_monitors_stop_when_the_collector_was_started_in_the_background(tmp_path):
    # A shell starts a background job (`python3 scripts/collect_pagecache.py &`) with SIGINT ignored, and
    # vmstat inherits that: it ignored the SIGINT that stops it, Monitors waited 10 s and raised, and the
    # run failed after its first step. The monitors must stop on SIGINT (mpstat prints its averages then).
    script = f"""
import signal, sys
sys.path.insert(0, {str(REPO / 'scripts')!r})
signal.signal(signal.SIGINT, signal.SIG_IGN)
import collectlib as cl
run = cl.Run("test", {str(tmp_path)!r}, ["test"], {{}})
mon = cl.Monitors(run, "001-step", settle_s=1.5)
with mon:
    pass
print(sorted(p.returncode for p in mon.procs))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # vmstat dies of the signal (-2); mpstat catches it, prints its Average lines and exits 0
    assert out.stdout.split() == ["[-2,", "0]"]
    (run_dir,) = tmp_path.iterdir()
    assert "Average:" in (run_dir / "001-step.mpstat.txt").read_text()
