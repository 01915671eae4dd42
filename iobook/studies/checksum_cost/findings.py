"""The Checksum study's sentences from its records: IBM's published result (with the footnote that says what work its
builds were measured in), the memory factor, the setting in IBM's IO500 listings, and the local method's outcome,
the machine's contention and the direct/buffered gap with its candidate cause."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Finding
from ...database import io500_runs
from ...inference import evidence
from ...inference.evidence import Comparison, Count, Estimate
from .analysis import PHASES
from .seed import BUILDS, SETTING, footnote_quote


def published_finding(pub: pd.DataFrame, footnote: pd.Series) -> Finding:
    """IBM's result as the slide prints it, with the build its footnote says it came from (the talk credits the
    change to the trailer checksum): lab measurements of development builds, one value per build, so no interval;
    each printed figure is its record. At most 30 words: on a database without local runs it leads the page."""
    v = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    figures = tuple(evidence.described(v[row, build], quantity=f"{row}, {build}", unit=unit, n=1,
                                       replicate=evidence.Replicate.PUBLISHED, how="one figure the slide prints")
                    for row, unit in (("IOR Seq Read BW", "GB/s"), ("Server / CPU Idle", "%")) for build in (ga, tc))
    return Finding(text=f"IBM: GA vs trailer-checksum build from “{footnote_quote(footnote)}”: "
                        f"{v['IOR Seq Read BW', ga]:g} → {v['IOR Seq Read BW', tc]:g} GB/s read, server CPU idle "
                        f"{v['Server / CPU Idle', ga]:g} → {v['Server / CPU Idle', tc]:g} % {{cite:p}}`lewars2023` "
                        "[one value each]", target="tab-checksum-published", evidence=figures)


def memory_factor_text(factors: pd.DataFrame, pub: pd.DataFrame, record: Count, footnote: pd.Series) -> str:
    """What the memory-factor table shows, with its numbers and how many printed factors the per-node reading
    reproduces within the slide's rounding (seed.rounding_count), and what the footnote leaves of the slide's
    credit to the checksum."""
    v = pub.set_index(["row", "column"])["value"]
    ga, tc = BUILDS
    server, client = (factors[factors.side == side].set_index("build") for side in ("Server", "Client"))
    return (f"Memory bandwidth ÷ all I/O bandwidth gives {', '.join(f'{w:.2f}' for w in factors.whole)}: none of "
            f"the printed factors. The memory factor reads as **bytes of memory traffic on a node per byte of I/O "
            f"that node delivers**: about {client.per_node.iloc[0]:.1f} on a client with either build, and on the "
            f"servers {server.per_node[ga]:.2f} → {server.per_node[tc]:.2f} (printed ~{server.printed[ga]:g} → "
            f"~{server.printed[tc]:g}) while the delivered bandwidth rose. The slide rounds its inputs (GB/s to "
            f"whole numbers) and its factors (to a tenth): within that rounding this reading reproduces {record.k} of "
            f"{record.n} printed factors, " + ", ".join(f"{r.per_node:.2f} for ~{r.printed:g}" for r in factors[
                ~factors.per_node_matches].itertuples()) + " included. That is the slide's point, which it credits to "
            f"the trailer checksum: each byte served cost the servers less memory traffic and, per the CPU idle row, "
            f"less CPU (idle {v['Server / CPU Idle', ga]:g} % → {v['Server / CPU Idle', tc]:g} %), while the clients "
            f"spent more CPU (idle {v['Client / CPU Idle', ga]:g} % → {v['Client / CPU Idle', tc]:g} %). Its footnote "
            f"says the measurements were made in “{footnote_quote(footnote)}” (seed 000 line {footnote.line}). "
            "Client-side GNR, by its name GPFS Native RAID (declustered-RAID) work done on the clients, could by "
            "itself shift CPU and memory traffic from the servers to the clients: the table cannot tell how much of "
            "the change is the checksum's.")


def memory_factor_finding(factors: pd.DataFrame, record: Count) -> str:
    """Which reading of the slide's undefined memory factor reproduces its printed values, and how closely."""
    return (f"The slide's memory factor is memory traffic per byte a node delivers: {record.k} of {record.n} printed "
            "values reproduced within the slide's rounding (" + ", ".join(
                f"{r.per_node:.2f} for ~{r.printed:g}" for r in factors.itertuples()) + ")")


