"""IBM's Storage Scale System 6000 and Elastic Storage System (ESS) 3500 in IO500 runs (seed 000: "SC23 Scale
Performance Update", IBM, Storage Scale User Group Meeting at SC23): which runs are Storage Scale runs, their
building blocks counted from the disks of the file system under test (mmlsfs), else from the cluster's
canister pairs (mmlscluster), easy-phase bandwidth per building block against IBM's claim for the run's
model and ESS release, each run's share of its clients' line rate and of IBM's quoted figure, runs alike in model and
building blocks set side by side, mdtest-hard-delete over time, IOR's own bandwidth per phase, and the
Storage Scale settings (mmlsconfig) that differ between runs once case, units and scope are set apart."""
from __future__ import annotations

import re
from collections.abc import Iterable

import altair as alt
import numpy as np
import pandas as pd

from .. import families, nb, published, stats
from ..parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES
from ..units import gb_to_gib, gib_to_gb

STORAGE_SCALE = "Storage Scale/GPFS"  # the family name in data/reference/filesystems.csv
MODELS = {"3200": "ESS 3200", "3500": "ESS 3500", "6000": "Storage Scale System 6000"}
PHASE_ORDER = ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read", "ior-rnd4K-easy-read"]
EASY_PHASES = ["ior-easy-write", "ior-easy-read"]
SIZE_SUFFIX = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}  # mmchconfig reads K/M/G/T as powers of 1024
HOW_TO_ADD = ("Add IO500 result folders of a Storage Scale (GPFS) system, with `mmlsfs`, `mmlsconfig` and "
              "`mmlscluster` output saved beside them: `python -m iobook book --data DIR` ingests DIR (e.g. a copy "
              "of `<institution>/<system>/<file system>/<year>/submission-<id>` from the IO500 archive). "
              "Runs of any other file system can be named in the `select_runs` parameter.")
CONFIDENCE = 0.95
NO_VALUE = "–"
# the chapter's figures and tables the findings link to (names unique in the book)
FIG_PER_BLOCK, TAB_PER_BLOCK, TAB_BLOCKS = "fig-ess-per-block", "tab-ess-per-block", "tab-ess-blocks"
TAB_CEILINGS, TAB_ALIKE, FIG_HARD_DELETE = "tab-ess-ceilings", "tab-ess-alike", "fig-ess-hard-delete"


def plural(n: int, word: str) -> str:
    """'1 run', '2 runs', '1,075 files': a count with its noun in the right number (English -s plural)."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def listing(items: Iterable[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]


def short_runs(df: pd.DataFrame, column: str = "run_key") -> pd.DataFrame:
    """A table's run column made narrow for the page: "submission-731" shown as "731" under the header
    "submission" when every run is an archive submission; other run keys unchanged under "run"."""
    keys = df[column].astype(str)
    if len(keys) and keys.str.fullmatch(r"submission-\d+").all():
        return df.assign(**{column: keys.str.removeprefix("submission-")}).rename(columns={column: "submission"})
    return df.rename(columns={column: "run"})


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run (`io500_runs`) with its file-system family (`iobook.families`), whether IBM submitted
    it (`ibm`: the institution starts with "IBM", as IBM Tucson, IBM Ehningen System, IBMDL do) and the IBM
    model its system and file-system names state (`model`: ESS 3200, ESS 3500, Storage Scale System 6000;
    "unknown" when they state none or the run is not a Storage Scale run), and a `label` for prose.
    `io500_version` is the benchmark release the run printed (io500-isc24_v3), not the list it was made for."""
    runs = con.execute(
        "SELECT run_id, run_key, path, institution, system, filesystem, year, submission, started, procs, "
        "io500_version FROM io500_runs ORDER BY started, run_key").df()
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


IOR_TEST_FILE = re.compile(r"(?:^|\s)-o\s+(\S+)")  # IOR's -o testFile option on its command line


def get_ior_phases(con, run_ids: Iterable[int]) -> pd.DataFrame:
    """One row per IOR phase of the runs that has its own IOR log (`io500_phase_logs`, linked by
    `io500_phase_log_links`): IOR's bandwidth (`ior_gib_s`, by the rule the run's IO500 script used), the
    value the IO500 summary reports (`io500_gib_s`), whether they agree within the printed precision, the
    IOR test's shape (transfer size, file per process, tasks, nodes) from `ior_tests`, and the file it
    wrote (`test_file`, IOR's -o option)."""
    ior = con.execute(
        """
        SELECT l.run_id, l.phase, l.source_id, p.source_id AS summary_source_id,
               l.log_value AS ior_gib_s, l.summary_value AS io500_gib_s, l.agrees, l.rule,
               t.transfer_bytes, t.file_per_proc, t.tasks, t.nodes, t.command
        FROM io500_phase_logs l
        JOIN io500_phases p USING (run_id, phase)
        LEFT JOIN ior_tests t ON t.source_id = l.source_id
        WHERE l.phase LIKE 'ior-%' AND list_contains(?, l.run_id)
        QUALIFY row_number() OVER (PARTITION BY l.run_id, l.phase ORDER BY t.test_index) = 1
        ORDER BY l.run_id, p.position
        """,
        [[int(r) for r in run_ids]],
    ).df()
    ior["test_file"] = ior.command.astype("string").str.extract(IOR_TEST_FILE, expand=False)
    return ior.drop(columns="command")


