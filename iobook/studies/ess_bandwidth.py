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


from .. import evidence, io500_runs, present, published, selection
from ..evidence import Replicate, plural
from ..parsers.io500 import STANDARD_BW_PHASES, STANDARD_MD_PHASES
from ..report import Finding, Prose, Report, Table
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
NO_VALUE = "–"
# the chapter's figures and tables the findings link to (names unique in the book)
FIG_PER_BLOCK, TAB_PER_BLOCK, TAB_BLOCKS = "fig-ess-per-block", "tab-ess-per-block", "tab-ess-blocks"
TAB_CEILINGS, TAB_ALIKE, FIG_HARD_DELETE = "tab-ess-ceilings", "tab-ess-alike", "fig-ess-hard-delete"


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
    """Every IO500 run (`io500_runs`, each copy once) with its file-system family (as its files or folders
    state: iobook.io500_runs.attribute), whether IBM submitted
    it (`ibm`: the institution starts with "IBM", as IBM Tucson, IBM Ehningen System, IBMDL do) and the IBM
    model its system and file-system names state (`model`: ESS 3200, ESS 3500, Storage Scale System 6000;
    "unknown" when they state none or the run is not a Storage Scale run), and a `label` for prose.
    `io500_version` is the benchmark release the run printed (io500-isc24_v3), not the list it was made for.
    From the setup record (iobook.setups): `scale_release_stated` (never minReleaseLevel) and its `release_source`,
    `changed_during_run` (what its scripts change while it runs)."""
    runs = con.execute(
        "SELECT r.run_id, r.run_key, r.path, r.institution, r.system, r.filesystem, r.year, r.submission, r.started, "
        "r.procs, r.io500_version, r.family, r.family_reason, g.release AS scale_release_stated, "
        "s.source AS release_source, g.changed_during_run "
        "FROM io500_runs r LEFT JOIN setups g USING (run_id) "
        "LEFT JOIN io500_run_setup s ON s.run_id = r.run_id AND s.field = 'release' "
        "WHERE r.counted ORDER BY r.started, r.run_key").df()
    runs["ibm"] = runs.institution.fillna("").str.startswith("IBM")
    names = runs.system.fillna("") + " " + runs.filesystem.fillna("")
    model = names.str.extract(r"\b(3200|3500|6000)\b", expand=False).map(MODELS)
    runs["model"] = model.where(runs.family == STORAGE_SCALE).fillna("unknown")
    who = runs.institution.fillna("no institution") + (", " + runs.model).where(runs.model != "unknown", "")
    runs["label"] = runs.run_key + " (" + who + ")"
    return runs


def selected_runs(runs: pd.DataFrame, requested: Iterable[str] | None = None) -> pd.DataFrame:
    """The runs the chapter shows (the `select_runs` parameter). `requested`: exact run_keys (an unknown key raises selection.UnknownSelection
    naming the nearest); empty: IBM's own Storage Scale runs (the talk's focus), or, when the database holds
    none, every Storage Scale run (other sites' ESS and GPFS systems)."""
    if requested:
        keys = selection.select(requested, runs.run_key, "IO500 run")
        return runs[runs.run_key.isin(keys)].reset_index(drop=True)
    scale = runs[runs.family == STORAGE_SCALE]
    return (scale[scale.ibm] if scale.ibm.any() else scale).reset_index(drop=True)


def selection_rule(runs_all: pd.DataFrame, runs: pd.DataFrame, requested: Iterable[str] | None) -> str:
    """One sentence saying which runs selected_runs chose and by which rule."""
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
    phases = phases.assign(once=phases.value.map(lambda v: present.half_up(v, 1)),
                           twice=phases.value.map(lambda v: present.half_up(present.half_up(v, 2), 1)))
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
SCALE_RELEASE = re.compile(r"\bStorage Scale (\d+(?:[.-]\d+)+)")


def release_key(release: str) -> tuple[int, ...]:
    """'6.2.1-0' -> (6, 2, 1, 0): releases compared number by number."""
    return tuple(int(x) for x in re.findall(r"\d+", release))


def get_ess_releases(runs: pd.DataFrame, talk: pd.DataFrame) -> pd.DataFrame:
    """The ESS release of each run: as a folder name of the run states it (`... with ESS 6.1.6.0`), else as
    the talk states it for the cluster of a run its SC23 tables print (seed 000, "Clients' mmchconfig
    Tuning": ESS 6.1.8.2 at Tucson and Ehningen), else unknown; and the Storage Scale release a folder name
    states (`IBM Storage Scale 5.1.7.1 with ...`), else unknown. Columns: run_id, ess_release, release_from,
    scale_release."""
    stated = published.load("seed000_ess3500_io500_clients")
    stated = stated[stated.column == "ESS"].set_index("row").printed
    sc23 = talk[talk.list == "SC23"].drop_duplicates("run_id").set_index("run_id").site
    rows = []
    for run in runs.itertuples():
        scale = m[1] if (m := SCALE_RELEASE.search(run.path or "")) else pd.NA
        if m := ESS_RELEASE.search(run.path or ""):
            rows.append((run.run_id, m[1], "folder name", scale))
        elif run.run_id in sc23.index and sc23[run.run_id] in stated.index:
            rows.append((run.run_id, stated[sc23[run.run_id]], "talk (slide 'Clients' mmchconfig Tuning')", scale))
        else:
            rows.append((run.run_id, pd.NA, "unknown", scale))
    return pd.DataFrame(rows, columns=["run_id", "ess_release", "release_from", "scale_release"]).astype(
        {"run_id": "int64", "ess_release": "string", "scale_release": "string"})


RATIO = re.compile(r"~?\d+(?:\.(\d+))?X")  # a ratio as a slide prints it, "~2.6X"


def derived_write_claim(ss: pd.DataFrame) -> pd.DataFrame:
    """IBM's ESS 3500 write figure per building block, which the talk gives only as a ratio: "up to 155 GB/s
    seq. write per system (building block) - ~2.6X ESS3500" (seed 000 line 50), so 155 / 2.6 GB/s. The slide
    rounds the ratio to its printed digits: `claim_low_gb_s`-`claim_high_gb_s` is the figure for a ratio
    anywhere within that rounding (2.55-2.65)."""
    write = ss[ss.row == "seq. write"].set_index("column")
    figure, ratio = write.loc["per system (building block)"], write.loc["ESS3500"]
    half = 0.5 * 10.0 ** -len(RATIO.fullmatch(ratio.printed)[1] or "")  # half the printed ratio's last digit
    return pd.DataFrame([{
        "model": MODELS["3500"], "row": "seq. write", "printed": f"{figure.printed} GB/s at {ratio.printed} ESS3500",
        "value": figure.value / ratio.value, "ess_from": pd.NA, "ess_before": pd.NA, "source": ratio.source,
        "claim_low_gb_s": figure.value / (ratio.value + half), "claim_high_gb_s": figure.value / (ratio.value - half),
        "basis": "derived", "cited": f"{ratio.source.partition(':')[0]} line {ratio.line}",
        "note": (f"derived: the Storage Scale System 6000's {figure.printed} GB/s write is \"{ratio.printed} "
                 f"ESS3500\" (seed 000 line {ratio.line}); the slide rounds the ratio")}])


