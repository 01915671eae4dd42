"""The Storage Scale chapter's runs: which IO500 runs are Storage Scale runs and which the chapter shows, IBM's model
each names, IOR's own phases, and their building blocks counted from the disks of the file system under test
(mmlsfs), else from the cluster's canister pairs (mmlscluster), else from a folder name; and the text helpers the
other layers share."""
from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from ...database import store
from ...inference import selection
from ...inference.evidence import plural

PACKAGE = __package__
STORAGE_SCALE = "Storage Scale/GPFS"  # the family name in data/reference/filesystems.csv
MODELS = {"3200": "ESS 3200", "3500": "ESS 3500", "6000": "Storage Scale System 6000"}
PHASE_ORDER = ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read", "ior-rnd4K-easy-read"]
EASY_PHASES = ["ior-easy-write", "ior-easy-read"]
SHORT_PHASE = {"ior-easy-read": "read", "ior-easy-write": "write"}
NO_VALUE = "–"


def ids(run_ids: Iterable[int]) -> list[int]:
    """Run ids as a query's list parameter (DuckDB binds Python ints, not NumPy's)."""
    return [int(r) for r in run_ids]


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


WHOLE = ".0f"  # GB/s per block and shares of a claim, as the talk prints them: whole numbers


def short_source(source: str) -> str:
    """A setup value's source up to its first colon: 'seed 000 line 277', 'archive folder name'."""
    return source.partition(":")[0]


def get_runs(con) -> pd.DataFrame:
    """Every IO500 run (`io500_runs`, each copy once) with its file-system family (as its files or folders
    state: iobook.database.io500_runs.attribute), whether IBM submitted
    it (`ibm`: the institution starts with "IBM", as IBM Tucson, IBM Ehningen System, IBMDL do) and the IBM
    model its system and file-system names state (`model`: ESS 3200, ESS 3500, Storage Scale System 6000;
    "unknown" when they state none or the run is not a Storage Scale run), and a `label` for prose.
    `io500_version` is the benchmark release the run printed (io500-isc24_v3), not the list it was made for.
    From the setup record (iobook.database.setups): `scale_release_stated` (never minReleaseLevel) and its `release_source`,
    `changed_during_run` (what its scripts change while it runs)."""
    runs = store.frame(con, PACKAGE, "runs")
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
    ior = store.frame(con, PACKAGE, "ior_phases", [ids(run_ids)])
    ior["test_file"] = ior.command.astype("string").str.extract(IOR_TEST_FILE, expand=False)
    return ior.drop(columns="command")


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


NO_COUNT = "no mmlsfs or mmlscluster listing, and no folder name states a count"  # a run's blocks: nothing to go by
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
    disks = store.frame(con, PACKAGE, "fs_disks", [ids(runs.run_id)])
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
    nodes = store.frame(con, PACKAGE, "cluster_nodes", [ids(runs.run_id)])
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
            row = (pd.NA, "unknown", NO_COUNT)
        rows.append((run.run_id, *row, len(pairs) if names else pd.NA))
    return pd.DataFrame(rows, columns=["run_id", "building_blocks", "basis", "evidence", "cluster_pairs"]).astype(
        {"run_id": "int64", "building_blocks": "Int64", "cluster_pairs": "Int64"})


def get_clusters(con, run_ids: Iterable[int]) -> pd.Series:
    """run_id -> the GPFS cluster name(s) of the run's mmlscluster listing (`gpfs_nodes`), for runs with one."""
    clusters = store.frame(con, PACKAGE, "clusters", [ids(run_ids)])
    return clusters.groupby("run_id").cluster.agg(lambda c: ", ".join(sorted(c)))
