"""Stable pseudonyms for a book that is safe to publish (`python -m iobook book --anonymize`).

The database keeps the originals; only what the book shows and exports is rewritten, after each chapter
executes: every string of its outputs (text, Markdown, HTML with the charts' SVG and Vega-Lite JSON), its
injected parameters, the notebook's metadata (papermill's absolute paths) and the download files its
outputs link to (CSV as text, Parquet column by column), which get new names. The Parquet export and every
download hold only the files of this build (iobook/studies/data/views.py: never one gone since a previous build).

What is replaced, each by `<kind>-<8 hex of sha256(SALT, kind, original)>`, the same on every build and
machine (Anonymizer.text, in this order):
  email  every e-mail address
  uuid   every UUID (DAOS pool and container UUIDs: `Pool uuid = ...`, `--dfs.pool=<uuid>`)
  daos   DAOS pool and container labels: the values of --dfs.pool, --dfs.cont, --dfs.group, DAOS_POOL,
         DAOS_CONT, pool= and cont= (not $variables), and, read from the database, wherever they stand as a word
  path   every absolute path but a system one (/usr, /bin, /sbin, /lib*, /etc, /proc, /sys, /dev but
         /dev/shm): its folders before the run's timestamp folder (2023.03.22-18.10.33, 20260518T152012Z),
         or without one before the file name, become one `/path-...` when they are two or more
         (/tmp/bench/data/ior/fpp/ior_file_easy -> /path-.../ior_file_easy); the timestamp folder and what
         follows it stay. Also this checkout, the folder above the ingested files and the IO500 result folders.
  user   login names. In an absolute path: up to 3 name-like folders after a personal root (home, Users,
         users, userexternal, people, staff, students, scratch*, autoScratch, work*, project(s), shm,
         scratchbox, nobackup*), past a year-like number and daos, weekly, daily, shared, hpc, lustre, gpfs:
         /home/users/<user>, /gpfs/<fs>/<project>/scratch/<user>, /scratch/<project>/<user>,
         /gpfs/home/<group>/<user>, /scratchbox/daos/<user>, /dev/shm/<user>. Which of a group, project and
         user folder is the person's cannot be told, so all are taken; a common word (main, data, ...) or a
         folder named like a tool's or run's (io500, ior, bench, results, datafiles, bin, test, run,
         mountdir, submission-N, ...) ends the owner's folders. Read from every string
         of the database, and the build machine's user; once known, a name is replaced wherever it stands,
         also between underscores in a file name (`<user>__asu-io500__results__...`, `<user>_gkfs_mountdir`).
  host   the collectors' host names (runs, run_facts), IOR's rank-0 node (raw_ior_tests.host, its "Machine"
         line), Storage Scale node names (gpfs_nodes: daemon and
         admin names and their short form; node names in gpfs_config scopes), cluster names, and the build
         machine's host name
  ip     IPv4 and IPv6 addresses: every address of gpfs_nodes, and any string that looks like one (a
         dotted quad is an address when it is private, has an octet above 31 or a /prefix; Storage Scale
         versions such as 5.1.7.1 are not), found in the database or in the output itself
Names read from the database are matched as whole words (not inside a longer name: `vm` is replaced in
`vm-2026...` and `/vm/` but not in `vmstat`), longest first, case-sensitively, also in their HTML and JSON
escaped forms. Common words (client, root, users, daos, hpc, ...) are never taken for a name.

What is not replaced: relative paths' folders (`./datafiles/...`, the files' paths as the book shows them,
relative to the folder ingested) but for the names above in them; an absolute path with one folder
(`/datafiles/2023.05.12-03.07.57/...`, `/tmp/dfuse`) but for a login name in it; system paths; timestamps,
file names, numbers, tool versions and options; DAOS object classes; institution, system and file-system
names the IO500 archive's folders publish; a login name that no path, label or owner shows (in free text
only); owner fields of `ls -l` listings (no format iobook reads prints one).
"""
from __future__ import annotations

