"""The whole book in one call: ingest the data folders, execute the chapters whose inputs changed, build the
HTML with Jupyter Book (warnings are errors). Every step is incremental, so a rebuild with nothing changed
parses no file, executes no notebook and rewrites no page."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from . import chapters, store
from .digest import files_digest
from .ingest import format_ingest, ingest

HTML = chapters.REPO_ROOT / "_build" / "html"
def write_provenance(db: Path, anonymize: bool = False) -> Path:
    """book/_provenance.md, included by the landing page: which code and which data made this book. Only
    what identifies the inputs (no build time, host or path), so an unchanged rebuild rewrites nothing;
    with `anonymize`, passed through the same pseudonyms as the chapters."""
    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", str(chapters.REPO_ROOT), *args], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else ""

    con = store.open_read(db)
    try:
        hashes = [h for (h,) in con.execute("SELECT sha256 FROM sources WHERE status <> 'gone' ORDER BY sha256").fetchall()]
        (runs,) = con.execute("SELECT count(*) FROM io500_runs").fetchone()
        (logs,) = con.execute("SELECT count(*) FROM sources WHERE status = 'ok'").fetchone()
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
    target = chapters.REPO_ROOT / "book" / "_provenance.md"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


FINDING_LINK = re.compile(r' <a class="iobook-finding-link" href="#([^"]+)">\((figure|table)\)</a>$')


def headline(executed: Path) -> tuple[str, str | None] | None:
    """A chapter's headline: the first item of the findings list its executed notebook glued (nb.glue_findings:
    MyST whose {numref} links to the figure or table resolve from the landing page too), or showed
    (nb.findings) with the anchor of the figure or table it links to."""
    nb = json.loads(executed.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == "findings":
                text = "".join(output.get("data", {}).get("application/papermill.record/text/markdown", ""))
                first = next((line[2:] for line in text.splitlines() if line.startswith("- ")), None)
                return (first, None) if first else None
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("data", {}).get("text/markdown", ""))
            if text.startswith("## Findings"):
                first = next((line[2:] for line in text.splitlines() if line.startswith("- ")), None)
                if first is None:
                    return None
                link = FINDING_LINK.search(first)
                return (first[:link.start()], link.group(1)) if link else (first, None)
    return None


def write_headlines(registry: list[chapters.Chapter]) -> Path:
    """book/_headlines.md, included by the landing page: each study's first finding, linked to the chapter
    (and to the figure or table that shows it). Rewritten only when it changes, like the provenance."""
    lines = []
    for chapter in registry:
        found = headline(chapter.output) if chapter.headline and chapter.output.exists() else None
        if found is None:
            continue
        text, anchor = found
        shown = f' <a href="{chapter.name}.html#{anchor}">(see it)</a>' if anchor else ""
        lines.append(f"- **[{chapter.title}]({chapter.name})**: {text}{shown}")
    text = "\n".join(lines) + "\n" if lines else "No chapter has findings yet: the database holds no data they read.\n"
    target = chapters.REPO_ROOT / "book" / "_headlines.md"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def write_methods_rule() -> Path:
    """book/_methods_rule.md, included by the methods page: the verdict rule's constants as iobook.evidence
    holds them, so the page cannot drift from the code that decides."""
    from . import evidence

    text = (f"A comparison is **decided** when each side has at least **{evidence.MIN_UNITS} independent units** "
            f"(against a published figure: the group alone) and its p, adjusted by **{evidence.CORRECTION}'s "
            f"method** within its family (the comparisons a chapter reads together), is below "
            f"**{1 - evidence.CONFIDENCE:.2g}**. Every interval in the book is a {evidence.CONFIDENCE:.0%} "
            f"interval. With two units a side, Welch's t has one or two degrees of freedom and each side's "
            f"spread rests on a single difference, which one disturbed run sets alone: "
            f"{evidence.MIN_UNITS} is the least that can decide.\n")
    target = chapters.REPO_ROOT / "book" / "_methods_rule.md"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def build_html(anonymize: bool = False) -> int:
    """Jupyter Book over the executed chapters. Sphinx rebuilds only pages whose files changed; a changed
    static file (the book's CSS) needs a clean build, as Sphinx does not recopy them. So
    does switching --anonymize, as Sphinx leaves the other build's downloads in the site."""
    static = chapters.REPO_ROOT / "book" / "_static"
    jupyter_book = str(Path(sys.executable).parent / "jupyter-book")
    # downloads change with the chapters that write them, which Sphinx notices; the rest only by hand
    digest = files_digest([f for f in static.rglob("*") if f.is_file() and "downloads" not in f.parts], static,
                          b"anonymized" if anonymize else b"")
    stamp = HTML.parent / "static.sha256"
    if not (HTML / "index.html").exists() or not stamp.exists() or stamp.read_text() != digest:
        subprocess.run([jupyter_book, "clean", "--all", str(chapters.REPO_ROOT)], check=True, capture_output=True)
    status = subprocess.run([jupyter_book, "build", "--warningiserror", "--keep-going", str(chapters.REPO_ROOT)]).returncode
    if status == 0:
        stamp.write_text(digest)
    return status


def build_book(data: list[Path], db: Path, config: Path = chapters.REGISTRY, force: bool = False,
               progress: bool = True, anonymize: bool = False) -> int:
    counts = ingest(data, db, progress=progress, prune=True)
    print(format_ingest(counts))
    if counts["failed"] or counts["failed before"]:
        print("some files could not be read: the Data chapter lists them with their reason and line")
    changed = chapters.write_generated(chapters.load_registry(config))
    for path in changed:
        print(f"registry: rewrote {path.relative_to(chapters.REPO_ROOT)} from {config.name}")
    summary = chapters.run_chapters(db, config, force=force, progress=progress, anonymize=anonymize)
    print(chapters.format_summary(summary))
    failed = [r["chapter"] for r in summary if r["status"].startswith("FAILED")]
    if failed:
        print(f"book: not built, {len(failed)} chapter(s) failed: {', '.join(failed)} (partial notebooks in _build/reports)")
        return 1
    status = build_site(db, config, anonymize)
    print(f"book: {HTML.relative_to(chapters.REPO_ROOT)}/index.html" if status == 0 else "book: jupyter-book build failed")
    return status


def build_site(db: Path, config: Path = chapters.REGISTRY, anonymize: bool = False) -> int:
    """The HTML book from the executed chapters in book/ as they are (none is executed here): what `make test`
    builds after nbval has executed and compared each chapter."""
    write_provenance(db, anonymize)
    write_headlines(chapters.load_registry(config))
    write_methods_rule()
    return build_html(anonymize)
