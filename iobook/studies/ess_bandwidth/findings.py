"""The Storage Scale chapter's sentences, from its frames and records: the findings (the newest model against IBM's
claims leads), each a Finding with the records it rests on, and the prose values the page pastes."""
from __future__ import annotations

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding
from ...database import io500_runs
from ...inference import evidence
from ...inference.evidence import Replicate, plural
from .analysis import talk_release
from .runs import MODELS, NO_VALUE, SHORT_PHASE, WHOLE, listing, short_source

# the chapter's figures and tables the findings link to (names unique in the book)
FIG_PER_BLOCK, TAB_PER_BLOCK, TAB_BLOCKS = "fig-ess-per-block", "tab-ess-per-block", "tab-ess-blocks"
TAB_CEILINGS, TAB_ALIKE, FIG_HARD_DELETE = "tab-ess-ceilings", "tab-ess-alike", "fig-ess-hard-delete"
MODEL_ORDER = [MODELS["6000"], MODELS["3500"], MODELS["3200"]]  # the newest model's result leads
TUCSON, EHNINGEN = "Tucson", "Ehningen"  # the talk's site names (analysis.TALK_COLUMNS)


def model_values(per_block: pd.DataFrame, model: str) -> dict[str, str]:
    """Per building block, the rated runs of `model`: read and write GB/s and % of their own claims as
    rounded ranges ("305–333"), keyed read_per_block, write_per_block, read_pct, write_pct, pct (both phases)."""
    rated = per_block[(per_block.model == model) & per_block.pct_of_claim.notna()]
    out = {}
    for phase, short in SHORT_PHASE.items():
        rows = rated[rated.phase == phase]
        out[f"{short}_per_block"] = present.span(rows.per_block_gb_s, WHOLE) if len(rows) else NO_VALUE
        out[f"{short}_pct"] = present.span(rows.pct_of_claim, WHOLE) if len(rows) else NO_VALUE
    out["pct"] = present.span(rated.pct_of_claim, WHOLE) if len(rated) else NO_VALUE
    return out


def lead_model(per_block: pd.DataFrame) -> str | None:
    """The newest model (MODEL_ORDER) with a run rated against IBM's claim; None without one."""
    rated = set(per_block[per_block.pct_of_claim.notna()].model)
    return next((m for m in MODEL_ORDER if m in rated), None)


def figure(gb_s: float) -> str:
    """A figure as the talk prints it (310, 91), a derived one to one decimal (59.6)."""
    return f"{gb_s:,.0f}" if float(gb_s).is_integer() else f"{gb_s:,.1f}"


def main_finding(per_block: pd.DataFrame, records: list[evidence.Comparison], model: str,
                 runs: pd.DataFrame) -> Finding:
    """The chapter's main result in at most 30 words: the rated runs of `model` (lead_model), their read and
    write per building block against IBM's claim for each run's own release, the ratios summed up by the kit
    (comparison.range_sentence: their span, how many are decided); and what they were run on where every one shares
    it (an early pre-GA build as the archive's folders name it, one building block each). The records: each run's
    comparisons and those of the systems of the model."""
    rows = per_block[per_block.pct_of_claim.notna() & (per_block.model == model)]
    labels = runs.set_index("run_key").filesystem.reindex(rows.run_key.unique()).fillna("")
    pre_ga = f" ({io500_runs.PRE_GA})" if len(labels) and labels.str.contains(io500_runs.PRE_GA, regex=False).all() else ""
    lead = (f"{model}{pre_ga}, one block each:" if (rows.blocks == 1).all() else
            f"Per building block, {model}{pre_ga} runs")
    phases = [p for p in ("ior-easy-read", "ior-easy-write") if p in set(rows.phase)]
    rates = " and ".join(f"{SHORT_PHASE[p]} {present.span(rows[rows.phase == p].per_block_gb_s, WHOLE)}"
                         for p in phases) + " GB/s"
    claims = [rows[rows.phase == p].claim_gb_s.unique() for p in phases]
    claim = (f"IBM's {' and '.join(figure(c[0]) for c in claims)} GB/s" if all(len(c) == 1 for c in claims)
             else "IBM's claim for each run's release")
    each = [r for r in records if r.label in set(rows.run_key)]
    systems = [r for r in records if r.label.startswith(model)]
    return Finding(text=f"{lead} {rates}; against {claim}: {comparison.range_sentence(each)}.",
                   target=FIG_PER_BLOCK, evidence=(*each, *systems))


