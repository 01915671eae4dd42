"""Published figures transcribed from the seed talks (data/published/<name>.csv, described in its README.md) and
from papers (data/published/papers/<name>.csv)."""
from importlib.resources import files
from importlib.util import find_spec
from pathlib import Path

import pandas as pd

from .digest import table_read
from .root import ROOT, SOURCES

PUBLISHED = ROOT / "data" / "published"


def path(name: str) -> Path:
    """data/published/<name>.csv where the book's sources are (ROOT), else, while a plain install has not unpacked
    them there yet, the installed package's own copy: `iobook ingest` run outside a checkout derives the setup
    record from one (iobook.database.setups) before any `iobook book` unpacks the sources."""
    table = PUBLISHED / f"{name}.csv"
    if table.exists() or find_spec(SOURCES) is None:
        return table
    return Path(str(files(SOURCES).joinpath(f"data/published/{name}.csv")))  # a wheel installs as files


def load(name: str) -> pd.DataFrame:
    """One published table in long form: labels and the printed string as text, `value` as a number (NaN if none)."""
    table_read(f"data/published/{name}.csv")
    frame = pd.read_csv(path(name), dtype=str, keep_default_na=False)
    frame["value"] = pd.to_numeric(frame["value"].mask(frame["value"] == ""))
    # a seed's cell names its place in the seed text; a paper's figure names its place in `source`
    return frame.astype({column: int for column in ("line", "field", "char") if column in frame})
