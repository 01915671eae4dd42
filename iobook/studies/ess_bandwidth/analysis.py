"""The Storage Scale chapter's analysis against the talk (seed 000: "SC23 Scale Performance Update", IBM, Storage
Scale User Group at SC23): which runs its IO500 tables print, each run's ESS release, IBM's claims per building
block for each model, phase and release, the easy phases per building block against them, the clients' nominal
line rate and IBM's quoted figure per run. IBM's figures are "up to" maxima from its lab: a run is set beside its
figure, never tested against it (findings.up_to_share)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ...book import present
from ...database import published, setups, store
from ...inference.units import gb_to_gib, gib_to_gb
from ...parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES
from .runs import EASY_PHASES, MODELS, PACKAGE, PHASE_ORDER, SHORT_PHASE, ids

# Columns of seed 000's IO500 tables and what the slide says each is: (site, the list it names). The
# Ehningen-vs-Tucson slide is left out: its Tucson column is headed ISC23 but prints the SC23 numbers.
SC23_TABLE = "seed000_sc23_io500"  # "IO500 submissions from IBM for SC23 (all with IBM Storage Scale 5.1.9.0)"
TALK_COLUMNS = {
    (SC23_TABLE, "IBM Tucson"): ("Tucson", "SC23"),
    (SC23_TABLE, "IBM Ehningen"): ("Ehningen", "SC23"),
    (SC23_TABLE, "IBM Cloud HPC"): ("Cloud HPC", "SC23"),
    ("seed000_tucson_isc23_to_sc23", "ISC23"): ("Tucson", "ISC23"),
    ("seed000_tucson_isc23_to_sc23", "SC23"): ("Tucson", "SC23"),
}
IO500_PHASES = list(STANDARD_BW_PHASES + STANDARD_MD_PHASES)


def get_talk_runs(con, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs whose twelve phases a column of the talk's IO500 tables prints (each value rounded half-up
    to the slide's one decimal, directly or from two decimals), with the site and list the slide names:
    which list a run was made for is known only this way (the io500 version names the benchmark release).
    Columns: run_id, site, list, table, column; a run two tables print has two rows."""
    phases = store.frame(con, PACKAGE, "phases", [ids(runs.run_id), IO500_PHASES])
    phases = phases.assign(once=phases.value.map(lambda v: present.half_up(v, 1)),
                           twice=phases.value.map(lambda v: present.half_up(present.half_up(v, 2), 1)))
    rows = []
    for (table, column), (site, event) in TALK_COLUMNS.items():
        printed = published.load(table)
        printed = printed[(printed.column == column) & printed.row.isin(IO500_PHASES)][["row", "value"]]
        both = phases.merge(printed.rename(columns={"row": "phase", "value": "printed"}), on="phase")
        same = both.assign(ok=(both.once == both.printed) | (both.twice == both.printed)).groupby("run_id").ok
        for run_id in same.sum()[(same.sum() == len(printed)) & (same.size() == len(printed))].index:
            rows.append((run_id, site, event, table, column))
    return pd.DataFrame(rows, columns=["run_id", "site", "list", "table", "column"]).astype({"run_id": "int64"})

ESS_RELEASE = re.compile(r"\bESS (\d+(?:[.-]\d+)+)")
SCALE_RELEASE = re.compile(r"\bStorage Scale (\d+(?:[.-]\d+)+)")


def release_key(release: str) -> tuple[int, ...]:
    """'6.2.1-0' -> (6, 2, 1, 0): releases compared number by number."""
    return tuple(int(x) for x in re.findall(r"\d+", release))


