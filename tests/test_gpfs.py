"""Storage Scale listings (mmlsconfig, mmlscluster, mmlsfs): exact values from the files IBM saved in its IO500
submissions, read from the book's curated copy in data/raw/io500/ (unmodified archive files)."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import DETECT_BYTES, ParseError, detect, gpfs

IO500 = Path(__file__).resolve().parents[1] / "data" / "raw" / "io500"
TUCSON_SC23 = IO500 / "IBM Tucson/Arches Storage Scale System 3500/IBM Storage Scale/2023/submission-679/results"
SAGUARO_2024 = (IO500 / "IBM Tucson/Saguaro Storage Scale System 6000"
                / "IBM Storage Scale 5.2.2-0 (early pre-GA build) with ESS 6.2.1-0/2024/submission-722/results"
                / "2024.10.17-15.15.56")
EHNINGEN_SC23 = (IO500 / "IBM Ehningen System/DACH Storage Scale System 3500/IBM Storage Scale/2023/submission-690"
                 / "results/2023.11.06-05.10.43")
CLOUD_HPC = IO500 / "IBM Cloud HPC/BlueStorm/IBM Storage Scale/2023/submission-687/results"
EHNINGEN_2024 = (IO500 / "IBM Ehningen System/DACH Storage Scale System 6000"
                 / "IBM Storage Scale 5.2.2-0 (early pre-GA build) with ESS 6.2.1-0/2024/submission-731/results"
                 / "2024.11.11-00.01.32")


def parse(path: Path):
    text = path.read_text(encoding="utf-8")
    fmt = detect(text[:DETECT_BYTES])
    assert fmt is not None
    return fmt.name, fmt.parse(text)


def settings_of(path: Path, key: str) -> list[tuple[str, str, int]]:
    return [(r.scope, r.value, r.line) for r in parse(path)[1].records
            if isinstance(r, gpfs.GpfsSetting) and r.key == key]


@pytest.mark.parametrize("path,name", [
    (TUCSON_SC23 / "mmlsconfig", "gpfs-mmlsconfig"),
    (SAGUARO_2024 / "mmlsconfig", "gpfs-mmlsconfig"),  # behind a #### banner naming the command
    (CLOUD_HPC / "mmlsconfig.out", "gpfs-mmlsconfig"),
    (TUCSON_SC23 / "mmlscluster", "gpfs-mmlscluster"),
    (SAGUARO_2024 / "mmlscluster", "gpfs-mmlscluster"),
    (CLOUD_HPC / "mmlscluster.out", "gpfs-mmlscluster"),
    (SAGUARO_2024 / "mmlsfs_fs1", "gpfs-mmlsfs"),  # two listings, each behind a #### banner
    (EHNINGEN_SC23 / "mmlsfs_bb145nvme", "gpfs-mmlsfs"),
    (EHNINGEN_2024 / "mmls_bb8nvme", "gpfs-mmlsfs"),  # named by its submitters, not by the command
])
def test_detected_by_content(path, name):
    assert parse(path)[0] == name


def test_mmlsfs_is_detected_as_mmlsfs_only():
    text = (SAGUARO_2024 / "mmlsfs_fs1").read_text(encoding="utf-8")
    assert [f.name for f in gpfs.FORMATS if f.detect(text)] == ["gpfs-mmlsfs"]


def fs_records(path: Path, kind: type) -> list:
    return [r for r in parse(path)[1].records if isinstance(r, kind)]


def test_mmlsfs_disks_of_the_file_system():
    # EHNINGEN_2024/mmls_bb8nvme line 43: " -d  RG001LG001VS001;RG001LG002VS001;RG001LG003VS001;RG001LG004VS001
    # Disks in file system": the value overflows into the description column
    assert fs_records(EHNINGEN_2024 / "mmls_bb8nvme", gpfs.GpfsFsDisk) == [
        gpfs.GpfsFsDisk(listing=0, disk=f"RG001LG00{n}VS001", line=43) for n in range(1, 5)]
    # EHNINGEN_SC23/mmlsfs_bb145nvme lines 42-43: the list printed over two -d lines, the first ending in ';'
    disks = fs_records(EHNINGEN_SC23 / "mmlsfs_bb145nvme", gpfs.GpfsFsDisk)
    assert [d.disk for d in disks] == [f"RG00{g}LG00{n}VS00{g}" for g in (1, 2, 3) for n in range(1, 5)]
    assert [d.line for d in disks] == [42] * 11 + [43]


def test_mmlsfs_values_keep_inner_spaces_and_continuations():
    attributes = {(a.flag, a.line): a for a in fs_records(EHNINGEN_SC23 / "mmlsfs_bb145nvme", gpfs.GpfsFsAttribute)}
    # line 21 " --create-time      Tue Nov  7 22:30:57 2023 File system creation time": the value fills its column
    assert (attributes["--create-time", 21].value, attributes["--create-time", 21].description) == (
        "Tue Nov  7 22:30:57 2023", "File system creation time")
    assert attributes["-V", 20].value == "31.00 (5.1.7.0)"
    # line 34: a flag longer than its column
    assert (attributes["--write-cache-threshold", 34].value,
            attributes["--write-cache-threshold", 34].description) == ("0", "HAWC Threshold (max 65536)")
    # lines 15-17: -Q and two lines without a flag that continue it
    assert [(attributes["-Q", n].value, attributes["-Q", n].description) for n in (15, 16, 17)] == [
        ("none", "Quotas accounting enabled"), ("none", "Quotas enforced"), ("none", "Default quotas enabled")]
    assert (attributes["-T", 46].value, attributes["-B", 14].value) == ("/gpfs/bb145nvme", "2097152")


def test_mmlsfs_second_listing_in_one_file():
    attributes = fs_records(SAGUARO_2024 / "mmlsfs_fs1", gpfs.GpfsFsAttribute)
    # `mmlsfs fs1` (listing 0) then `mmlsfs fs1 --snc` (listing 1, lines 58-66), each behind a #### banner
    assert {a.listing for a in attributes} == {0, 1}
    snc = {a.flag: a.value for a in attributes if a.listing == 1}
    assert snc["-s"] == "roundRobin" and snc["--block-group-factor"] == "1"
    assert [d.listing for d in fs_records(SAGUARO_2024 / "mmlsfs_fs1", gpfs.GpfsFsDisk)] == [0] * 4


def test_tucson_sc23_pagepool_per_node_class():
    # Clients 48G; the two ESS 3500 node classes and the arches8ib node in bytes, as printed.
    assert settings_of(TUCSON_SC23 / "mmlsconfig", "pagepool") == [
        ("nc_35", "324379307212", 76), ("client", "48G", 78), ("nc_352", "324216102912", 80),
        ("arches8ib", "51539607552", 82)]
    assert settings_of(TUCSON_SC23 / "mmlsconfig", "nBucketGroups") == [("common", "1024", 89)]
    assert settings_of(TUCSON_SC23 / "mmlsconfig", "maxStatCache") == [
        ("nc_35,nc_352", "128k", 54), ("client", "128K", 56), ("arches8ib", "131072", 58)]


def test_settings_before_any_node_class_are_cluster_wide():
    assert parse(TUCSON_SC23 / "mmlsconfig")[1].records[0] == gpfs.GpfsSetting(cluster="io500.gpfs", scope="common",
                                                                               key="clusterName", value="io500.gpfs",
                                                                               line=3)


def test_banner_skipped_and_file_systems_listed():
    _, p = parse(SAGUARO_2024 / "mmlsconfig")
    assert p.records[0] == gpfs.GpfsSetting(cluster="test01.s6k2a-hs", scope="common", key="clusterName",
                                            value="test01.s6k2a-hs", line=7)
    assert settings_of(SAGUARO_2024 / "mmlsconfig", "pagepool") == [
        ("common", "1G", 33), ("client", "48G", 35), ("nc1", "973405011148", 63)]
    assert [r for r in p.records if isinstance(r, gpfs.GpfsFilesystem)] == [
        gpfs.GpfsFilesystem(cluster="test01.s6k2a-hs", device="/dev/fs1")]


def test_values_keep_inner_spaces_not_padding():
    # Line 101 prints two spaces after the key.
    assert settings_of(EHNINGEN_SC23 / "mmlsconfig", "verbsPorts") == [
        ("common", "mlx5_0/1/1 mlx5_1/1/1", 99),
        ("ess35_1,ess35_2,ess35_4,ess35_5", "mlx5_1/1/1 mlx5_3/1/1 mlx5_5/1/1 mlx5_7/1/1", 101)]


def test_mmlscluster_nodes_with_and_without_designation():
    _, p = parse(EHNINGEN_SC23 / "mmlscluster")
    assert len(p.records) == 37
    assert p.records[0] == gpfs.GpfsNode(cluster="GNRockStar.fscc-ess3500-1-a", node_number=1,
                                         daemon_node="ess3500-1a-i1", ip_address="10.2.1.21",
                                         admin_node="ess3500-1a-e1", designation="manager-perfmon")
    assert p.records[-1] == gpfs.GpfsNode(cluster="GNRockStar.fscc-ess3500-1-a", node_number=211, daemon_node="osa312i",
                                          ip_address="10.2.1.132",
                                          admin_node="osa312i", designation="")
    _, cloud = parse(CLOUD_HPC / "mmlscluster.out")
    assert len(cloud.records) == 202
    assert cloud.records[-1].daemon_node == "hpc-perf-mgmt-3.strgscale.com"


@pytest.mark.slow
def test_views_after_ingest(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([TUCSON_SC23 / "mmlsconfig", TUCSON_SC23 / "mmlscluster"], db, progress=False)
    con = store.open_read(db)
    assert con.execute("SELECT value FROM gpfs_config WHERE key = 'pagepool' AND scope = ?",
                       ["client"]).fetchall() == [("48G",)]
    assert con.execute("SELECT count(*), count(*) FILTER (quorum), count(*) FILTER (manager) FROM gpfs_nodes"
                       ).fetchone() == (15, 2, 14)


@pytest.mark.slow
def test_fs_disks_view(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([EHNINGEN_SC23 / "mmlsfs_bb145nvme", EHNINGEN_2024 / "mmls_bb8nvme"], db, progress=False)
    con = store.open_read(db)
    rows = con.execute("SELECT mount_point, count(DISTINCT recovery_group), count(DISTINCT log_group), count(*) "
                       "FROM gpfs_fs_disks GROUP BY mount_point ORDER BY mount_point").fetchall()
    assert rows == [("/gpfs/bb145nvme", 3, 4, 12), ("/gpfs/bb8nvme", 1, 4, 4)]
    assert con.execute("SELECT DISTINCT recovery_group, vdisk_set FROM gpfs_fs_disks WHERE mount_point = "
                       "'/gpfs/bb8nvme'").fetchall() == [("RG001", "VS001")]


def test_errors_name_the_line():
    with pytest.raises(ParseError) as e:
        gpfs.parse("Configuration data for cluster x:\n---\nclusterName x\n[client\n")
    assert e.value.line == 4
    with pytest.raises(ParseError) as e:
        gpfs.parse("GPFS cluster information\n========\n  GPFS cluster name:  x\n")
    assert "node table" in e.value.reason
    with pytest.raises(ParseError) as e:
        gpfs.parse("flag  value  description\n---- ----- -----------\n -B  1  Block size\nB  1  Block size\n")
    assert e.value.line == 4


FUZZ_FILES = [SAGUARO_2024 / "mmlsconfig", EHNINGEN_SC23 / "mmlscluster", SAGUARO_2024 / "mmlsfs_fs1",
              EHNINGEN_SC23 / "mmlsfs_bb145nvme"]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(FUZZ_FILES), cut=st.floats(0, 1), drop=st.integers(0, 200),
       flips=st.lists(st.tuples(st.floats(0, 1), st.characters()), max_size=4))
@pytest.mark.slow
def test_damaged_files_raise_only_parse_error(which, cut, drop, flips):
    text = which.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    if drop < len(lines):
        del lines[drop]
    text = "".join(lines)
    text = text[: int(len(text) * cut) + 1]
    for where, char in flips:
        i = int(where * (len(text) - 1))
        text = text[:i] + char + text[i + 1:]
    try:
        gpfs.parse(text)
    except ParseError:
        pass
