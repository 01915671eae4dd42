"""IBM's Storage Scale System 6000 and Elastic Storage System (ESS) 3500 in IO500 runs (seed 000: "SC23 Scale
Performance Update", IBM, Storage Scale User Group Meeting at SC23): which runs are Storage Scale runs, their
building blocks counted from the disks of the file system under test (mmlsfs), else from the cluster's
canister pairs (mmlscluster), easy-phase bandwidth per building block beside IBM's "up to" figure for the run's
model and ESS release (one run each: described, never tested against a maximum), each run's share of its clients'
nominal line rate, runs alike in model and building blocks set side by side, mdtest-hard-delete over time, IOR's own
bandwidth per phase, and the Storage Scale settings (mmlsconfig) that differ between runs once case, units and scope
are set apart. Layers: queries/*.sql, runs (runs and building blocks), analysis (the talk's claims and the runs
beside them), settings (alike runs, mdtest-hard-delete, mmlsconfig), charts, findings; `report` wires them."""
from __future__ import annotations

import html
import posixpath
import urllib.parse
from collections.abc import Iterable

import pandas as pd

from ...book import present
from ...book.report import Finding, Html, Prose, Report, Table
from ...inference import evidence
from ...inference.evidence import Replicate, plural
from . import charts, findings
# the names callers and tests use, importable from iobook.studies.ess_bandwidth as before the layers
from .analysis import (SC23_TABLE, claim_for, claims_values, fewest_blocks, get_ceilings, get_claims, get_client_links,
                       get_ess_releases, get_per_block, get_run_links, get_talk_runs, per_block_table, release_range,
                       talk_release)
from .findings import FIG_HARD_DELETE, FIG_PER_BLOCK, TAB_ALIKE, TAB_BLOCKS, TAB_PER_BLOCK, TUCSON
from .runs import (MODELS, NO_COUNT, NO_VALUE, SHORT_PHASE, blocks_from_disks, canister_pairs, count_in_folder,
                   get_building_blocks, get_ior_phases, get_runs, listing, selected_runs, selection_rule, short_runs,
                   short_source)
from .settings import (DIFFERENCE_SHORT, alike_table, compare_config, get_alike, get_config, get_hard_delete,
                       get_system_files, normalise_value, talk_pair)

__all__ = ["alike_table", "blocks_from_disks", "canister_pairs", "claim_for", "compare_config", "count_in_folder",
           "fewest_blocks", "get_alike", "get_building_blocks", "get_ceilings", "get_claims", "get_config",
           "get_ess_releases", "get_hard_delete", "get_ior_phases", "get_per_block", "get_run_links", "get_runs",
           "get_talk_runs", "normalise_value", "report", "selected_runs", "talk_pair"]

HOW_TO_ADD = ("Add IO500 result folders of a Storage Scale (GPFS) system, with `mmlsfs`, `mmlsconfig` and "
              "`mmlscluster` output saved beside them: `python -m iobook book --data DIR` ingests DIR (e.g. a copy "
              "of `<institution>/<system>/<file system>/<year>/submission-<id>` from the IO500 archive). "
              "Runs of any other file system can be named in the `select_runs` parameter.")
MAX_FINDINGS = 6  # the page check wants 3-6
PCT = ".0f"
GB_S = ",.1f"
YES_NO = {True: "yes", False: "no"}
CONFIG_RUNS = 3  # runs' settings side by side in one table (more: a second table, the same keys in the same order)
RUN_COLUMNS = {"run_key": "run_key", "institution": "site", "model": "IBM model", "io500_version": "IO500 release",
               "scale_release_stated": "Storage Scale", "ess_release": "ESS"}


def _release_sources(runs: pd.DataFrame, releases: pd.DataFrame) -> str:
    """Where each run's Storage Scale and ESS releases come from, runs of the same sources named together."""
    stated = runs.merge(releases[["run_id", "ess_release", "release_from"]], on="run_id")
    stated = stated[stated.scale_release_stated.notna() | stated.ess_release.notna()]
    sources = [("both from the archive's folder name" if (scale, ess) == ("archive folder name", "folder name") else
                f"Storage Scale from {scale}, ESS from {ess}", g.run_key)
               for (scale, ess), g in stated.assign(scale=stated.release_source.map(
                   lambda s: short_source(s) if pd.notna(s) else "nowhere")).groupby(
                   ["scale", "release_from"], sort=False)]
    return "; ".join(f"{listing(keys)}: {said}" for said, keys in sources)


