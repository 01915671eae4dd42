"""One digest of a set of files, for everything that must notice when code or static files change (the
parsers, the schema, a chapter's code inputs, the book's static files)."""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def files_digest(files: Iterable[Path], base: Path, extra: bytes = b"") -> str:
    """sha256 over each file's path relative to `base` and its bytes, in sorted order, then `extra`."""
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(base).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    h.update(extra)
    return h.hexdigest()
