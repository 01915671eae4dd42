"""IBM's Storage Scale System 6000 and Elastic Storage System (ESS) 3500 in IO500 runs (seed 000: "SC23 Scale
Performance Update", IBM, Storage Scale User Group Meeting at SC23): which runs are Storage Scale runs, their
building blocks counted from the disks of the file system under test (mmlsfs), else from the cluster's
canister pairs (mmlscluster), easy-phase bandwidth per building block against IBM's claim for the run's
model and ESS release, each run's share of its clients' nominal line rate and of IBM's quoted figure, runs alike in
model and building blocks set side by side, mdtest-hard-delete over time, IOR's own bandwidth per phase, and the
Storage Scale settings (mmlsconfig) that differ between runs once case, units and scope are set apart.
Layers: queries/*.sql, runs (runs and building blocks), analysis (the talk's claims and the runs against them),
settings (alike runs, mdtest-hard-delete, mmlsconfig), charts, findings; `report` wires them and decides every
comparison in one call to evidence.decide."""
from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding, Prose, Report, Table
from ...inference import evidence
from ...inference.evidence import Comparison, Replicate, plural
from . import charts, findings
# the names callers and tests use, importable from iobook.studies.ess_bandwidth as before the layers
from .analysis import (FAMILY_SYSTEMS, claim_for, claim_records, claims_values, fewest_blocks, figure_reading,
                       get_ceilings, get_claims, get_client_links, get_ess_releases, get_per_block, get_run_links,
                       get_talk_runs, per_block_table, release_range, stated_releases, talk_release)
from .findings import FIG_HARD_DELETE, FIG_PER_BLOCK, TAB_ALIKE, TAB_BLOCKS, TAB_CEILINGS, TUCSON
from .runs import (MODELS, NO_VALUE, SHORT_PHASE, blocks_from_disks, canister_pairs, count_in_folder,
                   get_building_blocks, get_ior_phases, get_runs, listing, selected_runs, selection_rule, short_runs)
from .settings import (DIFFERENCE_SHORT, alike_table, compare_config, get_alike, get_config, get_hard_delete,
                       get_system_files, normalise_value, talk_pair)

HOW_TO_ADD = ("Add IO500 result folders of a Storage Scale (GPFS) system, with `mmlsfs`, `mmlsconfig` and "
              "`mmlscluster` output saved beside them: `python -m iobook book --data DIR` ingests DIR (e.g. a copy "
              "of `<institution>/<system>/<file system>/<year>/submission-<id>` from the IO500 archive). "
              "Runs of any other file system can be named in the `select_runs` parameter.")
MAX_FINDINGS = 6  # the page check wants 3-6
PCT = ".0f"
GB_S = ",.1f"
YES_NO = {True: "yes", False: "no"}


def claim_table(records: list[Comparison]) -> Table:
    """The claim comparisons in the kit's table: what is compared (a run, or the systems of one model and
    release), the GB/s per building block (geometric mean over the units) and IBM's figure beside the ratio."""
    return comparison.table(records, pd.DataFrame({
        "compared": [c.label for c in records], "per block (GB/s)": [c.ratio * c.reference for c in records],
        "IBM's figure (GB/s)": [c.reference for c in records]}),
        formats={"per block (GB/s)": GB_S, "IBM's figure (GB/s)": GB_S})


