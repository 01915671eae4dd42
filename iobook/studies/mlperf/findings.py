"""The MLPerf Storage study's findings (MyST), each one claim with the figure or table that shows it and the records
it rests on, the first one the answer; and the page's sentences whose wording depends on the data."""
from __future__ import annotations

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding, Prose
from ...inference import evidence
from ...inference.bounds import REACHES_LIMIT
from ...inference.units import MIB
from .analysis import AU_MARGIN, MB, MEMORY_FACTOR, link_share_record
from .claims import RATE_UNITS


def shown(result: str) -> str:
    """A result's key as text that wraps at its folders (a table cell breaks at spaces, never inside a name)."""
    return " / ".join(str(result).split("/"))


def au_finding(au: dict[str, evidence.Count]) -> Finding:
    """The main result: how many runs meet their AU minimum, how many by less than a point, how many dip below it in
    an epoch (a census of the runs)."""
    below, within, epoch = au["below"], au["within"], au["epoch"]
    met = (f"Every one of the {below.n:,} runs meets its AU minimum" if below.k == 0 else
           f"{evidence.phrase(below)} runs fall below their AU minimum")
    return Finding(text=f"{met}, but {evidence.phrase(within)} by less than {AU_MARGIN:g} point; {epoch.k:,} fall "
                        "below it in at least one epoch.", target="fig-mlperf-au", evidence=(below, within, epoch))


def memory_finding(memory: dict[str, evidence.Count]) -> Finding:
    """The caching checks of the audit (censuses): v1.0's (the memory the submitter states, else the measured) first,
    then the memory DLIO measured (v2.0's rule)."""
    v1, below, none, whole, described, caching = (
        memory[k] for k in ("below_5x_v1", "below_5x", "no_memory", "sum_whole", "below_5x_described", "caching"))
    return Finding(
        text=f"By v1.0's rule {evidence.phrase(v1)} runs read a data set under {MEMORY_FACTOR}x their clients' memory "
             f"(as described, else measured), {below.k:,} under {MEMORY_FACTOR}x what DLIO measured; {caching.k:,} carry "
             f"DLIO's potential_caching. The {none.k:,} runs listing hosts at 0 GB lose no memory: in {whole.k:,} of "
             f"{whole.n:,} the list sums to the hosts times one host's memory.",
        target="tab-mlperf-audit", evidence=(v1, below, none, whole, described, caching))


def _setup(run: pd.Series) -> str:
    """A run as a finding names it, by its setup: organisation, workload, hosts and their links, and its flags."""
    hosts = "one host" if run.hosts == 1 else f"{run.hosts:,} hosts"
    return (f"{present.md_escape(run.organisation)}'s {present.md_escape(run.benchmark)} on {hosts} at "
            f"{run.client_link_gbps:g} Gbit/s" + evidence.flag_note(run))


def links_finding(limits: list[evidence.Count], above: evidence.Count, top: pd.Series | None,
                  named: pd.Series | None) -> Finding:
    """The runs against their hosts' links (bounds.censuses and the audit's rate_above_links), with the run reading
    the largest share of them and the named example (one run's values each: described, no interval)."""
    stating = limits[0]
    text = ("No run reads faster than its hosts' links" if above.k == 0 else
            f"{evidence.phrase(above)} runs read faster than their hosts' links")
    records: list = [above, *limits]
    if top is not None:
        reach = limits[1]
        text += (f"; of the {stating.k:,} of {stating.n:,} whose system states them, {reach.k:,} read at least "
                 f"{REACHES_LIMIT:.0%}, up to {top.link_share:.1%}: {_setup(top)}")
        records.append(link_share_record(top))
    if named is not None and (top is None or named.path != top.path):
        text += (f". {_setup(named)} read {named.bytes_per_s / 1e9:,.1f} GB/s, {named.link_share:.1%} of "
                 f"{named.links_mb_per_s * MB / 1e9:,.0f} GB/s")
        records.append(link_share_record(named))
    # the chart shows only runs that state links: with none, the audit's table holds the count
    return Finding(text=text + ".", target="fig-mlperf-links" if stating.k else "tab-mlperf-audit",
                   evidence=tuple(records))


def _hosts(accelerators: int, hosts: int) -> str:
    return (f"{accelerators:,} accelerator{'' if accelerators == 1 else 's'} on {hosts:,} "
            f"host{'' if hosts == 1 else 's'}")


def reports_finding(census: evidence.Count, wrong: pd.DataFrame) -> Finding:
    """The published reports recomputed from their runs (a census), naming the first that does not come back and
    whose runs it publishes where another result's."""
    text = f"{evidence.phrase(census)} published reports' mean and population stdev come back from their runs"
    copied = wrong[wrong.runs_of.notna()]
    if len(copied):
        first = copied.iloc[0]
        text += (f"; {present.md_escape(first.organisation)}'s {present.md_escape(first.workload)} "
                 f"{present.md_escape(first.accelerator)} report for "
                 f"{_hosts(first.accelerators, first.hosts)} publishes the runs of "
                 f"{_hosts(first.runs_of_accelerators, first.runs_of_hosts)}")
    return Finding(text=text + ".", target="tab-mlperf-reports", evidence=(census,))