def _runs_note(runs: pd.DataFrame, releases: pd.DataFrame, talk: pd.DataFrame) -> str:
    """Under the runs table, said once: the releases' sources, the lists the talk's tables print the runs under and
    the release its SC23 table heads them with (the table's, not each run's), and the validity audit's flags."""
    said = []
    if sources := _release_sources(runs, releases):
        said.append(f"Releases installed: {sources}.")
    named = talk.merge(runs[["run_id", "run_key"]], on="run_id")
    if len(named):
        headed = talk_release()
        lists = []
        for lst, g in named.drop_duplicates("run_id").groupby("list", sort=False):
            heads = (f", headed 'Storage Scale {headed}' in its table (the table's heading, not each run's release)"
                     if headed and (g.table == SC23_TABLE).all() else "")
            lists.append(f"{listing(g.run_key)} under {lst}{heads}")
        said.append(f"The talk's IO500 tables print {'; '.join(lists)}.")
    flags = runs.dropna(subset=["validity_flags"])
    said += [f"The validity audit flags {listing(g.run_key)} {code} (Method)."
             for code, g in flags.groupby("validity_flags", sort=False)]
    return " ".join(said)


def _blocks_table(runs: pd.DataFrame, blocks: pd.DataFrame) -> Table:
    """The building blocks of the runs with something to count them by; those without, named once under it."""
    named = runs[["run_id", "run_key"]].merge(blocks, on="run_id")
    none = named[named.evidence == NO_COUNT]
    shown = named[named.evidence != NO_COUNT]
    return Table(frame=short_runs(shown[["run_key", "building_blocks", "basis", "cluster_pairs", "evidence"]]).rename(
        columns={"building_blocks": "blocks", "basis": "building blocks from", "cluster_pairs": "cluster pairs"}),
        note=f"{listing(none.run_key)}: {NO_COUNT}." if len(none) else "")


def _per_block_table(ceilings: pd.DataFrame) -> Table:
    """The runs with a building-block count against IBM's claims and their clients' nominal line rate; a column
    with one value in every row (the clients, often) said once above it; which line rate bounds a run below."""
    frame = short_runs(per_block_table(ceilings))
    frame, shared = present.constant_columns(frame, keep=[c for c in frame.columns if c != "clients"])
    bound = ceilings[ceilings.clients_bound]
    note = " ".join(f"{r.run_key} {SHORT_PHASE[r.phase]}: its clients' nominal line rate, {r.client_ceiling_gb_s:,.0f} "
                    f"GB/s, is below IBM's figure for its {plural(int(r.blocks), 'building block')}, "
                    f"{r.quoted_gb_s:,.0f} GB/s: the clients bound it below that figure." for r in bound.itertuples())
    return Table(frame=frame, shared=shared, note=note, formats={
        "of claim (%)": PCT, "per block (GB/s)": GB_S, "claim (GB/s)": GB_S, "measured (GB/s)": GB_S,
        "clients": ",.0f", "nominal line rate (GB/s)": ",.0f", "of line rate (%)": PCT})


