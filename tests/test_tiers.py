"""The suite's tiers run as declared with or without pytest-xdist (issue 37: `pytest -p no:xdist` stopped at
collection, on the xdist hook conftest defines)."""
import subprocess
import sys

from conftest import REPO


def test_the_suite_collects_without_xdist():
    collected = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
                                "--collect-only", "-q", "-m", "not slow", "tests/test_stats.py"],
                               cwd=REPO, capture_output=True, text=True)
    assert collected.returncode == 0, collected.stdout[-2000:] + collected.stderr[-2000:]
    assert "INTERNALERROR" not in collected.stdout and " collected" in collected.stdout