def phase_clause(rows: pd.DataFrame, verb: str) -> str:
    """'submission-651 reads 120 % of 91 GB/s (before ESS 6.1.8), submission-679 87 % of 126 GB/s (...)': each
    run's share of its own claim, runs of one claim named together."""
    parts = []
    for i, ((claim, rule), g) in enumerate(rows.groupby(["claim_gb_s", "claim_rule"], sort=False)):
        shares = listing(f"{r.run_key}{f' {verb}' if i == 0 and j == 0 else ''} {r.pct_of_claim:.0f} %"
                         for j, r in enumerate(g.itertuples()))
        parts.append(f"{shares} of {figure(claim)} GB/s ({rule})")
    return "; ".join(parts)


def per_run_findings(per_block: pd.DataFrame, records: list[evidence.Comparison], main: str) -> list[Finding]:
    """For each model but `main` with rated runs, one sentence: each run's share of its own claim per phase."""
    rated = per_block[per_block.pct_of_claim.notna()]
    out = []
    for model in [m for m in MODEL_ORDER if m in set(rated.model) and m != main]:
        rows = rated[rated.model == model]
        clauses = [phase_clause(rows[rows.phase == p], "reads" if p == "ior-easy-read" else "writes")
                   for p in ("ior-easy-read", "ior-easy-write") if p in set(rows.phase)]
        mine = tuple(r for r in records if r.label in set(rows.run_key))
        out.append(Finding(text=(f"{model} per building block, each run against its own claim: {'. '.join(clauses)}; "
                                 f"one run each: {comparison.range_sentence(mine)}."), target=TAB_PER_BLOCK,
                           evidence=mine))
    return out


def one_run(value: float, quantity: str, unit: str) -> evidence.Estimate:
    """The record of a number of one run: a single unit, no interval."""
    return evidence.described(value, quantity=quantity, unit=unit, n=1, replicate=Replicate.RUN,
                              how="one run's value")


ONE_AGAINST_ONE = "one run against one run: the change between two values, with no interval and no verdict"


def one_against_one(change_pct: float, quantity: str) -> evidence.Estimate:
    """The record of a change in % between two runs, one a side: described, never compared (issue 36: a verdict
    or an interval on one unit a side would claim what two values cannot show)."""
    return evidence.described(change_pct, quantity=quantity, unit="%", n=2, replicate=Replicate.RUN,
                              how=ONE_AGAINST_ONE)


def line_rate_share(row) -> evidence.Estimate:
    """One run's easy read as % of its clients' nominal line rate."""
    return one_run(row.pct_of_client, f"{row.run_key}: easy read as % of the clients' nominal line rate", "%")


def site_values(ceilings: pd.DataFrame, site: str) -> dict[str, str]:
    """The read per building block and share of the client line rate of the runs at `site` (the talk's name)
    whose line rate is known: rounded ranges, NO_VALUE without such a run."""
    rows = ceilings[(ceilings.site == site) & (ceilings.phase == "ior-easy-read") & ceilings.client_ceiling_gb_s.notna()
                    & ceilings.per_block_gb_s.notna()]
    if rows.empty:
        return {"read_per_block": NO_VALUE, "pct_of_line_rate": NO_VALUE, "runs": NO_VALUE}
    return {"read_per_block": present.span(rows.per_block_gb_s, WHOLE),
            "pct_of_line_rate": present.span(rows.pct_of_client, WHOLE), "runs": listing(rows.run_key)}


def site_finding(at_site: dict[str, str]) -> Finding:
    """For the landing page: ESS 3500 read per building block at Tucson (`site_values`) and its share of the
    clients' nominal line rate."""
    return Finding(text=(f"ESS 3500 per building block at {TUCSON} ({at_site['runs']}): {at_site['read_per_block']} GB/s "
                         f"read, {at_site['pct_of_line_rate']} % of the clients' nominal line rate."),
                   target=TAB_CEILINGS)


