import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    """The shared folder (seeds, IO500 archive, built-tools runs): $IOBOOK_SHARED, else `shared/` beside this
    checkout (as CI has it), else beside the checkout this one was cloned from (`git clone . /tmp/x`)."""
    if os.environ.get("IOBOOK_SHARED"):
        return Path(os.environ["IOBOOK_SHARED"])
    beside = REPO.parent / "shared"
    origin = subprocess.run(["git", "-C", str(REPO), "remote", "get-url", "origin"],
                            capture_output=True, text=True).stdout.strip()
    if beside.is_dir() or not origin or not Path(origin).is_dir():
        return beside
    return Path(origin).resolve().parent / "shared"


SHARED = _shared()
ARCHIVE = SHARED / "io500-submissions"
BUILT_TOOLS = SHARED / "fixtures" / "built-tools"
TUCSON_SC23 = (ARCHIVE / "IBM Tucson" / "Arches Storage Scale System 3500" / "IBM Storage Scale" / "2023"
               / "submission-679")


@pytest.fixture
def tucson_results(tmp_path) -> Path:
    """A copy of IBM Tucson's SC23 results folder (seed 000's 136.4 run), safe to modify."""
    import shutil

    dest = tmp_path / "submission-679"
    shutil.copytree(TUCSON_SC23 / "results" / "2023.10.22-06.40.20", dest)
    return dest
