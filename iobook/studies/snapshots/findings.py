"""The Snapshots study's sentences, from its records: the findings (the metadata outcome leads, "k of n decided"
through the kit), and the prose the chapter pastes about the talk's figures. Every number comes from a record or a
published table."""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ...book import comparison
from ...inference import evidence
from ...inference.evidence import Comparison, Count, Estimate, Replicate
from .seed import seed_clients
from .writes import COMMIT_INTERVAL, MIB, ONE_DELETION, SINCE_COMMIT, cow_space_counts


def configuration_text(configuration: pd.DataFrame, seed: pd.DataFrame) -> str:
    """The talk's mdtest clients and test system, as its method and backup slides print them."""
    clients = seed_clients(configuration)
    config = configuration[configuration["table"] == "test_configuration"].set_index(["row", "column"])
    test, tier2 = "Test system(DDN)", "Tier2 (Melluxina)"
    footnote = seed["note"].iloc[0].lstrip("* ")
    return (f"The method slide (\"MDTest\") ran mdtest from {clients['nodes']} nodes (printed "
            f"\"{clients['nodes']} nodes ({clients['c']})\"; {clients['c_note'].partition(': ')[2]}) with "
            f"{clients['cpus']} CPUs and {clients['interconnect']} interconnect against a DDN test system: no "
            f"snapshot, then after each of five `lctl snapshot_create`, then twice after destroying the oldest "
            f"snapshot and creating a new one, each time running mdtest \"at 0, 10, 30, 60, 120 min intervals\". "
            f"Per the backup slide \"Configuration differences\" that test system had "
            f"{config.loc[(test, '#OST'), 'printed']} OSTs of {config.loc[(test, 'OST Size(TB)'), 'printed']} TB "
            f"behind {config.loc[(test, '#OSS'), 'printed']} OSS, against MeluXina Tier2's "
            f"{config.loc[(tier2, '#OST'), 'printed']} OSTs of {config.loc[(tier2, 'OST Size(TB)'), 'printed']} TB "
            f"behind {config.loc[(tier2, '#OSS'), 'printed']} OSS; its MDS are listed as "
            f"{config.loc[(test, '#MDS'), 'printed']}, while the mdtest slide's footnote says \"{footnote}\".")


def creation_text(creation: dict[str, pd.Series]) -> str:
    """The talk's own snapshot creation times, as printed, with the columns the CSV names them by and their place
    in the seed (seed.get_seed_creation)."""
    with_patch, without = creation["with"], creation["without"]
    seed_file, _, heading = with_patch["source"].partition(": ")
    # "~300 sec" prints its unit apart, "37sec" glued to the number: each as the slide prints it
    printed = {side: row["printed"] + ("" if row["printed"].endswith(row["unit"]) else f" {row['unit']}")
               for side, row in creation.items()}
    return (f"on large targets `snapshot_create` took \"{printed['without']}\" {without.name} and "
            f"\"{printed['with']}\" {with_patch.name}, slide \"{heading}\" ({seed_file}, line {with_patch['line']})")


def seed_finding(counts: Sequence[Count]) -> str:
    """The talk's table in one sentence: the sign pattern, and what it is confounded with."""
    all_below = [c for c in counts if c.k == c.n]
    return (f"The talk's table prints every snapshot state below \"No snapshot\" in {len(all_below)} of {len(counts)} "
            "columns; \"No snapshot\" ran once, first, so the rows' order confounds the pattern "
            "{cite:p}`derooy-meluxina`")


def seed_order_text(signs: pd.DataFrame, baseline_runs: int) -> str:
    """What the sign pattern of the talk's table rests on: one 'No snapshot' value, measured before every
    snapshot state."""
    all_below = signs[signs["below 'No snapshot'"] == signs["states"]]["column"].tolist()
    states = int(signs["states"].max())
    return (f"In {len(all_below)} of {len(signs)} columns ({', '.join(all_below)}) every one of the {states} snapshot "
            f"states is printed below \"No snapshot\". That row is printed once ({baseline_runs} row) and was measured "
            "first: the method slide creates the snapshots one after the other and runs mdtest after each, so the "
            f"states are also the 2nd to {states + 1}th measurements of the test. Anything that changed over the test "
            "(the file system's contents, caches, the lab system's other work) moves every state against that one "
            "value alike: the sign pattern is confounded with order, and the table cannot separate the two. An "
            "answer needs \"No snapshot\" measured again between and after the states (as the local runs' control "
            "subvolume is), or repeated in an interleaved order.")


