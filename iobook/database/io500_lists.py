"""The IO500 list each run entered and the values the list published, beside the run's own (iobook.database.setups'
fields `list`, `list_score`, `list_bw_gib_s`, `list_md_kiops`, `list_check`).

The IO500 web site's record (data/reference/io500_site_lists.csv, from the site's database) says which list each
submission 1-555 entered and what it published for it: one entry a submission. A submission folder may hold several
runs (a bundle of other sites' runs, reruns beside the one entered, a copy of another submission's run), so the
list's values belong to one run at most: the run whose own summary prints them (within the list's rounding), else
the submission's one top-level run (its folder or a results/timestamp folder below it). Every run of a submission the
record holds gets a reason code (LIST_CHECKS) that says how its list entry relates to it, with the detail.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import PurePath

from . import io500_runs, reference
from .io500_scores import SCORE_TOLERANCE

# the IO500 web site's record of the list each submission 1-555 entered and the values it published
SITE_LISTS_CSV = reference.path("io500_site_lists.csv")
SITE_LIST_VALUES = {"list_score": "io500_score", "list_bw_gib_s": "io500_bw", "list_md_kiops": "io500_md"}
# the site prints its values to 2 decimals, computed from phase values its summaries had rounded: a run's value is
# the list's within one unit of that last digit (submission-149's 2.09466 GiB/s is listed as 2.10)
LIST_ROUNDING = 0.01
# ISC's deadlines fall in May-June, SC's in October-November: a run started by June of its archive year went to ISC
ISC_LAST_MONTH = 6
_STARTED = re.compile(r"(\d{4})[-.](\d{2})[-.]\d{2}")
INFERRED = "inferred: archive year folder and the run's start date"
# How a run's list entry relates to its own summary (field list_check; its source holds the detail)
LIST_CHECKS = {
    "AGREES": "the list published the run's own bandwidth and metadata scores (within the list's rounding)",
    "MD_RESCORED": "the list's bandwidth is the run's, its metadata score is not: the list scored metadata "
                   "otherwise than the run's summary",
    "BW_RESCORED": "the list's metadata score is the run's, its bandwidth is not: the list scored bandwidth "
                   "otherwise than the run's summary",
    "COPY": "the run's values are another submission's run, whose own list entry publishes them: this "
            "submission's entry is another run",
    "OTHER_VALUES": "neither of the list's scores is the run's: the list published a run whose files are not here",
    "ANOTHER_RUN": "the submission's list entry is another of its runs (the run is bundled or repeated beside it)",
    "NO_RUN_MATCHES": "none of the submission's runs here has the list's values and none is its one top-level run",
}


def site_lists() -> dict[int, dict[str, str]]:
    """submission -> its row of the IO500 site's record (SITE_LISTS_CSV): the list it entered and the values published."""
    with SITE_LISTS_CSV.open(encoding="utf-8") as f:
        return {int(r["id"]): r for r in csv.DictReader(f)}


def inferred_list(year: int | None, started: str | None) -> str | None:
    """The list of an archive run the site's record does not hold: its year folder is the list's year, its start
    date says which of the year's two (a run started by June, or the year before, went to ISC)."""
    when = _STARTED.search(started or "")
    if year is None or when is None:
        return None
    isc = int(when[1]) < year or int(when[2]) <= ISC_LAST_MONTH
    return f"{'ISC' if isc else 'SC'}{year % 100:02d}"


@dataclass(frozen=True, kw_only=True)
class Run:
    """What deciding a run's list reads: its submission (its folder's, else the archive listing's for a run copied out
    of the layout), the fingerprint of its phase values, and its own summary's sub-scores (printed, else recomputed)."""
    run_id: int
    path: str
    submission: int | None
    fingerprint: str
    bw_gib_s: float | None
    md_kiops: float | None


def agrees(run_value: float | None, list_value: str) -> bool:
    """A run's value is the list's: equal within 0.1 % (io500_scores.SCORE_TOLERANCE) or the list's rounding."""
    if run_value is None or not list_value:
        return False
    published = float(list_value)
    return abs(run_value - published) <= max(SCORE_TOLERANCE * abs(published), LIST_ROUNDING)


