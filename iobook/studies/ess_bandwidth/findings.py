"""The Storage Scale chapter's sentences, from its frames and records: the findings (the newest model against IBM's
"up to" figures leads), each a Finding with the records it rests on, and the prose values the page pastes. A run
the validity audit flags is named with its flag wherever a finding features it (flagged): every run IBM's figures
apply to here is flagged, so none can stand in for it."""
from __future__ import annotations

import re

import pandas as pd

from ...book import present
from ...book.report import Finding
from ...database import io500_runs
from ...inference import evidence
from ...inference.evidence import Replicate, plural
from .analysis import talk_release
from .runs import MODELS, NO_VALUE, SHORT_PHASE, WHOLE, listing, short_source

# the chapter's figures and tables the findings link to (names unique in the book)
FIG_PER_BLOCK, TAB_PER_BLOCK, TAB_BLOCKS = "fig-ess-per-block", "tab-ess-per-block", "tab-ess-blocks"
TAB_ALIKE, FIG_HARD_DELETE = "tab-ess-alike", "fig-ess-hard-delete"
MODEL_ORDER = [MODELS["6000"], MODELS["3500"], MODELS["3200"]]  # the newest model's result leads
TUCSON, EHNINGEN = "Tucson", "Ehningen"  # the talk's site names (analysis.TALK_COLUMNS)
# What one run beside IBM's "up to" figure (a maximum from IBM's lab) can show: the figure reached, or nothing
UP_TO = ("one run against IBM's 'up to' figure: at or above it shows the figure reached; below it shows nothing "
         "against it (a maximum from IBM's lab); no test, no interval")


def flagged(runs: pd.DataFrame, keys) -> str:
    """What the validity audit flags among the runs `keys`, said once for them: 'flagged CHANGED_DURING_RUN' (one
    run), 'both flagged ...', 'all flagged ...'; 'submission-651 flagged ...' where only some are; '' where none."""
    keys = list(dict.fromkeys(keys))
    codes = runs.set_index("run_key").validity_flags.reindex(keys)
    if codes.isna().all():
        return ""
    if codes.notna().all() and codes.nunique() == 1:
        every = "" if len(keys) == 1 else "both " if len(keys) == 2 else "all "
        return f"{every}flagged {codes.iloc[0]}"
    return "; ".join(f"{listing(g.index)} flagged {code}" for code, g in codes.dropna().groupby(codes.dropna()))


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


def submission(row) -> str:
    """The run's name in a record: its submission, as the archive names it ('submission-679'); a copy of its folder
    (run_key 'submission-679/2023.10.22-06.40.20#3') is the same run (tests/test_repeated_tree.py)."""
    return f"submission-{row.submission}"


def up_to_share(row) -> evidence.Estimate:
    """One run's easy phase per building block as % of IBM's "up to" figure for its model, phase and release:
    described (UP_TO), never compared: a maximum is no mean a run could be tested against."""
    return evidence.described(row.pct_of_claim, unit="%", n=1, replicate=Replicate.RUN, how=UP_TO,
                              quantity=f"{submission(row)}: {row.phase} per building block as % of IBM's 'up to' figure")


def up_to_shares(per_block: pd.DataFrame) -> list[evidence.Estimate]:
    """Every rated run's share of its figure, phase by phase (up_to_share)."""
    return [up_to_share(r) for r in per_block[per_block.pct_of_claim.notna()].itertuples()]


def _rated(per_block: pd.DataFrame, model: str) -> pd.DataFrame:
    return per_block[per_block.pct_of_claim.notna() & (per_block.model == model)]


