"""Where the book's sources are (templates, registry, pages, published figures): the checkout the package runs
from (or an editable install of it), the current folder when it is a checkout, else, for a plain `pip install .`
run anywhere, _build/iobook/ in the current folder, where `unpack` writes the sources the wheel carries
(pyproject.toml maps the checkout's root into the package as iobook.book_source). A chapter's kernel, which runs in
another folder, finds the same root through IOBOOK_ROOT."""
from __future__ import annotations

import os
from importlib.resources import files
from importlib.util import find_spec
from pathlib import Path

SOURCES = "iobook.book_source"
REGISTRY_FILE = Path("notebooks") / "chapters.yml"
UNPACKED_INTO = Path("_build") / "iobook"
ENVIRONMENT = "IOBOOK_ROOT"
# the folder an installed iobook was run from, which a reader's paths are relative to (the kernels' ROOT is the
# unpacked sources under it: a database path relative to those is none the reader can open)
READER_BASE = "IOBOOK_READER_BASE"


def _is_checkout(folder: Path) -> bool:
    return (folder / REGISTRY_FILE).is_file()


def _find() -> tuple[Path, bool]:
    """(root, whether the sources must be unpacked into it)."""
    if os.environ.get(ENVIRONMENT):
        return Path(os.environ[ENVIRONMENT]), False
    own, here = Path(__file__).resolve().parents[2], Path.cwd().resolve()
    for folder in (own, here):
        if _is_checkout(folder):
            return folder, False
    return here / UNPACKED_INTO, True


ROOT, UNPACKED = _find()


def _walk(node, relative: Path):
    """(path relative to the sources, bytes) of every file the installed sources hold."""
    for child in node.iterdir():
        if child.is_dir():
            yield from _walk(child, relative / child.name)
        elif child.name != "__init__.py" and child.suffix != ".pyc":
            yield relative / child.name, child.read_bytes()


def unpack() -> None:
    """Outside a checkout: the installed package's book sources written into ROOT (a file rewritten only when it
    differs, so Sphinx and the chapters' digests see what changed), and ROOT named to the kernels."""
    if not UNPACKED or find_spec(SOURCES) is None:
        return
    for relative, data in _walk(files(SOURCES), Path()):
        target = ROOT / relative
        if not target.exists() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    os.environ[ENVIRONMENT] = str(ROOT)
    os.environ[READER_BASE] = str(ROOT.parents[len(UNPACKED_INTO.parts) - 1])


def reader_base() -> Path:
    """The folder the paths a page shows are relative to: the checkout, or the folder an installed iobook built the
    book from."""
    return Path(os.environ.get(READER_BASE, ROOT))
