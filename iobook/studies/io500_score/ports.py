"""The census of runs above one client port (issue 46), beside the validity audit and not one of its flags: the IO500
runs whose bandwidth phases move more per client node than one port carries (client_bounds.port_rate: the client
links' rate its files state, else its data servers' network's, else the fastest client port of its date). A node may
have several ports, which a run's files need not state, so such a run is counted, not flagged: it moved its data over
several ports a node (multi-rail), or read it from a client's memory. Each phase's command line says which could be:
a write that fsyncs at close (-e) crossed the network within its time, whatever the client caches; a read of what
another node wrote (-C) through DAOS's user-space library (-a DFS) or O_DIRECT passes no client page cache."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...database import client_bounds, store
from ...inference import evidence

CENSUS = evidence.Replicate.CENSUS
PATHS = {"dfs": "DFS API", "o_direct": "POSIX, O_DIRECT"}  # the I/O paths that bypass a client's page cache
BUFFERED = "buffered"
NOT_STATED = "not stated"


def port_census(con) -> pd.DataFrame:
    """Every bandwidth phase of the runs (each counted once) with client nodes and a known port rate
    (queries/port_census.sql, queries/port_setup.sql): what a client node moved (node_gbit_s), one client port's rate
    (port_gbit_s, port: what it is), whether the phase is above it (above) and its I/O path as its command line shows
    it (path, with reordered -C and fsync -e)."""
    phases = store.frame(con, __package__, "port_census")
    fields: dict[int, dict[str, tuple[str, str]]] = {}
    for row in store.frame(con, __package__, "port_setup").itertuples():
        fields.setdefault(row.run_id, {})[row.field] = (row.value, row.source)
    runs = phases.drop_duplicates("run_id")
    ports = {run.run_id: client_bounds.port_rate(fields.get(run.run_id, {}),
                                                 run.started if isinstance(run.started, str) else None,
                                                 None if pd.isna(run.year) else int(run.year))
             for run in runs.itertuples()}
    ports = {run_id: port for run_id, port in ports.items() if port is not None}
    phases = phases[phases.run_id.isin(ports)].copy()
    phases["port_gbit_s"] = phases.run_id.map(lambda r: ports[r].gbit_s)
    phases["port"] = phases.run_id.map(lambda r: ports[r].label)
    phases["above"] = phases.node_gbit_s > phases.port_gbit_s
    stated = phases.dfs.notna()  # a phase without a command line (both flags unknown)
    flags = [stated & phases[flag].astype("boolean") for flag in PATHS]
    phases["path"] = np.select([~stated, *flags], [NOT_STATED, *PATHS.values()], BUFFERED)
    return phases.reset_index(drop=True)


def census_records(census: pd.DataFrame) -> tuple[evidence.Count, ...]:
    """How many runs the census tests and how many move more per client node than one port in a phase (a census:
    counts, no interval); then, of the phases above one port, the writes that fsync at close and the reads of
    another node's data (-C) past the page cache (PATHS), each out of its kind where there are any."""
    above = census[census.above]
    runs = evidence.count(k=above.run_id.nunique(), n=census.run_id.nunique(), of=CENSUS,
                          quantity="runs a bandwidth phase of which moves more per client node than one port")
    writes, reads = (above[above.phase.str.endswith(kind)] for kind in ("-write", "-read"))
    synced = evidence.count(k=int(writes.fsync.fillna(False).astype(bool).sum()), n=len(writes), of=CENSUS,
                            quantity="write phases above one port that fsync at close (-e)")
    direct = evidence.count(
        k=int((reads.reordered.fillna(False).astype(bool) & reads.path.isin(PATHS.values())).sum()), n=len(reads),
        of=CENSUS, quantity="read phases above one port reading another node's data (-C) past the page cache")
    return runs, *(c for c in (synced, direct) if c.n)


def census_text(records: tuple[evidence.Count, ...]) -> str:
    """The audit finding's clause on the census (`records`: census_records): how many runs it tests and finds above
    one port."""
    runs = records[0]
    if not runs.n:
        return ""
    # the table is shown only with a run above one port (the notebook's only-if:has_port_runs): no link to it else
    link = " ({numref}`tab-io500-ports`)" if runs.k else ""
    return f" Not flagged: {runs.k:,} of {runs.n:,} runs need more per client node than one port{link}."


def paths_text(records: tuple[evidence.Count, ...]) -> str:
    """What the command lines of the phases above one port say of where their data came from (MyST; `records`:
    census_records), for the census's paragraph: empty when no phase is above one port."""
    _, *paths = records
    if not paths:
        return ""
    said = {"write": "write phases fsync at close (`-e`)",
            "read": "read phases read what another node wrote (`-C`) through DAOS's DFS library or O_DIRECT"}
    text = "Of the phases above one port, " + " and ".join(
        f"{c.k:,} of {c.n:,} {said[c.quantity.split()[0]]}" for c in paths)
    if all(c.k == c.n for c in paths):
        return text + (": no client's memory served them, so the data crossed the network, over several ports a node "
                       "(multi-rail).")
    return text + ": the others may have come from a client's memory, else over several ports a node (multi-rail)."


def census_table(census: pd.DataFrame) -> pd.DataFrame:
    """The runs above one port, one row each: the run, its system, its writes and its reads above one port with what
    a client node moved (Gbit/s), one port's rate and what it is, and the I/O path of those phases."""
    rows = []
    for run_key, above in census[census.above].groupby("run_key", sort=True):
        first = above.iloc[0]
        moved = {kind: ", ".join(f"{phase.removesuffix(kind)} {gbit:,.0f}" for phase, gbit
                                 in zip(above.phase, above.node_gbit_s) if phase.endswith(kind))
                 for kind in ("-write", "-read")}
        rows.append({"run": run_key,
                     "system": ", ".join(str(v) for v in (first.institution, first.system) if isinstance(v, str)),
                     "writes above, Gbit/s a node": moved["-write"] or "–",
                     "reads above, Gbit/s a node": moved["-read"] or "–",
                     "one port, Gbit/s": f"{first.port_gbit_s:g}: {first.port}",
                     "I/O path": ", ".join(dict.fromkeys(above.path))})
    return pd.DataFrame(rows, columns=["run", "system", "writes above, Gbit/s a node", "reads above, Gbit/s a node",
                                       "one port, Gbit/s", "I/O path"])
