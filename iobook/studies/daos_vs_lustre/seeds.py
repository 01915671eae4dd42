"""What seeds 002 and 004 print, against the raw logs: NUDT's Tianhe-2E Lustre run (SC19) beside its unsubmitted DAOS
runs (ISC20) on the same storage servers, seed 002's two printed lists, and EPCC's NextGenIO GekkoFS run."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...database import io500_scores, published, store
from ...inference import evidence
from ...inference.evidence import Replicate
from ...parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES
from .analysis import PACKAGE, PHASES, has_view
from .nodes import SYSTEM_INFO, TIANHE, phase_log_clients, run_phases

GEKKO = {"institution": "EPCC", "system": "NextGENIO", "family": "GekkoFS"}
# seed 002's Tianhe-2E phase table spells the phases its own way
SLIDE_PHASE = {"ior_easy_w": "ior-easy-write", "ior_easy_r": "ior-easy-read", "ior_hard_w": "ior-hard-write",
               "ior_hard_r": "ior-hard-read", "md_easy_w": "mdtest-easy-write", "md_easy_stat": "mdtest-easy-stat",
               "md_easy_del": "mdtest-easy-delete", "md_hard_w": "mdtest-hard-write", "md_hard_r": "mdtest-hard-read",
               "md_hard_stat": "mdtest-hard-stat", "md_hard_del": "mdtest-hard-delete", "find_hard": "find"}
# The runs' names in tables and legends (no bracket: a name said in every row is no qualifier), and the DAOS
# listings' short names as the turned table's headers
DAOS_TABLES = {"daos_isc20_full": "DAOS, ISC20 full run, seed 002's slide",
               "daos_isc20_10node": "DAOS, ISC20 10 client nodes, seed 002's slide"}
DAOS_SHORT = {"daos_isc20_full": "full run", "daos_isc20_10node": "10 client nodes"}
LUSTRE_LABEL = "Lustre, SC19, raw log"
DAOS_FULL_LABEL = "DAOS, ISC20 full run, slide"  # the same-servers table's column
# The rescored listings' measures: the recomputed column, the printed one, the name a row of the turned table shows
RESCORED_MEASURES = [("bw (GiB/s)", "printed bw", "bandwidth (GiB/s)"),
                     ("md (kIOPS)", "printed md", "metadata (kIOPS)"), ("score", "printed score", "score")]
PRINTED_SCORE_HALF_UNIT = 0.005  # the lists print scores to two decimals: a run is the listed one within half of 0.01
GEKKO_SCORE_HALF_UNIT = 0.0005  # seed 004 prints its GekkoFS TOTAL to three decimals
SAME_SERVERS_FAMILY = "Tianhe-2E: the ISC20 DAOS run over the SC19 Lustre run"
# The measures the same-servers comparison sets side by side: name -> (the raw run's column, the rescored slide's)
SAME_SERVERS_MEASURES = {"bandwidth (GiB/s)": ("bw_gib_s", "bw (GiB/s)"),
                         "metadata (kIOPS)": ("md_kiops", "md (kIOPS)"), "score": ("score", "score")}


def cell(seed: pd.DataFrame, table: str, column: str) -> int:
    """A published number of a seed's table, as an integer."""
    return int(seed[(seed.table == table) & (seed.column == column)].value.item())


def printed(seed: pd.DataFrame, table: str, column: str) -> str:
    """A published cell as printed."""
    return str(seed[(seed.table == table) & (seed.column == column)].printed.item())


def seed_text(seed: pd.DataFrame, table: str, column: str) -> tuple[str, int]:
    """A published text cell (as printed) and its line in the seed."""
    row = seed[(seed.table == table) & (seed.column == column)].iloc[0]
    return str(row.printed), int(row.line)


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


# ---------------------------------------------------------------- Tianhe-2E: Lustre (SC19) and DAOS (ISC20)

def tianhe_runs(con) -> pd.DataFrame:
    """The Tianhe-2E runs, and which equals the SC19 list's printed score at its two decimals."""
    sc19 = published.load("seed002_sc19_list")
    listed = sc19[(sc19.row == "Tianhe-2E") & (sc19.column == "score")].value.item()
    runs = store.frame(con, PACKAGE, "system_runs", [TIANHE["institution"], TIANHE["system"]])
    runs["matches_sc19_score"] = (runs.score - listed).abs() <= PRINTED_SCORE_HALF_UNIT
    return runs


