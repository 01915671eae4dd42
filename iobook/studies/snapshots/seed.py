"""Seed 003 (LuxProvide's MeluXina talk) as published figures: its mdtest table, which definitions reproduce the
two summary rows, which way each state moved against "No snapshot" (and in what order the rows ran), its test
configuration and mdtest clients, and its snapshot creation times. One printed value each: no spread, no test."""
from __future__ import annotations

import pandas as pd

from ...database import published
from ...inference import evidence, stats
from ...inference.evidence import Count, Replicate

SEED_TABLE = "seed003_snapshot_mdtest"
SEED_CONFIGURATION = "seed003_test_configuration"  # also holds the creation times (table snapshot_creation)
SUMMARY_ROWS = ("Std. deviation", "Diff with/without")
TALK = ("LuxProvide's talk on MeluXina's Lustre snapshots (Robert de Rooy, Senior HPC Engineer; the seed text "
        "names no event)")
CREATION_TABLE = "snapshot_creation"
CREATION_COLUMNS = {"with": "with patch (EX-5082/EX-5178)", "without": "without patch"}  # as the CSV names them
CONFIGURATION_TABLES = ["test_configuration", "mdtest_clients"]


def seed_source(table: pd.DataFrame) -> str:
    """The talk, slide headings and CSV a published table quotes, for captions."""
    # the seed text escapes markdown ("mdtest\\*"): the caption shows the heading as the slide prints it
    headings = ['"' + s.partition(": ")[2].replace("\\", "") + '"' for s in sorted(table["source"].unique())]
    slides = f"slide{'s' if len(headings) > 1 else ''} {'; '.join(headings)}"
    return f"{TALK}, {slides}, data/published/{table.attrs['name']}.csv"


def _load(name: str) -> pd.DataFrame:
    table = published.load(name)
    table.attrs["name"] = name
    return table


def get_seed_table() -> pd.DataFrame:
    """The talk's mdtest table, one printed cell a row (published CSV; seed_wide lays it out as printed)."""
    return _load(SEED_TABLE)


def seed_wide(seed: pd.DataFrame, values: str = "value") -> pd.DataFrame:
    """The long seed table as the slide prints it: state rows (then the two summary rows) by operation
    columns; `values="printed"` gives the strings as printed."""
    rows = seed.drop_duplicates("row").sort_values("line")["row"].tolist()
    columns = seed.drop_duplicates("column").sort_values("field")["column"].tolist()
    wide = seed.pivot(index="row", columns="column", values=values).loc[rows, columns]
    wide.columns.name = None
    return wide


def get_seed_configuration() -> pd.DataFrame:
    """The backup slide's MeluXina Tier2 against the DDN test system, and the method slide's mdtest clients."""
    table = _load(SEED_CONFIGURATION)
    shown = table[table["table"].isin(CONFIGURATION_TABLES)].reset_index(drop=True)
    shown.attrs["name"] = SEED_CONFIGURATION
    return shown


def configuration_wide(configuration: pd.DataFrame) -> pd.DataFrame:
    """The slides' configuration as the page shows it: one row per item as printed (#OST, OST Size(TB), the mdtest
    clients' nodes...), one column per system or run the slide prints it for, so that each system's printed name
    ("Tier2 (Melluxina)") is said once, in its header (issue 50: it stood in a column, row after row); a value's
    unit follows it where the slide names one."""
    value = [printed if not unit or printed.endswith(unit) else f"{printed} {unit}"
             for printed, unit in zip(configuration["printed"], configuration["unit"].fillna(""))]
    wide = configuration.assign(value=value).pivot(index=["table", "column"], columns="row", values="value")
    wide = wide.reindex(configuration[["table", "column"]].drop_duplicates().itertuples(index=False, name=None))
    wide.columns.name = None
    wide = wide[configuration["row"].drop_duplicates().tolist()].reset_index()
    wide["table"] = wide["table"].map({"test_configuration": "configuration", "mdtest_clients": "mdtest clients"})
    # a header "Tier2 (Melluxina)" would show as "Tier2" over a units row "Melluxina" (nb.UNIT): a no-break space
    # keeps the slide's name whole
    printed = {row: row.replace(" (", "\u00a0(") for row in configuration["row"].unique()}
    return wide.rename(columns={"table": "slide table", "column": "item", **printed}).fillna("–")


