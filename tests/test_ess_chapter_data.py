"""The ESS bandwidth chapter's anchor: seed 000's SC23 IO500 totals, recomputed from IBM's raw logs
in data/raw/io500 (ingested into a scratch database), rounded as the slide prints them."""
from pathlib import Path

import pytest
from conftest import SHARED

from iobook.database import published, store
from iobook.database.ingest import ingest
from iobook.studies import ess_bandwidth as ess

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

IO500 = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
SC23 = {  # seed 000's column label -> the submission folder of that run
    "IBM Tucson": IO500 / "IBM Tucson/Arches Storage Scale System 3500/IBM Storage Scale/2023/submission-679",
    "IBM Ehningen": IO500 / "IBM Ehningen System/DACH Storage Scale System 3500/IBM Storage Scale/2023/submission-690",
    "IBM Cloud HPC": IO500 / "IBM Cloud HPC/BlueStorm/IBM Storage Scale/2023/submission-687",
}


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("ess") / "ess.duckdb"
    ingest(list(SC23.values()), db, progress=False)
    return store.open_read(db)


def recomputed(con, label: str, column: str) -> float:
    """bw_gib_s, md_kiops or score of the one run in that submission."""
    row = con.execute(
        "SELECT s.bw_gib_s, s.md_kiops, s.score FROM io500_runs r JOIN io500_scores s USING (run_id) "
        "WHERE r.submission = ?", [int(SC23[label].name.removeprefix("submission-"))]).fetchone()
    return dict(zip(("bw_gib_s", "md_kiops", "score"), row))[column]


def test_sc23_totals_from_raw_logs(con):
    assert {label: round(recomputed(con, label, "score"), 1) for label in SC23} == {
        "IBM Tucson": 136.4, "IBM Ehningen": 166.3, "IBM Cloud HPC": 618.9}


def test_sc23_bandwidth_and_metadata_scores_from_raw_logs(con):
    assert {label: (round(recomputed(con, label, "bw_gib_s"), 1), round(recomputed(con, label, "md_kiops"), 1))
            for label in SC23} == {
        "IBM Tucson": (74.2, 250.6), "IBM Ehningen": (87.1, 317.2), "IBM Cloud HPC": (441.0, 868.6)}


def test_totals_are_the_published_cells(con):
    pub = published.load("seed000_sc23_io500")
    printed = pub[pub.row == "TOTAL Score"].set_index("column")["value"].to_dict()
    assert printed == {label: round(recomputed(con, label, "score"), 1) for label in SC23}


def test_building_blocks_from_listings_match_the_talk(con):
    """Seed 000's SC23 table labels the runs "ESS3500 2BBs" (IBM Tucson) and "ESS3500 3BBs" (IBM Ehningen);
    the runs' own listings give the same counts: Ehningen's from the file system's disks (mmlsfs, three
    recovery groups), Tucson's, which saved no mmlsfs, from the canister pairs of its mmlscluster."""
    import re

    seed = (SHARED / "seeds" / "000_e82b5fd1ddcfd1a1.txt").read_text(encoding="utf-8")
    header = next(line for line in seed.splitlines() if line.startswith("Benchmark Storage Scale 5.1.9.0\tIBM Tucson"))
    talk = {label: int(re.search(r"ESS3500 (\d+)BBs", cell)[1])
            for label, cell in zip(["IBM Tucson", "IBM Ehningen"], header.split("\t")[1:3])}
    runs = ess.get_runs(con)
    blocks = ess.get_building_blocks(con, runs, ess.get_ior_phases(con, runs.run_id)).merge(
        runs[["run_id", "submission"]])
    derived = {label: int(blocks[blocks.submission == int(SC23[label].name.removeprefix("submission-"))]
                          .building_blocks.iloc[0]) for label in talk}
    assert talk == derived == {"IBM Tucson": 2, "IBM Ehningen": 3}
    basis = {label: blocks[blocks.submission == int(SC23[label].name.removeprefix("submission-"))].basis.iloc[0]
             for label in talk}
    assert basis == {"IBM Tucson": "cluster listing", "IBM Ehningen": "file system disks"}
