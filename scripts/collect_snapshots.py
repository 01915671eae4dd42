#!/usr/bin/env python3
"""Snapshot overhead: a metadata workload with 0..N snapshots present, on btrfs on a loop device.

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
Mounts, loop device and image are removed on exit, also on failure or SIGTERM.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
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
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/snapshots",
                    help="where the run folder is created; default %(default)s")
    args = ap.parse_args(argv)

    problems = []
    if os.geteuid() != 0:
        problems.append("must run as root (losetup, mkfs.btrfs, mount)")
    if "btrfs" not in Path("/proc/filesystems").read_text().split():
        problems.append("kernel has no btrfs file system (/proc/filesystems); try `modprobe btrfs`")
    cl.require(["fio", "mkfs.btrfs", "btrfs", "losetup", "mount", "umount", "findmnt"], problems)
    cl.install_signal_cleanup()

    run = cl.Run("snapshots", args.out, [sys.argv[0], *argv],
                 {"files_per_job": args.files, "jobs": args.jobs, "prefill_files": args.prefill,
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
        status = "complete"
    finally:
        cleanup(run, mnt, loop, image)
        run.finish(status)
    print(run.dir)
    return 0


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
