"""IBM's Storage Scale System 6000 and Elastic Storage System (ESS) 3500 in IO500 runs (seed 000: "SC23 Scale
Performance Update", IBM, Storage Scale User Group Meeting at SC23): which runs are Storage Scale runs, their
building blocks counted from each run's own mmlscluster listing, easy-phase bandwidth per building block against
IBM's claims, the client and storage ceilings and which side bounds each run, mdtest-hard-delete over time, IOR's
own bandwidth per phase, and the Storage Scale settings (mmlsconfig) that differ between runs once case, units
and scope are set apart."""
from __future__ import annotations

import re
from collections.abc import Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import families, nb, published
from ..units import gb_to_gib, gib_to_gb

STORAGE_SCALE = "Storage Scale/GPFS"  # the family name in data/reference/filesystems.csv
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
        "SELECT run_id, run_key, path, institution, system, filesystem, year, submission, started, procs "
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


def canister_pairs(node_names: Iterable[str]) -> list[tuple[str, str]]:
    """The server canister pairs among a cluster's node names: two names that differ only in one letter, `a`
    in one and `b` in the other, right after a digit or a hyphen (`e351aib`/`e351bib`, `s6k2aib`/`s6k2bib`,
    `ess3500-1a-i1`/`ess3500-1b-i1`, `fscc-ess6000-2-a`/`fscc-ess6000-2-b`): how IBM names the two canisters
    of one building block. Names are compared in their short form (up to the first dot)."""
    short = {n.split(".")[0] for n in node_names}
    pairs = set()
    for name in short:
        for i, letter in enumerate(name):
            if letter == "a" and i > 0 and (name[i - 1].isdigit() or name[i - 1] == "-"):
                partner = name[:i] + "b" + name[i + 1:]
                if partner in short:
                    pairs.add((name, partner))
    return sorted(pairs)


FOLDER_COUNT = re.compile(r"(?<![\w.])(\d{1,2})\s*(?:building blocks?|bbs?)\b", re.IGNORECASE)


def count_in_folder(path: str) -> tuple[int, str] | None:
    """A building-block count a folder of the run's path states (`... - 2 Building Blocks`, `3BBs`), with that
    folder's name; None when no folder states one. A model number is not a count: `3500 BBs` is none."""
    for folder in reversed(path.split("/")):
        if m := FOLDER_COUNT.search(folder):
            return int(m[1]), folder
    return None


def get_building_blocks(con, runs: pd.DataFrame) -> pd.DataFrame:
    """Building blocks per run, derived from the run's own files: the canister pairs (`canister_pairs`) of
    the `mmlscluster` listing linked to the run (`io500_run_system_files`, `gpfs_nodes`), else a count a
    folder name of the run states (`count_in_folder`), else "unknown". Columns: run_id, building_blocks
    (Int64, NA when unknown), basis, evidence (the node names, or the folder name quoted), listed_nodes."""
    nodes = con.execute(
        """
        SELECT DISTINCT x.run_id, n.daemon_node
        FROM io500_run_system_files x JOIN gpfs_nodes n USING (source_id)
        WHERE list_contains(?, x.run_id)
        """, [[int(r) for r in runs.run_id]]).df()
    rows = []
    for run in runs.itertuples():
        names = nodes[nodes.run_id == run.run_id].daemon_node.tolist()
        pairs = canister_pairs(names)
        folder = count_in_folder(run.path or "")
        if pairs:
            row = (len(pairs), "mmlscluster", "canister pairs " + ", ".join(f"{a}/{b}" for a, b in pairs))
        elif folder:
            row = (folder[0], "folder name", f'"{folder[1]}"')
        elif names:
            row = (pd.NA, "unknown", f"mmlscluster lists {plural(len(names), 'node')}, no a/b canister pair")
        else:
            row = (pd.NA, "unknown", "no mmlscluster listing, and no folder name states a count")
        rows.append((run.run_id, *row, len(names)))
    return pd.DataFrame(rows, columns=["run_id", "building_blocks", "basis", "evidence", "listed_nodes"]).astype(
        {"run_id": "int64", "building_blocks": "Int64", "listed_nodes": "int64"})


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
    """The easy phases of each run (the IO500 summary's GiB/s, `io500_phases`) in decimal GB/s, per building
    block where `blocks` (get_building_blocks) has a count, and as % of IBM's claim for the run's model and
    phase where the talk gives one. A run without a count has building_blocks "unknown"."""
    easy = con.execute(
        "SELECT run_id, phase, value AS gib_s, source_id FROM io500_phases "
        "WHERE list_contains(?, run_id) AND list_contains(?, phase)",
        [[int(r) for r in runs.run_id], EASY_PHASES],
    ).df()
    df = (easy.merge(runs[["run_id", "run_key", "label", "submission", "model", "started"]], on="run_id")
          .merge(blocks[["run_id", "building_blocks", "basis", "evidence"]], on="run_id", how="left")
          .merge(claims[["model", "phase", "claim_gb_s"]], on=["model", "phase"], how="left"))
    df["gb_s"] = df.gib_s.map(gib_to_gb)
    df["blocks"] = df.building_blocks.astype("Float64").astype(float)
    df["per_block_gb_s"] = df.gb_s / df.blocks
    df["pct_of_claim"] = df.per_block_gb_s / df.claim_gb_s * 100
    df["building_blocks"] = df.building_blocks.astype("string").fillna("unknown")
    order = {p: i for i, p in enumerate(PHASE_ORDER)}
    return df.sort_values(["run_id", "phase"], key=lambda s: s.map(order) if s.name == "phase" else
                          s.map({r: i for i, r in enumerate(runs.run_id)})).reset_index(drop=True)