def _run_tables(runs, releases, talk, blocks, claims, per_block, links, bounded) -> dict[str, Table]:
    """The tables every page with data shows: the runs, their building blocks, IBM's claims, each run per
    building block, the talk's client links and the runs against their line rate and IBM's figure."""
    return {
        "tab-ess-runs": Table(frame=short_runs(runs.merge(releases, on="run_id").merge(
            stated_releases(runs, talk), on="run_id").merge(
            talk.drop_duplicates("run_id")[["run_id", "list"]], on="run_id", how="left")[
            ["run_key", "institution", "model", "io500_version", "list", "installed", "heads", "ess_release",
             "release_from"]]).rename(columns={
                "institution": "site", "model": "IBM model", "io500_version": "IO500 release",
                "list": "list (talk)", "installed": "Storage Scale installed", "heads": "talk's table heads",
                "ess_release": "ESS", "release_from": "ESS from"})),
        TAB_BLOCKS: Table(frame=short_runs(runs[["run_id", "run_key"]].merge(blocks, on="run_id")[
            ["run_key", "building_blocks", "basis", "cluster_pairs", "evidence"]]).rename(columns={
                "building_blocks": "blocks", "basis": "building blocks from", "cluster_pairs": "cluster pairs"})),
        "tab-ess-claims": Table(frame=claims.assign(releases=list(map(release_range, claims.ess_from, claims.ess_before)))[
            ["model", "phase", "basis", "claim_gb_s", "claim_low_gb_s", "claim_high_gb_s", "claim_gib_s", "releases",
             "slide"]].rename(columns={
                "model": "IBM model", "claim_gb_s": "claim (GB/s)", "claim_low_gb_s": "lowest (GB/s)",
                "claim_high_gb_s": "highest (GB/s)", "claim_gib_s": "claim (GiB/s)", "releases": "ESS releases"}),
            formats={"claim (GB/s)": GB_S, "lowest (GB/s)": GB_S, "highest (GB/s)": GB_S, "claim (GiB/s)": GB_S}),
        "tab-ess-per-block": Table(frame=short_runs(per_block_table(per_block)), formats={
            f"{p} {what}": spec for p in ("read", "write")
            for what, spec in (("per block (GB/s)", GB_S), ("claim (GB/s)", GB_S), ("of claim (%)", PCT))}),
        "tab-ess-links": Table(frame=links[["site", "printed", "links_per_client", "link_gbit_s"]].rename(columns={
            "printed": "as printed", "links_per_client": "links per client", "link_gbit_s": "link rate (Gb/s)"})),
        TAB_CEILINGS: Table(frame=short_runs(bounded.assign(
            phase=bounded.phase.map(SHORT_PHASE), clients_bound=bounded.clients_bound.map({True: "yes", False: ""}))[
            ["run_key", "phase", "gb_s", "nodes", "client_ceiling_gb_s", "quoted_gb_s", "pct_of_client",
             "pct_of_quoted", "reading", "clients_bound"]]).rename(columns={
                "gb_s": "measured (GB/s)", "nodes": "clients", "client_ceiling_gb_s": "nominal client line rate (GB/s)",
                "quoted_gb_s": "IBM's figure (GB/s)", "pct_of_client": "of nominal line rate (%)",
                "pct_of_quoted": "of IBM's figure (%)", "reading": "against IBM's figure",
                "clients_bound": "nominal line rate below IBM's figure"}),
            formats={"measured (GB/s)": GB_S, "clients": ",.0f", "nominal client line rate (GB/s)": ",.0f",
                     "IBM's figure (GB/s)": ",.0f", "of nominal line rate (%)": PCT, "of IBM's figure (%)": PCT}),
    }


def _claims(r: Report, per_block: pd.DataFrame, ceilings: pd.DataFrame, records: list[Comparison]) -> None:
    """The decided claim comparisons into the page: the per-block chart, the kit's table and the systems' sentence."""
    r.figures[FIG_PER_BLOCK] = charts.chart_per_block(ceilings)
    r.tables["tab-ess-claim-records"] = claim_table(records)
    systems = [c for c in records if c.family == FAMILY_SYSTEMS]
    r.values["claim_systems_md"] = Prose("; ".join(
        f"{c.label} {SHORT_PHASE[c.quantity.removesuffix(' per building block')]}: {evidence.phrase(c)}"
        for c in systems) or "no two systems share a model, a claim and a stated release")


def _ior(r: Report, runs: pd.DataFrame, ior: pd.DataFrame) -> None:
    """IOR's own logs: the counts the prose pastes, the chart and the table."""
    hard_transfers = sorted(ior[ior.phase.str.contains("hard")].transfer_bytes.dropna().astype(int).unique())
    table = short_runs(runs[["run_id", "run_key"]].merge(ior, on="run_id"))
    r.values.update({"ior_runs": ior.run_id.nunique(), "ior_logs": len(ior), "ior_agree": int(ior.agrees.sum()),
                     "hard_transfers": ", ".join(f"{t:,}" for t in hard_transfers) or NO_VALUE})
    r.figures["fig-ess-ior"] = charts.chart_ior_phases(ior, runs)
    r.tables["tab-ess-ior"] = Table(frame=table.assign(
        transfer_kib=table.transfer_bytes / 1024, agrees=table.agrees.map(YES_NO),
        file_per_proc=table.file_per_proc.map(YES_NO))[
        [table.columns[1], "phase", "ior_gib_s", "io500_gib_s", "agrees", "transfer_kib", "file_per_proc",
         "nodes", "tasks"]].rename(columns={
            "ior_gib_s": "IOR log (GiB/s)", "io500_gib_s": "IO500 summary (GiB/s)", "agrees": "agree",
            "transfer_kib": "transfer (KiB)", "file_per_proc": "file per process"}),
        formats={"IOR log (GiB/s)": ",.3f", "IO500 summary (GiB/s)": ",.3f", "transfer (KiB)": ",.2f"})


