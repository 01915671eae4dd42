"""The chapter registry (notebooks/chapters.yml) and the runner that executes chapters with papermill.

The registry is the one list of chapters: `_toc.yml`, the README's chapter table and the landing page's
chapter list are generated from it (`python -m iobook registry`). A chapter `<name>` has its template at
`notebooks/<name>.ipynb`, its executed copy at `book/<name>.ipynb` and its study, the package
`iobook/studies/<name>/`.

The executed chapters of data/raw are the published book: they are committed, and `make test` executes them
again and compares (nbval). A chapter re-executes only when its inputs changed: its template, its parameters,
the files of the tools it reads (their content, status and path as readers see it: relative, so the same on
every checkout), the published and reference tables it read when it last ran (it glues their names) with the
reference tables the database is derived from, and its code (code_files: the modules its study imports, the
notebook layer and what makes the database, so an edit to one study executes its chapter alone). All but the
code are digested into the notebook's metadata. The code's digest is kept beside the notebooks in a file git ignores
(EXECUTED): a change to the code re-executes the chapters of this checkout, while a fresh clone trusts its
committed chapters (nbval checks them against the code), so a code change that leaves a chapter's outputs
as they were rewrites nothing and conflicts with nothing. A chapter is rewritten only when the executed
notebook differs from the one it replaces; one whose downloads are missing (they are not committed) is
executed to write them. Jupyter Book's own cache sees only code, not the data in DuckDB. When a chapter
fails, its partial notebook (with the traceback in the failing cell) is kept in _build/reports/ and the
chapter it would have replaced stays.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..database import root, source_labels, store
from ..database.digest import files_digest, named_digest
from ..database.sql import query

REPO_ROOT = root.ROOT  # the checkout, or the sources a plain install unpacked (iobook.database.root)
REGISTRY = REPO_ROOT / "notebooks" / "chapters.yml"
REPORTS = REPO_ROOT / "_build" / "reports"
# What a chapter's output depends on besides its template, parameters and the files it reads: tables of
# the repository (digested into the notebook: the ones it read when it last ran, iobook.database.digest.tables_read, and the
# reference tables ingest derives the database from; all of these where it never ran), and code (digested into
# EXECUTED only): the modules its study imports, the notebook layer and what makes the database (code_files).
REFERENCE = "data/reference"
PUBLISHED = "data/published"
TABLE_INPUTS = (PUBLISHED, REFERENCE)
TABLE_SUFFIX = ".csv"
PACKAGE = "iobook"
CODE_BASE = Path(__file__).resolve().parents[2]  # the folder holding this package: a checkout, or site-packages
CODE_ROOTS = ("iobook.book.nb", "iobook.database.ingest")  # every chapter's kernel imports nb; ingest makes what it reads
LOCK = "requirements.lock"
EXECUTED = ".iobook-executed.json"  # in the chapters' folder: chapter -> digest of the code it last ran with
# Metadata papermill writes that differs on every run or names the machine's paths (input_path, output_path).
VOLATILE_METADATA = ("start_time", "end_time", "duration", "input_path", "output_path")
MARKERS = ("<!-- chapters: generated from notebooks/chapters.yml by `python -m iobook registry` -->",
           "<!-- end of chapters -->")


@dataclass(kw_only=True)
class Chapter:
    name: str
    title: str
    about: str           # one line: what the chapter shows
    data: str            # one line: what it is built from
    reads: list[str]     # tools whose files it reads ("*": every file)
    parameters: dict = field(default_factory=dict)
    headline: bool = True  # its first finding goes on the landing page (false: an inventory, not a result)
    measured: str = "systems"  # what its numbers were measured on: systems, build machine, your logs (build.MEASURED_ON)

    @property
    def template(self) -> Path:
        return REPO_ROOT / "notebooks" / f"{self.name}.ipynb"

    @property
    def output(self) -> Path:
        return REPO_ROOT / "book" / f"{self.name}.ipynb"


def load_registry(config: Path = REGISTRY) -> list[Chapter]:
    import yaml  # here, not at the top: `python -m iobook ingest` imports this module for its defaults

    return [Chapter(**entry) for entry in yaml.safe_load(config.read_text(encoding="utf-8"))["chapters"]]


# --- generated files -------------------------------------------------------------------------------------

def toc_yaml(chapters: list[Chapter]) -> str:
    lines = ["# Generated from notebooks/chapters.yml by `python -m iobook registry`; edit that file instead.",
             "format: jb-book", "root: book/intro", "chapters:", "  - file: book/methods"]
    # the methods page (how every chapter decides) first; the References page (book/references.md: every talk and source the chapters cite) after the chapters
    return "\n".join(lines + [f"  - file: book/{c.name}" for c in chapters] + ["  - file: book/references"]) + "\n"


def chapter_table(chapters: list[Chapter], link: str) -> str:
    """A markdown table of the chapters; `link` formats a chapter's name into its link target."""
    rows = ["| chapter | what it shows | data |", "| --- | --- | --- |"]
    rows += [f"| [{c.title}]({link.format(name=c.name)}) | {c.about} | {c.data} |" for c in chapters]
    return "\n".join(rows)


