"""Every IO500 run's setup, each field with where it came from: what decides what a run may be compared with.

A run is known by more than its labels (institution, system, folder). Its own files say first: the result
files (benchmark version), system-information.txt's io500_info lines (client nodes, storage installed, release),
io500.sh / config.ini and every script beside them (API, DAOS object classes, Storage Scale settings changed while
the benchmark ran), IOR and mdtest command lines. Then a user's `setup.yml` beside the data (path glob -> fields,
as labels.yml; iobook.database.labels), for what the files do not say. Then the curated references of
data/reference/releases.csv and client_links.csv, each row citing its source (client_links.csv names the row of a
talk's published table, data/published/, whose printed words state the links). A network named by its generation
or rate ("InfiniBand HDR", "100GbE") states the rate of one link (data/reference/network_rates.csv: iobook.database.networks);
never a count of links. Nothing is guessed: a field no source states is absent.

Fields (FIELDS) of table io500_run_setup (run_id, field, value, source); view `setups` has a column a field.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path, PurePath, PurePosixPath

import pyarrow as pa

from . import client_bounds, io500_lists, io500_runs, labels, machines, networks, published, reference
from .sql import query

FIELDS = {
    "machine": "one storage system (file-system instance) across its submissions' labels: a comparison's unit",
    "cluster": "the compute cluster the storage system serves, its file systems one unit (machines.machines)",
    "institution": "who ran it",
    "system": "the system's name",
    "filesystem": "the file system's name",
    "family": "file-system family",
    "release": "installed release of the file system's software (never minReleaseLevel)",
    "min_release_level": "Storage Scale minReleaseLevel: the cluster's compatibility floor, not its release",
    "benchmark": "IO500 version the result files print",
    "era": "IO500 generation and list whose rules the run followed",
    "generation": "the benchmark's generation: 2017 script, bash script, C app, or C app in extended mode",
    "list": "the IO500 list the run entered (the site's record, else inferred from its archive year and start)",
    "list_score": "the IO500 score the list published",
    "list_bw_gib_s": "the bandwidth score the list published (GiB/s)",
    "list_md_kiops": "the metadata score the list published (kIOPS)",
    "list_check": "how the list's entry relates to the run's own summary (io500_lists.LIST_CHECKS; detail in source)",
    "list_entry": "the submission whose entry of the site's record list_check reads",
    "api": "I/O interface of IOR and mdtest (POSIX, DFS, MPIIO, ...)",
    "object_classes": "DAOS object classes of its files and directories",
    "protection": "data protection its object classes give (none, replication, erasure code)",
    "client_nodes": "client nodes",
    "procs_per_node": "processes per client node",
    "procs": "MPI processes",
    "stonewall_s": "stonewall time (s)",
    "changed_during_run": "what its scripts change while the benchmark runs",
    "servers": "data server nodes",
    "drives": "data storage devices",
    "server_network": "the data servers' network, as named",
    "client_links": "network links per client node",
    "client_link_gbit_s": "rate of one client link (Gbit/s)",
    "server_links": "network links per data server",
    "server_link_gbit_s": "rate of one server link (Gbit/s)",
    "drive_gb_s": "rate of one data storage device (GB/s)",
    "client_link_bound_gbit_s": "the most one client node's links move where its files state not both their count and "
                                "rate (Gbit/s; client_bounds)",
}
# The fields whose difference a comparison names (History's change points, Your runs' labels): view column -> name
COMPARED = {"benchmark": "IO500 version", "procs": "processes", "release": "release", "client_nodes": "client nodes",
            "api": "API", "protection": "data protection", "changed_during_run": "changed during the run"}
NOT_STATED = "not stated"


def differences(before: dict[str, str | None], after: dict[str, str | None]) -> list[str]:
    """'<name> <before> → <after>' for each COMPARED field two sides state differently (NOT_STATED where a side's
    files do not say, None): what else changed between the runs either side (History's change points, Your runs'
    labels compared)."""
    a, b = ({f: side.get(f) if side.get(f) is not None else NOT_STATED for f in COMPARED} for side in (before, after))
    return [f"{name} {a[f]} → {b[f]}" for f, name in COMPARED.items() if a[f] != b[f]]


TABLES = {"io500_run_setup": {"run_id": pa.int32(), "field": pa.string(), "value": pa.string(),
                              "source": pa.string()},
          "log_setup": {"source_id": pa.int32(), "field": pa.string(), "value": pa.string(), "source": pa.string()}}
# the logs a setup.yml's fields are kept for (an IO500 run's are io500_run_setup's): fio, IOR and mdtest runs
LOG_TOOLS = ("fio", "ior", "mdtest")
SETUP_FILES = ("setup.yml", "setup.yaml")
# curated releases of runs whose files do not state them, each citing its source
RELEASES_CSV = reference.path("releases.csv")
# which row of a talk's published table states the client links of runs whose files do not (seed 000's ESS 3500
# clusters): submission -> the row of PUBLISHED_LINKS, and why it is that row
CLIENT_LINKS_CSV = reference.path("client_links.csv")
PUBLISHED_LINKS = "seed000_ess3500_io500_clients"  # data/published/: the talk's words, a row a cluster
LINKS_COLUMN = "connection per client"

# system-information.txt's io500_info keys (both templates) for each field
INFO_KEYS = {"client_nodes": ("num_client_nodes", "client_nodes", "Site.IO500.information.number_clientNodes"),
             "procs_per_node": ("procs_per_node", "client_procs_per_node", "Site.IO500.information.procsPerNode"),
             "release": ("filesystem_version", "ds_software_version"),
             "servers": ("num_data_server_nodes", "ds_nodes", "Site.StorageSystem.Servers"),
             "drives": ("num_data_storage_devices", "ds_storage_devices"),
             "server_network": ("storage_network", "ds_network"),
             "client_links": ("Site.Supercomputer.Nodes.Interconnect.links",),
             "client_link_gbit_s": ("Site.Supercomputer.Nodes.Interconnect.speed",)}
# the questionnaire's names of the client interconnect, whose generation states a link's rate where no speed does
CLIENT_NETWORK_KEYS = ("Site.Supercomputer.Nodes.Interconnect.type", "Site.Supercomputer.Nodes.Interconnect.model")
# the phase whose IOR log's node count stands for a run's client nodes where no summary states them (IO500 runs
# every IOR phase on the same nodes)
NODES_PHASE = "ior-easy-write"
# a link's rate as the questionnaire prints it ("100 GBit", "200 Gb/s", "25Gbps"): Gbit/s
_GBIT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*G(?:Bit|b)(?:it)?(?:/s|ps)?\s*", re.IGNORECASE)

_OCLASS = re.compile(r"\boclass\s*[= ]\s*[\"']?([A-Z][A-Z0-9_]*)")
_API = re.compile(r"(?:^|\s)(?:API[ \t]*=[ \t]*|-a[ \t]+|--api[= ])([A-Za-z][A-Za-z0-9]*)\b", re.MULTILINE)
# a Storage Scale setting changed at once (-i) by a script that follows the run's result file
_LIVE_CHANGE = re.compile(r"mmchconfig\s+(\S+=\S+)\s+-i")
_FOLLOWS_RUN = re.compile(r"tail\s+-f|result\.txt")
_SIGSTOP = re.compile(r"SIGSTOP|kill\s+-(?:STOP|19)\b")
_FOLDER_RELEASE = re.compile(r"(?:Storage Scale|Spectrum Scale|GPFS|Lustre|DAOS|BeeGFS)\s+v?(\d+\.\d+(?:[.-]\d+)*)")
_ERA = re.compile(r"io500-(isc|sc)(\d\d)")
RESULT_INI = "result-ini"  # the kind of io500_run_members the C app's result.txt is
C_APP, EXTENDED = "C app", "extended"  # era's name of the C app's runs; the mode its extended runs print
# an archive submission: in the archive's folders, or copied out of them and known by its phase values
ARCHIVE_ATTRIBUTIONS = ("archive folders", io500_runs.ARCHIVE_LISTING)


def era(version: str | None, kinds: set[str]) -> str | None:
    """The IO500 generation whose rules a run followed: the 2017 script, the bash script (2018-2019 lists), or
    the C app with the list its version names (io500-isc20_v4 -> 'C app, ISC20')."""
    if version and (m := _ERA.match(version)):
        return f"{C_APP}, {m[1].upper()}{m[2]}"
    if version == "sc17" or kinds & {"sc17-log", "sc17-fragment"}:
        return "2017 script"
    if kinds & {"bash-summary", "bash-log"}:
        return "bash script"
    if not version and RESULT_INI in kinds:  # the C app's result.txt, its [run] section without a version line
        return f"{C_APP}, version not stated"
    return version


def generation(era_text: str | None, mode: str | None) -> str | None:
    """The benchmark's generation from a run's era (the list a C app's version names is no other generation) and
    mode: runs of different generations run different phases and rules and are never pooled (evidence's designs)."""
    if not era_text:
        return None
    base = era_text.split(",")[0]
    return f"{base}, extended mode" if base == C_APP and mode == EXTENDED else base


def protection(classes: set[str]) -> str | None:
    """What DAOS object classes protect: S1/SX/S32 none; RP_<n>G* n-way replication; EC_<k>P<m>* erasure code."""
    kinds = set()
    for c in classes:
        if m := re.match(r"RP_(\d+)", c):
            kinds.add(f"{m[1]}-way replication")
        elif m := re.match(r"EC_(\d+)P(\d+)", c):
            kinds.add(f"erasure code {m[1]}+{m[2]}")
        elif re.match(r"S(\d+|X)\b", c):
            kinds.add("none")
    if not kinds:
        return None
    return "none" if kinds == {"none"} else ("partly none: " if "none" in kinds else "") + ", ".join(sorted(kinds - {"none"}))


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _where(script: io500_runs.Script, folder: str, lines: list[int]) -> str:
    shown = PurePath(script.path).relative_to(folder) if PurePath(script.path).is_relative_to(folder) else script.path
    return f"{shown} line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"


def changed_during_run(script_list: list[io500_runs.Script], folder: str) -> tuple[str, str] | None:
    """(what, where) a run's scripts change while it runs: Storage Scale settings set at once (`mmchconfig ... -i`)
    by a script that follows the run's result file, and its processes stopped (SIGSTOP)."""
    what, where = [], []
    for s in script_list:
        live = [m for m in _LIVE_CHANGE.finditer(s.text) if not s.text[:m.start()].rstrip().endswith("#")]
        if live and _FOLLOWS_RUN.search(s.text):
            what.append("mmchconfig " + ", ".join(dict.fromkeys(m[1] for m in live)) + " -i while it runs")
            where.append(_where(s, folder, [_line(s.text, m.start()) for m in live]))
        stops = list(_SIGSTOP.finditer(s.text))
        if stops and "io500" in s.text:
            what.append("SIGSTOP and SIGCONT of the io500 processes")
            where.append(_where(s, folder, [_line(s.text, m.start()) for m in stops]))
    return ("; ".join(dict.fromkeys(what)), "; ".join(where)) if what else None


def curated(table: Path, *columns: str) -> dict[int, tuple[str, ...]]:
    """submission -> (its `columns`..., source) from a curated reference table (RELEASES_CSV, CLIENT_LINKS_CSV)."""
    with table.open(encoding="utf-8") as f:
        return {int(r["submission"]): (*(r[c] for c in columns), r["source"]) for r in csv.DictReader(f)}


def published_links() -> dict[str, tuple[int, networks.Rate, str]]:
    """Row of PUBLISHED_LINKS -> (links per client, the rate of one, where the talk prints them): read from its
    printed words ("One HDR200-Infiniband connection per client": 1 x HDR, 200 Gbit/s)."""
    table = published.load(PUBLISHED_LINKS)
    out = {}
    for cell in table[table.column == LINKS_COLUMN].itertuples():
        seed_file, _, slide = cell.source.partition(": ")  # "<seed file>: <slide heading>" (its README)
        seed = seed_file.split("_")[0]  # the seed file's name starts with the seed's number
        where = (f"seed {seed} line {cell.line} ({slide.rstrip(':')}): {cell.row}, '{cell.printed}' "
                 f"(data/published/{PUBLISHED_LINKS}.csv)")
        if stated := networks.links(cell.printed):
            out[cell.row] = (*stated, where)
    return out


def _setup_rules(con) -> dict[str, list]:
    rules = {}
    for path, sha in labels.label_files(con, names=SETUP_FILES):
        rules[path] = labels.read_rules(path, sha, fields=tuple(FIELDS))[0]
    return rules


def derive(con, setup_rules: dict[str, list]) -> list[dict]:
    runs = con.execute(query(__package__, "store/setup_runs")).fetchall()
    info: dict[int, dict[str, str]] = {}  # what the run's own summaries print (bash logs' io500_info lines)
    described: dict[int, dict[str, str]] = {}
    for run_id, key, value in con.execute(query(__package__, "store/setup_summary_info")).fetchall():
        if value and not io500_runs.PLACEHOLDER.fullmatch(value.strip()):
            info.setdefault(run_id, {}).setdefault(key, value.strip())
    # what the system-information files in the folder of one of its files or above say (io500_run_system_files),
    # the nearest first; then the run's own summaries win
    for run_id, key, value in con.execute(query(__package__, "store/setup_described_info")).fetchall():
        if value and not io500_runs.PLACEHOLDER.fullmatch(value.strip()):
            described.setdefault(run_id, {}).setdefault(key, value.strip())
    min_release = {run_id: (level, PurePath(path).name) for run_id, level, path in con.execute(
        query(__package__, "store/setup_min_release")).fetchall()}
    # the client nodes a run's IOR log counted (its header's 'nodes'): what ran, where no summary states them
    logged_nodes = dict(con.execute(query(__package__, "store/setup_logged_nodes"), [NODES_PHASE]).fetchall())
    commands = io500_runs.commands(con)
    all_scripts = io500_runs.scripts(con)
    releases = curated(RELEASES_CSV, "release")
    client_links = curated(CLIENT_LINKS_CSV, "published_row")
    talk_links = published_links()
    ports = client_bounds.client_ports(con.execute(query(__package__, "store/setup_verbs_ports")).fetchall())

    by_run: dict[int, dict[str, tuple[str, str]]] = {}
    labelled, installed = {}, {}  # run_id -> (institution, system, file system); (institution, installed, family)
    listed = io500_runs.archive_runs()
    lists = io500_lists.fields([io500_lists.Run(
        run_id=run_id, path=path, submission=submission or listed.get(fingerprint, {}).get("submission"),
        fingerprint=fingerprint, bw_gib_s=bw, md_kiops=md)
        for run_id, path, _, _, _, _, submission, fingerprint, *_, bw, md in runs])
    for (run_id, path, version, mode, procs, stonewall, submission, fingerprint, started, year, institution, system,
         filesystem, family, family_reason, attributed_by, kinds, _, _) in runs:
        submission = submission or listed.get(fingerprint, {}).get("submission")  # a run copied out of the layout
        folder = io500_runs.own_folder(path)
        own_scripts = [s for s in all_scripts if PurePath(s.path).is_relative_to(folder)]
        stated = {**described.get(run_id, {}), **info.get(run_id, {})}
        fields: dict[str, tuple[str, str]] = {}

        def put(field, value, source):
            if value is not None and str(value).strip() and field not in fields:
                fields[field] = (str(value).strip(), source)

        put("institution", institution, attributed_by)
        put("system", system, attributed_by)
        put("filesystem", filesystem, attributed_by)
        put("family", family, family_reason)
        put("benchmark", version, "result files")
        put("era", era(version, set(kinds)), "benchmark version" if version else "result file format")
        put("generation", generation(era(version, set(kinds)), mode),
            "benchmark version and mode" if version else "result file format and mode")
        for field, (value, source) in lists.get(run_id, {}).items():
            put(field, value, source)
        if (attributed_by or "").startswith(ARCHIVE_ATTRIBUTIONS):
            put("list", io500_lists.inferred_list(year, started), io500_lists.INFERRED)
        put("procs", procs, "result files")
        put("stonewall_s", None if stonewall is None else f"{stonewall:g}", "result files")
        for field, keys in INFO_KEYS.items():
            for key in [k for k in keys if k in stated][:1]:
                value = stated[key]
                if field == "client_link_gbit_s":
                    value = (m := _GBIT.fullmatch(value)) and m[1]  # a rate in other units is not stated as one
                put(field, value, f"system-information: {key if '.' in key else 'io500_info_' + key}")
        if "server_network" in fields:  # as its files name it: a setup.yml's name comes later and states no rate
            network, where = fields["server_network"]
            if link := networks.rate(network):
                put("server_link_gbit_s", f"{link.gbit_s:g}", f"{where} '{network}'; {link.source}")
        for key in CLIENT_NETWORK_KEYS:  # a speed the questionnaire states, above, wins (put: the first stays)
            if link := networks.rate(stated.get(key)):
                put("client_link_gbit_s", f"{link.gbit_s:g}",
                    f"system-information: {key} '{stated[key]}'; {link.source}")
        put("client_nodes", logged_nodes.get(run_id), f"{NODES_PHASE} log: nodes")
        folder_release = _FOLDER_RELEASE.search(filesystem or "")
        put("release", folder_release and folder_release[1], "archive folder name")
        if submission in releases:
            put("release", *releases[submission])
        if submission in client_links:
            row, why = client_links[submission]
            count, link, printed = talk_links[row]
            put("client_links", count, f"{printed}; {why}")
            put("client_link_gbit_s", f"{link.gbit_s:g}", f"{printed}; {link.source}; {why}")
        if run_id in min_release:
            put("min_release_level", min_release[run_id][0], f"{min_release[run_id][1]}: minReleaseLevel")
        texts = [*(s.text for s in own_scripts), *commands.get(run_id, [])]
        classes = sorted({m[1] for t in texts for m in _OCLASS.finditer(t)})
        put("object_classes", ", ".join(classes) or None, "config.ini, scripts and command lines (oclass)")
        put("protection", protection(set(classes)), "DAOS object classes")
        apis = sorted({m[1].upper() for t in texts for m in _API.finditer(t)})
        put("api", ", ".join(apis) or None, "config.ini, scripts and command lines (API =, -a)")
        change = changed_during_run(own_scripts, folder)
        if change:
            put("changed_during_run", *change)
        if institution and system:
            labelled[run_id] = (institution, system, filesystem or "", family)  # labels.yml may state no file system
            if stated.get(machines.MACHINE_KEY):
                installed[run_id] = (institution, stated[machines.MACHINE_KEY], family)
        match = labels.first_match(setup_rules, PurePosixPath(PurePath(path).as_posix()))
        if match is not None:
            pattern, user = setup_rules[match[0]][match[1]]
            for field, value in user.items():
                fields.setdefault(field, (value, f"{PurePath(match[0]).name}: {pattern}"))
        if limit := client_bounds.bound(fields, ports.get(run_id), started, year):
            fields.setdefault("client_link_bound_gbit_s", limit)
        by_run[run_id] = fields
    nodes = {run_id: frozenset(names) for run_id, names in con.execute(
        query(__package__, "store/setup_gpfs_nodes")).fetchall()}
    for run_id, machine in machines.machines(labelled, installed, nodes).items():
        by_run[run_id]["machine"] = machine  # what the files say of it comes before a setup.yml's name
    for run_id, cluster in machines.machines(labelled, installed, nodes, by_storage=False).items():
        by_run[run_id]["cluster"] = cluster
    return [{"run_id": run_id, "field": f, "value": v, "source": s}
            for run_id, fields in by_run.items() for f, (v, s) in fields.items()]


def create(con) -> bool:
    return io500_runs.create(con, TABLES)


def derive_logs(con, rules: dict[str, list]) -> list[dict]:
    """Every fio, IOR and mdtest log's setup fields that a setup.yml beside the data states (what the logs do not:
    links and their rate, drives, release, protection...), each with the rule that says so: the log's bound
    (views/setups.sql, log_limits) and what a comparison of two labels names."""
    if not rules:
        return []
    rows = []
    for source_id, path in con.execute(query(__package__, "store/setup_log_sources"), [list(LOG_TOOLS)]).fetchall():
        match = labels.first_match(rules, PurePosixPath(PurePath(path).as_posix()))
        if match is not None:
            pattern, fields = rules[match[0]][match[1]]
            rows += [{"source_id": source_id, "field": field, "value": str(value),
                      "source": f"{PurePath(match[0]).name}: {pattern}"} for field, value in fields.items()]
    return rows


def rebuild(con) -> None:
    rules = _setup_rules(con)  # every setup.yml read once, for IO500 runs and other logs alike
    io500_runs.replace_rows(con, "io500_run_setup", derive(con, rules), TABLES)
    io500_runs.replace_rows(con, "log_setup", derive_logs(con, rules), TABLES)
