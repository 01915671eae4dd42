"""IO500 runs by file-system family (seeds 002 and 004): how DAOS, Lustre and the others reach their scores,
NUDT's Tianhe-2E Lustre run (SC19) beside its unsubmitted DAOS runs (ISC20) per storage server, EPCC's GekkoFS
run, and seed 002's printed lists against the raw logs."""
from __future__ import annotations

import altair as alt
import pandas as pd

from .. import families, io500_runs, published
from ..parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES
from .io500_score import list_label

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


def colour(names) -> alt.Scale:
    """The book's family colours (iobook.families.COLOURS) for these families."""
    domain, range_ = families.colours(names)
    return alt.Scale(domain=domain, range=range_)


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run with its family (iobook.families.resolve), list, score, validity and whether it is a
    later copy of a run submitted twice (io500_duplicate_runs: the copy with the highest run_id is kept)."""
    runs = con.execute(
        """
        SELECT r.run_key, r.run_id, r.institution, r.system, r.filesystem, r.year, r.submission, r.io500_version,
               s.score, s.bw_gib_s, s.md_kiops, s.valid,
               r.run_id IN (SELECT run_id FROM io500_duplicate_runs) AS duplicate
        FROM io500_runs r JOIN io500_scores s USING (run_id) ORDER BY r.run_key
        """
    ).df()
    runs["list"] = runs.io500_version.map(list_label)
    return families.resolve(runs)


def archive_years(runs: pd.DataFrame) -> dict:
    """The archive years (<year> folders) that hold runs, their run counts, and the years missing between."""
    counts = runs.year.dropna().astype(int).value_counts().sort_index()
    missing = sorted(set(range(counts.index.min(), counts.index.max() + 1)) - set(counts.index)) if len(counts) else []
    return {"counts": counts, "missing": missing, "outside_layout": int(runs.year.isna().sum())}


def choose(runs: pd.DataFrame, wanted: list[str], years: list[int]) -> pd.DataFrame:
    """Valid runs with a positive score of the wanted families (and years; empty = all), each run once.
    `period` is the IO500 list where the run's version names it (ISC23, SC23), else its archive year."""
    chosen = runs[runs.valid & (runs.score > 0) & runs.family.isin(wanted) & ~runs.duplicate
                  & (runs.year.isin(years) if years else True)].copy()
    chosen["period"] = [lst if isinstance(lst, str) else f"{int(y)} (list not named)"
                        for lst, y in zip(chosen.list, chosen.year)]
    chosen["period_order"] = [(int(y), 0 if not isinstance(lst, str) else 1 if lst.startswith("ISC") else 2)
                              for lst, y in zip(chosen.list, chosen.year)]
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
        x=alt.X("period:O", sort=order, title="IO500 list (or archive year where the run does not name it)"),
        y=alt.Y("score:Q", scale=alt.Scale(type="log"), title="median score (√(GiB/s · kIOPS))"),
        color=alt.Color("family:N", scale=colour(med.family), legend=alt.Legend(orient="bottom", columns=4)),
        tooltip=["family", "period", "runs", alt.Tooltip("score:Q", format=".2f"),
                 alt.Tooltip("bw:Q", format=".2f", title="median bw (GiB/s)"),
                 alt.Tooltip("md:Q", format=".2f", title="median md (kIOPS)")],
    ).properties(width=440, height=280, title=alt.TitleParams(
        f"Highest median: {top.family} in {top.period} ({top.score:,.0f}, {top.runs} runs)",
        subtitle="median of the valid runs per family and list; source: io500_scores, io500_runs"))


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
        SELECT r.run_key, r.run_id, r.year, s.score, s.bw_gib_s, s.md_kiops, s.reported_score, s.valid
        FROM io500_runs r JOIN io500_scores s USING (run_id)
        WHERE r.institution = ? AND r.system = ? ORDER BY r.run_key
        """,
        [TIANHE["institution"], TIANHE["system"]],
    ).df()
    runs["matches_sc19_score"] = (runs.score - printed).abs() <= 0.005
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
    """Storage and metadata servers and client nodes of the two setups: the Lustre run's own io500_info
    lines (io500_system_info) and its SC19 slide, and the DAOS runs' lessons slide (published)."""
    seed = published.load("seed002_tianhe_servers")
    rows = [{"setup": "Lustre, SC19", "from": "seed 002 slide 'SC 2019'", "data servers": _cell(seed, "storage servers"),
             "metadata servers": _cell(seed, "metadata servers"), "client nodes": _cell(seed, "client nodes")},
            {"setup": "DAOS, ISC20", "from": "seed 002 slide '# of CPU cores matters.'",
             "data servers": _cell(seed, "servers"), "metadata servers": None, "client nodes": _cell(seed, "clients")}]
    # a database ingested before io500_system_info existed lacks the view until it is rebuilt
    has_info = con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'io500_system_info'").fetchall()[0][0]
    if run_id is not None and has_info:
        info = dict(con.execute("SELECT key, value FROM io500_system_info WHERE run_id = ?", [run_id]).fetchall())
        if info:
            rows.insert(0, {"setup": "Lustre, SC19", "from": "the run's own log (io500_info_* lines)",
                            **{col: _int(info.get(key)) for col, key in [
                                ("data servers", "num_data_server_nodes"),
                                ("metadata servers", "num_metadata_server_nodes"),
                                ("client nodes", "num_client_nodes")]}})
    return pd.DataFrame(rows)