def get_claims() -> pd.DataFrame:
    """IBM's per-building-block lab bandwidth in seed 000, in decimal GB/s as printed and in GiB/s, with the
    ESS releases each holds for (`ess_from` inclusive, `ess_before` exclusive; NA: the talk names none):
    Storage Scale System 6000 up to 310 GB/s read and 155 GB/s write (no release named); ESS 3500 read
    with 4 HDR200 adapters per canister 91 GB/s before ESS 6.1.8 and 126 GB/s from it; ESS 3500 write
    derived from the ~2.6X ratio (`derived_write_claim`, no release named). `basis`: "printed" or "derived";
    `claim_low_gb_s`, `claim_high_gb_s`: a derived figure's range for its ratio's rounding (NaN if printed);
    `cited`: the transcript's file and line the figure (or a derived one's ratio) stands on."""
    ss = published.load("seed000_ss6000_claims")
    derived = derived_write_claim(ss)
    ss = ss[(ss.column == "per system (building block)") & (ss.unit == "GB/s")].assign(
        model=MODELS["6000"], ess_from=pd.NA, ess_before=pd.NA)
    ess = published.load("seed000_ess3500_read_bandwidth")
    ess = ess[(ess.row == "4 HDR200 adapters per canister")].assign(model=MODELS["3500"], row="seq. read")
    # "improved from 91 GB/s to 126 GB/s in ESS 6.1.8": the column names the release, the note the one before
    ess = ess.assign(ess_from=ess.column.str.extract(r"ESS (\d[\d.]*)$", expand=False),
                     ess_before=ess.note.str.extract(r"before ESS (\d[\d.]*)$", expand=False))
    claims = pd.concat([ss.assign(basis="printed"), ess.assign(basis="printed"), derived])
    claims = claims.assign(phase=claims.row.map({"seq. read": "ior-easy-read", "seq. write": "ior-easy-write"}),
                           claim_gb_s=claims.value, claim_gib_s=claims.value.map(gb_to_gib),
                           slide=claims.source.str.partition(": ")[2],
                           cited=claims.cited.fillna(claims.source.str.partition(":")[0] + " line "
                                                     + claims.line.astype("Int64").astype(str)))
    return claims[["model", "phase", "printed", "claim_gb_s", "claim_gib_s", "ess_from", "ess_before", "basis",
                   "claim_low_gb_s", "claim_high_gb_s", "slide", "cited", "note"]].astype(
        {"ess_from": "string", "ess_before": "string", "claim_low_gb_s": float, "claim_high_gb_s": float}
    ).reset_index(drop=True)


def release_range(ess_from, ess_before) -> str:
    """The ESS releases a claim holds for, in words: 'ESS 6.1.8 on', 'before ESS 6.1.8', 'none named'."""
    if pd.notna(ess_from):
        return f"ESS {ess_from} on"
    return f"before ESS {ess_before}" if pd.notna(ess_before) else "none named"


def claim_for(claims: pd.DataFrame, model: str, phase: str, release) -> tuple[float, str]:
    """IBM's claim (GB/s) for a run of `model` in `phase` at ESS `release` (NA: unknown), and which claim it
    is: the one whose releases hold the run's; a claim that names no release holds for every run (a derived
    one says so, with its range); NaN with the reason when the talk has none for the model and phase, or none
    for the run's release."""
    rows = claims[(claims.model == model) & (claims.phase == phase)]
    if rows.empty:
        return np.nan, "no claim in the talk"
    ranged = rows[rows.ess_from.notna() | rows.ess_before.notna()]
    if ranged.empty:
        row = rows.iloc[0]
        if row.basis == "derived":
            return float(row.claim_gb_s), (f"derived from {row.printed}, {row.claim_low_gb_s:,.1f}–"
                                           f"{row.claim_high_gb_s:,.1f} GB/s as the slide rounds the ratio; "
                                           f"no ESS release named")
        return float(row.claim_gb_s), "no ESS release named"
    if pd.isna(release):
        return np.nan, "ESS release unknown: " + "; ".join(
            f"{r.claim_gb_s:,.0f} GB/s {release_range(r.ess_from, r.ess_before)}" for r in ranged.itertuples())
    key = release_key(release)
    for r in ranged.itertuples():
        if (pd.isna(r.ess_from) or key >= release_key(r.ess_from)) and (
                pd.isna(r.ess_before) or key < release_key(r.ess_before)):
            return float(r.claim_gb_s), release_range(r.ess_from, r.ess_before)
    return np.nan, f"no claim for ESS {release}"


def get_clusters(con, run_ids: Iterable[int]) -> pd.Series:
    """run_id -> the GPFS cluster name(s) of the run's mmlscluster listing (`gpfs_nodes`), for runs with one."""
    return con.execute(
        "SELECT DISTINCT x.run_id, n.cluster FROM io500_run_system_files x JOIN gpfs_nodes n USING (source_id) "
        "WHERE list_contains(?, x.run_id)", [[int(r) for r in run_ids]]).df().groupby("run_id").cluster.agg(
        lambda c: ", ".join(sorted(c)))


def system_units(con, runs: pd.DataFrame) -> pd.Series:
    """run_id -> the system a run ran on, the independent unit when runs are compared (a repeat submission of
    one system is not a new unit): its GPFS cluster where a listing names it (651 and 679 are both Tucson's
    io500.gpfs, under two spellings of the institution), else institution / system / file system."""
    named = runs.institution.fillna("") + " / " + runs.system.fillna("") + " / " + runs.filesystem.fillna("")
    clusters = get_clusters(con, runs.run_id)
    return pd.Series([clusters.get(r, n) for r, n in zip(runs.run_id, named)], index=runs.run_id)


def get_per_block(con, runs: pd.DataFrame, blocks: pd.DataFrame, claims: pd.DataFrame,
                  releases: pd.DataFrame) -> pd.DataFrame:
    """The easy phases of each run (the IO500 summary's GiB/s, `io500_phases`) in decimal GB/s, per building
    block where `blocks` (get_building_blocks) has a count, and as % of IBM's claim for the run's model,
    phase and ESS release (`claim_for`; `claim_rule` says which claim or why none). A run without a count
    has building_blocks "unknown"; `unit` is the system the run ran on (`system_units`)."""
    easy = con.execute(
        "SELECT run_id, phase, value AS gib_s, source_id FROM io500_phases "
        "WHERE list_contains(?, run_id) AND list_contains(?, phase)",
        [[int(r) for r in runs.run_id], EASY_PHASES],
    ).df()
    df = (easy.merge(runs[["run_id", "run_key", "label", "submission", "model", "started"]], on="run_id")
          .merge(blocks[["run_id", "building_blocks", "basis", "evidence"]], on="run_id", how="left")
          .merge(releases, on="run_id", how="left"))
    df["unit"] = df.run_id.map(system_units(con, runs))
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