def fewest_blocks(per_block: pd.DataFrame) -> pd.DataFrame:
    """For runs without a building-block count but with a claim for their model: the fewest building blocks
    that could deliver the measured bandwidth at IBM's claim (measured GB/s / claim, rounded up, highest
    over the easy phases). A lower bound, not a count."""
    df = per_block[(per_block.building_blocks == "unknown") & per_block.claim_gb_s.notna()]
    df = df.assign(at_least=np.ceil(df.gb_s / df.claim_gb_s).astype(int))
    best = df.sort_values("at_least").groupby("run_key", sort=False).tail(1)
    return best[["run_key", "model", "phase", "gb_s", "claim_gb_s", "at_least"]].reset_index(drop=True)


HDR_GBIT_S = {"HDR200": 200}  # HDR InfiniBand as IBM names it: 200 Gb/s per link
LINK_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
# The talk's sites, as the archive spells the institution (submission 651's folder says "IBM Tuscon").
TALK_SITES = {"Tucson": ("IBM Tucson", "IBM Tuscon"), "Ehningen": ("IBM Ehningen System",)}
NEAR = 0.10  # two ceilings within 10 % of each other: neither side can be named as the bound


def get_client_links() -> pd.DataFrame:
    """The talk's client links for IBM's ESS 3500 IO500 clusters (seed 000, "Details Regarding IBM's ESS3500
    Cluster io500 submission for ISC23:"): per site, links per client and the link's rate in Gb/s, read from
    the printed phrase ("One HDR200-Infiniband connection per client", "two HDR200 connections")."""
    pub = published.load("seed000_ess3500_io500_clients")
    parsed = pub.printed.str.extract(r"^(?P<word>\w+) (?P<link>HDR\d+)")
    return pd.DataFrame({"site": pub.row, "printed": pub.printed,
                         "links_per_client": parsed.word.str.lower().map(LINK_WORDS),
                         "link_gbit_s": parsed.link.map(HDR_GBIT_S),
                         "slide": pub.source.str.partition(": ")[2]})


def bounding_side(measured_gb_s: float, client_gb_s: float, storage_gb_s: float) -> str:
    """Which side bounds a run. Both ceilings known: the lower one ("client" or "storage"), "both" when they
    are within NEAR of each other. One known: that side when the run reached it (within NEAR), else
    "unknown"; neither known: "unknown"."""
    if pd.notna(client_gb_s) and pd.notna(storage_gb_s):
        if abs(client_gb_s - storage_gb_s) <= NEAR * min(client_gb_s, storage_gb_s):
            return "both"
        return "client" if client_gb_s < storage_gb_s else "storage"
    for side, ceiling in (("storage", storage_gb_s), ("client", client_gb_s)):
        if pd.notna(ceiling) and measured_gb_s >= (1 - NEAR) * ceiling:
            return side
    return "unknown"


