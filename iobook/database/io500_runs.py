"""IO500 runs: group the summary files that describe one run, and recompute its score (io500_scores).

Files are one run when their content says so, never their names: identical bytes, or phase values
that agree wherever both files report a phase while one file's phases are a subset of the other's
(result.txt + result_summary.txt of one results folder; a bash result_summary.txt and the
io-500-summary.<ts>.txt log it was copied from; the 2017 log and its per-phase snippets). Two
summaries with different values in one folder are two runs. Candidates are compared within one
archive submission (the ``.../<year>/submission-<id>`` folder), so a run submitted twice stays one
run per submission; files outside that layout are compared with each other.

``rebuild`` recomputes every table from the raw io500 tables, so its output depends only on their
content: run_id is the smallest member source_id, and the same files give the same rows.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePath, PurePosixPath

import pandas as pd
import pyarrow as pa

from ..parsers.io500 import RULES_MIN_STONEWALL_S, STANDARD_BW_PHASES
from . import families, reference
from .io500_scores import (SCORE_TOLERANCE, check_score, recompute, relative_difference, required_md_phases,
                           rounding_bound, scores_from_logs)
from .sql import query

# Which member a run's values come from first: the INI keeps 6 decimals and per-phase remarks.
KIND_PRIORITY = {"result-ini": 0, "summary": 1, "bash-summary": 1, "stdout": 2, "bash-log": 2,
                 "sc17-log": 2, "sc17-fragment": 3}

TABLES = {
    "io500_run_members": {"run_id": pa.int32(), "source_id": pa.int32(), "role": pa.string()},
    "io500_run_info": {
        "run_id": pa.int32(), "path": pa.string(), "io500_version": pa.string(), "mode": pa.string(),
        "started": pa.string(), "result_dir": pa.string(), "procs": pa.int64(), "stonewall_s": pa.float64(),
        "complete": pa.bool_(), "institution": pa.string(), "system": pa.string(), "filesystem": pa.string(),
        "year": pa.int32(), "submission": pa.int32(), "fingerprint": pa.string()},
    "io500_run_phases": {
        "run_id": pa.int32(), "position": pa.int32(), "phase": pa.string(), "value": pa.float64(),
        "unit": pa.string(), "time_s": pa.float64(), "scored": pa.bool_(), "valid": pa.bool_(),
        "stonewall_s": pa.float64(), "source_id": pa.int32(), "procs": pa.int64()},
    "io500_run_scores": {
        "run_id": pa.int32(), "score_rule": pa.string(), "bw_gib_s": pa.float64(), "md_kiops": pa.float64(),
        "score": pa.float64(), "x_bw_gib_s": pa.float64(), "x_md_kiops": pa.float64(), "x_score": pa.float64(),
        "reported_bw_gib_s": pa.float64(), "reported_md_kiops": pa.float64(), "reported_score": pa.float64(),
        "reported_score_native": pa.float64(), "reported_x_score": pa.float64(), "score_matches": pa.bool_(),
        "score_check": pa.string(), "valid": pa.bool_(), "invalid_reasons": pa.string()},
    # the score again with each phase's value from its own IOR/mdtest log where one is linked (io500_phase_logs)
    # who ran it, on what, when: from the archive's folders where the run's own files agree, else from its own
    # files (io500_info lines, IOR/mdtest command lines, file names), else labels.yml; see attribute()
    "io500_run_attribution": {
        "run_id": pa.int32(), "name": pa.string(), "institution": pa.string(), "system": pa.string(),
        "filesystem": pa.string(), "family": pa.string(), "family_reason": pa.string(), "year": pa.int32(),
        "attributed_by": pa.string(), "files_family": pa.string(), "files_evidence": pa.string()},
    "io500_run_scores_from_logs": {
        "run_id": pa.int32(), "bw_gib_s": pa.float64(), "md_kiops": pa.float64(), "score": pa.float64(),
        "phases_from_logs": pa.int32(), "reported_score": pa.float64(), "matches_reported": pa.bool_()},
}
_SQL_TYPES = {pa.int32(): "INTEGER", pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.string(): "VARCHAR",
              pa.bool_(): "BOOLEAN"}


def create(con, tables: dict = TABLES) -> bool:
    """Create the derived `tables` (name -> columns). True when one was added (or its columns changed) to a
    database holding files: the caller (store) then marks the derived tables stale, so the next ingest fills them
    even when no file changed."""
    existing = {r[0] for r in con.execute(query(__package__, "store/table_names")).fetchall()}
    stale = "sources" in existing and not tables.keys() <= existing
    for name, columns in tables.items():  # a derived table whose columns changed is rebuilt from scratch
        if name in existing and [c for (c,) in con.execute(
                query(__package__, "store/table_columns"), [name]).fetchall()] != list(columns):
            con.execute(query(__package__, "store/derived_drop").format(table=name))
            stale = True
    for name, columns in tables.items():
        cols = ", ".join(f"{col} {_SQL_TYPES[t]}" for col, t in columns.items())
        con.execute(query(__package__, "store/derived_create").format(table=name, columns=cols))
    return stale


# ---------------------------------------------------------------- grouping

@dataclass(kw_only=True)
class _File:
    source_id: int
    path: str
    sha256: str
    kind: str
    fields: dict
    phases: list[dict]
    flags: list[dict]

    @property
    def priority(self) -> tuple[int, int]:
        return KIND_PRIORITY[self.kind], self.source_id

    def phase_key(self) -> dict[str, float]:
        """Phase values that identify a run (zeros, e.g. the unscored timestamp phase, say nothing)."""
        return {p["phase"]: round(p["value"], 3) for p in self.phases if p["value"]}


def same_run(a: _File, b: _File) -> bool:
    if a.sha256 == b.sha256:
        return True
    ka, kb = a.phase_key(), b.phase_key()
    common = ka.keys() & kb.keys()
    if not common or any(ka[p] != kb[p] for p in common):
        return False
    if not (ka.keys() <= kb.keys() or kb.keys() <= ka.keys()):
        return False
    sa, sb = a.fields["reported_score"], b.fields["reported_score"]
    return sa is None or sb is None or relative_difference(sa, sb) <= SCORE_TOLERANCE


_SUBMISSION = re.compile(r"submission-(\d+)")


def archive_location(path: str) -> dict:
    """institution/system/file system/year/submission-<id> from the archive's folder layout, else nulls."""
    parts = PurePath(path).parts
    for i in range(len(parts) - 1, 3, -1):
        m = _SUBMISSION.fullmatch(parts[i])
        if m and re.fullmatch(r"\d{4}", parts[i - 1]):
            return {"institution": parts[i - 4], "system": parts[i - 3], "filesystem": parts[i - 2],
                    "year": int(parts[i - 1]), "submission": int(m.group(1)), "scope": str(PurePath(*parts[: i + 1]))}
    return {"institution": None, "system": None, "filesystem": None, "year": None, "submission": None, "scope": None}


