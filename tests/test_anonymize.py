"""`--anonymize`: host, node and user names, IP addresses and absolute path prefixes are replaced by stable
pseudonyms in everything the executed chapters show and export, while the database keeps the originals."""
import hashlib
import html
import json
import re
from pathlib import Path

import duckdb
import pytest
from conftest import copy_checkout

from iobook.book import anonymize, chapters, downloads
from iobook.book.anonymize import Anonymizer, pseudonym
from iobook.book.build import build_name

REPO = Path(__file__).resolve().parents[1]
RAW = REPO / "data" / "raw"
TUCSON = RAW / "io500" / "IBM Tucson"
SAGUARO = (TUCSON / "Saguaro Storage Scale System 6000" / "IBM Storage Scale 5.2.2-0 (early pre-GA build) with ESS 6.2.1-0"
           / "2024" / "submission-722")
ARCHES = TUCSON / "Arches Storage Scale System 3500" / "IBM Storage Scale" / "2023" / "submission-679"
# result.txt holds /home/ishaeffe/... and /scratch/ishaeffe/... in its result-dir and command lines
SOL = RAW / "io500" / "Arizona State University" / "Sol" / "BeeGFS" / "2023" / "submission-642"
DATA = [RAW / "checksum", SAGUARO, ARCHES, SOL]


# --- the mapping on real strings -------------------------------------------------------------------------

def test_mapping_on_real_strings():
    anon = Anonymizer(kinds={"vm": "host", "saguaro10ib": "host", "saguaro1ib": "host", "e352bib.gpfs.net": "host",
                       "e352bib": "host", "test01.s6k2a-hs": "host", "100.168.83.60": "ip", "ishaeffe": "user",
                       "/work/main": "path", "/home/ishaeffe/io500/results": "path"})
    vm, ip = pseudonym("host", "vm"), pseudonym("ip", "100.168.83.60")
    cases = {
        # a collector run id and its host; vmstat is a tool, not the host
        "vm-20261121T131428Z on vm, sampled by vmstat": f"{vm}-20261121T131428Z on {vm}, sampled by vmstat",
        # mmlscluster lines (Saguaro, submission-722)
        "  10   saguaro10ib       100.168.83.60    saguaro10ib      quorum-manager":
            f"  10   {pseudonym('host', 'saguaro10ib')}       {ip}    {pseudonym('host', 'saguaro10ib')}      quorum-manager",
        "saguaro10ib,saguaro1ib": f"{pseudonym('host', 'saguaro10ib')},{pseudonym('host', 'saguaro1ib')}",
        "e352bib.gpfs.net e352bib": f"{pseudonym('host', 'e352bib.gpfs.net')} {pseudonym('host', 'e352bib')}",
        "GPFS cluster name:         test01.s6k2a-hs": f"GPFS cluster name:         {pseudonym('host', 'test01.s6k2a-hs')}",
        # IO500 result.txt (Sol, submission-642): the result folder's prefix, then the user anywhere
        "result-dir      = /home/ishaeffe/io500/results/2023.03.22-18.10.33":
            f"result-dir      = {pseudonym('path', '/home/ishaeffe/io500/results')}/2023.03.22-18.10.33",
        "-o /scratch/ishaeffe/io500/datafiles/2023.03.22-18.10.33/ior-easy/ior_file_easy":
            f"-o {pseudonym('path', '/scratch/ishaeffe/io500/datafiles')}/2023.03.22-18.10.33/ior-easy/ior_file_easy",
        # ... and the user wherever the name stands, also in a file name
        "ishaeffe_ior.log in ./ishaeffe/": f"{pseudonym('user', 'ishaeffe')}_ior.log in ./{pseudonym('user', 'ishaeffe')}/",
        # site folders before the file name (built-tools IOR, line 3); a one-folder path keeps its folder,
        # not a user folder (a home folder never seen in the database); system paths stay
        "-o /tmp/bench/data/ior/fpp/ior_file_easy": f"-o {pseudonym('path', '/tmp/bench/data/ior/fpp')}/ior_file_easy",
        "/work/main/data/raw/checksum": f"{pseudonym('path', '/work/main/data/raw')}/checksum",
        "cd /home/newcomer && /usr/bin/ior": f"cd /home/{pseudonym('user', 'newcomer')} && /usr/bin/ior",
        # an e-mail address (MareNostrum 4 submission-672 io500_job, line 4)
        "#SBATCH --mail-user=dcamarma@inf.uc3m.es": f"#SBATCH --mail-user={pseudonym('email', 'dcamarma@inf.uc3m.es')}",
        # DAOS labels and UUIDs (Intel Wolf submission-1 ior_easy_read.txt, lines 1 and 7; Borealis, line 3)
        "[0] Pool uuid = fe1349ec-d68a-486c-b13e-440c0a17f459, SVCL = 1":
            f"[0] Pool uuid = {pseudonym('uuid', 'fe1349ec-d68a-486c-b13e-440c0a17f459')}, SVCL = 1",
        "-a DFS --dfs.pool=mhenneck --dfs.cont=cont01 --dfs.oclass=SX":
            f"-a DFS --dfs.pool={pseudonym('daos', 'mhenneck')} --dfs.cont={pseudonym('daos', 'cont01')} --dfs.oclass=SX",
        # addresses: gpfs subnets, IPv6, but not Storage Scale versions or clock times
        "subnets 10.200.1.0/fscc 10.2.1.0/24": f"subnets {pseudonym('ip', '10.200.1.0')}/fscc {pseudonym('ip', '10.2.1.0')}/24",
        "daemon on fe80::1c2:3ff:fe4d:5e6f": f"daemon on {pseudonym('ip', 'fe80::1c2:3ff:fe4d:5e6f')}",
        "IBM Storage Scale 5.1.7.1 with ESS 6.1.6.0 at 12:30:45": "IBM Storage Scale 5.1.7.1 with ESS 6.1.6.0 at 12:30:45",
        # escaped as the outputs hold them: chart JSON in a script element, HTML attributes
        '{"label": "\\u003cvm\\u003e \\u0026 saguaro1ib"}':
            f'{{"label": "\\u003c{vm}\\u003e \\u0026 {pseudonym("host", "saguaro1ib")}"}}',
        "aria-label=\"host: vm; ip: 100.168.83.60\"": f"aria-label=\"host: {vm}; ip: {ip}\"",
    }
    for original, expected in cases.items():
        assert anon.text(original) == expected, original
        assert anon.text(expected) == expected  # pseudonyms are never replaced again
    assert pseudonym("host", "vm") == "host-ab03f53d"  # a project constant: the same on every build
    assert re.fullmatch(r"/path-[0-9a-f]{8}", pseudonym("path", "/work/main"))