def chart_ior_phases(ior: pd.DataFrame, runs: pd.DataFrame) -> alt.Chart:
    """IOR's bandwidth in the four scored IOR phases per run, one row of bars per phase, coloured by IBM model;
    the title states the fastest phase and the fastest hard phase."""
    df = ior[ior.phase.isin(PHASE_ORDER[:4])].merge(runs[["run_id", "run_key", "model"]], on="run_id")
    best = df.loc[df.ior_gib_s.idxmax()]
    hard = df[df.phase.str.contains("hard")]
    title = [f"{best.phase} reaches {best.ior_gib_s:,.1f} GiB/s ({best.run_key})"]
    if len(hard):
        top = hard.loc[hard.ior_gib_s.idxmax()]
        title.append(f"no hard phase exceeds {top.ior_gib_s:,.1f} GiB/s ({top.run_key}, {top.phase})")
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


# --- building blocks ------------------------------------------------------------------------------------

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


def get_fs_disks(con, runs: pd.DataFrame, ior: pd.DataFrame) -> pd.DataFrame:
    """The disks of the file system each run tested: the `gpfs_fs_disks` (mmlsfs -d) of the run's system
    files whose mount point holds a file the run's IOR phases wrote (`test_file`). A listing of another
    file system of the same cluster is left out; a run without IOR logs has none."""
    disks = con.execute(
        """
        SELECT DISTINCT x.run_id, d.source_id, d.mount_point, d.disk, d.recovery_group, d.log_group
        FROM io500_run_system_files x JOIN gpfs_fs_disks d USING (source_id)
        WHERE list_contains(?, x.run_id) AND d.mount_point IS NOT NULL
        """, [[int(r) for r in runs.run_id]]).df()
    files = ior.dropna(subset=["test_file"])[["run_id", "test_file"]].drop_duplicates()
    pairs = disks.merge(files, on="run_id")
    under = np.array([f.startswith(m.rstrip("/") + "/") for f, m in zip(pairs.test_file, pairs.mount_point)], dtype=bool)
    tested = pairs[under]
    return disks.merge(tested[["run_id", "source_id", "mount_point"]].drop_duplicates(),
                       on=["run_id", "source_id", "mount_point"])


def blocks_from_disks(disks: pd.DataFrame) -> tuple[int, str] | None:
    """Building blocks of one file system from its disks, with the evidence ("<mount point>: <disks and
    recovery groups>"): one per recovery group, when every disk is an mmvdisk vdisk NSD
    (<recovery group>LG<n>VS<n>) and every recovery group has two log groups or more, as the shared
    recovery group of an ESS 3000/3200/3500 or Storage Scale System 6000 building block has (two per
    canister). None otherwise (paired recovery groups, other disk names)."""
    if disks.empty or disks.recovery_group.isna().any():
        return None
    groups = disks.groupby("recovery_group", sort=True).log_group.agg(lambda g: sorted(set(g)))
    if (groups.map(len) < 2).any():
        return None
    logs = {f"{g[0]} to {g[-1]}" if len(g) > 2 else ", ".join(g) for g in groups}  # no dash: a line may break at one
    mounts = ", ".join(sorted(set(disks.mount_point)))
    return len(groups), (f"{mounts}: {plural(disks.disk.nunique(), 'disk')} on recovery "
                         f"group{'s' if len(groups) > 1 else ''} {', '.join(groups.index)} "
                         f"(log groups {' / '.join(sorted(logs))}{' each' if len(groups) > 1 else ''})")


def get_building_blocks(con, runs: pd.DataFrame, ior: pd.DataFrame) -> pd.DataFrame:
    """Building blocks per run, from the run's own files, in this order: the recovery groups of the disks
    of the file system under test (`get_fs_disks`, `blocks_from_disks`); else the canister pairs
    (`canister_pairs`) of the cluster's `mmlscluster` listing, which may serve other file systems too; else
    a count a folder name of the run states (`count_in_folder`); else "unknown". Columns: run_id,
    building_blocks (Int64, NA when unknown), basis ("file system disks", "cluster listing", "folder name",
    "unknown"), evidence, and cluster_pairs (the canister-pair count of the cluster listing, NA without
    one), so that a count from the disks can be set beside the cluster's."""
    nodes = con.execute(
        """
        SELECT DISTINCT x.run_id, n.daemon_node
        FROM io500_run_system_files x JOIN gpfs_nodes n USING (source_id)
        WHERE list_contains(?, x.run_id)
        """, [[int(r) for r in runs.run_id]]).df()
    disks = get_fs_disks(con, runs, ior)
    rows = []
    for run in runs.itertuples():
        names = nodes[nodes.run_id == run.run_id].daemon_node.tolist()
        pairs = canister_pairs(names)
        from_disks = blocks_from_disks(disks[disks.run_id == run.run_id])
        folder = count_in_folder(run.path or "")
        if from_disks:
            row = (from_disks[0], "file system disks", from_disks[1])
        elif pairs:
            row = (len(pairs), "cluster listing", "canister pairs " + ", ".join(f"{a}/{b}" for a, b in pairs))
        elif folder:
            row = (folder[0], "folder name", f'"{folder[1]}"')
        elif names:
            row = (pd.NA, "unknown", f"mmlscluster lists {plural(len(names), 'node')}, no a/b canister pair")
        else:
            row = (pd.NA, "unknown", "no mmlsfs or mmlscluster listing, and no folder name states a count")
        rows.append((run.run_id, *row, len(pairs) if names else pd.NA))
    return pd.DataFrame(rows, columns=["run_id", "building_blocks", "basis", "evidence", "cluster_pairs"]).astype(
        {"run_id": "int64", "building_blocks": "Int64", "cluster_pairs": "Int64"})


# --- the talk's runs, releases and claims -----------------------------------------------------------------

