"""The raw logs behind the DAOS-versus-Lustre chapter reproduce seed 002's Tianhe-2E SC19 numbers, and the
chapter's runs get their families from data/reference/filesystems.csv."""
from pathlib import Path

import pytest

from iobook.database import families, published, store
from iobook.database.ingest import ingest

RAW_IO500 = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
TIANHE = RAW_IO500 / "National Supercomputing Center in Changsha" / "Tianhe-2E"
NEXTGENIO = RAW_IO500 / "EPCC" / "NextGENIO" / "GekkoFS"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("daos_lustre") / "io500.duckdb"
    ingest([TIANHE, NEXTGENIO], db, progress=False)
    connection = store.open_read(db)
    yield connection
    connection.close()


def scores_by_submission(con, system: str) -> dict[int, tuple[float, float, float]]:
    rows = con.execute(
        "SELECT r.submission, s.score, s.bw_gib_s, s.md_kiops FROM io500_runs r JOIN io500_scores s USING (run_id) "
        "WHERE r.system = ? ORDER BY r.submission",
        [system],
    ).fetchall()
    return {sub: (score, bw, md) for sub, score, bw, md in rows}


@pytest.mark.slow
def test_tianhe_sc19_run_reproduces_seed_002(con):
    runs = scores_by_submission(con, "Tianhe-2E")
    assert sorted(runs) == [15, 87, 88]
    score, bw, md = runs[15]  # .../Tianhe-FS/2019/submission-15/results/result_summary.txt
    # Seed 002, slide "SC 2019": score 453.68, bw 209.43 GiB/s, md 982.78 kIOPS (two decimals printed).
    assert (round(score, 2), round(bw, 2), round(md, 2)) == (453.68, 209.43, 982.78)
    # The other two Tianhe-2E submissions of 2019 are different, smaller runs.
    assert round(runs[87][0], 3) == 52.584
    assert round(runs[88][0], 3) == 50.076


@pytest.mark.slow
def test_tianhe_phase_table_equals_the_raw_log(con):
    slide_phase = {"ior_easy_w": "ior-easy-write", "ior_easy_r": "ior-easy-read", "ior_hard_w": "ior-hard-write",
                   "ior_hard_r": "ior-hard-read", "md_easy_w": "mdtest-easy-write", "md_easy_stat": "mdtest-easy-stat",
                   "md_easy_del": "mdtest-easy-delete", "md_hard_w": "mdtest-hard-write",
                   "md_hard_r": "mdtest-hard-read", "md_hard_stat": "mdtest-hard-stat",
                   "md_hard_del": "mdtest-hard-delete", "find_hard": "find"}
    raw = dict(con.execute(
        "SELECT p.phase, p.value FROM io500_phases p JOIN io500_runs r USING (run_id) "
        "WHERE r.system = ? AND r.submission = ? ORDER BY p.phase",
        ["Tianhe-2E", 15],
    ).fetchall())
    assert raw["ior-easy-write"] == 608.644
    assert raw["mdtest-hard-delete"] == 203.501
    slide = published.load("seed002_phase_tables")
    slide = slide[slide.table == "tianhe2e"]
    assert len(slide) == 12
    for row in slide.itertuples():
        decimals = len(row.printed.split(".")[1]) if "." in row.printed else 0
        assert round(raw[slide_phase[row.column]], decimals) == row.value, row.column


@pytest.mark.slow
def test_seed_004_gekkofs_run_is_not_in_the_archive(con):
    runs = scores_by_submission(con, "NextGENIO")
    assert {sub: round(v[0], 3) for sub, v in runs.items()} == {
        31: 152.299, 32: 149.915, 39: 125.076, 455: 239.373, 456: 184.986}
    total = published.load("seed004_gekkofs_io500").query("row == 'SCORE' and column == 'TOTAL'")["value"].item()
    assert total == 110.812
    assert all(round(v[0], 3) != total for v in runs.values())


# The runs the chapter names: (file system, institution, system, year) -> family.
@pytest.mark.parametrize(("filesystem", "institution", "system", "year", "family"), [
    ("Tianhe-FS", "National Supercomputing Center in Changsha", "Tianhe-2E", 2019, "Lustre"),
    ("DAOS", "Intel", "Wolf", 2019, "DAOS"),
    ("DAOS", "Intel", "Wolf", 2020, "DAOS"),
    ("DAOS", "TACC", "Frontera", 2020, "DAOS"),
    ("DAOS", "Argonne National Laboratory", "Aurora", 2023, "DAOS"),
    ("WekaIO", "WekaIO", "WekaIO on AWS", 2019, "WekaFS"),
    ("Exascaler", "NVIDIA", "DGX-2H SuperPOD", 2019, "Lustre"),
    ("dac", "University of Cambridge", "Data Accelerator", 2019, "Lustre"),
    ("GekkoFS", "EPCC", "NextGENIO", 2019, "GekkoFS"),
    ("GekkoFS", "EPCC", "NextGENIO", 2020, "GekkoFS"),
])
def test_family_of_the_chapters_runs(filesystem, institution, system, year, family):
    assert families.family(filesystem, institution, system, year) == family


@pytest.mark.slow
def test_families_resolve_the_ingested_runs(con):
    runs = con.execute(
        "SELECT run_id, filesystem, institution, system, year FROM io500_runs ORDER BY run_id").df()
    resolved = families.resolve(runs)
    assert sorted(set(zip(resolved.system, resolved.family))) == [("NextGENIO", "GekkoFS"), ("Tianhe-2E", "Lustre")]