def test_addresses_and_users_are_conservative():
    assert anonymize.is_address("10.241.1.224") and anonymize.is_address("9.152.186.205")
    assert anonymize.is_address("1.2.3.4", "/24")
    assert not any(map(anonymize.is_address, ["5.1.7.1", "6.0.0.0", "2.14.0.1", "1.2.9.2"]))
    assert anonymize.addresses_in("bullxmpi_mlx-1.2.9.2 and 2019.11.11-19.43.30.10x40ppn") == set()
    assert anonymize.users_in("/home/users/kunkel/io-500-dev /home/jburto2/x /home/daos/io-500 /Users/ann/a") == {
        "kunkel", "jburto2", "ann"}
    # group, project and user folders after a root, up to a tool's folder (MareNostrum 4 submission-672
    # ior-easy-read.txt line 3, SDumont submission-212 mdtest_easy_stat.txt line 4, Summit submission-92 line 4)
    assert anonymize.users_in("/gpfs/home/uc3m15/uc3m15971/mn4/test/xpn_mpiserver_disk/results_io500") == {
        "uc3m15", "uc3m15971", "mn4"}
    assert anonymize.users_in("/scratch/prjssisd/andrercsd/teste-parallel-io/io-500/2020") == {"prjssisd", "andrercsd"}
    assert anonymize.users_in("/gpfs/alpine/stf007/scratch/gmarkoma/io-500-dev/bin/mdtest") == {"gmarkoma"}
    assert anonymize.users_in("/scratchbox/daos/mschaara/io500/sc23/results /dev/shm/vef_gkfs_mountdir/x") == {"mschaara"}
    # never a checkout's or the archive's folders: data/raw/pagecache/vm-20261121T132329Z/003-write-direct-r1.fio.json
    # line 22 (fio's write_bw_log, written in the checkout /work/main), and IO500 archive folders named after
    # a file system ("scratch", "Work") above the year and the submission
    assert anonymize.users_in("/work/main/data/raw/pagecache/vm-20261121T132329Z/003-write-direct-r1") == set()
    assert anonymize.users_in("/io500-submissions/LNCC/SDumont/scratch/2020/submission-212/mdtest_easy_stat.txt "
                              "/io500-submissions/EPCC/Archer 2 (test system)/Work/2020/submission-472") == set()