# Columns of seed 000's IO500 tables and what the slide says each is: (site, the list it names). The
# Ehningen-vs-Tucson slide is left out: its Tucson column is headed ISC23 but prints the SC23 numbers.
TALK_COLUMNS = {
    ("seed000_sc23_io500", "IBM Tucson"): ("Tucson", "SC23"),
    ("seed000_sc23_io500", "IBM Ehningen"): ("Ehningen", "SC23"),
    ("seed000_sc23_io500", "IBM Cloud HPC"): ("Cloud HPC", "SC23"),
    ("seed000_tucson_isc23_to_sc23", "ISC23"): ("Tucson", "ISC23"),
    ("seed000_tucson_isc23_to_sc23", "SC23"): ("Tucson", "SC23"),
}
IO500_PHASES = list(STANDARD_BW_PHASES + STANDARD_MD_PHASES)


def get_talk_runs(con, runs: pd.DataFrame) -> pd.DataFrame:
    """The runs whose twelve phases a column of the talk's IO500 tables prints (each value rounded half-up
    to the slide's one decimal, directly or from two decimals), with the site and list the slide names:
    which list a run was made for is known only this way (the io500 version names the benchmark release).
    Columns: run_id, site, list, table, column; a run two tables print has two rows."""
    phases = con.execute("SELECT run_id, phase, value FROM io500_phases WHERE list_contains(?, run_id) "
                         "AND list_contains(?, phase)", [[int(r) for r in runs.run_id], IO500_PHASES]).df()
    phases = phases.assign(once=phases.value.map(lambda v: nb.half_up(v, 1)),
                           twice=phases.value.map(lambda v: nb.half_up(nb.half_up(v, 2), 1)))
    rows = []
    for (table, column), (site, event) in TALK_COLUMNS.items():
        printed = published.load(table)
        printed = printed[(printed.column == column) & printed.row.isin(IO500_PHASES)][["row", "value"]]
        both = phases.merge(printed.rename(columns={"row": "phase", "value": "printed"}), on="phase")
        same = both.assign(ok=(both.once == both.printed) | (both.twice == both.printed)).groupby("run_id").ok
        for run_id in same.sum()[(same.sum() == len(printed)) & (same.size() == len(printed))].index:
            rows.append((run_id, site, event, table, column))
    return pd.DataFrame(rows, columns=["run_id", "site", "list", "table", "column"]).astype({"run_id": "int64"})


ESS_RELEASE = re.compile(r"\bESS (\d+(?:[.-]\d+)+)")


def release_key(release: str) -> tuple[int, ...]:
    """'6.2.1-0' -> (6, 2, 1, 0): releases compared number by number."""
    return tuple(int(x) for x in re.findall(r"\d+", release))


def get_ess_releases(runs: pd.DataFrame, talk: pd.DataFrame) -> pd.DataFrame:
    """The ESS release of each run: as a folder name of the run states it (`... with ESS 6.1.6.0`), else as
    the talk states it for the cluster of a run its SC23 tables print (seed 000, "Clients' mmchconfig
    Tuning": ESS 6.1.8.2 at Tucson and Ehningen), else unknown. Columns: run_id, ess_release, release_from."""
    stated = published.load("seed000_ess3500_io500_clients")
    stated = stated[stated.column == "ESS"].set_index("row").printed
    sc23 = talk[talk.list == "SC23"].drop_duplicates("run_id").set_index("run_id").site
    rows = []
    for run in runs.itertuples():
        if m := ESS_RELEASE.search(run.path or ""):
            rows.append((run.run_id, m[1], "folder name"))
        elif run.run_id in sc23.index and sc23[run.run_id] in stated.index:
            rows.append((run.run_id, stated[sc23[run.run_id]], "talk (slide 'Clients' mmchconfig Tuning')"))
        else:
            rows.append((run.run_id, pd.NA, "unknown"))
    return pd.DataFrame(rows, columns=["run_id", "ess_release", "release_from"]).astype(
        {"run_id": "int64", "ess_release": "string"})


def get_claims() -> pd.DataFrame:
    """IBM's per-building-block lab bandwidth in seed 000, in decimal GB/s as printed and in GiB/s, with the
    ESS releases each holds for (`ess_from` inclusive, `ess_before` exclusive; NA: the talk names none):
    Storage Scale System 6000 up to 310 GB/s read and 155 GB/s write (no release named); ESS 3500 read
    with 4 HDR200 adapters per canister 91 GB/s before ESS 6.1.8 and 126 GB/s from it. The talk gives no
    ESS 3500 write figure of its own (only the ~2.6X ratio)."""
    ss = published.load("seed000_ss6000_claims")
    ss = ss[(ss.column == "per system (building block)") & (ss.unit == "GB/s")].assign(
        model=MODELS["6000"], ess_from=pd.NA, ess_before=pd.NA)
    ess = published.load("seed000_ess3500_read_bandwidth")
    ess = ess[(ess.row == "4 HDR200 adapters per canister")].assign(model=MODELS["3500"], row="seq. read")
    # "improved from 91 GB/s to 126 GB/s in ESS 6.1.8": the column names the release, the note the one before
    ess = ess.assign(ess_from=ess.column.str.extract(r"ESS (\d[\d.]*)$", expand=False),
                     ess_before=ess.note.str.extract(r"before ESS (\d[\d.]*)$", expand=False))
    claims = pd.concat([ss, ess])
    claims = claims.assign(phase=claims.row.map({"seq. read": "ior-easy-read", "seq. write": "ior-easy-write"}),
                           claim_gb_s=claims.value, claim_gib_s=claims.value.map(gb_to_gib),
                           slide=claims.source.str.partition(": ")[2])
    return claims[["model", "phase", "printed", "claim_gb_s", "claim_gib_s", "ess_from", "ess_before", "slide",
                   "note"]].astype({"ess_from": "string", "ess_before": "string"}).reset_index(drop=True)


