"""The one reader of `labels.yml` / `labels.csv`: what a user states about the files below the labels file.

An entry maps a path glob (fnmatch, `*` also crosses folders; matched against the path below the labels file's
folder or one of the folders on it) to a label, or to fields:

```yaml
system-a: fast disks              # a label (Your runs compares labels)
"aurora/*":                       # fields; IO500 runs below take their system and family from here
  label: Aurora
  institution: Argonne National Laboratory
  system: Aurora
  family: DAOS
```
A CSV has the columns pattern (or path), label and, optionally, institution, system and family. The nearest
labels file above a file decides, and its first matching entry. Your runs reads the label; IO500 ingest reads
institution, system and family (iobook.database.io500_runs.attribute).
"""
from __future__ import annotations

import csv
import fnmatch
import hashlib
import io
from pathlib import Path, PurePosixPath

from .sql import query

FILES = ("labels.yml", "labels.yaml", "labels.csv")
FIELDS = ("label", "institution", "system", "family")

Rule = tuple[str, dict[str, str]]  # (path glob, the fields it states)


def _fields(value, fields: tuple[str, ...] = FIELDS) -> dict[str, str]:
    """An entry's value: a label (text) or a mapping of `fields`; empty values and unknown keys dropped."""
    if isinstance(value, dict):
        return {k: str(v).strip() for k, v in value.items() if k in fields and v is not None and str(v).strip()}
    return {"label": str(value).strip()} if value is not None and str(value).strip() else {}


def read_rules(path: str, sha256: str | None = None, fields: tuple[str, ...] = FIELDS) -> tuple[list[Rule], list[str]]:
    """(pattern, fields) pairs of a labels file (or a setup.yml: `fields` are iobook.database.setups'), in file order, and
    notes on what could not be used. With `sha256`, the file is read as ingest saw it: one changed or gone since
    gives a note and no rules."""
    name = PurePosixPath(path).name
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return [], [f"cannot be read ({e.strerror}): its labels are not applied"]
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        return [], ["changed since it was ingested: rebuild the book to apply it"]
    text = data.decode("utf-8", errors="replace")
    if name.lower().endswith(".csv"):
        rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].lstrip().startswith("#")]
        header = ["pattern", "label"]
        if rows and [c.strip().lower() for c in rows[0][:2]] in (["pattern", "label"], ["path", "label"]):
            header = ["pattern", *(c.strip().lower() for c in rows[0][1:])]
            rows = rows[1:]
        entries = [(r[0].strip(), _fields(dict(zip(header[1:], r[1:])), fields)) for r in rows if r]
        good = [(p, f) for p, f in entries if p and f]
        skipped = len(rows) - len(good)
        return good, [f"{skipped} row(s) without a pattern and a label, skipped"] if skipped else []
    import yaml  # pinned (the registry is read with it); imported here as only this reader needs it

    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return [], [f"not YAML{f' (line {mark.line + 1})' if mark else ''}: its labels are not applied"]
    if not isinstance(doc, dict):
        return [], ["not a mapping of path globs to labels: its labels are not applied"]
    good = [(str(k), f) for k, v in doc.items() if k is not None and (f := _fields(v, fields))]
    skipped = len(doc) - len(good)
    return good, [f"{skipped} entr{'y' if skipped == 1 else 'ies'} without a label, skipped"] if skipped else []


def matches(pattern: str, relative: PurePosixPath) -> bool:
    """A glob (fnmatch: `*` also crosses folders) matches a file's path below the labels file's folder, or
    one of the folders on that path: `system-a` labels everything under system-a/."""
    pattern = pattern.strip().strip("/")
    return any(fnmatch.fnmatchcase(str(p), pattern) for p in [relative, *relative.parents] if str(p) != ".")


def first_match(rules: dict[str, list[Rule]], path: PurePosixPath) -> tuple[str, int] | None:
    """(labels file, index of its entry) deciding `path`: the nearest labels file above it with a matching
    entry, its first one. `rules` maps labels files to their rules, the deepest first."""
    for labels_path, file_rules in rules.items():
        folder = PurePosixPath(labels_path).parent
        if not path.is_relative_to(folder):
            continue
        hit = next((i for i, (pattern, _) in enumerate(file_rules) if matches(pattern, path.relative_to(folder))), None)
        if hit is not None:
            return labels_path, hit
    return None


def label_files(con, names: tuple[str, ...] = FILES) -> list[tuple[str, str]]:
    """(path, sha256) of every labels file (or other file of these `names`: setup.yml) ingest saw, the deepest
    first."""
    return con.execute(query(__package__, "labels/label_files"), [list(names)]).fetchall()
