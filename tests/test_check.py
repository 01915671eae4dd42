"""`iobook check`, the CI gate (iobook/check.py), on data/examples/history: change/ (the fio job's target moved from
a tmpfs to a loop-device ext4 at run 16, MANIFEST.tsv line 17: bandwidth fell to ~1/500) and steady/ (no change)."""
import json

import pytest

from conftest import REPO
from iobook.__main__ import main

HISTORY = REPO / "data" / "examples" / "history"
pytestmark = pytest.mark.slow  # ingests and searches 30 runs a history


def gate(tmp_path, folder: str, *options: str) -> tuple[int, dict]:
    report = tmp_path / f"{folder}.json"
    code = main(["check", "--data", str(HISTORY / folder), "--db", str(tmp_path / f"{folder}.duckdb"), "--quiet",
                 "--report-json", str(report), *options])
    return code, json.loads(report.read_text())


def test_a_decided_slowdown_in_the_newest_runs_fails_the_gate(tmp_path):
    code, report = gate(tmp_path, "change")
    assert code == 1 and not report["passed"]
    failing = {(c["measure"], c["run"]) for c in report["changes"] if c["fails"]}
    assert failing == {("bandwidth", 16), ("clat p99", 16)}
    bandwidth = next(c for c in report["changes"] if c["fails"] and c["measure"] == "bandwidth")
    assert bandwidth["label"] == "change" and bandwidth["high"] < 0.01 and bandwidth["slower"]


def test_no_change_passes_and_the_window_and_direction_are_honoured(tmp_path):
    assert gate(tmp_path, "steady")[0] == 0
    assert gate(tmp_path, "change", "--direction", "faster")[0] == 0  # the change is a slowdown
    assert gate(tmp_path, "change", "--last", "5")[0] == 0  # run 16 is not among the last 5 of 30
    assert gate(tmp_path, "change", "--since", "2026-11-28")[0] == 0  # the runs were made on 2026-11-27
