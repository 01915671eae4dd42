"""The DAOS versus Lustre study's family overview: every IO500 run with its family, data protection and machine,
the runs chosen for the overview, and DAOS against Lustre within one archive year at a time (evidence.compare over
machines, DAOS runs with and without data protection apart), as records `report` decides once."""
from __future__ import annotations

import posixpath

import pandas as pd

from ...book import comparison, present
from ...book.report import Table
from ...database import io500_runs, store
from ...inference import evidence, selection
from ...inference.evidence import Replicate, plural
from ...parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES

PACKAGE = __package__
PHASES = list(STANDARD_BW_PHASES + STANDARD_MD_PHASES)
FIRST, SECOND = "DAOS", "Lustre"  # the families the chapter sets against each other
MOST_FAMILIES = 7  # the overview's default: the families with the most valid runs
# What the DAOS runs' object classes give (setups.protection): runs of different protection are compared apart
PROTECTED, UNPROTECTED, NOT_STATED = "with data protection", "without data protection", "protection not stated"
DESIGNS = (PROTECTED, UNPROTECTED, NOT_STATED)
NOT_STATED_GENERATION = "generation not stated"  # setups.generation: a run whose files name no version or format
# The comparison table's descriptors (comparison.table adds the measure, ratio, units a side, Holm p and verdict)
PROTECTION_COLUMN = f"{FIRST} data protection"
RUNS_COLUMN = "runs a side"


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run (queries/runs.sql) with its family and the evidence for it (io500_runs: from the archive's
    folders where the run's own files agree, else from its files or labels.yml; "unknown" when they do not say),
    benchmark release, score, validity, whether it is a copy of a run counted once elsewhere and an implausible
    value. The release is the io500 version the run printed (io500-sc23_v1): it names the benchmark's code, not the
    list the run was made for (runs of 2024 print io500-sc23_v1, of 2023 io500-isc22_v1)."""
    runs = store.frame(con, PACKAGE, "runs")
    runs["release"] = runs.io500_version.fillna("not printed")
    runs["data_protection"] = [protection_design(p) for p in runs.protection]
    return runs


def protection_design(protection: str | None) -> str:
    """A run's data protection as the chapter compares it: none (S1, SX: one copy), some (replication or erasure
    code on every class; 'partly none' runs count as with), or not stated by its files."""
    if protection is None or pd.isna(protection):
        return NOT_STATED
    return UNPROTECTED if protection == "none" else PROTECTED


def archive_years(runs: pd.DataFrame) -> dict:
    """The years that hold runs (the archive's <year> folders, else the run's own date), their run counts, the
    years missing between, and the runs outside the archive layout and of unknown attribution."""
    counts = runs.year.dropna().astype(int).value_counts().sort_index()
    missing = sorted(set(range(counts.index.min(), counts.index.max() + 1)) - set(counts.index)) if len(counts) else []
    return {"counts": counts, "missing": missing, "outside_layout": int(runs.submission.isna().sum()),
            "unattributed": int(((runs.attributed_by == io500_runs.UNKNOWN) & runs.submission.notna()).sum())}


def coverage(runs: pd.DataFrame) -> dict:
    """What the database's IO500 runs cover, in numbers and in one sentence (Markdown) to state wherever a
    family or a year is summarised: runs, submissions, archive years and the years missing between them. The
    runs are a copy of part of the IO500 submission archive (or the user's own), not the IO500's lists."""
    span = archive_years(runs)
    years = [int(y) for y in span["counts"].index]
    f = {"runs": len(runs), "submissions": int(runs.submission.nunique()), "first_year": years[0] if years else None,
         "last_year": years[-1] if years else None, "missing_years": ", ".join(map(str, span["missing"])),
         "outside_layout": span["outside_layout"]}
    text = f"These are the {len(runs):,} IO500 runs of this database"
    if years:
        text += ((f", from {f['submissions']:,} submission folders of the archive years" if f["submissions"] else
                  ", of the years") + f" {years[0]}–{years[-1]}"
                 + (f" (none from {f['missing_years']})" if span["missing"] else ""))
    if span["outside_layout"]:
        text += (f"; {span['outside_layout']:,} sit outside the archive layout (their year, family and system are "
                 "what their own files or a labels.yml say)")
    if span["unattributed"]:
        text += (f"; {span['unattributed']:,} sit in a submission folder that bundles other sites' runs and state no "
                 "site of their own (attribution unknown: no year, no family)")
    f["coverage_text"] = (text + ": a copy of part of the IO500 submission archive {cite:p}`io500-submissions` "
                          "or your own runs, not the IO500's lists. A count, a median or a missing year describes "
                          "this copy, not the IO500.")
    return f


def select_families(runs: pd.DataFrame, requested: list[str], most: int = MOST_FAMILIES) -> tuple[list[str], str]:
    """The families to compare and a note for the page. Empty `requested`: the `most` families with the most
    valid runs here. Names this database lacks are left out with a note naming the nearest (never an error: a
    pinned choice that matches nothing is a note in the chapter, not a failed book)."""
    known = runs[runs.valid & ~runs.family.isin(["unknown", "mixed"])].family.value_counts()
    if not requested:
        wanted = sorted(known.index[:most], key=lambda f: (-known[f], f))
        return wanted, ("the default: the families with the most valid runs here" if wanted else
                        "the default; no run here has a known family")
    try:
        return selection.select(requested, known.index, "file-system family"), "chosen in the parameters"
    except selection.UnknownSelection as missing:
        wanted = [f for f in requested if f in known.index]
        return wanted, f"chosen in the parameters; left out: {missing}"


def choose(runs: pd.DataFrame, wanted: list[str], years: list[int]) -> pd.DataFrame:
    """Valid runs with a positive score of the wanted families (and years; empty = all), each run once, none with
    an implausible value (io500_runs.implausible).
    `period` is the run's archive year (its <year> folder): the archive records no list, and the io500 version
    names a release of the benchmark, not a list."""
    chosen = runs[runs.valid & (runs.score > 0) & runs.family.isin(wanted) & ~runs.duplicate & runs.implausible.isna()
                  & runs.year.notna() & (runs.year.isin(years) if years else True)].copy()
    chosen["period"] = chosen.year.astype(int).astype(str)
    chosen["period_order"] = chosen.year.astype(int)
    return chosen.sort_values(["family", "period_order", "run_key"]).reset_index(drop=True)


def system_units(runs: pd.DataFrame) -> list[str]:
    """Each run's machine, the unit of replication (evidence.Replicate.MACHINE): the setup record's machine (one
    installation under several submission labels: LRZ's SuperMUC-NG-Phase2, -EC, -10 and -EC-10 are one), else
    institution, system and file system as attributed. Runs of one machine are repeat submissions, not
    independent repetitions."""
    labels = runs.institution.astype(str) + " · " + runs.system.astype(str) + " · " + runs.filesystem.astype(str)
    return runs.machine.fillna(labels).tolist()


def compare_by_year(chosen: pd.DataFrame, value: str, *, quantity: str, unit: str, family: str) -> pd.DataFrame:
    """Per archive year, benchmark generation and FIRST's data protection, where they hold runs of both FIRST and
    SECOND: the runs a side (SECOND's by run key too, `second_keys`) and the comparison of `value` (evidence.compare:
    ratio of geometric means over machines, each the geometric mean of its runs that year), not yet decided: `report`
    decides every record of the chapter at once. Runs of different generations (the bash script and the C app ran
    different phases and rules) or of FIRST's different protection are never pooled: each side's designs say so
    (evidence.MixedDesigns)."""
    rows = []
    # a run whose system nothing states (outside the layout, no io500_info, no labels.yml) is no known unit
    both = chosen[chosen.family.isin([FIRST, SECOND]) & (chosen[value] > 0) & chosen.system.notna()]
    both = both.assign(generation=both.generation.fillna(NOT_STATED_GENERATION))
    for (year, generation), g in both.groupby(["period_order", "generation"], sort=True):
        b = g[g.family == SECOND]
        for design in DESIGNS:
            a = g[(g.family == FIRST) & (g.data_protection == design)]
            if len(a) and len(b):
                rows.append({"year": int(year), "generation": generation, "protection": design,
                             f"{FIRST} runs": len(a), f"{SECOND} runs": len(b), "second_keys": b.run_key.tolist(),
                             "record": evidence.compare(
                                 evidence.Observations(values=a[value].to_numpy(), units=system_units(a),
                                                       designs=list(zip(a.data_protection, a.generation))),
                                 evidence.Observations(values=b[value].to_numpy(), units=system_units(b),
                                                       designs=b.generation.tolist()),
                                 quantity=quantity, unit=unit, replicate=Replicate.MACHINE, family=family,
                                 label=f"{FIRST} {design} {int(year)} ({generation})",
                                 baseline_label=f"{SECOND} {int(year)} ({generation})")})
    return pd.DataFrame(rows, columns=["year", "generation", "protection", f"{FIRST} runs", f"{SECOND} runs",
                                       "second_keys", "record"])


def comparison_table(table: pd.DataFrame, protection_note: str) -> Table:
    """A decided compare_by_year table as the kit shows comparisons (comparison.table): the measure (said above the
    table where every row has the same), ratio and interval (none on fewer than MIN_UNITS machines), year,
    generation, FIRST's data protection and the runs a side, machines a side, Holm p and verdict; under it the
    verdicts' legend and `protection_note`, what protection each side has (said once, not in every row)."""
    descriptors = pd.DataFrame({
        "year": [str(y) for y in table.year],
        "generation": list(table.generation),
        PROTECTION_COLUMN: [p.removesuffix(" data protection") for p in table.protection],
        RUNS_COLUMN: [f"{plural(a, 'run')} / {b:,}" for a, b in zip(table[f"{FIRST} runs"], table[f"{SECOND} runs"])]})
    shown = comparison.table(list(table.record), descriptors)
    # one measure in every row (metadata per GiB/s) is said above the table with the rest that every row shares
    _, measure = present.constant_columns(shown.frame[["measure"]])
    return Table(frame=shown.frame.drop(columns=list(measure)), formats=shown.formats,
                 shared={**measure, **shown.shared},
                 note=" ".join(filter(None, [shown.note, protection_note])))


def runs_per_period(chosen: pd.DataFrame) -> pd.DataFrame:
    """How many chosen runs each family has per archive year."""
    table = chosen.pivot_table(index="family", columns="period", values="run_id", aggfunc="count", fill_value=0)
    return table[period_order(chosen)].reset_index()


def period_order(chosen: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(chosen.sort_values("period_order").period))


def medians(chosen: pd.DataFrame) -> pd.DataFrame:
    """Median score, bandwidth and metadata score per family and archive year."""
    return chosen.groupby(["family", "period"], sort=False).agg(
        runs=("run_id", "size"), score=("score", "median"), bw=("bw_gib_s", "median"),
        md=("md_kiops", "median"), best=("score", "max")).reset_index()


def balance(chosen: pd.DataFrame) -> pd.DataFrame:
    """Metadata score (kIOPS) per GiB/s of bandwidth score, median and quartiles per family."""
    ratio = chosen[chosen.bw_gib_s > 0].assign(r=lambda d: d.md_kiops / d.bw_gib_s)
    out = ratio.groupby("family").r.agg(runs="size", median_md_per_bw="median",
                                        q25=lambda s: s.quantile(0.25), q75=lambda s: s.quantile(0.75))
    return out.reset_index().sort_values(["median_md_per_bw", "family"], ascending=[False, True])


def phase_relative(con, chosen: pd.DataFrame) -> pd.DataFrame:
    """Per family and scored phase: the family's median over the median of all chosen runs
    (queries/phase_relative.sql)."""
    con.register("_chosen", chosen[["run_id", "family"]])
    try:
        return store.frame(con, PACKAGE, "phase_relative", [PHASES])
    finally:
        con.unregister("_chosen")


def dfs_runs(runs: pd.DataFrame) -> evidence.Count:
    """How many of these DAOS runs state the DFS API (-a DFS, --dfs.pool, API = DFS) in their own files (IOR/mdtest
    command lines, config.ini: io500_runs.files_evidence): DFS is DAOS's own file API, not POSIX."""
    dfs = runs.files_evidence.fillna("").str.startswith("DFS API")
    return evidence.count(int(dfs.sum()), len(runs), quantity=f"{FIRST} runs stating the DFS API", of=Replicate.RUN)


def unprotected_runs(first_runs: pd.DataFrame) -> evidence.Count:
    """How many of the FIRST runs compared kept one copy of their data (object classes S1, SX)."""
    return evidence.count(int((first_runs.data_protection == UNPROTECTED).sum()), len(first_runs),
                          quantity=f"{FIRST} runs without data protection", of=Replicate.CENSUS)


def unknown_runs(runs: pd.DataFrame) -> evidence.Count:
    """Runs whose files state neither who ran them nor on what, each run once (not its copies)."""
    counted = runs[~runs.duplicate]
    return evidence.count(int((counted.attributed_by == io500_runs.UNKNOWN).sum()), len(counted),
                          quantity="runs whose attribution is unknown", of=Replicate.RUN)


def storage_overhead(con, runs: pd.DataFrame) -> pd.DataFrame:
    """The protection overhead these runs' io500_info lines state (queries/storage_overhead.sql): run_key, key
    (ds_overhead, md_overhead) and value as printed."""
    stated = store.frame(con, PACKAGE, "storage_overhead")
    return stated.merge(runs[["run_id", "run_key"]], on="run_id")[["run_key", "key", "value"]]


def get_sources(con, run_ids) -> pd.DataFrame:
    """Source ids of every file of these runs (for present.sources)."""
    return store.frame(con, PACKAGE, "run_sources", [sorted(int(i) for i in run_ids)])


def run_files(con, run_ids) -> pd.DataFrame:
    """The files of these runs (present.sources) under each run: its run_key, and the file's path below the folder
    holding every file of that run (the full path is one click away: the Data chapter's list, present.files_link),
    with format, tool version and sha256; `path` keeps the full path for that link."""
    files = store.frame(con, PACKAGE, "run_files", [sorted(int(i) for i in run_ids)])
    files["path"] = store.reader_paths(con, files.path)
    shown = present.sources(con, files.source_id)
    files = files.merge(shown, on="path")
    folder = files.groupby("run_key").path.transform(lambda p: posixpath.commonpath([posixpath.dirname(x) for x in p]))
    files["file"] = [posixpath.relpath(p, f) for p, f in zip(files.path, folder)]
    return files[["run_key", "file", "format", "tool_version", "sha256", "path"]]


def has_view(con, name: str) -> bool:
    """Whether the database has this view (one ingested before the view existed lacks it until rebuilt)."""
    return bool(con.execute(store.query(PACKAGE, "has_view"), [name]).fetchone()[0])