def _with_table(text: str, table: str, path: Path) -> str:
    start, end = MARKERS
    if start not in text or end not in text:
        raise ValueError(f"{path}: no generated chapter table markers")
    before, rest = text.split(start, 1)
    return before + start + "\n" + table + "\n" + end + rest.split(end, 1)[1]


def generated_files(chapters: list[Chapter]) -> dict[Path, str]:
    """Every file generated from the registry, with the content it should have."""
    readme, intro = REPO_ROOT / "README.md", REPO_ROOT / "book" / "intro.md"
    return {
        REPO_ROOT / "_toc.yml": toc_yaml(chapters),
        readme: _with_table(readme.read_text(encoding="utf-8"), chapter_table(chapters, "book/{name}.ipynb"), readme),
        intro: _with_table(intro.read_text(encoding="utf-8"), chapter_table(chapters, "{name}"), intro),
    }


def write_generated(chapters: list[Chapter]) -> list[Path]:
    """Write the generated files that differ from what the registry gives; return them."""
    changed = []
    for path, text in generated_files(chapters).items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


# --- parameters ------------------------------------------------------------------------------------------

class ParameterError(ValueError):
    """A chapter parameter that cannot run: its key, what is wrong and the nearest valid values."""


def template_parameters(chapter: Chapter) -> dict:
    """The template's parameters cell as {name: default}: the keys a chapter takes and their types."""
    import ast

    nb = json.loads(chapter.template.read_text(encoding="utf-8"))
    cell = next((c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", [])), None)
    defaults = {}
    for node in ast.parse("".join(cell["source"]) if cell else "").body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            defaults[node.targets[0].id] = ast.literal_eval(node.value)
    return defaults


def _run_labels(con) -> list[str]:
    """The labels of the fio, IOR and mdtest files (Your runs' labels: labels.yml, IO500 system or folder)."""
    ids = [i for (i,) in con.execute(query(__package__, "tool_sources"), [list(source_labels.TOOLS)]).fetchall()]
    return sorted(set(source_labels.label_sources(con, ids)[0]["label"])) if ids else []


# Parameters whose value names something the data holds ("" names none): key -> (what it names, its names).
SELECTIONS = {"baseline_label": ("a label of this data", _run_labels)}
NEAREST = 3


def _nearest(value, choices) -> list:
    import difflib

    return difflib.get_close_matches(str(value), [str(c) for c in choices], n=NEAREST, cutoff=0.5)


def check_parameters(con, chapter: Chapter, parameters: dict) -> None:
    """Every parameter the registry gives a chapter, checked the same way before it runs: a key of its template's
    parameters cell, of the type of its default, and a name the data holds
    where it selects by name; else ParameterError naming the key and the nearest valid values."""
    defaults = template_parameters(chapter)
    for key, value in parameters.items():
        def fail(reason: str):
            raise ParameterError(f"{chapter.name}: {key}: {reason}")

        if key not in defaults:
            fail(f"not a parameter of {chapter.name}; nearest: {_nearest(key, defaults) or sorted(defaults)}")
        default = defaults[key]
        numbers = (int, float)
        same_type = (isinstance(value, numbers) and isinstance(default, numbers) and not isinstance(value, bool)
                     if isinstance(default, numbers) and not isinstance(default, bool) else type(value) is type(default))
        if not same_type:
            fail(f"{value!r} is a {type(value).__name__}, the template's default {default!r} a {type(default).__name__}")
        if key in SELECTIONS and value:
            what, names = SELECTIONS[key]
            valid = names(con)
            if value not in valid:
                fail(f"{value!r} is not {what}; nearest: {_nearest(value, valid) or valid[:NEAREST]}")


# --- execution -------------------------------------------------------------------------------------------

def _module_file(module: str) -> Path | None:
    """The source of `module` of this package (its __init__ for a package), or None for anything else."""
    path = CODE_BASE.joinpath(*module.split("."))
    return next((f for f in (path.with_suffix(".py"), path / "__init__.py") if f.is_file()), None)


@functools.cache  # a build digests every chapter's code: each module is parsed once (it took 2 s for 11 chapters)
def _imported(module: str, source: Path) -> frozenset[str]:
    """The modules of this package that `module` imports (statically, relative imports resolved), with the
    packages that hold them (importing a.b.c runs a/__init__ and a/b/__init__)."""
    import ast

    package = (module if source.name == "__init__.py" else module.rpartition(".")[0]).split(".")
    found = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            origin = ".".join(filter(None, [base, node.module]))
            found |= {origin} | {f"{origin}.{a.name}" for a in node.names}
    ours = {m for m in found if m.split(".")[0] == PACKAGE and _module_file(m)}
    return frozenset(ours | {".".join(m.split(".")[:i]) for m in ours for i in range(1, m.count(".") + 1)})


def _package_data(folder: Path):
    """The files of a package's folder that are no code (a study's queries/*.sql), not those of a package in it."""
    for f in folder.rglob("*"):
        inside = f.relative_to(folder).parents  # the folders between, relative: a subpackage holds an __init__.py
        if (f.is_file() and f.suffix not in (".py", ".pyc") and "__pycache__" not in f.parts
                and not any((folder / d / "__init__.py").is_file() for d in inside if d != Path("."))):
            yield f


def code_files(chapter: str) -> list[Path]:
    """The code a chapter's output depends on: every module its study imports, directly or not, the notebook
    layer's, the ingest's that make the database it reads, the files beside those modules in their packages'
    own folders (a study's queries/*.sql, the views), and the lock of the libraries. A change to another study
    executes only that study's chapter."""
    study = f"{PACKAGE}.studies.{chapter}"
    seen, todo = set(), [study, *CODE_ROOTS, *(study.rsplit(".", i)[0] for i in (1, 2))]  # and its packages
    while todo:
        module = todo.pop()
        if module in seen or not (source := _module_file(module)):
            continue
        seen.add(module)
        todo += sorted(_imported(module, source) - seen)
    files = {_module_file(m) for m in seen}
    for folder in {f.parent for f in files if f.name == "__init__.py"}:
        files |= set(_package_data(folder))
    lock = CODE_BASE / LOCK  # an installed package has none: its code is what it is
    return sorted(files | set((CODE_BASE / PACKAGE / "database" / "views").glob("*.sql")) | ({lock} if lock.is_file() else set()))


def code_digest(chapter: str) -> str:
    return files_digest(code_files(chapter), CODE_BASE)


def tables_digest(read: list[str] | None) -> str:
    """The digest of the tables a chapter read (`read`: as glued by its last run; None where it never ran: every
    table), with the reference and published tables the database is derived from. A reference table is read where
    the package reads it (an installed package carries its own: iobook.database.reference)."""
    from ..database import reference
    from ..database.ingest import published_tables, reference_tables

    if read is None:
        read = [p.relative_to(REPO_ROOT).as_posix() for folder in TABLE_INPUTS
                for p in (REPO_ROOT / folder).rglob(f"*{TABLE_SUFFIX}")]
    names = (set(read) | {f"{REFERENCE}/{p.name}" for p in reference_tables()}
             | {f"{PUBLISHED}/{name}{TABLE_SUFFIX}" for name in published_tables()})
    def path(name: str) -> Path:
        table = name.removeprefix(f"{REFERENCE}/")
        return reference.path(table) if table != name else REPO_ROOT / name

    return named_digest((name, path(name)) for name in sorted(names))


def tables_of(nb: dict | None) -> list[str] | None:
    """The tables an executed chapter glued as read (nb.TABLES_READ_KEY), or None (none glued, or no chapter)."""
    import ast

    from .nb import TABLES_READ_KEY

    glued = glued_plain(nb, TABLES_READ_KEY) if nb is not None else None
    return None if glued is None else list(ast.literal_eval(glued))


def files_read(con, chapter: Chapter) -> list[tuple]:
    """(path, sha256, status) of every file of the tools the chapter reads, in path order (files gone
    from the folders are no longer read). Paths relative to the repository, or to the folder above the
    deepest one holding the chapter's files outside it: the same on every checkout of the same files."""
    rows = con.execute(query(__package__, "files_read"), ["*" in chapter.reads, list(chapter.reads)]).fetchall()
    root, base = REPO_ROOT.resolve().as_posix(), store.outside_base(con, REPO_ROOT, [p for p, _, _ in rows])
    shown = [PurePosixPath(p).relative_to(root if PurePosixPath(p).is_relative_to(root) else base) for p, _, _ in rows]
    return [(str(s), sha, status) for s, (_, sha, status) in zip(shown, rows)]


def inputs_digest(chapter: Chapter, parameters: dict, files: list[tuple], tables: str,
                  anonymized: str | None = None) -> str:
    """`anonymized`: the digest of the anonymizer's originals when the outputs are anonymized (so switching
    --anonymize on or off, or a new host name in the data, executes the chapters again)."""
    h = hashlib.sha256()
    h.update(chapter.template.read_bytes())
    h.update(json.dumps(parameters, sort_keys=True).encode())
    h.update(json.dumps(files).encode())
    h.update(tables.encode())
    if anonymized:
        h.update(b"anonymized\0" + anonymized.encode())
    return h.hexdigest()


def _read(output: Path) -> dict | None:
    try:
        return json.loads(output.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


ONLY_IF = "only-if:"  # a cell tagged only-if:<key> shows only when the chapter glued True under <key>


def glued_plain(nb: dict, key: str) -> str | None:
    """The text/plain of the value an executed notebook glued under `key` (myst_nb.glue), or None."""
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == key:
                data = output.get("data", {})
                return "".join(data.get("application/papermill.record/text/plain", data.get("text/plain", "")))
    return None


def _is_current(nb: dict | None, folder: Path, digest: str) -> bool:
    """The executed chapter `nb` (as read from `folder`; None where there is none) was made from these inputs and
    every download it links to exists."""
    from . import charts  # Altair: not for commands that only ingest
    from .downloads import download_refs

    if nb is None or nb["metadata"].get("iobook", {}).get("inputs_digest") != digest:
        return False
    downloads = folder / charts.DOWNLOADS
    return all((downloads / ref).is_file() for ref in download_refs(nb))


def _published(nb: dict, digest: str) -> str:
    """The executed notebook as it is kept: the inputs digest recorded, the code of the cell papermill
    injected hidden as every other cell's is, papermill's timings, paths and random cell id replaced (so
    that executing unchanged inputs again gives the same bytes), and the cells tagged `only-if:<key>` whose
    key was not glued True removed (the prose about data the database does not hold). `nb`: the executed
    notebook as read, changed in place."""
    nb["metadata"]["iobook"] = {"inputs_digest": digest}
    for key in VOLATILE_METADATA:
        nb["metadata"].get("papermill", {}).pop(key, None)
    for cell in nb["cells"]:
        cell["metadata"].pop("execution", None)
        for key in VOLATILE_METADATA:
            cell["metadata"].get("papermill", {}).pop(key, None)
        tags = cell["metadata"].get("tags", [])
        if "injected-parameters" in tags:
            cell["id"] = "injected-parameters"  # papermill gives it a random id on every run
            if "remove-input" not in tags:
                tags.append("remove-input")
        keys = [t.removeprefix(ONLY_IF) for t in tags if t.startswith(ONLY_IF)]
        if any(glued_plain(nb, key) != "True" for key in keys) and "remove-cell" not in tags:
            tags.append("remove-cell")
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def run_chapters(db_path: Path, config: Path = REGISTRY, only: list[str] | None = None,
                 force: bool = False, progress: bool = True, anonymize: bool = False,
                 out_dir: Path | None = None) -> list[dict]:
    """Execute the chapters whose inputs changed into `out_dir` (default book/); return one summary row per
    chapter (status: executed, unchanged when nothing ran, or "same output" when it ran and its notebook
    came out as it was). Download files no chapter links to are deleted. With `anonymize`, every executed
    notebook's outputs and downloads are rewritten with pseudonyms (iobook/book/anonymize.py)."""
    import papermill  # ~2 s to import (nbformat's validators): not for commands that only ingest

    from . import anonymize as anonymize_module
    from . import downloads, kernel

    registry = load_registry(config)
    chapters = [c for c in registry if not only or c.name in only]
    out_dir = Path(out_dir) if out_dir is not None else REPO_ROOT / "book"
    executed_with = _read(out_dir / EXECUTED) or {}
    anon = None
    if anonymize:
        anon = anonymize_module.from_db(Path(db_path), REPO_ROOT, extra_paths=(out_dir.resolve().parent,))
    con = store.open_read(db_path)
    try:
        reads = {c.name: files_read(con, c) for c in chapters}
        refused = {}
        for chapter in chapters:
            try:
                check_parameters(con, chapter, chapter.parameters)
            except ParameterError as e:
                refused[chapter.name] = str(e)
    finally:
        con.close()
    from tqdm import tqdm

    summary = []
    for chapter in tqdm(chapters, desc="chapters", unit="chapter", disable=not progress):
        # db_path relative to the executed copy's folder (the kernel's cwd): no absolute path in the notebook
        output = out_dir / chapter.output.name
        parameters = {**chapter.parameters, "db_path": os.path.relpath(Path(db_path).resolve(), output.parent)}
        kept = _read(output)  # the chapter as it is: the tables it read, and whether it is current
        digest = inputs_digest(chapter, parameters, reads[chapter.name], tables_digest(tables_of(kept)),
                               anon and anon.digest)
        row = {"chapter": chapter.name, "files read": len(reads[chapter.name]), "status": "unchanged", "seconds": 0.0}
        summary.append(row)
        if chapter.name in refused:
            row["status"] = f"FAILED: parameter {refused[chapter.name]}"[:300]
            tqdm.write(f"chapter {refused[chapter.name]}")
            continue
        code = code_digest(chapter.name)
        if not force and executed_with.get(chapter.name, code) == code and _is_current(kept, output.parent, digest):
            executed_with[chapter.name] = code  # a fresh clone's chapters: made by the code it holds
            continue
        started = time.perf_counter()
        running = out_dir / f".{chapter.name}.running.ipynb"  # the published chapter stays until this one is whole
        try:
            kernel.execute(chapter.template, running, parameters, out_dir)
        except papermill.PapermillExecutionError as e:
            reports = REPORTS if out_dir == REPO_ROOT / "book" else out_dir.parent / "reports"
            reports.mkdir(parents=True, exist_ok=True)
            report = reports / output.name
            shutil.move(running, report)
            shown = report.relative_to(REPO_ROOT) if report.is_relative_to(REPO_ROOT) else report
            row.update(status=f"FAILED in cell {e.exec_count}: {e.ename}: {e.evalue}"[:200], report=str(shown))
            tqdm.write(f"chapter {chapter.name}: failed in cell {e.exec_count}: {e.ename}: {e.evalue}\n"
                       f"  partial notebook: {shown}")
        else:
            if anon is not None:
                anonymize_module.anonymize_notebook(anon, running)
            # the tables this run read, which the next run's digest will read back from the chapter
            executed = _read(running)
            read = tables_of(executed)
            text = _published(executed, inputs_digest(chapter, parameters, reads[chapter.name], tables_digest(read),
                                                      anon and anon.digest))
            running.unlink()
            if output.exists() and output.read_text(encoding="utf-8") == text:
                row["status"] = "same output"
            else:
                output.write_text(text, encoding="utf-8")
                row["status"] = "executed"
            executed_with[chapter.name] = code
        row["seconds"] = round(time.perf_counter() - started, 1)
    (out_dir / EXECUTED).write_text(json.dumps(executed_with, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    # downloads of earlier outputs (and with --anonymize the originals the kernels wrote)
    downloads.prune_downloads([out_dir / c.output.name for c in registry], out_dir)
    return summary


def format_summary(summary: list[dict]) -> str:
    width = max(len(r["chapter"]) for r in summary)
    lines = [f"{'chapter':<{width}}  {'files read':>10}  {'seconds':>7}  status"]
    lines += [f"{r['chapter']:<{width}}  {r['files read']:>10,}  {r['seconds']:>7.1f}  {r['status']}" for r in summary]
    return "\n".join(lines)
