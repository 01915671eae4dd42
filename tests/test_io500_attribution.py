"""IO500 runs are attributed from their own files: a submission folder that bundles other sites' runs, runs copied
out of the archive layout, labels.yml; duplicate archive copies count once; implausible values are flagged."""
import shutil
from pathlib import Path

import pytest

from iobook.database import store
from iobook.database.ingest import ingest

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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_copy_in_two_submissions_counts_once(con):
    found = runs(con)
    # submission-109/dkrz-l1 (filed under lustre02) and lustre01/2019/submission-137 hold the same run (every
    # phase value equal): the later submission's copy is the one counted
    assert found["submission-137"]["fingerprint"] == found["submission-109/dkrz-l1"]["fingerprint"]
    assert found["submission-137"]["counted"] and not found["submission-109/dkrz-l1"]["counted"]


@pytest.mark.slow
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


@pytest.mark.slow
def test_runs_out_of_the_layout_take_family_from_the_archive_listing_their_files_and_labels(tmp_path):
    # a user's own copy: Aurora's run folder (config.ini line 19: API = DFS --dfs.pool=mypool ...) and
    # KAUST's run, neither under <institution>/<system>/<file system>/<year>/submission-<id>. Aurora's phase values
    # are those of the archive's submission-688 (data/reference/io500_archive_runs.csv), whose folder names DAOS;
    # KAUST's run, one of submission-109's bundle, is in no listing: its own files say
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
    assert aurora["family_reason"].startswith("name; config.ini: API = DFS")  # filesystems.csv's row for DAOS
    assert aurora["attributed_by"] == "labels.yml: aurora"
    kaust = found["kaust 2018-06-21 18:59"]
    assert (kaust["institution"], kaust["system"], kaust["family"], kaust["year"]) == (
        "KAUST", "ShaheenII", "DataWarp", 2018)


# Runs the two family chapters show, copied out of the archive layout: DAOS (Intel Wolf 2019, Aurora 2023),
# Lustre (Tianhe-2E SC19, DKRZ), Storage Scale (IBM's ESS 3200, 3500, SS6000 runs)
COPIED = {
    "Intel/Wolf/DAOS/2019/submission-4": "wolf-isc19",
    "Argonne National Laboratory/Aurora/DAOS/2023/submission-695": "aurora-sc23",
    "National Supercomputing Center in Changsha/Tianhe-2E/Tianhe-FS/2019/submission-15": "tianhe",
    "DKRZ/Mistral/lustre02/2019/submission-113": "mistral",
    "IBM Tucson/Arches Storage Scale System 3500/IBM Storage Scale/2023/submission-679": "arches",
    "IBM Ehningen System/DACH Storage Scale System 3500/IBM Storage Scale/2023/submission-690": "dach",
    "IBM Tucson/Saguaro Storage Scale System 6000/IBM Storage Scale 5.2.2-0 (early pre-GA build) with ESS 6.2.1-0"
    "/2024/submission-722": "saguaro",
}


def listed(db: Path) -> tuple[set, set]:
    """What the DAOS vs Lustre chapter compares (its valid runs of both families) and the Storage Scale chapter
    selects, each run as (fingerprint, family, institution, system): the same run under any name."""
    from iobook.studies import daos_vs_lustre, ess_bandwidth

    with store.open_read(db) as c:
        chosen = daos_vs_lustre.choose(daos_vs_lustre.get_runs(c), ["DAOS", "Lustre"], [])
        fingerprints = dict(c.execute("SELECT run_id, fingerprint FROM io500_runs").fetchall())
        scale = ess_bandwidth.selected_runs(ess_bandwidth.get_runs(c))

    def key(df):
        return {(fingerprints[r.run_id], r.family, r.institution, r.system) for r in df.itertuples()}
    return key(chosen), key(scale)


@pytest.mark.slow
def test_runs_copied_out_of_the_layout_are_listed_as_inside_it(tmp_path):
    labels = []
    for folder, name in COPIED.items():
        shutil.copytree(RAW_IO500 / folder, tmp_path / "copy" / name)
        institution, system = folder.split("/")[:2]
        # a user states who ran it and on what system; the family is left to the run's own files
        labels.append(f'{name}:\n  institution: "{institution}"\n  system: "{system}"\n')
    (tmp_path / "copy" / "labels.yml").write_text("".join(labels))
    inside, outside = tmp_path / "archive.duckdb", tmp_path / "copy.duckdb"
    ingest([RAW_IO500 / folder for folder in COPIED], inside, progress=False)
    ingest([tmp_path / "copy"], outside, progress=False)
    families_in, scale_in = listed(inside)
    families_out, scale_out = listed(outside)
    assert families_out == families_in
    assert scale_out == scale_in
    assert {f for _, f, _, _ in families_in} == {"DAOS", "Lustre"}
    assert len(families_in) == 4 and len(scale_in) == 3


def test_one_labels_reader_for_labels_and_fields(tmp_path):
    from iobook.database import labels

    (tmp_path / "labels.csv").write_text("pattern,label,system,family\nrack-a/*,A,Cluster A,Lustre\nrack-b,B,,\n,x,,\n")
    (tmp_path / "labels.yml").write_text('old: before\n"new/*":\n  system: Aurora\n  family: DAOS\n  colour: red\n')
    csv_rules, csv_notes = labels.read_rules(str(tmp_path / "labels.csv"))
    assert csv_rules == [("rack-a/*", {"label": "A", "system": "Cluster A", "family": "Lustre"}),
                         ("rack-b", {"label": "B"})]
    assert csv_notes == ["1 row(s) without a pattern and a label, skipped"]
    yml_rules, yml_notes = labels.read_rules(str(tmp_path / "labels.yml"))
    # a label alone, or the fields a run's attribution takes (unknown keys such as colour dropped)
    assert yml_rules == [("old", {"label": "before"}), ("new/*", {"system": "Aurora", "family": "DAOS"})]
    rules = {str(tmp_path / "labels.yml"): yml_rules}
    from pathlib import PurePosixPath
    assert labels.first_match(rules, PurePosixPath(tmp_path / "new" / "run1" / "result.txt")) == (
        str(tmp_path / "labels.yml"), 1)
    assert labels.first_match(rules, PurePosixPath(tmp_path / "other" / "result.txt")) is None
