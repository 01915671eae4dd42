"""Published figures transcribed from the seed talks (data/published/<name>.csv, described in its README.md) and
from papers (data/published/papers/<name>.csv)."""
import pandas as pd

from .digest import table_read
from .root import ROOT

PUBLISHED = ROOT / "data" / "published"


def load(name: str) -> pd.DataFrame:
    """One published table in long form: labels and the printed string as text, `value` as a number (NaN if none)."""
    table_read(f"data/published/{name}.csv")
    frame = pd.read_csv(PUBLISHED / f"{name}.csv", dtype=str, keep_default_na=False)
    frame["value"] = pd.to_numeric(frame["value"].mask(frame["value"] == ""))
    # a seed's cell names its place in the seed text; a paper's figure names its place in `source`
    return frame.astype({column: int for column in ("line", "field", "char") if column in frame})
