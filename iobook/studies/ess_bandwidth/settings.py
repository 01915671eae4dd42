"""The Storage Scale chapter's setups: runs alike in model and building-block count set side by side (what else
differs between them), mdtest-hard-delete over time with the settings the talk credits, the talk's Tucson pair
(ISC23 to SC23), and the mmlsconfig settings that differ between runs once case, units and scope are set apart."""
from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from ...database import store
from ...inference.evidence import plural
from .runs import NO_VALUE, PACKAGE, get_clusters, get_fs_disks, ids, short_source

SIZE_SUFFIX = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}  # mmchconfig reads K/M/G/T as powers of 1024


def get_alike(con, runs: pd.DataFrame, per_block: pd.DataFrame, ior: pd.DataFrame,
              talk: pd.DataFrame) -> pd.DataFrame:
    """Runs of one model and building-block count, set side by side: one row per attribute, one column per
    run (its run_key), and `differs` (the runs' values are not all the same; "–", unknown, counts as a
    value). Attributes: site (as the talk names it for the runs its tables print, else the institution),
    the IO500 benchmark release, the release the folder names, the installed Storage Scale release (the setup
    record), the GPFS cluster (mmlscluster) and its minReleaseLevel (mmlsconfig: the compatibility floor, not the
    release), the validity audit's flags (what the run's scripts change while it runs), client nodes and tasks and the easy
    phases' transfer size (IOR logs), the file system's block size and format version (mmlsfs), and
    bandwidth per building block. `group` names the model and count. Empty when no two runs share both."""
    counted = per_block[per_block.building_blocks != "unknown"].drop_duplicates("run_id")
    groups = counted.groupby(["model", "building_blocks"]).run_id.agg(list)
    groups = groups[(groups.map(len) > 1) & (groups.index.get_level_values("model") != "unknown")]
    if groups.empty:
        return pd.DataFrame(columns=["group", "attribute", "differs"])
    alike = [r for g in groups for r in g]
    cluster = get_clusters(con, alike)
    fs = store.frame(con, PACKAGE, "fs_attributes", [ids(alike)])
    tested = get_fs_disks(con, runs, ior)[["run_id", "mount_point"]].drop_duplicates()
    fs = fs.merge(tested, on=["run_id", "mount_point"])
    levels = get_config(con, alike, ["minReleaseLevel"]).groupby("run_id").value.agg(lambda v: ", ".join(sorted(set(v))))
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
                "Storage Scale installed": (
                    f"{by_run.scale_release_stated[r]} ({short_source(by_run.release_source[r])})"
                    if pd.notna(by_run.scale_release_stated[r]) else NO_VALUE),
                "minReleaseLevel": levels.get(r, NO_VALUE),
                "audit flags": by_run.validity_flags[r] if pd.notna(by_run.validity_flags[r]) else NO_VALUE,
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
    """`get_alike` for the page: the attributes in which a group's runs differ (what they share the page says in a
    sentence, findings.alike_sentences), the groups one under another, each headed by a row naming its runs, with
    the runs in columns "1st", "2nd", ... so that no group leaves empty columns for another's runs."""
    parts = []
    for group, g in alike[alike.differs].groupby("group", sort=False):
        runs = [c for c in g.columns if c not in ("group", "attribute", "differs") and g[c].notna().all()]
        head = pd.DataFrame([[group, "runs", *runs]])
        parts += [head, pd.DataFrame(np.column_stack([np.full(len(g), ""), g[["attribute", *runs]].to_numpy()]))]
    table = pd.concat(parts, ignore_index=True).fillna("")
    ordinals = ["1st", "2nd", "3rd"] + [f"{n}th" for n in range(4, table.shape[1] - 1)]
    table.columns = ["group", "attribute", *ordinals[:table.shape[1] - 2]]
    return table


def get_hard_delete(con, runs: pd.DataFrame) -> pd.DataFrame:
    """mdtest-hard-delete (kIOPS, `io500_phases`) of each run in time order (the run's start), with the two
    settings the talk's inode-prefetch slides name as the run's mmlsconfig listing sets them (fgdlTokenBatchAcquire,
    autoCompactDir: "value [scope]", "not set" in a listing without the key, "no listing" without a listing),
    and `token_batching`: "1 or yes" where fgdlTokenBatchAcquire is set to 1 or yes in some scope."""
    df = store.frame(con, PACKAGE, "hard_delete", [ids(runs.run_id)])
    df = df.merge(runs[["run_id", "run_key", "label", "institution", "model", "year", "validity_flags"]], on="run_id")
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
    stat = store.frame(con, PACKAGE, "phases",
                       [ids([before.run_id, after.run_id]), ["mdtest-easy-stat"]]).set_index("run_id").value
    config = get_config(con, [before.run_id, after.run_id], TALK_SETTINGS)
    set_in = {r: {k.lower() for k in config[config.run_id == r].key} for r in (before.run_id, after.run_id)}
    only_after = sorted((k for k in TALK_SETTINGS if k.lower() in set_in[after.run_id] - set_in[before.run_id]),
                        key=str.lower)
    return pd.Series({"before_id": before.run_id, "after_id": after.run_id, "before_run": before.run_key,
                      "after_run": after.run_key, "before": before.kiops, "after": after.kiops,
                      "change_pct": (after.kiops / before.kiops - 1) * 100,
                      "stat_change_pct": (stat[after.run_id] / stat[before.run_id] - 1) * 100,
                      "only_after": only_after})


def get_system_files(con, run_ids: Iterable[int]) -> pd.DataFrame:
    """The Storage Scale listings (mmlsconfig, mmlscluster, mmlsfs) linked to each run (`io500_run_system_files`)."""
    return store.frame(con, PACKAGE, "system_files", [ids(run_ids)])


def get_config(con, run_ids: Iterable[int], keys: Iterable[str] | None = None) -> pd.DataFrame:
    """The mmlsconfig settings (`gpfs_config`) of each run, through the run's system files
    (`io500_run_system_files`). `keys`: only these (matched case-insensitively, as mmchconfig does); empty
    or None: every key."""
    wanted = [k.lower() for k in keys or []]
    return store.frame(con, PACKAGE, "config", [ids(run_ids), wanted, wanted])


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
NOT_SET = "not set"  # a listing without the key: the cluster runs the default


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
        row.update({names[r]: _cell(d) if len(d) else NOT_SET for r, d in zip(listed, per_run)})
        rows.append(row)
    df = pd.DataFrame(rows, columns=["key", "difference"] + [names[r] for r in listed])
    return df.sort_values(["difference", "key"], key=lambda s: s.map(DIFFERENCES.index) if s.name == "difference"
                          else s.str.lower()).reset_index(drop=True)
