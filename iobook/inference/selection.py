"""Exact run selection for a chapter's parameters: a name the database does not hold is an error naming the
nearest that exist."""
from __future__ import annotations

import difflib
from collections.abc import Iterable


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