def get_run_links(con, run_ids) -> pd.DataFrame:
    """Each run's client links and their rate as its setup record states them (the `setups` view: the run's
    files, a setup.yml, or data/reference/client_links.csv, which carries the talk's for IBM's ESS 3500 runs)."""
    return con.execute("SELECT run_id, client_links AS links_per_client, client_link_gbit_s AS link_gbit_s "
                       "FROM setups WHERE list_contains(?, run_id)", [list(map(int, run_ids))]
                       ).df().astype({"links_per_client": float})  # NaN, not pd.NA, where none is stated


def get_ceilings(per_block: pd.DataFrame, ior: pd.DataFrame, talk: pd.DataFrame,
                 links: pd.DataFrame) -> pd.DataFrame:
    """Per run and easy phase in GB/s: the clients' line rate (`client_ceiling_gb_s`: client nodes the IOR log
    reports x the links per client and link rate the run's setup record states (`links`: get_run_links); NaN
    where it states none), a ceiling no transfer exceeds but one a transfer protocol does not fill either, and
    IBM's quoted figure for the run's building blocks (`quoted_gb_s`: building blocks x IBM's claim for the run's
    release), no ceiling; the measured GB/s as % of each, `reading` (`figure_reading`), and `clients_bound`: the
    line rate is below IBM's figure."""
    site = talk.drop_duplicates("run_id")[["run_id", "site"]]
    nodes = ior[ior.phase.isin(EASY_PHASES)][["run_id", "phase", "nodes"]]
    df = (per_block.merge(site, on="run_id", how="left")
          .merge(nodes, on=["run_id", "phase"], how="left")
          .merge(links, on="run_id", how="left"))
    df["client_ceiling_gb_s"] = df.nodes * df.links_per_client * df.link_gbit_s / 8
    df["quoted_gb_s"] = df.blocks * df.claim_gb_s
    df["pct_of_client"] = df.gb_s / df.client_ceiling_gb_s * 100
    df["pct_of_quoted"] = df.gb_s / df.quoted_gb_s * 100
    df["reading"] = [figure_reading(m, q) for m, q in zip(df.gb_s, df.quoted_gb_s)]
    # the clients' links carry less than IBM's figure: the run cannot show that figure, whatever the storage does
    df["clients_bound"] = df.client_ceiling_gb_s < df.quoted_gb_s  # False where either is unknown (NaN)
    return df


# --- runs alike in model and building blocks -----------------------------------------------------------

def get_alike(con, runs: pd.DataFrame, per_block: pd.DataFrame, ior: pd.DataFrame,
              talk: pd.DataFrame) -> pd.DataFrame:
    """Runs of one model and building-block count, set side by side: one row per attribute, one column per
    run (its run_key), and `differs` (the runs' values are not all the same; "–", unknown, counts as a
    value). Attributes: site (as the talk names it for the runs its tables print, else the institution),
    the IO500 benchmark release, the release the folder names, the installed Storage Scale release (the setup
    record), the GPFS cluster (mmlscluster) and its minReleaseLevel (mmlsconfig: the compatibility floor, not the
    release), what the run's scripts change while it runs, client nodes and tasks and the easy
    phases' transfer size (IOR logs), the file system's block size and format version (mmlsfs), and
    bandwidth per building block. `group` names the model and count. Empty when no two runs share both."""
    counted = per_block[per_block.building_blocks != "unknown"].drop_duplicates("run_id")
    groups = counted.groupby(["model", "building_blocks"]).run_id.agg(list)
    groups = groups[(groups.map(len) > 1) & (groups.index.get_level_values("model") != "unknown")]
    if groups.empty:
        return pd.DataFrame(columns=["group", "attribute", "differs"])
    ids = [r for g in groups for r in g]
    cluster = get_clusters(con, ids)
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
                "Storage Scale release (setup record)": (
                    f"{by_run.scale_release_stated[r]} ({short_source(by_run.release_source[r])})"
                    if pd.notna(by_run.scale_release_stated[r]) else NO_VALUE),
                "cluster minReleaseLevel (compatibility floor)": levels.get(r, NO_VALUE),
                "changed while it ran": by_run.changed_during_run[r] if pd.notna(by_run.changed_during_run[r]) else NO_VALUE,
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


def alike_sentences(alike: pd.DataFrame) -> list[str]:
    """Per group of alike runs (`get_alike`), one sentence: what they share (known values only) and the
    setup attributes in which they differ."""
    out = []
    for group, g in alike.groupby("group", sort=False):
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
        df[key] = df.run_id.map(values).astype("string").fillna(df.run_id.map(lambda r: "not set" if r in listed else "no listing"))
    on = set(config[(config.key.str.lower() == "fgdltokenbatchacquire") & config.value.str.lower().isin(["1", "yes"])].run_id)
    df["token_batching"] = [("1 or yes" if r in on else "not set or 0") if r in listed else "no listing"
                            for r in df.run_id]
    return df.sort_values(["started", "run_key"]).reset_index(drop=True)


# The settings seed 000 credits for the two metadata phases it improved between its Tucson runs: more hash
# buckets against OpenFileHashTabMutex contention in mdtest-easy-stat (nBucketGroups, line 327) and FGDL token
# batching with directory compaction off for mdtest-hard-delete (fgdlTokenBatchAcquire, autoCompactDir,
# lines 277-281 and 312).
TALK_SETTINGS = ("nBucketGroups", "fgdlTokenBatchAcquire", "autoCompactDir")


def talk_pair(con, hard: pd.DataFrame, talk: pd.DataFrame) -> pd.Series | None:
    """The talk's Tucson ISC23 and SC23 runs (seed000_tucson_isc23_to_sc23, matched by `get_talk_runs`) with
    their mdtest-hard-delete and mdtest-easy-stat kIOPS (`io500_phases`) and the changes in %, and which of
    TALK_SETTINGS the later run's mmlsconfig sets and the earlier one's does not (`only_after`); None unless
    both runs are among `hard`."""
    tucson = talk[talk.table == "seed000_tucson_isc23_to_sc23"].merge(hard[["run_id", "run_key", "kiops"]])
    if set(tucson.column) != {"ISC23", "SC23"}:
        return None
    before, after = (tucson[tucson.column == c].iloc[0] for c in ("ISC23", "SC23"))
    stat = dict(con.execute("SELECT run_id, value FROM io500_phases WHERE phase = 'mdtest-easy-stat' AND "
                            "list_contains(?, run_id)", [[int(before.run_id), int(after.run_id)]]).fetchall())
    config = get_config(con, [before.run_id, after.run_id], TALK_SETTINGS)
    set_in = {r: {k.lower() for k in config[config.run_id == r].key} for r in (before.run_id, after.run_id)}
    only_after = sorted((k for k in TALK_SETTINGS if k.lower() in set_in[after.run_id] - set_in[before.run_id]),
                        key=str.lower)
    return pd.Series({"before_id": before.run_id, "after_id": after.run_id, "before_run": before.run_key,
                      "after_run": after.run_key, "before": before.kiops, "after": after.kiops,
                      "change_pct": (after.kiops / before.kiops - 1) * 100,
                      "stat_change_pct": (stat[after.run_id] / stat[before.run_id] - 1) * 100,
                      "only_after": only_after})


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