def release_range(ess_from, ess_before) -> str:
    """The ESS releases a claim holds for, in words: 'ESS 6.1.8 on', 'before ESS 6.1.8', 'none named'."""
    if pd.notna(ess_from):
        return f"ESS {ess_from} on"
    return f"before ESS {ess_before}" if pd.notna(ess_before) else "none named"


def claim_for(claims: pd.DataFrame, model: str, phase: str, release) -> tuple[float, str]:
    """IBM's claim (GB/s) for a run of `model` in `phase` at ESS `release` (NA: unknown), and which claim it
    is: the one whose releases hold the run's; a claim that names no release holds for every run; NaN with
    the reason when the talk has none for the model and phase, or none for the run's release."""
    rows = claims[(claims.model == model) & (claims.phase == phase)]
    if rows.empty:
        return np.nan, "no claim in the talk"
    ranged = rows[rows.ess_from.notna() | rows.ess_before.notna()]
    if ranged.empty:
        return float(rows.claim_gb_s.iloc[0]), "no ESS release named"
    if pd.isna(release):
        return np.nan, "ESS release unknown: " + "; ".join(
            f"{r.claim_gb_s:,.0f} GB/s {release_range(r.ess_from, r.ess_before)}" for r in ranged.itertuples())
    key = release_key(release)
    for r in ranged.itertuples():
        if (pd.isna(r.ess_from) or key >= release_key(r.ess_from)) and (
                pd.isna(r.ess_before) or key < release_key(r.ess_before)):
            return float(r.claim_gb_s), release_range(r.ess_from, r.ess_before)
    return np.nan, f"no claim for ESS {release}"


def get_per_block(con, runs: pd.DataFrame, blocks: pd.DataFrame, claims: pd.DataFrame,
                  releases: pd.DataFrame) -> pd.DataFrame:
    """The easy phases of each run (the IO500 summary's GiB/s, `io500_phases`) in decimal GB/s, per building
    block where `blocks` (get_building_blocks) has a count, and as % of IBM's claim for the run's model,
    phase and ESS release (`claim_for`; `claim_rule` says which claim or why none). A run without a count
    has building_blocks "unknown"."""
    easy = con.execute(
        "SELECT run_id, phase, value AS gib_s, source_id FROM io500_phases "
        "WHERE list_contains(?, run_id) AND list_contains(?, phase)",
        [[int(r) for r in runs.run_id], EASY_PHASES],
    ).df()
    df = (easy.merge(runs[["run_id", "run_key", "label", "submission", "model", "started"]], on="run_id")
          .merge(blocks[["run_id", "building_blocks", "basis", "evidence"]], on="run_id", how="left")
          .merge(releases, on="run_id", how="left"))
    matched = [claim_for(claims, m, p, r) for m, p, r in zip(df.model, df.phase, df.ess_release)]
    df["claim_gb_s"] = [c for c, _ in matched]
    df["claim_rule"] = [rule for _, rule in matched]
    df["gb_s"] = df.gib_s.map(gib_to_gb)
    df["blocks"] = df.building_blocks.astype("Float64").astype(float)
    df["per_block_gb_s"] = df.gb_s / df.blocks
    df["pct_of_claim"] = df.per_block_gb_s / df.claim_gb_s * 100
    df["building_blocks"] = df.building_blocks.astype("string").fillna("unknown")
    order = {p: i for i, p in enumerate(PHASE_ORDER)}
    return df.sort_values(["run_id", "phase"], key=lambda s: s.map(order) if s.name == "phase" else
                          s.map({r: i for i, r in enumerate(runs.run_id)})).reset_index(drop=True)


def per_block_table(per_block: pd.DataFrame) -> pd.DataFrame:
    """One row per run for the page: building blocks, ESS release, and per easy phase the GB/s per building
    block, the claim and the % of it; the read claim's rule last."""
    wide = per_block.pivot_table(index="run_id", columns="phase", values=["per_block_gb_s", "claim_gb_s", "pct_of_claim"],
                                 dropna=False, sort=False)
    wide.columns = [f"{'write' if phase == 'ior-easy-write' else 'read'} {what}" for what, phase in wide.columns]
    first = per_block.drop_duplicates("run_id").set_index("run_id")
    read_rule = per_block[per_block.phase == "ior-easy-read"].set_index("run_id").claim_rule
    out = first[["run_key", "building_blocks", "ess_release"]].join(wide).assign(read_claim_for=read_rule)
    columns = {"building_blocks": "blocks", "ess_release": "ESS"}
    for phase in ("write", "read"):  # "name (unit)": nb.table shows the unit in a row under the headers
        columns.update({f"{phase} per_block_gb_s": f"{phase} per block (GB/s)", f"{phase} claim_gb_s": f"{phase} claim (GB/s)",
                        f"{phase} pct_of_claim": f"{phase} of claim (%)"})
    columns["read_claim_for"] = "read claim for"
    return out.reindex(columns=["run_key", *columns]).rename(columns=columns).reset_index(drop=True)


def fewest_blocks(per_block: pd.DataFrame) -> pd.DataFrame:
    """For runs without a building-block count but with a claim for their model: the fewest building blocks
    that could deliver the measured bandwidth at IBM's claim (measured GB/s / claim, rounded up, highest
    over the easy phases). A lower bound, not a count."""
    df = per_block[(per_block.building_blocks == "unknown") & per_block.claim_gb_s.notna()]
    df = df.assign(at_least=np.ceil(df.gb_s / df.claim_gb_s).astype(int))
    best = df.sort_values("at_least").groupby("run_key", sort=False).tail(1)
    return best[["run_key", "model", "phase", "gb_s", "claim_gb_s", "at_least"]].reset_index(drop=True)


