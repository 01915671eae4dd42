"""data/reference/filesystems.csv covers every file-system name of the IO500 archive layout."""
import csv
from pathlib import Path

import pytest

from iobook import families

REPO = Path(__file__).resolve().parents[1]
ARCHIVE = REPO.parent / "shared" / "io500-submissions"
RAW_IO500 = REPO / "data" / "raw" / "io500"


def layout_filesystems(root: Path) -> set[str]:
    """File-system names of <root>/<institution>/<system>/<file system>/<year>/submission-<id>.

    Everything between the system and the year folder is the name, so a '/' inside a name survives."""
    return {"/".join(sub.relative_to(root).parts[2:-2]) for sub in root.glob("*/*/**/submission-*") if sub.is_dir()}


def test_archive_layout_has_the_known_names():
    names = layout_filesystems(ARCHIVE)
    assert len(names) == 104
    assert {"Tianhe-FS", "GekkoFS", "IBM Storage Scale", "unamed at this point", "Garden Linux, Ceph"} <= names


@pytest.mark.parametrize("root", [ARCHIVE, RAW_IO500], ids=["shared-archive", "data-raw-io500"])
def test_every_layout_name_is_covered(root):
    names = layout_filesystems(root)
    assert names, f"no submissions found under {root}"
    assert families.uncovered(names) == []


def test_a_new_name_is_reported_uncovered():
    assert families.uncovered(["Lustre", "BrandNewFS", "BrandNewFS"]) == ["BrandNewFS"]
    with pytest.raises(KeyError, match="BrandNewFS"):
        families.family("BrandNewFS")


@pytest.mark.parametrize(("name", "family"), [
    ("Tianhe-FS", "Lustre"),
    ("EXAScaler", "Lustre"),
    ("Exascaler 5.0 PRE - Lustre 2.11-56", "Lustre"),
    ("DAOS", "DAOS"),
    ("mustang", "DAOS"),
    ("IBM Storage Scale", "Storage Scale/GPFS"),
    ("Alpine", "Storage Scale/GPFS"),
    ("GekkoFS", "GekkoFS"),
    ("wekafs", "WekaFS"),
    ("Matrix", "WekaFS"),
    ("Vast", "VAST"),
    ("Jim", "CephFS"),
    ("scratch1", "OrangeFS"),
    ("scratch4", "BeeGFS"),
    ("Burst Buffer", "IME"),
    ("scratch", "mixed"),
    ("SuperFS", "unknown"),
])
def test_known_families(name, family):
    assert families.family(name) == family


def test_csv_rows_are_complete_and_unique():
    with families.FILESYSTEMS_CSV.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["filesystem"] for r in rows] == sorted({r["filesystem"] for r in rows})
    assert all(r["family"] and r["reason"] for r in rows)