def group_files(files: list[_File]) -> list[list[_File]]:
    """Union of pairs that are the same run, within each submission; groups ordered by smallest id."""
    parent = {f.source_id: f.source_id for f in files}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_scope: dict[str | None, list[_File]] = {}
    for f in sorted(files, key=lambda f: f.source_id):
        by_scope.setdefault(archive_location(f.path)["scope"], []).append(f)
    for members in by_scope.values():
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if same_run(a, b):
                    ra, rb = root(a.source_id), root(b.source_id)
                    parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[_File]] = {}
    for f in files:
        groups.setdefault(root(f.source_id), []).append(f)
    return [sorted(g, key=lambda f: f.priority) for _, g in sorted(groups.items())]


# ---------------------------------------------------------------- assembling a run

def _first(members: list[_File], field: str):
    return next((m.fields[field] for m in members if m.fields[field] is not None), None)


def _where(m: _File, line: int) -> str:
    return f"{PurePath(m.path).name}:{line}"


def assemble(members: list[_File]) -> dict:
    """One run's rows from its member files (ordered best source first)."""
    run_id = min(m.source_id for m in members)
    primary = members[0]
    phases: dict[str, dict] = {}
    for m in members:
        for p in sorted(m.phases, key=lambda p: p["position"]):
            if p["phase"] not in phases or (phases[p["phase"]]["value"] is None and p["value"] is not None):
                phases[p["phase"]] = {**p, "source_id": m.source_id}
    invalid_phases = {p["phase"] for m in members for p in m.phases if p["invalid"]}
    invalid_phases |= {f["phase"] for m in members for f in m.flags if f["severity"] == "invalid" and f["phase"]}
    rule = primary.fields["score_rule"]
    mode = _first(members, "mode")
    stonewall = _first(members, "stonewall_s")
    values = {name: p["value"] for name, p in phases.items() if p["scored"] and p["value"] is not None}
    extended = mode == "extended" or _first(members, "reported_x_score") is not None
    scores = recompute(values, rule, extended)

    reasons = []
    for m in members:
        for f in m.flags:
            if f["severity"] == "invalid":
                reasons.append(f"INVALID {f['message']} ({_where(m, f['line'])})")
    # 0 switched the bash script's stonewall off: every phase then ran to completion, which was valid
    if stonewall and stonewall < RULES_MIN_STONEWALL_S:
        reasons.append(f"stonewall {stonewall:g} s < {RULES_MIN_STONEWALL_S:g} s")
    missing = [p for p in STANDARD_BW_PHASES + required_md_phases(rule) if p not in values]
    if missing:
        reasons.append("missing phases: " + ", ".join(missing))
    zero = [name for name, v in values.items() if v <= 0]
    if zero:
        reasons.append("zero phases: " + ", ".join(zero))
    complete = any(m.fields["complete"] for m in members)
    if not complete:
        reasons.append("run did not finish (no final score)")
    reasons = list(dict.fromkeys(reasons))

    reported = next((m for m in members if m.fields["reported_score"] is not None), None)
    resolutions = {name: p["resolution"] for name, p in phases.items()}
    matches, check = check_score(scores, reported.fields if reported else None, rule, missing, rounding_bound(values, resolutions, rule))
    location = archive_location(primary.path)
    fingerprint = hashlib.sha256(repr(sorted(primary.phase_key().items())).encode()).hexdigest()[:16]
    info = {"run_id": run_id, "path": str(PurePath(primary.path).parent),
            "io500_version": _first(members, "io500_version"), "mode": mode, "started": _first(members, "started"),
            "result_dir": _first(members, "result_dir"), "procs": _first(members, "procs"), "stonewall_s": stonewall, "complete": complete,
            **{k: location[k] for k in ("institution", "system", "filesystem", "year", "submission")},
            "fingerprint": fingerprint}
    rf = reported.fields if reported else {}
    score_row = {
        "run_id": run_id, "score_rule": rule, "bw_gib_s": scores.bw_gib_s, "md_kiops": scores.md_kiops,
        "score": scores.score, "x_bw_gib_s": scores.x_bw_gib_s, "x_md_kiops": scores.x_md_kiops,
        "x_score": scores.x_score, "reported_bw_gib_s": rf.get("reported_bw_gib_s"),
        "reported_md_kiops": rf.get("reported_md_kiops"),
        # a product score (first scripts) is not on the sqrt scale: it is kept as reported_score_native
        "reported_score": rf.get("reported_score") if rule == "sqrt" else None,
        "reported_score_native": rf.get("reported_score"),
        "reported_x_score": rf.get("reported_x_score"), "score_matches": matches, "score_check": check,
        "valid": not reasons, "invalid_reasons": "; ".join(reasons) or None}
    phase_rows = [{"run_id": run_id, "position": i, "phase": name, "value": p["value"], "unit": p["unit"],
                   "time_s": p["time_s"], "scored": p["scored"],
                   "valid": name not in invalid_phases and p["value"] is not None and p["value"] > 0,
                   "stonewall_s": p["stonewall_s"], "source_id": p["source_id"], "procs": p.get("procs")}
                  for i, (name, p) in enumerate(phases.items())]
    roles = []
    seen_sha = set()
    for m in sorted(members, key=lambda m: m.source_id):
        roles.append({"run_id": run_id, "source_id": m.source_id, "role": "copy" if m.sha256 in seen_sha else m.kind})
        seen_sha.add(m.sha256)
    return {"io500_run_members": roles, "io500_run_info": [info], "io500_run_phases": phase_rows,
            "io500_run_scores": [score_row]}