def accelerator_finding(compared: list[evidence.Comparison], predicted: list[evidence.Estimate]) -> Finding:
    """H100 over A100 per simulated accelerator, the family summed up (its span and how many are decided) with its
    farthest comparison, beside what DLIO's configs predict."""
    far = comparison.farthest(compared)
    ratios = [c.ratio for c in compared]
    text = (f"An H100 reads {present.span(ratios, '.3g')}× an A100's MiB/s per simulated accelerator, "
            f"{sum(c.decided for c in compared)} of {len(compared)} decided ({far.label.split()[0]}: "
            f"{evidence.phrase(far)})")
    if predicted:
        text += (f"; DLIO's computation times predict {present.span([p.value for p in predicted], '.2f')}×: the "
                 "workload sets the rate per accelerator, the storage how many accelerators get it")
    return Finding(text=text + ".", target="tab-mlperf-accelerators", evidence=(*compared, *predicted))


def summaries(runs: pd.DataFrame, unread: pd.DataFrame, wrong: pd.DataFrame) -> dict[str, Prose]:
    """The page's sentences whose wording depends on the data: its scope (said once, at the top), the systems the
    runs name that have no description read (and the descriptions that are not JSON), and the reports that do not
    come back."""
    organisations = runs.organisation.nunique()
    scope = (f"This copy: {len(runs):,} runs in {runs.result.nunique():,} results of {runs.system_key.nunique():,} "
             f"systems from {organisations:,} organisation{'' if organisations == 1 else 's'}.")
    undescribed = sorted(runs.loc[runs.system_match.isna(), "system_key"].unique())
    described = (f"{len(undescribed):,} of the {runs.system_key.nunique():,} systems the runs name have no "
                 f"description read here, so their runs state no links: "
                 f"{', '.join(present.md_escape(s.replace('/', ' / ')) for s in undescribed)}." if undescribed else
                 "Every system the runs name has its description here.")
    if len(unread):  # named once, their lines in the Data chapter: a line number after each name repeated itself
        described += (f" {len(unread):,} system description{' is' if len(unread) == 1 else 's are'} not JSON (the "
                      "Data chapter lists each with its line): "
                      f"{', '.join(present.md_escape(p.rsplit('/', 1)[-1]) for p in unread.path)}.")
    return {"scope": Prose(scope), "descriptions_text": Prose(described), "reports_text": Prose(_reports_text(wrong))}


def _reports_text(wrong: pd.DataFrame) -> str:
    """The reports that do not come back, each with the result whose runs it publishes where that is another one."""
    if wrong.empty:
        return "Every published report comes back from its result's runs."
    said = []
    for row in wrong.itertuples():
        text = present.md_escape(shown(row.result)) if isinstance(row.result, str) else "a report with no run"
        if isinstance(row.runs_of, str):
            text += (f" publishes the runs of {present.md_escape(shown(row.runs_of))} "
                     f"({_hosts(row.runs_of_accelerators, row.runs_of_hosts)}), not its own "
                     f"({_hosts(row.accelerators, row.hosts)})")
        said.append(text)
    return f"Not coming back: {'; '.join(said)}."


CLAIM_NEAR = 0.01  # a claim within 1 % of its result's runs' mean is the figure the files print, rounded


def claims_finding(count: int, compared: list[evidence.Comparison], shown: pd.DataFrame,
                   units: evidence.Count) -> Finding:
    """The organisations' claims against their files, read in DLIO's unit (a census of the runs: its MB is 2^20
    bytes): how many rates and AUs name one result and come back from its runs within CLAIM_NEAR, and the accelerator
    counts no result has (every ratio is in the comparison table)."""
    near = sum(abs(c.ratio - 1) <= CLAIM_NEAR for c in compared)
    text = (f"DLIO's MB is 2^20 bytes (MB/s = samples/s × record length / 2^20 in {evidence.phrase(units)} runs); "
            f"of {count:,} numbers the organisations' supplements print, {len(compared):,} rates and AUs name one "
            f"result, and {near:,} are its runs' mean as DLIO prints it (MB/s ÷ {RATE_UNITS['GB/s']:,} for a GB/s) "
            f"within {CLAIM_NEAR:.0%}")
    missing = shown[shown["what the files show"].str.startswith("no result that fits")]
    if len(missing):
        said = [present.md_escape(f"{who}: {what}") for who, what in zip(missing["said by"], missing.claimed)]
        text += f"; no result has {', '.join(said)}"
    return Finding(text=text + ".", target="tab-mlperf-claims", evidence=(units, *compared))


