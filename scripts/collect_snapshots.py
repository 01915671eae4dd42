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

A workload repetition is create, stat, delete of --files files per job in a fresh directory.

`--parts` chooses what runs, in this order, on one file system:

  cow:       a `cow` subvolume with --cow-files files of --cow-size; stage 0 has no snapshot, stages
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

Mounts, loop device and image are removed on exit, also on failure or SIGTERM.
"""
from __future__ import annotations

import argparse
import os
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
    ap.add_argument("--rotations", type=int, default=2, help="delete-oldest-then-create rounds; default %(default)s")
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
                run.step(prefix, fio_write(phase, f, run.dir / f"{prefix}.fio.json", size, append), labels,
                         [f"{prefix}.fio.json"])
                synced_space(run, mnt, f"{prefix}-space", {**stage, "after": phase, "repetition": rep})
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


def metadata(run: cl.Run, args, mnt: Path) -> None:
    """The MeluXina loop (module docstring) with fio's file metadata engines in the `data` subvolume."""
    data = mnt / "data"
    run.step("subvolume", ["btrfs", "subvolume", "create", str(data)], {})
    prefill(data / "prefill", args.prefill)
    run.manifest["facts"]["prefill"] = {"files": args.prefill, "bytes_per_file": 4096, "files_per_directory": 1000,
                                        "written_by": "the collector (Python), before the first step"}
    run.step("sync", ["sync", "-f", str(data)], {})
    snaps: list[str] = []
    n = taken = 0
    plan = [("initial", 0)] + [("create", k) for k in range(1, args.snapshots + 1)] + \
           [("rotate", r) for r in range(1, args.rotations + 1)]
    for stage, k in plan:
        if stage == "rotate":
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
        for rep in range(1, args.repetitions + 1):
            workdir = data / f"w-{stage}{k}-r{rep}"
            workdir.mkdir()
            for phase, engine in (("create", "filecreate"), ("stat", "filestat"), ("delete", "filedelete")):
                n += 1
                prefix = f"{n:03d}-{phase}-{stage}{k}-r{rep}"
                labels = {"phase": phase, "stage": stage, "step": step_label, "snapshots": len(snaps),
                          "repetition": rep}
                run.step(prefix, fio_command(args, engine, workdir, run.dir / f"{prefix}.fio.json"),
                         labels, [f"{prefix}.fio.json"])
            workdir.rmdir()


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