# ---------------------------------------------------------------- rebuild

def _load_files(con) -> list[_File]:
    def dict_rows(sql: str) -> list[dict]:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    files = dict_rows(query(__package__, "store/io500_files"))
    phases, flags = {}, {}
    for p in dict_rows(query(__package__, "store/io500_file_phases")):
        phases.setdefault(p["source_id"], []).append(p)
    for f in dict_rows(query(__package__, "store/io500_file_flags")):
        flags.setdefault(f["source_id"], []).append(f)
    return [_File(source_id=f["source_id"], path=f["path"], sha256=f["sha256"], kind=f["kind"], fields=f,
                  phases=phases.get(f["source_id"], []),
                  flags=flags.get(f["source_id"], [])) for f in files]


# ---------------------------------------------------------------- attribution

LINKED_TABLES = ("io500_run_scores_from_logs", "io500_run_attribution")  # need the runs' phase logs linked first
# the archive's runs by the fingerprint of their phase values (scripts/io500_archive_reference.py)
ARCHIVE_RUNS_CSV = reference.path("io500_archive_runs.csv")
ARCHIVE_LISTING = f"the IO500 archive's listing of the same phase values (data/reference/{ARCHIVE_RUNS_CSV.name})"


@cache
def archive_runs() -> dict[str, dict]:
    """fingerprint -> institution, system, filesystem, year, submission of the archive's run with those values."""
    import csv

    with ARCHIVE_RUNS_CSV.open(newline="", encoding="utf-8") as f:
        return {r["fingerprint"]: {**r, "year": int(r["year"]), "submission": int(r["submission"])}
                for r in csv.DictReader(f)}