def claim_summary(per_block: pd.DataFrame, phase: str = "ior-easy-read") -> stats.MeanInterval | None:
    """The runs' per-building-block bandwidth in `phase` as a ratio to their own claim: geometric mean over
    the runs with a ratio, with its positive t interval on the log scale (stats.mean_interval, log=True).
    None when no run has a ratio."""
    ratios = per_block[(per_block.phase == phase) & per_block.pct_of_claim.notna()].pct_of_claim / 100
    return stats.mean_interval(ratios, CONFIDENCE, log=True) if len(ratios) else None


def claim_by_model(per_block: pd.DataFrame) -> pd.DataFrame:
    """Per model and easy phase with a claim: the runs (n and their keys), the lowest and highest % of the
    claim, the geometric mean with its interval (NaN bounds for one run), and whether the interval excludes
    100 % (`decided`) or how many runs with this spread would decide it (`runs_to_decide`)."""
    rated = per_block[per_block.pct_of_claim.notna()]
    rows = []
    for (model, phase), g in rated.groupby(["model", "phase"], sort=False):
        ratios = g.pct_of_claim / 100
        m = stats.mean_interval(ratios, CONFIDENCE, log=True)
        decided = len(g) > 1 and not (m.low <= 1 <= m.high)
        rows.append({"model": model, "phase": phase, "n": len(g), "runs": ", ".join(g.run_key),
                     "low_pct": g.pct_of_claim.min(), "high_pct": g.pct_of_claim.max(), "mean_pct": m.mean * 100,
                     "ci_low_pct": m.low * 100, "ci_high_pct": m.high * 100, "decided": decided,
                     "runs_to_decide": None if decided else stats.runs_to_decide(ratios, 1.0, CONFIDENCE)})
    return pd.DataFrame(rows, columns=["model", "phase", "n", "runs", "low_pct", "high_pct", "mean_pct",
                                       "ci_low_pct", "ci_high_pct", "decided", "runs_to_decide"])


# --- ceilings ---------------------------------------------------------------------------------------------

HDR_GBIT_S = {"HDR200": 200}  # HDR InfiniBand as IBM names it: 200 Gb/s per link
LINK_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}


def get_client_links() -> pd.DataFrame:
    """The talk's client links for IBM's ESS 3500 IO500 clusters (seed 000, "Details Regarding IBM's ESS3500
    Cluster io500 submission for ISC23:"): per site, links per client and the link's rate in Gb/s, read from
    the printed phrase ("One HDR200-Infiniband connection per client", "two HDR200 connections")."""
    pub = published.load("seed000_ess3500_io500_clients")
    pub = pub[pub.column == "connection per client"]
    parsed = pub.printed.str.extract(r"^(?P<word>\w+) (?P<link>HDR\d+)")
    return pd.DataFrame({"site": pub.row, "printed": pub.printed,
                         "links_per_client": parsed.word.str.lower().map(LINK_WORDS),
                         "link_gbit_s": parsed.link.map(HDR_GBIT_S),
                         "slide": pub.source.str.partition(": ")[2]}).reset_index(drop=True)


def figure_reading(measured_gb_s: float, quoted_gb_s: float) -> str:
    """A run against IBM's quoted figure for its building blocks: "above IBM's figure", "below IBM's figure"
    or "no figure". The figure is a vendor's "up to" from IBM's lab, not a ceiling: a run may exceed it, and
    a run below it need not be bound by the storage."""
    if pd.isna(quoted_gb_s):
        return "no figure"
    return "above IBM's figure" if measured_gb_s > quoted_gb_s else "below IBM's figure"


def get_ceilings(per_block: pd.DataFrame, ior: pd.DataFrame, talk: pd.DataFrame,
                 links: pd.DataFrame) -> pd.DataFrame:
    """Per run and easy phase in GB/s: the clients' line rate (`client_ceiling_gb_s`: client nodes the IOR log
    reports x the talk's links per client x link rate, for the runs the talk's tables print at a site whose
    links it states; NaN elsewhere: no submission states its link speed), a ceiling no transfer exceeds but
    one a transfer protocol does not fill either, and IBM's quoted figure for the run's building blocks
    (`quoted_gb_s`: building blocks x IBM's claim for the run's release), no ceiling; the measured GB/s as %
    of each, and `reading` (`figure_reading`)."""
    site = talk.drop_duplicates("run_id")[["run_id", "site"]]
    nodes = ior[ior.phase.isin(EASY_PHASES)][["run_id", "phase", "nodes"]]
    df = (per_block.merge(site, on="run_id", how="left")
          .merge(nodes, on=["run_id", "phase"], how="left")
          .merge(links[["site", "links_per_client", "link_gbit_s"]], on="site", how="left"))
    df["client_ceiling_gb_s"] = df.nodes * df.links_per_client * df.link_gbit_s / 8
    df["quoted_gb_s"] = df.blocks * df.claim_gb_s
    df["pct_of_client"] = df.gb_s / df.client_ceiling_gb_s * 100
    df["pct_of_quoted"] = df.gb_s / df.quoted_gb_s * 100
    df["reading"] = [figure_reading(m, q) for m, q in zip(df.gb_s, df.quoted_gb_s)]
    return df


# --- runs alike in model and building blocks -----------------------------------------------------------