def get_ess_releases(runs: pd.DataFrame, talk: pd.DataFrame) -> pd.DataFrame:
    """The ESS release of each run: as a folder name of the run states it (`... with ESS 6.1.6.0`), else as
    the talk states it for the cluster of a run its SC23 tables print (seed 000, "Clients' mmchconfig
    Tuning": ESS 6.1.8.2 at Tucson and Ehningen), else unknown; and the Storage Scale release a folder name
    states (`IBM Storage Scale 5.1.7.1 with ...`), else unknown. Columns: run_id, ess_release, release_from,
    scale_release."""
    stated = published.load("seed000_ess3500_io500_clients")
    stated = stated[stated.column == "ESS"].set_index("row").printed
    sc23 = talk[talk.list == "SC23"].drop_duplicates("run_id").set_index("run_id").site
    rows = []
    for run in runs.itertuples():
        scale = m[1] if (m := SCALE_RELEASE.search(run.path or "")) else pd.NA
        if m := ESS_RELEASE.search(run.path or ""):
            rows.append((run.run_id, m[1], "folder name", scale))
        elif run.run_id in sc23.index and sc23[run.run_id] in stated.index:
            rows.append((run.run_id, stated[sc23[run.run_id]], "talk (slide 'Clients' mmchconfig Tuning')", scale))
        else:
            rows.append((run.run_id, pd.NA, "unknown", scale))
    return pd.DataFrame(rows, columns=["run_id", "ess_release", "release_from", "scale_release"]).astype(
        {"run_id": "int64", "ess_release": "string", "scale_release": "string"})


def talk_release(table: str = SC23_TABLE) -> str | None:
    """The Storage Scale release the talk heads its SC23 IO500 tables with ("all with IBM Storage Scale
    5.1.9.0", in the published table's source), None if it names none."""
    m = SCALE_RELEASE.search(published.load(table).source.iloc[0])
    return m[1] if m else None


RATIO = re.compile(r"~?\d+(?:\.(\d+))?X")  # a ratio as a slide prints it, "~2.6X"


def derived_write_claim(ss: pd.DataFrame) -> pd.DataFrame:
    """IBM's ESS 3500 write figure per building block, which the talk gives only as a ratio: "up to 155 GB/s
    seq. write per system (building block) - ~2.6X ESS3500" (seed 000 line 50), so 155 / 2.6 GB/s. The slide
    rounds the ratio to its printed digits: `claim_low_gb_s`-`claim_high_gb_s` is the figure for a ratio
    anywhere within that rounding (2.55-2.65)."""
    write = ss[ss.row == "seq. write"].set_index("column")
    figure, ratio = write.loc["per system (building block)"], write.loc["ESS3500"]
    half = 0.5 * 10.0 ** -len(RATIO.fullmatch(ratio.printed)[1] or "")  # half the printed ratio's last digit
    return pd.DataFrame([{
        "model": MODELS["3500"], "row": "seq. write", "printed": f"{figure.printed} GB/s at {ratio.printed} ESS3500",
        "value": figure.value / ratio.value, "ess_from": pd.NA, "ess_before": pd.NA, "source": ratio.source,
        "claim_low_gb_s": figure.value / (ratio.value + half), "claim_high_gb_s": figure.value / (ratio.value - half),
        "basis": "derived", "cited": f"{ratio.source.partition(':')[0]} line {ratio.line}",
        "note": (f"derived: the Storage Scale System 6000's {figure.printed} GB/s write is \"{ratio.printed} "
                 f"ESS3500\" (seed 000 line {ratio.line}); the slide rounds the ratio")}])


