"""Every IO500 run's setup read from its own files (iobook.database.setups), on real submissions of the shared archive.
Expected values: the files named in each test (config.ini's and the phase logs' oclass, system-information.txt,
IBM's find_script/*.sh), seed 000 line 277 for Storage Scale releases, issue 35 for the counts."""
import csv
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from conftest import ARCHIVE, PUBLISHED_DB

from iobook.database import io500_lists, machines, networks, setups, store
from iobook.database.ingest import ingest
from iobook.parsers import ParseError, io500_system


def submission(number: int) -> Path:
    (folder,) = ARCHIVE.glob(f"*/*/*/*/submission-{number}")
    return folder


def setups_of(tmp_path: Path, *paths: Path) -> duckdb.DuckDBPyConnection:
    db = tmp_path / "setups.duckdb"
    ingest(list(paths), db, progress=False)
    return store.open_read(db)


def by_submission(con, column: str) -> dict:
    return dict(con.execute(f"SELECT r.submission, s.{column} FROM setups s JOIN io500_runs r USING (run_id) "
                            "WHERE r.counted ORDER BY 1").fetchall())


# Every DAOS run of the archive that names its object classes (config.ini, --dfs.oclass in the phase logs)
DAOS_SUBMISSIONS = [1, 2, 4, 6, 7, 8, 11, 12, 13, 14, 16, 17, 453, 546, 554, 581, 584, 664, 667, 668, 669, 671, 683,
                    684, 688, 694, 695, 696, 703, 732]
PROTECTED = {668, 669, 683, 688, 694, 703}  # LRZ's -EC runs, Aurora 688/694, Lise 703: RP_2G*, EC_*P1*


def test_one_machine_whether_or_not_a_run_states_its_installation():
    # DDN's AI400X (2020): two runs state storage_install_date 2020-06-30, two do not; LRZ-like labels joined by
    # their installation; Tucson's Arches under two spellings joined by the nodes their mmlscluster lists
    labelled = {1: ("DDN", "AI400X", "Exascaler", "Lustre"), 2: ("DDN", "AI400X", "Exascaler", "Lustre"),
                3: ("LRZ", "A", "DAOS", "DAOS"), 4: ("LRZ", "A-EC", "DAOS", "DAOS"), 5: ("LRZ", "B", "DAOS", "DAOS"),
                6: ("IBM Tuscon", "Arches 2", "Scale 5.1.7.1", "Storage Scale/GPFS"),
                7: ("IBM Tucson", "Arches", "Scale", "Storage Scale/GPFS"), 8: ("X", "Y", "unknown fs", "unknown"),
                9: ("X", "Y", "other fs", "unknown")}
    installed = {1: ("DDN", "2020-06-30", "Lustre"), 3: ("LRZ", "2022-03-25", "DAOS"), 4: ("LRZ", "2022-03-25", "DAOS")}
    nodes = {6: frozenset({"arches1ib", "arches2ib", "ems"}), 7: frozenset({"arches1ib", "arches2ib", "client9"})}
    found = {run: name for run, (name, _) in machines.machines(labelled, installed, nodes).items()}
    assert found == {1: "DDN, AI400X, Exascaler", 2: "DDN, AI400X, Exascaler", 3: "LRZ: A (DAOS) / A-EC (DAOS)",
                     4: "LRZ: A (DAOS) / A-EC (DAOS)", 5: "LRZ, B, DAOS",
                     6: "IBM Tucson: Arches (Scale); IBM Tuscon: Arches 2 (Scale 5.1.7.1)",
                     7: "IBM Tucson: Arches (Scale); IBM Tuscon: Arches 2 (Scale 5.1.7.1)",
                     8: "X, Y, unknown fs", 9: "X, Y, other fs"}  # a family nothing states joins nothing


def test_daos_protection_is_read_from_each_runs_files(tmp_path):
    con = setups_of(tmp_path, *map(submission, DAOS_SUBMISSIONS))
    protection = by_submission(con, "protection")
    assert len(protection) == 30
    assert {s for s, p in protection.items() if p != "none"} == PROTECTED  # the 24/6 split of issue 35
    assert protection[688] == "2-way replication, erasure code 16+1"
    assert protection[703] == "2-way replication, erasure code 8+1"  # Lise: EC_8P1GX
    assert by_submission(con, "object_classes")[671] == "S1, SX"
    # every 2019-2021 DAOS run keeps one copy of its data
    years = dict(con.execute("SELECT submission, year FROM io500_runs WHERE counted").fetchall())
    assert all(protection[s] == "none" for s, y in years.items() if y <= 2021)
    unprotected = {s for (s,) in con.execute("SELECT r.submission FROM io500_run_flags f JOIN io500_runs r USING (run_id) "
                                             "WHERE f.code = 'UNPROTECTED'").fetchall()}
    assert unprotected == set(DAOS_SUBMISSIONS) - PROTECTED