def line_rate_finding(ceilings: pd.DataFrame, links: pd.DataFrame) -> Finding | None:
    """A run whose clients' nominal line rate (links x rate as stated, not measured) is below IBM's figure for its
    building blocks: the clients bound it (it could not show IBM's figure); with the read per building block and
    share of the line rate of the runs at its site. Without such a run, each linked run's share of the line rate
    and of IBM's figure."""
    read = ceilings[(ceilings.phase == "ior-easy-read") & ceilings.client_ceiling_gb_s.notna()]
    bound = read[read.clients_bound]
    if len(bound):
        sentences, records = [], []
        for r in bound.itertuples():
            records += [one_run(r.client_ceiling_gb_s, f"{r.run_key}: clients' nominal line rate", "GB/s"),
                        one_run(r.quoted_gb_s, f"{r.run_key}: IBM's figure for its building blocks", "GB/s")]
            link = links.set_index("site").loc[r.site]
            at_site = site_values(ceilings, r.site)
            site = read[(read.site == r.site) & read.per_block_gb_s.notna()]  # the runs site_values reads
            records += [*(one_run(s.per_block_gb_s, f"{s.run_key}: easy read per building block", "GB/s")
                          for s in site.itertuples()), *map(line_rate_share, site.itertuples())]
            sentences.append(
                f"{r.run_key}'s clients ({r.nodes:,.0f} nodes in its IOR log, {plural(int(link.links_per_client), 'link')} "
                f"of {link.link_gbit_s:,.0f} Gb/s each, as the talk states) carry at most {r.client_ceiling_gb_s:,.0f} "
                f"GB/s at their nominal rate"
                f", below IBM's {r.quoted_gb_s:,.0f} GB/s for its {plural(int(r.blocks), 'building block')}: "
                f"the clients bound it below IBM's figure, whatever the storage could do; {r.site}'s runs ({at_site['runs']}) read "
                f"{at_site['read_per_block']} GB/s per building block, {at_site['pct_of_line_rate']} % of that line rate.")
        return Finding(text=" ".join(sentences), target=TAB_CEILINGS, evidence=tuple(records))
    linked = read[read.quoted_gb_s.notna()]
    if linked.empty:
        return None
    each = "; ".join(f"{r.run_key} {r.pct_of_client:.0f} % and {r.pct_of_quoted:.0f} %" for r in linked.itertuples())
    shares = tuple(map(line_rate_share, linked.itertuples()))
    return Finding(text=(f"Easy read as % of the clients' nominal line rate and of IBM's quoted figure: {each}; the data "
                         f"cannot tell whether the client links bound {'it' if len(linked) == 1 else 'them'}."),
                   target=TAB_CEILINGS, evidence=shares)


def sites_finding(ceilings: pd.DataFrame, talk: pd.DataFrame, ior: pd.DataFrame, runs: pd.DataFrame) -> Finding | None:
    """The talk's SC23 runs at Ehningen and Tucson side by side: total read change (one run against one run:
    described), read per building block, nominal client line rates and their shares, and what else differs (transfer size from the IOR logs, the installed
    Storage Scale release from the setup record, never minReleaseLevel): what one run per site can and cannot
    tell. None without both."""
    sc23 = talk[(talk.list == "SC23") & talk.site.isin([TUCSON, EHNINGEN])].drop_duplicates("site").set_index("site")
    read = ceilings[ceilings.phase == "ior-easy-read"].set_index("run_id")
    if len(sc23) < 2 or not set(sc23.run_id) <= set(read.index):
        return None
    t, e = (read.loc[sc23.run_id[s]] for s in (TUCSON, EHNINGEN))
    if pd.isna(t.blocks) or pd.isna(e.blocks) or pd.isna(t.client_ceiling_gb_s) or pd.isna(e.client_ceiling_gb_s):
        return None
    easy = ior[ior.phase == "ior-easy-read"].set_index("run_id").transfer_bytes
    stated = runs.set_index("run_id")
    differ = []
    ids = (sc23.run_id[EHNINGEN], sc23.run_id[TUCSON])
    if all(i in easy.index for i in ids) and easy[ids[0]] != easy[ids[1]]:
        differ.append(f"transfer sizes ({' and '.join(f'{int(easy[i]) // 2**20} MiB' for i in ids)})")
    release = stated.scale_release_stated.reindex(ids)
    if release.notna().all() and release.iloc[0] != release.iloc[1]:
        sources = listing(sorted({short_source(stated.release_source[i]) for i in ids}))
        headed = talk_release()
        heading = (f"; the talk's SC23 table heads both 'Storage Scale {headed}'"
                   if headed and not (release == headed).all() else "")
        differ.append(f"Storage Scale releases ({' and '.join(release)}, {sources}{heading})")
    change = one_against_one((e.gb_s / t.gb_s - 1) * 100, f"{e.run_key} against {t.run_key}: change in ior-easy-read, "
                                                          f"in total")
    return Finding(text=(
        f"{EHNINGEN}'s {plural(int(e.blocks), 'building block')} ({e.run_key}) read {change.value:+.1f} % "
        f"in total against {TUCSON}'s {int(t.blocks)} ({t.run_key}), {e.per_block_gb_s:,.0f} against "
        f"{t.per_block_gb_s:,.0f} GB/s per building block, with a nominal client line rate of {e.client_ceiling_gb_s:,.0f} "
        f"against {t.client_ceiling_gb_s:,.0f} GB/s ({e.pct_of_client:.0f} % and {t.pct_of_client:.0f} % of it "
        f"used). One run per site, on other clients{', ' + listing(differ) if differ else ''}: it cannot tell "
        f"building blocks from site, clients or release, and is no per-block scaling law."), target=TAB_CEILINGS,
        evidence=(change, *(one_run(r.per_block_gb_s, f"{r.run_key}: easy read per building block", "GB/s")
                            for r in (e, t)), *(line_rate_share(r) for r in (e, t))))


