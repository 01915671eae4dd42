"""The IO500 score study's analysis: the runs and their scores recomputed beside the printed ones (a census, each run
counted once), the runs the score cannot be reproduced for, the validity audit's flags and the setups' limits,
the runs shown phase by phase and what one phase weighs in the score."""
from __future__ import annotations

import re

import pandas as pd

from ...book import present
from ...database import io500_lists, io500_runs, io500_scores, store
from ...inference import evidence
from ...inference.bounds import censuses
from ...parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES

TOLERANCE = io500_scores.SCORE_TOLERANCE  # recomputed equals reported within 0.1 %
PHASES = list(STANDARD_BW_PHASES + STANDARD_MD_PHASES)
SHOWN_RUNS = 3  # the runs shown phase by phase when the parameters name none
CENTURY = 2000  # a release's two-digit year ("ISC22") as a year
_RELEASE = re.compile(r"(?:^|-)(isc|sc)(\d\d)(?![0-9])")


def release_label(io500_version: str | None) -> str | None:
    """The benchmark release an io500 version names ("io500-isc22_v1" -> "ISC22", "sc17" -> "SC17"): the
    release of the IO500 code the run used, not the list it was submitted to (runs of 2023 print ISC22); None
    when the version names none (bash scripts print no version)."""
    m = _RELEASE.search(io500_version) if isinstance(io500_version, str) else None
    return f"{m.group(1).upper()}{m.group(2)}" if m else None


def release_text(runs: pd.DataFrame) -> str:
    """How many runs print a release named for a list of an earlier year than their archive year, with the
    latest such run as the example (Markdown): the evidence that the version names a release, not a list."""
    list_year = runs.io500_version.map(release_label).map(
        lambda release: CENTURY + int(release[-2:]) if isinstance(release, str) else float("nan"))
    earlier = runs.assign(list_year=list_year)[list_year < runs.year]
    if earlier.empty:
        return "no run here prints a release named for an earlier year's list than its archive year."
    last = earlier.sort_values(["year", "run_key"]).iloc[-1]
    runs_text = f"{len(earlier):,} run" + ("" if len(earlier) == 1 else "s")
    return (f"{runs_text} here print a release named for an earlier year's list than their archive year "
            f"({last.run_key}, of {int(last.year)}, prints `{last.io500_version}`).")


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run (queries/runs.sql) with the benchmark release its version names."""
    runs = store.frame(con, __package__, "runs")
    runs["release"] = runs.io500_version.map(release_label)
    return runs


def agreement(runs: pd.DataFrame) -> dict[str, int]:
    """How many runs' printed scores the recomputation reproduces, from the summary or from the phase logs: a
    census of the runs, each archive copy of a run counted once."""
    copies = int(runs.duplicate.sum())
    runs = runs[~runs.duplicate]
    comparable = runs[runs.score_matches.notna()]
    from_summary = comparable.score_matches.astype(bool)
    from_logs = ~from_summary & comparable.logs_match.fillna(False).astype(bool)
    return {"runs": len(runs), "valid": int(runs.valid.sum()), "comparable": len(comparable),
            "from_summary": int(from_summary.sum()), "from_logs": int(from_logs.sum()),
            "neither": int((~from_summary & ~from_logs).sum()),
            "not_comparable": len(runs) - len(comparable), "copies": copies}


def census(agree: dict[str, int]) -> evidence.Count:
    """The main result: how many comparable printed scores come back from the summary's phases (every run checked)."""
    return evidence.count(k=agree["from_summary"], n=agree["comparable"], of=evidence.Replicate.CENSUS,
                          quantity="printed scores recomputed from the summary's phases")


def describe(runs: pd.DataFrame, run_key: str) -> str:
    """A run as the prose names it: run_key, with institution and system where the archive layout gives them."""
    run = runs[runs.run_key == run_key].iloc[0]
    where = ", ".join(str(v) for v in (run.institution, run.system) if isinstance(v, str))
    return f"{run_key} ({where})" if where else run_key


def get_mismatches(con) -> pd.DataFrame:
    """Every run of view io500_score_mismatches (queries/mismatches.sql); `copy_of` names the run counted in place
    of a copy (NULL for a run counted): the chapter shows the counted ones and names the copies it leaves out."""
    return store.frame(con, __package__, "mismatches")


def get_flags(con) -> pd.DataFrame:
    """The validity audit's flags of each run counted once (queries/flags.sql)."""
    return store.frame(con, __package__, "flags")


