"""The IO500 archive's raw phase logs as data (after Kunkel et al., arXiv 2605.02194): per counted IO500 run and
phase, where IOR's time went (open, transfers, close), how far apart the ranks stood at the stonewall of the write
phases and how long the wear-down after it took, and how evenly pfind's find phase spread its work over the ranks.
Each table is one query of queries/ that a reader can run as it stands."""
from __future__ import annotations

import pandas as pd

from ...database import store


def close_time(con) -> pd.DataFrame:
    """Per counted run and IOR phase: open_s, wrrd_s, close_s, total_s of its log's result row, open_share and
    close_share of total_s (queries/close_time.sql)."""
    return store.frame(con, __package__, "close_time")


def wear_down(con) -> pd.DataFrame:
    """Per counted run and write phase (IOR and mdtest) whose log states the ranks' progress at the stonewall: its
    min, max (and mdtest's mean), slowest_share = min / max, and the wear-down time after the deadline
    (queries/wear_down.sql); where IOR's per-rank CSV is there, the wear-down rank by rank: the median rank's,
    the slowest's and their ratio (queries/rank_wear_down.sql)."""
    ranks = store.frame(con, __package__, "rank_wear_down")
    return store.frame(con, __package__, "wear_down").merge(ranks, on="source_id", how="left")


def pfind_imbalance(con) -> pd.DataFrame:
    """Per pfind CSV of a counted run: its ranks, the max / mean of directory entries read (checked) and of files
    scanned (total) over ranks, the busiest rank's share of each, and ranks that read or did nothing
    (queries/pfind_imbalance.sql)."""
    return store.frame(con, __package__, "pfind_imbalance")
