#!/usr/bin/env python3
"""Checksum cost: fio sequential write, then read, with and without end-to-end verification.

The method behind seed 000 (IBM Storage Scale's trailer checksum: CPU idle and memory bandwidth
with and without it), re-run with fio on one machine. For each checksum algorithm (and `none`)
and each I/O mode (direct, buffered), fio writes a file sequentially (computing the checksum of
every block when verify is on) and then reads it back (`verify_only=1`: read and check every
block; `rw=read` for `none`). Around each fio run: `vmstat 1`, `mpstat -P ALL 1` and `perf stat`
on fio (instructions/cycles when the machine counts them). Memory traffic needs a memory-controller
PMU; without one the manifest says so.

Output: <out>/<hostname>-<UTC>/ with one fio JSON+ file, one perf file and two monitor files per
step, and manifest.json listing every command and each file's labels.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import collectlib as cl

PERF_EVENTS = ["task-clock", "context-switches", "cpu-migrations", "page-faults", "instructions", "cycles"]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp/iobook-checksum"),
                    help="directory for the test files (removed afterwards); default %(default)s")
    ap.add_argument("--size", default="2G", help="bytes per test file, fio syntax; default %(default)s")
    ap.add_argument("--bs", default="1M", help="block size, also the checksum interval; default %(default)s")
    ap.add_argument("--algorithms", default="none,crc32c,xxhash,md5,sha1,sha256",
                    help="comma-separated fio verify= values, 'none' for no checksum; default %(default)s")
    ap.add_argument("--modes", default="direct,buffered", help="direct and/or buffered; default %(default)s")
    ap.add_argument("--repetitions", type=int, default=2, help="default %(default)s")
    ap.add_argument("--ioengine", default="psync", help="default %(default)s")
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/checksum",
                    help="where the run folder is created; default %(default)s")
    args = ap.parse_args(argv)

    cl.require(["fio", "vmstat", "mpstat", "findmnt"])
    have_perf = shutil.which("perf") is not None
    args.dir.mkdir(parents=True, exist_ok=True)
    algorithms = args.algorithms.split(",")
    modes = args.modes.split(",")

    run = cl.Run("checksum", args.out, [sys.argv[0], *argv],
                 {"size": args.size, "bs": args.bs, "ioengine": args.ioengine})
    run.manifest["target"] = cl.target_facts(args.dir)
    run.manifest["tools"] = {"fio": cl.tool_version(["fio", "--version"]),
                             "vmstat": cl.tool_version(["vmstat", "-V"]),
                             "mpstat": cl.tool_version(["mpstat", "-V"]),
                             "perf": cl.tool_version(["perf", "--version"]) if have_perf else "not installed"}
    run.manifest["facts"]["perf"] = cl.perf_probe(PERF_EVENTS)
    run.save()
    status = "failed"
    try:
        n = 0
        for rep in range(1, args.repetitions + 1):
            for mode in modes:
                for algo in algorithms:
                    data_file = args.dir / f"checksum-{algo}.dat"
                    for phase in ("write", "read"):
                        n += 1
                        prefix = f"{n:03d}-{phase}-{algo}-{mode}-r{rep}"
                        labels = {"phase": phase, "verify": algo, "mode": mode, "repetition": rep}
                        fio = fio_command(args, data_file, phase, algo, mode, run.dir / f"{prefix}.fio.json")
                        files = [f"{prefix}.fio.json"]
                        if have_perf:
                            fio = ["perf", "stat", "-x", ",", "-e", ",".join(PERF_EVENTS),
                                   "-o", str(run.dir / f"{prefix}.perf.txt"), "--", *fio]
                            files.append(f"{prefix}.perf.txt")
                        mon = cl.Monitors(run, prefix)
                        with mon:
                            run.step(prefix, fio, labels, files + list(mon.files.values()))
                    data_file.unlink()
        status = "complete"
    finally:
        run.finish(status)
    print(run.dir)
    return 0


def fio_command(args, data_file: Path, phase: str, algo: str, mode: str, output: Path) -> list[str]:
    argv = ["fio", f"--name={phase}-{algo}", f"--filename={data_file}", f"--size={args.size}", f"--bs={args.bs}",
            f"--ioengine={args.ioengine}", f"--direct={1 if mode == 'direct' else 0}",
            "--output-format=json+", f"--output={output}"]
    if mode == "buffered" and phase == "write":
        argv.append("--end_fsync=1")  # count the write-back in the step, not in the next one
    if algo == "none":
        argv.append(f"--rw={phase}")
    elif phase == "write":
        # Checksum every block as it is written; the check happens in the read step.
        argv += ["--rw=write", f"--verify={algo}", "--do_verify=0", "--verify_state_save=0"]
    else:
        # Read the file back and check every block's checksum (fio reports this as reads).
        argv += ["--rw=write", f"--verify={algo}", "--verify_only=1", "--verify_state_save=0"]
    return argv


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
