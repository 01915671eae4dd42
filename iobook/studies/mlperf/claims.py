"""The organisations' own claims (their supplements to MLPerf Storage v1.0, data/published/mlperf_v1_supplementals.csv:
published figures, transcribed as printed) beside what their files show. A claim whose sentence names a result
(workload, accelerator type, hosts, accelerators, a part of the system's name: the table's key columns) is matched to
the organisation's results (an organisation without files here has none) that fit every key it states; a rate or an AU claim matched to one result is compared
with that result's runs (evidence.compare_to_reference: the five runs against the printed figure taken as exact); a
count of accelerators is set beside the matched results' counts, accelerators per drive beside the accelerators over
the drives the system's description states. A claim naming no result (an appliance's maximum, a storage server's
share) has no run to compare: the organisation's fastest result is shown beside it, as a measurement of another
thing."""
from __future__ import annotations

import pandas as pd

from ...database import published
from ...inference import evidence

TABLE = "mlperf_v1_supplementals"
FAMILY = "organisations' claims against their runs"
KEYS = ["system", "workload", "accelerator", "hosts", "accelerators"]
# a claim's rate unit as printed -> DLIO's MB/s (its MB is 2^20 bytes) per that unit: the supplements do not say how
# many bytes their GB and MB hold; 1,000 of DLIO's MB to a GB reads their figures as DLIO's ÷ 1,000
RATE_UNITS = {"GB/s": 1000, "MB/s": 1}
AU_UNIT = "%"
COUNT_UNIT = "accelerators"
PER_DRIVE_UNIT = "accelerators per drive"


def load() -> pd.DataFrame:
    """The claims, each with its organisation's heading in the supplement (`said_by`) and the words of its claim
    (`claim`: the row and column labels as printed around it)."""
    claims = published.load(TABLE)
    for key in ("hosts", "accelerators"):
        claims[key] = pd.to_numeric(claims[key].mask(claims[key] == ""))
    claims["said_by"] = claims.source.str.partition(": ")[2]
    claims["claim"] = claims.row + ": " + claims.column.where(claims.column != "value", "")
    claims["claim"] = claims.claim.str.removesuffix(": ")
    return claims


