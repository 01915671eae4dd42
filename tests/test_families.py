"""data/reference/filesystems.csv covers every file-system name of the IO500 archive layout."""
import csv
from pathlib import Path

import pandas as pd
import pytest
from conftest import ARCHIVE, REPO

from iobook.database import families

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
    with families.FILESYSTEMS_CSV.open(newline="", encoding="utf-8") as f:
        mapped = {row["filesystem"] for row in csv.DictReader(f)}
    assert sorted(names - mapped) == []


def test_a_new_name_is_an_error_that_names_it():
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


# Names shared by systems of different families: the institution/system/year rows decide per run.
@pytest.mark.parametrize(("name", "institution", "system", "year", "family"), [
    ("scratch", "LNCC", "SDumont", 2020, "Lustre"),
    ("scratch", "Queen Mary University Of London", "Apocrita", 2019, "Storage Scale/GPFS"),
    ("scratch", "National Center for Supercomputing Applications", "NCSA Industry System", 2020, "unknown"),
    ("scratch", "Some New Site", "Some System", 2024, "mixed"),
    ("scratch2", "CSIRO", "bracewell", 2019, "BeeGFS"),
    ("scratch2", "CSIRO", "bracewell", 2020, "Lustre"),
    ("scratch2", "CSIRO", "bracewell", 2021, "mixed"),
    ("scratch2", "CSIRO", "bracewell scratch2", 2019, "BeeGFS"),
    ("work", "JCAHPC", "Oakforest-PACS", 2019, "Lustre"),
    ("work", "CNES", "HAL", 2019, "Storage Scale/GPFS"),
    ("Tianhe-FS", "National Supercomputing Center in Changsha", "Tianhe-2E", 2019, "Lustre"),
])
def test_overrides_for_shared_names(name, institution, system, year, family):
    assert families.family(name, institution, system, year) == family


def test_resolve_runs_of_the_raw_layout():
    runs = pd.DataFrame({
        "run_id": [1, 2, 3, 4],
        "filesystem": ["work", "DAOS", "BrandNewFS", None],
        "institution": ["CNES", "Intel", "X", None],
        "system": ["HAL", "Wolf", "Y", None],
        "year": [2019, 2020, 2024, None],
    })
    resolved = families.resolve(runs)
    assert resolved["family"].tolist() == ["Storage Scale/GPFS", "DAOS", "unknown", "unknown"]
    assert resolved["family_reason"].iloc[2] == "name not in data/reference/filesystems.csv"


def test_csv_rows_are_complete_unique_and_nested():
    with families.FILESYSTEMS_CSV.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    keys = [tuple(r[c] for c in ("filesystem", *families.QUALIFIERS)) for r in rows]
    assert keys == sorted(set(keys))
    assert all(r["family"] and r["reason"] for r in rows)
    # A year only with a system, a system only with an institution: the most specific match is unique.
    assert all(not r["year"] or r["system"] for r in rows)
    assert all(not r["system"] or r["institution"] for r in rows)
    # Every qualified row has its name-only row to fall back on.
    assert {r["filesystem"] for r in rows if r["institution"]} <= {r["filesystem"] for r in rows if not r["institution"]}
