"""kill -9 at any moment of an ingest, then a normal ingest: the database equals a clean one, and no worker
process outlives the ingest that started it."""
import os
import signal
import subprocess
import sys
import time

from conftest import ARCHIVE, REPO, database_digest

SUBMISSIONS = sorted(ARCHIVE.glob("*/*/*/*/submission-*"))[::8]  # 30 of the archive's 238, deterministic


def ingest_command(db) -> list[str]:
    return [sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), *map(str, SUBMISSIONS)]


def test_kill_9_at_five_points_then_ingest_gives_the_clean_database(tmp_path):
    started = time.perf_counter()
    subprocess.run(ingest_command(tmp_path / "clean.duckdb"), cwd=REPO, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    clean = database_digest(tmp_path / "clean.duckdb")
    assert clean["raw_io500_phases"][0] > 0
    for point in (0.15, 0.35, 0.55, 0.75, 0.9):  # of a clean run's time: scanning, parsing, writing, deriving
        db = tmp_path / f"killed-{point}.duckdb"
        ingest = subprocess.Popen(ingest_command(db), cwd=REPO, start_new_session=True,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(seconds * point)
        os.kill(ingest.pid, signal.SIGKILL)  # the ingest only: its workers must follow by themselves
        ingest.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.killpg(ingest.pid, 0)  # any process left in the ingest's process group?
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.killpg(ingest.pid, signal.SIGKILL)
            raise AssertionError(f"worker processes outlived an ingest killed at {point:.0%}")
        subprocess.run(ingest_command(db), cwd=REPO, check=True, capture_output=True)
        assert database_digest(db) == clean, f"killed at {point:.0%} of a clean run"