def _hard_delete(r: Report, hard: pd.DataFrame, pair: pd.Series | None) -> None:
    """mdtest-hard-delete over time, and the talk's Tucson pair where both its runs are shown."""
    r.figures[FIG_HARD_DELETE] = charts.chart_hard_delete(hard)
    r.values["hard_n"] = len(hard)
    r.tables["tab-ess-hard-delete"] = Table(frame=short_runs(hard.assign(started=hard.started.dt.strftime("%Y-%m-%d"))[
        ["run_key", "institution", "model", "started", "kiops", "fgdlTokenBatchAcquire", "autoCompactDir"]]).rename(
        columns={"institution": "site", "model": "IBM model", "kiops": "mdtest-hard-delete (kIOPS)"}),
        formats={"mdtest-hard-delete (kIOPS)": ",.1f"})
    if pair is not None:
        r.values.update({"pair_before_run": pair.before_run, "pair_after_run": pair.after_run,
                         "pair_before": float(pair.before), "pair_after": float(pair.after),
                         "pair_change": float(pair.change_pct), "pair_stat_change": float(pair.stat_change_pct),
                         "pair_only_after_keys": Prose(listing(f"`{k}`" for k in pair.only_after) or "none"),
                         "talk_release": talk_release() or NO_VALUE})


def _config(r: Report, config: pd.DataFrame, compared: pd.DataFrame) -> None:
    """The mmlsconfig keys compared: how many differ, how the rest are written, the table of those that differ."""
    differ = compared[compared.difference.isin(["value", "not set in every listing"])]
    form = {d: ", ".join(f"`{k}`" for k in compared[compared.difference == d].key) or "none"
            for d in ("case/units and scope", "case/units", "scope", "none")}
    r.values.update({"config_runs": config.run_id.nunique(), "config_files": config.source_id.nunique(),
                     "config_keys_n": len(compared), "config_differ_n": len(differ),
                     "config_form_md": Prose(
                         f"Same value, written differently and under another scope: {form['case/units and scope']}; "
                         f"written differently only: {form['case/units']}; set cluster-wide in one cluster and per "
                         f"node class in another: {form['scope']}; the same everywhere: {form['none']}.")})
    r.tables["tab-ess-config"] = Table(frame=differ.assign(difference=differ.difference.map(DIFFERENCE_SHORT)).rename(
        columns=lambda c: c.removeprefix("submission-")).rename(columns={"difference": "differs"}))