def tianhe_slide_vs_raw(con, run_id: int) -> pd.DataFrame:
    """Seed 002's Tianhe-2E phase table beside the SC19 run's values, compared at the printed precision."""
    slide = published.load("seed002_phase_tables")
    slide = slide[slide.table == "tianhe2e"].assign(phase=lambda d: d.column.map(SLIDE_PHASE))
    raw = run_phases(con, [run_id])[["phase", "value"]].rename(columns={"value": "raw"})
    table = slide[["column", "phase", "printed", "value"]].rename(
        columns={"column": "slide label", "value": "published"}).merge(raw, on="phase", how="left")
    decimals = table.printed.str.split(".").str[1].str.len().fillna(0).astype(int)
    table["raw at printed precision"] = [round(v, d) for v, d in zip(table.raw, decimals)]
    table["equal"] = table["raw at printed precision"] == table.published
    return table


def daos_rescored() -> pd.DataFrame:
    """The two DAOS result_summary listings printed on seed 002's ISC20 slides, rescored from their phases
    by io500_scores.recompute beside the slide's [SCORE] line (whose garbled numbers the note column explains)."""
    daos = published.load("seed002_daos_isc20_result_summary")
    rows = []
    for table, group in daos[daos.row.isin(PHASES) & (daos.column == "value")].groupby("table", sort=False):
        s = io500_scores.recompute(dict(zip(group.row, group.value)))
        score_line = daos[(daos.table == table) & (daos.row == "SCORE")].set_index("column")
        rows.append({"run": DAOS_TABLES[table], "bw (GiB/s)": s.bw_gib_s, "printed bw": score_line.value["Bandwidth"],
                     "md (kIOPS)": s.md_kiops, "printed md": score_line.value["IOPS"], "score": s.score,
                     "printed score": score_line.value["TOTAL"],
                     "garbled printed numbers": int(score_line.note.str.startswith("garbled").sum())})
    return pd.DataFrame(rows)


