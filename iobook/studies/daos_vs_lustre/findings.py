"""The DAOS versus Lustre study's sentences: the findings (each a Finding with the records its numbers rest on) and
the computed prose the chapter pastes (seed 002's setup of the Tianhe-2E pair, its clients, its versions)."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import FIRST_FINDING_WORDS, Finding
from ...inference import evidence
from ...inference.evidence import Replicate, plural
from .analysis import FIRST, PROTECTED, SECOND, UNPROTECTED
from .nodes import TEN_NODES
from .seeds import cell, seed_text


def caveats_text(seed_servers: pd.DataFrame, dfs: evidence.Count) -> str:
    """Seed 002's setup, wherever the Tianhe-2E pair's numbers are compared (Markdown): DAOS on tmpfs-emulated
    NVRAM (DRAM) against Lustre on NVMe with its server and client counts, and the API of the DAOS runs."""
    tmpfs, tmpfs_line = seed_text(seed_servers, "daos_isc20", "NVRAM")
    spec_line = int(seed_servers[(seed_servers.table == "lustre_sc19")].line.iloc[0])
    return (f"Same storage servers, not the same media: the DAOS runs emulated NVRAM on tmpfs, in DRAM "
            f"(\"{tmpfs.rstrip('.')}\", seed 002 line {tmpfs_line}), while the Lustre run had "
            f"{cell(seed_servers, 'lustre_sc19', 'storage servers')} storage servers with "
            f"{cell(seed_servers, 'lustre_sc19', 'NVMe SSDs')} NVMe SSDs each, "
            f"{cell(seed_servers, 'lustre_sc19', 'metadata servers')} metadata servers and "
            f"{cell(seed_servers, 'lustre_sc19', 'client nodes')} client nodes (line {spec_line}): DRAM-backed DAOS "
            f"against Lustre on NVMe. The slides' DAOS listings print no API; the archive's {FIRST} runs use DAOS's "
            f"DFS API, not POSIX ({evidence.phrase(dfs)} state it in their IOR/mdtest command lines or config.ini"
            + ("" if dfs.k == dfs.n else "; the others keep none that says") + ").")


def eras_text(lustre: pd.Series | None, seed_servers: pd.DataFrame) -> str:
    """The Tianhe-2E pair's benchmark versions: the Lustre run's (its setup record; None where the database lacks
    it) and the DAOS runs' (seed 002)."""
    version, line = seed_text(seed_servers, "daos_isc20", "version")
    if lustre is None:
        return (f"The DAOS runs printed {version} (seed 002 line {line}), the C app of ISC20; the SC19 Lustre run is "
                "not in this database.")
    lustre_era = lustre.era if isinstance(lustre.era, str) else "a version its files do not state"
    return (f"The pair also crosses benchmark versions: the Lustre run is of the {lustre_era}"
            + (f" ({lustre.benchmark})" if isinstance(lustre.benchmark, str) else "")
            + f", the DAOS runs printed {version} (seed 002 line {line}), the C app of ISC20: their phases ran under "
            "different rules, so the pair is two designs as well as two file systems.")


def clients_text(logged: pd.DataFrame, daos_clients: int) -> str:
    """What the data says of the Tianhe-2E pair's clients (Markdown): the Lustre run's client nodes and tasks as
    its phase logs count them (nodes.phase_log_clients), against the DAOS listings, which print none, and the
    talk's client count, which names no run."""
    if logged.empty:
        lustre = "The Lustre run's phase logs are not in this database"
    elif logged.nodes.nunique() == 1 and logged.tasks.nunique() == 1:
        lustre = (f"The Lustre run's logs count {int(logged.nodes.iloc[0]):,} client nodes and "
                  f"{int(logged.tasks.iloc[0]):,} tasks")
    else:
        lustre = (f"The Lustre run's logs count {int(logged.nodes.min()):,}–{int(logged.nodes.max()):,} client nodes "
                  f"and {int(logged.tasks.min()):,}–{int(logged.tasks.max()):,} tasks")
    return (f"{lustre}; the DAOS listing prints no client count (a slide names {daos_clients:,} clients without "
            "saying for which run).")


# What each DAOS design keeps, in a finding's few words (the table's note says it in full)
DAOS_KEEPS = {UNPROTECTED: f"single-copy {FIRST}", PROTECTED: f"replicated or erasure-coded {FIRST}"}
# the validity audit's code for a DAOS run whose object classes keep one copy (view io500_run_flags)
UNPROTECTED_FLAG = "UNPROTECTED"


