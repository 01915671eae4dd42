from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
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
