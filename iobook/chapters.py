"""The chapter registry (notebooks/chapters.yml) and the runner that executes chapters with papermill.

The registry is the one list of chapters: `_toc.yml`, the README's chapter table and the landing page's
chapter list are generated from it (`python -m iobook registry`). A chapter `<name>` has its template at
`notebooks/<name>.ipynb`, its executed copy at `book/<name>.ipynb` and its queries in
`iobook/studies/<name>.py`.

A chapter re-executes only when its inputs changed: its template, its parameters, the files of the tools it
reads (their content, status and path) and the package's code and reference tables. Jupyter Book's own
cache sees only code, not the data in DuckDB. When a chapter fails, its partial notebook (with the
traceback in the failing cell) is kept in _build/reports/.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import store
from .digest import files_digest

REPO_ROOT = Path(__file__).resolve().parents[1]
REGISTRY = REPO_ROOT / "notebooks" / "chapters.yml"
REPORTS = REPO_ROOT / "_build" / "reports"
# What a chapter's output depends on besides its template, parameters and data.
CODE_INPUTS = ("iobook", "data/published", "data/reference", "requirements.lock")
MARKERS = ("<!-- chapters: generated from notebooks/chapters.yml by `python -m iobook registry` -->",
           "<!-- end of chapters -->")


@dataclass
class Chapter:
    name: str
    title: str
    about: str           # one line: what the chapter shows
    data: str            # one line: what it is built from
    reads: list[str]     # tools whose files it reads ("*": every file)
    parameters: dict = field(default_factory=dict)

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
             "format: jb-book", "root: book/intro", "chapters:"]
    # the References page (book/references.md: every talk and source the chapters cite) after the chapters
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


# --- execution -------------------------------------------------------------------------------------------

def _code_digest() -> str:
    files = []
    for root in CODE_INPUTS:
        p = REPO_ROOT / root
        files += [f for f in p.rglob("*") if f.is_file() and "__pycache__" not in f.parts] if p.is_dir() else [p]
    return files_digest(files, REPO_ROOT)


def files_read(con, chapter: Chapter) -> list[tuple]:
    """(path, sha256, status) of every file of the tools the chapter reads, in path order (files gone
    from the folders are no longer read)."""
    where = "WHERE status <> 'gone'" + ("" if "*" in chapter.reads else " AND list_contains(?, tool)")
    params = [] if "*" in chapter.reads else [chapter.reads]
    return con.execute(f"SELECT path, sha256, status FROM sources {where} ORDER BY path", params).fetchall()


def inputs_digest(chapter: Chapter, parameters: dict, files: list[tuple], code_digest: str,
                  anonymized: str | None = None) -> str:
    """`anonymized`: the digest of the anonymizer's originals when the outputs are anonymized (so switching
    --anonymize on or off, or a new host name in the data, executes the chapters again)."""
    h = hashlib.sha256()
    h.update(chapter.template.read_bytes())
    h.update(json.dumps(parameters, sort_keys=True).encode())
    h.update(json.dumps(files).encode())
    h.update(code_digest.encode())
    if anonymized:
        h.update(b"anonymized\0" + anonymized.encode())
    return h.hexdigest()


def _executed_digest(output: Path) -> str | None:
    try:
        return json.loads(output.read_text(encoding="utf-8"))["metadata"].get("iobook", {}).get("inputs_digest")
    except (OSError, ValueError, KeyError):
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


def _stamp(output: Path, digest: str) -> None:
    """Record the inputs digest, hide the code of the cell papermill injected, as of every other cell, and
    remove the cells tagged `only-if:<key>` whose key was not glued True (the prose about data the database
    does not hold: its glued values do not exist)."""
    nb = json.loads(output.read_text(encoding="utf-8"))
    nb["metadata"]["iobook"] = {"inputs_digest": digest}
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags and "remove-input" not in tags:
            tags.append("remove-input")
        keys = [t.removeprefix(ONLY_IF) for t in tags if t.startswith(ONLY_IF)]
        if any(glued_plain(nb, key) != "True" for key in keys) and "remove-cell" not in tags:
            tags.append("remove-cell")
    output.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def run_chapters(db_path: Path, config: Path = REGISTRY, only: list[str] | None = None,
                 force: bool = False, progress: bool = True, anonymize: bool = False,
                 out_dir: Path | None = None) -> list[dict]:
    """Execute the chapters whose inputs changed into `out_dir` (default book/); return one summary row per
    chapter. With `anonymize`, every executed notebook's outputs and downloads are rewritten with
    pseudonyms (iobook/anonymize.py), and download files no chapter links to are deleted."""
    import papermill  # ~2 s to import (nbformat's validators): not for commands that only ingest

    registry = load_registry(config)
    chapters = [c for c in registry if not only or c.name in only]
    out_dir = Path(out_dir) if out_dir is not None else REPO_ROOT / "book"
    code_digest = _code_digest()
    anon = None
    if anonymize:
        from . import anonymize as anonymize_module

        anon = anonymize_module.from_db(Path(db_path), REPO_ROOT, extra_paths=(out_dir.resolve().parent,))
    con = store.open_read(db_path)
    try:
        reads = {c.name: files_read(con, c) for c in chapters}
    finally:
        con.close()
    from tqdm import tqdm

    summary = []
    for chapter in tqdm(chapters, desc="chapters", unit="chapter", disable=not progress):
        # db_path relative to the executed copy's folder (the kernel's cwd): no absolute path in the notebook
        output = out_dir / chapter.output.name
        parameters = {**chapter.parameters, "db_path": os.path.relpath(Path(db_path).resolve(), output.parent)}
        digest = inputs_digest(chapter, parameters, reads[chapter.name], code_digest, anon and anon.digest)
        row = {"chapter": chapter.name, "files read": len(reads[chapter.name]), "status": "unchanged", "seconds": 0.0}
        summary.append(row)
        if not force and output.exists() and _executed_digest(output) == digest:
            continue
        started = time.perf_counter()
        try:
            papermill.execute_notebook(str(chapter.template), str(output), parameters=parameters,
                                       cwd=str(output.parent), kernel_name="python3", progress_bar=False)
        except papermill.PapermillExecutionError as e:
            reports = REPORTS if out_dir == REPO_ROOT / "book" else out_dir.parent / "reports"
            reports.mkdir(parents=True, exist_ok=True)
            report = reports / output.name
            shutil.move(output, report)
            shown = report.relative_to(REPO_ROOT) if report.is_relative_to(REPO_ROOT) else report
            row.update(status=f"FAILED in cell {e.exec_count}: {e.ename}: {e.evalue}"[:200], report=str(shown))
            tqdm.write(f"chapter {chapter.name}: failed in cell {e.exec_count}: {e.ename}: {e.evalue}\n"
                       f"  partial notebook: {shown}")
        else:
            if anon is not None:
                anonymize_module.anonymize_notebook(anon, output)
            _stamp(output, digest)
            row["status"] = "executed"
        row["seconds"] = round(time.perf_counter() - started, 1)
    if anon is not None:  # the originals the kernels wrote, and downloads of an earlier build without it
        anonymize_module.prune_downloads([out_dir / c.output.name for c in registry], out_dir)
    return summary


def format_summary(summary: list[dict]) -> str:
    width = max(len(r["chapter"]) for r in summary)
    lines = [f"{'chapter':<{width}}  {'files read':>10}  {'seconds':>7}  status"]
    lines += [f"{r['chapter']:<{width}}  {r['files read']:>10,}  {r['seconds']:>7.1f}  {r['status']}" for r in summary]
    return "\n".join(lines)