import getpass
import hashlib
import html
import ipaddress
import json
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import duckdb

from ..database import store
from ..database.sql import query, statement
from . import downloads

SALT = "iobook-anonymize-1"  # a project constant: the same original gives the same pseudonym everywhere
KINDS = ("host", "ip", "user", "path", "daos", "uuid", "email")
PSEUDONYM = re.compile(rf"(?:/?(?:{'|'.join(KINDS)}))-[0-9a-f]{{8}}")

# Never names: node classes, roles, file systems and folders that are words, not machines or people.
GENERIC = frozenset("""
    localhost login master client clients server servers node nodes compute computes mgmt manager managers
    quorum admin root user users userexternal home work scratch shared share data public group groups
    project projects apps software local opt tmp test tests bench benchmark benchmarks io500 daos lustre
    gpfs beegfs nfs all none common amd intel nvidia cesnodes storage storagenodegrp ess cluster
    hpc weekly daily nobackup fs flash main acceptance res prod production release stable backup archive
""".split())
# Folders after which a login name stands (after group folders and generic words: /home/users/<user>,
# /gpfs/<fs>/<project>/scratch/<user>, /scratchbox/daos/<user>, /dev/shm/<user>, /work/<project>/<user>).
PERSONAL_ROOT = re.compile(r"(?i)home\d*|users?|userexternal|people|staff|students|scratch\w*|autoscratch|work\d*"
                           r"|projects?|shm|scratchbox|nobackup\w*")
OWNER_FOLDERS = 3  # at most this many folders after a root are taken as the owner's (group, project, user)
# Folders between a root and the name (/scratchbox/daos/<user>, /autoScratch/weekly/<user>,
# /work/hpc/users/<user>); any other common word there ends the search (/work/main/data/...)
BEFORE_NAME = frozenset({"daos", "weekly", "daily", "shared", "hpc", "lustre", "gpfs"})
# Pieces of a folder name (split at - _ . and digits) that make it a tool's or run's folder, not a person's.
TOOL_WORDS = frozenset("""
    io io500 ior mdtest pfind bench benchmark benchmarks benchmarking result results data datafiles bin test
    tests teste run runs config configs cfg mount mountdir mnt install git src build tmp dfuse app dev sif
    submission
""".split())
# System folders whose paths are shown as they are; every other absolute path is a site's.
SYSTEM_ROOTS = frozenset({"usr", "bin", "sbin", "lib", "lib32", "lib64", "etc", "proc", "sys"})
RUN_STAMP = re.compile(r"\d{4}[.-]\d\d[.-]\d\d[-_T.]\d\d[.:]?\d\d|\d{8}T\d{6}")  # 2023.03.22-18.10.33, 20260518T152012Z

_WORD = "A-Za-z0-9_"
_USER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{2,31}")
_PATH = re.compile(r"(?<![\w.~:/\\+%-])/[\w.+%~-]+(?:/[\w.+%~-]*)*")  # absolute, not inside a URL or a/b
_DAOS_LABEL = re.compile(r"(--dfs\.(?:pool|cont|group)[= ]+|DAOS_(?:POOL|CONT)[= ]+|\b(?:pool|cont)=)"
                         r"(['\"]?)([A-Za-z0-9_.:\-]+)")
_UUID = re.compile(r"(?<![0-9A-Fa-f-])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
                   r"(?![0-9A-Fa-f-])")