def get_alike(con, runs: pd.DataFrame, per_block: pd.DataFrame, ior: pd.DataFrame,
              talk: pd.DataFrame) -> pd.DataFrame:
    """Runs of one model and building-block count, set side by side: one row per attribute, one column per
    run (its run_key), and `differs` (the runs' values are not all the same; "–", unknown, counts as a
    value). Attributes: site (as the talk names it for the runs its tables print, else the institution),
    the IO500 benchmark release, the release the folder names, the GPFS cluster (mmlscluster) and its minReleaseLevel (mmlsconfig), client nodes and tasks and the easy
    phases' transfer size (IOR logs), the file system's block size and format version (mmlsfs), and
    bandwidth per building block. `group` names the model and count. Empty when no two runs share both."""
    counted = per_block[per_block.building_blocks != "unknown"].drop_duplicates("run_id")
    groups = counted.groupby(["model", "building_blocks"]).run_id.agg(list)
    groups = groups[(groups.map(len) > 1) & (groups.index.get_level_values("model") != "unknown")]
    if groups.empty:
        return pd.DataFrame(columns=["group", "attribute", "differs"])
    ids = [r for g in groups for r in g]
    cluster = con.execute(
        "SELECT DISTINCT x.run_id, n.cluster FROM io500_run_system_files x JOIN gpfs_nodes n USING (source_id) "
        "WHERE list_contains(?, x.run_id)", [ids]).df().groupby("run_id").cluster.agg(lambda c: ", ".join(sorted(c)))
    fs = con.execute(
        """
        SELECT DISTINCT x.run_id, a.flag, a.value, d.mount_point
        FROM io500_run_system_files x JOIN gpfs_fs_attributes a USING (source_id)
        JOIN (SELECT DISTINCT source_id, listing, mount_point FROM gpfs_fs_disks) d USING (source_id, listing)
        WHERE list_contains(?, x.run_id) AND a.flag IN ('-B', '-V')
        """, [ids]).df()
    tested = get_fs_disks(con, runs, ior)[["run_id", "mount_point"]].drop_duplicates()
    fs = fs.merge(tested, on=["run_id", "mount_point"])
    levels = get_config(con, ids, ["minReleaseLevel"]).groupby("run_id").value.agg(lambda v: ", ".join(sorted(set(v))))
    easy = ior[ior.phase == "ior-easy-write"].set_index("run_id")
    by_run = runs.set_index("run_id")
    named = talk.drop_duplicates("run_id").set_index("run_id")
    rates = per_block.pivot_table(index="run_id", columns="phase", values="per_block_gb_s")
    out = []
    for (model, count), members in groups.items():
        table = {}
        for r in members:
            flags = fs[fs.run_id == r].set_index("flag").value
            block = flags.get("-B")
            version = by_run.io500_version[r]  # NaN where the run's files print no release: `or` kept NaN
            table[by_run.run_key[r]] = {
                "site": f"IBM {named.site[r]} (talk)" if r in named.index else by_run.institution[r],
                "IO500 benchmark release": version if pd.notna(version) and version else NO_VALUE,
                "release in the folder name": by_run.filesystem[r],
                "GPFS cluster": cluster.get(r, NO_VALUE),
                "cluster minReleaseLevel": levels.get(r, NO_VALUE),
                "client nodes × tasks": (f"{int(easy.nodes[r])} × {int(easy.tasks[r])}"
                                         if r in easy.index and pd.notna(easy.nodes[r]) else NO_VALUE),
                "easy transfer size": (f"{int(easy.transfer_bytes[r]) // 2**20} MiB"
                                       if r in easy.index and pd.notna(easy.transfer_bytes[r]) else NO_VALUE),
                "file system block size": f"{int(block) // 2**20} MiB" if block and block.isdigit() else NO_VALUE,
                "file system format version": flags.get("-V", NO_VALUE),
                "read per building block (GB/s)": f"{rates.at[r, 'ior-easy-read']:,.1f}",
                "write per building block (GB/s)": f"{rates.at[r, 'ior-easy-write']:,.1f}",
            }
        wide = pd.DataFrame(table)
        wide.insert(0, "differs", [len(set(v)) > 1 for v in wide.itertuples(index=False)])
        out.append(wide.rename_axis("attribute").reset_index().assign(
            group=f"{model}, {plural(int(count), 'building block')}"))
    return pd.concat(out, ignore_index=True)


def alike_table(alike: pd.DataFrame) -> pd.DataFrame:
    """`get_alike` for the page: the groups one under another, each headed by a row naming its runs, with the
    runs in columns "1st", "2nd", ... so that no group leaves empty columns for another's runs."""
    parts = []
    for group, g in alike.groupby("group", sort=False):
        runs = [c for c in g.columns if c not in ("group", "attribute", "differs") and g[c].notna().all()]
        head = pd.DataFrame([[group, "runs", "", *runs]])
        body = g[["attribute", "differs", *runs]].assign(differs=g.differs.map({True: "yes", False: ""}))
        parts += [head, pd.DataFrame(np.column_stack([np.full(len(g), ""), body.to_numpy()]))]
    table = pd.concat(parts, ignore_index=True).fillna("")
    ordinals = ["1st", "2nd", "3rd"] + [f"{n}th" for n in range(4, table.shape[1] - 2)]
    table.columns = ["group", "attribute", "differs", *ordinals[:table.shape[1] - 3]]
    return table


SHORT_VALUE = 10  # characters: a value this short is shown in a sentence, a longer one only named
MEASURED = ("read per building block (GB/s)", "write per building block (GB/s)")


