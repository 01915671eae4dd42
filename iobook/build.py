"""The whole book in one call: ingest the data folders, execute the chapters whose inputs changed, build the
HTML with Jupyter Book (warnings are errors). Every step is incremental, so a rebuild with nothing changed
parses no file, executes no notebook and rewrites no page."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from . import chapters, charts
from .ingest import ingest

HTML = chapters.REPO_ROOT / "_build" / "html"
INGEST_COUNTS = ("seen", "new", "changed", "unchanged", "gone", "parsed", "skipped", "failed", "failed before")


def format_ingest(counts) -> str:
    return "ingest: " + ", ".join(f"{k} {counts[k]}" for k in INGEST_COUNTS)


def build_html() -> int:
    """Jupyter Book over the executed chapters. Sphinx rebuilds only pages whose files changed; a changed
    Vega bundle needs a clean build, as Sphinx does not recopy changed static files."""
    static = chapters.REPO_ROOT / "book" / "_static"
    if charts.write_vega_bundle(static) or not (HTML / "index.html").exists():
        subprocess.run([sys.executable, "-m", "jupyter_book", "clean", "--all", str(chapters.REPO_ROOT)],
                       check=True, capture_output=True)
    return subprocess.run([Path(sys.executable).parent / "jupyter-book", "build", "--warningiserror",
                           "--keep-going", str(chapters.REPO_ROOT)]).returncode


def build_book(data: list[Path], db: Path, config: Path = chapters.REGISTRY, force: bool = False,
               progress: bool = True) -> int:
    counts = ingest(data, db, progress=progress, prune=True)
    print(format_ingest(counts))
    if counts["failed"] or counts["failed before"]:
        print("some files could not be read: the Data chapter lists them with their reason and line")
    changed = chapters.write_generated(chapters.load_registry(config))
    for path in changed:
        print(f"registry: rewrote {path.relative_to(chapters.REPO_ROOT)} from {config.name}")
    summary = chapters.run_chapters(db, config, force=force, progress=progress)
    print(chapters.format_summary(summary))
    failed = [r["chapter"] for r in summary if r["status"].startswith("FAILED")]
    if failed:
        print(f"book: not built, {len(failed)} chapter(s) failed: {', '.join(failed)} (partial notebooks in _build/reports)")
        return 1
    status = build_html()
    print(f"book: {HTML.relative_to(chapters.REPO_ROOT)}/index.html" if status == 0 else "book: jupyter-book build failed")
    return status
