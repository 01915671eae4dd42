#!/usr/bin/env python3
"""Snapshot overhead on btrfs on a loop device: metadata rates, copy-on-write writes, and the cleaner.

The method behind seed 003 (MeluXina: mdtest after each of 5 `lctl snapshot_create`, then twice
after destroying the oldest snapshot and creating a new one). mdtest is not packaged, so the
workload is fio's metadata engines: `filecreate`, `filestat`, `filedelete` (files only; fio 3.33
has no directory engines). As root, the collector creates a sparse image, attaches it with
`losetup`, runs `mkfs.btrfs`, mounts it, creates a `data` subvolume and fills it with --prefill
small files (so that snapshots share a real metadata tree with it), then:

  step 0:           no snapshot               -> workload x repetitions
  steps 1..N:       snapshot data -> snap-k    -> workload x repetitions
  rotations 1..R:   delete oldest, snapshot    -> workload x repetitions
  more rotations    until decided (below), at most --max-rotations in all
  end:              delete every snapshot, wait for the cleaner -> workload x repetitions

A workload repetition is create, stat, delete of --files files per job in a fresh directory. Every
repetition runs on `data` and on a `control` subvolume (same prefill, never snapshotted), in an order
shuffled per repetition (--seed): the control is the baseline measured throughout the run, beside the
snapshots, not only first. Main comparison, per operation: files/s on `data` with snapshots present over
files/s without (control, and data before its first snapshot), Welch on the log scale, Holm over the three
operations; rotations go on until all three are decided (at least 3 repetitions a side) or
--max-rotations. The end stage is the baseline again (label drift_check=end): drift over the run.

`--parts` chooses what runs, in this order, on one file system:

  cow:       (fixed design: the stages are sequential states) a `cow` subvolume with --cow-files files of --cow-size; stage 0 has no snapshot, stages
             1..--cow-snapshots each first take a read-only snapshot of it. Per stage: space before
             (`btrfs filesystem usage -b`, `df -B1`, each after `btrfs filesystem sync`), then per file
             (a repetition) fio overwrites every 4 KiB block of it once in random order (direct I/O, so
             each write reaches btrfs, which must copy-on-write a block the newest snapshot still holds),
             then appends --cow-append to it; space again after each. fio reports completion-latency
             percentiles (json+).
  recovery:  after cow: space, then every cow snapshot is deleted (`btrfs subvolume delete`), and while
             `btrfs subvolume sync` waits for the cleaner to drop them, the collector samples space
             (usage, df) and a short fio overwrite of the first file every --sample-interval seconds, until
             the sync returns and --samples-after more samples are taken (at most --recovery-max seconds).
  metadata:  the loop above, in the `data` subvolume.

Every fio step of cow and metadata runs behind the quiet-machine check (--quiet-busy, waiting up to
--max-wait; never repeated, as each changes the state the next measures); the recovery samples keep their
schedule, and like every step record the machine's CPU use while they ran.

Mounts, loop device and image are removed on exit, also on failure or SIGTERM.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import collectlib as cl


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image-dir", type=Path, default=Path("/var/tmp"),
                    help="where the sparse btrfs image is created (and removed); default %(default)s")
    ap.add_argument("--image-size", default="4G", help="default %(default)s")
    ap.add_argument("--device", help="use this block device instead of an image on a loop device (ALL DATA ON IT "
                                     "IS DESTROYED by mkfs.btrfs)")
    ap.add_argument("--files", type=int, default=5000, help="files per fio job per phase; default %(default)s")
    ap.add_argument("--jobs", type=int, default=2, help="fio jobs sharing one directory; default %(default)s")
    ap.add_argument("--prefill", type=int, default=50000, help="files in the data subvolume before the first "
                                                               "snapshot; default %(default)s")
    ap.add_argument("--snapshots", type=int, default=5, help="default %(default)s")
    ap.add_argument("--rotations", type=int, default=2, help="delete-oldest-then-create rounds before the stopping "
                                                               "rule is read; default %(default)s")
    ap.add_argument("--max-rotations", type=int, default=6, help="most rotations, also when undecided; "
                                                                 "default %(default)s")
    ap.add_argument("--repetitions", type=int, default=3, help="workload repetitions per step; default %(default)s")
    ap.add_argument("--parts", default="cow,recovery,metadata",
                    help="comma-separated, any of cow, recovery (needs cow), metadata; default %(default)s")
    ap.add_argument("--cow-files", type=int, default=4, help="files overwritten per cow stage (its repetitions); "
                                                             "default %(default)s")
    ap.add_argument("--cow-size", default="16M", help="size of each cow file; default %(default)s")
    ap.add_argument("--cow-append", default="4M", help="appended to each cow file per stage; default %(default)s")
    ap.add_argument("--cow-snapshots", type=int, default=4, help="cow stages after stage 0; default %(default)s")
    ap.add_argument("--sample-interval", type=float, default=2.0, help="seconds between recovery samples; "
                                                                       "default %(default)s")
    ap.add_argument("--sample-size", default="2M", help="overwritten by each recovery sample; default %(default)s")
    ap.add_argument("--samples-after", type=int, default=5, help="recovery samples after the sync returned; "
                                                                 "default %(default)s")
    ap.add_argument("--recovery-max", type=float, default=150.0, help="longest recovery sampling, seconds; "
                                                                      "default %(default)s")
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/snapshots",
                    help="where the run folder is created; default %(default)s")
    cl.add_design_arguments(ap, max_repetitions=None)
    args = ap.parse_args(argv)
    parts = args.parts.split(",")

    problems = [f"unknown part {p!r} in --parts (cow, recovery, metadata)" for p in parts
                if p not in ("cow", "recovery", "metadata")]
    if "recovery" in parts and "cow" not in parts:
        problems.append("--parts recovery needs cow (it deletes the cow snapshots)")
    if os.geteuid() != 0:
        problems.append("must run as root (losetup, mkfs.btrfs, mount)")
    if "btrfs" not in Path("/proc/filesystems").read_text().split():
        problems.append("kernel has no btrfs file system (/proc/filesystems); try `modprobe btrfs`")
    cl.require(["fio", "mkfs.btrfs", "btrfs", "losetup", "mount", "umount", "findmnt", "df"], problems)
    cl.install_signal_cleanup()

    run = cl.Run("snapshots", args.out, [sys.argv[0], *argv],
                 {"parts": args.parts, "files_per_job": args.files, "jobs": args.jobs, "prefill_files": args.prefill,
                  "filesystem": "btrfs", "device": args.device or f"loop device on a {args.image_size} image"})
    run.manifest["tools"] = {"fio": cl.tool_version(["fio", "--version"]),
                             "btrfs": cl.tool_version(["btrfs", "--version"]),
                             "mkfs.btrfs": cl.tool_version(["mkfs.btrfs", "--version"])}
    run.gate = cl.LoadGate.from_args(args)
    run.manifest["facts"]["load_policy"] = run.gate.policy()
    status = "failed"
    image = loop = mnt = None
    try:
        if args.device:
            device = args.device
        else:
            image = args.image_dir / f"iobook-snapshots-{os.getpid()}.img"
            run.step("image", ["truncate", "-s", args.image_size, str(image)], {})
            run.manifest["facts"]["image_host"] = cl.target_facts(args.image_dir)
            loop = device = run.step("losetup", ["losetup", "--find", "--show", str(image)],
                                     {}).stdout.strip()
        run.step("mkfs", ["mkfs.btrfs", "-f", device], {})
        mnt = Path(tempfile.mkdtemp(prefix="iobook-snapshots-"))
        run.step("mount", ["mount", device, str(mnt)], {})
        run.manifest["target"] = cl.target_facts(mnt)
        if "cow" in parts:
            snaps = copy_on_write(run, args, mnt)
            if "recovery" in parts:
                recovery(run, args, mnt, snaps)
        if "metadata" in parts:
            metadata(run, args, mnt)
        status = "complete"
    finally:
        cleanup(run, mnt, loop, image)
        run.finish(status)
    print(run.dir)
    return 0


def space(run: cl.Run, mnt: Path, prefix: str, labels: dict) -> None:
    """`btrfs filesystem usage -b` and `df -B1` of the file system, each saved as printed."""
    run.step(f"{prefix}-usage", ["btrfs", "filesystem", "usage", "-b", str(mnt)], {**labels, "measure": "usage"},
             stdout_file=f"{prefix}.btrfs-usage.txt")
    run.step(f"{prefix}-df", ["df", "-B1", str(mnt)], {**labels, "measure": "df"}, stdout_file=f"{prefix}.df.txt")


def fio_write(name: str, path: Path, output: Path, size: str, append: bool) -> list[str]:
    """Direct 4 KiB writes, one at a time: random overwrite of every block of the first `size` of the file
    once (fio's random map, so no block twice), or `size` appended after its end."""
    return ["fio", f"--name={name}", f"--filename={path}", "--ioengine=psync", "--direct=1", "--bs=4k",
            f"--size={size}", *(["--rw=write", "--file_append=1"] if append else ["--rw=randwrite"]),
            "--output-format=json+", f"--output={output}"]


def copy_on_write(run: cl.Run, args, mnt: Path) -> list[str]:
    """Stages 0..--cow-snapshots: overwrite and append to files the newest snapshot holds; returns the snapshots."""
    cow = mnt / "cow"
    run.step("cow-subvolume", ["btrfs", "subvolume", "create", str(cow)], {})
    files = [cow / f"file-{i}" for i in range(1, args.cow_files + 1)]
    for f in files:
        run.step(f"cow-fill-{f.name}", ["fio", "--name=fill", f"--filename={f}", "--rw=write", "--bs=1M",
                                        f"--size={args.cow_size}", "--end_fsync=1"], {})
    snaps: list[str] = []
    results: list[dict] = []
    n = 0
    for k in range(args.cow_snapshots + 1):
        if k:
            name = f"cow-snap-{k:02d}"
            run.step(f"create-{name}", ["btrfs", "subvolume", "snapshot", "-r", str(cow), str(mnt / name)],
                     {"action": "snapshot-create", "snapshot": name})
            snaps.append(name)
        stage = {"part": "cow", "snapshots": k}
        n += 1
        synced_space(run, mnt, f"c{n:03d}-space-s{k}", {**stage, "after": "start"})
        for rep, f in enumerate(files, start=1):
            for phase, size, append in (("overwrite", args.cow_size, False), ("append", args.cow_append, True)):
                n += 1
                prefix = f"c{n:03d}-{phase}-s{k}-r{rep}"
                labels = {**stage, "phase": phase, "repetition": rep}
                run.measure(prefix, fio_write(phase, f, run.dir / f"{prefix}.fio.json", size, append), labels,
                            [f"{prefix}.fio.json"], repeatable=False)
                results.append({"labels": {"phase": phase, "with_snapshots": str(k > 0).lower()},
                                "values": cl.fio_values(run.dir / f"{prefix}.fio.json", "write")})
                synced_space(run, mnt, f"{prefix}-space", {**stage, "after": phase, "repetition": rep})
    # Fixed design (the stages are sequential states, so no more can be added); the comparison is recorded.
    comparisons = [cl.Comparison(f"{phase} with snapshots / without, completion latency", "clat_mean_us",
                                 {"phase": phase, "with_snapshots": "true"}, {"phase": phase, "with_snapshots": "false"},
                                 "completion latency") for phase in ("overwrite", "append")]
    rows = cl.evaluate(comparisons, results, args.confidence)
    run.manifest["facts"]["cow_decision"] = {
        "rule": "fixed design: --cow-files writes per stage; Welch's t on the log scale, Holm over the two phases, "
                f"decided when at least {cl.MIN_REPETITIONS} a side and Holm's p < {1 - args.confidence:.2g}",
        "comparisons": [c.describe() for c in comparisons], "result": rows,
        "decided": all(r["decided"] for r in rows)}
    run.save()
    return snaps


def synced_space(run: cl.Run, mnt: Path, prefix: str, labels: dict) -> None:
    """Commit the transaction first, so that space freed or taken by the last writes shows in the figures."""
    run.step(f"{prefix}-sync", ["btrfs", "filesystem", "sync", str(mnt)], {})
    space(run, mnt, prefix, labels)


def recovery(run: cl.Run, args, mnt: Path, snaps: list[str]) -> None:
    """Delete every snapshot, then sample space and write latency while the cleaner drops them."""
    # No `btrfs filesystem sync` from here on: it would commit a transaction and so wake the cleaner early.
    space(run, mnt, "r000-space-before-delete", {"part": "recovery", "when": "before-delete"})
    for name in snaps:
        run.step(f"delete-{name}", ["btrfs", "subvolume", "delete", str(mnt / name)],
                 {"action": "snapshot-delete", "snapshot": name})
    sync = run.start("recovery-subvolume-sync", ["btrfs", "subvolume", "sync", str(mnt)],
                     {"part": "recovery", "action": "wait-for-cleaner"})
    deadline = time.monotonic() + args.recovery_max
    sample = after = 0
    target = mnt / "cow" / "file-1"
    while time.monotonic() < deadline and after < args.samples_after:
        sample += 1
        after += sync.done()
        t = time.monotonic()
        labels = {"part": "recovery", "sample": sample, "sync_returned": sync.done()}
        space(run, mnt, f"r{sample:03d}-space", labels)
        prefix = f"r{sample:03d}-overwrite"
        run.step(prefix, fio_write("overwrite", target, run.dir / f"{prefix}.fio.json", args.sample_size, False),
                 {**labels, "phase": "overwrite"}, [f"{prefix}.fio.json"])
        time.sleep(max(0.0, args.sample_interval - (time.monotonic() - t)))
    sync.finish(timeout_s=5)


OPERATIONS = (("create", "filecreate"), ("stat", "filestat"), ("delete", "filedelete"))


def metadata(run: cl.Run, args, mnt: Path) -> None:
    """The MeluXina loop (module docstring) with fio's file metadata engines in the `data` subvolume, each
    repetition also run in the `control` subvolume, until the main comparison is decided."""
    data, control = mnt / "data", mnt / "control"
    for subvolume in (data, control):
        run.step(f"subvolume-{subvolume.name}", ["btrfs", "subvolume", "create", str(subvolume)], {})
        prefill(subvolume / "prefill", args.prefill)
    run.manifest["facts"]["prefill"] = {"files": args.prefill, "bytes_per_file": 4096, "files_per_directory": 1000,
                                        "subvolumes": ["data", "control"],
                                        "written_by": "the collector (Python), before the first step"}
    run.step("sync", ["sync", "-f", str(data)], {})
    rng = random.Random(args.seed)
    comparisons = [cl.Comparison(f"{op}: with snapshots / without, files per second", "iops",
                                 {"phase": op, "with_snapshots": "true"}, {"phase": op, "with_snapshots": "false"},
                                 "files per second") for op, _engine in OPERATIONS]
    decision = {"rule": (f"after the {args.snapshots} snapshots and {args.rotations} rotations, and after each "
                         f"further rotation: stop when every operation's comparison is decided (Welch's t on the "
                         f"log scale, Holm over the operations, at least {cl.MIN_REPETITIONS} repetitions a side, "
                         f"Holm's p < {1 - args.confidence:.2g}) or at --max-rotations {args.max_rotations}"),
                "with_snapshots": "data subvolume, any snapshot of it present",
                "without": "control subvolume (every stage) and data before its first snapshot; not the end stage",
                "order": "per repetition, data and control in an order shuffled by random.Random(seed)",
                "seed": args.seed, "comparisons": [c.describe() for c in comparisons], "after_stage": [],
                "stopped_because": None}
    run.manifest["facts"]["metadata_decision"] = decision
    results: list[dict] = []
    state = {"n": 0, "control_rep": 0}

    def workload(stage: str, k: int, step_label: str, snapshots: int, extra: dict) -> list[dict]:
        out = []
        for rep in range(1, args.repetitions + 1):
            order = [data, control]
            rng.shuffle(order)
            for subvolume in order:
                is_control = subvolume == control
                if is_control:
                    state["control_rep"] += 1
                labels = ({"part": "metadata", "subvolume": "control", "stage": "control", "step": "none",
                           "snapshots": 0, "repetition": state["control_rep"], "during_step": step_label}
                          if is_control else
                          {"part": "metadata", "subvolume": "data", "stage": stage, "step": step_label,
                           "snapshots": snapshots, "repetition": rep})
                workdir = subvolume / f"w-{stage}{k}-r{rep}"
                workdir.mkdir()
                for phase, engine in OPERATIONS:
                    state["n"] += 1
                    prefix = f"{state['n']:03d}-{phase}-{'control' if is_control else stage}{k}-r{rep}"
                    run.measure(prefix, fio_command(args, engine, workdir, run.dir / f"{prefix}.fio.json"),
                                {"phase": phase, **labels, **extra}, [f"{prefix}.fio.json"], repeatable=False)
                    with_snapshots = not is_control and snapshots > 0
                    out.append({"labels": {"phase": phase, "subvolume": subvolume.name,
                                           "with_snapshots": str(with_snapshots).lower()},
                                "values": cl.fio_values(run.dir / f"{prefix}.fio.json")})
                workdir.rmdir()
        return out

    snaps: list[str] = []
    taken = 0
    plan = [("initial", 0)] + [("create", k) for k in range(1, args.snapshots + 1)] + \
           [("rotate", r) for r in range(1, args.max_rotations + 1)]
    for stage, k in plan:
        if stage == "rotate":
            if k > args.rotations:
                rows = cl.evaluate(comparisons, results, args.confidence)
                decision["after_stage"].append({"stage": f"rotation-{k - 1}", "comparisons": rows})
                run.save()
                if all(r["decided"] for r in rows):
                    decision["stopped_because"] = f"every operation decided after rotation {k - 1}"
                    break
            oldest = snaps.pop(0)
            run.step(f"delete-{oldest}", ["btrfs", "subvolume", "delete", str(mnt / oldest)],
                     {"action": "snapshot-delete", "snapshot": oldest})
        if stage != "initial":
            taken += 1
            name = f"snap-{taken:02d}"
            run.step(f"create-{name}", ["btrfs", "subvolume", "snapshot", "-r", str(data), str(mnt / name)],
                     {"action": "snapshot-create", "snapshot": name})
            snaps.append(name)
        step_label = "none" if stage == "initial" else (f"{k}" if stage == "create" else f"rotation-{k}")
        results += workload(stage, k, step_label, len(snaps), {})
        rotations = k if stage == "rotate" else 0
    else:
        rows = cl.evaluate(comparisons, results, args.confidence)
        decision["after_stage"].append({"stage": f"rotation-{args.max_rotations}", "comparisons": rows})
        decision["stopped_because"] = (f"--max-rotations {args.max_rotations} reached, "
                                       f"{sum(r['decided'] for r in rows)} of {len(rows)} operations decided")
    decision["rotations"] = rotations
    decision["decided"] = all(r["decided"] for r in decision["after_stage"][-1]["comparisons"])
    # The baseline again at the end: no snapshot left, the cleaner done (subvolume sync waits for it).
    for name in snaps:
        run.step(f"delete-{name}", ["btrfs", "subvolume", "delete", str(mnt / name)],
                 {"action": "snapshot-delete", "snapshot": name})
    run.step("cleaner-sync", ["btrfs", "subvolume", "sync", str(mnt)], {"action": "wait-for-cleaner"})
    end = workload("end", 0, "end", 0, {"drift_check": "end"})
    decision["drift"] = []
    for op, _engine in OPERATIONS:
        for subvolume in ("data", "control"):
            during = [r["values"]["iops"] for r in results
                      if r["labels"] == {"phase": op, "subvolume": subvolume, "with_snapshots": "false"}]
            at_end = [r["values"]["iops"] for r in end if r["labels"]["phase"] == op
                      and r["labels"]["subvolume"] == subvolume]
            decision["drift"].append({"labels": {"phase": op, "subvolume": subvolume}, "measure": "iops",
                                      **cl.drift(during, at_end, args.confidence)})
    run.save()


def fio_command(args, engine: str, workdir: Path, output: Path) -> list[str]:
    # filesize is only fio's accounting; create_on_open=1 stops fio from first writing that much into
    # each file before filestat/filedelete (its usual layout step), so the files stay empty as in mdtest.
    return ["fio", f"--name={engine}", f"--ioengine={engine}", f"--directory={workdir}",
            f"--nrfiles={args.files}", f"--numjobs={args.jobs}", "--filename_format=f.$jobnum.$filenum",
            "--filesize=4k", "--fallocate=none", "--create_on_open=1", "--openfiles=1", "--group_reporting",
            "--output-format=json+", f"--output={output}"]


def prefill(root: Path, files: int) -> None:
    """Small files, 1000 per directory, so the subvolume has a many-leaf metadata tree to share with snapshots."""
    block = b"\0" * 4096
    for i in range(files):
        d = root / f"d{i // 1000:04d}"
        if i % 1000 == 0:
            d.mkdir(parents=True)
        (d / f"f{i:07d}").write_bytes(block)


def cleanup(run: cl.Run, mnt: Path | None, loop: str | None, image: Path | None) -> None:
    """Undo mount, loop device and image whatever happened; record each command but never stop on its failure."""
    if mnt is not None:
        if subprocess.run(["mountpoint", "-q", str(mnt)]).returncode == 0:
            run.step("umount", ["umount", str(mnt)], {}, check=False)
        mnt.rmdir()
    if loop:
        run.step("losetup-detach", ["losetup", "-d", loop], {}, check=False)
    if image is not None:
        image.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