def chart_per_block(ceilings: pd.DataFrame) -> alt.Chart:
    """Per-building-block easy-phase bandwidth (GB/s) of the runs with a building-block count and a claim, against
    both yardsticks: IBM's claim for the run's model, phase and release (a tick) and, where the talk states the
    clients' links, their line rate per building block (a diamond). Tucson's 651 and 679 read the same 110 GB/s a
    block at 88 % of the same line rate, while their claims differ: a share of a claim alone told them apart."""
    df = ceilings[ceilings.claim_gb_s.notna() & ceilings.blocks.notna()].assign(
        line_rate_per_block_gb_s=lambda d: d.client_ceiling_gb_s / d.blocks)
    title = ["Per building block, against IBM's claim (tick) and the clients' line rate (diamond):",
             "; ".join(f"{m} {span(g.per_block_gb_s)} GB/s" for m, g in df.groupby("model", sort=True))]
    y = alt.Y("run_key:N", title=None)
    tooltip = ["label", "phase", "building_blocks", "ess_release", "claim_rule",
               alt.Tooltip("per_block_gb_s:Q", format=".1f", title="per block (GB/s)"),
               alt.Tooltip("claim_gb_s:Q", title="IBM's claim (GB/s)"),
               alt.Tooltip("line_rate_per_block_gb_s:Q", format=".1f", title="line rate per block (GB/s)")]
    base = alt.Chart(df).encode(y=y, yOffset="phase:N", color=alt.Color("phase:N", title=None,
                                                                        legend=alt.Legend(orient="bottom")))
    bars = base.mark_bar(opacity=0.7).encode(x=alt.X("per_block_gb_s:Q", title="GB/s per building block"),
                                            tooltip=tooltip)
    claims = base.mark_tick(thickness=2, size=14, color="black").encode(x="claim_gb_s:Q", tooltip=tooltip)
    rates = base.transform_filter("isValid(datum.line_rate_per_block_gb_s)").mark_point(
        shape="diamond", filled=True, size=70, color="black").encode(x="line_rate_per_block_gb_s:Q", tooltip=tooltip)
    return (bars + claims + rates).properties(width=340, title={
        "text": title,
        "subtitle": ["source: io500_phases view; building blocks from mmlsfs disks, mmlscluster or folder names;",
                     "IBM's figures and the clients' links: seed 000 (IBM, Storage Scale User Group at SC23)"]})


# --- settings ----------------------------------------------------------------------------------------------