def alike_sentences(alike: pd.DataFrame, other_clusters_only: bool = False) -> list[str]:
    """Per group of alike runs (`get_alike`), one sentence: what they share (known values only) and the
    setup attributes in which they differ. `other_clusters_only`: only groups whose runs ran on different
    GPFS clusters (different systems that share only a model and a count)."""
    out = []
    for group, g in alike.groupby("group", sort=False):
        if other_clusters_only and not g[g.attribute == "GPFS cluster"].differs.any():
            continue
        runs = [c for c in g.columns if c not in ("group", "attribute", "differs") and g[c].notna().all()]
        setup = g[~g.attribute.isin(MEASURED)].set_index("attribute")

        def named(attribute: str, values: list[str]) -> str:  # short values are shown, long ones only named
            return f"{attribute} ({', '.join(values)})" if max(map(len, values)) <= SHORT_VALUE else attribute
        same = [named(a, [setup.at[a, runs[0]]]) for a in setup.index[~setup.differs] if setup.at[a, runs[0]] != NO_VALUE]
        differ = [named(a, [setup.at[a, r] for r in runs]) for a in setup.index[setup.differs]]
        out.append(f"{listing(runs)} ({group} each) share {listing(same) or 'no known setting'}, but differ in "
                   f"{listing(differ) or 'no setting compared'}.")
    return out


# --- mdtest-hard-delete --------------------------------------------------------------------------------

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


def talk_pair(hard: pd.DataFrame, talk: pd.DataFrame) -> pd.Series | None:
    """The talk's Tucson ISC23 and SC23 runs (seed000_tucson_isc23_to_sc23, matched by `get_talk_runs`) with
    their mdtest-hard-delete kIOPS and the change in %; None unless both are among `hard`."""
    tucson = talk[talk.table == "seed000_tucson_isc23_to_sc23"].merge(hard[["run_id", "run_key", "kiops"]])
    if set(tucson.column) != {"ISC23", "SC23"}:
        return None
    before, after = (tucson[tucson.column == c].iloc[0] for c in ("ISC23", "SC23"))
    return pd.Series({"before_run": before.run_key, "after_run": after.run_key, "before": before.kiops,
                      "after": after.kiops, "change_pct": (after.kiops / before.kiops - 1) * 100})


def chart_hard_delete(hard: pd.DataFrame) -> alt.Chart:
    """mdtest-hard-delete rate per run over the runs' start dates, one point per run, coloured by model; the
    title states the range."""
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
                 f"to {high.kiops:,.1f} kIOPS ({high.run_key}), {years}: one run each"],
        "subtitle": "source: io500_phases, gpfs_config views"})


def chart_per_block(per_block: pd.DataFrame) -> alt.Chart:
    """Per-building-block easy-phase bandwidth as % of IBM's claim for the run's release, for runs with both a
    building-block count and a claim; a rule at 100 %; the title states the pooled read ratio."""
    df = per_block[per_block.pct_of_claim.notna()]
    read = claim_summary(df)
    title = ([f"Per building block, the runs read {read.mean * 100:.0f} % of IBM's claim",
              f"(95 % interval {read.low * 100:.0f}–{read.high * 100:.0f} %, n = {read.n} runs)"] if read and read.n > 1
             else f"Per building block the easy phases reach {pct_range(df.pct_of_claim)} of IBM's claim")
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X("pct_of_claim:Q", title="per building block, % of IBM's claim for the run's release"),
        y=alt.Y("run_key:N", title=None),
        color=alt.Color("phase:N", title=None, legend=alt.Legend(orient="bottom")),
        yOffset="phase:N",
        tooltip=["label", "phase", "building_blocks", "ess_release", "claim_rule",
                 alt.Tooltip("per_block_gb_s:Q", format=".1f", title="per block (GB/s)"),
                 alt.Tooltip("claim_gb_s:Q", title="IBM's claim (GB/s)")],
    )
    rule = alt.Chart(df).mark_rule(strokeDash=[4, 3], color="gray").encode(x=alt.datum(100))
    return (bars + rule).properties(width=340, title={
        "text": title,
        "subtitle": ["source: io500_phases view; building blocks from mmlsfs disks, mmlscluster or folder names;",
                     "IBM's figures: seed 000 (IBM, Storage Scale User Group at SC23)"]})


# --- settings ----------------------------------------------------------------------------------------------

def get_system_files(con, run_ids: Iterable[int]) -> pd.DataFrame:
    """The Storage Scale listings (mmlsconfig, mmlscluster, mmlsfs) linked to each run (`io500_run_system_files`)."""
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


FOLD_AFTER = 1  # node classes named in a cell before the rest is folded into a count


def _cell(rows: pd.DataFrame) -> str:
    """A run's settings of one key as printed: value [scope]; a scope of many node classes or nodes shows
    the first FOLD_AFTER and how many more (the gpfs_config view has them all)."""
    def scope(s: str) -> str:
        if s == "common":
            return "cluster"
        names = s.split(",")
        more = len(names) - FOLD_AFTER
        return ", ".join(names[:FOLD_AFTER]) + (f" +{more}" if more > 0 else "")
    return "; ".join(f"{v} [{scope(s)}]" for v, s in zip(rows.value, rows.scope))


DIFFERENCES = ["value", "not set in every listing", "case/units and scope", "case/units", "scope", "none"]
DIFFERENCE_SHORT = {"value": "value", "not set in every listing": "unset"}  # the page's narrow column