def first_finding(balance_years: pd.DataFrame) -> Finding:
    """The main result over every archive year and benchmark generation holding both families (no year chosen): the
    range of the comparisons' ratios, and which comparisons evidence.decide decides, each with what protection its
    sides have (named while the finding stays within FIRST_FINDING_WORDS); every comparison's protection is in the
    figure it points to."""
    records = list(balance_years.record)
    ratios = [c.ratio for c in records]
    span = f"{ratios[0]:.1f}×" if len(ratios) == 1 else f"{min(ratios):.1f}–{max(ratios):.1f}×"
    decided = [f"{row.year} {row.generation}, {DAOS_KEEPS.get(row.protection, FIRST)}, {SECOND}'s protection "
               f"{'mostly ' if row.second_stating else ''}unstated, {row.record.ratio:.1f}×"
               for row in balance_years.itertuples() if row.record.decided]
    text = (f"{FIRST} over {SECOND}, metadata per GiB/s, year and generation apart: {span} in "
            f"{plural(len(records), 'comparison')}; decided in **{len(decided)} of {len(records)}**")
    named = text + ": " + "; ".join(decided) + "."
    words = len([w for w in named.split() if any(ch.isalnum() for ch in w)])
    return Finding(text=named if decided and words <= FIRST_FINDING_WORDS else text + ".",
                   target="fig-daos-balance-years", evidence=tuple(records))


def protection_note(second_runs: int, overhead: pd.DataFrame) -> str:
    """What protection each side of the comparisons has, said once under their table: FIRST's by object class,
    written by its clients; SECOND's as far as its runs' io500_info lines state an overhead (`overhead`:
    analysis.storage_overhead of the SECOND runs compared, `second_runs` of them), else unstated: a file system
    whose redundancy lies in its servers' RAID, below it. Plain text: Table.note escapes it."""
    stated = overhead.groupby("run_key").value.agg(lambda v: ", ".join(dict.fromkeys(v)))
    named = "; ".join(f"{key}: {value}" for key, value in stated.items())
    return (f"{FIRST} data protection: without, object classes S1 or SX keep one copy of the data; with, replication "
            "(RP_2G*) or erasure code (EC_*), which the clients write themselves (two replicas double their writes). "
            f"{SECOND}: {len(stated):,} of the {second_runs:,} runs compared state an overhead for protection in "
            f"their io500_info lines" + (f" ({named})" if named else "") + f"; the others state none. {SECOND} "
            "stripes without replicas of its own: a system's redundancy usually lies in its servers' RAID, below "
            "the file system, and costs the clients no extra writes.")


def no_comparison_finding(chosen: pd.DataFrame, runs: pd.DataFrame, outside_layout: int) -> Finding:
    """The first finding where no archive year holds both families: the family with the highest median metadata
    per GiB/s, or that no run has a known family."""
    if len(chosen):
        best = chosen.groupby("family").md_per_bw.median().idxmax()
        return Finding(text=f"No archive year here holds runs of both {FIRST} and {SECOND}; of the families "
                       f"compared, **{present.md_escape(best)}** has the highest median metadata per GiB/s "
                       f"({plural(len(chosen), 'run')}).", target="tab-daos-balance")
    return Finding(text=f"No IO500 run here has a known file-system family ({plural(len(runs), 'run')}; "
                   f"{outside_layout:,} outside the archive layout), so no family is compared.",
                   target="tab-daos-same-servers")


def ten_node_finding(ten_years: pd.DataFrame) -> Finding:
    """Each year's and measure's comparison on 10 client nodes, what they share said once (evidence.phrases); the
    table's legend says why one without a verdict has none."""
    designs = {(row.year, row.generation) for row in ten_years.itertuples()}
    shared = f", {ten_years.year.iloc[0]} {ten_years.generation.iloc[0]}" if len(designs) == 1 else ""
    # what FIRST's side keeps is named where it is set against SECOND (single-copy runs are flagged UNPROTECTED)
    keeps = {DAOS_KEEPS.get(p, FIRST) for p in ten_years.protection}
    first = keeps.pop() if len(keeps) == 1 else FIRST
    labelled = [((f"{row.year} {row.generation} " if not shared else "")
                 + (f"{DAOS_KEEPS.get(row.protection, FIRST)} " if first == FIRST else "")
                 + row.measure.split()[0], row.record) for row in ten_years.itertuples()]
    return Finding(text=f"On {TEN_NODES} client nodes{shared}, {first} over {SECOND} per client node: "
                   f"{evidence.phrases(labelled)}.", target="tab-daos-ten-node", evidence=tuple(ten_years.record))


