"""One digest of a set of files, for everything that must notice when code or static files change (the
parsers, the schema, a chapter's code inputs, the book's static files), and the tables a chapter read."""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def named_digest(named: Iterable[tuple[str, Path]], extra: bytes = b"") -> str:
    """sha256 over each (name, file): the name and the file's bytes, in the order given, then `extra`."""
    h = hashlib.sha256()
    for name, f in named:
        h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    h.update(extra)
    return h.hexdigest()


def files_digest(files: Iterable[Path], base: Path, extra: bytes = b"") -> str:
    """sha256 over each file's path relative to `base` and its bytes, in sorted order, then `extra`."""
    return named_digest(((f.relative_to(base).as_posix(), f) for f in sorted(files)), extra)


# The tables of data/published and data/reference this process read, as the checkout names them: a chapter's
# kernel glues them (nb.glue_report), and the chapter runner digests those alone for it, so a table one chapter
# reads executes that chapter, not all (iobook.book.chapters.tables_digest).
_TABLES_READ: set[str] = set()


def table_read(name: str) -> None:
    """Note that this process read the table `name` (e.g. "data/published/seed000_sc23_io500.csv")."""
    _TABLES_READ.add(name)


def tables_read() -> list[str]:
    return sorted(_TABLES_READ)
