#!/usr/bin/env python3
"""Page-cache passthrough: fio sequential write and read, buffered vs direct=1, under a memory limit.

The method behind seed 001 (Lustre LU-11347: OSS I/O through the page cache spends CPU on page
allocation and reclaim and makes throughput fluctuate; bypassing it does not). fio runs inside a
memory cgroup whose limit (default 1 GiB) is well below the test file (default 4 GiB), so buffered
I/O must keep writing back and reclaiming the cgroup's page cache without filling the host's RAM.
Each step is time-based and logs bandwidth and latency averaged over --log-avg-msec; alongside run
`vmstat 1`, `mpstat -P ALL 1` and a sampler of /proc/vmstat and the cgroup's memory.stat.

Output: <out>/<hostname>-<UTC>/ with per step a fio JSON+ file, fio bw/lat logs, the monitor files,
and manifest.json listing every command, the cgroup and its limit, and each file's labels.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import collectlib as cl


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp/iobook-pagecache"),
                    help="directory for the test file (removed afterwards); default %(default)s")
    ap.add_argument("--size", default="4G", help="test file size, fio syntax; default %(default)s")
    ap.add_argument("--memory-limit", default="1G", help="cgroup memory limit for fio; default %(default)s")
    ap.add_argument("--runtime", type=int, default=30, help="seconds per step (time-based); default %(default)s")
    ap.add_argument("--bs", default="1M", help="default %(default)s")
    ap.add_argument("--modes", default="buffered,direct", help="buffered and/or direct; default %(default)s")
    ap.add_argument("--repetitions", type=int, default=2, help="default %(default)s")
    ap.add_argument("--log-avg-msec", type=int, default=100, help="fio log averaging window; default %(default)s")
    ap.add_argument("--ioengine", default="psync", help="default %(default)s")
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/pagecache",
                    help="where the run folder is created; default %(default)s")
    args = ap.parse_args(argv)

    limit = cl.parse_size(args.memory_limit)
    cgroup = cl.MemoryCgroup(limit, f"iobook-pagecache-{os.getpid()}")
    cl.require(["fio", "vmstat", "mpstat", "findmnt"], [p for p in [cgroup.problem()] if p])
    args.dir.mkdir(parents=True, exist_ok=True)
    data_file = args.dir / "pagecache.dat"

    run = cl.Run("pagecache", args.out, [sys.argv[0], *argv],
                 {"size": args.size, "bs": args.bs, "runtime_s": args.runtime, "memory_limit_bytes": limit,
                  "log_avg_msec": args.log_avg_msec, "ioengine": args.ioengine})
    run.manifest["target"] = cl.target_facts(args.dir)
    run.manifest["tools"] = {"fio": cl.tool_version(["fio", "--version"]),
                             "vmstat": cl.tool_version(["vmstat", "-V"]),
                             "mpstat": cl.tool_version(["mpstat", "-V"])}
    status = "failed"
    try:
        with cgroup:
            run.manifest["facts"]["cgroup"] = cgroup.describe()
            samples = ["/proc/vmstat"] + ([cgroup.stat_file()] if cgroup.stat_file() else [])
            n = 0
            for rep in range(1, args.repetitions + 1):
                for mode in args.modes.split(","):
                    for phase in ("write", "read"):
                        n += 1
                        prefix = f"{n:03d}-{phase}-{mode}-r{rep}"
                        labels = {"phase": phase, "mode": mode, "repetition": rep}
                        fio = cgroup.prefix() + fio_command(args, data_file, phase, mode, run.dir / prefix)
                        # fio names its logs <prefix>_bw.1.log, <prefix>_lat.1.log, _clat.1.log, _slat.1.log
                        logs = [f"{prefix}_{kind}.1.log" for kind in ("bw", "lat", "clat", "slat")]
                        mon = cl.Monitors(run, prefix, sample_paths=samples)
                        with mon:
                            run.step(prefix, fio, labels, [f"{prefix}.fio.json", *logs, *mon.files.values()])
        status = "complete"
    finally:
        data_file.unlink(missing_ok=True)
        run.finish(status)
    print(run.dir)
    return 0


def fio_command(args, data_file: Path, phase: str, mode: str, prefix: Path) -> list[str]:
    return ["fio", f"--name={phase}-{mode}", f"--filename={data_file}", f"--size={args.size}", f"--bs={args.bs}",
            f"--rw={phase}", f"--ioengine={args.ioengine}", f"--direct={1 if mode == 'direct' else 0}",
            "--time_based", f"--runtime={args.runtime}",
            f"--write_bw_log={prefix}", f"--write_lat_log={prefix}", f"--log_avg_msec={args.log_avg_msec}",
            "--output-format=json+", f"--output={prefix}.fio.json"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