def main_finding(per_block: pd.DataFrame, model: str, runs: pd.DataFrame) -> Finding:
    """The chapter's main result in at most 30 words: the rated runs of `model` (lead_model), their read and write
    per building block and their span of IBM's "up to" figures, one run each; what they ran on where every one
    shares it (an early pre-GA build as the archive's folders name it, one building block each) and their flag."""
    rows = _rated(per_block, model)
    keys = rows.run_key.unique()
    labels = runs.set_index("run_key").filesystem.reindex(keys).fillna("")
    pre_ga = " early pre-GA" if len(labels) and labels.str.contains(io500_runs.PRE_GA, regex=False).all() else ""
    subject = (f"{model}, one{pre_ga} building block each" if (rows.blocks == 1).all()
               else f"{model}{f' ({io500_runs.PRE_GA})' if pre_ga else ''} per building block")
    phases = [p for p in ("ior-easy-read", "ior-easy-write") if p in set(rows.phase)]
    rates = ", ".join(f"{SHORT_PHASE[p]} {present.span(rows[rows.phase == p].per_block_gb_s, WHOLE)}"
                      for p in phases) + " GB/s"
    claims = [rows[rows.phase == p].claim_gb_s.unique() for p in phases]
    figures = (" " + " and ".join(figure(c[0]) for c in claims) if all(len(c) == 1 for c in claims)
               else " for each run's release")
    said = ", ".join(filter(None, [plural(len(keys), "run"), flagged(runs, keys)]))
    return Finding(text=(f"{subject} ({said}): {rates}, {present.span(rows.pct_of_claim, WHOLE)} % of IBM's "
                         f"\"up to\"{figures}."), target=FIG_PER_BLOCK, evidence=tuple(map(up_to_share,
                                                                                             rows.itertuples())))


def model_findings(per_block: pd.DataFrame, main: str, runs: pd.DataFrame) -> list[Finding]:
    """For each model but `main` with rated runs, one sentence: the span of each phase's share of the figure for
    each run's release, and what one run against an "up to" figure can and cannot show."""
    out = []
    for model in [m for m in MODEL_ORDER if m in set(_rated(per_block, m).model) and m != main]:
        rows = _rated(per_block, model)
        shares = ", ".join(f"{SHORT_PHASE[p]}s {present.span(rows[rows.phase == p].pct_of_claim, WHOLE)} %"
                           for p in ("ior-easy-read", "ior-easy-write") if p in set(rows.phase))
        flag = flagged(runs, rows.run_key)
        out.append(Finding(text=(f"{model}, each run against IBM's \"up to\" for its ESS release"
                                 f"{f' ({flag})' if flag else ''}: {shares}; one run can reach a figure or miss it, "
                                 "but cannot test it."), target=TAB_PER_BLOCK,
                           evidence=tuple(map(up_to_share, rows.itertuples()))))
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
    return one_run(row.pct_of_client, f"{submission(row)}: easy read as % of the clients' nominal line rate", "%")


def _read_at_site(ceilings: pd.DataFrame, site: str) -> pd.DataFrame:
    """The easy reads at `site` (the talk's name) with a building-block count and a known line rate."""
    return ceilings[(ceilings.site == site) & (ceilings.phase == "ior-easy-read") & ceilings.client_ceiling_gb_s.notna()
                    & ceilings.per_block_gb_s.notna()]


def site_values(ceilings: pd.DataFrame, site: str) -> dict[str, str]:
    """The read per building block and share of the client line rate of the runs at `site` (the talk's name)
    whose line rate is known: rounded ranges, NO_VALUE without such a run."""
    rows = _read_at_site(ceilings, site)
    if rows.empty:
        return {"read_per_block": NO_VALUE, "pct_of_line_rate": NO_VALUE, "runs": NO_VALUE}
    return {"read_per_block": present.span(rows.per_block_gb_s, WHOLE),
            "pct_of_line_rate": present.span(rows.pct_of_client, WHOLE), "runs": listing(rows.run_key)}


