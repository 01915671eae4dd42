"""The MLPerf Storage chapter's tables, each narrow enough for the page at 1280 px: a table cell never breaks a name,
so a system is named by what sets it apart from its organisation's other systems (its name less the prefix they
share, cut at a '_' or '-'); the downloads, the Data chapter and the views keep the names whole."""
from __future__ import annotations

import os

import pandas as pd

from ...book import comparison, present
from ...book.report import Table
from ...inference import evidence
from ...inference.units import MIB
from . import audit


def short_names(frame: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(organisation, system) -> 'organisation / name less the prefix its organisation's systems share', over every
    pair of `frame` (columns organisation, system); an organisation's only system keeps its name whole."""
    names = {}
    for organisation, group in frame[["organisation", "system"]].drop_duplicates().groupby("organisation"):
        common = os.path.commonprefix(list(group.system)) if len(group) > 1 else ""
        prefix = common[:max(common.rfind("_"), common.rfind("-")) + 1]
        names |= {(organisation, s): f"{organisation} / {s[len(prefix):]}" for s in group.system}
    return names


def _named(frame: pd.DataFrame, names: dict[tuple[str, str], str]) -> list[str]:
    """Each row's short name; a report whose folder holds no run has none."""
    return [names.get(pair, "no run of its own") for pair in zip(frame.organisation, frame.system)]


def results(frame: pd.DataFrame, names: dict[tuple[str, str], str]) -> Table:
    """Each result: its system (`names`: short_names) and benchmark in one cell (a column of its own did not fit the
    page), hosts and accelerators, its runs' mean MiB/s and its best run's share of its hosts' links."""
    shown = pd.DataFrame({"result": [f"{n} / {b}" for n, b in zip(_named(frame, names), frame.benchmark)],
                          "hosts": frame.hosts, "accelerators": frame.accelerators, "MiB/s": frame.mib_s,
                          "of links (%)": 100 * frame.share})
    return Table(frame=shown, formats={"MiB/s": ",.0f", "of links (%)": ".1f"})


def system_clients(frame: pd.DataFrame, names: dict[tuple[str, str], str]) -> Table:
    """Each readable system description's client side: its clients, a client's links, the most accelerators one of
    its runs simulates and those per client, and the runs naming it (its storage side is system_storage's: one table
    of both did not fit the page)."""
    shown = pd.DataFrame({"system": _named(frame, names), "clients": frame.clients,
                          "links a client (Gbit/s)": frame.client_link_gbps, "accelerators": frame.accelerators,
                          "per client": frame.accelerators / frame.clients.where(frame.clients > 0),
                          "runs": frame.runs})
    return Table(frame=shown, formats={"links a client (Gbit/s)": ",.0f", "accelerators": ",.0f", "per client": ".3g"})


def system_storage(frame: pd.DataFrame, names: dict[tuple[str, str], str]) -> Table:
    """Each readable system description's storage side: the storage hosts it lists, the data drives it states (as
    written, and the system's where it lists the nodes that hold them), the most accelerators one of its runs
    simulates per drive and storage host, and the drives' read bound where a drive's peak is written with its unit."""
    storage = frame.storage_hosts_listed.where(frame.storage_hosts_listed > 0)
    shown = pd.DataFrame({"system": _named(frame, names), "storage hosts": storage,
                          "data drives": [_drives(stated, total) for stated, total
                                          in zip(frame.data_drives_stated, frame.data_drives_total)],
                          "accelerators per drive": frame.accelerators / frame.data_drives_total,
                          "per storage host": frame.accelerators / storage,
                          "drives' read (MB/s)": frame.drives_read_mb_per_s})
    return Table(frame=shown, formats={"storage hosts": ",.0f", "drives' read (MB/s)": ",.0f",
                                       **{c: ".3g" for c in ("accelerators per drive", "per storage host")}})


def _drives(stated: float, total: float) -> str | None:
    """The data drives as a description states them, with the system's in brackets where it lists the nodes holding
    them and they differ (Hammerspace: 13 a storage node, 74 in all)."""
    if pd.isna(stated):
        return None  # the table shows a missing value as every table does
    if pd.isna(total) or total == stated:
        return f"{stated:,.0f}"
    return f"{stated:,.0f} ({total:,.0f})"


def workloads(frame: pd.DataFrame) -> Table:
    """Each workload and accelerator type: DLIO's config, its rate at 100 % AU and the runs' range per accelerator."""
    shown = pd.DataFrame({
        "workload": frame.workload + " " + frame.accelerator.fillna(""),
        "computation (s)": frame.computation_time_s, "batch": frame.batch_size,
        "record (MiB)": frame.record_length_bytes / MIB, "at 100 % AU (MiB/s)": frame.full_au,
        "runs' range (MiB/s)": [present.span([a, b], ",.0f") for a, b in zip(frame.lowest, frame.highest)],
        "systems": frame.systems})
    return Table(frame=shown, formats={"computation (s)": ".4g", "record (MiB)": ",.3g", "at 100 % AU (MiB/s)": ",.0f"})


def accelerators(compared: list[evidence.Comparison]) -> Table:
    """The comparison kit's table of H100 over A100 (what the configs predict is the workloads table's rates at 100 %
    AU, and the finding's: a column of its own did not fit the page)."""
    return comparison.table(compared)


def audit_codes(runs: pd.DataFrame, flags: pd.DataFrame) -> Table:
    """audit.table with each code's rule and source in one cell (two cells of prose did not fit the page)."""
    table = audit.table(runs, flags)
    rule = table.rule + " (source: " + table.source + ")"
    return Table(frame=table.drop(columns=["rule", "source"]).assign(rule=rule)[
        ["code", "rule", *[c for c in table.columns if c.startswith(("runs", "results"))]]])


def reports(every_report: pd.DataFrame, names: dict[tuple[str, str], str]) -> Table:
    """Every report, those that do not come back first: its result (system and the folders under it), the mean it
    publishes beside its runs' mean, and whether its stdev comes back too (reports.get_reports)."""
    frame = every_report.sort_values(["reproduced", "result"], kind="stable")
    folders = frame.result.str.split("/", n=2).str[2].fillna("").str.replace("/", " / ")
    shown = pd.DataFrame({"result": [f"{n} / {f}" if f else n for n, f in zip(_named(frame, names), folders)],
                          "published (MiB/s)": frame.published_mb_per_s.to_numpy(),
                          "from its runs (MiB/s)": frame.mb_per_s.to_numpy(),
                          "stdev too": frame.stdev_back.map({True: "yes", False: "no"}).to_numpy()})
    return Table(frame=shown, formats={"published (MiB/s)": ",.0f", "from its runs (MiB/s)": ",.0f"})


def claims(beside: pd.DataFrame, names: dict[tuple[str, str], str]) -> Table:
    """Every claim of the supplements (claimed: printed, a published figure) beside what the files show (measured:
    from the runs), the result named by its system's short name (short_names) and its folders."""
    parts = beside.result.str.split("/", n=2)
    result = [f"{names.get((p[0], p[1]), ' / '.join(p[:2]))} / {p[2].replace('/', ' / ')}" if len(p) == 3 else ""
              for p in parts]
    shown = beside.assign(result=result)
    return Table(frame=shown.rename(columns={"claimed": "claimed (printed)", "measured": "measured (files)"}),
                 formats={"measured (files)": ",.4g"})


def claims_compared(compared: list[evidence.Comparison]) -> Table:
    """The comparison kit's table of each rate and AU claim: its result's runs over the printed figure."""
    return comparison.table(compared, reference="claimed")
