"""Every cell of data/published/*.csv is checked against the seed text it cites.

A cell names its place in the seed: `line` (1-based), `field` (0-based tab-separated field) and `char` (offset in
that field). The printed string must sit exactly there, the number must be the printed one, the source heading must
occur in the seed at or above that line, and the row and column labels must be printed around it.
"""
import re

import pandas as pd
import pytest
from conftest import SHARED

from iobook.database import published

SEEDS = SHARED / "seeds"
# texts other than the seeds that a table cites: where each is and its encoding (the organisations' supplement to
# MLPerf Storage v1.0 is Windows-1252: its apostrophes are 0x92)
TEXTS = {"MLPerf Storage v1.0 Supplementals.txt": (SHARED / "mlperf-storage-v1.0", "cp1252")}
NAMES = sorted(p.stem for p in published.PUBLISHED.glob("*.csv"))
NUMBER = re.compile(r"~?(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)(?:%|X|x|M)?")  # "55,934": a thousands comma
WORD_CHAR = re.compile(r"[A-Za-z0-9.]")


def text_path(seed: str):
    return TEXTS.get(seed, (SEEDS, "utf-8"))[0] / seed


def seed_lines(seed: str) -> list[str]:
    return text_path(seed).read_bytes().decode(TEXTS.get(seed, (SEEDS, "utf-8"))[1]).split("\n")


def plain(text: str) -> str:
    return re.sub(r"</?u>", "", text).lower()


def grounded(label: str, context: str) -> bool:
    """Each word of the label (outer punctuation stripped) is printed in the context."""
    words = [w.strip("()*,:") for w in label.split()]
    return all(plain(w) in plain(context) for w in words if w and w != "/")


def block_above(lines: list[str], line: int, table_lines: set[int]) -> str:
    """The text lines of the slide block above `line` that are not rows of the same table: its header."""
    header, n = [], line - 1
    while n >= 1 and lines[n - 1].strip():
        if n not in table_lines:
            header.append(lines[n - 1])
        n -= 1
    return "\n".join(header)


def merged_parent(lines: list[str], line: int) -> str:
    """For a row whose first cell is empty (a merged cell), the nearest row above that fills it."""
    if lines[line - 1].split("\t")[0].strip():
        return ""
    return next((lines[n - 1] for n in range(line - 1, 0, -1) if lines[n - 1].split("\t")[0].strip()), "")


def check(cell: pd.Series, table: pd.DataFrame) -> list[str]:
    """The problems of one cell; [] when it matches its seed."""
    seed, _, heading = cell["source"].partition(": ")
    if not text_path(seed).is_file():
        return [f"no seed file {seed!r}"]
    lines = seed_lines(seed)
    line, field, char, printed = cell["line"], cell["field"], cell["char"], cell["printed"]
    if not 1 <= line <= len(lines):
        return [f"line {line} is outside {seed}"]
    text = lines[line - 1]
    problems = []
    if heading not in "\n".join(lines[:line]):
        problems.append(f"heading {heading!r} does not occur in {seed} at or above line {line}")

    fields = text.split("\t")
    start = sum(len(f) + 1 for f in fields[:field]) + char
    end = start + len(printed)
    if field >= len(fields) or text[start:end] != printed:
        problems.append(f"{printed!r} is not at line {line} field {field} char {char}: {text!r}")
    elif (WORD_CHAR.match(printed[0]) and start > 0 and WORD_CHAR.match(text[start - 1])) or \
            (WORD_CHAR.match(printed[-1]) and end < len(text) and WORD_CHAR.match(text[end])):
        problems.append(f"{printed!r} is only part of a longer token in line {line}")

    problems += check_value(cell)

    context = "\n".join([text, merged_parent(lines, line), heading])
    rank = re.fullmatch(r"rank (\d+)", cell["row"])
    if rank:
        if sorted(set(table["line"])).index(line) + 1 != int(rank.group(1)):
            problems.append(f"row {cell['row']!r} is not the table's line number {rank.group(1)}")
    elif not grounded(cell["row"], context):
        problems.append(f"row {cell['row']!r} is not printed around line {line}")
    header = block_above(lines, line, set(table["line"]))
    if cell["column"] != "value" and not grounded(cell["column"], "\n".join([header, context])):
        problems.append(f"column {cell['column']!r} is not printed in the header or line {line}")
    return problems


def check_value(cell: pd.Series) -> list[str]:
    printed, value, note = cell["printed"], cell["value"], cell["note"]
    if note.startswith("garbled"):
        # Best reading of a damaged number: the same digits in the same order.
        if pd.isna(value) or re.sub(r"\D", "", printed) != re.sub(r"\D", "", repr(value)):
            return [f"value {value!r} is not a reading of garbled {printed!r}"]
        return []
    # a unit printed glued to its number ("3TB", "120TiB/day") is the cell's unit
    number = NUMBER.fullmatch(printed.removesuffix(cell["unit"]) if cell["unit"] else printed)
    if number and cell["unit"] != "version":
        if pd.isna(value) or value != float(number.group(1).replace(",", "")):
            return [f"value {value!r} is not the printed number {printed!r}"]
    elif not pd.isna(value):
        return [f"value {value!r} given for non-numeric {printed!r}"]
    return []