def get_claims() -> pd.DataFrame:
    """IBM's per-building-block lab bandwidth in seed 000, in decimal GB/s as printed and in GiB/s, with the
    ESS releases each holds for (`ess_from` inclusive, `ess_before` exclusive; NA: the talk names none):
    Storage Scale System 6000 up to 310 GB/s read and 155 GB/s write (no release named); ESS 3500 read
    with 4 HDR200 adapters per canister 91 GB/s before ESS 6.1.8 and 126 GB/s from it; ESS 3500 write
    derived from the ~2.6X ratio (`derived_write_claim`, no release named). `basis`: "printed" or "derived";
    `claim_low_gb_s`, `claim_high_gb_s`: a derived figure's range for its ratio's rounding (NaN if printed);
    `cited`: the transcript's file and line the figure (or a derived one's ratio) stands on."""
    ss = published.load("seed000_ss6000_claims")
    derived = derived_write_claim(ss)
    ss = ss[(ss.column == "per system (building block)") & (ss.unit == "GB/s")].assign(
        model=MODELS["6000"], ess_from=pd.NA, ess_before=pd.NA)
    ess = published.load("seed000_ess3500_read_bandwidth")
    ess = ess[(ess.row == "4 HDR200 adapters per canister")].assign(model=MODELS["3500"], row="seq. read")
    # "improved from 91 GB/s to 126 GB/s in ESS 6.1.8": the column names the release, the note the one before
    ess = ess.assign(ess_from=ess.column.str.extract(r"ESS (\d[\d.]*)$", expand=False),
                     ess_before=ess.note.str.extract(r"before ESS (\d[\d.]*)$", expand=False))
    claims = pd.concat([ss.assign(basis="printed"), ess.assign(basis="printed"), derived])
    claims = claims.assign(phase=claims.row.map({"seq. read": "ior-easy-read", "seq. write": "ior-easy-write"}),
                           claim_gb_s=claims.value, claim_gib_s=claims.value.map(gb_to_gib),
                           slide=claims.source.str.partition(": ")[2],
                           cited=claims.cited.fillna(claims.source.str.partition(":")[0] + " line "
                                                     + claims.line.astype("Int64").astype(str)))
    return claims[["model", "phase", "printed", "claim_gb_s", "claim_gib_s", "ess_from", "ess_before", "basis",
                   "claim_low_gb_s", "claim_high_gb_s", "slide", "cited", "note"]].astype(
        {"ess_from": "string", "ess_before": "string", "claim_low_gb_s": float, "claim_high_gb_s": float}
    ).reset_index(drop=True)


def release_range(ess_from, ess_before) -> str:
    """The ESS releases a claim holds for, in words: 'ESS 6.1.8 on', 'before ESS 6.1.8', 'none named'."""
    if pd.notna(ess_from):
        return f"ESS {ess_from} on"
    return f"before ESS {ess_before}" if pd.notna(ess_before) else "none named"


def claim_for(claims: pd.DataFrame, model: str, phase: str, release) -> tuple[float, str]:
    """IBM's claim (GB/s) for a run of `model` in `phase` at ESS `release` (NA: unknown), and which claim it
    is: the one whose releases hold the run's; a claim that names no release holds for every run (a derived
    one says so, with its range); NaN with the reason when the talk has none for the model and phase, or none
    for the run's release."""
    rows = claims[(claims.model == model) & (claims.phase == phase)]
    if rows.empty:
        return np.nan, "no claim in the talk"
    ranged = rows[rows.ess_from.notna() | rows.ess_before.notna()]
    if ranged.empty:
        row = rows.iloc[0]
        if row.basis == "derived":
            return float(row.claim_gb_s), "derived; no ESS release named"  # the claims table says from what
        return float(row.claim_gb_s), "no ESS release named"
    if pd.isna(release):
        return np.nan, "ESS release unknown: " + "; ".join(
            f"{r.claim_gb_s:,.0f} GB/s {release_range(r.ess_from, r.ess_before)}" for r in ranged.itertuples())
    key = release_key(release)
    for r in ranged.itertuples():
        if (pd.isna(r.ess_from) or key >= release_key(r.ess_from)) and (
                pd.isna(r.ess_before) or key < release_key(r.ess_before)):
            return float(r.claim_gb_s), release_range(r.ess_from, r.ess_before)
    return np.nan, f"no claim for ESS {release}"