def _run_tables(runs, releases, talk, blocks, claims, ceilings, links) -> dict[str, Table]:
    """The tables every page with data shows: the runs, their building blocks, IBM's claims, each run per
    building block against its claim and its clients' line rate, and the talk's client links."""
    frame = runs.merge(releases[["run_id", "ess_release"]], on="run_id")[list(RUN_COLUMNS)].rename(columns=RUN_COLUMNS)
    frame = frame.astype(object).where(frame.notna(), NO_VALUE)  # a release not stated: "–" as text, not a number
    return {
        "tab-ess-runs": Table(frame=short_runs(frame), note=_runs_note(runs, releases, talk)),
        TAB_BLOCKS: _blocks_table(runs, blocks),
        "tab-ess-claims": Table(frame=claims.assign(releases=list(map(release_range, claims.ess_from, claims.ess_before)))[
            ["model", "phase", "basis", "claim_gb_s", "claim_low_gb_s", "claim_high_gb_s", "claim_gib_s", "releases",
             "slide"]].rename(columns={
                "model": "IBM model", "claim_gb_s": "claim (GB/s)", "claim_low_gb_s": "lowest (GB/s)",
                "claim_high_gb_s": "highest (GB/s)", "claim_gib_s": "claim (GiB/s)", "releases": "ESS releases"}),
            formats={"claim (GB/s)": GB_S, "lowest (GB/s)": GB_S, "highest (GB/s)": GB_S, "claim (GiB/s)": GB_S}),
        TAB_PER_BLOCK: _per_block_table(ceilings),
        "tab-ess-links": Table(frame=links[["site", "printed", "links_per_client", "link_gbit_s"]].rename(columns={
            "printed": "as printed", "links_per_client": "links per client", "link_gbit_s": "link rate (Gb/s)"})),
    }


def _sources(con, runs: pd.DataFrame, used: pd.DataFrame) -> tuple[Table, Html]:
    """The files read, each under its run with its path below the folder holding all the run's files (the page's
    column stays narrow; the archive's long folder names are in the links), and a link per run to its folder in
    the Data chapter, where every file's full path is."""
    rows = []
    for run_id, g in used.groupby("run_id", sort=False):
        files = present.sources(con, g.source_id)
        base = posixpath.commonpath(list(files.path)) if len(files) > 1 else posixpath.dirname(files.path.iloc[0])
        rows.append(files.assign(run_id=run_id, base=base, path=[posixpath.relpath(p, base) for p in files.path]))
    frame = runs[["run_id", "run_key"]].merge(pd.concat(rows), on="run_id")
    links = " · ".join(f'<a href="data.html?files={html.escape(urllib.parse.quote(base))}#data-sources">'
                       f"{html.escape(key)}</a>" for key, base in frame.drop_duplicates("run_id")[["run_key", "base"]].values)
    return (Table(frame=short_runs(frame[["run_key", "path", "format", "tool_version", "sha256"]]).rename(
                columns={"path": "file in the run's folder", "tool_version": "tool version"})),
            Html(f'<p class="iobook-files-link">Each run\'s folder, with every file\'s full path, in the Data chapter: '
                 f"{links}</p>"))


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
    shown = differ.assign(difference=differ.difference.map(DIFFERENCE_SHORT)).rename(
        columns=lambda c: c.removeprefix("submission-")).rename(columns={"difference": "differs"})
    runs = list(shown.columns[2:])
    # at most CONFIG_RUNS a table, the same keys in the same order in each: six runs' settings side by side were
    # 1,036 px at 1280 px, where the page's column is 736
    r.tables["tab-ess-config"] = Table(frame=shown[["key", "differs", *runs[:CONFIG_RUNS]]])
    r.values["has_config_more"] = len(runs) > CONFIG_RUNS
    if len(runs) > CONFIG_RUNS:
        r.tables["tab-ess-config-more"] = Table(frame=shown[["key", "differs", *runs[CONFIG_RUNS:]]])


