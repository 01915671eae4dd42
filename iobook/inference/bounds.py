"""What a run's setup lets it move at most, read as the book reads it everywhere: a run reaches its limit when its
best bandwidth moves at least REACHES_LIMIT of the least limit its setup states (views/setups.sql: setup_limits,
io500_run_bounds for IO500 runs' phases, log_bounds for fio, IOR and mdtest logs). A census, never an interval."""
from __future__ import annotations

import pandas as pd

from . import evidence

# A run "reaches" its setup's limit when its best bandwidth moves at least this share of it
REACHES_LIMIT = 0.5


def censuses(best: pd.Series, units: int) -> list[evidence.Count]:
    """How many of `units` runs state a limit of their setup (`best`: each stating run's best share of its least
    limit), and how many of those reach REACHES_LIMIT of it (none when no run states one)."""
    stating = evidence.count(k=len(best), n=units, of=evidence.Replicate.CENSUS,
                             quantity="runs whose setup states a limit (links or drives x rate)")
    if not len(best):
        return [stating]
    reaching = evidence.count(k=int((best >= REACHES_LIMIT).sum()), n=len(best), of=evidence.Replicate.CENSUS,
                              quantity=f"runs reaching {REACHES_LIMIT:.0%} of their setup's least limit")
    return [stating, reaching]
