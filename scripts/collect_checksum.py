#!/usr/bin/env python3
"""Checksum cost: fio sequential write, then read, with and without end-to-end verification.

The method behind seed 000 (IBM Storage Scale's trailer checksum: CPU idle and memory bandwidth
with and without it), re-run with fio on one machine. A configuration is a checksum algorithm (or
`none`) and an I/O mode (direct, buffered): fio writes a file sequentially (computing the checksum of
every block when verify is on) and then reads it back (`verify_only=1`: read and check every block;
`rw=read` for `none`). Around each fio run: `vmstat 1`, `mpstat -P ALL 1` and `perf stat` on fio
(instructions/cycles when the machine counts them), each only when installed (the manifest says which
were not). Memory traffic needs a memory-controller PMU; without one the manifest says so.

Design: rounds of every configuration in an order shuffled each round (--seed), until every main
comparison is decided or --max-repetitions / --time-budget; then `none` once more in each mode
(label drift_check=end). The main comparisons are those the chapter reads: each checksum against
`none` in the same mode and phase, for bandwidth and for fio's CPU-seconds per GiB, Holm within each
measure. Before each fio run the machine must be quiet (--quiet-busy, waiting up to --max-wait); what
the check saw is in each step's labels and manifest entry.

Output: <out>/<hostname>-<UTC>/ with one fio JSON+ file, one perf file and two monitor files per
step, and manifest.json listing every command and each file's labels.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import collectlib as cl

PERF_EVENTS = ["task-clock", "context-switches", "cpu-migrations", "page-faults", "instructions", "cycles"]
MEASURES = {"bandwidth": "bw_mib_s", "fio CPU per GiB": "cpu_s_per_gib"}  # as the chapter compares them


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp/iobook-checksum"),
                    help="directory for the test files (removed afterwards); default %(default)s")
    ap.add_argument("--size", default="2G", help="bytes per test file, fio syntax; default %(default)s")
    ap.add_argument("--bs", default="1M", help="block size, also the checksum interval; default %(default)s")
    ap.add_argument("--algorithms", default="none,crc32c,xxhash,md5,sha1,sha256",
                    help="comma-separated fio verify= values, 'none' for no checksum; default %(default)s")
    ap.add_argument("--modes", default="direct,buffered", help="direct and/or buffered; default %(default)s")
    ap.add_argument("--repetitions", type=int, default=cl.MIN_REPETITIONS,
                    help="fewest rounds before the stopping rule is read; default %(default)s")
    ap.add_argument("--ioengine", default="psync", help="default %(default)s")
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/checksum",
                    help="where the run folder is created; default %(default)s")
    cl.add_design_arguments(ap, max_repetitions=10, time_budget_min=None)
    args = ap.parse_args(argv)
    algorithms = args.algorithms.split(",")
    modes = args.modes.split(",")
    problems = [] if "none" in algorithms else ["--algorithms must include none, the baseline of every comparison"]

    cl.require(["fio", "findmnt"], problems)
    args.dir.mkdir(parents=True, exist_ok=True)

    run = cl.Run("checksum", args.out, [sys.argv[0], *argv],
                 {"size": args.size, "bs": args.bs, "ioengine": args.ioengine})
    run.manifest["target"] = cl.target_facts(args.dir)
    run.manifest["tools"] = {"fio": cl.tool_version(["fio", "--version"]),
                             "vmstat": cl.tool_version(["vmstat", "-V"]),
                             "mpstat": cl.tool_version(["mpstat", "-V"]),
                             "perf": cl.tool_version(["perf", "--version"])}
    for monitor in ("vmstat", "mpstat"):  # recorded (and said on stderr when missing) before the first step
        run.monitor_available(monitor)
    have_perf = run.monitor_available("perf")
    run.manifest["facts"]["perf"] = cl.perf_probe(PERF_EVENTS)
    run.gate = cl.LoadGate.from_args(args)
    run.manifest["facts"]["load_policy"] = run.gate.policy()
    run.save()

    steps = itertools.count(1)

    def measure(config: dict, rnd: int, extra: dict) -> list[dict]:
        """Write the configuration's file, read it back, remove it: one result per phase."""
        algo, mode = config["verify"], config["mode"]
        data_file = args.dir / f"checksum-{algo}.dat"
        results = []
        for phase in ("write", "read"):
            prefix = f"{next(steps):03d}-{phase}-{algo}-{mode}-r{rnd}"
            labels = {"phase": phase, "verify": algo, "mode": mode, "repetition": rnd, **extra}
            fio = fio_command(args, data_file, phase, algo, mode, run.dir / f"{prefix}.fio.json")
            files = [f"{prefix}.fio.json"]
            if have_perf:
                fio = ["perf", "stat", "-x", ",", "-e", ",".join(PERF_EVENTS),
                       "-o", str(run.dir / f"{prefix}.perf.txt"), "--", *fio]
                files.append(f"{prefix}.perf.txt")
            run.measure(prefix, fio, labels, files, monitors=lambda: cl.Monitors(run, prefix))
            results.append({"labels": {"phase": phase, "verify": algo, "mode": mode},
                            "values": cl.fio_values(run.dir / f"{prefix}.fio.json", phase)})
        data_file.unlink()
        return results

    comparisons = [cl.Comparison(f"{algo} / none, {mode} {phase}, {measure}", column,
                                 {"verify": algo, "mode": mode, "phase": phase},
                                 {"verify": "none", "mode": mode, "phase": phase}, measure)
                   for measure, column in MEASURES.items() for mode in modes for phase in ("write", "read")
                   for algo in algorithms if algo != "none"]
    status = "failed"
    try:
        cl.Rounds(run, args, [{"verify": a, "mode": m} for m in modes for a in algorithms], measure, comparisons,
                  baseline_configs=[{"verify": "none", "mode": m} for m in modes],
                  baseline_measures=list(MEASURES.values()), min_rounds=args.repetitions).execute()
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