def site_finding(ceilings: pd.DataFrame, runs: pd.DataFrame, site: str) -> Finding:
    """For the landing page: the read per building block at `site` (`site_values`) and its share of the clients'
    nominal line rate, with the runs' flag."""
    at_site, rows = site_values(ceilings, site), _read_at_site(ceilings, site)
    flag = flagged(runs, rows.run_key)
    return Finding(text=(f"{rows.model.iloc[0]} per building block at {site} ({at_site['runs']}"
                         f"{f', {flag}' if flag else ''}): {at_site['read_per_block']} GB/s read, "
                         f"{at_site['pct_of_line_rate']} % of the clients' nominal line rate."),
                   target=TAB_PER_BLOCK, evidence=tuple(map(line_rate_share, rows.itertuples())))


# the IO500 list a slide's heading names ("... io500 submission for ISC23:")
SLIDE_LIST = re.compile(r"\b(?:ISC|SC)\d{2}\b")


def _stated_for(link: pd.Series) -> str:
    """Whose clients the talk's link figure describes: the site's cluster of the list its slide names (the talk
    states it for the ISC23 submission's cluster, which a later run on that cluster shares)."""
    named = SLIDE_LIST.search(link.slide)
    return f"the talk's figure for {link.name}'s {named[0]} cluster" if named else "as the talk states"


def line_rate_finding(ceilings: pd.DataFrame, links: pd.DataFrame, runs: pd.DataFrame) -> Finding | None:
    """A run whose clients' nominal line rate (links x rate as stated, not measured) is below IBM's figure for its
    building blocks: the clients bound it (it could not show IBM's figure); with the read per building block and
    share of the line rate of the runs at its site. Without such a run, each linked run's share of the line rate."""
    read = ceilings[(ceilings.phase == "ior-easy-read") & ceilings.client_ceiling_gb_s.notna()]
    bound = read[read.clients_bound]
    if len(bound):
        sentences, records = [], []
        for r in bound.itertuples():
            records += [one_run(r.client_ceiling_gb_s, f"{submission(r)}: clients' nominal line rate", "GB/s"),
                        one_run(r.quoted_gb_s, f"{submission(r)}: IBM's figure for its building blocks", "GB/s")]
            link = links.set_index("site").loc[r.site]
            at_site, site = site_values(ceilings, r.site), _read_at_site(ceilings, r.site)
            records += [*(one_run(s.per_block_gb_s, f"{submission(s)}: easy read per building block", "GB/s")
                          for s in site.itertuples()), *map(line_rate_share, site.itertuples())]
            flag = flagged(runs, site.run_key)
            sentences.append(
                f"{r.run_key}'s {r.nodes:,.0f} clients ({plural(int(link.links_per_client), 'link')} of "
                f"{link.link_gbit_s:,.0f} Gb/s each, {_stated_for(link)}) carry at most {r.client_ceiling_gb_s:,.0f} "
                f"GB/s nominally, below IBM's {r.quoted_gb_s:,.0f} GB/s for its "
                f"{plural(int(r.blocks), 'building block')}: they bound it below that figure. {r.site}'s "
                f"{at_site['runs']}{f', {flag},' if flag else ''} read {at_site['read_per_block']} GB/s a block, "
                f"{at_site['pct_of_line_rate']} % of that line rate.")
        return Finding(text=" ".join(sentences), target=TAB_PER_BLOCK, evidence=tuple(records))
    linked = read[read.quoted_gb_s.notna()]
    if linked.empty:
        return None
    each = "; ".join(f"{r.run_key} {r.pct_of_client:.0f} %" for r in linked.itertuples())
    flag = flagged(runs, linked.run_key)
    return Finding(text=(f"Easy read as % of the clients' nominal line rate: {each}{f' ({flag})' if flag else ''}; "
                         f"the data cannot tell whether the client links bound {'it' if len(linked) == 1 else 'them'}."),
                   target=TAB_PER_BLOCK, evidence=tuple(map(line_rate_share, linked.itertuples())))