def release_mix_finding(pair: pd.Series, releases: pd.DataFrame) -> Finding:
    """The talk's Tucson ISC23-to-SC23 changes of mdtest-hard-delete and mdtest-easy-stat, one run each: the
    release the earlier run's folder states against the one the talk gives, and the talk's settings only the
    later run's listing sets. Upgrade and settings changed together: the change is not the settings'. Each change
    sets one run against one run: described (`one_against_one`), never decided."""
    stated = releases.set_index("run_id").loc[pair.before_id]
    before = (f"{pair.before_run}'s folder states Storage Scale {stated.scale_release} with ESS {stated.ess_release}"
              if pd.notna(stated.scale_release) else f"{pair.before_run}'s release is not stated")
    settings = (f", and {listing(f'`{k}`' for k in pair.only_after)} are set only in {pair.after_run}'s listing"
                if pair.only_after else "")
    return Finding(text=(
        f"From the talk's Tucson ISC23 run to its SC23 run ({pair.before_run} to {pair.after_run}, one run each), "
        f"mdtest-hard-delete moved {pair.change_pct:+.1f} % and mdtest-easy-stat {pair.stat_change_pct:+.1f} %. The talk "
        f"heads both 'Storage Scale {talk_release()}', but {before}{settings}: the changes mix the upgrade with "
        f"the settings."), target=FIG_HARD_DELETE, evidence=(
        one_against_one(pair.change_pct, f"{pair.after_run} against {pair.before_run}: change in mdtest-hard-delete"),
        one_against_one(pair.stat_change_pct, f"{pair.after_run} against {pair.before_run}: change in mdtest-easy-stat")))


def changed_during_run_text(runs: pd.DataFrame, changed: evidence.Count) -> str:
    """What the runs' own scripts change while the benchmark runs (the setup record's changed_during_run): which
    runs, and that no listing shows it."""
    if not changed.k:
        return f"None of the {plural(changed.n, 'run')} here keeps a script that changes the file system while it runs."
    which = runs[runs.changed_during_run.notna()]
    stopped = which.changed_during_run.str.contains("SIGSTOP")
    return (f"{changed.k} of the {plural(changed.n, 'run')} here ({listing(which.run_key)}) keep scripts that change "
            f"the file system while the "
            f"benchmark runs: `mmchconfig ... -i` of `inodePrefetchThreshold` from `[find]` to `[ior-easy-read]`"
            + (f", and {int(stopped.sum())} of them stop and resume every io500 process (SIGSTOP, SIGCONT)"
               if stopped.any() else "")
            + ": their find and the phases around it ran under settings that no listing shows.")


def block_count_findings(blocks: pd.DataFrame, runs: pd.DataFrame) -> list[Finding]:
    """A building-block count the file system's disks overrule: one sentence per such run."""
    named = runs.set_index("run_id").run_key
    disagree = blocks[(blocks.basis == "file system disks") & blocks.cluster_pairs.notna()
                      & (blocks.building_blocks != blocks.cluster_pairs)]
    out = []
    for r in disagree.itertuples():
        mount, _, detail = r.evidence.partition(": ")
        out.append(Finding(text=(f"{named[r.run_id]} is {plural(int(r.building_blocks), 'building block')}, not "
                                 f"{int(r.cluster_pairs)}: its cluster lists {plural(int(r.cluster_pairs), 'canister pair')}, "
                                 f"but the file system under test, {mount}, has {detail}."), target=TAB_BLOCKS))
    return out

SHORT_VALUE = 10  # characters: a value this short is shown in a sentence, a longer one only named
MEASURED = ("read per building block (GB/s)", "write per building block (GB/s)")


def alike_sentences(alike: pd.DataFrame) -> list[str]:
    """Per group of alike runs (`get_alike`), one sentence: what they share (known values only) and the
    setup attributes in which they differ."""
    out = []
    for group, g in alike.groupby("group", sort=False):
        runs = [c for c in g.columns if c not in ("group", "attribute", "differs") and g[c].notna().all()]
        setup = g[~g.attribute.isin(MEASURED)].set_index("attribute")

        def named(attribute: str, values: list[str]) -> str:  # short values are shown, long ones only named
            return f"{attribute} ({', '.join(values)})" if max(map(len, values)) <= SHORT_VALUE else attribute
        same = [named(a, [setup.at[a, runs[0]]]) for a in setup.index[~setup.differs] if setup.at[a, runs[0]] != NO_VALUE]
        differ = [named(a, [setup.at[a, r] for r in runs]) for a in setup.index[setup.differs]]
        out.append(f"{listing(runs)} ({group} each) share {listing(same) or 'no known setting'}, but differ in "
                   f"{listing(differ) or 'no setting compared'}.")
    return out