def test_lrz_four_labels_are_one_machine(tmp_path):
    con = setups_of(tmp_path, ARCHIVE / "LRZ")
    machines = con.execute("SELECT DISTINCT system, machine FROM setups ORDER BY 1").fetchall()
    # SuperMUC-NG-Phase2, -EC, -10 and -EC-10: one DAOS installation (system-information.txt of each:
    # io500_info_storage_install_date="2022-03-25", institution LRZ)
    assert [s for s, _ in machines] == ["SuperMUC-NG-Phase2", "SuperMUC-NG-Phase2-10", "SuperMUC-NG-Phase2-EC",
                                        "SuperMUC-NG-Phase2-EC-10"]
    assert {m for _, m in machines} == {"LRZ: SuperMUC-NG-Phase2 (DAOS) / SuperMUC-NG-Phase2-10 (DAOS) / "
                                        "SuperMUC-NG-Phase2-EC (DAOS) / SuperMUC-NG-Phase2-EC-10 (DAOS)"}
    (source,) = {s for (s,) in con.execute("SELECT source FROM io500_run_setup WHERE field = 'machine'").fetchall()}
    assert source.startswith("one machine under 4 labels: same institution, storage install date")
    assert by_submission(con, "client_nodes") == {668: 24, 669: 10, 671: 10, 683: 90, 684: 90}


def test_ibm_scripts_that_change_the_file_system_while_the_run_runs(tmp_path):
    con = setups_of(tmp_path, *map(submission, [651, 679, 687, 690, 722]))
    changed = by_submission(con, "changed_during_run")
    assert set(changed) == {651, 679, 687, 690, 722}
    assert all("mmchconfig inodePrefetchThreshold=2000000, inodePrefetchThreshold=5 -i" in v for v in changed.values())
    # stop_cont_io500.sh: kill -19 (SIGSTOP) of every io500 process; 687 holds no such script
    assert {s for s, v in changed.items() if "SIGSTOP" in v} == {651, 679, 690, 722}
    (source,) = con.execute("SELECT s.source FROM io500_run_setup s JOIN io500_runs r USING (run_id) "
                            "WHERE r.submission = 679 AND s.field = 'changed_during_run'").fetchone()
    assert source == "find_script/stop_cont_io500.sh line 5; find_script/track_io500.sh lines 27, 36"


def test_storage_scale_release_is_never_min_release_level(tmp_path):
    con = setups_of(tmp_path, submission(679), submission(690), submission(651))
    release, floor = by_submission(con, "release"), by_submission(con, "min_release_level")
    # mmlsconfig's minReleaseLevel is the cluster's compatibility floor (679: 5.1.9.0, 690: 5.1.7.0, 651: 5.1.6.0)
    assert floor == {651: "5.1.6.0", 679: "5.1.9.0", 690: "5.1.7.0"}
    # seed 000 line 277: Tucson upgraded to 5.1.9.0, Ehningen left at 5.1.8.1; 651's folder names 5.1.7.1
    assert release == {651: "5.1.7.1", 679: "5.1.9.0", 690: "5.1.8.1"}


def test_a_run_copied_out_of_the_archive_layout_keeps_its_attribution(tmp_path):
    run = tmp_path / "copied" / "my-run"
    shutil.copytree(submission(690) / "results" / "2023.11.06-05.10.43", run)
    con = setups_of(tmp_path, tmp_path / "copied")
    row = con.execute("SELECT institution, system, filesystem, family, release, changed_during_run IS NOT NULL "
                      "FROM setups").fetchone()
    assert row == ("IBM Ehningen System", "DACH Storage Scale System 3500", "IBM Storage Scale", "Storage Scale/GPFS",
                   "5.1.8.1", True)


