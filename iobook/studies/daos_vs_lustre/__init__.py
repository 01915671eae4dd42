"""IO500 runs by file-system family (seeds 002 and 004; the chapter `daos_vs_lustre`): how DAOS, Lustre and the
others reach their scores, compared within one archive year at a time, DAOS runs with and without data protection
apart; per client node and on 10 client nodes; NUDT's Tianhe-2E Lustre run (SC19) beside its unsubmitted DAOS runs
(ISC20) on the same storage servers; EPCC's GekkoFS run; and seed 002's printed lists against the raw logs.
Layers: queries/*.sql, analysis (the family overview and comparisons), nodes (client nodes), seeds (what the
talks print), charts, findings; `report` wires them for the notebook and decides every comparison at once."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Prose, Report, Table
from ...database import published
from ...inference import evidence, selection
from ..io500_score import release_text
from . import analysis, charts, findings, nodes, seeds
from .analysis import FIRST, SECOND, choose, get_runs

__all__ = ["FIRST", "SECOND", "choose", "get_runs", "report"]

HOW_TO_ADD = ("Ingest IO500 submissions (ideally in the archive's "
              "`<institution>/<system>/<file system>/<year>/submission-<id>/` layout, which gives each run its "
              "file-system family) with `python -m iobook ingest --db my.duckdb DIR` or build the book from them "
              "with `python -m iobook book --data DIR`.")
BALANCE_FAMILY = f"{FIRST} over {SECOND}: metadata per GiB/s, every archive year"
TEN_FAMILY = f"{FIRST} over {SECOND} per client node on {nodes.TEN_NODES} client nodes, every year and measure"
# the measures compared per client node on 10 client nodes: column -> (name, unit)
TEN_MEASURES = {"bw_per_client_node": ("bandwidth per client node", "GiB/s"),
                "md_per_client_node": ("metadata per client node", "kIOPS")}
LIST_FORMATS = {"published": ",.2f", "raw score": ",.3f"}
RATIO_FORMATS = {"lowest ratio": ",.2f", "highest ratio": ",.2f"}


def _overview_tables(con, chosen: pd.DataFrame, normalised: pd.DataFrame) -> tuple[dict, dict, dict]:
    """The family overview's tables, figures and the link to its files: every family and year of the choice."""
    tables = {
        "tab-daos-periods": Table(frame=analysis.runs_per_period(chosen)),
        "tab-daos-balance": Table(frame=analysis.balance(chosen).rename(columns={
            "median_md_per_bw": "median kIOPS per GiB/s", "q25": "25th pct", "q75": "75th pct"}),
            formats={"median kIOPS per GiB/s": ",.2f", "25th pct": ",.2f", "75th pct": ",.2f"}),
        "tab-daos-lists-apart": Table(frame=nodes.lists_apart(normalised).rename(columns={
            "period": "year", "runs": "valid runs", "client_nodes_known": "client nodes known",
            "ten_node": "on 10 client nodes", "median_score_full": "median score",
            "median_score_10_node": "median score, 10 client nodes"}),
            formats={"median score": ",.2f", "median score, 10 client nodes": ",.2f"}),
        "tab-daos-node-medians": Table(frame=nodes.per_node_medians(normalised).rename(columns={
            "period": "year", "list_kind": "client nodes", "median_client_nodes": "median nodes",
            "bw_per_client_node": "bw / node (GiB/s)", "md_per_client_node": "md / node (kIOPS)"}),
            formats={"median nodes": ",.0f", "bw / node (GiB/s)": ",.3f", "md / node (kIOPS)": ",.2f"}),
        "tab-daos-declared": Table(frame=nodes.declared_classification(con)),
        "tab-daos-differ": Table(frame=nodes.declared_against_logs(normalised).rename(columns={
            "client_nodes": "client nodes (logs)", "declared_client_nodes": "client nodes (declared)"}),
            formats={"year": ".0f"})}
    figures = {"fig-daos-medians": charts.chart_medians(analysis.medians(chosen), analysis.period_order(chosen)),
               "fig-daos-bw-md": charts.chart_bw_md(chosen),
               "fig-daos-phase-relative": charts.chart_phase_relative(analysis.phase_relative(con, chosen)),
               "fig-daos-per-client-node": charts.chart_per_client_node(normalised)}
    sources = present.sources(con, analysis.get_sources(con, chosen.run_id).source_id)
    return tables, figures, {"files_overview": present.files_link(sources.path, "The files of the runs compared")}