def rescored_table(rescored: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """daos_rescored turned for the page (one row per measure, the listings' recomputed and printed values side by
    side under their short names: six-decimal numbers fit the column this way), and the note saying how many of each
    listing's printed numbers text extraction garbled."""
    short = {DAOS_TABLES[table]: name for table, name in DAOS_SHORT.items()}
    by_run = rescored.set_index("run")
    frame = pd.DataFrame({"measure": [shown for _, _, shown in RESCORED_MEASURES], **{
        f"{short[run]}: {kind}": [by_run.loc[run, column[i]] for column in RESCORED_MEASURES]
        for run in by_run.index for i, kind in ((0, "recomputed"), (1, "printed"))}})
    garbled = "; ".join(f"{short[run]} {int(n)}" for run, n in by_run["garbled printed numbers"].items())
    return frame, f"Printed numbers the slides' text extraction garbled: {garbled}."


def tianhe_phases(con, lustre_run_id: int | None) -> pd.DataFrame:
    """Phase values, long form: the Lustre run's from io500_phases (when in the database) and the two DAOS
    runs' as printed on seed 002's slides."""
    daos = published.load("seed002_daos_isc20_result_summary")
    daos = daos[daos.row.isin(PHASES) & (daos.column == "value")]
    daos = pd.DataFrame({"run": daos.table.map(DAOS_TABLES), "phase": daos.row, "value": daos.value})
    if lustre_run_id is None:
        return daos.reset_index(drop=True)
    lustre = run_phases(con, [lustre_run_id]).assign(run=LUSTRE_LABEL)[["run", "phase", "value"]]
    return pd.concat([lustre, daos], ignore_index=True)


def server_counts(con, run_id: int | None) -> pd.DataFrame:
    """What each source says of the two setups' servers and clients, as printed: the Lustre run's phase logs
    (client nodes and tasks, where every log gives the same), its own io500_info lines (io500_system_info) and
    its SC19 slide; for the DAOS runs, seed 002's slide 'ISC 2020' ("Using the same storage servers", then
    listings that print no client count) and its lessons slide ("We use 24 servers ... and 24 clients"), which
    do not agree and name no run."""
    seed = published.load("seed002_tianhe_servers")
    rows = [{"setup": "Lustre, SC19", "source": "seed 002 slide 'SC 2019'",
             "storage servers": cell(seed, "lustre_sc19", "storage servers"),
             "metadata servers": cell(seed, "lustre_sc19", "metadata servers"),
             "client nodes": cell(seed, "lustre_sc19", "client nodes"),
             "tasks per client node": cell(seed, "lustre_sc19", "processes on each node")},
            {"setup": "DAOS, ISC20", "source": "seed 002 slide 'ISC 2020'",
             "storage servers": printed(seed, "daos_isc20", "storage servers")},
            {"setup": "DAOS, ISC20", "source": "seed 002 slide '# of CPU cores matters.'",
             "storage servers": cell(seed, "daos_isc20", "servers"),
             "client nodes": cell(seed, "daos_isc20", "clients")}]
    if run_id is not None and has_view(con, SYSTEM_INFO):
        info = dict(con.execute(store.query(PACKAGE, "system_info"), [run_id]).fetchall())
        if info:
            rows.insert(0, {"setup": "Lustre, SC19", "source": "the run's own log (io500_info_* lines)",
                            **{col: _int(info.get(key)) for col, key in [
                                ("storage servers", "num_data_server_nodes"),
                                ("metadata servers", "num_metadata_server_nodes"),
                                ("client nodes", "num_client_nodes"), ("tasks per client node", "procs_per_node")]}})
        logged = phase_log_clients(con, run_id)
        if len(logged) and logged.nodes.nunique() == 1 and logged.tasks.nunique() == 1:
            rows.insert(1 if info else 0, {
                "setup": "Lustre, SC19", "source": "the run's IOR and mdtest phase logs",
                "client nodes": int(logged.nodes.iloc[0]), "tasks": int(logged.tasks.iloc[0])})
    columns = ["setup", "source", "storage servers", "metadata servers", "client nodes", "tasks per client node",
               "tasks"]
    return pd.DataFrame(rows, columns=columns, dtype=object).replace({np.nan: None})


def same_servers(lustre: pd.Series | None, rescored: pd.DataFrame) -> pd.DataFrame:
    """The two whole systems on the same storage servers (seed 002, slide 'ISC 2020'): bandwidth, metadata and
    total score of the SC19 Lustre run (raw log) and the ISC20 DAOS full run (slide, rescored), and DAOS over
    Lustre. No division by servers: the seed gives no one count of DAOS servers."""
    full = rescored.set_index("run").loc[DAOS_TABLES["daos_isc20_full"]]
    return pd.DataFrame([{"measure": name, LUSTRE_LABEL: None if lustre is None else float(lustre[lk]),
                          DAOS_FULL_LABEL: float(full[dk]),
                          "DAOS / Lustre": None if lustre is None else float(full[dk]) / float(lustre[lk])}
                         for name, (lk, dk) in SAME_SERVERS_MEASURES.items()])


def same_servers_records(lustre: pd.Series, rescored: pd.DataFrame) -> list[evidence.Comparison]:
    """The ISC20 DAOS full run (seed 002's slide, rescored) against the SC19 Lustre run (raw log), metadata and
    bandwidth: one figure against one run, not yet decided (`report` decides every record at once: too few
    units, no interval)."""
    full = rescored.set_index("run").loc[DAOS_TABLES["daos_isc20_full"]]
    return [evidence.compare_to_reference(
        [float(full[dk])], float(lustre[lk]), quantity=quantity, unit=unit, replicate=Replicate.PUBLISHED,
        family=SAME_SERVERS_FAMILY, label="DAOS, ISC20 full run (slide)", reference_label="the SC19 Lustre run")
        for quantity, unit, lk, dk in [("metadata score", "kIOPS", "md_kiops", "md (kIOPS)"),
                                       ("bandwidth score", "GiB/s", "bw_gib_s", "bw (GiB/s)")]]


def phases_above(values: pd.DataFrame, reference: str) -> pd.DataFrame:
    """For each run of a long phase table other than `reference`: in how many bandwidth and metadata phases
    it is above the reference run."""
    wide = values.pivot(index="phase", columns="run", values="value")
    rows = []
    for col in [c for c in wide.columns if c != reference]:
        higher = wide[col] > wide[reference]
        rows.append({"run": col, "metadata phases above": int(higher[list(STANDARD_MD_PHASES)].sum()),
                     "bandwidth phases above": int(higher[list(STANDARD_BW_PHASES)].sum()),
                     "bandwidth phases above (names)": ", ".join(p for p in STANDARD_BW_PHASES if higher[p]) or "none"})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- NextGenIO GekkoFS (seed 004)

def gekko_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """EPCC NextGENIO GekkoFS runs, and whether one's score equals seed 004's printed TOTAL."""
    gekko = published.load("seed004_gekkofs_io500")
    total = gekko[(gekko.row == "SCORE") & (gekko.column == "TOTAL")].value.item()
    found = runs[(runs.institution == GEKKO["institution"]) & (runs.system == GEKKO["system"])
                 & (runs.family == GEKKO["family"])].copy()
    found["equals_seed_004"] = (found.score - total).abs() <= GEKKO_SCORE_HALF_UNIT
    return found[["run_key", "run_id", "year", "release", "score", "bw_gib_s", "md_kiops", "valid",
                  "equals_seed_004"]]


def gekko_phases(con, run_ids: list[int]) -> pd.DataFrame:
    """Seed 004's GekkoFS phases (its `lor easy read` is the text extraction of `ior easy read`) and the
    archive runs' phases, long form."""
    gekko = published.load("seed004_gekkofs_io500")
    slide = gekko[gekko.column == "value"].assign(
        phase=lambda d: d.row.replace({"lor easy read": "ior easy read"}).str.replace(" ", "-"),
        run="seed 004 slide (published)")[["run", "phase", "value"]]
    raw = run_phases(con, run_ids).assign(run=lambda d: d.run_key + " (raw)")[["run", "phase", "value"]]
    return pd.concat([slide, raw], ignore_index=True)


def nextgenio_values() -> dict:
    """Seed 004's NextGenIO setup numbers the chapter checks against each other: CPUs per node, TB of DCPMM per
    CPU, and their product (the slide prints 3TB per node)."""
    hardware = published.load("seed004_nextgenio_hardware").set_index(["row", "column"]).value
    cpus, dcpmm = float(hardware[("Cascade lake CPUs", "per node")]), float(hardware[("each", "DCPMM")])
    return {"cpus_per_node": cpus, "dcpmm_per_cpu": dcpmm, "dcpmm_per_node": cpus * dcpmm}


# ---------------------------------------------------------------- seed 002's lists

def printed_list(name: str) -> pd.DataFrame:
    """A published list in wide form: one row per printed row, its strings and numbers."""
    frame = published.load(name)
    wide = frame.pivot(index="row", columns="column", values="printed")
    numbers = frame[frame.column.isin(["score", "bw (GiB/s)", "md (klOP/s)"])].pivot(
        index="row", columns="column", values="value")
    return pd.DataFrame({
        "list": wide["list id"] if "list id" in wide else wide["list"], "institution": wide.institution,
        "system": wide.system, "published_score": numbers["score"], "published_bw": numbers["bw (GiB/s)"],
        "published_md": numbers["md (klOP/s)"]}).reset_index()


def list_against_raw(con, name: str) -> pd.DataFrame:
    """Each printed row beside the raw runs of the same year whose score equals the printed one at two decimals."""
    con.register("_printed", printed_list(name))
    try:
        found = store.frame(con, PACKAGE, "list_against_raw", [PRINTED_SCORE_HALF_UNIT])
    finally:
        con.unregister("_printed")
    found["in raw logs"] = found.run_id.notna()
    found["names agree"] = (found.institution.str.lower() == found.raw_institution.str.lower()) & (
        found.system.str.lower() == found.raw_system.str.lower())
    found["numbers agree"] = ((found.published_score == found.raw_score.round(2))
                              & (found.published_bw == found.raw_bw.round(2))
                              & (found.published_md == found.raw_md.round(2)))
    return found


def list_table(found: pd.DataFrame) -> pd.DataFrame:
    """A printed list against the raw logs for the page."""
    return pd.DataFrame({
        "list": found.list, "printed institution / system": found.institution + " / " + found.system,
        "published": found.published_score, "run_key": found.run_key,
        "raw institution / system": found.raw_institution + " / " + found.raw_system, "raw score": found.raw_score,
        "names agree": found["names agree"], "numbers agree": found["numbers agree"]})


def featured_run_ids(lustre: pd.Series | None, gekko: pd.DataFrame, historic: pd.DataFrame,
                     sc19_list: pd.DataFrame) -> list[int]:
    """The runs the chapter compares one by one: the SC19 Tianhe-2E run, the GekkoFS runs, the lists' matches."""
    return sorted({*([] if lustre is None else [int(lustre.run_id)]), *map(int, gekko.run_id),
                   *historic.run_id.dropna().astype(int), *sc19_list.run_id.dropna().astype(int)})


def featured_families(runs: pd.DataFrame, run_ids) -> pd.DataFrame:
    """The family of each run named in the chapter and the evidence for it, runs of one year alike in all of it
    (Wolf's of 2020, the GekkoFS runs of 2020) in one row: their runs listed, the evidence said once."""
    featured = runs[runs.run_id.isin(list(run_ids))]
    alike = ["year", "institution", "system", "filesystem", "family", "family_reason"]
    grouped = featured.groupby(alike, dropna=False, sort=False).run_key.agg(list).reset_index()
    return grouped.rename(columns={"run_key": "runs"})[["runs", *alike]].sort_values(
        ["year", "system"], kind="stable", ignore_index=True)