def rnd4k_run(folder: Path, share: float | None) -> Path:
    """submission-784's result_summary.txt (ior-rnd4K-easy-read 13.0 GiB/s, 3.1 % of ior-easy-read 422 GiB/s),
    with the random read set to `share` of the easy read (None: as submitted)."""
    (summary,) = submission(784).glob("results/*/result_summary.txt")
    text = summary.read_text()
    if share is not None:
        easy = float(re.search(r"ior-easy-read\s+([\d.]+)", text)[1])
        text = re.sub(r"(ior-rnd4K-easy-read\s+)[\d.]+", lambda m: f"{m[1]}{easy * share:.6f}", text)
    folder.mkdir(parents=True)
    (folder / "result_summary.txt").write_text(text)
    return folder


def test_random_4k_reads_as_fast_as_sequential_ones_are_flagged(tmp_path):
    runs = {"as submitted": None, "at 4 %": 0.04, "equal": 1.0, "above": 1.5}
    con = setups_of(tmp_path, *(rnd4k_run(tmp_path / name, share) for name, share in runs.items()))
    flagged = {r[0] for r in con.execute(
        "SELECT regexp_extract(r.path, '[^/]+$') FROM io500_run_flags f JOIN io500_runs r USING (run_id) "
        "WHERE f.code = 'RANDOM_READ_CACHED'").fetchall()}
    assert flagged == {"equal", "above"}