def get_seed_creation() -> dict[str, pd.Series]:
    """The talk's snapshot creation times on large targets (slide "Improvements cont'd..", seed 003 line 269),
    'with' and 'without' DDN's patch EX-5082/EX-5178: each the CSV row (printed, value, unit, source, line)."""
    table = _load(SEED_CONFIGURATION)
    rows = table[table["table"] == CREATION_TABLE].set_index("column")
    return {side: rows.loc[column] for side, column in CREATION_COLUMNS.items()}


def seed_clients(configuration: pd.DataFrame) -> dict[str, str | int]:
    """The mdtest clients of the method slide: nodes (a number), 'c' as printed ('560c'), CPUs, interconnect."""
    clients = configuration[configuration["table"] == "mdtest_clients"].set_index("column")
    return {"nodes": int(clients.loc["nodes", "value"]), "c": clients.loc["c", "printed"],
            "c_note": clients.loc["c", "note"], "cpus": clients.loc["CPUs", "printed"],
            "interconnect": clients.loc["interconnect", "printed"]}


def get_summary_checks(seed: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Which definitions of the slide's "Std. deviation" and "Diff with/without" rows reproduce them from
    the eight printed state rows (iobook.inference.stats.recompute_summary): per definition, how many of the nine
    columns round to the printed value and how many are reached by inputs within their own rounding
    (± 0.005); and the per-column detail of the definitions that reach all nine."""
    wide = seed_wide(seed)
    states = wide.drop(index=list(SUMMARY_ROWS))
    detail = pd.concat([
        stats.recompute_summary(states, wide.loc[row], definitions, input_decimals=2, printed_decimals=2)
        .assign(row=row)
        for row, definitions in (("Std. deviation", stats.STD_DEFINITIONS),
                                 ("Diff with/without", stats.PERCENT_DEFINITIONS))
    ], ignore_index=True)
    per_definition = detail.groupby(["row", "definition"], sort=False).agg(
        columns=("column", "size"), rounds_to_printed=("rounds_to_printed", "sum"),
        reached_within_input_rounding=("reached_within_input_rounding", "sum")).reset_index()
    working = per_definition[per_definition["reached_within_input_rounding"] == per_definition["columns"]]
    return per_definition, detail.merge(working[["row", "definition"]])


def short_column(column: str) -> str:
    """A slide column as a short table header: 'Directory (kiops/s) / Create' -> 'dir create'."""
    group, _, operation = column.partition(" / ")
    return f"{group.split(' (')[0].lower().replace('directory', 'dir')} {operation.lower()}"


def seed_printed(seed: pd.DataFrame) -> pd.DataFrame:
    """The slide's table as printed, with short headers (short_column) so that it fits a page."""
    wide = seed_wide(seed, "printed")
    return wide.rename(columns=short_column).reset_index(names="state")


def seed_states(seed: pd.DataFrame) -> pd.DataFrame:
    """The printed state rows ("No snapshot" first, as the slide lists them), without the two summary rows."""
    return seed_wide(seed).drop(index=list(SUMMARY_ROWS))


def get_seed_ratios(seed: pd.DataFrame) -> pd.DataFrame:
    """Each printed snapshot state over the printed "No snapshot" row, per column, with the state's position in
    the order the slide lists (and the method slide ran) them: published figures, no spread, no test."""
    states = seed_states(seed)
    baseline = states.index[0]
    ratios = (states.iloc[1:] / states.loc[baseline]).reset_index(names="state")
    long = ratios.melt(id_vars="state", var_name="column", value_name="ratio")
    long["order"] = long["state"].map({s: i for i, s in enumerate(states.index)})
    long["column"] = long["column"].map(short_column)
    return long


def get_seed_signs(ratios: pd.DataFrame) -> tuple[pd.DataFrame, list[Count]]:
    """Per column, how many of the snapshot states the slide prints below "No snapshot" (a count over every
    printed state: no interval), with the lowest and highest ratio."""
    rows, counts = [], []
    for column, group in ratios.groupby("column", sort=False):
        below = evidence.count(int((group["ratio"] < 1).sum()), len(group), of=Replicate.PUBLISHED,
                               quantity=f"{column}: snapshot states below 'No snapshot'")
        counts.append(below)
        rows.append({"column": column, "states": below.n, "below 'No snapshot'": below.k,
                     "lowest ratio": group["ratio"].min(), "highest ratio": group["ratio"].max()})
    return pd.DataFrame(rows), counts