def metadata_finding(records: Sequence[Comparison], shared: bool) -> str:
    """The outcome the chapter leads with: the paired metadata comparisons' range and how many are decided, and,
    where the control shares the snapshotted subvolume's file system (`shared`), what such a ratio can hold."""
    where, local = (" of one file system", "; subvolume-local cost only, so ratios lean to 1") if shared else ("", "")
    return (f"Metadata rates, snapshotted over never-snapshotted subvolume{where}: "
            f"{comparison.range_sentence(records)}{local}")


def first_stage_finding(records: Sequence[Comparison]) -> str:
    """Runs made without a control: every stage against the one that ran first, flagged as order-confounded."""
    return ("**Flag:** without a control subvolume, stages with snapshots over the stage before the first "
            f"snapshot, which ran first: {comparison.range_sentence(records)}; order and snapshots are confounded")


def drift_finding(keys: pd.DataFrame, records: Sequence[Comparison]) -> str:
    """The control's drift over the run: why each stage is paired with its concurrent control."""
    far = comparison.farthest(records)
    operation = keys["operation"].iloc[list(records).index(far)]
    return (f"The never-snapshotted control's rate, end of the run over first stage: "
            f"{comparison.range_sentence(records)}; file {operation} {evidence.phrase(far)}: drift a baseline pooled "
            "over the run would take for a snapshot effect")


def cow_space_finding(check: pd.DataFrame) -> tuple[str, list[Count]]:
    """The exact check of copy-on-write space over every run selected, as counts of writes."""
    sizes, (under, without) = cow_space_counts(check)
    shown = " or ".join(f"{size / MIB:.0f}" for size in sizes)
    return (f"Under a snapshot, overwriting a {shown} MiB file added exactly {shown} MiB of data in "
            f"{evidence.phrase(under)}; without one, none in {evidence.phrase(without)}", [under, without])


def cow_latency_finding(records: Sequence[Comparison]) -> str:
    """Mean overwrite latency per snapshot count, as a range with how many are decided, flagged as order-confounded:
    the stages ran in order, no snapshot first, with no control beside them (issue 46)."""
    mean = [c for c in records if c.quantity == "overwrite mean completion latency"]
    return (f"Mean overwrite latency with snapshots over with none: {comparison.range_sentence(mean)}; the stages ran "
            "in order, none first, with no control, so snapshots and order are confounded and more files a stage "
            "would not decide it")


def recovery_finding(summary: pd.DataFrame, record: Estimate) -> tuple[str, list[Estimate]]:
    """After the snapshots were deleted (the first run's): space freed and when, at btrfs's periodic commit (issue 46:
    not the cleaner's doing), and overwrite latency while `btrfs subvolume sync` waited over after, both as the
    geometric means' ratio (`record`) and as the worst p99 on each side (issue 46: the ratio hid a tail of
    hundreds of ms), in one deletion: described, no interval. With the records of what it says."""
    r = summary.iloc[0]
    run = r["run_id"]
    said = [record, *(evidence.described(r[column], quantity=f"{run}: {column}", unit=unit, n=1,
                                         replicate=Replicate.RUN, how=ONE_DELETION)
                      for column, unit in ((SINCE_COMMIT, "s"), ("highest p99 while sync waited (ms)", "ms"),
                                           ("highest p99 after (ms)", "ms")))]
    return (f"After {r['snapshots deleted']} snapshots were deleted, {r['freed (MiB)']:,.0f} MiB came back "
            f"{r[SINCE_COMMIT]:.0f} s after the last commit, at btrfs's periodic one (every {r[COMMIT_INTERVAL]:g} s); "
            f"overwrite latency while `btrfs subvolume sync` waited was {record.value:.2f}× that after (geometric "
            f"means), its worst p99 {r['highest p99 while sync waited (ms)']:,.1f} ms against "
            f"{r['highest p99 after (ms)']:,.1f} ms after, in one deletion (no interval)", said)
