"""Exact run selection for a chapter's parameters: a name the database does not hold is an error naming the
nearest that exist, and a copy of a stored log is never a second run."""
from __future__ import annotations

import difflib
from collections.abc import Iterable


def not_a_copy(source_id: str) -> str:
    """SQL condition: the fio, IOR or mdtest log in the column `source_id` is no copy of a log stored already (view
    duplicate_logs): a copy of a file is the same run, counted once."""
    return f"{source_id} NOT IN (SELECT source_id FROM duplicate_logs)"


class UnknownSelection(ValueError):
    """A chapter parameter names something the database does not hold."""


def select(requested: Iterable[str] | None, available: Iterable[str], what: str) -> list[str]:
    """The requested names, checked exactly against what the database holds; None or empty selects all.
    An unknown name is an error that names it and the nearest names that exist."""
    available = sorted(set(available))
    if not requested:
        return available
    requested = list(requested)
    unknown = [r for r in requested if r not in available]
    if unknown:
        hints = "; ".join(f"{u!r}: nearest {difflib.get_close_matches(u, available, n=3, cutoff=0.5) or 'none'}"
                          for u in unknown)
        raise UnknownSelection(f"no {what} named {', '.join(map(repr, unknown))} in this database ({hints})")
    return requested