# What each flag of the validity audit (io500_run_flags) reads of a run: a run whose files do not state it cannot be
# tested, so a flag's count is out of the runs it could test (issue 46: the above-the-links check tests 4 of 246)
FLAG_NEEDS = {
    "ABOVE_LINKS": "a limit of its setup: client or server links and their rate, or drives and theirs",
    "ABOVE_CLIENT_LINK": "its client nodes, its client ports (verbsPorts or its questionnaire's links) and a "
                         "date, where it states not both its client links and their rate (the rate stated, its "
                         "servers' network's, else the fastest client port of its date)",
    "CHANGED_DURING_RUN": "scripts of its own (*.sh, *.ini) in its folder",
    "IMPLAUSIBLE": "a metadata phase with its processes",
    "RANDOM_READ_CACHED": "a 4 KiB random read phase (ior-rnd4K-easy-read, SC21's ior-rnd4K-read) and ior-easy-read",
    "UNPROTECTED": "DAOS object classes in its config.ini, scripts or command lines",
}


def flag_coverage(con, flags: pd.DataFrame) -> pd.DataFrame:
    """Per flag of the validity audit (FLAG_NEEDS): what a run must state to be tested, how many runs (each counted
    once) could be tested (queries/flag_coverage.sql; for CHANGED_DURING_RUN the runs with a script in their own
    folder, io500_runs.own_folder, as setups.derive reads them) and how many it flags (`flags`: get_flags)."""
    testable = store.frame(con, __package__, "flag_coverage").set_index("code").testable.to_dict()
    scripts = store.frame(con, __package__, "run_scripts").path.tolist()
    runs = store.frame(con, __package__, "counted_runs")
    folders = [io500_runs.own_folder(path).rstrip("/") + "/" for path in runs.path]
    testable["CHANGED_DURING_RUN"] = sum(any(s.startswith(folder) for s in scripts) for folder in folders)
    flagged = flags.groupby("code").run_key.nunique()
    return pd.DataFrame([{"flag": code, "a run must state": needs, "runs it can test": int(testable[code]),
                          "runs flagged": int(flagged.get(code, 0))} for code, needs in FLAG_NEEDS.items()])


def flags_table(flags: pd.DataFrame) -> pd.DataFrame:
    """The flags as the page shows them: code, run, its institution and system in one column, and what its files show;
    where a code's runs name their sources apart (CHANGED_DURING_RUN: each run's script and lines) the source joins
    what they show, and where one source stands for all its runs it is said once (sources_of)."""
    shared = sources_of(flags)
    where = [detail if code in shared else f"{detail}: {source}"
             for code, detail, source in zip(flags.code, flags.detail, flags.source)]
    system = [", ".join(str(v) for v in pair if isinstance(v, str)) for pair in zip(flags.institution, flags.system)]
    return pd.DataFrame({"code": flags.code, "run": flags.run_key, "system": system, "what its files show": where})


def sources_of(flags: pd.DataFrame) -> dict[str, str]:
    """code -> the one source every flagged run of that code names (UNPROTECTED's 'config.ini, scripts and command
    lines (oclass)'), said once in the audit's table."""
    sources = flags.groupby("code").source.unique()
    return {code: values[0] for code, values in sources.items() if len(values) == 1}


def mismatch_table(mismatches: pd.DataFrame) -> pd.DataFrame:
    """The runs whose printed score is not reproduced, rows alike but for the run said once: their runs listed in one
    cell (submission-28's five results that printed 0 share one reason)."""
    shown = mismatches.drop(columns="copy_of").reset_index(drop=True)
    alike = [c for c in shown.columns if c != "run_key"]
    grouped = shown.groupby(alike, dropna=False, sort=False).run_key.agg(list).reset_index()
    return grouped[["run_key", *alike]]


def get_bounds(con) -> pd.DataFrame:
    """The bandwidth phases of the runs whose setup states a limit, against the least one (queries/bounds.sql)."""
    return store.frame(con, __package__, "bounds")


def bounds_records(bounds: pd.DataFrame, runs: int) -> tuple[pd.Series, list[evidence.Count]]:
    """Each stating run's best share of its least limit, and the censuses of bounds.censuses."""
    best = bounds.groupby("run_key").share.max()
    return best, censuses(best, runs)


