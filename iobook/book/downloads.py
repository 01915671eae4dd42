"""The download files chapters write beside their executed notebooks (iobook.book.charts.DOWNLOADS): which of them
a notebook's outputs link to, and pruning those no chapter links to, so that none reaches the site."""
from __future__ import annotations

import json
import re
from pathlib import Path


def location() -> tuple[str, str]:
    """Where chapters write their downloads (iobook.book.charts), relative to the executed notebook's folder,
    and the href prefix their links use."""
    from . import charts  # Altair's import is not needed for anything else here

    return charts.DOWNLOADS, charts.DOWNLOADS_HREF


def download_refs(nb: dict) -> set[str]:
    """Paths (relative to the downloads folder) of the download files a notebook's outputs link to."""
    _, href = location()
    pattern = re.compile(re.escape(href.rstrip("/") + "/") + r"([^\"'\s<>)?#\\]+)")
    refs: set[str] = set()

    def walk(v) -> None:
        if isinstance(v, str):
            refs.update(pattern.findall(v))
        elif isinstance(v, (list, dict)):
            for x in (v.values() if isinstance(v, dict) else v):
                walk(x)

    walk([c.get("outputs", []) for c in nb.get("cells", [])])
    return refs


def prune_downloads(notebooks: list[Path], book: Path) -> list[Path]:
    """Delete every download file no notebook links to (the originals written while the chapters ran, and
    those of an earlier build without --anonymize), so that none reaches the site; return them."""
    folder = book / location()[0]
    if not folder.is_dir():
        return []
    keep = set()
    for nb in notebooks:
        if nb.is_file():
            keep |= download_refs(json.loads(nb.read_text(encoding="utf-8")))
    removed = [f for f in folder.rglob("*") if f.is_file() and f.relative_to(folder).as_posix() not in keep]
    for f in removed:
        f.unlink()
    for d in sorted((d for d in folder.rglob("*") if d.is_dir()), key=lambda d: len(d.parts), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    return removed