# --- the chapters, executed and anonymized ----------------------------------------------------------------

def _outputs(nb: dict) -> list[str]:
    """Every string a published notebook holds besides the templates' own cells: outputs, metadata, the
    injected parameters; chart JSON and HTML unescaped."""
    strings = []

    def walk(v):
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(nb["metadata"])
    for cell in nb["cells"]:
        walk(cell.get("outputs", []))
        walk(cell.get("metadata", {}))
        if "injected-parameters" in cell["metadata"].get("tags", []):
            walk(cell["source"])
    return [html.unescape(s.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")) for s in strings]


def _download_texts(folder: Path) -> dict[str, str]:
    """Every download file as text (Parquet through DuckDB: every value of every column)."""
    texts = {}
    for f in sorted(folder.rglob("*")):
        if f.suffix == ".parquet":
            con = duckdb.connect()
            texts[str(f)] = json.dumps(con.execute(f"SELECT * FROM read_parquet('{f.as_posix()}')").fetchall(),
                                       default=str, ensure_ascii=False)
            con.close()
        elif f.is_file():
            texts[str(f)] = f.read_text(encoding="utf-8")
    return texts


def _found(original: str, text: str) -> bool:
    if re.fullmatch(r"[0-9.]+", original):  # 10.2.1.13 is not in 10.2.1.132
        return re.search(rf"(?<![\d.]){re.escape(original)}(?!\d)", text) is not None
    if len(original) >= 6:
        return original in text
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(original)}(?![A-Za-z0-9_])", text) is not None


@pytest.fixture(scope="module")
def small_db(tmp_path_factory) -> Path:
    from iobook.database.ingest import ingest

    db = tmp_path_factory.mktemp("anon") / "small.duckdb"
    counts = ingest(DATA, db, progress=False)
    assert counts["parsed"] > 0
    return db


@pytest.fixture(scope="module")
def originals(small_db) -> dict[str, set[str]]:
    """What must not be published, read from the database by queries of this test's own."""
    con = duckdb.connect(str(small_db), read_only=True)
    try:
        hosts = {h for (h,) in con.execute("SELECT host FROM runs UNION SELECT value FROM run_facts "
                                           "WHERE key = 'host.hostname'").fetchall()}
        nodes = {n for row in con.execute("SELECT daemon_node, admin_node, cluster FROM gpfs_nodes").fetchall()
                 for n in row}
        ips = {ip for (ip,) in con.execute("SELECT ip_address FROM gpfs_nodes").fetchall()}
        dirs = [d for (d,) in con.execute("SELECT result_dir FROM io500_runs WHERE result_dir LIKE '/home/%'").fetchall()]
    finally:
        con.close()
    users = {d.split("/")[2] for d in dirs}
    assert hosts == {"vm"} and len(nodes) > 20 and len(ips) > 20 and users == {"ishaeffe"}
    return {"host": hosts, "node": nodes, "ip": ips, "user": users, "path": {str(REPO)}}


@pytest.fixture(scope="module")
def built(small_db, tmp_path_factory) -> Path:
    """The chapters executed anonymized into a temporary book folder."""
    import yaml

    # the registry's own parameters, but every file-system family (this database has none of the default ones)
    registry = yaml.safe_load(chapters.REGISTRY.read_text(encoding="utf-8"))
    for entry in registry["chapters"]:
        if entry["name"] == "daos_vs_lustre":
            entry["parameters"]["families"] = []
    config = tmp_path_factory.mktemp("config") / "chapters.yml"
    config.write_text(yaml.safe_dump(registry), encoding="utf-8")
    book = tmp_path_factory.mktemp("book")
    summary = chapters.run_chapters(small_db, config, progress=False, anonymize=True, out_dir=book)
    assert all(r["status"] == "executed" for r in summary), summary
    return book


@pytest.mark.slow
def test_no_original_in_any_output_or_download(built, originals):
    book = built
    notebooks = sorted(book.glob("*.ipynb"))
    assert [n.stem for n in notebooks] == sorted(c.name for c in chapters.load_registry())
    texts = {str(n): "\n".join(_outputs(json.loads(n.read_text(encoding="utf-8")))) for n in notebooks}
    downloads = _download_texts(book / "_static" / "downloads")
    assert any(p.endswith(".csv") for p in downloads) and any(p.endswith("/sources.parquet") for p in downloads)
    texts.update(downloads)
    leaks = [(kind, name, path) for kind, names in originals.items() for name in names
             for path, text in texts.items() if _found(name, text)]
    assert leaks == []
    # ... and the chapters still show them, as pseudonyms
    checksum = texts[str(book / "checksum_cost.ipynb")]
    assert pseudonym("host", "vm") + "-20261121T131428Z" in checksum
    ess = texts[str(book / "ess_bandwidth.ipynb")]
    assert pseudonym("host", "saguaro10ib") in ess
    # a file's path in the export: its site folders a path pseudonym, the collector run's folder with its host's
    assert ("/" + pseudonym("host", "vm") + "-20261121T131428Z/"
            in downloads[next(p for p in downloads if p.endswith("/sources.parquet"))])


@pytest.mark.slow
def test_downloads_are_all_linked(built):
    book = built
    linked = set()
    for nb in book.glob("*.ipynb"):
        linked |= downloads.download_refs(json.loads(nb.read_text(encoding="utf-8")))
    folder = book / "_static" / "downloads"
    files = {f.relative_to(folder).as_posix() for f in folder.rglob("*") if f.is_file()}
    assert files == linked  # the originals the kernels wrote are gone


@pytest.mark.slow
def test_pseudonyms_are_stable(built, small_db):
    """Every host pseudonym the chapters show is the salted hash (pseudonym(), whose value
    test_mapping_on_real_strings pins) of a name the anonymizer reads from the database, so every build on
    the same data shows the same ones."""
    hosts = {fake for fake in anonymize.from_db(small_db, REPO).mapping.values() if fake.startswith("host-")}
    for name in ("checksum_cost", "ess_bandwidth"):
        text = "\n".join(_outputs(json.loads((built / f"{name}.ipynb").read_text(encoding="utf-8"))))
        # the pattern takes the "/" before a pseudonym in a path ("checksum/host-ab03f53d-...") along
        found = {p.removeprefix("/") for p in anonymize.PSEUDONYM.findall(text) if p.removeprefix("/").startswith("host-")}
        assert found and found <= hosts, found - hosts


@pytest.mark.slow
def test_digest_changes_with_anonymize(small_db):
    chapter = chapters.load_registry()[0]
    plain = chapters.inputs_digest(chapter, {}, [], "code")
    assert chapters.inputs_digest(chapter, {}, [], "code", None) == plain
    assert chapters.inputs_digest(chapter, {}, [], "code", anonymize.from_db(small_db, REPO).digest) != plain


# --- a whole anonymised book, built by `python -m iobook book --anonymize`, on real logs of every kind ---------

ANON_FIXTURES = REPO / "tests" / "fixtures" / "anonymize"  # where each file comes from: its README.md
PREVIOUS = ANON_FIXTURES / "previous" / "dkrz-mistral" / "mdtest_easy_write.txt"
# original -> (file under ANON_FIXTURES, 1-based line that holds it): what must not be on any page or download
ORIGINALS = {
    # user names in folders, wherever the path shows them
    "acchapm1": ("logs/asu-io500/acchapm1__asu-io500__results__20260518T152012Z-pre-maint__ior-easy-write.txt", 3),
    "gmarkoma": ("logs/ornl-summit/mdtest_easy_stat.txt", 4),            # /gpfs/alpine/<project>/scratch/<user>
    "stf007": ("logs/ornl-summit/mdtest_easy_stat.txt", 4),
    "andrercsd": ("logs/lncc-sdumont/mdtest_easy_stat.txt", 4),          # /scratch/<project>/<user>
    "prjssisd": ("logs/lncc-sdumont/mdtest_easy_stat.txt", 4),
    "vef_gkfs_mountdir": ("logs/jgu-mogon-nhr/ior-easy-read.txt", 3),    # /dev/shm/<user>_gkfs_mountdir
    "nhr-admire": ("logs/jgu-mogon-nhr/ior-easy-read.txt", 3),           # /lustre/project/<project>/<user>
    "mschaara": ("logs/anl-aurora/ior-easy-read.txt", 3),                # /scratchbox/daos/<user>
    "u0001407": ("logs/riken-fx700/ior-easy-read.txt", 3),               # /home/users/<user>, --dfs.pool=<user>
    "bzinthenne": ("logs/zib-lise/ior-easy-read.txt", 3),                # /home/<user>, --dfs.pool=<user>_36engine
    "mhenneck": ("logs/intel-borealis/ior-easy-read.txt", 3),            # /home/<user>, --dfs.pool=<user>
    "aortiz": ("logs/cra-lucia/ior-hard-read.txt", 3),                   # /gpfs/home/<group>/<user>
    "axians": ("logs/cra-lucia/ior-hard-read.txt", 3),
    "uc3m15971": ("logs/bsc-marenostrum/ior-easy-read.txt", 3),          # /gpfs/home/<group>/<user>
    "ishaeffe": ("logs/asu-sol/ior-easy-write.txt", 3),                  # /home/<user>, /scratch/<user>
    # IO500 bash logs' io500_system_info values (key io500_workdir, key exec: the [Exec] command lines)
    "x10007": ("logs/jcahpc-ofp/io-500-summary.2018.10.22-14.52.58.txt", 55),     # /work/<project>/<user>
    "xg17i000": ("logs/jcahpc-ofp/io-500-summary.2018.10.22-14.52.58.txt", 60),   # ... in an [Exec] line
    "k202079": ("logs/dkrz-mistral-l1/io-500-summary.2018.05.12-13.55.14.txt", 36),  # /home/<group>/<user>
    # DAOS pool and container labels and UUIDs
    "bzinthenne_36engine": ("logs/zib-lise/ior-easy-read.txt", 3),
    "cont01_rf0": ("logs/zib-lise/ior-easy-read.txt", 3),
    "mypool": ("logs/anl-aurora/ior-easy-read.txt", 3),
    "mycont": ("logs/anl-aurora/ior-easy-read.txt", 3),
    "fe1349ec-d68a-486c-b13e-440c0a17f459": ("logs/intel-wolf/ior_easy_read.txt", 1),
    "df387677-10df-43c0-8ace-2c11885f8992": ("logs/intel-wolf/ior_easy_read.txt", 7),
    # site paths in IOR and mdtest commands and in a failed run's reason
    "/tmp/bench/data/ior/fpp": ("logs/built-tools/ior_posix_fpp_1m_np2_i3.log", 3),
    "/tmp/bench/data/does/not/exist": ("logs/built-tools/ior_error_nonexistent_dir_np2.log", 3),
    "/tmp/bench/data/md": ("logs/built-tools/mdtest_error_multi_dir_shared_np2.log", 4),
    "/tmp/expand/xpn": ("logs/bsc-marenostrum/ior-easy-read.txt", 3),
    "/gpfs/flash": ("logs/cra-lucia/ior-hard-read.txt", 3),
    # host names IOR prints
    "sc071": ("logs/asu-io500/acchapm1__asu-io500__results__20260518T152012Z-pre-maint__ior-easy-write.txt", 4),
    "fx00.cloud.r-ccs.riken.jp": ("logs/riken-fx700/ior-easy-read.txt", 4),
    "wolf-134.wolf.hpdd.intel.com": ("logs/intel-wolf/ior_easy_read.txt", 8),
    "cns001.lucia.cenaero.be": ("logs/cra-lucia/ior-hard-read.txt", 4),
    # a file of the previous build only
    "kunkel": ("previous/dkrz-mistral/mdtest_easy_write.txt", 4),
    "dkrz-mistral": ("previous/dkrz-mistral/mdtest_easy_write.txt", 0),  # its folder (line 0: the file's path)
}


def test_originals_are_where_the_test_says():
    for original, (rel, line) in ORIGINALS.items():
        text = rel if line == 0 else (ANON_FIXTURES / rel).read_text(encoding="utf-8").splitlines()[line - 1]
        assert original in text, (original, rel, line)


def _site_texts(site: Path) -> dict[str, str]:
    """Every file of the built site as text: Parquet through DuckDB (every value of every column), the rest
    decoded, with HTML and JSON escapes undone."""
    texts = {}
    for f in sorted(p for p in site.rglob("*") if p.is_file()):
        if f.suffix == ".parquet":
            con = duckdb.connect()
            text = json.dumps(con.execute("SELECT * FROM read_parquet(?)", [str(f)]).fetchall(), default=str,
                              ensure_ascii=False)
            con.close()
        else:
            text = f.read_bytes().decode("utf-8", errors="replace")
        texts[str(f.relative_to(site))] = html.unescape(
            text.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&").replace("\\/", "/"))
    return texts


@pytest.fixture(scope="module")
def anonymised_site(tmp_path_factory) -> Path:
    """`python -m iobook book --anonymize` in a copy of this checkout with the Data and Your runs chapters only:
    first on the logs plus PREVIOUS, then (same database) on the logs alone: the site of the second build."""
    import os
    import shutil
    import subprocess
    import sys

    import yaml
    from conftest import SHARED

    checkout = copy_checkout(tmp_path_factory.mktemp("checkout") / "iobook")
    registry = yaml.safe_load((checkout / "notebooks" / "chapters.yml").read_text(encoding="utf-8"))
    registry["chapters"] = [c for c in registry["chapters"] if c["name"] in ("your_runs", "data")]
    config = checkout / "notebooks" / "anonymised.yml"
    config.write_text(yaml.safe_dump(registry, sort_keys=False), encoding="utf-8")
    tree = tmp_path_factory.mktemp("logs") / "tree"
    shutil.copytree(ANON_FIXTURES / "logs", tree)
    shutil.copytree(PREVIOUS.parent, tree / PREVIOUS.parent.name)
    env = {**os.environ, "PYTHONPATH": str(checkout), "IOBOOK_SHARED": str(SHARED)}
    command = [sys.executable, "-m", "iobook", "book", "--anonymize", "--quiet", "--data", str(tree),
               "--db", str(checkout / "data" / "anon.duckdb"), "--config", str(config)]
    for _ in ("previous build", "this build"):
        built = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
        shutil.rmtree(tree / PREVIOUS.parent.name, ignore_errors=True)
    return checkout / "_build" / build_name([tree]) / "_build" / "html"  # a build on other data keeps its own site


@pytest.mark.slow
def test_anonymised_book_holds_no_original(anonymised_site):
    texts = _site_texts(anonymised_site)
    kinds = {Path(p).suffix for p in texts}
    assert {".html", ".csv", ".parquet"} <= kinds, kinds
    assert any("sources.parquet" in p for p in texts)
    leaks = sorted({(original, path) for original in ORIGINALS for path, text in texts.items()
                    if re.search(rf"(?<![A-Za-z0-9]){re.escape(original)}(?![A-Za-z0-9])", text)})
    assert leaks == []
    # ... the export holds the IO500 logs' io500_workdir and [Exec] values (1 and 12 lines in each of the two
    # bash logs, ANON_FIXTURES/README.md), their user folders pseudonyms
    con = duckdb.connect()
    info = con.execute("SELECT key, count(*), count(*) FILTER (value LIKE '%/path-%' OR value LIKE '%user-%') "
                       "FROM read_parquet(?) WHERE key IN ('io500_workdir', 'exec') GROUP BY key ORDER BY key",
                       [str(next(anonymised_site.rglob("io500_system_info.parquet")))]).fetchall()
    con.close()
    assert info == [("exec", 24, 24), ("io500_workdir", 2, 2)]
    # ... and the pages still show the runs: each log's name is on the Your runs or Data page
    pages = texts["book/data.html"] + texts["book/your_runs.html"]
    assert "ior_posix_fpp_1m_np2_i3.log" in pages and "mdtest_easy_stat.txt" in pages


@pytest.mark.slow
def test_previous_build_files_are_absent(anonymised_site):
    texts = _site_texts(anonymised_site)
    digest = hashlib.sha256(PREVIOUS.read_bytes()).hexdigest()
    assert [p for p, text in texts.items() if digest in text or "dkrz-mistral" in text] == []
    # the export's sources are exactly this build's files (the logs' own count, ANON_FIXTURES/logs)
    con = duckdb.connect()
    parquet = next(anonymised_site.rglob("sources.parquet"))
    (rows, gone) = con.execute("SELECT count(*), count(*) FILTER (status = 'gone') FROM read_parquet(?)",
                               [str(parquet)]).fetchone()
    con.close()
    assert gone == 0 and rows == sum(1 for f in (ANON_FIXTURES / "logs").rglob("*") if f.is_file())