def get_ceilings(per_block: pd.DataFrame, ior: pd.DataFrame, runs: pd.DataFrame,
                 links: pd.DataFrame) -> pd.DataFrame:
    """Per run and easy phase the two ceilings in GB/s: the clients' (client nodes the IOR log reports x the
    talk's links per client x link rate, for ESS 3500 runs of the sites the talk describes; NaN elsewhere:
    no submission states its link speed) and the storage's (building blocks x IBM's claim per building
    block), the side that bounds the run (`bounding_side`) and the measured GB/s as % of each ceiling."""
    site = pd.Series(pd.NA, index=runs.index, dtype="string")
    for name, institutions in TALK_SITES.items():
        site = site.mask(runs.institution.isin(institutions) & (runs.model == MODELS["3500"]), name)
    nodes = ior[ior.phase.isin(EASY_PHASES)][["run_id", "phase", "nodes"]]
    df = (per_block.merge(runs.assign(site=site)[["run_id", "site"]], on="run_id")
          .merge(nodes, on=["run_id", "phase"], how="left")
          .merge(links[["site", "links_per_client", "link_gbit_s"]], on="site", how="left"))
    df["client_ceiling_gb_s"] = df.nodes * df.links_per_client * df.link_gbit_s / 8
    df["storage_ceiling_gb_s"] = df.blocks * df.claim_gb_s
    df["bound"] = [bounding_side(m, c, s) for m, c, s in zip(df.gb_s, df.client_ceiling_gb_s, df.storage_ceiling_gb_s)]
    # A run with more building blocks than another run of its model, same client node count, and about the
    # same bandwidth: its building blocks did not bound it, so its clients did.
    scaling = get_scaling(per_block, ior)
    flat = scaling[scaling.gb_s_ratio <= 1 + NEAR][["run_key_many", "phase", "run_key_few"]]
    df = df.merge(flat.rename(columns={"run_key_many": "run_key", "run_key_few": "like_run"}), on=["run_key", "phase"],
                  how="left").drop_duplicates(["run_id", "phase"])
    df["bound"] = df.bound.mask((df.bound == "unknown") & df.like_run.notna(), "client (inferred)")
    df["pct_of_client"] = df.gb_s / df.client_ceiling_gb_s * 100
    df["pct_of_storage"] = df.gb_s / df.storage_ceiling_gb_s * 100
    return df


def get_scaling(per_block: pd.DataFrame, ior: pd.DataFrame) -> pd.DataFrame:
    """Runs of one model and easy phase with the same client node count and different building-block counts,
    set side by side: the bandwidth ratio against the building-block ratio. A ratio near 1 for twice the
    building blocks says the building blocks did not bound the larger run: the clients (or their links) did."""
    df = per_block[per_block.blocks.notna()].merge(
        ior[["run_id", "phase", "nodes"]], on=["run_id", "phase"], how="left")
    pairs = df.merge(df, on=["model", "phase", "nodes"], suffixes=("_few", "_many"))
    pairs = pairs[pairs.blocks_many > pairs.blocks_few]
    pairs = pairs.assign(blocks_ratio=pairs.blocks_many / pairs.blocks_few, gb_s_ratio=pairs.gb_s_many / pairs.gb_s_few)
    return pairs[["model", "phase", "nodes", "run_key_few", "blocks_few", "gb_s_few", "run_key_many", "blocks_many",
                  "gb_s_many", "blocks_ratio", "gb_s_ratio"]].reset_index(drop=True)


