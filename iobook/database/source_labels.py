"""Each source's label, the name a reader knows its runs by: the first matching pattern of the nearest `labels.yml`
/ `labels.csv` above its file (path glob: label), else the system of the IO500 run whose phase log it is, else its
file's top folder under the DATA folder holding it (for a database plain ingests added to, under the deepest folder
holding every file ingested). Your runs compares labels;
History keeps each label's runs a history of their own (one machine's runs are never another's). And each source's
design (`designs`): the collector run it belongs to, else the tool and version its log prints."""
from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import PurePosixPath

import pandas as pd

from . import labels, store
from .sql import query

TOOLS = ("fio", "ior", "mdtest", "dlio")  # the tools whose runs are labelled


def data_paths(con) -> list[PurePosixPath]:
    """The folders and files a book was built from (DATA, resolved, as a pruned ingest recorded them); none for a database
    that plain ingests added to."""
    held = store.get_state(con, store.DATA_PATHS_STATE)
    return [PurePosixPath(p) for p in json.loads(held)] if held else []


def data_root(con) -> PurePosixPath | None:
    """The folder runs are labelled under: the one DATA folder a book was built from, else the deepest folder
    holding every file the database read (and did not lose since)."""
    folders = [str(PurePosixPath(p).parent) for (p,) in
               con.execute(query(__package__, "store/present_source_paths")).fetchall()]
    common = PurePosixPath(os.path.commonpath(folders)) if folders else None
    given = data_paths(con)
    return given[0] if len(given) == 1 and common is not None and common.is_relative_to(given[0]) else common


def folder_label(path: PurePosixPath, root: PurePosixPath | None, given: list[PurePosixPath]) -> str:
    """A file's label from its folders: its top folder under the DATA folder holding it (the README's rule: one
    system folder with configurations under it is one label), else under the data's root; a file directly in it
    takes that folder's name."""
    holding = [g for g in given if path.is_relative_to(g) and path != g]
    base = max(holding, key=lambda g: len(g.parts)) if holding else root
    parts = path.relative_to(base).parts if base is not None and path.is_relative_to(base) else path.parts
    return parts[0] if len(parts) > 1 else (base.name if base is not None else path.parent.name)


def io500_systems(con) -> dict[int, str]:
    """source_id -> the system of the IO500 run whose phase log the file is (io500_phase_log_links); the
    institution, then the file system, are added where the name alone is not unique among those runs."""
    df = store.frame(con, __package__, "labels/io500_systems")
    if df.empty:
        return {}
    name = df["system"].astype(str)
    for extra in ("institution", "filesystem"):
        shared = df.groupby(name)[extra].transform("nunique") > 1
        name = name.where(~shared, name + " · " + df[extra].astype(str))
    return dict(zip(df["source_id"].astype(int), name))


def label_sources(con, source_ids: Iterable[int]) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Each source's label and what gave it (`labelled_by`: a labels file's pattern, 'IO500 run' or
    'folder'); the labels files found (file, patterns, files labelled); and notes (a labels file that
    cannot be used, patterns that label nothing), the paths in them as readers see them."""
    ids = sorted({int(s) for s in source_ids})
    paths = dict(con.execute(query(__package__, "labels/source_paths"), [ids]).fetchall())
    root, given = data_root(con), data_paths(con)
    label_files = labels.label_files(con)
    shown = dict(zip([p for p, _ in label_files], store.reader_paths(con, pd.Series([p for p, _ in label_files], dtype=str))))
    notes, rules = [], {}
    for path, sha in label_files:
        rules[path], problems = labels.read_rules(path, sha)
        notes += [f"{shown[path]}: {problem}" for problem in problems]
    systems = io500_systems(con)
    used: dict[tuple[str, int], int] = {}
    rows = []
    for source_id in ids:
        path = PurePosixPath(paths[source_id])
        label = by = None
        match = labels.first_match(rules, path)
        if match is not None and (fields := rules[match[0]][match[1]][1]).get("label", fields.get("system")):
            labels_path, hit = match
            label, by = fields.get("label", fields.get("system")), f"{shown[labels_path]}: {rules[labels_path][hit][0]}"
            used[match] = used.get(match, 0) + 1
        if label is None and source_id in systems:
            label, by = systems[source_id], "IO500 run"
        if label is None:
            label, by = folder_label(path, root, given), "folder"
        rows.append({"source_id": source_id, "label": label, "labelled_by": by})
    files = []
    for labels_path, file_rules in rules.items():
        unused = [p for i, (p, _) in enumerate(file_rules) if (labels_path, i) not in used]
        if unused:
            notes.append(f"{shown[labels_path]}: {len(unused)} pattern(s) label no fio, IOR, mdtest or DLIO file: "
                         + ", ".join(unused[:5]) + (", …" if len(unused) > 5 else ""))
        files.append({"labels file": shown[labels_path], "patterns": len(file_rules),
                      "files labelled": sum(n for (lp, _), n in used.items() if lp == labels_path)})
    return (pd.DataFrame(rows, columns=["source_id", "label", "labelled_by"]),
            pd.DataFrame(files, columns=["labels file", "patterns", "files labelled"]), notes)


COLLECTOR_RUN = "collector run "  # a design that is one collector run: this, then its folder's name


def designs(con, source_ids: Iterable[int]) -> dict[int, str]:
    """source_id -> its design (Your runs' DESIGN_RULE): 'collector run <folder>' for a file a collector's manifest lists,
    else the tool and version the log prints ('ior 3.4.0+dev'; 'fio, version not stated')."""
    rows = con.execute(query(__package__, "labels/designs"), [sorted({int(s) for s in source_ids})]).fetchall()
    return {source_id: COLLECTOR_RUN + folder if folder else f"{tool} {version}" if version
            else f"{tool}, version not stated" for source_id, tool, version, folder in rows}
