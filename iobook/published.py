"""Published figures transcribed from the seed talks (data/published/<name>.csv, described in its README.md)."""
from pathlib import Path

import pandas as pd

PUBLISHED = Path(__file__).resolve().parents[1] / "data" / "published"


def load(name: str) -> pd.DataFrame:
    """One published table in long form: labels and the printed string as text, `value` as a number (NaN if none)."""
    frame = pd.read_csv(PUBLISHED / f"{name}.csv", dtype=str, keep_default_na=False)
    frame["value"] = pd.to_numeric(frame["value"].mask(frame["value"] == ""))
    return frame.astype({"line": int, "field": int, "char": int})