def top_level(path: str) -> bool:
    """The run's files sit in its submission folder or a results/timestamp folder below it (not a bundled run's own
    folder)."""
    scope = io500_runs.archive_location(path)["scope"]
    return scope is not None and all(io500_runs.GENERIC_FOLDER.fullmatch(p)
                                     for p in PurePath(path).relative_to(scope).parts)


def _record(submission: int, row: dict) -> str:
    return f"IO500 site record: submission-{submission} ({SITE_LISTS_CSV.name}, from {row['source']})"


def _listed(row: dict) -> str:
    return f"list {float(row['io500_bw']):g} GiB/s, {float(row['io500_md']):g} kIOPS"


def _values(run: Run, row: dict) -> str:
    bw, md = ("none" if v is None else f"{v:.6g}" for v in (run.bw_gib_s, run.md_kiops))
    return f"{_listed(row)}; run {bw} GiB/s, {md} kIOPS"


def _check(run: Run, submission: int, row: dict, site: dict, by_fingerprint: dict[str, list[Run]]) -> tuple[str, str]:
    """The reason code of the run a list entry's values are attached to, with its detail."""
    bw, md = agrees(run.bw_gib_s, row["io500_bw"]), agrees(run.md_kiops, row["io500_md"])
    if bw and md:
        return "AGREES", _values(run, row)
    for twin in by_fingerprint.get(run.fingerprint, []):
        other = site.get(twin.submission)
        if twin.submission != submission and other and agrees(run.bw_gib_s, other["io500_bw"]) \
                and agrees(run.md_kiops, other["io500_md"]):
            return "COPY", (f"its phase values are submission-{twin.submission}'s run, whose entry ({other['list']}) "
                            f"publishes them; {_values(run, row)}")
    code = "MD_RESCORED" if bw else "BW_RESCORED" if md else "OTHER_VALUES"
    return code, f"{row['list']}: {_values(run, row)}"


def fields(runs: list[Run]) -> dict[int, dict[str, tuple[str, str]]]:
    """run_id -> its list fields, each (value, source): `list` (the site's record for its submission, else the list of
    the first listed submission holding the same phase values: a run filed again later), the list's published
    values on the one run they belong to, and `list_check` (LIST_CHECKS) and `list_entry` (the submission whose
    entry it is) on every run of a submission the record holds. Runs neither the record nor a listed twin places get no field here (setups infers their list)."""
    site = site_lists()
    by_fingerprint: dict[str, list[Run]] = {}
    by_submission: dict[int, list[Run]] = {}
    for run in sorted(runs, key=lambda r: (r.submission or 0, r.run_id)):
        by_fingerprint.setdefault(run.fingerprint, []).append(run)
        if run.submission in site:
            by_submission.setdefault(run.submission, []).append(run)
    out: dict[int, dict[str, tuple[str, str]]] = {}
    for run in runs:
        listing = run.submission if run.submission in site else next(
            (r.submission for r in by_fingerprint[run.fingerprint] if r.submission in site), None)
        if listing is not None:
            record = _record(listing, site[listing])
            why = "" if listing == run.submission else f" (its phase values are submission-{listing}'s run)"
            out.setdefault(run.run_id, {})["list"] = (site[listing]["list"], record + why)
    for submission, members in by_submission.items():
        row = site[submission]
        record = _record(submission, row)
        scored = sorted(members, key=lambda r: (-agrees(r.bw_gib_s, row["io500_bw"]) - agrees(r.md_kiops, row["io500_md"]),
                                                r.run_id))
        best = scored[0]
        matched = agrees(best.bw_gib_s, row["io500_bw"]) or agrees(best.md_kiops, row["io500_md"])
        tops = [r for r in members if top_level(r.path)]
        chosen = best if matched else tops[0] if len(tops) == 1 else None
        for run in members:
            own = out.setdefault(run.run_id, {})
            if run is chosen:
                for field, column in SITE_LIST_VALUES.items():
                    own[field] = (row[column], record)
                code, detail = _check(run, submission, row, site, by_fingerprint)
            elif chosen is not None:
                code, detail = "ANOTHER_RUN", f"submission-{submission}'s entry is run {chosen.run_id}'s"
            else:
                code, detail = "NO_RUN_MATCHES", f"none of submission-{submission}'s {len(members)} runs: {_listed(row)}"
            own["list_check"] = (code, f"{record}: {detail}")
            own["list_entry"] = (str(submission), record)
    return out