def results(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per result with the keys a claim may state and its runs' mean DLIO MB/s and AU."""
    return runs.groupby("result", sort=True).agg(
        organisation=("organisation", "first"), system=("system", "first"), workload=("workload", "first"),
        accelerator=("accelerator", "first"), hosts=("hosts", "max"), accelerators=("accelerators", "max"),
        mb_per_s=("mb_per_s", "mean"), au=("au_mean_pct", "mean"), links_mb_per_s=("links_mb_per_s", "max"),
        fastest=("mb_per_s", "max")).reset_index()


def matches(claim: pd.Series, every: pd.DataFrame, keys=KEYS) -> pd.DataFrame:
    """The organisation's results that fit every key the claim states (a system by a part of its name)."""
    found = every[every.organisation == claim.organisation]
    for key in keys:
        value = claim[key]
        if pd.isna(value) or value == "":
            continue
        found = found[found[key].str.contains(value, regex=False)] if key == "system" else found[found[key] == value]
    return found


def compared(claims: pd.DataFrame, runs: pd.DataFrame, every: pd.DataFrame) -> list[evidence.Comparison]:
    """Each rate or AU claim matched to exactly one result: that result's runs over the printed figure."""
    found = []
    for claim in claims.itertuples(index=False):
        claim = pd.Series(claim._asdict())
        if claim.unit not in RATE_UNITS and claim.unit != AU_UNIT or pd.isna(claim.value):
            continue
        matched = matches(claim, every)
        if len(matched) != 1:
            continue
        result = runs[runs.result == matched.result.iloc[0]]
        measured = (result.au_mean_pct if claim.unit == AU_UNIT else result.mb_per_s / RATE_UNITS[claim.unit])
        found.append(evidence.compare_to_reference(
            measured.to_numpy(dtype=float), float(claim.value), quantity=f"{claim.said_by}: {claim.claim}",
            unit=claim.unit, replicate=evidence.Replicate.RUN, family=FAMILY, label=matched.result.iloc[0],
            reference_label=f"{_printed(claim)} claimed"))
    return found


def beside(claims: pd.DataFrame, every: pd.DataFrame, systems: pd.DataFrame) -> pd.DataFrame:
    """Every claim beside what the files show of it: `measured` (a number in the claim's unit, or none), what that
    number is or why there is none, and the result it comes from."""
    drives = systems.set_index(["organisation", "system"]).data_drives_stated
    rows = []
    for claim in claims.itertuples(index=False):
        claim = pd.Series(claim._asdict())
        measured, shown, result = _measured(claim, every, drives)
        rows.append({"said by": claim.said_by, "claim": claim.claim, "claimed": _printed(claim), "measured": measured,
                     "what the files show": shown, "result": result})
    return pd.DataFrame(rows)


def _printed(claim: pd.Series) -> str:
    """The claim as printed with its unit ('69GB/s' prints it, '66' does not)."""
    return claim.printed if claim.printed.endswith(claim.unit) else f"{claim.printed} {claim.unit}"


def _measured(claim: pd.Series, every: pd.DataFrame, drives: pd.Series) -> tuple[float | None, str, str]:
    """(the files' figure in the claim's unit or None, what it is or why none, its result's key or '')."""
    if claim.organisation not in set(every.organisation):  # '' where the corpus holds none of its files
        return None, "no files of the organisation here", ""
    if claim.unit not in (*RATE_UNITS, AU_UNIT, COUNT_UNIT, PER_DRIVE_UNIT):
        return None, "not a figure of a run", ""
    if claim.unit in RATE_UNITS and not any(claim[k] != "" and not pd.isna(claim[k]) for k in KEYS):
        fastest = every[every.organisation == claim.organisation].sort_values("mb_per_s").tail(1)
        if not len(fastest):
            return None, "no result of the organisation", ""
        return (fastest.mb_per_s.iloc[0] / RATE_UNITS[claim.unit],
                "names no result: the organisation's fastest result's mean", fastest.result.iloc[0])
    if claim.unit == COUNT_UNIT:  # the claim is the count: is there a result that has it among those that fit?
        fit = matches(claim, every, [k for k in KEYS if k != "accelerators"])
        same = fit[fit.accelerators == claim.value]
        if len(same):
            return float(claim.value), "a result with that many simulated accelerators", same.result.iloc[0]
        counts = ", ".join(f"{n:,}" for n in sorted(fit.accelerators.unique()))
        return None, (f"no result that fits has that many (they have {counts})" if len(fit) else
                      "no result of the organisation with what the claim states"), ""
    fit = matches(claim, every)
    if len(fit) != 1:
        return None, (f"{len(fit)} results fit what the claim states" if len(fit) else
                      "no result of the organisation with what the claim states"), ""
    one = fit.iloc[0]
    if claim.unit in RATE_UNITS:
        return one.mb_per_s / RATE_UNITS[claim.unit], "its runs' mean", one.result
    if claim.unit == AU_UNIT:
        return one.au, "its runs' mean AU", one.result
    stated = drives.get((one.organisation, one.system))
    if pd.isna(stated):
        return None, "its description states no drives", one.result
    return one.accelerators / stated, f"its accelerators over the {stated:,.0f} drives its description states", one.result


def example(claims: pd.DataFrame, shown: pd.DataFrame, every: pd.DataFrame, row: str) -> dict | None:
    """The claim whose row label is `row`, with the result shown beside it (None where the data lack either): its
    printed figure, and the result's runs' mean in DLIO's MB/s, in bytes per second, and its hosts' links."""
    at = claims.index[claims.row == row]
    if not len(at) or not shown.loc[at[0], "result"]:
        return None
    claim, beside_it = claims.loc[at[0]], shown.loc[at[0]]
    result = every.set_index("result").loc[beside_it.result]
    return {"said_by": claim.said_by, "claim": claim.claim, "claimed": beside_it.claimed, "result": beside_it.result,
            "mb_per_s": result.mb_per_s, "hosts": int(result.hosts), "links_mb_per_s": result.links_mb_per_s}