UNKNOWN = "attribution unknown"
# a declared value that states nothing: the bash template's 'xxx', 'unknown', 'n/a', '-', ''
PLACEHOLDER = re.compile(r"x+|unknown|none|n/?a|tbd|-*|\?*", re.IGNORECASE)
PRE_GA = "early pre-GA build"  # how the IO500 archive's folders name the release of IBM's 722 and 731
DECLARED_KEYS = {"institute_name": "institution", "system_name": "system", "filesystem": "filesystem",
                 "filesystem_type": "filesystem"}
_DATE = re.compile(r"(\d{4})[.-](\d{2})[.-](\d{2})[-_ T]?(\d{2})?[.:]?(\d{2})?")
# folder names that name no run: the results folder, a timestamp folder
GENERIC_FOLDER = re.compile(r"results?|output|io500|\d{4}[.-]\d{2}[.-]\d{2}[-_.T\d:]*", re.IGNORECASE)


def _declared(con) -> dict[int, dict[str, str]]:
    """run_id -> what its io500_info lines declare (institution, system, filesystem), placeholders left out."""
    out: dict[int, dict[str, str]] = {}
    for run_id, key, value in con.execute(query(__package__, "store/io500_declared_info"),
                                          [list(DECLARED_KEYS)]).fetchall():
        value = (value or "").strip()
        if not PLACEHOLDER.fullmatch(value):
            out.setdefault(run_id, {}).setdefault(DECLARED_KEYS[key], value)
    return out


def commands(con) -> dict[int, list[str]]:
    """run_id -> the command lines of its IOR and mdtest phase logs (io500_phase_log_links), of its result.txt
    (exe) and of its bash log ([Exec]), and the data and result folders its summary states."""
    out: dict[int, list[str]] = {}
    for run_id, command in con.execute(query(__package__, "store/io500_run_commands")).fetchall():
        out.setdefault(run_id, []).append(command or "")
    return out


RUN_SCRIPTS = ("io500.sh", "config.ini")  # what a run was told to do: its workdir, API, lfs setstripe


@dataclass(frozen=True, kw_only=True)
class Script:
    path: str
    text: str


def _as_ingested(path: str, sha256: str) -> str | None:
    """A file's text as ingest saw it (same sha256), else None: a file changed since is not read."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", "replace") if hashlib.sha256(data).hexdigest() == sha256 else None


def scripts(con) -> list[Script]:
    """Every shell script and INI file ingest saw (io500.sh, config.ini, IBM's find_script/*.sh, LRZ's
    io500.daos.*.sh), with its text, in path order."""
    rows = con.execute(query(__package__, "store/script_sources")).fetchall()
    return [Script(path=p, text=t) for p, sha in rows if (t := _as_ingested(p, sha)) is not None]


def _run_scripts(con) -> dict[str, str]:
    """folder -> the text of the io500.sh and config.ini files in it (comments dropped: the bash template's
    comments mention `lfs setstripe` and every file system), as ingest saw them (same sha256)."""
    out: dict[str, str] = {}
    for script in scripts(con):
        if PurePath(script.path).name in RUN_SCRIPTS:
            lines = (re.sub(r"\s[#;].*$|^\s*[#;].*$", "", line) for line in script.text.splitlines())
            folder = str(PurePath(script.path).parent)
            out[folder] = out.get(folder, "") + "\n".join(lines) + "\n"
    return out


def own_folder(path: str) -> str:
    """The folder holding a run's own files: below an archive submission folder, its first subfolder (a
    submission may bundle several runs' folders), else the submission folder; outside the layout, the run's
    folder's parent (results/<timestamp> -> the folder holding results/ and io500.sh)."""
    scope = archive_location(path)["scope"]
    if scope is not None:
        below = PurePath(path).relative_to(scope).parts
        return str(PurePath(scope, below[0])) if below else scope
    return str(PurePath(path).parent)