def _sc23_sites(ceilings: pd.DataFrame, talk: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """The easy reads of the talk's SC23 runs at Tucson and Ehningen, each with its building blocks and nominal
    line rate; None without both."""
    sc23 = talk[(talk.list == "SC23") & talk.site.isin([TUCSON, EHNINGEN])].drop_duplicates("site").set_index("site")
    read = ceilings[ceilings.phase == "ior-easy-read"].set_index("run_id")
    if len(sc23) < 2 or not set(sc23.run_id) <= set(read.index):
        return None
    t, e = (read.loc[sc23.run_id[s]] for s in (TUCSON, EHNINGEN))
    if pd.isna(t.blocks) or pd.isna(e.blocks) or pd.isna(t.client_ceiling_gb_s) or pd.isna(e.client_ceiling_gb_s):
        return None
    return t, e


def sites_finding(ceilings: pd.DataFrame, talk: pd.DataFrame, runs: pd.DataFrame) -> Finding | None:
    """The talk's SC23 runs at Ehningen and Tucson side by side: total read change (one run against one run:
    described), read per building block, nominal client line rates and their shares: what one run per site cannot
    tell (sites_text says what else differs). None without both."""
    if (pair := _sc23_sites(ceilings, talk)) is None:
        return None
    t, e = pair
    change = one_against_one((e.gb_s / t.gb_s - 1) * 100, f"{e.run_key} against {t.run_key}: change in ior-easy-read, "
                                                          f"in total")
    flag = flagged(runs, [e.run_key, t.run_key])
    return Finding(text=(
        f"{EHNINGEN}'s {plural(int(e.blocks), 'building block')} ({e.run_key}) read {change.value:+.1f} % "
        f"in total against {TUCSON}'s {int(t.blocks)} ({t.run_key}), {e.per_block_gb_s:,.0f} against "
        f"{t.per_block_gb_s:,.0f} GB/s a building block, at {e.pct_of_client:.0f} % and {t.pct_of_client:.0f} % of "
        f"nominal client line rates of {e.client_ceiling_gb_s:,.0f} and {t.client_ceiling_gb_s:,.0f} GB/s"
        f"{f'; {flag}' if flag else ''}. One run per site: no per-block scaling law."),
        target=TAB_PER_BLOCK,
        evidence=(change, *(one_run(r.per_block_gb_s, f"{r.run_key}: easy read per building block", "GB/s")
                            for r in (e, t)), *(line_rate_share(r) for r in (e, t))))


def sites_text(ceilings: pd.DataFrame, talk: pd.DataFrame, ior: pd.DataFrame, runs: pd.DataFrame) -> str:
    """What else differs between the talk's SC23 runs at Ehningen and Tucson (transfer size from the IOR logs, the
    installed Storage Scale release from the setup record, never minReleaseLevel), and what one run per site
    cannot tell; '' without both."""
    if (pair := _sc23_sites(ceilings, talk)) is None:
        return ""
    t, e = pair
    easy = ior[ior.phase == "ior-easy-read"].set_index("run_id").transfer_bytes
    stated = runs.set_index("run_id")
    differ = ["clients"]
    ids = (e.name, t.name)  # the rows are indexed by run_id
    if all(i in easy.index for i in ids) and easy[ids[0]] != easy[ids[1]]:
        differ.append(f"transfer sizes ({' and '.join(f'{int(easy[i]) // 2**20} MiB' for i in ids)})")
    release = stated.scale_release_stated.reindex(ids)
    if release.notna().all() and release.iloc[0] != release.iloc[1]:
        sources = listing(sorted({short_source(stated.release_source[i]) for i in ids}))
        headed = talk_release()
        heading = (f"; the talk's SC23 table heads both 'Storage Scale {headed}'"
                   if headed and not (release == headed).all() else "")
        differ.append(f"Storage Scale releases ({' and '.join(release)}, {sources}{heading})")
    return (f"The talk's SC23 runs at {EHNINGEN} ({e.run_key}) and {TUCSON} ({t.run_key}) differ in "
            f"{listing(differ)}: one run per site cannot tell building blocks from site, clients or release, and is "
            "no per-block scaling law.")


def release_mix_finding(pair: pd.Series, releases: pd.DataFrame, runs: pd.DataFrame) -> Finding:
    """The talk's Tucson ISC23-to-SC23 changes of mdtest-hard-delete and mdtest-easy-stat, one run each: the
    Storage Scale release of each run as stated (the earlier run's folder, the later run's setup record) and that
    the talk's settings changed with it: the change is not the settings'. Each change sets one run against one
    run: described (`one_against_one`), never decided."""
    stated = runs.set_index("run_key").scale_release_stated
    before, after = (stated.get(k) for k in (pair.before_run, pair.after_run))
    upgrade = (f"Storage Scale {before} to {after}" if pd.notna(before) and pd.notna(after) and before != after
               else "an upgrade")
    settings = f" and {plural(len(pair.only_after), 'talk setting')} set only in the later run" if pair.only_after else ""
    flag = flagged(runs, [pair.before_run, pair.after_run])
    return Finding(text=(
        f"Tucson's ISC23 to SC23 run ({pair.before_run} to {pair.after_run}, one each{f', {flag}' if flag else ''}):"
        f" mdtest-hard-delete {pair.change_pct:+.1f} %, mdtest-easy-stat {pair.stat_change_pct:+.1f} %, with "
        f"{upgrade}{settings}: one run each cannot separate them."), target=FIG_HARD_DELETE, evidence=(
        one_against_one(pair.change_pct, f"{pair.after_run} against {pair.before_run}: change in mdtest-hard-delete"),
        one_against_one(pair.stat_change_pct, f"{pair.after_run} against {pair.before_run}: change in mdtest-easy-stat")))


def changed_during_run_text(runs: pd.DataFrame, changed: evidence.Count, rated: set[str]) -> str:
    """What the runs' own scripts change while the benchmark runs (the setup record's changed_during_run): which
    runs, the audit's flag, that no listing shows it, and whether every run IBM's figures are set beside
    (`rated`) is among them."""
    if not changed.k:
        return f"None of the {plural(changed.n, 'run')} here keeps a script that changes the file system while it runs."
    which = runs[runs.changed_during_run.notna()]
    stopped = which.changed_during_run.str.contains("SIGSTOP")
    return (f"{changed.k} of the {plural(changed.n, 'run')} here ({listing(which.run_key)}) keep scripts that change "
            f"the file system while the benchmark runs, and the validity audit flags them CHANGED_DURING_RUN: "
            f"`mmchconfig ... -i` of `inodePrefetchThreshold` from `[find]` to `[ior-easy-read]`"
            + (f", and {int(stopped.sum())} of them stop and resume every io500 process (SIGSTOP, SIGCONT)"
               if stopped.any() else "")
            + ": their find and the phases around it ran under settings that no listing shows."
            + (" Every run set beside IBM's figures is among them, so the findings name the flag."
               if rated and rated <= set(which.run_key) else ""))


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
    """Per group of alike runs (`get_alike`), one sentence: what they share (known values, the short ones shown)
    and the setup attributes in which they differ (their values are in the table)."""
    out = []
    for group, g in alike.groupby("group", sort=False):
        runs = [c for c in g.columns if c not in ("group", "attribute", "differs") and g[c].notna().all()]
        setup = g[~g.attribute.isin(MEASURED)].set_index("attribute")

        def shared(attribute: str) -> str:  # a short value is shown, a long one only named
            value = setup.at[attribute, runs[0]]
            return f"{attribute} {value}" if len(value) <= SHORT_VALUE else attribute
        same = [shared(a) for a in setup.index[~setup.differs] if setup.at[a, runs[0]] != NO_VALUE]
        differ = list(setup.index[setup.differs])
        out.append(f"{listing(runs)} ({group} each) share {listing(same) or 'no known setting'}, but differ in "
                   f"{listing(differ) or 'no setting compared'}.")
    return out