def check_table(table: pd.DataFrame) -> list[str]:
    problems = [f"{cell['table']} {cell['row']!r}/{cell['column']!r}: {p}"
                for _, cell in table.iterrows() for p in check(cell, table)]
    keys = table[["table", "row", "column"]]
    problems += [f"duplicate cell {tuple(k)}" for k in keys[keys.duplicated()].itertuples(index=False)]
    # A column of a tab-separated table is one text column of the slide.
    for (name, column), cells in table.groupby(["table", "column"]):
        tabbed = [seed_lines(s.partition(": ")[0])[n - 1].count("\t") > 0 for s, n in zip(cells["source"], cells["line"])]
        if all(tabbed) and cells["field"].nunique() > 1:
            problems.append(f"{name} column {column!r} spans fields {sorted(cells['field'].unique())}")
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_every_cell_matches_its_seed(name):
    table = published.load(name)
    assert len(table) > 0
    assert check_table(table) == []


def test_all_tables_are_present_and_described():
    assert sorted(NAMES) == sorted([
        "seed000_checksum_cpu_memory", "seed000_cloud_hpc_sc23", "seed000_ehningen_vs_tucson",
        "seed000_ess3500_io500_clients", "seed000_ess3500_read_bandwidth", "seed000_sc23_io500", "seed000_ss6000_claims", "seed000_tucson_isc23_to_sc23",
        "seed000_tuning_settings", "seed001_page_cache_facts", "seed002_daos_isc20_result_summary",
        "seed002_historic_top_list", "seed002_phase_tables", "seed002_sc19_list", "seed002_tianhe_servers",
        "seed002_winning_systems_trend",
        "seed003_snapshot_mdtest", "seed003_test_configuration", "seed004_ecmwf_workflow", "seed004_gekkofs_io500",
        "seed004_nextgenio_hardware", "mlperf_v1_supplementals"])
    readme = (published.PUBLISHED / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}.csv`" in readme for name in NAMES)


def cell_of(table, row, column):
    match = table[(table["row"] == row) & (table["column"] == column)]
    assert len(match) == 1
    return match.index[0]


def test_known_values():
    sc23 = published.load("seed000_sc23_io500")
    totals = sc23[sc23["row"] == "TOTAL Score"].set_index("column")["value"]
    assert totals.to_dict() == {"IBM Tucson": 136.4, "IBM Ehningen": 166.3, "IBM Cloud HPC": 618.9}
    snap = published.load("seed003_snapshot_mdtest")
    diff = snap.loc[cell_of(snap, "Diff with/without", "Directory (kiops/s) / Create")]
    assert (diff["printed"], diff["value"], diff["unit"]) == ("96.22%", 96.22, "%")
    daos = published.load("seed002_daos_isc20_result_summary")
    bw = daos.loc[(daos["table"] == "daos_isc20_full") & (daos["row"] == "SCORE") & (daos["column"] == "Bandwidth")].iloc[0]
    assert (bw["printed"], bw["value"]) == ("108. <u>9</u> 24621", 108.924621)
    gekko = published.load("seed004_gekkofs_io500")
    assert gekko.loc[cell_of(gekko, "SCORE", "TOTAL"), "value"] == 110.812
    # seed 004 line 34 "[| 200M obs/day 120TiB/day 45TiB/day", line 46 "- 34 node cluster with 3TB of Intel"
    ecmwf = published.load("seed004_ecmwf_workflow").set_index("row")
    assert ecmwf.loc["120TiB/day", ["value", "unit"]].tolist() == [120, "TiB/day"]
    hardware = published.load("seed004_nextgenio_hardware")
    assert hardware.loc[cell_of(hardware, "cluster", "Intel"), ["printed", "value", "unit"]].tolist() == ["3TB", 3, "TB"]


@pytest.mark.parametrize(("column", "new"), [
    ("printed", "106.7"),  # a changed figure no longer sits in the seed
    ("value", 106.7),  # the number no longer reads the printed string
    ("field", 2),  # the right number in the wrong column
    ("line", 141),  # the right column in the wrong row
    ("column", "IBM Summit"),  # a label the slide does not print
    ("source", "000_e82b5fd1ddcfd1a1.txt: IO500 submissions from IBM for ISC24"),
])
def test_a_changed_cell_is_rejected(column, new):
    table = published.load("seed000_sc23_io500")
    assert check_table(table) == []
    target = cell_of(table, "ior-easy-write", "IBM Tucson")
    table[column] = table[column].astype(object)
    table.loc[target, column] = new
    assert check_table(table) != []


def test_a_garbled_reading_must_keep_the_printed_digits():
    daos = published.load("seed002_daos_isc20_result_summary")
    target = daos.index[(daos["row"] == "SCORE") & (daos["column"] == "Bandwidth")][0]
    daos.loc[target, "value"] = 108.92462
    assert any("garbled" in p for p in check_table(daos))
