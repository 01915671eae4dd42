"""The IO500 score, the one implementation of it: recomputed from a run's phase values as the benchmark's scripts
and app compute it (each generation's rule), checked against the score its files print, and recomputed again with
each phase's value from its own IOR/mdtest log (scores_from_logs). Pure but for scores_from_logs, which reads the
runs io500_runs wrote."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..parsers.io500 import EXTENDED_PHASES, GIB, STANDARD_BW_PHASES, STANDARD_MD_PHASES
from .sql import query

SCORE_TOLERANCE = 0.001  # recomputed vs reported score: 0.1 %


@dataclass(frozen=True, kw_only=True)
class Scores:
    bw_gib_s: float | None
    md_kiops: float | None
    score: float | None  # sqrt(BW * MD), GiB/s and kIOPS
    x_bw_gib_s: float | None = None  # extended mode: every scored phase
    x_md_kiops: float | None = None
    x_score: float | None = None


def geometric_mean(values: list[float]) -> float | None:
    """As the IO500 app: a zero phase makes the mean zero; no values or a negative one gives None."""
    if not values or any(v is None or v < 0 or math.isnan(v) for v in values):
        return None
    if any(v == 0 for v in values):
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def required_md_phases(rule: str) -> tuple[str, ...]:
    # The 2017 list had no mdtest-hard-read phase: its MD score is the mean of 7 rates.
    return tuple(p for p in STANDARD_MD_PHASES if not (rule == "sc17-product" and p == "mdtest-hard-read"))


def recompute(values: dict[str, float], rule: str = "sqrt", extended: bool = False) -> Scores:
    """values: phase -> GiB/s (ior-*) or kIOPS. BW = geometric mean of the 4 ior phases, MD = of the 8
    metadata phases incl. find, score = sqrt(BW * MD); extended adds every extended phase to both."""
    def mean_of(phases) -> float | None:
        return geometric_mean([values.get(p) for p in phases])

    bw = mean_of(STANDARD_BW_PHASES)
    md = mean_of(required_md_phases(rule))
    score = math.sqrt(bw * md) if bw is not None and md is not None else None
    if not extended:
        return Scores(bw_gib_s=bw, md_kiops=md, score=score)
    present = [p for p in EXTENDED_PHASES if p in values]
    x_bw = mean_of(STANDARD_BW_PHASES + tuple(p for p in present if p.startswith("ior")))
    x_md = mean_of(STANDARD_MD_PHASES + tuple(p for p in present if not p.startswith("ior")))
    x_score = math.sqrt(x_bw * x_md) if x_bw is not None and x_md is not None else None
    return Scores(bw_gib_s=bw, md_kiops=md, score=score, x_bw_gib_s=x_bw, x_md_kiops=x_md, x_score=x_score)


def native_score(bw_gib_s: float, md_kiops: float, rule: str) -> float:
    """The score on the scale its script printed: sqrt(BW x MD) since 2018; the first bash scripts
    printed BW x MD, and the 2017 script BW in MB/s (10^6 B) times MD in IOPS."""
    if rule == "sc17-product":
        return bw_gib_s * GIB / 1e6 * md_kiops * 1000
    return bw_gib_s * md_kiops if rule == "product" else math.sqrt(bw_gib_s * md_kiops)


def rounding_bound(values: dict[str, float], resolutions: dict[str, float], rule: str) -> float:
    """Relative error of the recomputed score that the printed phase values' rounding can explain:
    score ~ prod(bw_i)^(k/n_bw) * prod(md_j)^(k/n_md), with k = 1/2 for sqrt and 1 for products."""
    k = 0.5 if rule == "sqrt" else 1.0
    md_phases = required_md_phases(rule)
    return sum(k / len(group) * resolutions[p] / values[p]
               for group in (STANDARD_BW_PHASES, md_phases) for p in group if values.get(p))


def relative_difference(a: float, b: float) -> float:
    return abs(a - b) / abs(b) if b else (0.0 if a == 0 else math.inf)



def check_score(scores: Scores, reported: dict | None, rule: str, missing: list[str],
                bound: float) -> tuple[bool | None, str]:
    """Does the recomputed score equal the reported one within 0.1 %? (None: nothing to compare.)"""
    if reported is None:
        return None, "no reported score: the run did not finish"
    f = reported
    if f["reported_score"] == 0 and f["reported_score_invalid"]:
        return None, "script withheld the score of an invalid run (printed 0)"
    if scores.score is None:
        return None, "cannot recompute: missing phases " + ", ".join(missing)
    mine, theirs = native_score(scores.bw_gib_s, scores.md_kiops, rule), f["reported_score"]
    diff = relative_difference(mine, theirs)
    if diff <= SCORE_TOLERANCE:
        return True, f"equal within {diff:.4%}"
    why = f"recomputed {mine:.6g} vs reported {theirs:.6g} ({diff:.3%})"
    if diff <= bound:
        why += f": within the rounding of the printed phase values (up to {bound:.2%})"
    return False, why



def scores_from_logs(con) -> list[dict]:
    """Each sqrt-rule run's score recomputed (by `recompute`, the one implementation of the IO500 score) with
    each phase's value from its own IOR/mdtest log where io500_phase_logs links one, the summary's otherwise
    (find has no log); runs with no linked log or a standard phase missing have no row. A bash summary prints
    phases to 3 decimals, which can move a recomputed score by up to ~0.7 %; the logs keep the digits."""
    by_run: dict[int, dict] = {}
    for run_id, phase, value, from_log, reported in con.execute(
            query(__package__, "store/io500_phases_from_logs")).fetchall():
        run = by_run.setdefault(run_id, {"values": {}, "from_logs": 0, "reported": reported})
        run["values"][phase] = value
        run["from_logs"] += bool(from_log)
    rows = []
    for run_id, run in by_run.items():
        if not run["from_logs"] or not set(STANDARD_BW_PHASES + STANDARD_MD_PHASES) <= run["values"].keys():
            continue
        # a log that prints 0 (or nothing) for a phase the summary scored measured nothing: no score
        measured = all(v is not None and v > 0 for v in run["values"].values())
        scores = recompute(run["values"]) if measured else Scores(bw_gib_s=None, md_kiops=None, score=None)
        rows.append({"run_id": run_id, "bw_gib_s": scores.bw_gib_s, "md_kiops": scores.md_kiops,
                     "score": scores.score, "phases_from_logs": run["from_logs"], "reported_score": run["reported"],
                     "matches_reported": None if scores.score is None or run["reported"] is None
                     else relative_difference(scores.score, run["reported"]) <= SCORE_TOLERANCE})
    return rows
