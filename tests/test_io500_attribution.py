"""IO500 runs are attributed from their own files: a submission folder that bundles other sites' runs, runs copied
out of the archive layout, labels.yml; duplicate archive copies count once; implausible values are flagged."""
import shutil
from pathlib import Path

import pytest

from iobook import store
from iobook.ingest import ingest

RAW_IO500 = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
BUNDLE = RAW_IO500 / "DKRZ" / "Mistral" / "lustre02" / "2019" / "submission-109"
OCEANFS = RAW_IO500 / "JNIST and HUST PDSL" / "Cheeloo-1 with OceanStor Pacific" / "OceanFS2" / "2023"
AURORA = RAW_IO500 / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-695"
DKRZ_137 = RAW_IO500 / "DKRZ" / "Mistral" / "lustre01" / "2019" / "submission-137"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    db = tmp_path_factory.mktemp("attribution") / "io500.duckdb"
    ingest([BUNDLE, OCEANFS, DKRZ_137], db, progress=False)
    connection = store.open_read(db)
    yield connection
    connection.close()


def runs(con) -> dict[str, dict]:
    df = con.execute("SELECT * FROM io500_runs ORDER BY run_key").df().astype(object)
    df = df.where(df.notna(), None)
    return {r["run_key"]: r for r in df.to_dict("records")}


def test_bundled_runs_take_their_own_sites(con):
    found = runs(con)
    # submission-109/KAUST/results/io-500-summary.2018.06.21-18.59.50.txt lines 9, 12, 24:
    # io500_info_filesystem=DataWarp, io500_info_institute_name=KAUST, io500_info_system_name=ShaheenII
    kaust = found["submission-109/KAUST"]
    assert (kaust["institution"], kaust["system"], kaust["family"], kaust["year"]) == (
        "KAUST", "ShaheenII", "DataWarp", 2018)
    # .../JointInstituteforNuclearResearch/io500.sh lines 152-156: JINR, 'RSC Lustre-on-Demand ...', Lustre
    jinr = found["submission-109/JointInstituteforNuclearResearch"]
    assert (jinr["institution"], jinr["family"]) == ("JINR", "Lustre")
    # dkrz-l1/results/io-500-summary.2018.05.12-13.55.14.txt line 8: io500_info_institute_name=DKRZ
    assert found["submission-109/dkrz-l1"]["institution"] == "DKRZ"
    assert found["submission-109/dkrz-l1"]["family"] == "Lustre"


def test_bundled_runs_that_state_no_site_are_unknown(con):
    found = runs(con)
    # JCAHPC's summary has no io500_info line; STFC's print io500_info_institute_name=xxx (line 12);
    # sonasad (IBM, runs find via bin/mmfind.sh) and JCAHPC-17 (startup-ime.sh) declare nothing either
    for key in ("submission-109/JCAHPC", "submission-109/JCAHPC-17", "submission-109/STFC",
                "submission-109/STFC-64", "submission-109/sonasad"):
        assert found[key]["attributed_by"] == "attribution unknown", key
        assert found[key]["family"] == "unknown" and found[key]["institution"] is None, key
    assert "IME" in found["submission-109/JCAHPC-17"]["family_reason"]
    assert "mmfind.sh" in found["submission-109/sonasad"]["family_reason"]


def test_a_copy_in_two_submissions_counts_once(con):
    found = runs(con)
    # submission-109/dkrz-l1 (filed under lustre02) and lustre01/2019/submission-137 hold the same run (every
    # phase value equal): the later submission's copy is the one counted
    assert found["submission-137"]["fingerprint"] == found["submission-109/dkrz-l1"]["fingerprint"]
    assert found["submission-137"]["counted"] and not found["submission-109/dkrz-l1"]["counted"]


def test_find_faster_than_a_clock_cycle_is_flagged(con):
    found = runs(con)
    # submission-663/results/2023.05.15-14.49.39/result.txt lines 50-55: find nproc = 1,
    # total-files = 2755200009601, t_delta = 3.1512, score = 874410449.773869 kIOPS
    flagged = found["submission-663"]["implausible"]
    assert flagged.startswith("find: 8.74e+11 items/s on 1 process")
    phase = con.execute("SELECT p.procs, p.time_s FROM io500_phases p JOIN io500_runs r USING (run_id) "
                        "WHERE r.run_key = 'submission-663' AND p.phase = 'find'").fetchone()
    assert phase == (1, 3.1512)
    assert found["submission-137"]["implausible"] is None


def test_runs_out_of_the_layout_take_family_from_their_files_and_labels(tmp_path):
    # a user's own copy: Aurora's run folder (config.ini line 19: API = DFS --dfs.pool=mypool ...) and
    # KAUST's run, neither under <institution>/<system>/<file system>/<year>/submission-<id>
    shutil.copytree(AURORA / "results", tmp_path / "mine" / "aurora" / "results")
    shutil.copytree(BUNDLE / "KAUST", tmp_path / "mine" / "kaust")
    (tmp_path / "mine" / "labels.yml").write_text(
        'aurora:\n  label: Aurora\n  institution: Argonne National Laboratory\n  system: Aurora\n')
    db = tmp_path / "mine.duckdb"
    ingest([tmp_path / "mine"], db, progress=False)
    with store.open_read(db) as c:
        found = runs(c)
    assert set(found) == {"aurora 2023-11-06 19:51", "kaust 2018-06-21 18:59"}
    aurora = found["aurora 2023-11-06 19:51"]
    assert (aurora["institution"], aurora["system"], aurora["family"]) == (
        "Argonne National Laboratory", "Aurora", "DAOS")
    assert aurora["family_reason"].startswith("DFS API")
    assert aurora["attributed_by"] == "labels.yml: aurora"
    kaust = found["kaust 2018-06-21 18:59"]
    assert (kaust["institution"], kaust["system"], kaust["family"], kaust["year"]) == (
        "KAUST", "ShaheenII", "DataWarp", 2018)