def claims_units_text(compared: list[evidence.Comparison]) -> str:
    """How the claims that name one result read their GB: as DLIO's MB/s ÷ 1,000 (a ratio within CLAIM_NEAR of 1),
    as 10^9 bytes (within CLAIM_NEAR of 10^6 / 2^20), or as neither, those named."""
    if not compared:
        return ""
    dlio = [c for c in compared if abs(c.ratio - 1) <= CLAIM_NEAR]
    in_bytes = [c for c in compared if abs(c.ratio * MIB / MB - 1) <= CLAIM_NEAR]
    neither = [c for c in compared if c not in dlio and c not in in_bytes]
    text = (f"Of the {len(compared):,} claims set against their runs, {len(dlio):,} are DLIO's figure within "
            f"{CLAIM_NEAR:.0%} and {len(in_bytes):,} are it in bytes (their GB 10^9 bytes: {MB / MIB:.3f}× of DLIO's "
            "figure, which is 2^20 bytes to its MB)")
    if neither:
        text += ("; neither: " + ", ".join(f"{present.md_escape(c.quantity.split(': ')[0])}'s "
                                             f"{present.md_escape(c.baseline_label.removesuffix(' claimed'))} "
                                             f"({c.ratio:.3g}×)" for c in neither))
    return text + "."


def claim_sentence(example: dict | None) -> str:
    """The named claim beside its result: which is the claim (printed) and which the measurement (the runs)."""
    if example is None:
        return ""
    rate = example["mb_per_s"]
    text = (f"{present.md_escape(example['said_by'])}'s supplement claims *{present.md_escape(example['claim'])}* "
            f"({present.md_escape(example['claimed'])}): a claim, printed. Its fastest result "
            f"({present.md_escape(shown(example['result']))}) measured {rate / RATE_UNITS['GB/s']:,.1f} GB/s on "
            f"the mean of its runs as DLIO prints it (MB/s ÷ {RATE_UNITS['GB/s']:,}), {rate * MIB / 1e9:,.1f} GB/s "
            "of 10^9 bytes")
    if not pd.isna(example["links_mb_per_s"]):
        links = example["links_mb_per_s"] * MB
        text += (f", {rate * MIB / links:.1%} of the {links / 1e9:,.0f} GB/s of links its "
                 f"{example['hosts']:,} client hosts' description states")
    return text + "."


def drives_text(systems: pd.DataFrame, names: dict[tuple[str, str], str]) -> str:
    """What the descriptions state of their storage (view mlperf_systems, queries/systems.sql): data drives, storage
    hosts, how many accelerators a run simulates per drive and per storage host, and the drives' read bound where a
    drive's peak is written with its unit, against the system's fastest run; a peak written without its unit is
    named and not read."""
    if systems.empty:
        return ""
    n = len(systems)
    stated, total = systems.data_drives_stated.notna(), systems.data_drives_total.notna()
    hosts = systems.storage_hosts_listed > 0
    text = (f"Of the {evidence.plural(n, 'description')}, {stated.sum():,} state their data drives "
            f"({systems.data_drive_models.notna().sum():,} with a model) and {total.sum():,} also list the nodes "
            f"that hold them, so the system's drives can be counted; {hosts.sum():,} list storage hosts.")
    per_drive = (systems.accelerators / systems.data_drives_total).dropna()
    per_host = (systems.accelerators / systems.storage_hosts_listed.where(hosts)).dropna()
    if len(per_drive):
        text += (f" Their runs simulate {evidence.number(per_drive.min())} to {evidence.number(per_drive.max())} "
                 "accelerators per drive")
        text += (f" and {evidence.number(per_host.min())} to {evidence.number(per_host.max())} per storage host."
                 if len(per_host) else ".")
    unit = systems.drives_read_mb_per_s.notna()
    bound = systems[unit & systems.best_mb_per_s.notna()]
    if len(bound):
        share = bound.best_mb_per_s / bound.drives_read_mb_per_s
        top = bound.loc[share.idxmax()]
        text += (f" {evidence.plural(int(unit.sum()), 'description')} write a data drive's peak read with its unit: "
                 f"the fastest run of {present.md_escape(names.get((top.organisation, top.system), top.system))} "
                 f"read {evidence.number(top.best_mb_per_s)} MB/s (10^6 bytes, the drives' unit), {share.max():.0%} "
                 f"of its drives' {evidence.number(top.drives_read_mb_per_s)} MB/s"
                 + (": above the peak its description states, so that figure is not the drives' most or part of "
                    "the reads came from the host's memory." if share.max() > 1 else "."))
    bare = systems[systems.drive_read_peak_stated.notna() & systems.drive_read_peak_mb_per_s.isna()]
    if len(bare):
        values = sorted({v for stated in bare.drive_read_peak_stated for v in stated.split("; ")},
                        key=lambda v: (len(v), v))  # numbers as written, smallest first
        text += (f" {evidence.plural(len(bare), 'description')} write a drive's peak read without its unit "
                 f"({', '.join(values)}), read as no bound: the template's GiB/s would have one SSD read hundreds "
                 "of GiB/s.")
    return text + (" No other description states a drive's bandwidth, and no drive datasheet is cited here: the "
                   "other drives bound no run.")
