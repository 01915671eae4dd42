"""The whole book in one call: ingest the data folders, execute the chapters whose inputs changed, build the
HTML with Jupyter Book (warnings are errors). Every step is incremental, so a rebuild with nothing changed
parses no file, executes no notebook and rewrites no page."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ..database import store
from ..database.digest import files_digest
from ..database.ingest import OtherDataError, format_ingest, ingest
from ..database.sql import query
from . import chapters
from .charts import DOWNLOADS

PUBLISHED_DATA = chapters.REPO_ROOT / "data" / "raw"
HTML = chapters.REPO_ROOT / "_build" / "html"  # the published book's site (a build on other data: build_root's)
# What a book root holds besides its executed chapters and _toc.yml: a build on other data gets copies
BOOK_FILES = ("_config.yml", "book/intro.md", "book/methods.md", "book/references.md", "book/references.bib",
              "book/_templates", "book/_static")
WRITTEN_BY_CHAPTERS = ("downloads", "fonts")  # under book/_static: each build's own
BUILD_DIGEST_CHARS = 8
EXIT_OTHER_DATA = 2  # the database named holds another book


def is_published_data(data: list[Path]) -> bool:
    return [Path(p).resolve() for p in data] == [PUBLISHED_DATA.resolve()]


def build_root(data: list[Path]) -> Path:
    """Where a build on `data` keeps its book: this checkout for data/raw (the published chapters in book/, the
    site in _build/html), else _build/<build_name>/ with its own book/, _build/html and database,
    so that a build on one's own logs never touches the published book."""
    return chapters.REPO_ROOT if is_published_data(data) else chapters.REPO_ROOT / "_build" / build_name(data)


def build_name(data: list[Path]) -> str:
    """The folder of a build on other data than data/raw: its folders' names and a digest of their absolute paths
    (two folders of one name, a/history/data and b/sweep/data, are two books)."""
    resolved = [Path(p).resolve() for p in data]
    name = "+".join(re.sub(r"[^\w.-]+", "_", p.name) or "root" for p in resolved)[:100]
    return f"{name}-{hashlib.sha256(chr(10).join(map(str, resolved)).encode()).hexdigest()[:BUILD_DIGEST_CHARS]}"


def default_db(data: list[Path]) -> Path:
    return store.DEFAULT_DB if is_published_data(data) else build_root(data) / "iobook.duckdb"


def prepare_root(root: Path, registry: list[chapters.Chapter]) -> None:
    """A book root of its own for a build on other data: the book's configuration, landing page, references and
    static files copied (rewritten only when they differ: Sphinx rebuilds what changed), and its _toc.yml."""
    if root == chapters.REPO_ROOT:
        return
    for name in BOOK_FILES:
        source = chapters.REPO_ROOT / name
        for path in (sorted(f for f in source.rglob("*") if f.is_file()) if source.is_dir() else [source]):
            relative = path.relative_to(chapters.REPO_ROOT)
            if set(relative.parts) & set(WRITTEN_BY_CHAPTERS):
                continue
            _write_if_changed(root / relative, path.read_bytes())
    _write_if_changed(root / "_toc.yml", chapters.toc_yaml(registry).encode())