def run_name(path: str, started: str | None) -> str:
    """A name a reader recognises for a run outside the archive layout: the nearest folder that is not a
    results or timestamp folder, and the date of its timestamp folder (else the start its files print)."""
    parts = PurePath(path).parts
    folder = next((p for p in reversed(parts) if not GENERIC_FOLDER.fullmatch(p)), parts[-1] if parts else "run")
    when = next((m for p in reversed(parts) if (m := _DATE.search(p))), None) or _DATE.search(started or "")
    if when is None:
        return folder
    y, mo, d, h, mi = when.groups()
    return f"{folder} {y}-{mo}-{d}" + (f" {h}:{mi}" if h and mi else "")


def _year(started: str | None, path: str) -> int | None:
    when = _DATE.search(started or "") or _DATE.search(PurePath(path).name)
    return int(when.group(1)) if when else None


def attribute(con) -> list[dict]:
    """Each run's institution, system, file system, family and year, and what says so (`attributed_by`).

    - In the archive layout the folders say, unless the submission folder is a bundle: its runs' own files
      declare (io500_info_institute_name) more than one institution. In a bundle a run keeps the folders'
      attribution only if it declares the folders' institution; a run declaring another is attributed to
      what it declares (year: its own start); any other run is "attribution unknown" (family "unknown").
    - Outside the layout (and where the folders' file-system name gives no family) the run's own files say:
      declared io500_info values, and the family from the declared file-system name, then from its command
      lines and file names (iobook.database.families.from_marks).
    - Outside the layout, a run whose files declare no institution but whose phase values are those of a run of
      the IO500 archive (data/reference/io500_archive_runs.csv) is that run: institution, system, file system.
    - A labels.yml/labels.csv entry matching the run's folder sets institution, system and family last.
    `files_family`, `files_evidence`: what the run's command lines, io500.sh, config.ini and file names say of its
    file system and API, whatever decided its family (e.g. "DFS API ..." for a DAOS run).
    """
    from . import labels

    info = con.execute(query(__package__, "store/io500_run_paths")).fetchall()
    fingerprints = dict(con.execute(query(__package__, "store/io500_run_fingerprints")).fetchall())
    listed = archive_runs()
    declared, run_commands = _declared(con), commands(con)
    commands_below: dict[str, list[str]] = {}
    names_below: dict[str, set[str]] = {}
    for (path,) in con.execute(query(__package__, "store/present_source_paths")).fetchall():
        for folder in PurePath(path).parents:
            names_below.setdefault(str(folder), set()).add(PurePath(path).name)
    for folder, text in _run_scripts(con).items():
        for parent in [PurePath(folder), *PurePath(folder).parents]:
            commands_below.setdefault(str(parent), []).append(text)
    institutions_in: dict[str, set[str]] = {}
    for run_id, path, _ in info:
        scope = archive_location(path)["scope"]
        if scope and "institution" in declared.get(run_id, {}):
            institutions_in.setdefault(scope, set()).add(declared[run_id]["institution"].casefold())
    rules = {}
    for labels_path, sha in labels.label_files(con):
        rules[labels_path] = labels.read_rules(labels_path, sha)[0]
    archive = pd.DataFrame([{**archive_location(path), "run_id": run_id} for run_id, path, _ in info],
                           columns=["run_id", "institution", "system", "filesystem", "year", "submission", "scope"])
    in_layout = archive[archive.filesystem.notna()]
    by_folders = families.resolve(in_layout).set_index("run_id") if len(in_layout) else pd.DataFrame()

    rows = []
    for run_id, path, started in info:
        loc = archive_location(path)
        own = declared.get(run_id, {})
        marks = families.from_marks(run_commands.get(run_id, []) + commands_below.get(own_folder(path), []),
                                    names_below.get(own_folder(path), ()))
        bundle = loc["scope"] is not None and len(institutions_in.get(loc["scope"], ())) > 1
        row = {"run_id": run_id, "name": run_name(path, started) if loc["scope"] is None else
               own_folder(path).removeprefix(str(PurePath(loc["scope"]).parent) + "/") if bundle
               else f"submission-{loc['submission']}"}
        confirms = own.get("institution", "").casefold() == (loc["institution"] or "").casefold()
        if loc["scope"] is not None and (not bundle or confirms):
            family, reason = by_folders.loc[run_id, ["family", "family_reason"]]
            row.update(institution=loc["institution"], system=loc["system"], filesystem=loc["filesystem"],
                       year=loc["year"], attributed_by="archive folders" + (
                           f", confirmed by its io500_info in bundle {loc['scope'].rsplit('/', 1)[-1]}" if bundle else ""))
            if family in families.UNSTATED:
                family, reason = _own_family(own, marks, family, reason)
        elif loc["scope"] is not None and "institution" not in own:
            family, reason = "unknown", (f"{UNKNOWN}: {loc['scope'].rsplit('/', 1)[-1]} bundles runs of several "
                                         "institutions and this run's files declare none"
                                         + (f" (they suggest {marks[0]}: {marks[1]})" if marks[0] else ""))
            row.update(institution=None, system=None, filesystem=None, year=None, attributed_by=UNKNOWN)
        elif loc["scope"] is None and "institution" not in own and fingerprints[run_id] in listed:
            known = listed[fingerprints[run_id]]
            family, reason = families.resolve(pd.DataFrame([{**known, "run_id": run_id}])).iloc[0][["family", "family_reason"]]
            if family in families.UNSTATED:
                family, reason = _own_family(own, marks, family, reason)
            row.update(institution=known["institution"], system=known["system"], filesystem=known["filesystem"],
                       year=known["year"], attributed_by=f"{ARCHIVE_LISTING}: submission-{known['submission']}")
        else:
            family, reason = _own_family(own, marks, "unknown", "its files state no file system")
            row.update(institution=own.get("institution"), system=own.get("system"),
                       filesystem=own.get("filesystem"), year=_year(started, path),
                       attributed_by="its own files (io500_info)" if own else "its own files" if family != "unknown"
                       else UNKNOWN)
        match = labels.first_match(rules, PurePosixPath(PurePath(path).as_posix()))
        if match is not None:
            stated = rules[match[0]][match[1]][1]
            for field in ("institution", "system"):
                row[field] = stated.get(field, row[field])
            if "family" in stated:
                family, reason = stated["family"], f"labels.yml: {rules[match[0]][match[1]][0]}"
            if stated.keys() & {"institution", "system", "family"}:
                row["attributed_by"] = f"{PurePath(match[0]).name}: {rules[match[0]][match[1]][0]}"
        rows.append({**row, "family": family, "family_reason": reason, "files_family": marks[0],
                     "files_evidence": marks[1]})
    return rows


