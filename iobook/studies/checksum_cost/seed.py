"""IBM's half of the Checksum study: seed 000's checksum table as published figures (its footnote, and two readings of
its undefined "memory factor" within the slide's rounding), and the checksum setting in the Storage Scale listings of
IBM's IO500 runs."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...database import published, store
from ...inference import evidence

PUBLISHED = "seed000_checksum_cpu_memory"
TABLE = "checksum_cpu_memory"  # the slide's table in PUBLISHED
FOOTNOTE_TABLE = "checksum_footnote"  # the footnote (**) to its trailerchecksum column, in PUBLISHED
# Node counts quoted from seed 000: "nine HDR200 connected clients" (checksum slide) and "2 servers/canisters
# per BB" (IBM Tucson's configuration slide); the checksum slide's system is one ESS 3500 building block.
NODES = {"Client": 9, "Server": 2}
BUILDS = ["5.1.5.1 GA", "trailerchecksum"]
SETTING = "nsdRAIDClientOnlyChecksum"
SETTING_QUANTITY = f"declustered-RAID IO500 runs setting {SETTING} yes"
ROUNDING_QUANTITY = "printed memory factors reproduced within the slide's rounding"
GB_S_ROUNDING = 0.5  # the slide prints GB/s as whole numbers
FACTOR_ROUNDING = 0.05  # and factors to one decimal
FACTORS_FORMATS = {"memory ÷ IOR": ".2f", "memory ÷ IOR per node": ".3f", "nodes implied": ".2f",
                   "IOR read (GB/s)": "g", "memory (GB/s)": "g", "printed": "g"}


def get_published() -> pd.DataFrame:
    """Seed 000's checksum table as printed: row, build (column), printed string, value, unit, note, source."""
    pub = published.load(PUBLISHED)
    return pub[pub.table == TABLE].reset_index(drop=True)


def get_footnote() -> pd.Series:
    """The slide's footnote to its trailerchecksum column, the words that say what work the builds were measured in
    (`printed`, as the seed prints them) and the seed line they sit on (`line`)."""
    pub = published.load(PUBLISHED)
    return pub[pub.table == FOOTNOTE_TABLE].iloc[0]


def footnote_quote(footnote: pd.Series) -> str:
    """The footnote's words as a quotation inside a sentence: its closing full stop left out."""
    return footnote.printed.removesuffix(".")


def get_memory_factor(pub: pd.DataFrame) -> pd.DataFrame:
    """Two readings of the slide's undefined "Mem Fact" per side and build: memory bandwidth over the whole
    IOR bandwidth, and over one node's share of it (NODES), each against the printed factor, plus the
    node count the printed factor implies (IOR bandwidth x factor / memory bandwidth)."""
    value = pub.set_index(["row", "column"])["value"]
    rows = []
    for side, nodes in NODES.items():
        for build in BUILDS:
            io, mem, printed = (value["IOR Seq Read BW", build], value[f"{side} / Mem BW", build],
                                value[f"{side} / Mem Fact", build])
            per_node = mem / (io / nodes)
            rows.append({"side": side, "build": build, "io_gb_s": io, "mem_gb_s": mem, "printed": printed,
                         "whole": mem / io, "nodes": nodes, "per_node": per_node,
                         "per_node_matches": round(per_node, 1) == printed, "implied_nodes": io * printed / mem})
    return pd.DataFrame(rows)


def rounding_count(factors: pd.DataFrame) -> evidence.Count:
    """How many printed memory factors the per-node reading reproduces within the slide's rounding: the range
    the printed inputs allow (each half a unit of its last printed digit either way, GB/s printed whole)
    overlaps the range the printed factor allows (half a tenth either way)."""
    low = (factors.mem_gb_s - GB_S_ROUNDING) / ((factors.io_gb_s + GB_S_ROUNDING) / factors.nodes)
    high = (factors.mem_gb_s + GB_S_ROUNDING) / ((factors.io_gb_s - GB_S_ROUNDING) / factors.nodes)
    within = (low <= factors.printed + FACTOR_ROUNDING) & (high >= factors.printed - FACTOR_ROUNDING)
    return evidence.count(int(within.sum()), len(factors), quantity=ROUNDING_QUANTITY,
                          of=evidence.Replicate.PUBLISHED)


def slide(pub: pd.DataFrame) -> str:
    """The title of the slide the published table comes from."""
    return pub.source.iloc[0].split(": ", 1)[1]


def published_wide(pub: pd.DataFrame) -> pd.DataFrame:
    """The slide's table as printed: one row per measure, one column per build."""
    wide = pub.pivot(index="row", columns="column", values="printed").reindex(pub.row.drop_duplicates())[BUILDS]
    wide.columns.name = None
    return wide.reset_index(names="measure")


def factors_table(factors: pd.DataFrame) -> pd.DataFrame:
    """The memory-factor readings as the page shows them."""
    return factors[["side", "build", "io_gb_s", "mem_gb_s", "printed", "whole", "per_node", "implied_nodes"]].rename(
        columns={"io_gb_s": "IOR read (GB/s)", "mem_gb_s": "memory (GB/s)", "whole": "memory ÷ IOR",
                 "per_node": "memory ÷ IOR per node", "implied_nodes": "nodes implied"})


def get_checksum_settings(con) -> pd.DataFrame:
    """Every Storage Scale mmlsconfig setting whose name holds "checksum", with the IO500 run its listing
    describes (`io500_run_system_files`): submission, institution, system, file system as the archive names
    it, year, the node class it applies to (`common`: the whole cluster), value, and the listing's line, and
    `raid`: the listing sets Storage Scale RAID settings (nsdRAID*) beside the checksum one, so the system has
    declustered RAID. Runs with a listing that sets none appear once with an empty key."""
    return store.frame(con, __package__, "checksum_settings", [SETTING])


def raid_listings(settings: pd.DataFrame) -> pd.DataFrame:
    """Per IO500 run with a Storage Scale listing: submission, year, file system as the archive names it,
    whether the listing is of a declustered-RAID (Storage Scale RAID) system, and whether it sets
    nsdRAIDClientOnlyChecksum yes."""
    on = settings["key"].fillna("").str.lower().eq(SETTING.lower()) & settings["value"].fillna("").str.lower().eq("yes")
    return (settings.assign(sets=on).groupby("submission")
            .agg(year=("year", "first"), filesystem=("filesystem", "first"), raid=("raid", "first"), sets=("sets", "any"))
            .reset_index())


def settings_count(listings: pd.DataFrame) -> evidence.Count:
    """A census of the declustered-RAID listings: how many set the setting (SETTING_QUANTITY)."""
    raid = listings[listings.raid]
    return evidence.count(int(raid.sets.sum()), len(raid), quantity=SETTING_QUANTITY, of=evidence.Replicate.RUN)


def settings_table(settings: pd.DataFrame) -> pd.DataFrame:
    """The checksum settings per IO500 run as a table that fits a page: submission, system, year, whether it
    has declustered RAID ("RAID"), the setting with its value, where it applies ('cluster' for mmlsconfig's common
    part, else the node classes), listing line."""
    df = settings.assign(
        applies=np.where(settings["scope"].isna(), "–",
                         np.where(settings["scope"] == "common", "cluster", "nodes " + settings["scope"].fillna(""))),
        setting=(settings["key"] + " " + settings["value"].fillna("")).fillna("(no checksum setting)"),
        raid=np.where(settings.raid, "yes", "no"))
    return df[["submission", "system", "year", "raid", "setting", "applies", "line"]].rename(columns={"raid": "RAID"})
