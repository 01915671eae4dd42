"""kill -9 at any moment of an ingest, then a normal ingest: the database equals a clean one, every table
included, and no worker process outlives the ingest that started it."""
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from conftest import ARCHIVE, REPO, database_digest

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

SUBMISSIONS = sorted(ARCHIVE.glob("*/*/*/*/submission-*"))[::16]  # 15 of the archive's 238, deterministic
AHEAD_NS = 1_500_000_000  # two files' mtime this far ahead of the clock: written as the ingest reads them


def ingest_command(db, tree) -> list[str]:
    return [sys.executable, "-m", "iobook", "ingest", "--quiet", "--db", str(db), str(tree)]


def file_stats(db) -> list:
    """file_stats by path (database_digest leaves it out: a load from Parquet has none)."""
    from iobook.database import store

    with store.open_read(db) as con:
        return con.execute("SELECT s.path, f.* EXCLUDE (source_id) FROM file_stats f JOIN sources s "
                           "USING (source_id) ORDER BY s.path").fetchall()


def test_kill_9_at_five_points_then_ingest_gives_the_clean_database(tmp_path):
    tree = tmp_path / "tree"  # a copy: its files were just written, as a collector's are
    for submission in SUBMISSIONS:
        shutil.copytree(submission, tree / submission.relative_to(ARCHIVE), copy_function=shutil.copyfile)
    first = sorted(p for p in tree.rglob("*") if p.is_file())[:2]  # among the first files parsed
    for path in first:
        os.utime(path, ns=(time.time_ns() + AHEAD_NS,) * 2)
    started = time.perf_counter()
    subprocess.run(ingest_command(tmp_path / "clean.duckdb", tree), cwd=REPO, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    clean, clean_stats = database_digest(tmp_path / "clean.duckdb"), file_stats(tmp_path / "clean.duckdb")
    assert clean["raw_io500_phases"][0] > 0
    # every file's stat, those read just after they were written included (before: the next ingest added them)
    assert len(clean_stats) == sum(1 for p in tree.rglob("*") if p.is_file())
    assert {row[0] for row in clean_stats} >= set(map(str, first))
    for point in (0.15, 0.35, 0.55, 0.75, 0.9):  # of a clean run's time: scanning, parsing, writing, deriving
        db = tmp_path / f"killed-{point}.duckdb"
        ingest = subprocess.Popen(ingest_command(db, tree), cwd=REPO, start_new_session=True,
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
        subprocess.run(ingest_command(db, tree), cwd=REPO, check=True, capture_output=True)
        assert database_digest(db) == clean, f"killed at {point:.0%} of a clean run"
        assert file_stats(db) == clean_stats, f"killed at {point:.0%} of a clean run"


def test_a_fio_log_stopped_while_streamed_is_read_whole_by_the_next_ingest(tmp_path, monkeypatch):
    """A large fio log goes into the store a piece a transaction: ingest stopped after two pieces (as a kill
    leaves it) leaves them and a sources row saying so, and the next ingest gives a clean ingest's database."""
    import pytest

    from iobook.database import parsing, store, writing
    from iobook.database.ingest import ingest

    folder = tmp_path / "logs"
    folder.mkdir()
    pagecache = REPO / "data" / "raw" / "pagecache" / "vm-20261121T132329Z"
    for log in sorted(pagecache.glob("*_bw.1.log"))[:3]:
        shutil.copyfile(log, folder / log.name)
    monkeypatch.setattr(parsing, "STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(writing, "STREAM_PIECE_BYTES", 1024)
    ingest([folder], tmp_path / "clean.duckdb", progress=False)
    real, pieces = store.insert_rows, []

    def stop_after_two(*args):
        if len(pieces) == 2:
            raise KeyboardInterrupt
        pieces.append(real(*args))

    monkeypatch.setattr(store, "insert_rows", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        ingest([folder], tmp_path / "stopped.duckdb", progress=False)
    con = store.open_read(tmp_path / "stopped.duckdb")
    assert con.execute("SELECT count(*) FROM raw_fio_series").fetchone()[0] > 0  # the pieces in
    assert con.execute("SELECT status, sha256, error FROM sources").fetchone() == (
        "error", "", "ingest stopped while streaming this file: the next ingest reads it again")
    con.close()
    monkeypatch.setattr(store, "insert_rows", real)
    ingest([folder], tmp_path / "stopped.duckdb", progress=False)
    assert database_digest(tmp_path / "stopped.duckdb") == database_digest(tmp_path / "clean.duckdb")
    assert file_stats(tmp_path / "stopped.duckdb") == file_stats(tmp_path / "clean.duckdb")