def report(con, *, select_runs: Iterable[str] = (), config_keys: Iterable[str] = ()) -> Report:
    """The chapter: IBM's Storage Scale runs (or those named in `select_runs`), their building blocks, their
    easy phases per building block against IBM's claim for each run's model and release, the clients' nominal
    line rates, runs alike in model and count, IOR's own logs, mdtest-hard-delete over time and the settings
    (`config_keys`, any case; empty: every key) that differ between the runs' mmlsconfig listings."""
    requested = list(select_runs)
    runs_all = get_runs(con)
    runs = selected_runs(runs_all, requested)
    claims = get_claims()
    r = Report(values={"has_data": len(runs) > 0, **claims_values(claims)})
    if runs.empty:
        r.note = present.no_data("IO500 runs of a Storage Scale (GPFS) file system", HOW_TO_ADD)
        return r
    ior = get_ior_phases(con, runs.run_id)
    talk = get_talk_runs(con, runs)
    links = get_client_links()
    blocks = get_building_blocks(con, runs, ior)
    releases = get_ess_releases(runs, talk)
    per_block = get_per_block(con, runs, blocks, claims, releases)
    ceilings = get_ceilings(per_block, ior, talk, get_run_links(con, runs.run_id))
    records = evidence.decide(claim_records(per_block))  # the report's only comparisons: decided once, here
    alike = get_alike(con, runs, per_block, ior, talk)
    hard = get_hard_delete(con, runs)
    pair = talk_pair(con, hard, talk) if len(hard) else None
    config = get_config(con, runs.run_id, list(config_keys))
    compared = compare_config(config, runs)
    fewest = fewest_blocks(per_block)
    files = get_system_files(con, runs.run_id)
    source_ids = (set(ior.source_id) | set(ior.summary_source_id) | set(per_block.source_id) | set(hard.source_id)
                  | set(files.source_id))
    bounded = ceilings[ceilings.client_ceiling_gb_s.notna() | ceilings.quoted_gb_s.notna()]
    rated = per_block.pct_of_claim.notna().any()

    ss6000, tucson = findings.model_values(per_block, MODELS["6000"]), findings.site_values(ceilings, TUCSON)
    model = findings.lead_model(per_block)
    found = [findings.main_finding(per_block, records, model, runs)] if model else [Finding(text=(
        "No selected run has both a building-block count and a claim from IBM for its model and release, so none "
        "is set against IBM's claims."), target=TAB_BLOCKS)]
    found += findings.per_run_findings(per_block, records, model)
    found += [f for f in (findings.line_rate_finding(ceilings, links),
                          findings.sites_finding(ceilings, talk, ior, runs)) if f]
    r.evidence = list(records)
    if pair is not None:
        changed = evidence.count(int(runs.changed_during_run.notna().sum()), len(runs),
                                 quantity="runs whose scripts change the file system while they run", of=Replicate.CENSUS)
        r.evidence.append(changed)
        mix = findings.release_mix_finding(pair, releases)
        found.append(Finding(text=mix.text + " " + findings.changed_during_run_text(runs, changed), target=mix.target,
                             evidence=(*mix.evidence, changed)))
    found += findings.block_count_findings(blocks, runs)
    r.findings = found[:MAX_FINDINGS]
    r.abstract = found[:1] + ([findings.site_finding(tucson)] if tucson["runs"] != NO_VALUE else [])

    r.values.update({
        "selection_rule": Prose(selection_rule(runs_all, runs, requested)), "runs_n": len(runs),
        **{f"ss6000_{k}": v for k, v in ss6000.items() if k != "pct"}, "ss6000_pct_of_claim": ss6000["pct"],
        "ess3500_tucson_read_per_block": tucson["read_per_block"],
        "ess3500_tucson_pct_of_line_rate": tucson["pct_of_line_rate"],
        "client_bound_runs": listing(ceilings[ceilings.clients_bound].run_key.unique()) or NO_VALUE,
        "no_ceiling_md": Prose(", ".join(sorted(set(ceilings.run_key) - set(bounded.run_key))) or "none"),
        "sources_n": len(source_ids),
        "has_fewest": len(fewest) > 0, "has_rated": bool(rated), "has_alike": len(alike) > 0, "has_ior": len(ior) > 0,
        "has_hard": len(hard) > 0, "has_pair": pair is not None, "has_config": len(compared) > 0,
    })
    r.tables.update(_run_tables(runs, releases, talk, blocks, claims, per_block, links, bounded))
    r.tables["tab-ess-sources"] = Table(frame=present.sources(con, source_ids))
    if len(fewest):
        r.values["fewest_md"] = Prose("; ".join(
            f"{f.run_key} needs at least {plural(f.at_least, 'building block')} ({f.phase} {f.gb_s:,.1f} GB/s "
            f"against {f.claim_gb_s:,.0f} GB/s each)" for f in fewest.itertuples()))
    if rated:
        _claims(r, per_block, ceilings, records)
    if len(alike):
        r.tables[TAB_ALIKE] = Table(frame=alike_table(alike))
        r.values["alike_md"] = Prose(" ".join(findings.alike_sentences(alike)))
    if len(ior):
        _ior(r, runs, ior)
    if len(hard):
        _hard_delete(r, hard, pair)
    if len(compared):
        _config(r, config, compared)
    return r