def _cell(seed: pd.DataFrame, column: str) -> int:
    return int(seed[seed.column == column].value.item())


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def per_server(lustre: pd.Series | None, rescored: pd.DataFrame, servers: pd.DataFrame) -> pd.DataFrame:
    """Bandwidth and metadata score per data server of each setup."""
    count = servers.drop_duplicates("setup").set_index("setup")["data servers"]
    rows = [] if lustre is None else [{"run": LUSTRE_LABEL, "data servers": count["Lustre, SC19"],
                                       "bw (GiB/s)": lustre.bw_gib_s, "md (kIOPS)": lustre.md_kiops,
                                       "score": lustre.score}]
    rows += [{"run": r.run, "data servers": count["DAOS, ISC20"], "bw (GiB/s)": r["bw (GiB/s)"],
              "md (kIOPS)": r["md (kIOPS)"], "score": r.score} for _, r in rescored.iterrows()]
    out = pd.DataFrame(rows)
    out["bw per server (GiB/s)"] = out["bw (GiB/s)"] / out["data servers"]
    out["md per server (kIOPS)"] = out["md (kIOPS)"] / out["data servers"]
    return out


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
    return found[["run_key", "run_id", "year", "list", "score", "bw_gib_s", "md_kiops", "valid", "equals_seed_004"]]


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
              ON r.year = 2000 + CAST(right(p.list, 2) AS INTEGER) AND abs(s.score - p.published_score) <= 0.005
            ORDER BY p.published_score DESC, p.row, r.run_id
            """
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
    """Source ids of every file of these runs (for nb.sources)."""
    return con.execute("SELECT DISTINCT source_id FROM io500_run_files WHERE list_contains(?, run_id) "
                       "ORDER BY source_id", [sorted(int(i) for i in run_ids)]).df()


# ---------------------------------------------------------------- client nodes, lists, per client node

TEN_NODES = 10  # seed 002: "10-node list - Submissions use only 10 client nodes for the benchmark."
WOLF = {"institution": "Intel", "system": "Wolf"}


def _has_view(con, name: str) -> bool:
    return con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = ?", [name]).fetchall()[0][0] > 0


def client_nodes(con) -> pd.DataFrame:
    """Client and data-server nodes per run. Client nodes as the run's own phase logs count them (IOR's
    `nodes`, mdtest's `on N node(s)`), where every linked log gives the same number; else as the submitter
    declared them in io500_info lines (num_client_nodes, client_nodes); else unknown. Data servers only as
    declared (num_data_server_nodes, ds_nodes): no log counts them."""
    if not _has_view(con, "io500_system_info"):  # a database ingested before the view existed
        return pd.DataFrame(columns=["run_id", "client_nodes", "nodes_from", "declared_client_nodes",
                                     "data_servers"]).astype({"run_id": "int64"})
    return con.execute(
        """
        WITH logged AS (
            SELECT k.run_id, t.nodes FROM io500_phase_log_links k JOIN ior_tests t USING (source_id)
            WHERE k.phase LIKE 'ior-%' AND t.nodes IS NOT NULL
            UNION ALL
            SELECT k.run_id, m.nodes FROM io500_phase_log_links k JOIN raw_mdtest_summaries m USING (source_id)
            WHERE m.nodes IS NOT NULL),
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
    out.loc[known, "list_kind"] = "full list only"
    out.loc[known & (out.client_nodes == TEN_NODES), "list_kind"] = "10-node list (and full)"
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
    ten = normalised.list_kind == "10-node list (and full)"
    table = normalised.assign(ten=ten, known=normalised.client_nodes.notna()).groupby("period").agg(
        runs=("run_id", "size"), client_nodes_known=("known", "sum"), ten_node=("ten", "sum"),
        median_score_full=("score", "median"))
    table["median_score_10_node"] = normalised[ten].groupby("period").score.median()
    return table.reindex(order).reset_index()


