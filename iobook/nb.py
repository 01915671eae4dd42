"""Small helpers the chapter notebooks share: a read-only database, offline charts, source lists."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import charts, store

REPO_ROOT = Path(__file__).resolve().parents[1]


def setup(db_path: str | Path):
    """Open the database read-only and make Altair charts draw offline."""
    charts.enable_offline()
    pd.set_option("display.max_rows", 200)
    return store.open_read(db_path)


def shown_path(path: str) -> str:
    """A source path as the reader should see it: relative to the repository when inside it."""
    p = Path(path)
    return str(p.relative_to(REPO_ROOT)) if p.is_relative_to(REPO_ROOT) else path


def sources(con, source_ids) -> pd.DataFrame:
    """The files behind a figure: path, format, tool version and the first 12 hex digits of its sha256."""
    df = con.execute(
        "SELECT source_id, path, format, tool_version, left(sha256, 12) AS sha256 "
        "FROM sources WHERE list_contains(?, source_id) ORDER BY path",
        [sorted({int(s) for s in source_ids})],
    ).df()
    df["path"] = df["path"].map(shown_path)
    return df.set_index("source_id")