_EMAIL = re.compile(r"(?<![\w.+%-])[\w.+%-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
_IPV4 = re.compile(rf"(?<![{_WORD}.\-])(\d{{1,3}}(?:\.\d{{1,3}}){{3}})(?![{_WORD}]|\.\d)(/\d{{1,2}}(?!\d))?")
_IPV6 = re.compile(rf"(?<![{_WORD}:.])([0-9A-Fa-f]{{0,4}}(?::[0-9A-Fa-f]{{0,4}}){{2,7}})(?![{_WORD}:])")
_SQL_IPV4 = r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}"
_SQL_IPV6 = r"[0-9A-Fa-f]::|::[0-9A-Fa-f]|([0-9A-Fa-f]{1,4}:){7}"
_SQL_NAMES = r"/[A-Za-z]|dfs\.|DAOS_|pool=|cont="  # values that may hold a path or a DAOS label
# a name starts after a non-word character or after a JSON escape (\n, \u003c: `a \u003cvm`)
_ESCAPED = r"(?<=\\[nrtbf])|(?<=\\u[0-9a-fA-F]{4})"
BINARY_OUTPUTS = ("image/png", "image/jpeg", "image/gif")  # base64: nothing to match in them


def pseudonym(kind: str, original: str) -> str:
    digest = hashlib.sha256(f"{SALT}\0{kind}\0{original}".encode()).hexdigest()[:8]
    return f"/path-{digest}" if kind == "path" else f"{kind}-{digest}"


def is_address(quad: str, prefix: str | None = None, known: frozenset[str] = frozenset()) -> bool:
    """A dotted quad that is an IPv4 address rather than a version number: known, with a /prefix, in a
    private, shared or loopback range, or with an octet above 31 (versions have small parts)."""
    octets = [int(p) for p in quad.split(".")]
    if any(o > 255 for o in octets):
        return False
    if quad in known or prefix:
        return True
    address = ipaddress.IPv4Address(quad)
    shared = address in ipaddress.IPv4Network("100.64.0.0/10")
    return address.is_private or address.is_loopback or shared or any(o > 31 for o in octets)


def _ipv6(token: str) -> bool:
    if len(token) < 3 or ("::" not in token and token.count(":") != 7) or not re.search("[0-9A-Fa-f]", token):
        return False
    try:
        ipaddress.IPv6Address(token)
    except ValueError:
        return False
    return True


def addresses_in(text: str, known: frozenset[str] = frozenset()) -> set[str]:
    found = {m[1] for m in _IPV4.finditer(text) if is_address(m[1], m[2], known)}
    return found | {m[1] for m in _IPV6.finditer(text) if _ipv6(m[1])}


def _owner_like(name: str) -> bool:
    """A folder that can be a person's (or their group's or project's): a name, not a tool's or run's folder."""
    pieces = {p.lower() for p in re.split(r"[-_.\d]+", name) if p}
    return (bool(_USER_NAME.fullmatch(name)) and name.lower() not in GENERIC and not PSEUDONYM.fullmatch(name)
            and not RUN_STAMP.search(name) and not pieces & TOOL_WORDS and not re.fullmatch(r"(?i)i?sc\d\d", name))


def owner_folders(path: str) -> list[int]:
    """Indexes (in path.split("/")) of the folders of an absolute path that stand where a login name does:
    up to OWNER_FOLDERS name-like folders after a personal root (home, scratch, work, project, users, shm, ...)
    and the generic words or group folders that follow it (/home/users/<user>, /gpfs/home/<group>/<user>,
    /scratch/<project>/<user>, /scratchbox/daos/<user>). Which of them is the person's cannot be told, so
    all are taken."""
    parts = path.split("/")
    found: list[int] = []
    taken = None  # folders taken since the last root; None: no root yet
    for i, part in enumerate(parts):
        if PERSONAL_ROOT.fullmatch(part):
            taken = 0
        elif taken is None or taken >= OWNER_FOLDERS:
            continue
        elif taken == 0 and (part.lower() in BEFORE_NAME or part.isdigit() or not part):
            continue  # /scratchbox/daos/, /work/1/: the name comes after
        elif _owner_like(part):
            found.append(i)
            taken += 1
        else:
            taken = None
    return found


def users_in(text: str) -> set[str]:
    """Login names from the folders of the absolute paths in `text` (owner_folders)."""
    found = set()
    for m in _PATH.finditer(text):
        parts = m[0].split("/")
        found |= {parts[i] for i in owner_folders(m[0])}
    return found


