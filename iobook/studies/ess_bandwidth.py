"""IBM's Storage Scale System 6000 and Elastic Storage System (ESS) 3500 in IO500 runs (seed 000: "SC23 Scale
Performance Update", IBM, Storage Scale User Group Meeting at SC23): which runs are Storage Scale runs, IOR's
own bandwidth per IO500 phase, easy-phase bandwidth per building block against IBM's lab figures, and the
Storage Scale settings (mmlsconfig) that differ between runs once case, units and scope are set apart."""
from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import altair as alt
import pandas as pd

from .. import families, nb, published
from ..units import gb_to_gib, gib_to_gb

STORAGE_SCALE = "Storage Scale/GPFS"  # the family name in data/reference/filesystems.csv
BUILDING_BLOCKS_CSV = nb.REPO_ROOT / "data" / "reference" / "ibm_building_blocks.csv"
MODELS = {"3200": "ESS 3200", "3500": "ESS 3500", "6000": "Storage Scale System 6000"}
PHASE_ORDER = ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read", "ior-rnd4K-easy-read"]
EASY_PHASES = ["ior-easy-write", "ior-easy-read"]
TALK = '"SC23 Scale Performance Update" (IBM, Storage Scale User Group Meeting @ SC23)'
SIZE_SUFFIX = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}  # mmchconfig reads K/M/G/T as powers of 1024
HOW_TO_ADD = ("Add IO500 result folders of a Storage Scale (GPFS) system, with `mmlsconfig` and `mmlscluster` "
              "output saved beside them: `python -m iobook book --data DIR` ingests DIR (e.g. a copy of "
              "`<institution>/<system>/IBM Storage Scale/<year>/submission-<id>` from the IO500 archive). "
              "Runs of any other file system can be named in the `select_runs` parameter.")


def plural(n: int, word: str) -> str:
    """'1 run', '2 runs', '1,075 files': a count with its noun in the right number (English -s plural)."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run (`io500_runs`) with its file-system family (`iobook.families`), whether IBM submitted
    it (`ibm`: the institution starts with "IBM", as IBM Tucson, IBM Ehningen System, IBMDL do) and the IBM
    model its system and file-system names state (`model`: ESS 3200, ESS 3500, Storage Scale System 6000;
    "unknown" when they state none or the run is not a Storage Scale run), and a `label` for prose."""
    runs = con.execute(
        "SELECT run_id, run_key, institution, system, filesystem, year, submission, started, procs "
        "FROM io500_runs ORDER BY started, run_key").df()
    runs = families.resolve(runs)
    runs["ibm"] = runs.institution.fillna("").str.startswith("IBM")
    names = runs.system.fillna("") + " " + runs.filesystem.fillna("")
    model = names.str.extract(r"\b(3200|3500|6000)\b", expand=False).map(MODELS)
    runs["model"] = model.where(runs.family == STORAGE_SCALE).fillna("unknown")
    who = runs.institution.fillna("no institution") + (", " + runs.model).where(runs.model != "unknown", "")
    runs["label"] = runs.run_key + " (" + who + ")"
    return runs


def select_runs(runs: pd.DataFrame, requested: Iterable[str] | None = None) -> pd.DataFrame:
    """The runs the chapter shows. `requested`: exact run_keys (an unknown key raises nb.UnknownSelection
    naming the nearest); empty: IBM's own Storage Scale runs (the talk's focus), or, when the database holds
    none, every Storage Scale run (other sites' ESS and GPFS systems)."""
    if requested:
        keys = nb.select(requested, runs.run_key, "IO500 run")
        return runs[runs.run_key.isin(keys)].reset_index(drop=True)
    scale = runs[runs.family == STORAGE_SCALE]
    return (scale[scale.ibm] if scale.ibm.any() else scale).reset_index(drop=True)


def selection_rule(runs_all: pd.DataFrame, runs: pd.DataFrame, requested: Iterable[str] | None) -> str:
    """One sentence saying which runs select_runs chose and by which rule."""
    scale = runs_all[runs_all.family == STORAGE_SCALE]
    if requested:
        return f"The {plural(len(runs), 'run')} named in the `select_runs` parameter."
    if scale.ibm.any():
        return (f"IBM's own runs on Storage Scale: {len(runs):,} of the {len(scale):,} Storage Scale (GPFS) "
                f"IO500 runs in this database (name others in the `select_runs` parameter).")
    return (f"This database holds no IBM submission, so every Storage Scale (GPFS) IO500 run in it: "
            f"{plural(len(runs), 'run')}.")