def _own_family(own: dict, marks: tuple[str | None, str], family: str, reason: str) -> tuple[str, str]:
    """The family the run's own files state (declared file-system name, then command lines and file names),
    else the given one."""
    stated = families.from_declared(own.get("filesystem"))
    if stated:
        return stated, f"io500_info_filesystem={own['filesystem']}"
    if marks[0]:
        return marks[0], marks[1]
    return family, reason


def replace_rows(con, name: str, rows: list[dict], tables: dict = TABLES) -> None:
    """The rows of derived table `name` (its columns in `tables`) replaced by `rows`."""
    con.execute(query(__package__, "store/derived_clear").format(table=name))
    if rows:
        con.register("_io500_rows", pa.Table.from_pylist(rows, pa.schema(tables[name])))
        con.execute(query(__package__, "store/derived_insert").format(table=name))
        con.unregister("_io500_rows")


def rebuild(con) -> None:
    rows: dict[str, list[dict]] = {name: [] for name in TABLES}
    for members in group_files(_load_files(con)):
        for table, table_rows in assemble(members).items():
            rows[table].extend(table_rows)
    for name in TABLES:
        if name not in LINKED_TABLES:
            replace_rows(con, name, rows[name])
    # from the runs just written, through the io500_phase_logs view that links them to their logs
    replace_rows(con, "io500_run_scores_from_logs", scores_from_logs(con))
    replace_rows(con, "io500_run_attribution", attribute(con))