def daos_labels_in(text: str) -> set[str]:
    """DAOS pool and container labels (--dfs.pool=, --dfs.cont=, DAOS_POOL=): never a variable ($DAOS_POOL)."""
    return {m[3] for m in _DAOS_LABEL.finditer(text) if not PSEUDONYM.fullmatch(m[3]) and not _UUID.fullmatch(m[3])}


def site_path(path: str) -> str:
    """An absolute path with its site's folders replaced: the folders before the run's timestamp folder (or,
    without one, before the file name) become one `path` pseudonym when they are two or more; shorter paths
    keep their folder with the login names in it replaced. System paths (/usr, /etc, /proc, ...) stay."""
    parts = path.split("/")
    if len(parts) < 3 or parts[1] in SYSTEM_ROOTS or (parts[1] == "dev" and parts[2] != "shm"):
        return path
    cut = next((i for i, p in enumerate(parts) if i and RUN_STAMP.search(p)), len(parts) - 1)
    folders = [p for p in parts[1:cut] if p]
    if len(folders) >= 2 and not all(PSEUDONYM.fullmatch(p) for p in folders):
        return pseudonym("path", "/".join(parts[:cut])) + "/" + "/".join(parts[cut:])
    for i in owner_folders(path):
        parts[i] = pseudonym("user", parts[i])
    return "/".join(parts)


def _host_like(name: str) -> bool:
    """A node name in an mmlsconfig scope, not a node class word: letters and digits, not a common word."""
    return (bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_.\-]{1,62}", name)) and bool(re.search(r"\d", name))
            and name.lower() not in GENERIC)


def _rows(con, name: str) -> list:
    """The rows of the query `name` (queries/<name>.sql)."""
    try:
        return con.execute(query(__package__, name)).fetchall()
    except duckdb.CatalogException:  # a database made before the view existed
        return []


def originals(con, repo_root: Path, extra_paths: tuple[Path, ...] = ()) -> dict[str, str]:
    """original -> kind, from the database (read-only) and the build machine."""
    found: dict[str, str] = {}

    def add(kind: str, name: str | None) -> None:
        name = (name or "").strip()
        if kind == "host" and (len(name) < 2 or name.lower() in GENERIC or not re.search("[A-Za-z0-9]", name)):
            return
        if name and not PSEUDONYM.fullmatch(name):
            found.setdefault(name, kind)

    def add_path(path: str | os.PathLike) -> None:
        p = PurePosixPath(str(path))
        if p.is_absolute() and len(p.parts) >= 3:  # /a/b at least: never / or /home alone
            add("path", str(p))

    # hosts
    for (h,) in _rows(con, "run_hosts") + _rows(con, "ior_hosts") + _rows(con, "fact_hostnames"):
        add("host", h)
        add("host", (h or "").split(".")[0])
    nodes = set()
    for daemon, admin, ip in _rows(con, "gpfs_nodes"):
        for name in (daemon, admin):
            if name:
                nodes |= {name, name.split(".")[0]}
        add("ip", ip)
    for name in nodes:
        add("host", name)
    for (cluster,) in _rows(con, "gpfs_clusters"):
        if cluster and cluster.lower() not in GENERIC:
            add("host", cluster)
            rest = cluster.split(".", 1)[-1]  # <name>.<primary server>
            if rest in nodes or rest.split(".")[0] in nodes:
                add("host", rest)
    for (scope,) in _rows(con, "gpfs_node_scopes"):
        for name in (scope or "").split(","):
            if name.strip() in nodes or _host_like(name.strip()):
                add("host", name.strip())
    for (value,) in _rows(con, "gpfs_subnets"):
        for name in re.findall(r"/([A-Za-z][A-Za-z0-9_.\-]*)", value or ""):  # 10.2.1.0/<cluster>
            if name.lower() not in GENERIC:
                add("host", name)
    hostname = socket.gethostname()
    add("host", hostname)
    add("host", hostname.split(".")[0])

    # addresses and users in any string of the database
    known_ips = frozenset(n for n, k in found.items() if k == "ip")
    columns = _rows(con, "text_columns")
    for table, column in columns:
        # the table and column: names from the database's own catalogue, quoted (sql.statement)
        values = con.execute(statement(__package__, "text_values_like_names", table=table, column=column),
                             [_SQL_IPV4, _SQL_IPV6, _SQL_NAMES]).fetchall()
        for (value,) in values:
            for ip in addresses_in(value, known_ips):
                add("ip", ip)
            for user in users_in(value):
                add("user", user)
            for label in daos_labels_in(value):
                add("daos", label)
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    if _USER_NAME.fullmatch(user) and user.lower() not in GENERIC:
        add("user", user)

    # absolute path prefixes
    add_path(repo_root.resolve())
    for p in extra_paths:
        add_path(Path(p).resolve())
    add_path(Path.home())
    base = store.outside_base(con, repo_root)
    if base:
        add_path(base)
    for (result_dir,) in _rows(con, "absolute_result_dirs"):
        add_path(PurePosixPath(result_dir).parent)
    return found


