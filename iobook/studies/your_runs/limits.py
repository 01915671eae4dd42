"""Your runs against what their setup allows: each run whose log's setup (a setup.yml beside the data: client links
and their rate, data servers' links, drives and their rate; the client nodes from the log itself) states a limit,
its bandwidth as a share of the least one (iobook.inference.bounds: the rule the IO500 audit reads too)."""
from __future__ import annotations

import pandas as pd

from ...book import present
from ...book.report import Finding, Table
from ...database import store
from ...inference import bounds, evidence
from ...inference.units import GIB, MIB

# the limits table: column of get_limits -> name shown, the measure first; the run by its file (its parameters, a
# line of prose each, are the configuration tables')
LIMIT_COLUMNS = {"bw_mib_s": "bandwidth (MiB/s)", "share": "share of limit", "bound_mib_s": "limit (MiB/s)",
                 "binding": "least limit", "stated": "as stated", "label": "label", "tool": "tool",
                 "workload": "workload", "file": "file"}


def get_limits(con, runs: pd.DataFrame) -> pd.DataFrame:
    """Every run with a bandwidth whose log's setup states a limit (queries/bounds.sql), with the least limit in
    MiB/s and the run's bandwidth as a share of it, highest share first."""
    rated = runs[runs["bw_mib_s"].notna()]
    found = store.frame(con, __package__, "bounds", [sorted({int(i) for i in rated["source_id"]})])
    rated = rated.merge(found, on="source_id")
    rated = rated.assign(bound_mib_s=rated["bound_gib_s"] * GIB / MIB)
    rated = rated.assign(share=rated["bw_mib_s"] / rated["bound_mib_s"])
    return rated.sort_values(["share", "file"], ascending=[False, True], kind="stable").reset_index(drop=True)


def records(limits: pd.DataFrame, runs: pd.DataFrame) -> list[evidence.Count]:
    """The censuses (bounds.censuses over the runs with a bandwidth), and how many runs move more than their least
    limit: data that did not cross it, as from a client's cache; none where no run's setup states a limit (no
    finding says so: the section is left out)."""
    if limits.empty:
        return []
    above = evidence.count(k=int((limits["share"] > 1).sum()), n=len(limits), of=evidence.Replicate.CENSUS,
                           quantity="runs above their setup's least limit")
    return [*bounds.censuses(limits["share"], int(runs["bw_mib_s"].notna().sum())), above]


def limits_table(limits: pd.DataFrame) -> Table:
    return Table(frame=limits[list(LIMIT_COLUMNS)].rename(columns=LIMIT_COLUMNS),
                 formats={"bandwidth (MiB/s)": ",.1f", "limit (MiB/s)": ",.1f", "share of limit": ".0%"})


def limits_finding(limits: pd.DataFrame, found: list[evidence.Count]) -> Finding | None:
    """'k of n runs whose setup states a limit reach 50 % of it', with the highest share and the runs above it."""
    if not found:
        return None
    stating, reaching, above = found
    top = limits.iloc[0]
    text = (f"{stating.k:,} of {stating.n:,} runs state a limit of their setup; {reaching.k:,} of those reach "
            f"{bounds.REACHES_LIMIT:.0%} of it (highest: {top['share']:.0%}, {top['tool']} "
            f"{present.md_escape(top['workload'])} of {present.md_escape(top['file'])})")
    if above.k:
        text += f"; {above.k:,} of them moved more than it: data that did not cross it, as from a cache"
    return Finding(text=text + ".", target="tab-runs-limits", evidence=tuple(found))
