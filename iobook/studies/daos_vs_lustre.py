"""IO500 runs by file-system family (seeds 002 and 004): how DAOS, Lustre and the others reach their scores,
compared within one archive year at a time; NUDT's Tianhe-2E Lustre run (SC19) beside its unsubmitted DAOS runs
(ISC20) on the same storage servers; EPCC's GekkoFS run; and seed 002's printed lists against the raw logs."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from .. import evidence, families, io500_runs, present, published, selection
from ..evidence import Replicate, plural
from ..report import FIRST_FINDING_WORDS, Finding, Prose, Report, Table
from ..parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES
from .io500_score import release_text

PHASES = list(STANDARD_BW_PHASES + STANDARD_MD_PHASES)
AXIS_PHASE = "GiB/s (ior phases) or kIOPS (mdtest, find)"
TIANHE = {"institution": "National Supercomputing Center in Changsha", "system": "Tianhe-2E"}
GEKKO = {"institution": "EPCC", "system": "NextGENIO", "family": "GekkoFS"}
# seed 002's Tianhe-2E phase table spells the phases its own way
SLIDE_PHASE = {"ior_easy_w": "ior-easy-write", "ior_easy_r": "ior-easy-read", "ior_hard_w": "ior-hard-write",
               "ior_hard_r": "ior-hard-read", "md_easy_w": "mdtest-easy-write", "md_easy_stat": "mdtest-easy-stat",
               "md_easy_del": "mdtest-easy-delete", "md_hard_w": "mdtest-hard-write", "md_hard_r": "mdtest-hard-read",
               "md_hard_stat": "mdtest-hard-stat", "md_hard_del": "mdtest-hard-delete", "find_hard": "find"}
DAOS_TABLES = {"daos_isc20_full": "DAOS, ISC20 full run (seed 002 slide)",
               "daos_isc20_10node": "DAOS, ISC20 10 client nodes (seed 002 slide)"}
LUSTRE_LABEL = "Lustre, SC19 (raw log)"
PRINTED_SCORE_HALF_UNIT = 0.005  # the lists print scores to two decimals: a run is the listed one within half of 0.01
FIRST, SECOND = "DAOS", "Lustre"  # the families the chapter sets against each other


def colour(names) -> alt.Scale:
    """The book's family colours (iobook.families.COLOURS) for these families."""
    domain, range_ = families.colours(names)
    return alt.Scale(domain=domain, range=range_)


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run with its family and the evidence for it (io500_runs: from the archive's folders where the
    run's own files agree, else from its files or labels.yml; "unknown" when they do not say), benchmark release,
    score, validity, whether it is a copy of a run counted once elsewhere (io500_runs.counted) and an implausible
    value (io500_runs.implausible). The release is the io500 version the run printed (io500-sc23_v1): it names the
    benchmark's code, not the list the run was made for (runs of 2024 print io500-sc23_v1, of 2023 io500-isc22_v1)."""
    runs = con.execute(
        """
        SELECT r.run_key, r.run_id, r.institution, r.system, r.filesystem, r.year, r.submission, r.io500_version,
               r.family, r.family_reason, r.attributed_by, r.files_evidence, r.implausible, s.score, s.bw_gib_s, s.md_kiops, s.valid,
               NOT r.counted AS duplicate, g.machine, g.protection, g.era
        FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN setups g USING (run_id) ORDER BY r.run_key
        """
    ).df()
    runs["release"] = runs.io500_version.fillna("not printed")
    runs["data_protection"] = [protection_design(p) for p in runs.protection]
    return runs


# What the DAOS runs' object classes give (setups.protection): runs of different protection are compared apart
PROTECTED, UNPROTECTED, NOT_STATED = "with data protection", "without data protection", "protection not stated"


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


def select_families(runs: pd.DataFrame, requested: list[str], most: int = 7) -> tuple[list[str], str]:
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


def system_units(runs: pd.DataFrame) -> list[str]:
    """Each run's machine, the unit of replication (evidence.Replicate.MACHINE): the setup record's machine (one
    installation under several submission labels: LRZ's SuperMUC-NG-Phase2, -EC, -10 and -EC-10 are one), else
    institution, system and file system as attributed. Runs of one machine are repeat submissions, not
    independent repetitions."""
    labels = runs.institution.astype(str) + " · " + runs.system.astype(str) + " · " + runs.filesystem.astype(str)
    return runs.machine.fillna(labels).tolist()


def compare_by_year(chosen: pd.DataFrame, value: str, *, quantity: str, unit: str, family: str) -> pd.DataFrame:
    """Per archive year and FIRST's data protection, where the year holds runs of both FIRST and SECOND: the runs a
    side and the comparison of `value` (evidence.compare: ratio of geometric means over machines, each the
    geometric mean of its runs that year), not yet decided: `decide_tables` decides every row read together at
    once. FIRST's runs of different protection are never pooled (evidence.MixedDesigns)."""
    rows = []
    # a run whose system nothing states (outside the layout, no io500_info, no labels.yml) is no known unit
    both = chosen[chosen.family.isin([FIRST, SECOND]) & (chosen[value] > 0) & chosen.system.notna()]
    for year, g in both.groupby("period_order", sort=True):
        b = g[g.family == SECOND]
        for design in (PROTECTED, UNPROTECTED, NOT_STATED):
            a = g[(g.family == FIRST) & (g.data_protection == design)]
            if len(a) and len(b):
                rows.append({"year": int(year), "protection": design, f"{FIRST} runs": len(a), f"{SECOND} runs": len(b),
                             "record": evidence.compare(
                                 evidence.Observations(values=a[value].to_numpy(), units=system_units(a),
                                                       designs=a.data_protection.tolist()),
                                 evidence.Observations(values=b[value].to_numpy(), units=system_units(b)),
                                 quantity=quantity, unit=unit, replicate=Replicate.MACHINE, family=family,
                                 label=f"{FIRST} {design} {int(year)}", baseline_label=f"{SECOND} {int(year)}")})
    return pd.DataFrame(rows, columns=["year", "protection", f"{FIRST} runs", f"{SECOND} runs", "record"])


def decide_tables(*tables: pd.DataFrame) -> None:
    """evidence.decide over the records of these compare_by_year tables together (each record's family says which
    are corrected together), written back in place."""
    records = evidence.decide([r for t in tables for r in t.record])
    start = 0
    for t in tables:
        t["record"] = records[start:start + len(t)]
        start += len(t)


def what_would_decide(c: evidence.Comparison) -> str:
    """What an undecided comparison of machines lacks, honestly: with one machine on a side the spread between
    machines is unknown, so no number of machines can be sized from these data."""
    if c.decided:
        return ""
    fewest = min(c.n, c.n_baseline)
    side = FIRST if c.n <= c.n_baseline else SECOND
    if fewest < 2:
        return (f"{fewest} {side} machine: the spread between {side} machines is unknown, so no number of machines "
                f"can be sized from these data; a verdict needs at least {evidence.MIN_UNITS} machines a side")
    if c.n_to_decide:
        return f"about {c.n_to_decide:,} machines a side would decide it at this ratio and spread"
    return f"a verdict needs at least {evidence.MIN_UNITS} machines a side"


def sides_text(c: evidence.Comparison, runs: int, runs_baseline: int) -> str:
    """A comparison's two sides in words, machines (the unit) with their runs: '4 machines (11 runs) vs 8 (13)'."""
    return f"{plural(c.n, 'machine')} ({plural(runs, 'run')}) vs {c.n_baseline:,} ({runs_baseline:,})"


def comparison_table(table: pd.DataFrame) -> pd.DataFrame:
    """A decided compare_by_year table for the page and for a reader in JupyterLab: measure (when several),
    year, systems and runs a side, ratio, interval, p, Holm-adjusted p, verdict and what would decide it."""
    rows = []
    for row in table.to_dict("records"):
        c = evidence.as_shown(row["record"])  # no interval on fewer machines than the rule allows
        rows.append({**({"measure": c.quantity} if "measure" in table else {}), "year": str(row["year"]),
                     f"{FIRST} data protection": row["protection"].removesuffix(" data protection"),
                     f"{FIRST} machines": c.n, f"{FIRST} runs": row[f"{FIRST} runs"], f"{SECOND} machines": c.n_baseline, f"{SECOND} runs": row[f"{SECOND} runs"],
                     "ratio": c.ratio, "95% low": c.low, "95% high": c.high, "p": c.p, "p (Holm)": c.p_adjusted,
                     "verdict": str(c.verdict), "what would decide it": what_would_decide(c)})
    return pd.DataFrame(rows)


def chart_compare_by_year(table: pd.DataFrame, what: str) -> alt.Chart:
    """One point per archive year: FIRST's geometric mean over SECOND's with its interval, log axis; colour: the
    verdict of evidence.decide."""
    shown = comparison_table(table).assign(
        label=[sides_text(r["record"], r[f"{FIRST} runs"], r[f"{SECOND} runs"]) for r in table.to_dict("records")])
    shown["comparison"] = shown.year + ", " + shown[f"{FIRST} data protection"]
    decided = shown[shown.verdict == str(evidence.Verdict.DECIDED)]
    base = alt.Chart(shown).encode(y=alt.Y("comparison:O", title=f"archive year, {FIRST} data protection"))
    bars = base.mark_rule(size=2).encode(x=alt.X("95% low:Q", scale=alt.Scale(type="log"), title=f"{FIRST} / {SECOND}, {what}"),
                                         x2="95% high:Q")
    points = base.mark_point(filled=True, size=60).encode(
        x="ratio:Q", color=alt.Color("verdict:N", title=None, legend=alt.Legend(orient="bottom", columns=1, labelLimit=400)),
        tooltip=["comparison", "label", alt.Tooltip("ratio:Q", format=".2f"), alt.Tooltip("95% low:Q", format=".2f"),
                 alt.Tooltip("95% high:Q", format=".2f"), alt.Tooltip("p (Holm):Q", format=".2g"), "verdict"])
    one = base.transform_aggregate(rows="count()").mark_rule(strokeDash=[4, 4], color="#999").encode(
        x=alt.datum(1.0), y=alt.value(0), y2=alt.value(28 * len(shown)))  # one mark, no second dataset
    return (bars + points + one).properties(width=420, height=alt.Step(28), title=alt.TitleParams(
        f"{FIRST} above {SECOND} in {sum(decided.ratio > 1)} of {len(shown)} comparisons, below in "
        f"{sum(decided.ratio < 1)}", subtitle=[f"{what}: ratio per archive year and {FIRST} protection, 95% interval;",
                                                "machines as units, Holm over the comparisons"]))


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


def runs_per_period(chosen: pd.DataFrame) -> pd.DataFrame:
    """How many chosen runs each family has per list or year."""
    periods = period_order(chosen)
    table = chosen.pivot_table(index="family", columns="period", values="run_id", aggfunc="count", fill_value=0)
    return table[periods].reset_index()


def period_order(chosen: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(chosen.sort_values("period_order").period))


def medians(chosen: pd.DataFrame) -> pd.DataFrame:
    """Median score, bandwidth and metadata score per family and list (or year)."""
    return chosen.groupby(["family", "period"], sort=False).agg(
        runs=("run_id", "size"), score=("score", "median"), bw=("bw_gib_s", "median"),
        md=("md_kiops", "median"), best=("score", "max")).reset_index()


def chart_medians(med: pd.DataFrame, order: list[str]) -> alt.Chart:
    """Median score per family and list, one line per family (a point where a family has one list)."""
    top = med.loc[med.score.idxmax()]
    return alt.Chart(med).mark_line(point=True).encode(
        x=alt.X("period:O", sort=order, title="archive year"),
        y=alt.Y("score:Q", scale=alt.Scale(type="log"), title="median score (√(GiB/s · kIOPS))"),
        color=alt.Color("family:N", scale=colour(med.family), legend=alt.Legend(orient="bottom", columns=4)),
        tooltip=["family", "period", "runs", alt.Tooltip("score:Q", format=".2f"),
                 alt.Tooltip("bw:Q", format=".2f", title="median bw (GiB/s)"),
                 alt.Tooltip("md:Q", format=".2f", title="median md (kIOPS)")],
    ).properties(width=440, height=280, title=alt.TitleParams(
        f"Highest median: {top.family} in {top.period} ({top.score:,.0f}, {top.runs} runs)",
        subtitle="median of the valid runs per family and archive year of this copy"))


def chart_bw_md(chosen: pd.DataFrame) -> alt.Chart:
    """Bandwidth against metadata score, one point per valid run, coloured by family."""
    ratio = balance(chosen).set_index("family").median_md_per_bw
    return alt.Chart(chosen).mark_point(filled=True, opacity=0.7).encode(
        x=alt.X("bw_gib_s:Q", scale=alt.Scale(type="log"), title="bandwidth score (GiB/s)"),
        y=alt.Y("md_kiops:Q", scale=alt.Scale(type="log"), title="metadata score (kIOPS)"),
        color=alt.Color("family:N", scale=colour(chosen.family), legend=alt.Legend(orient="bottom", columns=4)),
        shape=alt.Shape("family:N", legend=None),
        tooltip=["run_key", "institution", "system", "family", "period",
                 alt.Tooltip("score:Q", format=".2f"), alt.Tooltip("bw_gib_s:Q", format=".2f"),
                 alt.Tooltip("md_kiops:Q", format=".2f")],
    ).properties(width=420, height=360, title=alt.TitleParams(
        f"Highest median kIOPS per GiB/s: {ratio.idxmax()} ({ratio.max():,.1f})",
        subtitle=f"{len(chosen)} valid runs; source: io500_scores"))


def balance(chosen: pd.DataFrame) -> pd.DataFrame:
    """Metadata score (kIOPS) per GiB/s of bandwidth score, median and quartiles per family."""
    ratio = chosen[chosen.bw_gib_s > 0].assign(r=lambda d: d.md_kiops / d.bw_gib_s)
    out = ratio.groupby("family").r.agg(runs="size", median_md_per_bw="median",
                                        q25=lambda s: s.quantile(0.25), q75=lambda s: s.quantile(0.75))
    return out.reset_index().sort_values(["median_md_per_bw", "family"], ascending=[False, True])


def phase_relative(con, chosen: pd.DataFrame) -> pd.DataFrame:
    """Per family and scored phase: the family's median over the median of all chosen runs."""
    con.register("_chosen", chosen[["run_id", "family"]])
    try:
        return con.execute(
            """
            WITH per_run AS (
                SELECT c.family, p.phase, p.value FROM _chosen c JOIN io500_phases p USING (run_id)
                WHERE list_contains(?, p.phase) AND p.value > 0),
            field AS (SELECT phase, median(value) AS field_median FROM per_run GROUP BY phase)
            SELECT family, phase, count(*) AS runs, median(value) AS family_median, field_median,
                   median(value) / field_median AS relative
            FROM per_run JOIN field USING (phase) GROUP BY family, phase, field_median ORDER BY family, phase
            """,
            [PHASES],
        ).df()
    finally:
        con.unregister("_chosen")


def chart_phase_relative(rel: pd.DataFrame) -> alt.Chart:
    """Heat map of phase medians relative to the field, with the ratio printed in each cell."""
    top = rel.loc[rel.relative.idxmax()]
    base = alt.Chart(rel).encode(
        x=alt.X("phase:N", sort=PHASES, title=None), y=alt.Y("family:N", title=None),
        tooltip=["family", "phase", "runs", alt.Tooltip("family_median:Q", format=".2f"),
                 alt.Tooltip("field_median:Q", format=".2f"), alt.Tooltip("relative:Q", format=".2f")])
    cells = base.mark_rect().encode(color=alt.Color(
        "relative:Q", scale=alt.Scale(type="log", scheme="blueorange", domainMid=1),
        title="family median / field median (ratio)", legend=alt.Legend(orient="bottom")))
    return (cells + base.mark_text(fontSize=9).encode(text=alt.Text("relative:Q", format=".1f"))).properties(
        width=460, height=max(60, 24 * rel.family.nunique()), title=alt.TitleParams(
            f"Largest lead: {top.family} in {top.phase}, {top.relative:.1f} × the field median",
            subtitle="source: io500_phases, io500_scores"))


# ---------------------------------------------------------------- Tianhe-2E: Lustre (SC19) and DAOS (ISC20)

def tianhe_runs(con) -> pd.DataFrame:
    """The Tianhe-2E runs, and which equals the SC19 list's printed score at its two decimals."""
    sc19 = published.load("seed002_sc19_list")
    printed = sc19[(sc19.row == "Tianhe-2E") & (sc19.column == "score")].value.item()
    runs = con.execute(
        """
        SELECT r.run_key, r.run_id, r.year, s.score, s.bw_gib_s, s.md_kiops, s.reported_score, s.valid, g.era,
               g.benchmark
        FROM io500_runs r JOIN io500_scores s USING (run_id) LEFT JOIN setups g USING (run_id)
        WHERE r.institution = ? AND r.system = ? ORDER BY r.run_key
        """,
        [TIANHE["institution"], TIANHE["system"]],
    ).df()
    runs["matches_sc19_score"] = (runs.score - printed).abs() <= PRINTED_SCORE_HALF_UNIT
    return runs


def tianhe_slide_vs_raw(con, run_id: int) -> pd.DataFrame:
    """Seed 002's Tianhe-2E phase table beside the SC19 run's values, compared at the printed precision."""
    slide = published.load("seed002_phase_tables")
    slide = slide[slide.table == "tianhe2e"].assign(phase=lambda d: d.column.map(SLIDE_PHASE))
    raw = con.execute("SELECT phase, value AS raw FROM io500_phases WHERE run_id = ? ORDER BY position",
                      [run_id]).df()
    table = slide[["column", "phase", "printed", "value"]].rename(
        columns={"column": "slide label", "value": "published"}).merge(raw, on="phase", how="left")
    decimals = table.printed.str.split(".").str[1].str.len().fillna(0).astype(int)
    table["raw at printed precision"] = [round(v, d) for v, d in zip(table.raw, decimals)]
    table["equal"] = table["raw at printed precision"] == table.published
    return table


def daos_rescored() -> pd.DataFrame:
    """The two DAOS result_summary listings printed on seed 002's ISC20 slides, rescored from their phases
    by io500_runs.recompute beside the slide's [SCORE] line (whose garbled numbers the note column explains)."""
    daos = published.load("seed002_daos_isc20_result_summary")
    rows = []
    for table, group in daos[daos.row.isin(PHASES) & (daos.column == "value")].groupby("table", sort=False):
        s = io500_runs.recompute(dict(zip(group.row, group.value)))
        printed = daos[(daos.table == table) & (daos.row == "SCORE")].set_index("column")
        rows.append({"run": DAOS_TABLES[table], "bw (GiB/s)": s.bw_gib_s, "printed bw": printed.value["Bandwidth"],
                     "md (kIOPS)": s.md_kiops, "printed md": printed.value["IOPS"], "score": s.score,
                     "printed score": printed.value["TOTAL"],
                     "garbled printed numbers": int(printed.note.str.startswith("garbled").sum())})
    return pd.DataFrame(rows)


def tianhe_phases(con, lustre_run_id: int | None) -> pd.DataFrame:
    """Phase values, long form: the Lustre run's from io500_phases (when in the database) and the two DAOS
    runs' as printed on seed 002's slides."""
    daos = published.load("seed002_daos_isc20_result_summary")
    daos = daos[daos.row.isin(PHASES) & (daos.column == "value")]
    daos = pd.DataFrame({"run": daos.table.map(DAOS_TABLES), "phase": daos.row, "value": daos.value})
    if lustre_run_id is None:
        return daos.reset_index(drop=True)
    lustre = con.execute("SELECT ? AS run, phase, value FROM io500_phases WHERE run_id = ? AND list_contains(?, phase) "
                         "ORDER BY position", [LUSTRE_LABEL, lustre_run_id, PHASES]).df()
    return pd.concat([lustre, daos], ignore_index=True)


def server_counts(con, run_id: int | None) -> pd.DataFrame:
    """What each source says of the two setups' servers and clients, as printed: the Lustre run's phase logs
    (client nodes and tasks, where every log gives the same), its own io500_info lines (io500_system_info) and
    its SC19 slide; for the DAOS runs, seed 002's slide 'ISC 2020' ("Using the same storage servers", then
    listings that print no client count) and its lessons slide ("We use 24 servers ... and 24 clients"), which
    do not agree and name no run."""
    seed = published.load("seed002_tianhe_servers")
    rows = [{"setup": "Lustre, SC19", "source": "seed 002 slide 'SC 2019'",
             "storage servers": _cell(seed, "lustre_sc19", "storage servers"),
             "metadata servers": _cell(seed, "lustre_sc19", "metadata servers"),
             "client nodes": _cell(seed, "lustre_sc19", "client nodes"),
             "tasks per client node": _cell(seed, "lustre_sc19", "processes on each node")},
            {"setup": "DAOS, ISC20", "source": "seed 002 slide 'ISC 2020'",
             "storage servers": _printed(seed, "daos_isc20", "storage servers")},
            {"setup": "DAOS, ISC20", "source": "seed 002 slide '# of CPU cores matters.'",
             "storage servers": _cell(seed, "daos_isc20", "servers"),
             "client nodes": _cell(seed, "daos_isc20", "clients")}]
    # a database ingested before io500_system_info existed lacks the view until it is rebuilt
    if run_id is not None and _has_view(con, "io500_system_info"):
        info = dict(con.execute("SELECT key, value FROM io500_system_info WHERE run_id = ?", [run_id]).fetchall())
        if info:
            rows.insert(0, {"setup": "Lustre, SC19", "source": "the run's own log (io500_info_* lines)",
                            **{col: _int(info.get(key)) for col, key in [
                                ("storage servers", "num_data_server_nodes"),
                                ("metadata servers", "num_metadata_server_nodes"),
                                ("client nodes", "num_client_nodes"), ("tasks per client node", "procs_per_node")]}})
        logged = phase_log_clients(con, run_id)
        if len(logged) and logged.nodes.nunique() == 1 and logged.tasks.nunique() == 1:
            rows.insert(1 if info else 0, {
                "setup": "Lustre, SC19", "source": "the run's phase logs (IOR, mdtest)",
                "client nodes": int(logged.nodes.iloc[0]), "tasks": int(logged.tasks.iloc[0])})
    columns = ["setup", "source", "storage servers", "metadata servers", "client nodes", "tasks per client node",
               "tasks"]
    return pd.DataFrame(rows, columns=columns, dtype=object).replace({np.nan: None})


def clients_text(logged: pd.DataFrame, daos_clients: int) -> str:
    """What the data says of the Tianhe-2E pair's clients (Markdown): the Lustre run's client nodes and tasks as
    its phase logs count them (`phase_log_clients`), against the DAOS listings, which print none, and the talk's
    client count, which names no run."""
    if logged.empty:
        lustre = "The Lustre run's phase logs are not in this database"
    elif logged.nodes.nunique() == 1 and logged.tasks.nunique() == 1:
        lustre = (f"The Lustre run's logs count {int(logged.nodes.iloc[0]):,} client nodes and "
                  f"{int(logged.tasks.iloc[0]):,} tasks")
    else:
        lustre = (f"The Lustre run's logs count {int(logged.nodes.min()):,}–{int(logged.nodes.max()):,} client nodes "
                  f"and {int(logged.tasks.min()):,}–{int(logged.tasks.max()):,} tasks")
    return (f"{lustre}; the DAOS listing prints no client count (a slide names {daos_clients:,} clients without "
            "saying for which run).")


def _cell(seed: pd.DataFrame, table: str, column: str) -> int:
    return int(seed[(seed.table == table) & (seed.column == column)].value.item())


def _printed(seed: pd.DataFrame, table: str, column: str) -> str:
    return str(seed[(seed.table == table) & (seed.column == column)].printed.item())


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def same_servers(lustre: pd.Series | None, rescored: pd.DataFrame) -> pd.DataFrame:
    """The two whole systems on the same storage servers (seed 002, slide 'ISC 2020'): bandwidth, metadata and
    total score of the SC19 Lustre run (raw log) and the ISC20 DAOS full run (slide, rescored), and DAOS over
    Lustre. No division by servers: the seed gives no one count of DAOS servers."""
    full = rescored.set_index("run").loc[DAOS_TABLES["daos_isc20_full"]]
    rows = {"bandwidth (GiB/s)": ("bw_gib_s", "bw (GiB/s)"), "metadata (kIOPS)": ("md_kiops", "md (kIOPS)"),
            "score": ("score", "score")}
    return pd.DataFrame([{"measure": name, "Lustre, SC19 (raw log)": None if lustre is None else float(lustre[lk]),
                          "DAOS, ISC20 full run (slide)": float(full[dk]),
                          "DAOS / Lustre": None if lustre is None else float(full[dk]) / float(lustre[lk])}
                         for name, (lk, dk) in rows.items()])


def chart_phases(values: pd.DataFrame, title: list[str]) -> alt.Chart:
    """Phase values of a few runs as points on a log axis, one colour per run, legend below."""
    return alt.Chart(values).mark_point(filled=True, size=70).encode(
        x=alt.X("value:Q", scale=alt.Scale(type="log"), title=AXIS_PHASE),
        y=alt.Y("phase:N", sort=PHASES, title=None),
        color=alt.Color("run:N", title=None, legend=alt.Legend(orient="bottom", columns=1, labelLimit=400)),
        shape=alt.Shape("run:N", title=None),
        tooltip=["run", "phase", alt.Tooltip("value:Q", format=".3f")],
    ).properties(width=400, title=title)


def phases_above(values: pd.DataFrame, reference: str) -> pd.DataFrame:
    """For each run of a long phase table other than `reference`: in how many bandwidth and metadata phases
    it is above the reference run."""
    wide = values.pivot(index="phase", columns="run", values="value")
    rows = []
    for col in [c for c in wide.columns if c != reference]:
        higher = wide[col] > wide[reference]
        rows.append({"run": col, "metadata phases above": int(higher[list(STANDARD_MD_PHASES)].sum()),
                     "bandwidth phases above": int(higher[list(STANDARD_BW_PHASES)].sum()),
                     "bandwidth phases above (names)": ", ".join(p for p in STANDARD_BW_PHASES if higher[p]) or "none"})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- NextGenIO GekkoFS (seed 004)

def gekko_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """EPCC NextGENIO GekkoFS runs, and whether one's score equals seed 004's printed TOTAL."""
    gekko = published.load("seed004_gekkofs_io500")
    printed = gekko[(gekko.row == "SCORE") & (gekko.column == "TOTAL")].value.item()
    found = runs[(runs.institution == GEKKO["institution"]) & (runs.system == GEKKO["system"])
                 & (runs.family == GEKKO["family"])].copy()
    found["equals_seed_004"] = (found.score - printed).abs() <= 0.0005
    return found[["run_key", "run_id", "year", "release", "score", "bw_gib_s", "md_kiops", "valid",
                  "equals_seed_004"]]


def gekko_phases(con, run_ids: list[int]) -> pd.DataFrame:
    """Seed 004's GekkoFS phases (its `lor easy read` is the text extraction of `ior easy read`) and the
    archive runs' phases, long form."""
    gekko = published.load("seed004_gekkofs_io500")
    slide = gekko[gekko.column == "value"].assign(
        phase=lambda d: d.row.replace({"lor easy read": "ior easy read"}).str.replace(" ", "-"),
        run="seed 004 slide (published)")[["run", "phase", "value"]]
    raw = con.execute(
        """
        SELECT r.run_key || ' (raw)' AS run, p.phase, p.value
        FROM io500_runs r JOIN io500_phases p USING (run_id)
        WHERE list_contains(?, r.run_id) AND list_contains(?, p.phase) ORDER BY r.run_id, p.position
        """,
        [run_ids, PHASES],
    ).df()
    return pd.concat([slide, raw], ignore_index=True)


# ---------------------------------------------------------------- seed 002's lists

def printed_list(name: str) -> pd.DataFrame:
    """A published list in wide form: one row per printed row, its strings and numbers."""
    frame = published.load(name)
    wide = frame.pivot(index="row", columns="column", values="printed")
    numbers = frame[frame.column.isin(["score", "bw (GiB/s)", "md (klOP/s)"])].pivot(
        index="row", columns="column", values="value")
    return pd.DataFrame({
        "list": wide["list id"] if "list id" in wide else wide["list"], "institution": wide.institution,
        "system": wide.system, "published_score": numbers["score"], "published_bw": numbers["bw (GiB/s)"],
        "published_md": numbers["md (klOP/s)"]}).reset_index()


def list_against_raw(con, name: str) -> pd.DataFrame:
    """Each printed row beside the raw runs of the same year whose score equals the printed one at two decimals."""
    con.register("_printed", printed_list(name))
    try:
        found = con.execute(
            """
            SELECT p.list, p.institution, p.system, p.published_score, p.published_bw, p.published_md,
                   r.run_key, r.run_id, r.institution AS raw_institution, r.system AS raw_system,
                   s.score AS raw_score, s.bw_gib_s AS raw_bw, s.md_kiops AS raw_md
            FROM _printed p
            LEFT JOIN (io500_runs r JOIN io500_scores s USING (run_id))
              ON r.year = 2000 + CAST(right(p.list, 2) AS INTEGER) AND abs(s.score - p.published_score) <= ?
            ORDER BY p.published_score DESC, p.row, r.run_id
            """, [PRINTED_SCORE_HALF_UNIT]
        ).df()
    finally:
        con.unregister("_printed")
    found["in raw logs"] = found.run_id.notna()
    found["names agree"] = (found.institution.str.lower() == found.raw_institution.str.lower()) & (
        found.system.str.lower() == found.raw_system.str.lower())
    found["numbers agree"] = ((found.published_score == found.raw_score.round(2))
                              & (found.published_bw == found.raw_bw.round(2))
                              & (found.published_md == found.raw_md.round(2)))
    return found


def featured_families(runs: pd.DataFrame, run_ids) -> pd.DataFrame:
    """The family of each run named in the chapter and the evidence for it."""
    return runs[runs.run_id.isin(list(run_ids))][
        ["run_key", "institution", "system", "filesystem", "year", "family", "family_reason"]]


def get_sources(con, run_ids) -> pd.DataFrame:
    """Source ids of every file of these runs (for present.sources)."""
    return con.execute("SELECT DISTINCT source_id FROM io500_run_files WHERE list_contains(?, run_id) "
                       "ORDER BY source_id", [sorted(int(i) for i in run_ids)]).df()


# ---------------------------------------------------------------- client nodes, lists, per client node

TEN_NODES = 10  # seed 002: "10-node list - Submissions use only 10 client nodes for the benchmark."
TEN_CLIENTS, OTHER_CLIENTS = "10 client nodes", "other client counts"
WOLF = {"institution": "Intel", "system": "Wolf"}


def _has_view(con, name: str) -> bool:
    return con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = ?", [name]).fetchall()[0][0] > 0


# Client nodes and tasks as each IOR and mdtest phase log linked to a run counts them (IOR's nodes derive from
# its tasks and clients per node, mdtest's from "launched with N total task(s) on M node(s)")
_PHASE_LOG_CLIENTS = """
    SELECT k.run_id, k.phase, t.nodes, t.tasks FROM io500_phase_log_links k JOIN ior_tests t USING (source_id)
    WHERE k.phase LIKE 'ior-%' AND t.nodes IS NOT NULL
    UNION ALL
    SELECT k.run_id, k.phase, m.nodes, m.launched_tasks AS tasks
    FROM io500_phase_log_links k JOIN raw_mdtest_summaries m USING (source_id)
    WHERE m.nodes IS NOT NULL"""


def phase_log_clients(con, run_id: int) -> pd.DataFrame:
    """Client nodes and tasks of one run as each of its phase logs counts them: phase, nodes, tasks."""
    return con.execute(f"SELECT phase, nodes, tasks FROM ({_PHASE_LOG_CLIENTS}) WHERE run_id = ? ORDER BY phase",
                       [run_id]).df()


def client_nodes(con) -> pd.DataFrame:
    """Client and data-server nodes per run. Client nodes as the run's own phase logs count them (IOR's
    `nodes`, mdtest's `on N node(s)`), where every linked log gives the same number; else as the submitter
    declared them in io500_info lines (num_client_nodes, client_nodes); else unknown. Data servers only as
    declared (num_data_server_nodes, ds_nodes): no log counts them."""
    if not _has_view(con, "io500_system_info"):  # a database ingested before the view existed
        return pd.DataFrame(columns=["run_id", "client_nodes", "nodes_from", "declared_client_nodes",
                                     "data_servers"]).astype({"run_id": "int64"})
    return con.execute(
        f"""
        WITH logged AS ({_PHASE_LOG_CLIENTS}),
        from_logs AS (SELECT run_id, min(nodes) AS nodes FROM logged GROUP BY run_id
                      HAVING min(nodes) = max(nodes)),
        declared AS (
            SELECT run_id,
                   max(TRY_CAST(value AS INTEGER)) FILTER (WHERE key IN ('num_client_nodes', 'client_nodes'))
                       AS client_nodes,
                   max(TRY_CAST(value AS INTEGER)) FILTER (WHERE key IN ('num_data_server_nodes', 'ds_nodes'))
                       AS data_servers
            FROM io500_system_info GROUP BY run_id)
        SELECT r.run_id, coalesce(l.nodes, d.client_nodes) AS client_nodes,
               CASE WHEN l.nodes IS NOT NULL THEN 'phase logs (IOR, mdtest)'
                    WHEN d.client_nodes IS NOT NULL THEN 'declared (io500_info)' ELSE 'unknown' END AS nodes_from,
               d.client_nodes AS declared_client_nodes, d.data_servers
        FROM io500_runs r LEFT JOIN from_logs l USING (run_id) LEFT JOIN declared d USING (run_id)
        ORDER BY r.run_id
        """
    ).df().astype({"client_nodes": "Int64", "declared_client_nodes": "Int64", "data_servers": "Int64"})


def per_client_node(chosen: pd.DataFrame, nodes: pd.DataFrame) -> pd.DataFrame:
    """The chosen runs with their client and server nodes, which IO500 list each can enter (every run the full
    list of its period; a run on exactly 10 client nodes also the 10-node list), and bandwidth and metadata
    score per client node and, where servers are declared, per data server."""
    out = chosen.merge(nodes, on="run_id", how="left")
    out["nodes_from"] = out.nodes_from.fillna("unknown")
    known = out.client_nodes.notna()
    out["list_kind"] = "client nodes unknown"
    out.loc[known, "list_kind"] = OTHER_CLIENTS
    out.loc[known & (out.client_nodes == TEN_NODES), "list_kind"] = TEN_CLIENTS
    out["bw_per_client_node"] = out.bw_gib_s / out.client_nodes.astype(float)
    out["md_per_client_node"] = out.md_kiops / out.client_nodes.astype(float)
    out["bw_per_data_server"] = out.bw_gib_s / out.data_servers.astype(float)
    out["md_per_data_server"] = out.md_kiops / out.data_servers.astype(float)
    return out


def declared_classification(con) -> pd.DataFrame:
    """How submitters classified their systems in io500_info lines (system_classification: production,
    Validation/CI, ...) and whether they declared a 10-node challenge run: runs per key and value as printed."""
    if not _has_view(con, "io500_system_info"):
        return pd.DataFrame(columns=["key", "value", "runs"])
    return con.execute(
        "SELECT key, value, count(DISTINCT run_id) AS runs FROM io500_system_info "
        "WHERE key IN ('system_classification', '10nodechallenge', 'include-in-10node', 'include-in-io500') "
        "GROUP BY key, value ORDER BY key, runs DESC, value").df()


def declared_against_logs(normalised: pd.DataFrame) -> pd.DataFrame:
    """Runs whose phase logs count a different number of client nodes than their submitter declared."""
    differ = normalised[(normalised.nodes_from == "phase logs (IOR, mdtest)") & normalised.declared_client_nodes.notna()
                        & (normalised.client_nodes != normalised.declared_client_nodes)]
    return differ[["run_key", "institution", "system", "year", "client_nodes", "declared_client_nodes"]]


def lists_apart(normalised: pd.DataFrame) -> pd.DataFrame:
    """Per list (or year): valid runs, how many have a known client count, how many ran on 10 client nodes
    (10-node list), and the median score on each list."""
    order = period_order(normalised)
    ten = normalised.list_kind == TEN_CLIENTS
    table = normalised.assign(ten=ten, known=normalised.client_nodes.notna()).groupby("period").agg(
        runs=("run_id", "size"), client_nodes_known=("known", "sum"), ten_node=("ten", "sum"),
        median_score_full=("score", "median"))
    table["median_score_10_node"] = normalised[ten].groupby("period").score.median()
    return table.reindex(order).reset_index()


def per_node_medians(normalised: pd.DataFrame) -> pd.DataFrame:
    """Median bandwidth and metadata score per client node, per family, archive year and client count (10 client
    nodes or other), over runs with a known client count: years kept apart, as systems of 2019 and 2023 differ."""
    known = normalised[normalised.client_nodes.notna()]
    out = known.groupby(["family", "period", "list_kind"]).agg(
        runs=("run_id", "size"), median_client_nodes=("client_nodes", "median"),
        bw_per_client_node=("bw_per_client_node", "median"), md_per_client_node=("md_per_client_node", "median"))
    return out.reset_index().sort_values(["family", "period", "list_kind"]).reset_index(drop=True)


def chart_per_client_node(normalised: pd.DataFrame) -> alt.Chart:
    """Per family, bandwidth against metadata score per client node, one point per run with a known client
    count; filled for the 10-node list, hollow for larger or smaller runs."""
    known = normalised[normalised.client_nodes.notna()].assign(client_nodes=lambda d: d.client_nodes.astype(int))
    med = known.groupby("family").bw_per_client_node.median()
    return alt.Chart(known).mark_point(size=50).encode(
        # powers of ten only: 170 px panels cannot hold the 2, 5 and 20 ticks of a log axis
        x=alt.X("bw_per_client_node:Q", scale=alt.Scale(type="log"), title="bandwidth per client node (GiB/s)",
                axis=alt.Axis(format="~g", tickCount=4, labelOverlap="greedy")),
        y=alt.Y("md_per_client_node:Q", scale=alt.Scale(type="log"), title="metadata per client node (kIOPS)",
                axis=alt.Axis(format="~g", tickCount=4, labelOverlap="greedy")),
        color=alt.Color("family:N", scale=colour(known.family), legend=None),
        shape=alt.Shape("list_kind:N", title=None, legend=alt.Legend(orient="bottom")),
        fill=alt.condition(alt.datum.list_kind == TEN_CLIENTS, "family:N", alt.value("transparent"),
                           scale=colour(known.family), legend=None),
        facet=alt.Facet("family:N", columns=3, title=None),
        # types stated: Altair cannot infer one from an empty column (a database without client counts)
        tooltip=["run_key:N", "institution:N", "system:N", "period:N", "client_nodes:Q", "nodes_from:N",
                 alt.Tooltip("bw_per_client_node:Q", format=".3f"), alt.Tooltip("md_per_client_node:Q", format=".2f")],
    ).properties(width=170, height=150, title=alt.TitleParams(
        f"Highest median bandwidth per client node: {med.idxmax()} ({med.max():.2f} GiB/s)" if len(med)
        else "No run here has a known client count",
        subtitle=f"{len(known)} valid runs with a known client count, every year; filled: 10 client nodes"))


# ---------------------------------------------------------------- Intel Wolf (DAOS) against Tianhe-2E (Lustre)

def wolf_and_tianhe(con, nodes: pd.DataFrame) -> pd.DataFrame:
    """Intel's Wolf and NUDT's Tianhe-2E runs with their lists and client and server nodes."""
    runs = con.execute(
        """
        SELECT r.run_key, r.run_id, r.institution, r.system, r.year, r.io500_version, s.score, s.bw_gib_s,
               s.md_kiops, s.valid
        FROM io500_runs r JOIN io500_scores s USING (run_id)
        WHERE (r.institution = ? AND r.system = ?) OR (r.institution = ? AND r.system = ?)
        ORDER BY r.system DESC, r.year, r.run_key
        """,
        [WOLF["institution"], WOLF["system"], TIANHE["institution"], TIANHE["system"]],
    ).df().merge(nodes, on="run_id", how="left")
    runs["release"] = runs.io500_version.fillna("not printed")
    return runs


def phases_per_client_node(con, runs: pd.DataFrame) -> pd.DataFrame:
    """Scored phase values of these runs divided by each run's client nodes, long form."""
    known = runs[runs.client_nodes.notna()]
    values = con.execute(
        "SELECT run_id, phase, value FROM io500_phases WHERE list_contains(?, run_id) AND list_contains(?, phase)",
        [known.run_id.astype(int).tolist(), PHASES]).df()
    out = values.merge(known[["run_id", "run_key", "system", "year", "client_nodes"]], on="run_id")
    out["per_client_node"] = out.value / out.client_nodes.astype(float)
    out["run"] = [f"{s} {k} ({int(y)}, {int(n)} client nodes)" for s, k, y, n in
                  zip(out.system, out.run_key, out.year, out.client_nodes)]
    return out


def phase_ratios(per_node: pd.DataFrame, wolf_keys: list[str], tianhe_keys: list[str]) -> pd.DataFrame:
    """Per phase, Wolf's value per client node over Tianhe-2E's, over every pair of the given runs:
    lowest and highest ratio and the number of pairs (a range over runs, not a confidence interval)."""
    wide = per_node.pivot_table(index="phase", columns="run_key", values="per_client_node")
    ratios = pd.concat({(w, t): wide[w] / wide[t] for w in wolf_keys for t in tianhe_keys}, axis=1)
    out = pd.DataFrame({"pairs": ratios.shape[1], "lowest ratio": ratios.min(axis=1),
                        "highest ratio": ratios.max(axis=1)}).reindex(PHASES)
    out.insert(0, "kind", ["bandwidth" if p in STANDARD_BW_PHASES else "metadata" for p in out.index])
    return out.reset_index()


def chart_wolf_tianhe(per_node: pd.DataFrame, title: list[str]) -> alt.Chart:
    """Phase values per client node of Wolf and Tianhe-2E runs, one colour per run, log axis."""
    return alt.Chart(per_node).mark_point(filled=True, size=60).encode(
        x=alt.X("per_client_node:Q", scale=alt.Scale(type="log"),
                title="per client node: GiB/s (ior phases) or kIOPS (mdtest, find)"),
        y=alt.Y("phase:N", sort=PHASES, title=None),
        color=alt.Color("run:N", title=None, legend=alt.Legend(orient="bottom", columns=1, labelLimit=400)),
        shape=alt.Shape("system:N", title=None),
        tooltip=["run", "phase", alt.Tooltip("value:Q", format=".3f"),
                 alt.Tooltip("per_client_node:Q", format=".4f")],
    ).properties(width=400, title=title)


# ---------------------------------------------------------------- the chapter's numbers and findings



def _runs_text(n: int) -> str:
    return f"{n:,} run" + ("" if n == 1 else "s")


BALANCE_FAMILY = f"{FIRST} over {SECOND}: metadata per GiB/s, every archive year"
TEN_FAMILY = f"{FIRST} over {SECOND} per client node on {TEN_NODES} client nodes, every year and measure"
SAME_SERVERS_FAMILY = "Tianhe-2E: the ISC20 DAOS run over the SC19 Lustre run"
LISTED_YEARS = 5  # the first finding names each year's ratio up to this many years (FIRST_FINDING_WORDS)


def dfs_runs(runs: pd.DataFrame) -> evidence.Count:
    """How many of these DAOS runs state the DFS API (-a DFS, --dfs.pool, API = DFS) in their own files (IOR/mdtest
    command lines, config.ini: io500_runs.files_evidence): DFS is DAOS's own file API, not POSIX."""
    dfs = runs.files_evidence.fillna("").str.startswith("DFS API")
    return evidence.count(int(dfs.sum()), len(runs), quantity=f"{FIRST} runs stating the DFS API", of=Replicate.RUN)


def _seed_text(seed: pd.DataFrame, table: str, column: str) -> tuple[str, int]:
    """A published text cell (as printed) and its line in the seed."""
    row = seed[(seed.table == table) & (seed.column == column)].iloc[0]
    return str(row.printed), int(row.line)


def same_servers_records(lustre: pd.Series, rescored: pd.DataFrame) -> list[evidence.Comparison]:
    """The ISC20 DAOS full run (seed 002's slide, rescored) against the SC19 Lustre run (raw log), metadata and
    bandwidth: one figure against one run, so evidence.decide leaves them undecided with no interval."""
    full = rescored.set_index("run").loc[DAOS_TABLES["daos_isc20_full"]]
    return evidence.decide([evidence.compare_to_reference(
        [float(full[dk])], float(lustre[lk]), quantity=quantity, unit=unit, replicate=Replicate.PUBLISHED,
        family=SAME_SERVERS_FAMILY, label="DAOS, ISC20 full run (slide)", reference_label="the SC19 Lustre run")
        for quantity, unit, lk, dk in [("metadata score", "kIOPS", "md_kiops", "md (kIOPS)"),
                                       ("bandwidth score", "GiB/s", "bw_gib_s", "bw (GiB/s)")]])


def caveats_text(seed_servers: pd.DataFrame, dfs: evidence.Count) -> str:
    """Seed 002's setup, wherever the Tianhe-2E pair's numbers are compared (Markdown): DAOS on tmpfs-emulated
    NVRAM (DRAM) against Lustre on NVMe with its server and client counts, and the API of the DAOS runs."""
    tmpfs, tmpfs_line = _seed_text(seed_servers, "daos_isc20", "NVRAM")
    spec_line = int(seed_servers[(seed_servers.table == "lustre_sc19")].line.iloc[0])
    return (f"Same storage servers, not the same media: the DAOS runs emulated NVRAM on tmpfs, in DRAM "
            f"(\"{tmpfs.rstrip('.')}\", seed 002 line {tmpfs_line}), while the Lustre run had "
            f"{_cell(seed_servers, 'lustre_sc19', 'storage servers')} storage servers with "
            f"{_cell(seed_servers, 'lustre_sc19', 'NVMe SSDs')} NVMe SSDs each, "
            f"{_cell(seed_servers, 'lustre_sc19', 'metadata servers')} metadata servers and "
            f"{_cell(seed_servers, 'lustre_sc19', 'client nodes')} client nodes (line {spec_line}): DRAM-backed DAOS "
            f"against Lustre on NVMe. The slides' DAOS listings print no API; the archive's {FIRST} runs use DAOS's "
            f"DFS API, not POSIX ({evidence.phrase(dfs)} state it in their IOR/mdtest command lines or config.ini"
            + ("" if dfs.k == dfs.n else "; the others keep none that says") + ").")


def eras_text(lustre: pd.Series, seed_servers: pd.DataFrame) -> str:
    """The Tianhe-2E pair's benchmark versions: the Lustre run's (its setup record) and the DAOS runs' (seed 002)."""
    version, line = _seed_text(seed_servers, "daos_isc20", "version")
    lustre_era = lustre.era if isinstance(lustre.era, str) else "a version its files do not state"
    return (f"The pair also crosses benchmark versions: the Lustre run is of the {lustre_era}"
            + (f" ({lustre.benchmark})" if isinstance(lustre.benchmark, str) else "")
            + f", the DAOS runs printed {version} (seed 002 line {line}), the C app of ISC20: their phases ran under "
            "different rules, so the pair is two designs as well as two file systems.")


def _first_finding(balance_years: pd.DataFrame) -> str:
    """The main result over every archive year holding both families (no year chosen): per data protection of the
    DAOS runs, the range of the years' ratios, and which comparisons evidence.decide decides (named while the
    finding stays within FIRST_FINDING_WORDS)."""
    records = list(balance_years.record)
    decided = [(row.year, row.protection, row.record) for row in balance_years.itertuples() if row.record.decided]
    parts = []
    for design, g in balance_years.groupby("protection", sort=False):
        ratios = [c.ratio for c in g.record]
        shown = (f"{g.year.iloc[0]} {ratios[0]:.1f}×" if len(ratios) == 1 else
                 f"{min(ratios):.1f}–{max(ratios):.1f}× ({plural(len(ratios), 'year')})")
        parts.append(f"{design} {shown}")
    text = (f"{FIRST} over {SECOND}, metadata per GiB/s by year: {'; '.join(parts)}; decided in **{len(decided)} of "
            f"{len(records)}**")
    named = text + ": " + ", ".join(f"{y} {p.split()[0]} protection {c.ratio:.1f}×" for y, p, c in decided) + "."
    words = len([w for w in named.split() if any(ch.isalnum() for ch in w)])
    return named if decided and words <= FIRST_FINDING_WORDS else text + "."


def report(con, *, families: list[str] = (), years: list[int] = ()) -> Report:
    """Everything the chapter shows: values its prose pastes (bools drive its `only-if` cells), tables, figures,
    findings and the evidence records they rest on. `families`: the families of the overview (empty: the seven
    with most valid runs); `years`: the archive years of the overview and the comparisons (empty: all)."""
    runs = get_runs(con)
    if runs.empty:
        return Report(values={"has_data": False}, note=present.no_data("IO500 runs", HOW_TO_ADD))
    cov = coverage(runs)
    wanted, families_note = select_families(runs, list(families))
    year_choice = selection.select(list(years), runs.year.dropna().astype(int), "archive year") if years else []
    chosen = choose(runs, wanted, year_choice)
    chosen = chosen.assign(md_per_bw=chosen.md_kiops / chosen.bw_gib_s)
    nodes = client_nodes(con)
    normalised = per_client_node(chosen, nodes)
    ten = normalised[normalised.list_kind == TEN_CLIENTS]
    balance_years = compare_by_year(chosen, "md_per_bw", quantity="metadata per GiB/s", unit="kIOPS per GiB/s",
                                    family=BALANCE_FAMILY)
    ten_years = pd.concat([compare_by_year(ten, col, quantity=name, unit=unit, family=TEN_FAMILY).assign(measure=name)
                           for col, name, unit in [("bw_per_client_node", "bandwidth per client node", "GiB/s"),
                                                   ("md_per_client_node", "metadata per client node", "kIOPS")]],
                          ignore_index=True)
    decide_tables(balance_years, ten_years)

    tianhe = tianhe_runs(con)
    matched = tianhe[tianhe.matches_sc19_score]
    lustre = matched.iloc[0] if len(matched) == 1 else None
    rescored = daos_rescored()
    pair_runs = wolf_and_tianhe(con, nodes)
    pair_phases = phases_per_client_node(con, pair_runs)
    wolf10, wolf10_year = None, None
    for year, g in pair_runs[pair_runs.client_nodes == TEN_NODES].groupby("year", sort=True):  # one year only
        w, t = g[g.system == WOLF["system"]].run_key.tolist(), g[g.system == TIANHE["system"]].run_key.tolist()
        if w and t:
            wolf10, wolf10_year = phase_ratios(pair_phases, w, t), int(year)
    historic = list_against_raw(con, "seed002_historic_top_list")
    sc19_list = list_against_raw(con, "seed002_sc19_list")
    sc19_wolf = sc19_list[(sc19_list.system == WOLF["system"]) & sc19_list["in raw logs"]].run_key.tolist()
    sc19_pair = [k for k in sc19_wolf if k in set(pair_phases.run_key)]
    sc19_ratios = (phase_ratios(pair_phases, sc19_pair, [lustre.run_key])
                   if sc19_pair and lustre is not None and lustre.run_key in set(pair_phases.run_key) else None)
    gekko = gekko_runs(runs)
    seed_servers = published.load("seed002_tianhe_servers")
    dfs = dfs_runs(chosen[chosen.family == FIRST])
    first_runs = chosen[chosen.family == FIRST]
    unprotected = evidence.count(int((first_runs.data_protection == UNPROTECTED).sum()), len(first_runs),
                                 quantity=f"{FIRST} runs without data protection", of=Replicate.CENSUS)
    counted = runs[~runs.duplicate]  # a census counts each run once, not its copies
    unknown = evidence.count(int((counted.attributed_by == io500_runs.UNKNOWN).sum()), len(counted),
                             quantity="runs whose attribution is unknown", of=Replicate.RUN)
    caveats = caveats_text(seed_servers, dfs)

    values = {**{k: Prose(v) if k.endswith("_text") else v for k, v in cov.items() if v is not None},
              "has_data": True, "families": ", ".join(wanted) or "none", "families_note": families_note,
              "first": FIRST, "second": SECOND, "ten_nodes": TEN_NODES, "valid_runs": len(chosen),
              "tianhe_runs": len(tianhe), "gekko_runs": len(gekko), "gekko_equal": int(gekko.equals_seed_004.sum()),
              "garbled": int(rescored["garbled printed numbers"].sum()), "score_numbers": 3 * len(rescored),
              "caveats_text": Prose(caveats), "dfs_text": evidence.phrase(dfs),
              "unprotected_text": evidence.phrase(unprotected),
              "unknown_text": evidence.phrase(unknown), "implausible_runs": int(runs.implausible.notna().sum()),
              "copies": int(runs.duplicate.sum()), "min_units": evidence.MIN_UNITS, **nextgenio_values()}
    values["coverage_short"] = (f"this copy: {_runs_text(cov['runs'])}"
                                + (f", archive years {cov['first_year']}–{cov['last_year']}" if cov["first_year"] else "")
                                + (f", none from {cov['missing_years']}" if cov["missing_years"] else ""))
    values["largest_difference"] = float(max((rescored[a] - rescored[b]).abs().max() for a, b in [
        ("bw (GiB/s)", "printed bw"), ("md (kIOPS)", "printed md"), ("score", "printed score")]))
    values["release_text"] = Prose(release_text(runs))
    values.update(lustre_storage_servers=_cell(seed_servers, "lustre_sc19", "storage servers"),
                  lustre_metadata_servers=_cell(seed_servers, "lustre_sc19", "metadata servers"))
    counts = normalised.nodes_from.value_counts()
    values.update(nodes_logs=int(counts.get("phase logs (IOR, mdtest)", 0)),
                  nodes_declared=int(counts.get("declared (io500_info)", 0)),
                  nodes_unknown=int(counts.get("unknown", 0)),
                  servers_declared=int(normalised.data_servers.notna().sum()))
    tables = {
        "tab-daos-servers": Table(frame=server_counts(con, None if lustre is None else int(lustre.run_id))),
        "tab-daos-rescored": Table(frame=rescored, formats={col: ",.6f" for col in rescored.columns
                                                            if col not in ("run", "garbled printed numbers")}),
        "tab-daos-same-servers": Table(frame=same_servers(lustre, rescored), formats={
            "Lustre, SC19 (raw log)": ",.2f", "DAOS, ISC20 full run (slide)": ",.2f", "DAOS / Lustre": ".2f"}),
        "tab-daos-lists-historic": Table(frame=list_table(historic), formats=LIST_FORMATS),
        "tab-daos-lists-sc19": Table(frame=list_table(sc19_list), formats=LIST_FORMATS),
        "tab-daos-hardware": Table(frame=published.load("seed004_nextgenio_hardware")[
            ["row", "column", "printed", "value", "unit", "note"]], formats={"value": ",.1f"}),
        "tab-daos-workflow": Table(frame=published.load("seed004_ecmwf_workflow")[["row", "printed", "value", "unit"]],
                                   formats={"value": ",.0f"})}
    figures = {"fig-daos-tianhe-phases": chart_phases(
        tianhe_phases(con, None if lustre is None else int(lustre.run_id)),
        ["Tianhe-2E: Lustre (io500_phases) and DAOS runs", "(seed 002, slides 'ISC 2020'); whole systems"])}
    evidence_records = [dfs, unknown, unprotected]
    findings, abstract = [], []
    if len(balance_years):
        evidence_records += list(balance_years.record)
        findings.append(Finding(text=_first_finding(balance_years), target="fig-daos-balance-years",
                                evidence=tuple(balance_years.record)))
        figures["fig-daos-balance-years"] = chart_compare_by_year(balance_years, "metadata (kIOPS) per GiB/s")
        tables["tab-daos-balance-years"] = Table(frame=comparison_table(balance_years), formats=COMPARISON_FORMATS)
    elif len(chosen):
        best = chosen.groupby("family").md_per_bw.median().idxmax()
        findings.append(Finding(text=f"No archive year here holds runs of both {FIRST} and {SECOND}; of the families "
                                f"compared, **{best}** has the highest median metadata per GiB/s "
                                f"({_runs_text(len(chosen))}).", target="tab-daos-balance"))
    else:
        findings.append(Finding(text=f"No IO500 run here has a known file-system family ({_runs_text(len(runs))}; "
                                f"{cov['outside_layout']:,} outside the archive layout), so no family is compared.",
                                target="tab-daos-same-servers"))
    if len(ten_years):
        evidence_records += list(ten_years.record)
        parts = [f"{row.year} {row.measure.split()[0]} {evidence.phrase(row.record)}" for row in ten_years.itertuples()]
        lacking = sorted({what_would_decide(c) for c in ten_years.record} - {""})
        findings.append(Finding(text=f"On {TEN_NODES} client nodes, {FIRST} over {SECOND} per client node: "
                                + "; ".join(parts) + (f". Why no verdict: {'; '.join(lacking)}." if lacking else "."),
                                target="tab-daos-ten-node", evidence=tuple(ten_years.record)))
        tables["tab-daos-ten-node"] = Table(frame=comparison_table(ten_years), formats=COMPARISON_FORMATS)
    if lustre is not None:
        md, bw = same_servers_records(lustre, rescored)
        evidence_records += [md, bw]
        values.update(lustre_run=lustre.run_key, same_md=md.ratio, same_bw=bw.ratio,
                      same_md_text=evidence.phrase(md), same_bw_text=evidence.phrase(bw))
        slide = tianhe_slide_vs_raw(con, int(lustre.run_id))
        values.update(slide_equal=int(slide.equal.sum()), slide_values=len(slide))
        clients = clients_text(phase_log_clients(con, int(lustre.run_id)), _cell(seed_servers, "daos_isc20", "clients"))
        values["clients_text"] = Prose(clients)
        findings.append(Finding(text=f"Tianhe-2E's full DAOS run (ISC20, never submitted: \"network performance "
                                f"issues\") against its SC19 Lustre run: metadata {values['same_md_text']}, bandwidth "
                                f"{values['same_bw_text']}. {caveats} {eras_text(lustre, seed_servers)}",
                                target="tab-daos-same-servers",
                                evidence=(md, bw, dfs)))
        abstract.append(Finding(
            text=f"Tianhe-2E's DAOS (DFS API; NVRAM emulated in DRAM on tmpfs) against its Lustre run (NVMe) on the "
                 f"same storage servers: metadata {md.ratio:.2f}×, bandwidth {bw.ratio:.2f}× (one run each: no "
                 "interval).", target="tab-daos-same-servers", evidence=(md, bw)))
        tables["tab-daos-slide"] = Table(frame=slide, formats={"published": ",.2f", "raw": ",.3f",
                                                                "raw at printed precision": ",.2f"})
        tables["tab-daos-phases-above"] = Table(frame=phases_above(tianhe_phases(con, int(lustre.run_id)), LUSTRE_LABEL))
    if wolf10 is not None:
        above = evidence.count(int((wolf10["lowest ratio"] > 1).sum()), len(wolf10), of=Replicate.CENSUS,
                               quantity="phases where Wolf is above Tianhe-2E per client node in every pair of runs")
        findings.append(Finding(text=f"On {TEN_NODES} client nodes in {wolf10_year}, Intel's Wolf (DAOS) is above "
                                f"Tianhe-2E (Lustre) per client node in **{above.k} of {above.n} phases** over "
                                f"all {int(wolf10.pairs.iloc[0])} pairs of runs (one Wolf run: a range, not an interval).",
                                target="tab-daos-wolf-10", evidence=(above,)))
        values["wolf10_year"] = wolf10_year
        tables["tab-daos-wolf-10"] = Table(frame=wolf10, formats={"lowest ratio": ",.2f", "highest ratio": ",.2f"})
    lists = [historic, sc19_list]
    found = evidence.count(sum(int(t["in raw logs"].sum()) for t in lists), sum(len(t) for t in lists),
                           quantity="rows of seed 002's lists with a raw run of the same score", of=Replicate.CENSUS)
    evidence_records.append(found)
    findings.append(Finding(text=f"**{found.k} of the {found.n} rows** of seed 002's two printed lists have a raw run "
                            "with the same score here, "
                            f"{sum(int((t['in raw logs'] & t['numbers agree']).sum()) for t in lists)} with score, "
                            "bandwidth and metadata equal at two decimals.", target="tab-daos-lists-historic",
                            evidence=(found,)))
    if len(gekko):
        printed = evidence.count(int(gekko.equals_seed_004.sum()), len(gekko), of=Replicate.CENSUS,
                                 quantity="NextGENIO GekkoFS runs with the score seed 004's slide prints")
        findings.append(Finding(text=f"None of the {_runs_text(len(gekko))} of EPCC's NextGENIO GekkoFS here has the "
                                "score printed on seed 004's slide." if not printed.k else
                                f"{printed.k} of the {_runs_text(len(gekko))} of EPCC's "
                                "NextGENIO GekkoFS has the score printed on seed 004's slide.", target="tab-daos-gekko",
                                evidence=(printed,)))
        tables["tab-daos-gekko"] = Table(frame=gekko.drop(columns="run_id"), formats={
            "year": ".0f", "score": ",.3f", "bw_gib_s": ",.3f", "md_kiops": ",.3f"})
        figures["fig-daos-gekko"] = chart_phases(gekko_phases(con, gekko.run_id.tolist()), [
            "NextGenIO GekkoFS: seed 004 slide 'Hardware performance' (published)",
            "against the archive's runs (io500_phases)"])
    if len(chosen):
        tables.update({
            "tab-daos-periods": Table(frame=runs_per_period(chosen)),
            "tab-daos-balance": Table(frame=balance(chosen).rename(columns={
                "median_md_per_bw": "median kIOPS per GiB/s", "q25": "25th pct", "q75": "75th pct"}),
                formats={"median kIOPS per GiB/s": ",.2f", "25th pct": ",.2f", "75th pct": ",.2f"}),
            "tab-daos-lists-apart": Table(frame=lists_apart(normalised).rename(columns={
                "period": "year", "runs": "valid runs", "client_nodes_known": "client nodes known",
                "ten_node": "on 10 client nodes", "median_score_full": "median score",
                "median_score_10_node": "median score, 10 client nodes"}),
                formats={"median score": ",.2f", "median score, 10 client nodes": ",.2f"}),
            "tab-daos-node-medians": Table(frame=per_node_medians(normalised).rename(columns={
                "period": "year", "list_kind": "client nodes", "median_client_nodes": "median nodes",
                "bw_per_client_node": "bw / node (GiB/s)", "md_per_client_node": "md / node (kIOPS)"}),
                formats={"median nodes": ",.0f", "bw / node (GiB/s)": ",.3f", "md / node (kIOPS)": ",.2f"}),
            "tab-daos-declared": Table(frame=declared_classification(con)),
            "tab-daos-differ": Table(frame=declared_against_logs(normalised).rename(columns={
                "client_nodes": "client nodes (logs)", "declared_client_nodes": "client nodes (declared)"}),
                formats={"year": ".0f"})})
        figures.update({"fig-daos-medians": chart_medians(medians(chosen), period_order(chosen)),
                        "fig-daos-bw-md": chart_bw_md(chosen),
                        "fig-daos-phase-relative": chart_phase_relative(phase_relative(con, chosen)),
                        "fig-daos-per-client-node": chart_per_client_node(normalised)})
        values["files_overview"] = present.files_link(present.sources(con, get_sources(con, chosen.run_id).source_id).path,
                                                 "The files of the runs compared")
    if len(pair_phases):
        tables["tab-daos-pair-runs"] = Table(frame=pair_runs[[
            "run_key", "system", "year", "release", "score", "bw_gib_s", "md_kiops", "client_nodes", "nodes_from"]].rename(
            columns={"bw_gib_s": "bw (GiB/s)", "md_kiops": "md (kIOPS)", "client_nodes": "client nodes",
                     "nodes_from": "counted by"}),
            formats={"year": "d", "score": ",.2f", "bw (GiB/s)": ",.2f", "md (kIOPS)": ",.1f"})
        figures["fig-daos-wolf-tianhe"] = chart_wolf_tianhe(pair_phases, [
            "Wolf (DAOS) and Tianhe-2E (Lustre) per client node",
            "every run of both systems with known client nodes; source: io500_phases, phase logs"])
    if sc19_ratios is not None:
        tables["tab-daos-wolf-sc19"] = Table(frame=sc19_ratios, formats={"lowest ratio": ",.2f", "highest ratio": ",.2f"})
    featured = featured_run_ids(lustre, gekko, historic, sc19_list)
    if featured:
        tables["tab-daos-featured"] = Table(frame=featured_families(runs, featured).drop(columns="institution"),
                                            formats={"year": ".0f"})
        tables["tab-daos-featured-files"] = Table(frame=present.sources(con, get_sources(con, featured).source_id))
    values.update({"has_overview": len(chosen) > 0, "no_overview": len(chosen) == 0,
                   "has_compare": len(balance_years) > 0, "has_ten": len(ten_years) > 0,
                   "has_pairs": len(pair_phases) > 0, "has_wolf10": wolf10 is not None,
                   "has_wolf_sc19": sc19_ratios is not None, "has_lustre": lustre is not None,
                   "no_lustre": lustre is None, "has_gekko": len(gekko) > 0, "no_gekko": len(gekko) == 0,
                   "has_featured": len(featured) > 0,
                   "pinned_missing": families_note.startswith("chosen in the parameters; left out")})
    return Report(values=values, tables=tables, figures=figures, findings=findings, evidence=evidence_records,
                  abstract=abstract)


HOW_TO_ADD = ("Ingest IO500 submissions (ideally in the archive's "
              "`<institution>/<system>/<file system>/<year>/submission-<id>/` layout, which gives each run its "
              "file-system family) with `python -m iobook ingest --db my.duckdb DIR` or build the book from them "
              "with `python -m iobook book --data DIR`.")

COMPARISON_FORMATS = {"ratio": ".2f", "95% low": ".2f", "95% high": ".2f", "p": ".2g", "p (Holm)": ".2g"}
LIST_FORMATS = {"published": ",.2f", "raw score": ",.3f"}


def list_table(found: pd.DataFrame) -> pd.DataFrame:
    """A printed list against the raw logs for the page."""
    return pd.DataFrame({
        "list": found.list, "printed institution / system": found.institution + " / " + found.system,
        "published": found.published_score, "run_key": found.run_key,
        "raw institution / system": found.raw_institution + " / " + found.raw_system, "raw score": found.raw_score,
        "names agree": found["names agree"], "numbers agree": found["numbers agree"]})


def nextgenio_values() -> dict:
    """Seed 004's NextGenIO setup numbers the chapter checks against each other: CPUs per node, TB of DCPMM per
    CPU, and their product (the slide prints 3TB per node)."""
    hardware = published.load("seed004_nextgenio_hardware").set_index(["row", "column"]).value
    cpus, dcpmm = float(hardware[("Cascade lake CPUs", "per node")]), float(hardware[("each", "DCPMM")])
    return {"cpus_per_node": cpus, "dcpmm_per_cpu": dcpmm, "dcpmm_per_node": cpus * dcpmm}


def featured_run_ids(lustre: pd.Series | None, gekko: pd.DataFrame, historic: pd.DataFrame,
                     sc19_list: pd.DataFrame) -> list[int]:
    """The runs the chapter compares one by one: the SC19 Tianhe-2E run, the GekkoFS runs, the lists' matches."""
    return sorted({*([] if lustre is None else [int(lustre.run_id)]), *map(int, gekko.run_id),
                   *historic.run_id.dropna().astype(int), *sc19_list.run_id.dropna().astype(int)})
