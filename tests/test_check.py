"""`iobook check`, the CI gate (iobook/cli/check.py), on data/examples/history: change/ (the fio job's target moved from
a tmpfs to a loop-device ext4 at run 16, MANIFEST.tsv line 17: bandwidth fell to ~1/500) and steady/ (no change)."""
import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO

from iobook.book import present
from iobook.cli.main import main

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


def outputs(tmp_path, data: list, *options: str) -> tuple[int, dict, str, str]:
    """The gate's exit status and its three outputs: the JSON report, the Markdown report, stdout."""
    md, js = tmp_path / "check.md", tmp_path / "check.json"
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--data", *map(str, data), "--db", str(tmp_path / "check.duckdb"), "--quiet",
                     "--report-md", str(md), "--report-json", str(js), *options])
    return code, json.loads(js.read_text()), md.read_text(), out.getvalue()


def test_a_missing_path_is_not_checked_and_says_so_in_every_output(tmp_path):
    """Issue 47: '--data /no/such/folder' printed 'passed ... 0 histories searched' and exited 0."""
    code, report, md, stdout = outputs(tmp_path, [tmp_path / "no" / "such" / "folder"])
    assert code == 2 and report["exit"] == 2 and not report["passed"]
    for text in (md, stdout, *report["not_checked"]):
        assert "no such file or folder" in text


def test_an_empty_folder_is_not_checked(tmp_path):
    (tmp_path / "results").mkdir()
    code, report, md, _ = outputs(tmp_path, [tmp_path / "results"])
    assert code == 2 and report["histories"] == [] and "nothing to check" in md


def test_a_history_whose_newest_runs_are_unreadable_is_not_checked(tmp_path):
    """Issue 47: the 5 newest runs of a history cut in half (steady/, runs 26-30) printed 5 errors, then 'passed',
    exit 0, and neither report named them. Now: exit 2, each file listed with its reason and line."""
    copy = tmp_path / "steady"
    shutil.copytree(HISTORY / "steady", copy)
    cut = [copy / f"run{n:02d}" / "fio.json" for n in range(26, 31)]
    for path in cut:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    code, report, md, stdout = outputs(tmp_path, [copy])
    assert code == 2 and report["status"] == "NOT CHECKED"
    not_read = {u["path"]: u for u in report["unread"] if u["outcome"] == "not read"}
    assert set(not_read) == {str(p.resolve()) for p in cut}
    assert all(u["reason"].startswith("cut short: the JSON document ends before it closes") and u["line"] > 1
               for u in not_read.values())
    assert "5 files could not be read" in report["not_checked"][0]
    (history,) = report["histories"]
    assert history["runs"] == 25 and history["searched"]  # the 25 runs read were still searched
    assert all(present.md_escape(p.resolve()) in md for p in cut)  # Markdown that shows the path as it is


def test_a_history_too_short_to_search_is_not_checked(tmp_path):
    """warmup/ holds one run of the job (data/examples/history/README.md): a search needs 6 (2 x MIN_UNITS)."""
    code, report, md, _ = outputs(tmp_path, [HISTORY / "warmup"])
    assert code == 2 and [h["searched"] for h in report["histories"]] == [False]
    assert "a search needs 6" in report["not_checked"][0]


def test_a_database_of_other_data_is_not_replaced(tmp_path):
    """Issue 47: a build's database of one data folder was pruned to another's ('gone 108')."""
    assert outputs(tmp_path, [HISTORY / "steady"])[0] == 0
    code, report, _, _ = outputs(tmp_path, [HISTORY / "change"])
    assert code == 2 and "holds the book of other data" in report["not_checked"][0]
    assert outputs(tmp_path, [HISTORY / "change"], "--replace")[0] == 1


def test_since_takes_a_run_number():
    assert gate_since("16") == 1 and gate_since("17") == 0  # the decided change is at run 16


def gate_since(run: str) -> int:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        return gate(Path(tmp), "change", "--since", run)[0]
