"""The IO500 list's published values beside each run's own (issue 46): iobook.database.io500_lists, on the archive's
real submission folders. Expected list values are the rows of ../shared/io500-lists/io500-site-lists.csv (the IO500
site's record; data/reference/io500_site_lists.csv is the same file); run values are the summaries' [SCORE] lines."""
from __future__ import annotations

import csv

import duckdb
import pytest
from conftest import ARCHIVE, SHARED

from iobook.database import io500_lists
from iobook.database.ingest import ingest


def submission(number: int):
    (folder,) = ARCHIVE.glob(f"*/*/*/*/submission-{number}")
    return folder


def site_row(number: int) -> dict:
    with (SHARED / "io500-lists" / "io500-site-lists.csv").open(encoding="utf-8") as f:
        return next(r for r in csv.DictReader(f) if r["id"] == str(number))


def list_columns(tmp_path, *numbers: int) -> dict[str, tuple]:
    """Each run's folder below its submission (or the submission) -> its list fields in the setups view."""
    db = tmp_path / "lists.duckdb"
    ingest([submission(n) for n in numbers], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT r.submission, i.path, s.list, s.list_score, s.list_bw_gib_s, s.list_md_kiops, s.list_check, "
            "s.list_check_detail, s.run_md_kiops, s.list_score_difference FROM setups s JOIN io500_runs r USING (run_id) "
            "JOIN io500_run_info i USING (run_id)").fetchall()
    out = {}
    for sub, path, *fields in rows:
        below = path.split(f"submission-{sub}", 1)[1].strip("/").split("/")[0]
        out[f"{sub}/{below}"] = tuple(fields)
    return out


def test_a_list_entry_is_attached_to_the_run_it_published_only(tmp_path):
    """DKRZ's submission-109 bundles other sites' runs and its own two lustre runs (dkrz-l1, dkrz-l2), which the
    archive holds again as submission-137 (lustre01) and submission-113 (lustre02). The site lists 113 at 29.33
    (20.35 GiB/s, 42.29 kIOPS: dkrz-l2's summary, 20.3492 and 42.2879) and 137 at 15.47 (dkrz-l1's); 109's own entry
    (32.15: 22.77 GiB/s, 45.39 kIOPS) is none of the nine runs in its folder. Before, every run of 109, 113 and 137
    carried 109's 32.15 (the values were joined by the runs' phase values, first listing first)."""
    found = list_columns(tmp_path, 109, 113, 137)
    assert site_row(113)["io500_score"] == "29.330000" and site_row(137)["io500_score"] == "15.470000"
    assert found["113/results"][1:5] == (29.33, 20.35, 42.29, "AGREES")
    assert found["137/results"][1:5] == (15.47, 12.68, 18.88, "AGREES")
    bundled = {key: fields for key, fields in found.items() if key.startswith("109/")}
    assert len(bundled) == 9 and {f[0] for f in bundled.values()} == {"ISC18"}  # the list it entered stays
    assert all(f[1] is None and f[4] == "NO_RUN_MATCHES" for f in bundled.values())
    assert bundled["109/dkrz-l2"][5].endswith("none of submission-109's 9 runs: list 22.77 GiB/s, 45.39 kIOPS")


def test_the_sc18_list_published_another_metadata_score(tmp_path):
    """ORNL's submission-92 (SC18): its summary prints 'Bandwidth 9.84383 GB/s : IOPS 506.93 kiops : TOTAL 70.6409';
    the site lists 9.84 GiB/s, 199.48 kIOPS, 44.30. Bandwidth agrees, metadata does not: MD_RESCORED, with both."""
    row = site_row(92)
    assert (row["list"], row["io500_bw"], row["io500_md"], row["io500_score"]) == ("SC18", "9.840000", "199.480000",
                                                                                    "44.300000")
    (fields,) = list_columns(tmp_path, 92).values()
    lst, score, bw, md, check, detail, run_md, difference = fields
    assert (lst, score, bw, md, check) == ("SC18", 44.30, 9.84, 199.48, "MD_RESCORED")
    assert run_md == pytest.approx(506.93)
    assert difference == pytest.approx(44.30 / 70.6409 - 1, rel=1e-4)
    assert detail.endswith("SC18: list 9.84 GiB/s, 199.48 kIOPS; run 9.84383 GiB/s, 506.93 kIOPS")


def test_a_copy_of_another_submissions_run(tmp_path):
    """CERN's submission-179 and submission-193 hold the same summary (6.00595: 2.85287 GiB/s, 12.6425 kIOPS); the
    site lists 193 at 6.01 (2.85, 12.64: this run) and 179 at 7.56 (2.83, 20.16). 193 AGREES; 179 is a COPY of 193's
    run, and says so. Before, 193 carried 179's 7.56 (its first listing)."""
    found = list_columns(tmp_path, 179, 193)
    assert found["193/results"][1:5] == (6.01, 2.85, 12.64, "AGREES")
    assert found["179/results"][1:5] == (7.56, 2.83, 20.16, "COPY")
    assert "its phase values are submission-193's run" in found["179/results"][5]


def test_agreement_is_within_the_lists_rounding():
    """The site prints 2 decimals: submission-149's summary bandwidth 2.09466 GiB/s is listed as 2.10 (site row 149),
    0.25 % apart; 2.11 is not the same value."""
    assert site_row(149)["io500_bw"] == "2.100000"
    assert io500_lists.agrees(2.09466, "2.100000") and not io500_lists.agrees(2.09466, "2.110000")
    assert io500_lists.agrees(1522.68, "1522.000000") and not io500_lists.agrees(1522.68, "1238.930000")
