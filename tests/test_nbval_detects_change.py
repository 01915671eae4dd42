"""nbval guards the book: re-executing a chapter on a database where one value changed must fail.

Works on copies of the executed chapter and of the database `make book` built (make test builds them first).
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]


def run_nbval(tmp_path: Path, change_one_value: bool) -> subprocess.CompletedProcess:
    (tmp_path / "book").mkdir()
    (tmp_path / "data").mkdir()
    shutil.copy(REPO / "book" / "io500_score.ipynb", tmp_path / "book")
    db = tmp_path / "data" / "iobook.duckdb"  # the path the executed chapter's parameters cell names
    shutil.copy(REPO / "data" / "iobook.duckdb", db)
    if change_one_value:
        con = duckdb.connect(str(db))
        changed = con.execute(
            """UPDATE io500_run_phases SET value = value * 1.001
               WHERE phase = 'ior-easy-write' AND run_id = (
                   SELECT run_id FROM io500_runs WHERE submission = 679 ORDER BY run_id LIMIT 1)"""
        ).fetchone()[0]
        con.close()
        assert changed == 1
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval", "--nbval-sanitize-with",
         str(REPO / "tests" / "nbval-sanitize.cfg"), str(tmp_path / "book" / "io500_score.ipynb")],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
    )


def test_unchanged_database_passes(tmp_path):
    result = run_nbval(tmp_path, change_one_value=False)
    assert result.returncode == 0, result.stdout[-3000:]


def test_one_changed_value_fails(tmp_path):
    result = run_nbval(tmp_path, change_one_value=True)
    assert result.returncode == 1
    assert "failed" in result.stdout.splitlines()[-1]
    # what nbval expected: the executed chapter's glued finding on seed 000's SC23 table, whose count of cells
    # equal to the raw value rounded once changes with IBM Tucson's ior-easy-write value (106.612964)
    executed = json.loads((REPO / "book" / "io500_score.ipynb").read_text())
    findings = next("".join(o["data"]["application/papermill.record/text/markdown"])
                    for c in executed["cells"] for o in c.get("outputs", [])
                    if o.get("metadata", {}).get("scrapbook", {}).get("name") == "findings")
    sc23 = next(line for line in findings.splitlines() if "SC23 table" in line)
    assert sc23.split(" equal ")[0].removeprefix("- ") in result.stdout