def test_system_information_in_both_forms():
    text = next(submission(671).glob("results/*/system-information.txt")).read_text()
    info = {r.key: r.value for r in io500_system.parse_system_information(text).records}
    assert info["storage_install_date"] == "2022-03-25" and info["client_nodes"] == "10"
    questionnaire = next(submission(706).glob("results/*/system-information.json")).read_text()
    info = {r.key: r.value for r in io500_system.parse_questionnaire(questionnaire).records}
    assert info["Site.IO500.information.number_clientNodes"] == "10"
    assert info["Site.Supercomputer.Nodes.Interconnect.speed"] == "100 GBit"
    with pytest.raises(ParseError):
        io500_system.parse_questionnaire(questionnaire[: len(questionnaire) // 2])


def tucson_with_setup_yml(tmp_path: Path, tucson_results: Path, setup_yml: str) -> duckdb.DuckDBPyConnection:
    """submission-679's results as logs/tucson beside a user's logs/setup.yml, ingested."""
    (tmp_path / "logs").mkdir()
    shutil.move(tucson_results, tmp_path / "logs" / "tucson")
    (tmp_path / "logs" / "setup.yml").write_text(setup_yml)
    return setups_of(tmp_path, tmp_path / "logs")


def test_setup_yml_states_what_the_files_do_not(tmp_path, tucson_results):
    # submission-679's files state no server links; its ior-easy-write.txt line 20 reads "nodes               : 10"
    # (seed 000 line 139: "IBM Tucson (EPYC 7302P 16-Core, 10 clients, ...)"), which wins over setup.yml's 12
    con = tucson_with_setup_yml(tmp_path, tucson_results,
                                'tucson:\n  server_links: 8\n  client_nodes: 12\n  release: 5.1.0.0\n  colour: blue\n')
    rows = dict(con.execute("SELECT field, value || ' | ' || source FROM io500_run_setup").fetchall())
    assert rows["server_links"] == "8 | setup.yml: tucson"
    assert rows["client_nodes"] == "10 | ior-easy-write log: nodes"
    # what the run's own files and the curated references state wins over setup.yml; unknown fields are dropped
    assert rows["release"] == "5.1.9.0 | " + rows["release"].split(" | ")[1] and "seed 000" in rows["release"]
    assert "colour" not in rows


def test_bound_of_a_run_from_the_links_its_questionnaire_states(tmp_path):
    # submission-706 (MOGON-NHR, GekkoFS) system-information.json: number_clientNodes "10", Interconnect links "1",
    # speed "100 GBit", StorageSystem Servers "64"; result.txt: ior-easy-write 79.654754 GiB/s
    con = setups_of(tmp_path, submission(706))
    setup = con.execute("SELECT client_nodes, client_links, client_link_gbit_s, servers FROM setups").fetchone()
    assert setup == (10, 1, 100.0, 64)
    bound = dict(con.execute("SELECT phase, (binding, round(bound_gib_s, 3), round(share, 3)) FROM io500_run_bounds"
                             ).fetchall())
    assert bound["ior-easy-write"] == ("client links", 116.415, 0.684)  # 10 x 100 Gbit/s = 125 GB/s
    assert not con.execute("SELECT * FROM io500_run_flags WHERE code = 'ABOVE_LINKS'").fetchall()


def test_a_rate_above_the_links_a_user_states_is_flagged(tmp_path):
    # submission-722 (Saguaro, Storage Scale System 6000) states no links, nor does any reference; a user's
    # setup.yml says 10 Gbit/s a client and 2 drives of 7 GB/s: its ior-easy-write (result.txt line 14:
    # score 151.096382 GiB/s) is far above either
    (results,) = (submission(722) / "results").iterdir()
    shutil.copytree(results, tmp_path / "logs" / "saguaro")
    (tmp_path / "logs" / "setup.yml").write_text('saguaro:\n  client_nodes: 10\n  client_links: 1\n'
                                                 '  client_link_gbit_s: 10\n  drives: 2\n  drive_gb_s: 7\n')
    con = setups_of(tmp_path, tmp_path / "logs")
    limits = dict(con.execute("SELECT limit_name, round(gib_s, 3) FROM io500_run_limits").fetchall())
    assert limits == {"client links": 11.642, "drives": 13.039}  # 12.5 GB/s; 14 GB/s
    flagged = dict(con.execute("SELECT detail, source FROM io500_run_flags WHERE code = 'ABOVE_LINKS'").fetchall())
    assert any(d.startswith("ior-easy-write ") and "of its client links (10 nodes x 1 x 10.0 Gbit/s)" in d
               for d in flagged)


def test_the_talks_printed_links_are_the_setup_records(tmp_path):
    """Seed 000 line 271 prints "One HDR200-Infiniband connection per client (Tucson) / two HDR200 connections
    (Ehningen)", held once, in data/published/seed000_ess3500_io500_clients.csv; data/reference/client_links.csv
    names the row of 651 and 679 (Tucson) and of 690 (Ehningen), no number; an HDR link is 200 Gbit/s
    (network_rates.csv's HDR row, from the IBTA roadmap). Each run's ior-easy-write.txt states 10 nodes, so 690's
    clients allow 10 x 2 x 200 Gbit/s = 465.66 GiB/s."""
    with setups.CLIENT_LINKS_CSV.open(encoding="utf-8") as f:
        assert csv.DictReader(f).fieldnames == ["submission", "published_row", "source"]
    con = setups_of(tmp_path, *map(submission, (651, 679, 690)))
    stated = con.execute("SELECT r.submission, s.client_nodes, s.client_links, s.client_link_gbit_s FROM setups s "
                         "JOIN io500_runs r USING (run_id) ORDER BY 1").fetchall()
    assert stated == [(651, 10, 1, 200.0), (679, 10, 1, 200.0), (690, 10, 2, 200.0)]
    source = dict(con.execute("SELECT r.submission || ' ' || s.field, s.source FROM io500_run_setup s "
                              "JOIN io500_runs r USING (run_id) WHERE s.field LIKE 'client_link%'").fetchall())
    talk = "seed 000 line 271 (Details Regarding IBM's ESS3500 Cluster io500 submission for ISC23): "
    assert source["690 client_links"].startswith(talk + "Ehningen, 'two HDR200 connections'")
    assert source["651 client_links"].startswith(talk + "Tucson, 'One HDR200-Infiniband connection per client'")
    rate = "HDR: 200 Gbit/s a link (InfiniBand Trade Association, InfiniBand Roadmap"
    assert all(source[f"{s} client_link_gbit_s"].startswith(source[f"{s} client_links"].split(";")[0] + "; " + rate)
               for s in (651, 679, 690))  # the published row and line, then the rate's source
    (limit,) = con.execute("SELECT round(l.gib_s, 2) FROM io500_run_limits l JOIN io500_runs r USING (run_id) "
                           "WHERE r.submission = 690 AND l.limit_name = 'client links'").fetchone()
    assert limit == 465.66


# Names of networks as data/raw's system-information files print them (io500_info_ds_network, storage_network,
# md_network) and as submission-706's system-information.json names its clients' adapter, with the rate of one link
# the row of data/reference/network_rates.csv they match defines
NAMED_RATES = {"InfiniBand HDR": 200, "IB-EDR": 100, "Mellanox IB EDR": 100, "InfiniBand EDR": 100, "100GbE": 100,
               "50GbE": 50, "40GbE": 40, "16Gbps Ethernet": 16, "Omni-Path 100 (with libfabric tcp provider)": 100,
               "HPE Slingshot 11": 200, "MCX653105A-ECATMCX653105A-ECAT ConnectX-6 HDR 100 VPI Adapter": 100}
# ... and names that state no generation or rate (FDR10: Mellanox's own 40 Gb/s, not FDR)
NO_RATE = ["Ethernet", "ethernet", "infiniband", "Infiniband", "InfiniBand", "Omnipath", "omnipath", "OmniPath",
           "Omni-Path", "Cray Aries", "FDR10"]


def test_a_named_network_states_the_rate_of_one_link():
    """network_rates.csv on its own names (InfiniBand 4x links as the IBTA roadmap rates them: QDR 40, FDR 56, EDR
    100, HDR 200, NDR 400 Gbit/s; HDR100 two HDR lanes; Omni-Path 100; HPE Slingshot 11 200 Gbit/s) and on the
    names real files print; a bare name matches nothing."""
    with networks.NETWORK_RATES_CSV.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    own = {row["network"]: networks.rate(row["network"]) for row in rows if row["gbit_s"]}
    assert {name: r.gbit_s for name, r in own.items()} == {
        "SDR": 10, "DDR": 20, "QDR": 40, "FDR": 56, "EDR": 100, "HDR100": 100, "HDR": 200, "NDR200": 200, "NDR": 400,
        "Omni-Path 100": 100, "HPE Slingshot 11": 200}
    assert all(own[row["network"]].source.endswith(f"({row['source']})") for row in rows if row["gbit_s"])
    assert {name: networks.rate(name).gbit_s for name in NAMED_RATES} == NAMED_RATES
    assert [networks.rate(name) for name in NO_RATE] == [None] * len(NO_RATE)
    # seed 000 line 271's words: a count word and a network
    assert [(n, r.gbit_s) for n, r in map(networks.links, ("One HDR200-Infiniband connection per client",
                                                           "two HDR200 connections"))] == [(1, 200), (2, 200)]
    assert networks.links("two Ethernet connections") is None


@pytest.mark.slow  # reads the published database, ingested from data/raw
def test_runs_of_data_raw_whose_network_names_a_rate():
    """data/raw's system-information files name 90 runs' server network: 18 by a generation or rate (submissions
    668, 669, 671, 683 and 684: "InfiniBand HDR"; 24, 37, 66: "IB-EDR"; 197, 201, 473: "100GbE"; 91, 147: "16Gbps
    Ethernet"; 98, 124, 664: EDR; 667: "HPE Slingshot 11"; 703: "Omni-Path 100"), the 72 others by a name that
    states neither (a bare InfiniBand, Ethernet or Omni-Path; Cray Aries, which no row rates). The rate is one
    link's: no file states a server's links, so no server limit arises."""
    con = store.open_read(PUBLISHED_DB)
    try:
        named = con.execute("SELECT server_network, server_link_gbit_s, count(*) FROM setups "
                            "WHERE server_network IS NOT NULL GROUP BY ALL").fetchall()
        limits = {name for (name,) in con.execute("SELECT DISTINCT limit_name FROM io500_run_limits").fetchall()}
    finally:
        con.close()
    rated = {name: (rate, runs) for name, rate, runs in named if rate is not None}
    assert rated == {"InfiniBand HDR": (200, 5), "IB-EDR": (100, 3), "100GbE": (100, 3), "16Gbps Ethernet": (16, 2),
                     "infiniband EDR": (100, 1), "Mellanox IB EDR": (100, 1), "InfiniBand EDR": (100, 1),
                     "HPE Slingshot 11": (200, 1), "Omni-Path 100 (with libfabric tcp provider)": (100, 1)}
    assert sum(runs for _, runs in rated.values()) == 18 and sum(runs for _, _, runs in named) == 90
    assert {name for name, rate, _ in named if rate is None} == {
        "Ethernet", "ethernet", "infiniband", "Infiniband", "InfiniBand", "Omnipath", "omnipath", "OmniPath",
        "Omni-Path", "Cray Aries"}
    assert limits == {"client links"}


def test_the_talks_links_bound_tucsons_read(tmp_path):
    """submission-679's ior-easy-read (result.txt line 60: score 205.041473 GiB/s) against its 10 clients' one
    HDR200 link each (seed 000 line 271): 10 x 200 Gbit/s = 232.83 GiB/s, 88 % of it, the setup's least limit."""
    con = setups_of(tmp_path, submission(679))
    binding, share = con.execute("SELECT binding, share FROM io500_run_bounds WHERE phase = 'ior-easy-read'").fetchone()
    assert binding == "client links" and share == pytest.approx(205.041473 / (10 * 200e9 / 8 / 2**30), rel=1e-6)


JAMSTEC = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500" / "Japan Agency for Marine-Earth Science and Technology"


def test_a_runs_list_is_the_site_record_then_inferred(tmp_path):
    """Issue 46: the year-folder rule filed JAMSTEC's May-2021 run (submission-548, filed again as 689 in the 2023
    folder) under ISC23; the IO500 site's record (data/reference/io500_site_lists.csv, row 548: ISC21) says ISC21,
    and the copy, one run, keeps the list of its first listing. A submission past the record (689's own id) would be
    inferred, and says so."""
    db = tmp_path / "lists.duckdb"
    ingest([JAMSTEC], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT r.submission, s.list, x.source FROM io500_runs r JOIN setups s USING (run_id) "
                           "JOIN io500_run_setup x ON x.run_id = r.run_id AND x.field = 'list' ORDER BY 1").fetchall()
    assert [(sub, lst) for sub, lst, _ in rows] == [(548, "ISC21"), (689, "ISC21")]
    assert all(src.startswith("IO500 site record: submission-548") for _, _, src in rows)
    assert io500_lists.inferred_list(2023, "2023-05-14 01:13:12") == "ISC23" and io500_lists.inferred_list(2021, "2021-10-24") == "SC21"
    with io500_lists.SITE_LISTS_CSV.open(encoding="utf-8") as f:
        row = next(r for r in csv.DictReader(f) if r["id"] == "548")
    assert row["list"] == "ISC21"


def test_the_cached_random_read_flag_reads_both_names_of_the_phase(tmp_path):
    """Issue 46: RANDOM_READ_CACHED matched only ior-rnd4K-easy-read (ISC22 on) and missed SC21's extended-mode name,
    ior-rnd4K-read. GWDG's 582 (result.txt) reads 0.814371 GiB/s at random, 8.852841 sequentially: not flagged as
    it stands; its random read's score set to 9.5 (above the sequential one) in a copy, flagged under its own name."""
    source = ARCHIVE / "GWDG" / "SCC" / "BeeGFS" / "2021" / "submission-582" / "result.txt"
    text = source.read_text(encoding="utf-8")
    as_is, faster = tmp_path / "as-is" / "result.txt", tmp_path / "faster" / "result.txt"
    for path, body in ((as_is, text), (faster, text.replace("score           = 0.814371", "score           = 9.5"))):
        path.parent.mkdir()
        path.write_text(body, encoding="utf-8")
    db = tmp_path / "flags.duckdb"
    ingest([tmp_path / "as-is", tmp_path / "faster"], db, progress=False)
    with duckdb.connect(str(db), read_only=True) as con:
        flags = con.execute("SELECT r.path, f.detail FROM io500_run_flags f JOIN io500_runs r USING (run_id) "
                            "WHERE f.code = 'RANDOM_READ_CACHED'").fetchall()
    assert [(Path(p).relative_to(tmp_path).parts[0], d) for p, d in flags] == [
        ("faster", "ior-rnd4K-read 9.5 GiB/s is 107 % of ior-easy-read 8.853 GiB/s")]


def test_a_clusters_file_systems_are_storage_systems_of_their_own(tmp_path):
    """Issue 46: Queen Mary's Apocrita file systems Long Term (submission-204), e8Scratch (164) and scratch (156), and
    Clemson's Palmetto scratch1b (178) and scratch4 (168), were one "machine" each cluster: the storage_install_date
    their system-information shares joined them. The unit of a file-system comparison is the storage system: five
    machines, two clusters (the archive's folders name the file systems: Apocrita/Long Term, Palmetto/scratch4...)."""
    con = setups_of(tmp_path, *map(submission, (204, 164, 156, 178, 168)))
    machine, cluster = by_submission(con, "machine"), by_submission(con, "cluster")
    assert machine == {156: "Queen Mary University Of London, Apocrita, scratch",
                       164: "Queen Mary University Of London, Apocrita, e8Scratch",
                       168: "Clemson University, Palmetto, scratch4", 178: "Clemson University, Palmetto, scratch1b",
                       204: "Queen Mary University Of London, Apocrita, Long Term"}
    assert len(set(cluster.values())) == 2
    assert cluster[204] == cluster[164] == cluster[156] == ("Queen Mary University Of London: Apocrita (Long Term) / "
                                                            "Apocrita (e8Scratch) / Apocrita (scratch)")
    assert cluster[178] == cluster[168] == "Clemson University: Palmetto (scratch1b) / Palmetto (scratch4)"


def test_a_file_system_names_its_instance():
    """The instance a label's file-system name states, once its family, product, release, institution and cluster
    words are dropped: spellings of one file system are one (the archive's folders: KISTI's 'Burst Buffer' and 'Nurion
    Burst Buffer', IBM Tucson's Saguaro under two releases), DKRZ's lustre01 and lustre02 are two."""
    gpfs = "Storage Scale/GPFS"
    assert machines.storage_instance("Nurion Burst Buffer", "KISTI", "NURION", "IME") == \
        machines.storage_instance("Burst Buffer", "KISTI", "NURION", "IME") == "burstbuffer"
    assert machines.storage_instance("IBM Storage Scale 5.2.2-0 (early pre-GA build) with ESS 6.2.1-0", "IBM Tucson",
                                     "Saguaro Storage Scale System 6000", gpfs) == \
        machines.storage_instance("IBM Storage Scale 6.0.0.0 with ESS 7.0.0.0 (early pre-GA build)", "IBM Tucson",
                                  "Saguaro Storage Scale System 6000", gpfs)
    assert machines.storage_instance("lustre01", "DKRZ", "Mistral", "Lustre") != \
        machines.storage_instance("Lustre02", "DKRZ", "Mistral", "Lustre")
    assert machines.storage_instance("CephFS", "SUSE", "TigerShark", "CephFS") is None


def test_a_client_that_needs_more_than_its_links_is_flagged(tmp_path):
    """Issue 46: where links are not stated, the client ports the files name bound a client node. IBM's 722 (SC24)
    reads 284.203357 GiB/s on 10 clients whose mmlsconfig gives the client class one port (`verbsPorts mlx5_0/1`,
    line 101): 244 Gbit/s a client, below the fastest client port of 2024 (NDR, 400 Gbit/s,
    data/reference/fastest_client_links.csv): tested, not flagged. LRZ's 671 (ISC23, 10 client nodes) names no client
    ports, so it is not tested (a node may have several); once a user's setup.yml states one link a client, its
    ior-easy-write (434.744345 GiB/s, its result.txt: 43.47 GiB/s, 373 Gbit/s a client node) is above one link of the
    'InfiniBand HDR' its system-information names for its data servers (200 Gbit/s, network_rates.csv): flagged."""
    tree = tmp_path / "tree"
    shutil.copytree(submission(671), tree / "submission-671")
    con = setups_of(tmp_path, tree, submission(722))
    assert by_submission(con, "client_link_bound_gbit_s") == {722: 400.0, None: None}  # 671's copy: no submission
    (source,) = con.execute("SELECT source FROM io500_run_setup s JOIN io500_runs r USING (run_id) "
                            "WHERE field = 'client_link_bound_gbit_s' AND r.submission = 722").fetchone()
    assert source.startswith("1 port a client (mmlsconfig line 101: verbsPorts mlx5_0/1 [client]) x 400 Gbit/s")
    flag = "SELECT f.detail FROM io500_run_flags f WHERE f.code = 'ABOVE_CLIENT_LINK' ORDER BY f.detail"
    assert con.execute(flag).fetchall() == []
    con.close()
    (tree / "setup.yml").write_text('"submission-671/**":\n  client_links: 1\n', encoding="utf-8")
    (tmp_path / "stated").mkdir()
    stated = setups_of(tmp_path / "stated", tree)
    assert any(d.startswith("ior-easy-write 43.47 GiB/s a client node (373 Gbit/s) is above its links' 200 Gbit/s: "
                            "1 link a client (setup.yml: submission-671/**)") for (d,) in stated.execute(flag).fetchall())