def default_runs(runs: pd.DataFrame, n: int = SHOWN_RUNS, flagged: set[str] = frozenset()) -> list[str]:
    """The runs shown phase by phase when none are chosen: the n highest recomputed scores among valid runs,
    or among all runs with a score when none is valid; never a run with an implausible value or a copy of a run
    shown already (three copies of one run are one run), nor one the validity audit flags (`flagged`: run_keys)
    unless every run is flagged (a user's own runs may all be: they are shown, and the audit table says why)."""
    scored = runs[runs.score.notna() & runs.implausible.isna() & ~runs.duplicate]
    unflagged = scored[~scored.run_key.isin(flagged)]
    scored = unflagged if len(unflagged) else scored
    pool = scored[scored.valid] if scored.valid.any() else scored
    return pool.sort_values(["score", "run_key"], ascending=[False, True]).run_key.head(n).tolist()


def get_phases(con, run_keys: list[str]) -> pd.DataFrame:
    """The scored phases of the chosen runs (queries/phases.sql), in run order."""
    return store.frame(con, __package__, "phases", [list(run_keys), list(run_keys)])


def phase_table(phases: pd.DataFrame) -> pd.DataFrame:
    """One row per phase, one column per run (values in the phase's unit)."""
    wide = phases.pivot(index=["phase", "unit"], columns="run_key", values="value")
    wide = wide[list(dict.fromkeys(phases.run_key))].reset_index()
    order = {p: i for i, p in enumerate(dict.fromkeys(phases.phase))}
    return wide.sort_values("phase", key=lambda s: s.map(order))


def widest_phase(phases: pd.DataFrame) -> tuple[str, tuple]:
    """The scored phase whose results differ most between the runs shown (ratio of highest to lowest), as text, and
    its record (a range over the runs shown, no interval)."""
    spread = phases[phases.value > 0].groupby("phase", sort=False).value.agg(lambda v: v.max() / v.min())
    if len(phases.run_key.unique()) < 2 or spread.empty:
        return "no phase (one run shown)", ()
    runs = phases.run_key.nunique()
    record = evidence.described(spread.max(), quantity=f"{spread.idxmax()}: highest over lowest of the runs shown",
                                unit="x", n=runs, replicate=evidence.Replicate.RUN,
                                how=f"a range over {runs} runs, not an interval")
    return f"{spread.idxmax()} ({spread.max():,.1f}× between the highest and the lowest)", (record,)


def phase_weights(con, run_key: str) -> pd.DataFrame:
    """For each scored phase of one run: its exponent in the score and the factor by which the score changes
    when that phase alone is halved, recomputed by io500_scores.recompute from the run's own values."""
    phases = get_phases(con, [run_key])
    values = dict(zip(phases.phase, phases.value))
    base = io500_scores.recompute(values).score
    rows = []
    for phase in PHASES:
        group = STANDARD_BW_PHASES if phase in STANDARD_BW_PHASES else STANDARD_MD_PHASES
        halved = io500_scores.recompute({**values, phase: values[phase] / 2}).score
        rows.append({"phase": phase, "group": "bandwidth" if group is STANDARD_BW_PHASES else "metadata",
                     "exponent": 1 / (2 * len(group)), "factor when halved": halved / base})
    return pd.DataFrame(rows)


def get_sources(con, run_keys: list[str]) -> pd.DataFrame:
    """The files of the given runs (present.sources)."""
    ids = store.frame(con, __package__, "run_files", [list(run_keys)]).source_id
    return present.sources(con, ids)


def list_checks(con) -> pd.DataFrame:
    """Each submission the IO500 site's record holds, once, with the reason code of its list entry against its runs'
    own summaries (queries/list_checks.sql; iobook.database.io500_lists.LIST_CHECKS)."""
    return store.frame(con, __package__, "list_checks")


def list_check_table(checks: pd.DataFrame) -> pd.DataFrame:
    """The submissions by reason code (io500_lists.LIST_CHECKS order): what the code means, how many, the lists they
    entered and one example (the lowest submission id) with its detail."""
    rows = []
    for code, meaning in io500_lists.LIST_CHECKS.items():
        these = checks[checks.reason == code]
        if len(these):
            first = these.iloc[0]
            rows.append({"reason": code, "meaning": meaning, "submissions": len(these),
                         "lists": ", ".join(f"{name} {n}" for name, n in these.list.value_counts().items()),
                         "example": f"submission-{first.submission}: {first.detail.split('): ', 1)[-1]}"})
    return pd.DataFrame(rows, columns=["reason", "meaning", "submissions", "lists", "example"])