def _write_if_changed(target: Path, data: bytes) -> None:
    if not target.exists() or target.read_bytes() != data:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def write_provenance(db: Path, anonymize: bool = False, root: Path = chapters.REPO_ROOT) -> Path:
    """book/_provenance.md, included by the landing page: which code and which data made this book. Only
    what identifies the inputs (no build time, host or path), so an unchanged rebuild rewrites nothing;
    with `anonymize`, passed through the same pseudonyms as the chapters."""
    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", str(chapters.REPO_ROOT), *args], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else ""

    con = store.open_read(db)
    try:
        hashes = [h for (h,) in con.execute(query(__package__, "present_sha256s")).fetchall()]
        (runs,) = con.execute(query(__package__, "io500_run_count")).fetchone()
        (logs,) = con.execute(query(__package__, "logs_read_count")).fetchone()
    finally:
        con.close()
    commit = git("rev-parse", "--short=12", "HEAD") or "not a git checkout"
    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    text = (f"iobook {metadata.version('iobook')}, commit `{commit}`{dirty} ({git('log', '-1', '--format=%cs') or 'date unknown'}); "
            f"data: {len(hashes):,} files ({logs:,} logs read, {runs:,} IO500 runs), digest "
            f"`{hashlib.sha256(''.join(hashes).encode()).hexdigest()[:16]}` (sha256 of the files' sha256s).\n")
    if anonymize:
        from . import anonymize as anonymize_module

        text = anonymize_module.from_db(db, chapters.REPO_ROOT).text(text)
    target = root / "book" / "_provenance.md"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def headline(executed: Path) -> str | None:
    """A chapter's headline: the first item of the findings list its executed notebook glued (nb.glue_findings:
    MyST whose {numref} links to the figure or table resolve from the landing page too)."""
    nb = json.loads(executed.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == "findings":
                text = "".join(output.get("data", {}).get("application/papermill.record/text/markdown", ""))
                return next((line[2:] for line in text.splitlines() if line.startswith("- ")), None)
    return None


def abstract(executed: Path) -> list[str]:
    """The items of the abstract a chapter glued (Report.abstract): what the landing page leads with for it."""
    nb = json.loads(executed.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == "abstract":
                text = "".join(output.get("data", {}).get("application/papermill.record/text/markdown", ""))
                return [line[2:] for line in text.splitlines() if line.startswith("- ")]
    return []


# The landing page's sections, in order: what a chapter's numbers were measured on (its registry `measured`).
MEASURED_ON = {
    "systems": "",
    "build machine": ("**Measured on the machine that built this book** (a 2-core virtual machine: these chapters "
                      "demonstrate a method you can run on your own system; they are not evidence about "
                      "production storage):"),
    "your logs": "**On the logs this book was built from:**",
}


def write_headlines(registry: list[chapters.Chapter], root: Path | None = None) -> Path:
    """book/_headlines.md, included by the landing page: each study's abstract (or its first finding), linked
    to the chapter (its {numref} to the figure or table that shows it), grouped by what the numbers were measured on:
    real systems first, then the build machine, then the reader's own logs. Rewritten only when it changes,
    like the provenance."""
    root = root or chapters.REPO_ROOT
    sections = {measured: [] for measured in MEASURED_ON}
    for chapter in registry:
        output = root / "book" / chapter.output.name
        if not chapter.headline or not output.exists():
            continue
        for text in filter(None, abstract(output) or [headline(output)]):
            sections[chapter.measured].append(f"- **[{chapter.title}]({chapter.name})**: {text}")
    blocks = [(MEASURED_ON[m] + "\n\n" if MEASURED_ON[m] else "") + "\n".join(lines)
              for m, lines in sections.items() if lines]
    text = ("\n\n".join(blocks) + "\n" if blocks else
            "No chapter has findings yet: the database holds no data they read.\n")
    target = root / "book" / "_headlines.md"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def write_methods_rule(root: Path = chapters.REPO_ROOT) -> Path:
    """book/_methods_rule.md, included by the methods page: the verdict rule's constants as iobook.inference.evidence
    holds them, so the page cannot drift from the code that decides."""
    from ..inference import evidence
    from . import comparison

    text = (f"A comparison is **decided** when each side has at least **{evidence.MIN_UNITS} independent units** "
            f"(against a published figure: the group alone) and its p, adjusted by **{evidence.CORRECTION}'s "
            f"method** within its family (the comparisons a chapter reads together), is below "
            f"**{1 - evidence.CONFIDENCE:.2g}**. Every interval in the book is a {evidence.CONFIDENCE:.0%} "
            f"interval. With two units a side, Welch's t has one or two degrees of freedom and each side's "
            f"spread rests on a single difference, which one disturbed run sets alone: "
            f"{evidence.MIN_UNITS} is the least that can decide, and a sentence resting on fewer shows no interval. "
            f"A correlation's interval (a percentile bootstrap over its units) is shown from "
            f"**{evidence.MIN_CORRELATION_UNITS} units** on: on fewer, resampling repeats a unit so often that the "
            f"interval spans most of −1 to 1 whatever the data.\n\n"
            f"A comparison table's verdict column holds a short code, explained once under each table: "
            + "; ".join(f"**{verdict}**: {meaning}" for verdict, meaning in comparison.VERDICT_LEGEND.items())
            + ".\n")
    target = root / "book" / "_methods_rule.md"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def build_html(anonymize: bool = False, root: Path = chapters.REPO_ROOT) -> int:
    """Jupyter Book over the executed chapters. Sphinx rebuilds only pages whose files changed; a changed
    static file (the book's CSS) needs a clean build, as Sphinx does not recopy them. So
    does switching --anonymize, as Sphinx leaves the other build's downloads in the site."""
    static = root / "book" / "_static"
    html = HTML if root == chapters.REPO_ROOT else root / "_build" / "html"
    # its command-line function, run by this interpreter: an installed package's environment may have no script
    jupyter_book = [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; sys.exit(main())"]
    # downloads change with the chapters that write them, which Sphinx notices; the rest only by hand
    digest = files_digest([f for f in static.rglob("*") if f.is_file() and "downloads" not in f.parts], static,
                          b"anonymized" if anonymize else b"")
    stamp = html.parent / "static.sha256"
    if not (html / "index.html").exists() or not stamp.exists() or stamp.read_text() != digest:
        subprocess.run([*jupyter_book, "clean", "--all", str(root)], check=True, capture_output=True)
    status = subprocess.run([*jupyter_book, "build", "--warningiserror", "--keep-going", str(root)]).returncode
    # The site's downloads are exactly the chapters': Sphinx never deletes an earlier build's (files no longer
    # in the data), and copies static files only when it writes a page (a rebuild with nothing changed
    # writes none)
    shutil.rmtree(html / DOWNLOADS, ignore_errors=True)
    if (static.parent / DOWNLOADS).is_dir():
        shutil.copytree(static.parent / DOWNLOADS, html / DOWNLOADS)
    if status == 0:
        stamp.write_text(digest)
    return status


def build_book(data: list[Path], db: Path | None = None, config: Path = chapters.REGISTRY, force: bool = False,
               progress: bool = True, anonymize: bool = False, replace: bool = False) -> int:
    """The book on `data`, in build_root(data); `db` defaults to that root's database (data/iobook.duckdb for
    data/raw). A database that holds the book of other data is not replaced (exit 2) unless `replace`."""
    from ..database import root as sources

    sources.unpack()  # a plain install run outside a checkout: the book's sources, into chapters.REPO_ROOT
    root = build_root(data)
    db = Path(db) if db is not None else default_db(data)
    db.parent.mkdir(parents=True, exist_ok=True)
    try:
        counts = ingest(data, db, progress=progress, prune=True, replace=replace)
    except OtherDataError as e:
        print(f"book: not built: {e}")
        return EXIT_OTHER_DATA
    print(format_ingest(counts))
    if counts["failed"] or counts["failed before"]:
        print("some files could not be read: the Data chapter lists them with their reason and line")
    changed = chapters.write_generated(chapters.load_registry(config))
    for path in changed:
        print(f"registry: rewrote {path.relative_to(chapters.REPO_ROOT)} from {config.name}")
    prepare_root(root, chapters.load_registry(config))
    summary = chapters.run_chapters(db, config, force=force, progress=progress, anonymize=anonymize,
                                    out_dir=root / "book")
    print(chapters.format_summary(summary))
    failed = [r["chapter"] for r in summary if r["status"].startswith("FAILED")]
    if failed:
        print(f"book: not built, {len(failed)} chapter(s) failed: {', '.join(failed)} (partial notebooks in _build/reports)")
        return 1
    status = build_site(db, config, anonymize, root)
    # where the user stands: an installed package's build sits under _build/iobook/ of that folder
    html = Path(os.path.relpath(root / "_build" / "html" / "index.html"))
    print(f"book: {html}" if status == 0 else "book: jupyter-book build failed")
    return status


def build_site(db: Path, config: Path = chapters.REGISTRY, anonymize: bool = False,
               root: Path = chapters.REPO_ROOT) -> int:
    """The HTML book from the executed chapters in root/book/ as they are (none is executed here): what `make
    test` builds after nbval has executed and compared each chapter."""
    write_provenance(db, anonymize, root)
    write_headlines(chapters.load_registry(config), root)
    write_methods_rule(root)
    return build_html(anonymize, root)