def get_ior_phases(con, run_ids: Iterable[int]) -> pd.DataFrame:
    """One row per IOR phase of the runs that has its own IOR log (`io500_phase_logs`, linked by
    `io500_phase_log_links`): IOR's bandwidth (`ior_gib_s`, by the rule the run's IO500 script used), the
    value the IO500 summary reports (`io500_gib_s`), whether they agree within the printed precision, and the
    IOR test's shape (transfer size, file per process, tasks, nodes) from `ior_tests`."""
    return con.execute(
        """
        SELECT l.run_id, l.phase, l.source_id, p.source_id AS summary_source_id,
               l.log_value AS ior_gib_s, l.summary_value AS io500_gib_s, l.agrees, l.rule,
               t.transfer_bytes, t.file_per_proc, t.tasks, t.nodes
        FROM io500_phase_logs l
        JOIN io500_phases p USING (run_id, phase)
        LEFT JOIN ior_tests t ON t.source_id = l.source_id
        WHERE l.phase LIKE 'ior-%' AND list_contains(?, l.run_id)
        QUALIFY row_number() OVER (PARTITION BY l.run_id, l.phase ORDER BY t.test_index) = 1
        ORDER BY l.run_id, p.position
        """,
        [[int(r) for r in run_ids]],
    ).df()


def chart_ior_phases(ior: pd.DataFrame, runs: pd.DataFrame) -> alt.Chart:
    """IOR's bandwidth in the four scored IOR phases per run, one row of bars per phase, coloured by IBM model."""
    df = ior[ior.phase.isin(PHASE_ORDER[:4])].merge(runs[["run_id", "run_key", "model"]], on="run_id")
    best = df.loc[df.ior_gib_s.idxmax()]
    hard = df[df.phase.str.contains("hard")].ior_gib_s.max()
    title = [f"{best.phase} reaches {best.ior_gib_s:,.1f} GiB/s ({best.run_key})"]
    if pd.notna(hard):
        title.append(f"no hard phase exceeds {hard:,.1f} GiB/s")
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("ior_gib_s:Q", title="IOR bandwidth (GiB/s)"),
        y=alt.Y("run_key:N", title=None, sort=runs.run_key.tolist()),
        color=alt.Color("model:N", title="IBM model", legend=alt.Legend(orient="bottom", columns=2)),
        row=alt.Row("phase:N", title=None, sort=PHASE_ORDER),
        tooltip=["run_key", "model", "phase", "nodes", "tasks",
                 alt.Tooltip("transfer_bytes:Q", title="transfer (bytes)"),
                 alt.Tooltip("ior_gib_s:Q", title="IOR (GiB/s)", format=".3f"),
                 alt.Tooltip("io500_gib_s:Q", title="IO500 summary (GiB/s)", format=".3f")],
    ).properties(width=340, title={"text": title, "subtitle": "source: io500_phase_logs, ior_tests views"})


def get_building_blocks(csv_path: str | Path = BUILDING_BLOCKS_CSV) -> pd.DataFrame:
    """The curated building-block count per archive submission, with the quoted evidence for it."""
    return pd.read_csv(csv_path, dtype={"submission": "Int64", "building_blocks": "Int64", "evidence": str})


def get_claims() -> pd.DataFrame:
    """IBM's per-building-block lab bandwidth in seed 000, in decimal GB/s as printed and in GiB/s: Storage
    Scale System 6000 up to 310 GB/s read and 155 GB/s write; ESS 3500 126 GB/s read (4 HDR200 adapters per
    canister, ESS 6.1.8). The talk gives no ESS 3500 write figure of its own (only the ~2.6X ratio)."""
    ss = published.load("seed000_ss6000_claims")
    ss = ss[(ss.column == "per system (building block)") & (ss.unit == "GB/s")]
    ess = published.load("seed000_ess3500_read_bandwidth")
    ess = ess[(ess.row == "4 HDR200 adapters per canister") & (ess.column == "Read bandwidth / ESS 6.1.8")]
    claims = pd.concat([ss.assign(model=MODELS["6000"]), ess.assign(model=MODELS["3500"], row="seq. read")])
    claims = claims.assign(phase=claims.row.map({"seq. read": "ior-easy-read", "seq. write": "ior-easy-write"}),
                           claim_gb_s=claims.value, claim_gib_s=claims.value.map(gb_to_gib),
                           slide=claims.source.str.partition(": ")[2])
    return claims[["model", "phase", "printed", "claim_gb_s", "claim_gib_s", "slide", "note"]].reset_index(drop=True)