def settings_finding(listings: pd.DataFrame, record: Count) -> str:
    """What the IBM lab systems' listings set, with the builds the archive names and the systems where a
    Storage Scale RAID setting does not apply."""
    raid = listings[listings.raid & listings.sets]
    prega = listings[listings.filesystem.str.contains(io500_runs.PRE_GA, regex=False)]
    other = listings[~listings.raid]
    return (f"{evidence.phrase(record)} with a Storage Scale listing from IBM's lab systems with declustered RAID "
            f"set `{SETTING} yes` "
            + (f"[{present.span(raid.year)}; submissions {', '.join(str(s) for s in raid.submission)}"
               + (f"; {' and '.join(str(s) for s in prega.submission)} an {io500_runs.PRE_GA}" if len(prega) else "") + "]"
               if len(raid) else "")
            + (f"; {', '.join(str(s) for s in other.submission)} has no declustered RAID, where it does not apply"
               if len(other) else ""))


def method_finding(row: pd.Series, runs: pd.DataFrame) -> str:
    """The chapter's first finding, the local half as what it is: the method run on the build machine's
    contended cores, where fio hashes in software, not a storage system's checksum (the landing page lists it
    under the build machine)."""
    host = runs.set_index("run_id").loc[row["run_id"]]
    return (f"fio's software {row['verify']} on {host.cores} contended {host.cpu_model} vCPUs, not a storage "
            f"checksum: {row['mode']} {row['phase']}s at {evidence.phrase(row['record'])} of no checksum's bandwidth")


def others_records(others: pd.Series) -> tuple[Estimate, Estimate]:
    """The lowest and highest share of the CPUs other work took over the measured steps: one step's value each,
    a range, no estimate."""
    return tuple(evidence.described(value, quantity=f"other work's share of all CPUs, {which} step", unit="%",
                                    n=1, replicate=evidence.Replicate.ROUND, how=f"the {which} of the measured steps")
                 for which, value in (("lowest", others.min()), ("highest", others.max())))


def contention_finding(others: pd.Series) -> str:
    """Other work's share of the CPU over the measured steps."""
    return (f"Other work took {others.min():.0f}–{others.max():.0f} % of the build machine's CPUs in each of "
            f"{len(others)} measured steps: every local number is fio's, on what was left")


def modes_finding(record: Comparison) -> str:
    """Direct against buffered writes without a checksum, with the caveat that changes what it means: in a VM, O_DIRECT
    bypasses only the guest's page cache (host_cache_text says the rest in its section)."""
    return (f"Without a checksum, direct writes ran {evidence.phrase(record)} the bandwidth of buffered ones; in a VM "
            "O_DIRECT skips only the guest's page cache, so the host's may take direct writes and serve direct reads")


def host_cache_text(steps: pd.DataFrame, device: str) -> str:
    """Where direct I/O goes in a VM, for writes and reads alike (issue 46: the page named the host's cache for writes
    only): the bandwidth range of the direct steps without a checksum, per phase, on the virtual disk `device`."""
    direct = steps[(steps["mode"] == "direct") & (steps.verify == "none")].groupby("phase").bw_mib_s.agg(["min", "max"])
    ranges = " and ".join(f"{low:,.0f}–{high:,.0f} MiB/s for {phase}s" for phase, (low, high) in
                          direct.reindex(PHASES).dropna().iterrows())
    return (f"This run's direct I/O without a checksum ran at {ranges} on the virtual disk "
            f"{present.md_escape(device)}. A direct write or read (`direct=1`, O_DIRECT) bypasses the guest's page "
            "cache, not the host's: a VM host that keeps its virtual disks in its own page cache (a write-back cache "
            "mode) takes a direct write into memory and may serve a direct read from it, while a buffered write's "
            "`end_fsync` makes the guest flush, which the host carries through to its disk")


def quiet_check_text(threshold: float | None, steps: pd.DataFrame) -> str:
    """What the collector's quiet check (label under_load, threshold facts.load_policy.quiet_below_busy_pct)
    found around the measured steps of the runs read; empty for runs made before the check existed."""
    if "under_load" not in steps or steps.under_load.isna().all():
        return ""
    checked = steps[steps.under_load.notna()]
    return (f"The collector's quiet check found the machine busy ({threshold:g} % of all CPUs or more, before or "
            f"right after the step) around {int((checked.under_load == 'true').sum())} of {len(checked)} measured "
            "steps.")