def _json(t: str) -> str:
    return json.dumps(t, ensure_ascii=False)[1:-1]


# The forms a string takes inside the outputs: as is, HTML-escaped, JSON-escaped, JSON in a script element
# (charts.script_safe), JSON in an HTML attribute.
ESCAPES = (lambda t: t, html.escape, lambda t: html.escape(t, quote=False), _json, lambda t: json.dumps(t)[1:-1],
           lambda t: _json(t).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"),
           lambda t: html.escape(_json(t)))


def _trie_pattern(words) -> str:
    """One regex matching any of `words`, the longest first (a trie: fast on long text)."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


@dataclass(kw_only=True)
class Anonymizer:
    kinds: dict[str, str]                      # original -> kind
    mapping: dict[str, str] = field(init=False)  # original -> pseudonym

    def __post_init__(self):
        self.mapping = {o: pseudonym(k, o) for o, k in self.kinds.items()}
        self._replace: dict[str, str] = {}
        for original, fake in self.mapping.items():
            for escape in ESCAPES:
                self._replace.setdefault(escape(original), escape(fake))
        self._known_ips = frozenset(o for o, k in self.kinds.items() if k == "ip")
        words = sorted(self._replace, key=len, reverse=True)
        self._pattern = (re.compile(rf"(?:(?<![{_WORD}])|{_ESCAPED})(?:{_trie_pattern(words)})(?![{_WORD}])")
                         if words else None)
        # login names also between underscores, as file names join them: <user>__results, <user>_gkfs_mountdir
        users = sorted((o for o, k in self.kinds.items() if k == "user"), key=len, reverse=True)
        self._users = (re.compile(rf"(?:(?<![A-Za-z0-9])|{_ESCAPED})(?:{_trie_pattern(users)})(?![A-Za-z0-9])")
                       if users else None)

    @property
    def digest(self) -> str:
        """Changes with the set of originals: chapters executed with another set are executed again."""
        return hashlib.sha256(json.dumps([SALT, sorted(self.kinds.items())]).encode()).hexdigest()

    def text(self, s: str) -> str:
        """`s` with every original replaced: e-mail addresses, UUIDs and DAOS labels where they stand, then
        absolute paths (site_path), then the names read from the database as whole words (login names also
        inside a file name: `<user>__results`, `<user>_gkfs_mountdir`), then addresses."""
        s = _EMAIL.sub(lambda m: pseudonym("email", m[0]), s)
        s = _UUID.sub(lambda m: pseudonym("uuid", m[0]), s)
        s = _DAOS_LABEL.sub(lambda m: m[0] if PSEUDONYM.fullmatch(m[3])
                            else m[1] + m[2] + pseudonym("daos", m[3]), s)
        s = _PATH.sub(lambda m: site_path(m[0]), s)
        if self._pattern is not None:
            s = self._pattern.sub(lambda m: self._replace[m[0]], s)
        if self._users is not None:
            s = self._users.sub(lambda m: pseudonym("user", m[0]), s)
        s = _IPV4.sub(lambda m: (pseudonym("ip", m[1]) + (m[2] or "")) if is_address(m[1], m[2], self._known_ips)
                      else m[0], s)
        return _IPV6.sub(lambda m: pseudonym("ip", m[1]) if _ipv6(m[1]) else m[0], s)

    def value(self, v):
        """Every string inside lists and dicts (notebook JSON), except base64 images."""
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {k: (x if k in BINARY_OUTPUTS else self.value(x)) for k, x in v.items()}
        return v


def from_db(db_path: Path, repo_root: Path, extra_paths: tuple[Path, ...] = ()) -> Anonymizer:
    from ..database import store

    con = store.open_read(db_path)
    try:
        return Anonymizer(kinds=originals(con, repo_root, extra_paths))
    finally:
        con.close()


# --- executed notebooks and their downloads ------------------------------------------------------------

def _anonymized_file(anon: Anonymizer, src: Path) -> bytes:
    if src.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        table = pq.read_table(src)
        columns = []
        for column in table.columns:
            if pa.types.is_dictionary(column.type):
                column = column.cast(column.type.value_type)
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                unique = pc.unique(column)
                mapped = [None if v is None else anon.text(v) for v in unique.to_pylist()]
                if mapped != unique.to_pylist():
                    column = pa.array(mapped, column.type).take(pc.index_in(column, value_set=unique))
            elif pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):  # sources.path_bytes
                column = pa.array([None if v is None else anon.text(v.decode("utf-8", "surrogateescape"))
                                   .encode("utf-8", "surrogateescape") for v in column.to_pylist()], column.type)
            columns.append(column)
        out = pa.BufferOutputStream()
        pq.write_table(pa.table(columns, names=table.column_names), out)
        return out.getvalue().to_pybytes()
    if src.suffix in (".csv", ".tsv", ".txt", ".json", ".md", ".html", ".svg"):
        return anon.text(src.read_text(encoding="utf-8")).encode()
    raise ValueError(f"{src}: cannot anonymize a .{src.suffix.lstrip('.')} download; add its format to "
                     "iobook/book/anonymize.py or do not publish it")


def anonymize_notebook(anon: Anonymizer, path: Path) -> None:
    """Rewrite an executed notebook in place: outputs, injected parameters and metadata; its downloads are
    written anonymized under new names (top-level files by the hash of their new content, files in a folder
    into `<folder>-anon`) and its links point to them. The original download files stay until `prune`."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"] = anon.value(nb.get("metadata", {}))
    for cell in nb["cells"]:
        if "outputs" in cell:
            cell["outputs"] = anon.value(cell["outputs"])
        cell["metadata"] = anon.value(cell.get("metadata", {}))
        if "injected-parameters" in cell.get("metadata", {}).get("tags", []):
            cell["source"] = anon.value(cell["source"])
    folder, href = downloads.location()
    folder = path.parent / folder
    renamed = {}
    for rel in sorted(downloads.download_refs(nb)):
        src = folder / rel
        if not src.is_file():
            continue
        data = _anonymized_file(anon, src)
        parts = PurePosixPath(rel).parts
        new = (PurePosixPath(f"{hashlib.sha256(data).hexdigest()[:16]}{src.suffix}") if len(parts) == 1
               else PurePosixPath(parts[0] + "-anon", *parts[1:]))
        (folder / new).parent.mkdir(parents=True, exist_ok=True)
        if not (folder / new).is_file() or (folder / new).read_bytes() != data:
            (folder / new).write_bytes(data)
        renamed[f"{href.rstrip('/')}/{rel}"] = f"{href.rstrip('/')}/{new}"
    if renamed:
        links = re.compile("|".join(re.escape(k) for k in sorted(renamed, key=len, reverse=True)))
        for cell in nb["cells"]:
            if "outputs" in cell:
                cell["outputs"] = json.loads(links.sub(lambda m: renamed[m[0]], json.dumps(cell["outputs"])))
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