def compare_config(config: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """One row per key (case-insensitive) set in any of the runs' listings, compared across the runs that
    have a listing: `difference` is "not set in every listing", "value" (the normalised values differ),
    "case/units and scope", "case/units" (same values written differently: 128k, 128K, 131072),
    "scope" (same values, set cluster-wide in one run and per node class in another) or "none". Then one
    column per run (its run_key) with the settings as printed, each with its scope (`_cell`)."""
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
    df = pd.DataFrame(rows, columns=["key", "difference"] + [names[r] for r in listed])
    return df.sort_values(["difference", "key"], key=lambda s: s.map(DIFFERENCES.index) if s.name == "difference"
                          else s.str.lower()).reset_index(drop=True)


# --- findings ----------------------------------------------------------------------------------------------

def pct_range(values: pd.Series) -> str:
    """'87 %' or '54–98 %': the rounded range of percentages."""
    low, high = round(values.min()), round(values.max())
    return f"{low} %" if low == high else f"{low}–{high} %"


def interval_text(mean_pct: float, low_pct: float, high_pct: float, n: int, unit: str = "runs") -> str:
    """'103 % (95 % interval 60–175 %, n = 2 runs)'; one value: '98 % (n = 1 run, no interval)'."""
    if n < 2:
        return f"{mean_pct:.0f} % (n = 1 {unit.rstrip('s')}, no interval)"
    return f"{mean_pct:.0f} % (95 % interval {low_pct:.0f}–{high_pct:.0f} %, n = {n} {unit})"


def decision_text(row) -> str:
    """Whether a claim_by_model row's interval decides above or below 100 %, or the runs that would."""
    if row.n < 2:
        return "undecided: one run"
    if row.decided:
        return "above the claim" if row.ci_low_pct > 100 else "below the claim"
    if row.runs_to_decide:
        return f"undecided (about {row.runs_to_decide:,} runs with this spread would decide)"
    return "undecided"


def main_finding(per_block: pd.DataFrame) -> tuple[str, str] | None:
    """The chapter's main result in at most 30 words: the runs' read per building block as a share of IBM's
    claim for their model and release, with its interval and n. None without a rated run."""
    read = claim_summary(per_block)
    if read is None:
        return None
    if read.n < 2:
        return (f"Per building block, the one rated run reads {read.mean * 100:.0f} % of IBM's claim for its "
                f"model and ESS release (n = 1 run, no interval).", FIG_PER_BLOCK)
    verdict = ("above it" if read.low > 1 else "below it" if read.high < 1 else "undecided")
    return (f"Per building block, IBM's runs read {read.mean * 100:.0f} % of IBM's claim for their model and ESS "
            f"release (95 % interval {read.low * 100:.0f}–{read.high * 100:.0f} %, n = {read.n} runs): "
            f"{verdict}.", FIG_PER_BLOCK)


def claim_models_sentence(by_model: pd.DataFrame) -> str:
    """Per model and phase (claim_by_model): its share of the claim with interval and n, and the decision."""
    return "; ".join(f"{r.model} {r.phase.removeprefix('ior-easy-')} "
                     f"{interval_text(r.mean_pct, r.ci_low_pct, r.ci_high_pct, r.n)}, {decision_text(r)}"
                     for r in by_model.itertuples()) + "."


def findings(per_block: pd.DataFrame, blocks: pd.DataFrame, runs: pd.DataFrame, ceilings: pd.DataFrame,
             alike: pd.DataFrame, pair: pd.Series | None) -> list[tuple[str, str]]:
    """The chapter's findings (at most six), each a claim with its number first and its interval and n in
    brackets, with the name of the table or figure that shows it; every number computed from the frames
    given. First the main result (`main_finding`), then what corrects a naive reading: a building-block
    count the file system's disks overrule, a claim of an earlier ESS release, the shares of the client line
    rate and of IBM's figure (which do not decide what bound a run), runs
    alike only in model and count, and the one comparison of mdtest-hard-delete the talk makes."""
    out = []
    if main := main_finding(per_block):
        out.append(main)
    named = runs.set_index("run_id").run_key
    disagree = blocks[(blocks.basis == "file system disks") & blocks.cluster_pairs.notna()
                      & (blocks.building_blocks != blocks.cluster_pairs)]
    for r in disagree.itertuples():
        mount, _, detail = r.evidence.partition(": ")
        out.append((f"{named[r.run_id]} is {plural(int(r.building_blocks), 'building block')}, not "
                    f"{int(r.cluster_pairs)}: its cluster lists {plural(int(r.cluster_pairs), 'canister pair')}, but "
                    f"the file system under test, {mount}, has {detail}.", TAB_BLOCKS))
    earlier = per_block[per_block.claim_rule.str.startswith("before ESS") & (per_block.phase == "ior-easy-read")]
    for r in earlier.itertuples():
        share = (f"exceeds IBM's quoted {r.claim_gb_s:,.0f} GB/s for its ESS {r.ess_release} by "
                 f"{r.pct_of_claim - 100:.0f} %" if r.pct_of_claim > 100 else
                 f"reads {r.pct_of_claim:.0f} % of IBM's quoted {r.claim_gb_s:,.0f} GB/s for its ESS {r.ess_release}")
        out.append((f"{r.run_key} {share} per building block ({r.claim_rule}); the later release's figure does not "
                    f"apply to it.", TAB_PER_BLOCK))
    linked = ceilings[ceilings.client_ceiling_gb_s.notna() & ceilings.quoted_gb_s.notna()
                      & (ceilings.phase == "ior-easy-read")]
    if len(linked):
        each = "; ".join(f"{r.run_key} {r.pct_of_client:.0f} % and {r.pct_of_quoted:.0f} %" for r in linked.itertuples())
        out.append((f"Easy read as % of the clients' line rate and of IBM's quoted figure: {each}; the data cannot "
                    f"tell whether the client links bound {'it' if len(linked) == 1 else 'them'}.", TAB_CEILINGS))
    out += [(sentence, TAB_ALIKE) for sentence in alike_sentences(alike, other_clusters_only=True)]
    if pair is not None:
        out.append((f"mdtest-hard-delete, the talk's ISC23 to SC23 Tucson run: {pair.change_pct:+.1f} % "
                    f"({pair.before_run} to {pair.after_run}; one run each, undecided).", FIG_HARD_DELETE))
    return out[:6]