def get_hard_delete(con, runs: pd.DataFrame) -> pd.DataFrame:
    """mdtest-hard-delete (kIOPS, `io500_phases`) of each run in time order (the run's start), with the two
    settings the talk's inode-prefetch slides name as the run's mmlsconfig listing sets them (fgdlTokenBatchAcquire,
    autoCompactDir: "value [scope]", "not set" in a listing without the key, "no listing" without a listing),
    and `token_batching`: "1 or yes" where fgdlTokenBatchAcquire is set to 1 or yes in some scope."""
    df = con.execute(
        # the IO500 apps print the start as 2023.10.22-06.40.20 (bash script) or 2023-10-22 06:40:20 (C app)
        "SELECT p.run_id, p.value AS kiops, p.source_id, "
        "       try_strptime(r.started, ['%Y.%m.%d-%H.%M.%S', '%Y-%m-%d %H:%M:%S']) AS started "
        "FROM io500_phases p JOIN io500_runs r USING (run_id) "
        "WHERE p.phase = 'mdtest-hard-delete' AND list_contains(?, p.run_id)",
        [[int(r) for r in runs.run_id]]).df()
    df = df.merge(runs[["run_id", "run_key", "label", "institution", "model", "year"]], on="run_id")
    files = get_system_files(con, runs.run_id)
    listed = set(files[files.format.str.contains("mmlsconfig")].run_id)
    config = get_config(con, runs.run_id, ["fgdlTokenBatchAcquire", "autoCompactDir"])
    for key in ("fgdlTokenBatchAcquire", "autoCompactDir"):
        rows = config[config.key.str.lower() == key.lower()]
        rows = rows.assign(setting=rows.value + " [" + rows.scope.map(scope_kind) + "]")
        values = rows.groupby("run_id").setting.agg(lambda v: ", ".join(sorted(set(v))))
        df[key] = df.run_id.map(values).fillna(df.run_id.map(lambda r: "not set" if r in listed else "no listing"))
    on = set(config[(config.key.str.lower() == "fgdltokenbatchacquire") & config.value.str.lower().isin(["1", "yes"])].run_id)
    df["token_batching"] = [("1 or yes" if r in on else "not set or 0") if r in listed else "no listing"
                            for r in df.run_id]
    return df.sort_values(["started", "run_key"]).reset_index(drop=True)


def chart_hard_delete(hard: pd.DataFrame) -> alt.Chart:
    """mdtest-hard-delete rate per run over the runs' start dates, one point per run, coloured by model."""
    low, high = hard.loc[hard.kiops.idxmin()], hard.loc[hard.kiops.idxmax()]
    years = f"{int(hard.year.min())}–{int(hard.year.max())}" if hard.year.nunique() > 1 else f"{int(hard.year.min())}"
    points = alt.Chart(hard).mark_point(filled=True, size=80).encode(
        x=alt.X("started:T", title="run started (date)"),
        y=alt.Y("kiops:Q", title="mdtest-hard-delete (kIOPS)"),
        color=alt.Color("model:N", title="IBM model", legend=alt.Legend(orient="bottom", columns=2)),
        shape=alt.Shape("token_batching:N", title="fgdlTokenBatchAcquire", legend=alt.Legend(orient="bottom")),
        tooltip=["run_key", "institution", "model", alt.Tooltip("started:T", format="%Y-%m-%d"),
                 alt.Tooltip("kiops:Q", title="kIOPS", format=".1f"), "fgdlTokenBatchAcquire", "autoCompactDir"])
    return points.properties(width=380, height=240, title={
        "text": [f"mdtest-hard-delete runs from {low.kiops:,.1f} ({low.run_key})",
                 f"to {high.kiops:,.1f} kIOPS ({high.run_key}), {years}"],
        "subtitle": "one run per submission; source: io500_phases, gpfs_config views"})


def chart_per_block(per_block: pd.DataFrame) -> alt.Chart:
    """Per-building-block easy-phase bandwidth as % of IBM's claim, for runs with both a building-block count and
    a claim for their model; a rule at 100 %."""
    df = per_block[per_block.pct_of_claim.notna()]
    low, high = df.pct_of_claim.min(), df.pct_of_claim.max()
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X("pct_of_claim:Q", title="per building block, % of IBM's claim (GB/s ÷ GB/s)"),
        y=alt.Y("run_key:N", title=None),
        color=alt.Color("phase:N", title=None, legend=alt.Legend(orient="bottom")),
        yOffset="phase:N",
        tooltip=["label", "phase", "building_blocks", alt.Tooltip("per_block_gb_s:Q", format=".1f",
                                                                  title="per block (GB/s)"),
                 alt.Tooltip("claim_gb_s:Q", title="IBM's claim (GB/s)")],
    )
    rule = alt.Chart(pd.DataFrame({"x": [100]})).mark_rule(strokeDash=[4, 3], color="gray").encode(x="x:Q")
    return (bars + rule).properties(width=340, title={
        "text": f"Per building block the easy phases reach {low:.0f}–{high:.0f} % of IBM's claim",
        "subtitle": ["source: io500_phases view; building blocks from mmlscluster (gpfs_nodes) or folder names;",
                     "IBM's figures: seed 000 (IBM, Storage Scale User Group at SC23)"]})