def report(con, *, families: list[str] = (), years: list[int] = ()) -> Report:
    """Everything the chapter shows: values its prose pastes (bools drive its `only-if` cells), tables, figures,
    findings and the evidence records they rest on. `families`: the families of the overview (empty: the seven
    with most valid runs); `years`: the archive years of the overview and the comparisons (empty: all)."""
    runs = get_runs(con)
    if runs.empty:
        return Report(values={"has_data": False}, note=present.no_data("IO500 runs", HOW_TO_ADD))
    cov = analysis.coverage(runs)
    wanted, families_note = analysis.select_families(runs, list(families))
    year_choice = selection.select(list(years), runs.year.dropna().astype(int), "archive year") if years else []
    chosen = choose(runs, wanted, year_choice)
    chosen = chosen.assign(md_per_bw=chosen.md_kiops / chosen.bw_gib_s)
    client_nodes = nodes.client_nodes(con)
    normalised = nodes.per_client_node(chosen, client_nodes)
    ten = normalised[normalised.list_kind == nodes.TEN_CLIENTS]
    balance_years = analysis.compare_by_year(chosen, "md_per_bw", quantity="metadata per GiB/s",
                                             unit="kIOPS per GiB/s", family=BALANCE_FAMILY)
    ten_years = pd.concat([analysis.compare_by_year(ten, col, quantity=name, unit=unit, family=TEN_FAMILY)
                           .assign(measure=name) for col, (name, unit) in TEN_MEASURES.items()], ignore_index=True)

    tianhe = seeds.tianhe_runs(con)
    matched = tianhe[tianhe.matches_sc19_score]
    lustre = matched.iloc[0] if len(matched) == 1 else None
    rescored = seeds.daos_rescored()
    same = [] if lustre is None else seeds.same_servers_records(lustre, rescored)
    # the report decides once: every comparison it shows, each family corrected within itself (evidence.decide)
    balance, ten, same = evidence.decide_groups(balance_years.record, ten_years.record, same)
    balance_years["record"], ten_years["record"] = balance, ten
    # what protection each side has (issue 46: single-copy DAOS was set against Lustre as if Lustre kept none)
    second_runs = chosen[chosen.run_key.isin({k for keys in balance_years.second_keys for k in keys})]
    overhead = analysis.storage_overhead(con, second_runs)
    balance_years["second_stating"] = [len(set(keys) & set(overhead.run_key)) for keys in balance_years.second_keys]
    protection = findings.protection_note(len(second_runs), overhead)

    pair_runs = nodes.wolf_and_tianhe(con, client_nodes)
    pair_phases = nodes.phases_per_client_node(con, pair_runs)
    wolf10, wolf10_year = nodes.ten_node_pair(pair_runs, pair_phases)
    historic = seeds.list_against_raw(con, "seed002_historic_top_list")
    sc19_list = seeds.list_against_raw(con, "seed002_sc19_list")
    sc19_wolf = sc19_list[(sc19_list.system == nodes.WOLF["system"]) & sc19_list["in raw logs"]].run_key.tolist()
    sc19_pair = [k for k in sc19_wolf if k in set(pair_phases.run_key)]
    sc19_ratios = (nodes.phase_ratios(pair_phases, sc19_pair, [lustre.run_key])
                   if sc19_pair and lustre is not None and lustre.run_key in set(pair_phases.run_key) else None)
    gekko = seeds.gekko_runs(runs)
    seed_servers = published.load("seed002_tianhe_servers")
    first_runs = chosen[chosen.family == FIRST]
    dfs, unprotected, unknown = (analysis.dfs_runs(first_runs), analysis.unprotected_runs(first_runs),
                                 analysis.unknown_runs(runs))
    caveats = findings.caveats_text(seed_servers, dfs)

    values = {**{k: Prose(v) if k.endswith("_text") else v for k, v in cov.items() if v is not None},
              "has_data": True, "families": ", ".join(wanted) or "none", "families_note": families_note,
              "first": FIRST, "second": SECOND, "ten_nodes": nodes.TEN_NODES, "valid_runs": len(chosen),
              "tianhe_runs": len(tianhe), "gekko_runs": len(gekko), "gekko_equal": int(gekko.equals_seed_004.sum()),
              "garbled": int(rescored["garbled printed numbers"].sum()), "score_numbers": 3 * len(rescored),
              "caveats_text": Prose(caveats), "dfs_text": evidence.phrase(dfs),
              "unprotected_text": evidence.phrase(unprotected),
              "unknown_text": evidence.phrase(unknown), "implausible_runs": int(runs.implausible.notna().sum()),
              "copies": int(runs.duplicate.sum()), "min_units": evidence.MIN_UNITS, **seeds.nextgenio_values()}
    values["largest_difference"] = float(max((rescored[a] - rescored[b]).abs().max() for a, b in [
        ("bw (GiB/s)", "printed bw"), ("md (kIOPS)", "printed md"), ("score", "printed score")]))
    values["release_text"] = Prose(release_text(runs))
    values["eras_text"] = Prose(findings.eras_text(lustre, seed_servers))
    values.update(lustre_storage_servers=seeds.cell(seed_servers, "lustre_sc19", "storage servers"),
                  lustre_metadata_servers=seeds.cell(seed_servers, "lustre_sc19", "metadata servers"))
    counts = normalised.nodes_from.value_counts()
    values.update(nodes_logs=int(counts.get(nodes.FROM_LOGS, 0)), nodes_declared=int(counts.get(nodes.DECLARED, 0)),
                  nodes_unknown=int(counts.get(nodes.UNKNOWN, 0)),
                  servers_declared=int(normalised.data_servers.notna().sum()))
    lustre_id = None if lustre is None else int(lustre.run_id)
    rescored_shown, garbled_note = seeds.rescored_table(rescored)
    tables = {
        "tab-daos-servers": Table(frame=seeds.server_counts(con, lustre_id)),
        "tab-daos-rescored": Table(frame=rescored_shown, formats={col: ",.6f" for col in rescored_shown.columns
                                                                  if col != "measure"}, note=garbled_note),
        "tab-daos-same-servers": Table(frame=seeds.same_servers(lustre, rescored), formats={
            seeds.LUSTRE_LABEL: ",.2f", seeds.DAOS_FULL_LABEL: ",.2f", "DAOS / Lustre": ".2f"}),
        "tab-daos-lists-historic": Table(frame=seeds.list_table(historic), formats=LIST_FORMATS),
        "tab-daos-lists-sc19": Table(frame=seeds.list_table(sc19_list), formats=LIST_FORMATS),
        "tab-daos-hardware": Table(frame=published.load("seed004_nextgenio_hardware")[
            ["row", "column", "printed", "value", "unit", "note"]], formats={"value": ",.1f"}),
        "tab-daos-workflow": Table(frame=published.load("seed004_ecmwf_workflow")[["row", "printed", "value", "unit"]],
                                   formats={"value": ",.0f"})}
    figures = {"fig-daos-tianhe-phases": charts.chart_phases(seeds.tianhe_phases(con, lustre_id), [
        "Tianhe-2E: Lustre (io500_phases) and DAOS runs", "(seed 002, slides 'ISC 2020'); whole systems"])}
    records = [dfs, unknown, unprotected]
    found, abstract = [], []
    if len(balance_years):
        records += list(balance_years.record)
        found.append(findings.first_finding(balance_years))
        figures["fig-daos-balance-years"] = charts.chart_compare_by_year(balance_years, "metadata (kIOPS) per GiB/s")
        tables["tab-daos-balance-years"] = analysis.comparison_table(balance_years, protection)
    else:
        found.append(findings.no_comparison_finding(chosen, runs, cov["outside_layout"]))
    if len(ten_years):
        records += list(ten_years.record)
        found.append(findings.ten_node_finding(ten_years))
        tables["tab-daos-ten-node"] = analysis.comparison_table(ten_years, "")  # protection: said under the first
    if lustre is not None:
        md, bw = same
        records += [md, bw]
        values.update(lustre_run=lustre.run_key, same_md=md.ratio, same_bw=bw.ratio,
                      same_md_text=evidence.phrase(md), same_bw_text=evidence.phrase(bw))
        slide = seeds.tianhe_slide_vs_raw(con, lustre_id)
        values.update(slide_equal=int(slide.equal.sum()), slide_values=len(slide))
        values["clients_text"] = Prose(findings.clients_text(nodes.phase_log_clients(con, lustre_id),
                                                             seeds.cell(seed_servers, "daos_isc20", "clients")))
        found.append(findings.same_servers_finding(md, bw, dfs))
        abstract.append(findings.same_servers_abstract(md, bw))
        tables["tab-daos-slide"] = present.said_once(slide, {"published": ",.2f", "raw": ",.3f",
                                                             "raw at printed precision": ",.2f"})
        tables["tab-daos-phases-above"] = Table(frame=seeds.phases_above(seeds.tianhe_phases(con, lustre_id),
                                                                         seeds.LUSTRE_LABEL))
    if wolf10 is not None:
        wolf_keys = pair_runs[(pair_runs.system == nodes.WOLF["system"]) & (pair_runs.year == wolf10_year)
                              & (pair_runs.client_nodes == nodes.TEN_NODES)].run_key
        found.append(findings.wolf_ten_finding(wolf10, wolf10_year,
                                               set(runs[runs.run_key.isin(wolf_keys)].data_protection)))
        values["wolf10_year"] = wolf10_year
        tables["tab-daos-wolf-10"] = present.said_once(wolf10, RATIO_FORMATS)
    lists = findings.lists_finding([historic, sc19_list])
    records += list(lists.evidence)
    found.append(lists)
    if len(gekko):
        found.append(findings.gekko_finding(gekko))
        tables["tab-daos-gekko"] = present.said_once(gekko.drop(columns="run_id"), {
            "year": ".0f", "score": ",.3f", "bw_gib_s": ",.3f", "md_kiops": ",.3f"})
        figures["fig-daos-gekko"] = charts.chart_phases(seeds.gekko_phases(con, gekko.run_id.tolist()), [
            "NextGenIO GekkoFS: seed 004 slide 'Hardware performance' (published)",
            "against the archive's runs (io500_phases)"])
    if len(chosen):
        overview_tables, overview_figures, overview_values = _overview_tables(con, chosen, normalised)
        tables |= overview_tables
        figures |= overview_figures
        values |= overview_values
    if len(pair_phases):
        tables["tab-daos-pair-runs"] = Table(frame=pair_runs[[
            "run_key", "system", "year", "release", "score", "bw_gib_s", "md_kiops", "client_nodes",
            "nodes_from"]].rename(columns={"bw_gib_s": "bw (GiB/s)", "md_kiops": "md (kIOPS)",
                                           "client_nodes": "client nodes", "nodes_from": "counted by"}),
            formats={"year": "d", "score": ",.2f", "bw (GiB/s)": ",.2f", "md (kIOPS)": ",.1f"})
        figures["fig-daos-wolf-tianhe"] = charts.chart_wolf_tianhe(pair_phases, [
            "Wolf (DAOS) and Tianhe-2E (Lustre) per client node",
            "every run of both systems with known client nodes; source: io500_phases, phase logs"])
    if sc19_ratios is not None:
        tables["tab-daos-wolf-sc19"] = present.said_once(sc19_ratios, RATIO_FORMATS)
    featured = seeds.featured_run_ids(lustre, gekko, historic, sc19_list)
    if featured:
        tables["tab-daos-featured"] = Table(frame=seeds.featured_families(runs, featured).drop(columns="institution"),
                                            formats={"year": ".0f"})
        files = analysis.run_files(con, featured)
        tables["tab-daos-featured-files"] = Table(frame=files.drop(columns="path").rename(columns={"run_key": "run"}))
        values["files_featured"] = present.files_link(files.path, "The files of the runs compared one by one")
    values.update({"has_overview": len(chosen) > 0, "no_overview": len(chosen) == 0,
                   "has_compare": len(balance_years) > 0, "has_ten": len(ten_years) > 0,
                   "has_pairs": len(pair_phases) > 0, "has_wolf10": wolf10 is not None,
                   "has_wolf_sc19": sc19_ratios is not None, "has_lustre": lustre is not None,
                   "no_lustre": lustre is None, "has_gekko": len(gekko) > 0, "no_gekko": len(gekko) == 0,
                   "has_featured": len(featured) > 0,
                   "pinned_missing": families_note.startswith("chosen in the parameters; left out")})
    return Report(values=values, tables=tables, figures=figures, findings=found, evidence=records, abstract=abstract)