def get_per_block(con, runs: pd.DataFrame, blocks: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """The easy phases of each run (the IO500 summary's GiB/s, `io500_phases`) in GB/s, per building block
    where the curated CSV states a count, and as % of IBM's claim for the run's model where there is one.
    A run with no row in the CSV (or a row without a count) has building_blocks "unknown"."""
    easy = con.execute(
        "SELECT run_id, phase, value AS gib_s, source_id FROM io500_phases "
        "WHERE list_contains(?, run_id) AND list_contains(?, phase)",
        [[int(r) for r in runs.run_id], EASY_PHASES],
    ).df()
    df = (easy.merge(runs[["run_id", "run_key", "label", "submission", "model"]], on="run_id")
          .merge(blocks, on="submission", how="left")
          .merge(claims[["model", "phase", "claim_gb_s"]], on=["model", "phase"], how="left"))
    df["gb_s"] = df.gib_s.map(gib_to_gb)
    df["per_block_gb_s"] = df.gb_s / df.building_blocks.astype(float)
    df["pct_of_claim"] = df.per_block_gb_s / df.claim_gb_s * 100
    df["building_blocks"] = df.building_blocks.astype("string").fillna("unknown")
    df["evidence"] = df.evidence.fillna("unknown: no row in the building-block CSV")
    order = {p: i for i, p in enumerate(PHASE_ORDER)}
    return df.sort_values(["run_id", "phase"], key=lambda s: s.map(order) if s.name == "phase" else
                          s.map({r: i for i, r in enumerate(runs.run_id)})).reset_index(drop=True)


def chart_per_block(per_block: pd.DataFrame) -> alt.Chart:
    """Per-building-block easy-phase bandwidth as % of IBM's lab figure, for runs with both a stated count and
    a claim for their model; a rule at 100 %."""
    df = per_block[per_block.pct_of_claim.notna()]
    low, high = df.pct_of_claim.min(), df.pct_of_claim.max()
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X("pct_of_claim:Q", title="per building block, % of IBM's lab figure (GB/s ÷ GB/s)"),
        y=alt.Y("run_key:N", title=None),
        color=alt.Color("phase:N", title=None, legend=alt.Legend(orient="bottom")),
        yOffset="phase:N",
        tooltip=["label", "phase", "building_blocks", alt.Tooltip("per_block_gb_s:Q", format=".1f",
                                                                  title="per block (GB/s)"),
                 alt.Tooltip("claim_gb_s:Q", title="IBM's figure (GB/s)")],
    )
    rule = alt.Chart(pd.DataFrame({"x": [100]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="x:Q")
    return (bars + rule).properties(width=340, title={
        "text": f"Per building block the easy phases reach {low:.0f}–{high:.0f} % of IBM's lab figure",
        "subtitle": ["source: io500_phases view, ibm_building_blocks.csv;",
                     "IBM's figures: seed 000 (IBM, Storage Scale User Group at SC23)"]})


def get_config(con, run_ids: Iterable[int], keys: Iterable[str] | None = None) -> pd.DataFrame:
    """The mmlsconfig settings (`gpfs_config`) of each run, through the run's system files
    (`io500_run_system_files`). `keys`: only these (matched case-insensitively, as mmchconfig does); empty
    or None: every key."""
    wanted = [k.lower() for k in keys or []]
    return con.execute(
        """
        SELECT DISTINCT x.run_id, c.source_id, c.scope, c.key, c.value, c.line
        FROM io500_run_system_files x JOIN gpfs_config c USING (source_id)
        WHERE list_contains(?, x.run_id) AND (len(?) = 0 OR list_contains(?, lower(c.key)))
        ORDER BY x.run_id, c.source_id, c.line
        """,
        [[int(r) for r in run_ids], wanted, wanted],
    ).df()


def normalise_value(value: str) -> str:
    """An mmlsconfig value spelled one way: lower case, and a number with a K/M/G/T suffix written out
    (1024-based, as mmchconfig reads it): '128K', '128k' and '131072' all give '131072', '16M' and '16m'
    give '16777216'. Words stay words: 'yes' and '1' are not taken as the same."""
    v = value.strip().lower()
    m = re.fullmatch(r"(\d+)([kmgt])", v)
    return str(int(m[1]) * SIZE_SUFFIX[m[2]]) if m else v


def scope_kind(scope: str) -> str:
    """'cluster' for a cluster-wide setting (mmlsconfig's common part), 'node class' for one under [..]."""
    return "cluster" if scope == "common" else "node class"


def _cell(rows: pd.DataFrame) -> str:
    """A run's settings of one key as printed: value [scope], node lists in full (the cell wraps)."""
    def scope(s: str) -> str:
        return "cluster" if s == "common" else s.replace(",", ", ")
    return "; ".join(f"{v} [{scope(s)}]" for v, s in zip(rows.value, rows.scope))


def compare_config(config: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """One row per key (case-insensitive) set in any of the runs' listings, compared across the runs that
    have a listing: `difference` is "not set in every listing", "value" (the normalised values differ),
    "case/units and scope", "case/units" (same values written differently: 128k, 128K, 131072),
    "scope" (same values, set cluster-wide in one run and per node class in another) or "none". Then one
    column per run (its run_key) with the settings as printed, each with its scope."""
    config = config.assign(k=config.key.str.lower(), norm=config.value.map(normalise_value),
                           kind=config.scope.map(scope_kind))
    listed = [r for r in runs.run_id if r in set(config.run_id)]
    names = runs.set_index("run_id").run_key
    rows = []
    for k, g in config.groupby("k", sort=True):
        per_run = [g[g.run_id == r] for r in listed]
        values = {frozenset(d.norm) for d in per_run}
        if any(d.empty for d in per_run):
            difference = "not set in every listing"
        elif len(values) > 1:
            difference = "value"
        else:
            spelled = len({frozenset(d.value) for d in per_run}) > 1
            scoped = len({frozenset(zip(d.norm, d.kind)) for d in per_run}) > 1
            difference = {(True, True): "case/units and scope", (True, False): "case/units",
                          (False, True): "scope", (False, False): "none"}[(spelled, scoped)]
        row = {"key": g.key.iloc[0], "difference": difference}
        row.update({names[r]: _cell(d) if len(d) else "(not set)" for r, d in zip(listed, per_run)})
        rows.append(row)
    order = ["value", "not set in every listing", "case/units and scope", "case/units", "scope", "none"]
    df = pd.DataFrame(rows, columns=["key", "difference"] + [names[r] for r in listed])
    return df.sort_values(["difference", "key"], key=lambda s: s.map(order.index) if s.name == "difference"
                          else s.str.lower()).reset_index(drop=True)


def findings(runs_all: pd.DataFrame, runs: pd.DataFrame, ior: pd.DataFrame, per_block: pd.DataFrame,
             compared: pd.DataFrame) -> list[str]:
    """The chapter's findings, one sentence each, every number computed from the frames given."""
    scale = runs_all[runs_all.family == STORAGE_SCALE]
    out = [f"The database holds {len(scale):,} Storage Scale (GPFS) IO500 runs, {int(scale.ibm.sum()):,} of them "
           f"IBM's own; this chapter shows {len(runs):,} of them."]
    if len(ior):
        out.append(f"IOR's own logs give back the IO500 summary's value, within the printed precision, for "
                   f"{int(ior.agrees.sum()):,} of {len(ior):,} IOR phases of these runs.")
        easy = ior[ior.phase == "ior-easy-read"].merge(runs[["run_id", "label"]], on="run_id")
        if len(easy):
            best = easy.loc[easy.ior_gib_s.idxmax()]
            out.append(f"The fastest ior-easy-read is {best.ior_gib_s:,.1f} GiB/s "
                       f"({gib_to_gb(best.ior_gib_s):,.1f} GB/s) by {best.label}.")
    rated = per_block[per_block.pct_of_claim.notna()]
    if len(rated):
        best = rated.loc[rated.pct_of_claim.idxmax()]
        out.append(f"Per building block, the closest an easy phase comes to IBM's lab figure is "
                   f"{best.pct_of_claim:.0f} % ({best.per_block_gb_s:,.1f} of {best.claim_gb_s:,.0f} GB/s, "
                   f"{best.phase}, {best.label}).")
    unknown = per_block[(per_block.model == MODELS["6000"]) & (per_block.building_blocks == "unknown")]
    if unknown.run_id.nunique():
        out.append(f"{plural(unknown.run_id.nunique(), 'Storage Scale System 6000 run')} state no building-block "
                   f"count, so their bandwidth cannot be set against the 310 GB/s read and 155 GB/s write "
                   f"IBM quotes per building block.")
    if len(compared):
        counts = compared.difference.value_counts()
        only_form = sum(counts.get(d, 0) for d in ("case/units and scope", "case/units", "scope"))
        out.append(f"Of {len(compared):,} compared Storage Scale settings, {counts.get('value', 0):,} differ in "
                   f"value and {counts.get('not set in every listing', 0):,} are not set in every listing; "
                   f"{only_form:,} differ only in case, units or scope (cluster or node class).")
    return out