def per_node_medians(normalised: pd.DataFrame) -> pd.DataFrame:
    """Median bandwidth and metadata score per client node, per family and list kind (10-node or full list),
    over runs with a known client count."""
    known = normalised[normalised.client_nodes.notna()]
    out = known.groupby(["family", "list_kind"]).agg(
        runs=("run_id", "size"), median_client_nodes=("client_nodes", "median"),
        bw_per_client_node=("bw_per_client_node", "median"), md_per_client_node=("md_per_client_node", "median"))
    return out.reset_index().sort_values(["family", "list_kind"]).reset_index(drop=True)


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
        fill=alt.condition(alt.datum.list_kind == "10-node list (and full)", "family:N", alt.value("transparent"),
                           scale=colour(known.family), legend=None),
        facet=alt.Facet("family:N", columns=3, title=None),
        tooltip=["run_key", "institution", "system", "period", "client_nodes", "nodes_from",
                 alt.Tooltip("bw_per_client_node:Q", format=".3f"), alt.Tooltip("md_per_client_node:Q", format=".2f")],
    ).properties(width=170, height=150, title=alt.TitleParams(
        f"Highest median bandwidth per client node: {med.idxmax()} ({med.max():.2f} GiB/s)",
        subtitle=f"{len(known)} valid runs with a known client count; filled: 10 client nodes (10-node list); "
                 "sources: io500_scores, phase logs, io500_system_info"))


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
    runs["list"] = [list_label(v) or f"{int(y)} (list not named)" for v, y in zip(runs.io500_version, runs.year)]
    return runs


def phases_per_client_node(con, runs: pd.DataFrame) -> pd.DataFrame:
    """Scored phase values of these runs divided by each run's client nodes, long form."""
    known = runs[runs.client_nodes.notna()]
    values = con.execute(
        "SELECT run_id, phase, value FROM io500_phases WHERE list_contains(?, run_id) AND list_contains(?, phase)",
        [known.run_id.astype(int).tolist(), PHASES]).df()
    out = values.merge(known[["run_id", "run_key", "system", "list", "client_nodes"]], on="run_id")
    out["per_client_node"] = out.value / out.client_nodes.astype(float)
    out["run"] = [f"{s} {k} ({lst}, {int(n)} client nodes)" for s, k, lst, n in
                  zip(out.system, out.run_key, out.list, out.client_nodes)]
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