def same_servers_finding(md: evidence.Comparison, bw: evidence.Comparison, dfs: evidence.Count) -> Finding:
    """Tianhe-2E's DAOS run against its Lustre run on the same storage servers, with the two differences that change
    what the ratios mean (the media, the benchmark's generation) in a few words; the section says them in full
    (caveats_text, eras_text)."""
    return Finding(text=f"Tianhe-2E's unsubmitted ISC20 {FIRST} run over its SC19 {SECOND} run (same servers; "
                   f"{FIRST} in DRAM, {SECOND} on NVMe; two benchmark generations): "
                   f"{evidence.phrases([('metadata', md), ('bandwidth', bw)], joiner=', ')}.",
                   target="tab-daos-same-servers", evidence=(md, bw, dfs))


def same_servers_abstract(md: evidence.Comparison, bw: evidence.Comparison) -> Finding:
    """What the landing page leads with: the Tianhe-2E pair in one sentence."""
    return Finding(text=f"Tianhe-2E's DAOS (DFS API; NVRAM emulated in DRAM on tmpfs) against its Lustre run (NVMe) on "
                   f"the same storage servers: metadata {md.ratio:.2f}×, bandwidth {bw.ratio:.2f}× (one run each: no "
                   "interval).", target="tab-daos-same-servers", evidence=(md, bw))


def wolf_ten_finding(wolf10: pd.DataFrame, year: int, protection: set[str]) -> Finding:
    """In how many phases Wolf is above Tianhe-2E per client node on 10 client nodes, over every pair of runs;
    `protection`: the data protection of the Wolf runs compared (analysis.protection_design), named with the audit's
    flag when they keep one copy."""
    above = evidence.count(int((wolf10["lowest ratio"] > 1).sum()), len(wolf10), of=Replicate.CENSUS,
                           quantity="phases where Wolf is above Tianhe-2E per client node in every pair of runs")
    wolf = (f"{DAOS_KEEPS[UNPROTECTED]}, flagged {UNPROTECTED_FLAG}" if protection == {UNPROTECTED} else
            DAOS_KEEPS[PROTECTED] if protection == {PROTECTED} else FIRST)
    return Finding(text=f"On {TEN_NODES} client nodes in {year}, Intel's Wolf ({wolf}) is above Tianhe-2E (Lustre) per "
                   f"client node in **{above.k} of {above.n} phases** over all {int(wolf10.pairs.iloc[0])} pairs of "
                   "runs (one Wolf run: a range, not an interval).", target="tab-daos-wolf-10", evidence=(above,))


def lists_finding(lists: list[pd.DataFrame]) -> Finding:
    """How many rows of seed 002's printed lists have a raw run of the same score, and with equal numbers."""
    found = evidence.count(sum(int(t["in raw logs"].sum()) for t in lists), sum(len(t) for t in lists),
                           quantity="rows of seed 002's lists with a raw run of the same score", of=Replicate.CENSUS)
    agree = sum(int((t["in raw logs"] & t["numbers agree"]).sum()) for t in lists)
    return Finding(text=f"**{found.k} of the {found.n} rows** of seed 002's two printed lists have a raw run with the "
                   f"same score here, {agree} with score, bandwidth and metadata equal at two decimals.",
                   target="tab-daos-lists-historic", evidence=(found,))


def gekko_finding(gekko: pd.DataFrame) -> Finding:
    """Whether any of EPCC's NextGENIO GekkoFS runs has the score seed 004's slide prints."""
    equal = evidence.count(int(gekko.equals_seed_004.sum()), len(gekko), of=Replicate.CENSUS,
                           quantity="NextGENIO GekkoFS runs with the score seed 004's slide prints")
    runs = plural(len(gekko), "run")
    text = (f"None of the {runs} of EPCC's NextGENIO GekkoFS here has the score printed on seed 004's slide."
            if not equal.k else
            f"{equal.k} of the {runs} of EPCC's NextGENIO GekkoFS has the score printed on seed 004's slide.")
    return Finding(text=text, target="tab-daos-gekko", evidence=(equal,))
