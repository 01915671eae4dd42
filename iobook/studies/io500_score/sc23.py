"""Seed 000's SC23 table (IBM's three SC23 submissions, slide 'IO500 submissions from IBM for SC23') cell by cell
beside the raw logs, and what the same talk prints for its differing cells in its other tables."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...database import published, store
from .analysis import get_phases

SC23_TABLE = "seed000_sc23_io500"
# Seed 000's SC23 table: its column labels and the run_key of the same run
SC23_RUNS = {"IBM Tucson": "submission-679", "IBM Ehningen": "submission-690", "IBM Cloud HPC": "submission-687"}
SC23_TOTALS = {"Bandwidth GiB/s": "bw_gib_s", "kIOPS": "md_kiops", "TOTAL Score": "score"}
SLIDE_DIGITS = 1  # the slide prints one decimal
TWICE_DIGITS = 2  # the double rounding that would fit: two decimals first
# Where seed 000 prints a cell of its SC23 table again, in another table of the same talk: (table, column) ->
# the SC23 table's column (run) it repeats. Ehningen's comparison labels its Tucson column "ISC23" but prints
# the SC23 values (its percent column is computed from them).
SC23_ELSEWHERE = {("seed000_cloud_hpc_sc23", "SCORE"): "IBM Cloud HPC",
                  ("seed000_tucson_isc23_to_sc23", "SC23"): "IBM Tucson",
                  ("seed000_ehningen_vs_tucson", "IBM Tucson"): "IBM Tucson",
                  ("seed000_ehningen_vs_tucson", "IBM Ehningen"): "IBM Ehningen"}


def get_sc23(con, sc23_runs: dict[str, str]) -> pd.DataFrame:
    """Seed 000's SC23 table cell by cell beside the same value from the raw logs: each phase from the run's
    summary, the three totals recomputed; rounded to the slide's one decimal half-up. Empty when a run of
    `sc23_runs` (column label -> run_key) is not in the database."""
    keys = list(sc23_runs.values())
    held = set(store.frame(con, __package__, "held_runs", [keys]).run_key)
    if held != set(keys):
        return pd.DataFrame()
    label_of = {key: label for label, key in sc23_runs.items()}
    phases = get_phases(con, keys)
    raw = phases.assign(column=phases.run_key.map(label_of)).rename(columns={"phase": "row"})[
        ["column", "row", "value", "run_key"]]
    totals = store.frame(con, __package__, "totals", [keys])
    totals = totals.melt(id_vars="run_key", var_name="measure", value_name="value").assign(
        column=lambda d: d.run_key.map(label_of),
        row=lambda d: d.measure.map({v: k for k, v in SC23_TOTALS.items()}))
    raw = pd.concat([raw, totals[["column", "row", "value", "run_key"]]], ignore_index=True)
    table = published.load(SC23_TABLE).merge(raw, on=["row", "column"], how="left",
                                              suffixes=("_published", "_raw"))
    table["raw rounded"] = table.value_raw.map(lambda x: present.half_up(x, SLIDE_DIGITS))
    table["same"] = table["raw rounded"] == table.value_published
    return table


def sc23_wide(table: pd.DataFrame) -> pd.DataFrame:
    """The SC23 comparison as the slide lays it out: one row per slide row, per column the published value
    and the raw one with the digits the summary prints (the totals recomputed)."""
    out = table.assign(cell=lambda d: d.value_published.map("{:,.1f}".format) + " / "
                       + d.value_raw.map("{:,.6f}".format))
    wide = out.pivot(index="row", columns="column", values="cell")
    return wide.loc[list(dict.fromkeys(table.row)), list(dict.fromkeys(table.column))].reset_index()


def sc23_printed_elsewhere(sc23: pd.DataFrame) -> pd.DataFrame:
    """Each SC23 cell that is not the raw value rounded once: the raw value rounded twice (to two decimals, then
    one: a rule that would fit, but one the talk does not state), and what the same talk prints for the same
    run and phase in its other tables (the seed's lines), with whether that is the raw value rounded once."""
    differ = sc23[~sc23.same].assign(**{"raw rounded twice": lambda d: d.value_raw.map(
        lambda x: present.half_up(present.half_up(x, TWICE_DIGITS), SLIDE_DIGITS))})
    frames = [published.load(table).query("column == @column").assign(column=run)
              for (table, column), run in SC23_ELSEWHERE.items()]
    elsewhere = pd.concat(frames, ignore_index=True).rename(columns={"value": "elsewhere"})
    out = differ[["row", "column"]].merge(elsewhere[["row", "column", "elsewhere", "line"]], on=["row", "column"])
    out = out.groupby(["row", "column", "elsewhere"], sort=False).line.agg(
        lambda lines: ", ".join(map(str, sorted(lines)))).rename("seed lines").reset_index()
    out = differ.merge(out, on=["row", "column"], how="left")
    out["elsewhere equals rounded once"] = out.elsewhere == out["raw rounded"]
    return out


def differ_table(elsewhere: pd.DataFrame) -> pd.DataFrame:
    """The differing cells as the page shows them: slide row and column, published, raw, rounded once and twice,
    and what the talk prints elsewhere with its seed lines."""
    return elsewhere[["row", "column", "printed", "value_raw", "raw rounded", "raw rounded twice", "elsewhere",
                      "seed lines"]].rename(columns={"row": "slide row", "column": "slide column",
                                                     "printed": "published", "value_raw": "raw value",
                                                     "elsewhere": "printed elsewhere"})
