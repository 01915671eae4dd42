"""The most one client node's network links can move, for runs whose files do not state both how many links a client
has and their rate (setups' field `client_link_bound_gbit_s`, read by the ABOVE_CLIENT_LINK flag of io500_run_flags).

How many: the ports a Storage Scale cluster's `mmlsconfig` gives its client nodes (`verbsPorts mlx5_0/1`: one port),
else the links the questionnaire states; a run whose files name neither is not tested (a node may have several
ports, which its files need not state: one port assumed flagged Aurora's four runs). At what rate: the client links' rate
the files state, else the rate the data servers' network names (the fabric the data crosses: 'InfiniBand HDR'), else
the fastest port a client's host adapter offered when the run ran (data/reference/fastest_client_links.csv: a
dated table, each row with its source). A phase that needs more per client node than that moved data over more links
than its files show, or data that did not cross the network.
"""
from __future__ import annotations

import csv
import re
from functools import cache
from typing import NamedTuple

from . import reference
from .networks import NETWORK_RATES_CSV

FASTEST_CLIENT_LINKS_CSV = reference.path("fastest_client_links.csv")
# a client node class of mmlsconfig ('client', 'clients'); 'common' is every node without a class of its own
CLIENT_CLASS = re.compile(r"clients?", re.IGNORECASE)
COMMON_CLASS = "common"
_DATE = re.compile(r"(\d{4})[-.](\d{2})[-.](\d{2})")


@cache
def fastest_links() -> tuple[dict[str, str], ...]:
    """The rows of FASTEST_CLIENT_LINKS_CSV, oldest first."""
    with FASTEST_CLIENT_LINKS_CSV.open(encoding="utf-8") as f:
        return tuple(sorted(csv.DictReader(f), key=lambda r: r["from"]))


def fastest_link(started: str | None, year: int | None) -> dict[str, str] | None:
    """The row of the fastest client port available when a run started (its start date, else 1 January of its
    year); None before the table's first row or when neither is known."""
    when = _DATE.search(started or "")
    day = f"{when[1]}-{when[2]}-{when[3]}" if when else f"{year:04d}-01-01" if year else None
    rows = [r for r in fastest_links() if day is not None and r["from"] <= day]
    return rows[-1] if rows else None


def client_ports(rows: list[tuple]) -> dict[int, tuple[int, str]]:
    """run_id -> (ports of a client node, where) from mmlsconfig's verbsPorts rows (run_id, scope, value, line, file):
    a client class's ('client', 'clients') else the common value's, as many ports as names."""
    out: dict[int, tuple[int, str, bool]] = {}
    for run_id, scope, value, line, name in rows:
        client = bool(CLIENT_CLASS.fullmatch(scope or ""))
        if client or scope == COMMON_CLASS:
            ports = len(value.split())
            where = f"{ports} port{'s' if ports > 1 else ''} a client ({name} line {line}: verbsPorts {value} [{scope}])"
            if run_id not in out or (client and not out[run_id][2]):
                out[run_id] = (ports, where, client)
    return {run_id: (ports, where) for run_id, (ports, where, _) in out.items()}


class Port(NamedTuple):
    """The rate of one client port (Gbit/s), what it is in a few words (a table's cell) and its source in full."""
    gbit_s: float
    label: str
    why: str


def port_rate(fields: dict[str, tuple[str, str]], started: str | None, year: int | None) -> Port | None:
    """One client port's rate from a run's setup fields (value, source): the client links' rate its files state,
    else its data servers' network's (the fabric the data crosses), else the fastest client port of its date
    (fastest_link); None where none is known. The census of runs above one port (the IO500 score chapter) reads it
    for every run, `bound` for the runs whose files name their ports."""
    if "client_link_gbit_s" in fields:
        rate, why = fields["client_link_gbit_s"]
        return Port(float(rate), "its client link, stated", why)
    if "server_link_gbit_s" in fields and "server_network" in fields:
        network, where = fields["server_network"]
        return Port(float(fields["server_link_gbit_s"][0]), f"its servers' {network}",
                    f"a link of its data servers' network ({where} '{network}', {NETWORK_RATES_CSV.name})")
    if row := fastest_link(started, year):
        return Port(float(row["gbit_s"]), f"{row['network']}, fastest from {row['from'][:4]}",
                    f"{row['network']}, the fastest client port from {row['from']} ({FASTEST_CLIENT_LINKS_CSV.name})")
    return None


def bound(fields: dict[str, tuple[str, str]], ports: tuple[int, str] | None, started: str | None,
          year: int | None) -> tuple[str, str] | None:
    """(Gbit/s, how) one client node's links move at most, from a run's setup fields (value, source) and its
    verbsPorts; None where the files state both the links and their rate (the ABOVE_LINKS flag reads those), name no
    ports, or no rate is known (port_rate)."""
    if "client_links" in fields and "client_link_gbit_s" in fields:
        return None
    if ports is not None:
        count, how = ports
    elif "client_links" in fields:
        count = int(fields["client_links"][0])
        how = f"{fields['client_links'][0]} link{'' if count == 1 else 's'} a client ({fields['client_links'][1]})"
    else:
        return None
    if (port := port_rate(fields, started, year)) is None:
        return None
    return f"{count * port.gbit_s:g}", f"{how} x {port.gbit_s:g} Gbit/s, {port.why}"