def get_per_block(con, runs: pd.DataFrame, blocks: pd.DataFrame, claims: pd.DataFrame,
                  releases: pd.DataFrame) -> pd.DataFrame:
    """The easy phases of each run (the IO500 summary's GiB/s, `io500_phases`) in decimal GB/s, per building
    block where `blocks` (get_building_blocks) has a count, and as % of IBM's claim for the run's model,
    phase and ESS release (`claim_for`; `claim_rule` says which claim or why none). A run without a count
    has building_blocks "unknown"."""
    easy = store.frame(con, PACKAGE, "phases", [ids(runs.run_id), EASY_PHASES]).rename(
        columns={"value": "gib_s"})
    df = (easy.merge(runs[["run_id", "run_key", "label", "submission", "model", "started"]], on="run_id")
          .merge(blocks[["run_id", "building_blocks", "basis", "evidence"]], on="run_id", how="left")
          .merge(releases, on="run_id", how="left"))
    matched = [claim_for(claims, m, p, r) for m, p, r in zip(df.model, df.phase, df.ess_release)]
    df["claim_gb_s"] = [c for c, _ in matched]
    df["claim_rule"] = [rule for _, rule in matched]
    df["gb_s"] = df.gib_s.map(gib_to_gb)
    df["blocks"] = df.building_blocks.astype("Float64").astype(float)
    df["per_block_gb_s"] = df.gb_s / df.blocks
    df["pct_of_claim"] = df.per_block_gb_s / df.claim_gb_s * 100
    df["building_blocks"] = df.building_blocks.astype("string").fillna("unknown")
    order = {p: i for i, p in enumerate(PHASE_ORDER)}
    return df.sort_values(["run_id", "phase"], key=lambda s: s.map(order) if s.name == "phase" else
                          s.map({r: i for i, r in enumerate(runs.run_id)})).reset_index(drop=True)


PER_BLOCK_COLUMNS = {"run_key": "run_key", "phase": "phase", "pct_of_claim": "of claim (%)",
                     "per_block_gb_s": "per block (GB/s)", "claim_gb_s": "claim (GB/s)", "claim_rule": "claim for",
                     "building_blocks": "blocks", "gb_s": "measured (GB/s)", "nodes": "clients",
                     "client_ceiling_gb_s": "nominal line rate (GB/s)", "pct_of_client": "of line rate (%)"}


def per_block_table(ceilings: pd.DataFrame) -> pd.DataFrame:
    """The runs with a building-block count for the page, a row per easy phase: the share of IBM's claim first,
    then GB/s per building block and the claim for the run's model, phase and release (which claim, or why none),
    the blocks, the measured GB/s, the clients and their nominal line rate and the share of it used."""
    counted = ceilings[ceilings.building_blocks != "unknown"]
    return counted.assign(phase=counted.phase.map(SHORT_PHASE))[list(PER_BLOCK_COLUMNS)].rename(
        columns=PER_BLOCK_COLUMNS).reset_index(drop=True)


def fewest_blocks(per_block: pd.DataFrame) -> pd.DataFrame:
    """For runs without a building-block count but with a claim for their model: the fewest building blocks
    that could deliver the measured bandwidth at IBM's claim (measured GB/s / claim, rounded up, highest
    over the easy phases). A lower bound, not a count."""
    df = per_block[(per_block.building_blocks == "unknown") & per_block.claim_gb_s.notna()]
    df = df.assign(at_least=np.ceil(df.gb_s / df.claim_gb_s).astype(int))
    best = df.sort_values("at_least").groupby("run_key", sort=False).tail(1)
    return best[["run_key", "model", "phase", "gb_s", "claim_gb_s", "at_least"]].reset_index(drop=True)

