"""The nominal rate of one link of a named network (data/reference/network_rates.csv: a row a network generation,
the spellings it matches and where its rate is defined): what turns the network a run's files or a talk name
("InfiniBand HDR", "IB-EDR", "100GbE", "two HDR200 connections") into Gbit/s for the setup record (iobook.database.setups).
A name that states no generation and no rate ("InfiniBand", "Ethernet", "Omnipath") matches no row: its rate is
not stated, never guessed."""
from __future__ import annotations

import csv
import re
from functools import cache
from typing import NamedTuple

from . import reference

NETWORK_RATES_CSV = reference.path("network_rates.csv")
# the group of a row's spellings that reads the rate a name carries ("100GbE"), in a row that states none
RATE_IN_NAME = "gbit_s"
# a count printed as a word ("One HDR200-Infiniband connection per client", "two HDR200 connections")
COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


class Rate(NamedTuple):
    gbit_s: float
    source: str  # the row's network and where its rate is defined


@cache
def _rows() -> tuple[tuple[re.Pattern, dict[str, str]], ...]:
    with NETWORK_RATES_CSV.open(encoding="utf-8") as f:
        return tuple((re.compile(row["spellings"], re.IGNORECASE), row) for row in csv.DictReader(f))


def rate(name: str | None) -> Rate | None:
    """The nominal rate of one link of the network `name` and its source, from the rows whose spellings occur in
    it; None where none does, or where they disagree (a name of two generations states neither)."""
    found = []
    for spellings, row in _rows() if name else ():
        if m := spellings.search(name):
            gbit_s = float(row["gbit_s"] or m[RATE_IN_NAME])
            found.append(Rate(gbit_s=gbit_s, source=f"{row['network']}: {gbit_s:g} Gbit/s a link ({row['source']})"))
    return found[0] if len({r.gbit_s for r in found}) == 1 else None


def links(printed: str) -> tuple[int, Rate] | None:
    """(links, rate of one) a phrase states: its first word the count ("One", "two", "2"), the network it names
    the rate; None where it states either not."""
    word, _, network = printed.strip().partition(" ")
    count = int(word) if word.isdigit() else COUNT_WORDS.get(word.lower())
    link_rate = rate(network)
    return (count, link_rate) if count and link_rate else None