def get_system_files(con, run_ids: Iterable[int]) -> pd.DataFrame:
    """The Storage Scale listings (mmlsconfig, mmlscluster) linked to each run (`io500_run_system_files`)."""
    return con.execute("SELECT run_id, source_id, format FROM io500_run_system_files WHERE list_contains(?, run_id)",
                       [[int(r) for r in run_ids]]).df()


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


def pct_range(values: pd.Series) -> str:
    """'87 %' or '54–98 %': the rounded range of percentages."""
    low, high = round(values.min()), round(values.max())
    return f"{low} %" if low == high else f"{low}–{high} %"


def findings(blocks: pd.DataFrame, ceilings: pd.DataFrame, scaling: pd.DataFrame, hard: pd.DataFrame,
             compared: pd.DataFrame) -> list[tuple[str, str]]:
    """The chapter's findings, one sentence each with the anchor of the table or figure that shows it; every
    number computed from the frames given."""
    out = []
    if len(blocks):
        basis = blocks.basis.value_counts()
        listed = blocks[blocks.basis == "mmlscluster"].evidence
        example = f" (canister pairs such as {listed.iloc[0].split()[2].rstrip(',')})" if len(listed) else ""
        out.append((f"The runs' own mmlscluster listings give the building blocks of "
                    f"{basis.get('mmlscluster', 0):,} of the {plural(len(blocks), 'run')}{example}, a folder name "
                    f"{basis.get('folder name', 0):,} more; {basis.get('unknown', 0):,} stay unknown.", "tab-blocks"))
    rated = ceilings[ceilings.pct_of_claim.notna()]
    if len(rated):
        parts = [f"{phase} {pct_range(p.pct_of_claim)} ({plural(len(p), 'run')})"
                 for phase, p in rated.groupby("phase", sort=False)]
        best = rated.loc[rated.pct_of_claim.idxmax()]
        out.append((f"Per building block the easy phases reach {' and '.join(parts)} of IBM's claim; the "
                    f"highest is {best.per_block_gb_s:,.1f} of {best.claim_gb_s:,.0f} GB/s ({best.phase}, "
                    f"{best.label}).", "fig-per-block"))
    flat = scaling[scaling.gb_s_ratio <= 1 + NEAR]
    if len(flat):
        first = flat.iloc[0]
        ratios = " and ".join(f"{r.gb_s_ratio:.2f}x in {r.phase}" for r in flat[
            (flat.run_key_few == first.run_key_few) & (flat.run_key_many == first.run_key_many)].itertuples())
        out.append((f"{int(first.blocks_many)} {first.model} building blocks ({first.run_key_many}) delivered "
                    f"{ratios} of what {int(first.blocks_few)} did ({first.run_key_few}), with the same "
                    f"{int(first.nodes)} client nodes: the clients (or their links), not the building blocks, "
                    f"bounded the larger run.",
                    "tab-bound"))
    if len(hard) > 1:
        low, high = hard.loc[hard.kiops.idxmin()], hard.loc[hard.kiops.idxmax()]
        out.append((f"mdtest-hard-delete ranges from {low.kiops:,.1f} ({low.run_key}) to {high.kiops:,.1f} kIOPS "
                    f"({high.run_key}) over {plural(len(hard), 'run')}; each is one run, so no change between two "
                    f"of them can be told from run-to-run variation.", "fig-hard-delete"))
    if len(compared):
        counts = compared.difference.value_counts()
        only_form = sum(counts.get(d, 0) for d in ("case/units and scope", "case/units", "scope"))
        out.append((f"Of {len(compared):,} compared Storage Scale settings, {counts.get('value', 0):,} differ in "
                    f"value and {counts.get('not set in every listing', 0):,} are not set in every listing; "
                    f"{only_form:,} differ only in case, units or scope (cluster or node class).", "tab-config"))
    return out