def get_client_links() -> pd.DataFrame:
    """The talk's client links for IBM's ESS 3500 IO500 clusters (seed 000, "Details Regarding IBM's ESS3500
    Cluster io500 submission for ISC23:"): per site, links per client and the link's rate in Gb/s, read from
    the printed phrase ("One HDR200-Infiniband connection per client", "two HDR200 connections") as the setup
    record reads it (iobook.database.setups.published_links: the count word, the network's rate from network_rates.csv)."""
    pub = published.load(setups.PUBLISHED_LINKS)
    pub = pub[pub.column == setups.LINKS_COLUMN]
    stated = setups.published_links()
    return pd.DataFrame({"site": pub.row, "printed": pub.printed,
                         "links_per_client": [stated[row][0] for row in pub.row],
                         "link_gbit_s": [stated[row][1].gbit_s for row in pub.row],
                         "slide": pub.source.str.partition(": ")[2]}).reset_index(drop=True)


def get_run_links(con, run_ids) -> pd.DataFrame:
    """Each run's client links and their rate as its setup record states them (the `setups` view: the run's
    files, a setup.yml, or for IBM's ESS 3500 runs the talk's printed words, the row data/reference/client_links.csv
    names for each)."""
    return store.frame(con, PACKAGE, "run_links", [ids(run_ids)]).astype(
        {"links_per_client": float})  # NaN, not pd.NA, where none is stated


def get_ceilings(per_block: pd.DataFrame, ior: pd.DataFrame, talk: pd.DataFrame,
                 links: pd.DataFrame) -> pd.DataFrame:
    """Per run and easy phase in GB/s: the clients' line rate (`client_ceiling_gb_s`: client nodes the IOR log
    reports x the links per client and link rate the run's setup record states (`links`: get_run_links); NaN
    where it states none), a ceiling no transfer exceeds but one a transfer protocol does not fill either, and
    IBM's quoted figure for the run's building blocks (`quoted_gb_s`: building blocks x IBM's "up to" claim for the
    run's release), no ceiling: a run may exceed it; the measured GB/s as % of the line rate, and `clients_bound`:
    the line rate is below IBM's figure (the run could not show that figure, whatever the storage could do)."""
    site = talk.drop_duplicates("run_id")[["run_id", "site"]]
    nodes = ior[ior.phase.isin(EASY_PHASES)][["run_id", "phase", "nodes"]]
    df = (per_block.merge(site, on="run_id", how="left")
          .merge(nodes, on=["run_id", "phase"], how="left")
          .merge(links, on="run_id", how="left"))
    df["client_ceiling_gb_s"] = df.nodes * df.links_per_client * df.link_gbit_s / 8
    df["quoted_gb_s"] = df.blocks * df.claim_gb_s
    df["pct_of_client"] = df.gb_s / df.client_ceiling_gb_s * 100
    df["clients_bound"] = df.client_ceiling_gb_s < df.quoted_gb_s  # False where either is unknown (NaN)
    return df

def claims_values(claims: pd.DataFrame) -> dict:
    """IBM's figures the chapter's prose pastes (numbers as Python floats: a NumPy scalar's text is
    "np.float64(310.0)", which no format reads)."""
    ss, ess = claims[claims.model == MODELS["6000"]], claims[claims.model == MODELS["3500"]]
    write = ess[ess.phase == "ior-easy-write"].iloc[0]
    return {"ss_read_claim": float(ss[ss.phase == "ior-easy-read"].claim_gb_s.iloc[0]),
            "ss_write_claim": float(ss[ss.phase == "ior-easy-write"].claim_gb_s.iloc[0]),
            "ess_read_claim": float(ess[ess.ess_from.notna()].claim_gb_s.iloc[0]),
            "ess_read_claim_before": float(ess[ess.ess_before.notna()].claim_gb_s.iloc[0]),
            "ess_claim_release": ess.ess_from.dropna().iloc[0],
            "ess_write_claim": round(float(write.claim_gb_s), 1), "ess_write_printed": write.printed,
            "ess_write_range": f"{write.claim_low_gb_s:,.1f}–{write.claim_high_gb_s:,.1f}",
            "ess_write_cited": write.cited}