def get_system_files(con, run_ids: Iterable[int]) -> pd.DataFrame:
    """The Storage Scale listings (mmlsconfig, mmlscluster, mmlsfs) linked to each run (`io500_run_system_files`)."""
    return con.execute("SELECT run_id, source_id, format FROM io500_run_system_files WHERE list_contains(?, run_id) "
                       "AND format LIKE 'gpfs-%'",
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


# --- evidence and findings ------------------------------------------------------------------------------

FAMILY_RUNS = "each run against IBM's claim for its model, phase and release"
FAMILY_SYSTEMS = "systems of one model and release against IBM's claim"
MODEL_ORDER = [MODELS["6000"], MODELS["3500"], MODELS["3200"]]  # the newest model's result leads
TUCSON, EHNINGEN = "Tucson", "Ehningen"  # the talk's site names (TALK_COLUMNS)
SHORT_PHASE = {"ior-easy-read": "read", "ior-easy-write": "write"}


def span(values: Iterable[float], spec: str = ".0f") -> str:
    """'110' or '305–333': the rounded range of values."""
    values = list(values)
    low, high = format(min(values), spec), format(max(values), spec)
    return low if low == high else f"{low}–{high}"


def claim_quantity(phase: str) -> str:
    return f"{phase} per building block"


def claim_records(per_block: pd.DataFrame) -> list[evidence.Comparison]:
    """What the chapter says of IBM's claims, decided by evidence.decide: each rated run against the claim for
    its own model, phase and release (one run, no spread: too few units to decide anything); and, where two
    systems or more share a model, a claim and a stated ESS and Storage Scale release, those systems against
    it (repeat submissions of one system are one unit). Models, claims and releases are never pooled."""
    rated = per_block[per_block.pct_of_claim.notna()]
    records = [evidence.compare_to_reference(
        [r.per_block_gb_s], r.claim_gb_s, quantity=claim_quantity(r.phase), unit="GB/s",
        replicate=Replicate.RUN, family=FAMILY_RUNS, label=r.run_key,
        reference_label=f"IBM's {r.claim_gb_s:,.1f} GB/s ({r.claim_rule})") for r in rated.itertuples()]
    stated = rated.dropna(subset=["ess_release", "scale_release"])
    for (model, phase, claim, ess, scale), g in stated.groupby(
            ["model", "phase", "claim_gb_s", "ess_release", "scale_release"], sort=False):
        if g.unit.nunique() > 1:
            records.append(evidence.compare_to_reference(
                evidence.Observations(values=g.per_block_gb_s.tolist(), units=g.unit.tolist()), claim,
                quantity=claim_quantity(phase), unit="GB/s", replicate=Replicate.SYSTEM, family=FAMILY_SYSTEMS,
                label=f"{model} {listing(g.run_key)} (Storage Scale {scale}, ESS {ess})",
                reference_label=f"IBM's {claim:,.0f} GB/s"))
    return evidence.decide(records)


def claim_table(records: list[evidence.Comparison]) -> pd.DataFrame:
    """The claim records for the page: what is compared, the phase, the GB/s per building block (geometric
    mean over the units), IBM's figure, the ratio in % with its interval (withheld on fewer units than the rule
    allows), the units and the verdict."""
    df = evidence.frame(evidence.as_shown(r) for r in records)
    if df.empty:
        return pd.DataFrame(columns=["compared", "phase", "n", "unit"])
    return pd.DataFrame({
        "compared": df.label, "phase": df.quantity.str.removesuffix(" per building block").map(SHORT_PHASE),
        "per block (GB/s)": df.ratio * df.reference, "IBM's figure (GB/s)": df.reference,
        "of IBM's figure (%)": df.ratio * 100, "interval low (%)": df.low * 100, "interval high (%)": df.high * 100,
        "n": df.n, "unit": df.replicate, "verdict": df.verdict,
        "units to decide": df.n_to_decide.astype("Int64")})


def model_values(per_block: pd.DataFrame, model: str) -> dict[str, str]:
    """Per building block, the rated runs of `model`: read and write GB/s and % of their own claims as
    rounded ranges ("305–333"), keyed read_per_block, write_per_block, read_pct, write_pct, pct (both phases)."""
    rated = per_block[(per_block.model == model) & per_block.pct_of_claim.notna()]
    out = {}
    for phase, short in SHORT_PHASE.items():
        rows = rated[rated.phase == phase]
        out[f"{short}_per_block"] = span(rows.per_block_gb_s) if len(rows) else NO_VALUE
        out[f"{short}_pct"] = span(rows.pct_of_claim) if len(rows) else NO_VALUE
    out["pct"] = span(rated.pct_of_claim) if len(rated) else NO_VALUE
    return out


def verdicts(records: list[evidence.Comparison]) -> str:
    """The verdicts of records, in words ('too few units'), each once."""
    return " or ".join(dict.fromkeys(str(r.verdict) for r in records))


def lead_model(per_block: pd.DataFrame) -> str | None:
    """The newest model (MODEL_ORDER) with a run rated against IBM's claim; None without one."""
    rated = set(per_block[per_block.pct_of_claim.notna()].model)
    return next((m for m in MODEL_ORDER if m in rated), None)


def figure(gb_s: float) -> str:
    """A figure as the talk prints it (310, 91), a derived one to one decimal (59.6)."""
    return f"{gb_s:,.0f}" if float(gb_s).is_integer() else f"{gb_s:,.1f}"


def main_finding(per_block: pd.DataFrame, records: list[evidence.Comparison], model: str,
                 runs: pd.DataFrame) -> Finding:
    """The chapter's main result in at most 30 words: the rated runs of `model` (lead_model), their read and
    write per building block and their share of IBM's claim for each run's own release, with the verdict
    (evidence.decide) of their records; and what they were run on where every one shares it (an early pre-GA
    build as the archive's folders name it, one building block each)."""
    rows = per_block[per_block.pct_of_claim.notna() & (per_block.model == model)]
    labels = runs.set_index("run_key").filesystem.reindex(rows.run_key.unique()).fillna("")
    pre_ga = f" ({io500_runs.PRE_GA})" if len(labels) and labels.str.contains(io500_runs.PRE_GA, regex=False).all() else ""
    lead = (f"{model}{pre_ga}, one block each:" if (rows.blocks == 1).all() else
            f"Per building block, {model}{pre_ga} runs")
    phases = [p for p in ("ior-easy-read", "ior-easy-write") if p in set(rows.phase)]
    rates = " and ".join(f"{SHORT_PHASE[p]} {span(rows[rows.phase == p].per_block_gb_s)}" for p in phases) + " GB/s"
    claims = [rows[rows.phase == p].claim_gb_s.unique() for p in phases]
    claim = (f"IBM's {' and '.join(figure(c[0]) for c in claims)} GB/s" if all(len(c) == 1 for c in claims)
             else "IBM's claim for each run's release")
    mine = [r for r in records if r.label in set(rows.run_key) or r.label.startswith(model)]  # its runs, its systems
    units = rows.unit.nunique()
    return Finding(text=(f"{lead} {rates}, {span(rows.pct_of_claim)} % of {claim} "
                         f"({plural(units, 'system')}: {verdicts(mine)})."),
                   target=FIG_PER_BLOCK, evidence=tuple(mine))


def phase_clause(rows: pd.DataFrame, verb: str) -> str:
    """'submission-651 reads 120 % of 91 GB/s (before ESS 6.1.8), submission-679 87 % of 126 GB/s (...)': each
    run's share of its own claim, runs of one claim named together."""
    parts = []
    for i, ((claim, rule), g) in enumerate(rows.groupby(["claim_gb_s", "claim_rule"], sort=False)):
        shares = listing(f"{r.run_key}{f' {verb}' if i == 0 and j == 0 else ''} {r.pct_of_claim:.0f} %"
                         for j, r in enumerate(g.itertuples()))
        parts.append(f"{shares} of {figure(claim)} GB/s ({rule})")
    return "; ".join(parts)


def per_run_findings(per_block: pd.DataFrame, records: list[evidence.Comparison], main: str) -> list[Finding]:
    """For each model but `main` with rated runs, one sentence: each run's share of its own claim per phase."""
    rated = per_block[per_block.pct_of_claim.notna()]
    out = []
    for model in [m for m in MODEL_ORDER if m in set(rated.model) and m != main]:
        rows = rated[rated.model == model]
        clauses = [phase_clause(rows[rows.phase == p], "reads" if p == "ior-easy-read" else "writes")
                   for p in ("ior-easy-read", "ior-easy-write") if p in set(rows.phase)]
        mine = tuple(r for r in records if r.label in set(rows.run_key))
        out.append(Finding(text=(f"{model} per building block, each run against its own claim: {'. '.join(clauses)}; "
                                 f"one run each: {verdicts(mine)}."), target=TAB_PER_BLOCK, evidence=mine))
    return out


def one_run(value: float, quantity: str, unit: str) -> evidence.Estimate:
    """The record of a number of one run: a single unit, no interval."""
    return evidence.described(value, quantity=quantity, unit=unit, n=1, replicate=evidence.Replicate.RUN,
                              how="one run's value")


def site_values(ceilings: pd.DataFrame, site: str) -> dict[str, str]:
    """The read per building block and share of the client line rate of the runs at `site` (the talk's name)
    whose line rate is known: rounded ranges, NO_VALUE without such a run."""
    rows = ceilings[(ceilings.site == site) & (ceilings.phase == "ior-easy-read") & ceilings.client_ceiling_gb_s.notna()
                    & ceilings.per_block_gb_s.notna()]
    if rows.empty:
        return {"read_per_block": NO_VALUE, "pct_of_line_rate": NO_VALUE, "runs": NO_VALUE}
    return {"read_per_block": span(rows.per_block_gb_s), "pct_of_line_rate": span(rows.pct_of_client),
            "runs": listing(rows.run_key)}


def site_finding(at_site: dict[str, str]) -> Finding:
    """For the landing page: ESS 3500 read per building block at Tucson (`site_values`) and its share of the
    clients' line rate."""
    return Finding(text=(f"ESS 3500 per building block at {TUCSON} ({at_site['runs']}): {at_site['read_per_block']} GB/s "
                         f"read, {at_site['pct_of_line_rate']} % of the clients' line rate."), target=TAB_CEILINGS)


def line_rate_finding(ceilings: pd.DataFrame, links: pd.DataFrame) -> Finding | None:
    """A run whose clients' line rate is below IBM's figure for its building blocks: the clients bound it (it
    could not show IBM's figure); with the read per building block and share of the line rate of the runs at
    its site. Without such a run, each linked run's share of the line rate and of IBM's figure."""
    read = ceilings[(ceilings.phase == "ior-easy-read") & ceilings.client_ceiling_gb_s.notna()]
    bound = read[read.clients_bound]
    if len(bound):
        sentences, records = [], []
        for r in bound.itertuples():
            records += [one_run(r.client_ceiling_gb_s, f"{r.run_key}: clients' nominal line rate", "GB/s"),
                        one_run(r.quoted_gb_s, f"{r.run_key}: IBM's figure for its building blocks", "GB/s")]
            link = links.set_index("site").loc[r.site]
            at_site = site_values(ceilings, r.site)
            sentences.append(
                f"{r.run_key}'s clients ({r.nodes:,.0f} nodes in its IOR log, {plural(int(link.links_per_client), 'link')} "
                f"of {link.link_gbit_s:,.0f} Gb/s each, as the talk states) carry at most {r.client_ceiling_gb_s:,.0f} "
                f"GB/s at their nominal rate"
                f", below IBM's {r.quoted_gb_s:,.0f} GB/s for its {plural(int(r.blocks), 'building block')}: "
                f"the clients bound it below IBM's figure, whatever the storage could do; {r.site}'s runs ({at_site['runs']}) read "
                f"{at_site['read_per_block']} GB/s per building block, {at_site['pct_of_line_rate']} % of that line rate.")
        return Finding(text=" ".join(sentences), target=TAB_CEILINGS, evidence=tuple(records))
    linked = read[read.quoted_gb_s.notna()]
    if linked.empty:
        return None
    each = "; ".join(f"{r.run_key} {r.pct_of_client:.0f} % and {r.pct_of_quoted:.0f} %" for r in linked.itertuples())
    shares = tuple(one_run(r.pct_of_client, f"{r.run_key}: easy read as % of the clients' nominal line rate", "%")
                   for r in linked.itertuples())
    return Finding(text=(f"Easy read as % of the clients' nominal line rate and of IBM's quoted figure: {each}; the data "
                         f"cannot tell whether the client links bound {'it' if len(linked) == 1 else 'them'}."),
                   target=TAB_CEILINGS, evidence=shares)


def short_source(source: str) -> str:
    """A setup value's source up to its first colon: 'seed 000 line 277', 'archive folder name'."""
    return source.partition(":")[0]


def sites_finding(ceilings: pd.DataFrame, talk: pd.DataFrame, ior: pd.DataFrame, runs: pd.DataFrame) -> Finding | None:
    """The talk's SC23 runs at Ehningen and Tucson side by side: total read change, read per building block,
    client line rates and their shares, and what else differs (transfer size from the IOR logs, the installed
    Storage Scale release from the setup record, never minReleaseLevel): what one run per site can and cannot
    tell. None without both."""
    sc23 = talk[(talk.list == "SC23") & talk.site.isin([TUCSON, EHNINGEN])].drop_duplicates("site").set_index("site")
    read = ceilings[ceilings.phase == "ior-easy-read"].set_index("run_id")
    if len(sc23) < 2 or not set(sc23.run_id) <= set(read.index):
        return None
    t, e = (read.loc[sc23.run_id[s]] for s in (TUCSON, EHNINGEN))
    if pd.isna(t.blocks) or pd.isna(e.blocks) or pd.isna(t.client_ceiling_gb_s) or pd.isna(e.client_ceiling_gb_s):
        return None
    easy = ior[ior.phase == "ior-easy-read"].set_index("run_id").transfer_bytes
    stated = runs.set_index("run_id")
    differ = []
    ids = (sc23.run_id[EHNINGEN], sc23.run_id[TUCSON])
    if all(i in easy.index for i in ids) and easy[ids[0]] != easy[ids[1]]:
        differ.append(f"transfer sizes ({' and '.join(f'{int(easy[i]) // 2**20} MiB' for i in ids)})")
    release = stated.scale_release_stated.reindex(ids)
    if release.notna().all() and release.iloc[0] != release.iloc[1]:
        sources = listing(sorted({short_source(stated.release_source[i]) for i in ids}))
        headed = talk_release()
        heading = (f"; the talk's SC23 table heads both 'Storage Scale {headed}'"
                   if headed and not (release == headed).all() else "")
        differ.append(f"Storage Scale releases ({' and '.join(release)}, {sources}{heading})")
    return Finding(text=(
        f"{EHNINGEN}'s {plural(int(e.blocks), 'building block')} ({e.run_key}) read {(e.gb_s / t.gb_s - 1) * 100:+.1f} % "
        f"in total against {TUCSON}'s {int(t.blocks)} ({t.run_key}), {e.per_block_gb_s:,.0f} against "
        f"{t.per_block_gb_s:,.0f} GB/s per building block, with a client line rate of {e.client_ceiling_gb_s:,.0f} "
        f"against {t.client_ceiling_gb_s:,.0f} GB/s ({e.pct_of_client:.0f} % and {t.pct_of_client:.0f} % of it "
        f"used). One run per site, on other clients{', ' + listing(differ) if differ else ''}: it cannot tell "
        f"building blocks from site, clients or release, and is no per-block scaling law."), target=TAB_CEILINGS,
        evidence=tuple(one_run(r.per_block_gb_s, f"{r.run_key}: easy read per building block", "GB/s") for r in (e, t)))


def talk_release(table: str = "seed000_sc23_io500") -> str | None:
    """The Storage Scale release the talk heads its SC23 IO500 tables with ("all with IBM Storage Scale
    5.1.9.0", in the published table's source), None if it names none."""
    m = SCALE_RELEASE.search(published.load(table).source.iloc[0])
    return m[1] if m else None


def release_mix_finding(pair: pd.Series, releases: pd.DataFrame) -> Finding:
    """The talk's Tucson ISC23-to-SC23 changes of mdtest-hard-delete and mdtest-easy-stat, one run each: the
    release the earlier run's folder states against the one the talk gives, and the talk's settings only the
    later run's listing sets. Upgrade and settings changed together: the change is not the settings'."""
    stated = releases.set_index("run_id").loc[pair.before_id]
    before = (f"{pair.before_run}'s folder states Storage Scale {stated.scale_release} with ESS {stated.ess_release}"
              if pd.notna(stated.scale_release) else f"{pair.before_run}'s release is not stated")
    settings = (f", and {listing(f'`{k}`' for k in pair.only_after)} are set only in {pair.after_run}'s listing"
                if pair.only_after else "")
    return Finding(text=(
        f"From the talk's Tucson ISC23 run to its SC23 run ({pair.before_run} to {pair.after_run}, one run each), "
        f"mdtest-hard-delete moved {pair.change_pct:+.1f} % and mdtest-easy-stat {pair.stat_change_pct:+.1f} %. The talk "
        f"heads both 'Storage Scale {talk_release()}', but {before}{settings}: the changes mix the upgrade with "
        f"the settings."), target=FIG_HARD_DELETE)


def changed_during_run_text(runs: pd.DataFrame, changed: evidence.Count) -> str:
    """What the runs' own scripts change while the benchmark runs (the setup record's changed_during_run): which
    runs, and that no listing shows it."""
    if not changed.k:
        return f"None of the {plural(changed.n, 'run')} here keeps a script that changes the file system while it runs."
    which = runs[runs.changed_during_run.notna()]
    stopped = which.changed_during_run.str.contains("SIGSTOP")
    return (f"{changed.k} of the {plural(changed.n, 'run')} here ({listing(which.run_key)}) keep scripts that change "
            f"the file system while the "
            f"benchmark runs: `mmchconfig ... -i` of `inodePrefetchThreshold` from `[find]` to `[ior-easy-read]`"
            + (f", and {int(stopped.sum())} of them stop and resume every io500 process (SIGSTOP, SIGCONT)"
               if stopped.any() else "")
            + ": their find and the phases around it ran under settings that no listing shows.")


def block_count_findings(blocks: pd.DataFrame, runs: pd.DataFrame) -> list[Finding]:
    """A building-block count the file system's disks overrule: one sentence per such run."""
    named = runs.set_index("run_id").run_key
    disagree = blocks[(blocks.basis == "file system disks") & blocks.cluster_pairs.notna()
                      & (blocks.building_blocks != blocks.cluster_pairs)]
    out = []
    for r in disagree.itertuples():
        mount, _, detail = r.evidence.partition(": ")
        out.append(Finding(text=(f"{named[r.run_id]} is {plural(int(r.building_blocks), 'building block')}, not "
                                 f"{int(r.cluster_pairs)}: its cluster lists {plural(int(r.cluster_pairs), 'canister pair')}, "
                                 f"but the file system under test, {mount}, has {detail}."), target=TAB_BLOCKS))
    return out


MAX_FINDINGS = 6  # the page check wants 3-6


# --- the report ----------------------------------------------------------------------------------------------

PCT = ".0f"
GB_S = ",.1f"


def claims_values(claims: pd.DataFrame) -> dict:
    """IBM's figures the chapter's prose pastes (numbers as Python floats: a NumPy scalar's text is
    "np.float64(310.0)", which no format reads)."""
    ss, ess = claims[claims.model == MODELS["6000"]], claims[claims.model == MODELS["3500"]]
    write = ess[ess.phase == "ior-easy-write"].iloc[0]
    return {"ss_read_claim": float(ss[ss.phase == "ior-easy-read"].claim_gb_s.iloc[0]),
            "ss_write_claim": float(ss[ss.phase == "ior-easy-write"].claim_gb_s.iloc[0]),
            "ess_read_claim": float(ess[ess.ess_from.notna()].claim_gb_s.iloc[0]),
            "ess_read_claim_before": float(ess[ess.ess_before.notna()].claim_gb_s.iloc[0]),
            "ess_claim_release": ess.ess_from.dropna().iloc[0],
            "ess_write_claim": round(float(write.claim_gb_s), 1), "ess_write_printed": write.printed,
            "ess_write_range": f"{write.claim_low_gb_s:,.1f}–{write.claim_high_gb_s:,.1f}",
            "ess_write_cited": write.cited}


def report(con, *, select_runs: Iterable[str] = (), config_keys: Iterable[str] = ()) -> Report:
    """The chapter: IBM's Storage Scale runs (or those named in `select_runs`), their building blocks, their
    easy phases per building block against IBM's claim for each run's model and release, the client line
    rates, runs alike in model and count, IOR's own logs, mdtest-hard-delete over time and the settings
    (`config_keys`, any case; empty: every key) that differ between the runs' mmlsconfig listings."""
    requested = list(select_runs)
    runs_all = get_runs(con)
    runs = selected_runs(runs_all, requested)
    claims = get_claims()
    r = Report(values={"has_data": len(runs) > 0, **claims_values(claims)})
    if runs.empty:
        r.note = present.no_data("IO500 runs of a Storage Scale (GPFS) file system", HOW_TO_ADD)
        return r
    ior = get_ior_phases(con, runs.run_id)
    talk = get_talk_runs(con, runs)
    links = get_client_links()
    blocks = get_building_blocks(con, runs, ior)
    releases = get_ess_releases(runs, talk)
    per_block = get_per_block(con, runs, blocks, claims, releases)
    ceilings = get_ceilings(per_block, ior, talk, get_run_links(con, runs.run_id))
    records = claim_records(per_block)
    alike = get_alike(con, runs, per_block, ior, talk)
    hard = get_hard_delete(con, runs)
    pair = talk_pair(con, hard, talk) if len(hard) else None
    keys = list(config_keys)
    config = get_config(con, runs.run_id, keys)
    compared = compare_config(config, runs)
    fewest = fewest_blocks(per_block)
    files = get_system_files(con, runs.run_id)
    source_ids = (set(ior.source_id) | set(ior.summary_source_id) | set(per_block.source_id) | set(hard.source_id)
                  | set(files.source_id))
    bounded = ceilings[ceilings.client_ceiling_gb_s.notna() | ceilings.quoted_gb_s.notna()]
    rated = per_block.pct_of_claim.notna().any()

    ss6000, tucson = model_values(per_block, MODELS["6000"]), site_values(ceilings, TUCSON)
    model = lead_model(per_block)
    findings = [main_finding(per_block, records, model, runs)] if model else [Finding(text=(
        "No selected run has both a building-block count and a claim from IBM for its model and release, so none "
        "is set against IBM's claims."), target=TAB_BLOCKS)]
    findings += per_run_findings(per_block, records, model)
    findings += [f for f in (line_rate_finding(ceilings, links), sites_finding(ceilings, talk, ior, runs)) if f]
    r.evidence = records
    if pair is not None:
        changed = evidence.count(int(runs.changed_during_run.notna().sum()), len(runs),
                                 quantity="runs whose scripts change the file system while they run", of=Replicate.CENSUS)
        r.evidence = [*records, changed]
        mix = release_mix_finding(pair, releases)
        findings.append(Finding(text=mix.text + " " + changed_during_run_text(runs, changed), target=mix.target,
                                evidence=(changed,)))
    findings += block_count_findings(blocks, runs)
    r.findings = findings[:MAX_FINDINGS]
    r.abstract = findings[:1] + ([site_finding(tucson)] if tucson["runs"] != NO_VALUE else [])

    r.values.update({
        "selection_rule": Prose(selection_rule(runs_all, runs, requested)), "runs_n": len(runs),
        **{f"ss6000_{k}": v for k, v in ss6000.items() if k != "pct"}, "ss6000_pct_of_claim": ss6000["pct"],
        "ess3500_tucson_read_per_block": tucson["read_per_block"],
        "ess3500_tucson_pct_of_line_rate": tucson["pct_of_line_rate"],
        "client_bound_runs": listing(ceilings[ceilings.clients_bound].run_key.unique()) or NO_VALUE,
        "no_ceiling_md": Prose(", ".join(sorted(set(ceilings.run_key) - set(bounded.run_key))) or "none"),
        "sources_n": len(source_ids),
        "has_fewest": len(fewest) > 0, "has_rated": bool(rated), "has_alike": len(alike) > 0, "has_ior": len(ior) > 0,
        "has_hard": len(hard) > 0, "has_pair": pair is not None, "has_config": len(compared) > 0,
    })
    r.tables.update({
        "tab-ess-runs": Table(frame=short_runs(runs.merge(releases, on="run_id").merge(
            talk.drop_duplicates("run_id")[["run_id", "list"]], on="run_id", how="left")[
            ["run_key", "institution", "model", "io500_version", "list", "scale_release", "ess_release",
             "release_from"]]).rename(columns={
                "institution": "site", "model": "IBM model", "io500_version": "IO500 release",
                "list": "list (talk)", "scale_release": "Storage Scale", "ess_release": "ESS",
                "release_from": "ESS from"})),
        "tab-ess-blocks": Table(frame=short_runs(runs[["run_id", "run_key"]].merge(blocks, on="run_id")[
            ["run_key", "building_blocks", "basis", "cluster_pairs", "evidence"]]).rename(columns={
                "building_blocks": "blocks", "basis": "building blocks from", "cluster_pairs": "cluster pairs"})),
        "tab-ess-claims": Table(frame=claims.assign(releases=list(map(release_range, claims.ess_from, claims.ess_before)))[
            ["model", "phase", "basis", "claim_gb_s", "claim_low_gb_s", "claim_high_gb_s", "claim_gib_s", "releases",
             "slide"]].rename(columns={
                "model": "IBM model", "claim_gb_s": "claim (GB/s)", "claim_low_gb_s": "lowest (GB/s)",
                "claim_high_gb_s": "highest (GB/s)", "claim_gib_s": "claim (GiB/s)", "releases": "ESS releases"}),
            formats={"claim (GB/s)": ",.1f", "lowest (GB/s)": ",.1f", "highest (GB/s)": ",.1f", "claim (GiB/s)": ",.1f"}),
        "tab-ess-per-block": Table(frame=short_runs(per_block_table(per_block)), formats={
            f"{p} {what}": spec for p in ("read", "write")
            for what, spec in (("per block (GB/s)", GB_S), ("claim (GB/s)", GB_S), ("of claim (%)", PCT))}),
        "tab-ess-links": Table(frame=links[["site", "printed", "links_per_client", "link_gbit_s"]].rename(columns={
            "printed": "as printed", "links_per_client": "links per client", "link_gbit_s": "link rate (Gb/s)"})),
        "tab-ess-ceilings": Table(frame=short_runs(bounded.assign(phase=bounded.phase.map(SHORT_PHASE),
                                                                  clients_bound=bounded.clients_bound.map({True: "yes", False: ""}))[
            ["run_key", "phase", "gb_s", "nodes", "client_ceiling_gb_s", "quoted_gb_s", "pct_of_client",
             "pct_of_quoted", "reading", "clients_bound"]]).rename(columns={
                "gb_s": "measured (GB/s)", "nodes": "clients", "client_ceiling_gb_s": "client line rate (GB/s)",
                "quoted_gb_s": "IBM's figure (GB/s)", "pct_of_client": "of line rate (%)",
                "pct_of_quoted": "of IBM's figure (%)", "reading": "against IBM's figure",
                "clients_bound": "line rate below IBM's figure"}),
            formats={"measured (GB/s)": GB_S, "clients": ",.0f", "client line rate (GB/s)": ",.0f",
                     "IBM's figure (GB/s)": ",.0f", "of line rate (%)": PCT, "of IBM's figure (%)": PCT}),
        "tab-ess-sources": Table(frame=present.sources(con, source_ids)),
    })
    if len(fewest):
        r.values["fewest_md"] = Prose("; ".join(
            f"{f.run_key} needs at least {plural(f.at_least, 'building block')} ({f.phase} {f.gb_s:,.1f} GB/s "
            f"against {f.claim_gb_s:,.0f} GB/s each)" for f in fewest.itertuples()))
    if rated:
        r.figures[FIG_PER_BLOCK] = chart_per_block(ceilings)
        r.tables["tab-ess-claim-records"] = Table(frame=claim_table(records), formats={
            "per block (GB/s)": GB_S, "IBM's figure (GB/s)": GB_S, "of IBM's figure (%)": PCT,
            "interval low (%)": PCT, "interval high (%)": PCT})
        systems = [c for c in records if c.family == FAMILY_SYSTEMS]
        r.values["claim_systems_md"] = Prose("; ".join(
            f"{c.label} {SHORT_PHASE[c.quantity.removesuffix(' per building block')]}: {evidence.phrase(c)}"
            for c in systems)
            or "no two systems share a model, a claim and a stated release")
    if len(alike):
        r.tables[TAB_ALIKE] = Table(frame=alike_table(alike))
        r.values["alike_md"] = Prose(" ".join(alike_sentences(alike)))
    if len(ior):
        hard_transfers = sorted(ior[ior.phase.str.contains("hard")].transfer_bytes.dropna().astype(int).unique())
        table = short_runs(runs[["run_id", "run_key"]].merge(ior, on="run_id"))
        yes_no = {True: "yes", False: "no"}
        r.values.update({"ior_runs": ior.run_id.nunique(), "ior_logs": len(ior), "ior_agree": int(ior.agrees.sum()),
                         "hard_transfers": ", ".join(f"{t:,}" for t in hard_transfers) or NO_VALUE})
        r.figures["fig-ess-ior"] = chart_ior_phases(ior, runs)
        r.tables["tab-ess-ior"] = Table(frame=table.assign(
            transfer_kib=table.transfer_bytes / 1024, agrees=table.agrees.map(yes_no),
            file_per_proc=table.file_per_proc.map(yes_no))[
            [table.columns[1], "phase", "ior_gib_s", "io500_gib_s", "agrees", "transfer_kib", "file_per_proc",
             "nodes", "tasks"]].rename(columns={
                "ior_gib_s": "IOR log (GiB/s)", "io500_gib_s": "IO500 summary (GiB/s)", "agrees": "agree",
                "transfer_kib": "transfer (KiB)", "file_per_proc": "file per process"}),
            formats={"IOR log (GiB/s)": ",.3f", "IO500 summary (GiB/s)": ",.3f", "transfer (KiB)": ",.2f"})
    if len(hard):
        r.figures[FIG_HARD_DELETE] = chart_hard_delete(hard)
        r.values["hard_n"] = len(hard)
        r.tables["tab-ess-hard-delete"] = Table(frame=short_runs(hard.assign(started=hard.started.dt.strftime("%Y-%m-%d"))[
            ["run_key", "institution", "model", "started", "kiops", "fgdlTokenBatchAcquire", "autoCompactDir"]]).rename(
            columns={"institution": "site", "model": "IBM model", "kiops": "mdtest-hard-delete (kIOPS)"}),
            formats={"mdtest-hard-delete (kIOPS)": ",.1f"})
    if pair is not None:
        r.values.update({"pair_before_run": pair.before_run, "pair_after_run": pair.after_run,
                         "pair_before": float(pair.before), "pair_after": float(pair.after),
                         "pair_change": float(pair.change_pct), "pair_stat_change": float(pair.stat_change_pct),
                         "pair_only_after_keys": Prose(listing(f"`{k}`" for k in pair.only_after) or "none"),
                         "talk_release": talk_release() or NO_VALUE})
    if len(compared):
        differ = compared[compared.difference.isin(["value", "not set in every listing"])]
        form = {d: ", ".join(f"`{k}`" for k in compared[compared.difference == d].key) or "none"
                for d in ("case/units and scope", "case/units", "scope", "none")}
        r.values.update({"config_runs": config.run_id.nunique(), "config_files": config.source_id.nunique(),
                         "config_keys_n": len(compared), "config_differ_n": len(differ),
                         "config_form_md": Prose(
                             f"Same value, written differently and under another scope: {form['case/units and scope']}; "
                             f"written differently only: {form['case/units']}; set cluster-wide in one cluster and per "
                             f"node class in another: {form['scope']}; the same everywhere: {form['none']}.")})
        r.tables["tab-ess-config"] = Table(frame=differ.assign(difference=differ.difference.map(DIFFERENCE_SHORT)).rename(
            columns=lambda c: c.removeprefix("submission-")).rename(columns={"difference": "differs"}))
    return r