def report(con, *, select_runs: Iterable[str] = (), config_keys: Iterable[str] = ()) -> Report:
    """The chapter: IBM's Storage Scale runs (or those named in `select_runs`), their building blocks, their
    easy phases per building block beside IBM's "up to" figure for each run's model and release, the clients'
    nominal line rates, runs alike in model and count, IOR's own logs, mdtest-hard-delete over time and the settings
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
    alike = get_alike(con, runs, per_block, ior, talk)
    hard = get_hard_delete(con, runs)
    pair = talk_pair(con, hard, talk) if len(hard) else None
    config = get_config(con, runs.run_id, list(config_keys))
    compared = compare_config(config, runs)
    fewest = fewest_blocks(per_block)
    files = get_system_files(con, runs.run_id)
    used = pd.concat([ior[["run_id", "source_id"]], ior[["run_id", "summary_source_id"]].rename(
        columns={"summary_source_id": "source_id"}), per_block[["run_id", "source_id"]], hard[["run_id", "source_id"]],
        files[["run_id", "source_id"]]]).dropna().astype("int64").drop_duplicates()
    rated = per_block[per_block.pct_of_claim.notna()]
    sites = findings.sites_text(ceilings, talk, ior, runs)
    changed = evidence.count(int(runs.changed_during_run.notna().sum()), len(runs),
                             quantity="runs whose scripts change the file system while they run", of=Replicate.CENSUS)

    ss6000 = findings.model_values(per_block, MODELS["6000"])
    tucson = findings.site_values(ceilings, TUCSON)
    model = findings.lead_model(per_block)
    found = [findings.main_finding(per_block, model, runs)] if model else [Finding(text=(
        "No selected run has both a building-block count and a claim from IBM for its model and release, so none "
        "is set beside IBM's figures."), target=TAB_BLOCKS)]
    found += findings.model_findings(per_block, model, runs)
    found += [f for f in (findings.line_rate_finding(ceilings, links, runs), findings.sites_finding(ceilings, talk, runs),
                          pair is not None and findings.release_mix_finding(pair, releases, runs)) if f]
    found += findings.block_count_findings(blocks, runs)
    r.findings = found[:MAX_FINDINGS]
    r.abstract = found[:1] + ([findings.site_finding(ceilings, runs, TUCSON)] if tucson["runs"] != NO_VALUE else [])
    r.evidence = [*findings.up_to_shares(per_block), changed]
    r.evidence += [e for e in dict.fromkeys(e for f in [*r.findings, *r.abstract] for e in f.evidence)
                   if e not in r.evidence]

    r.values.update({
        "selection_rule": Prose(selection_rule(runs_all, runs, requested)), "runs_n": len(runs),
        "changed_md": Prose(findings.changed_during_run_text(runs, changed, set(rated.run_key))),
        **{f"ss6000_{k}": v for k, v in ss6000.items() if k != "pct"}, "ss6000_pct_of_claim": ss6000["pct"],
        "ess3500_tucson_read_per_block": tucson["read_per_block"],
        "ess3500_tucson_pct_of_line_rate": tucson["pct_of_line_rate"],
        "client_bound_runs": listing(ceilings[ceilings.clients_bound].run_key.unique()) or NO_VALUE,
        "uncounted_md": Prose(", ".join(sorted(set(ceilings[ceilings.building_blocks == "unknown"].run_key))) or "none"),
        "sites_md": Prose(sites), "has_sites": bool(sites),
        "sources_n": used.source_id.nunique(),
        "has_fewest": len(fewest) > 0, "has_rated": len(rated) > 0, "has_alike": len(alike) > 0,
        "has_ior": len(ior) > 0, "has_hard": len(hard) > 0, "has_pair": pair is not None,
        "has_config": len(compared) > 0,
    })
    r.tables.update(_run_tables(runs, releases, talk, blocks, claims, ceilings, links))
    r.tables["tab-ess-sources"], r.values["files_links"] = _sources(con, runs, used)
    if len(fewest):
        r.values["fewest_md"] = Prose("; ".join(
            f"{f.run_key} needs at least {plural(f.at_least, 'building block')} ({f.phase} {f.gb_s:,.1f} GB/s "
            f"against {f.claim_gb_s:,.0f} GB/s each)" for f in fewest.itertuples()))
    if len(ceilings[ceilings.blocks.notna()]):
        r.figures[FIG_PER_BLOCK] = charts.chart_per_block(ceilings)
    if len(alike):
        r.tables[TAB_ALIKE] = Table(frame=alike_table(alike), note=(
            "Only the attributes in which a group's runs differ; what they share is said above the table."))
        r.values["alike_md"] = Prose(" ".join(findings.alike_sentences(alike)))
    if len(ior):
        _ior(r, runs, ior)
    if len(hard):
        _hard_delete(r, hard, pair)
    if len(compared):
        _config(r, config, compared)
    return r
