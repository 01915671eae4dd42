#!/usr/bin/env python3
"""Page-cache passthrough and the other two topics of seed 001, as fio experiments under a memory limit.

The method behind seed 001 (Lustre on a DDN SFA18KE). fio always runs inside a memory cgroup whose limit
(default 1 GiB) is well below the data it moves, so buffered I/O must keep writing back and reclaiming
the cgroup's page cache without filling the host's RAM. Alongside every step run `vmstat 1`,
`mpstat -P ALL 1` and a sampler of /proc/vmstat and the cgroup's memory.stat. One --experiment per run:

  modes        LU-11347: sequential write then read of a --size file, buffered and direct=1, time-based;
               fio logs bandwidth and latency averaged over --log-avg-msec.
  queue-depth  Why direct reads are slower: direct sequential reads of the same file with --engines
               (libaio, io_uring) at each --iodepths value, beside a buffered psync read at depth 1.
  readahead    Why buffered reads are faster: buffered sequential reads of a loop device (losetup
               --direct-io=on over an image file in --dir) at each --readahead-kb value (blockdev --setra,
               cache dropped with blockdev --flushbufs before each read), beside a direct read at depth 1.
  trim         LU-11355's XSR method on a loop device over a file: fill it, then per repetition and
               condition a random 4 KiB write stimulus, a trim of the whole device (fio rw=trim) or none,
               and a sequential write whose bandwidth over time is the recovery. A loop device over a file
               turns a trim into holes punched in the image file: this measures the loop device and the
               backing file system, not an SSD's garbage collection.
  shared-file  LU-9846 (overstriping) addresses the shared-file penalty: --writers fio jobs write to one
               file (each its own contiguous segment, offset_increment) or each to its own file,
               buffered and direct.

Design (every experiment): rounds of every configuration in an order shuffled each round (--seed), until
every main comparison is decided or --max-repetitions / --time-budget, then the baseline configuration once
more (label drift_check=end). Main comparisons, bandwidth, Holm within the experiment: modes: buffered /
direct per phase; queue-depth: each direct engine and depth / the buffered read; readahead: each buffered
read-ahead / the direct read; trim: the write after a trim / after none; shared-file: shared / per-file per
mode. Before each fio step the machine must be quiet (--quiet-busy, waiting up to --max-wait).
vmstat and mpstat run only when installed (the manifest says which were not).

Output: <out>/<hostname>-<UTC>/ with per step a fio JSON+ file, fio logs, the monitor files, and
manifest.json listing every command, the cgroup and its limit, and each file's labels (`experiment`,
`phase`, `mode`, `repetition`, and the varied setting: `ioengine`/`iodepth`, `readahead_kb`, `trim`,
`layout`/`writers`).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import collectlib as cl

EXPERIMENTS = ("modes", "queue-depth", "readahead", "trim", "shared-file")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--experiment", choices=EXPERIMENTS, default="modes", help="default %(default)s")
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp/iobook-pagecache"),
                    help="directory for the test files and loop image (removed afterwards); default %(default)s")
    ap.add_argument("--size", default="4G", help="test file, loop image or shared-file total size, fio syntax; "
                    "default %(default)s")
    ap.add_argument("--memory-limit", default="1G", help="cgroup memory limit for fio; default %(default)s")
    ap.add_argument("--runtime", type=int, default=30, help="seconds per measured step (time-based); "
                    "default %(default)s")
    ap.add_argument("--bs", default="1M", help="default %(default)s")
    ap.add_argument("--modes", default="buffered,direct", help="buffered and/or direct (modes, shared-file); "
                    "default %(default)s")
    ap.add_argument("--repetitions", type=int, default=cl.MIN_REPETITIONS,
                    help="fewest rounds before the stopping rule is read; default %(default)s")
    ap.add_argument("--log-avg-msec", type=int, default=100, help="fio log averaging window; default %(default)s")
    ap.add_argument("--ioengine", default="psync", help="engine of the modes, readahead and shared-file steps; "
                    "default %(default)s")
    ap.add_argument("--engines", default="libaio,io_uring", help="queue-depth: engines; default %(default)s")
    ap.add_argument("--iodepths", default="1,4,16,64", help="queue-depth: depths; default %(default)s")
    ap.add_argument("--readahead-kb", default="0,128,1024,8192", help="readahead: loop device read-ahead "
                    "values in KiB; default %(default)s")
    ap.add_argument("--stimulus-runtime", type=int, default=10, help="trim: seconds of random 4 KiB writes "
                    "before each trim or none; default %(default)s")
    ap.add_argument("--writers", type=int, default=4, help="shared-file: fio jobs; default %(default)s")
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/pagecache",
                    help="where the run folder is created; default %(default)s")
    cl.add_design_arguments(ap, max_repetitions=10, time_budget_min=None)
    args = ap.parse_args(argv)

    limit = cl.parse_size(args.memory_limit)
    cgroup = cl.MemoryCgroup(limit, f"iobook-pagecache-{os.getpid()}")
    tools = ["fio", "findmnt"]
    problems = [p for p in [cgroup.problem()] if p]
    if args.experiment in ("readahead", "trim"):
        tools += ["losetup", "blockdev"]
        if os.geteuid() != 0:
            problems.append("the readahead and trim experiments must run as root (losetup, blockdev)")
    cl.require(tools, problems)
    cl.install_signal_cleanup()
    args.dir.mkdir(parents=True, exist_ok=True)

    run = cl.Run("pagecache", args.out, [sys.argv[0], *argv],
                 {"experiment": args.experiment, "size": args.size, "bs": args.bs, "runtime_s": args.runtime,
                  "memory_limit_bytes": limit, "log_avg_msec": args.log_avg_msec})
    run.manifest["target"] = cl.target_facts(args.dir)
    run.manifest["tools"] = {"fio": cl.tool_version(["fio", "--version"]),
                             "vmstat": cl.tool_version(["vmstat", "-V"]),
                             "mpstat": cl.tool_version(["mpstat", "-V"])}
    for monitor in ("vmstat", "mpstat"):  # recorded (and said on stderr when missing) before the first step
        run.monitor_available(monitor)
    run.gate = cl.LoadGate.from_args(args)
    run.manifest["facts"]["load_policy"] = run.gate.policy()
    status = "failed"
    experiment = Experiment(args, run, cgroup)
    try:
        with cgroup:
            run.manifest["facts"]["cgroup"] = cgroup.describe()
            run.save()
            {"modes": experiment.modes, "queue-depth": experiment.queue_depth, "readahead": experiment.readahead,
             "trim": experiment.trim, "shared-file": experiment.shared_file}[args.experiment]()
        status = "complete"
    finally:
        experiment.cleanup()
        run.finish(status)
    print(run.dir)
    return 0


class Experiment:
    """The steps of each experiment. Every fio step runs in the memory cgroup with the monitors, behind the
    quiet-machine check; the steps that set up or change the device (losetup, blockdev) are recorded in the
    manifest too. Each experiment names its configurations, how one is measured, and its main comparisons,
    and cl.Rounds runs them."""

    def __init__(self, args, run: cl.Run, cgroup: cl.MemoryCgroup):
        self.args, self.run, self.cgroup = args, run, cgroup
        self.data_file = args.dir / "pagecache.dat"
        self.image = args.dir / "pagecache-loop.img"
        self.loop: str | None = None
        self.n = 0

    def fio(self, name: str, labels: dict, options: list[str], logs: tuple[str, ...] = ("bw",), jobs: int = 1,
            measured: bool = True) -> dict | None:
        """One fio step: json+ output, the requested logs (fio names them <prefix>_<kind>.<job>.log). A measured
        step runs behind the quiet check (Run.measure) and returns its result for the stopping rule
        ({"labels": labels without the repetition, "values": cl.fio_values}); a set-up step (a fill or layout)
        just runs."""
        self.n += 1
        prefix = f"{self.n:03d}-{name}"
        path = self.run.dir / prefix
        argv = ["fio", f"--name={name}", *options, "--output-format=json+", f"--output={path}.fio.json"]
        if "bw" in logs:
            argv.append(f"--write_bw_log={path}")
        if "lat" in logs:
            argv.append(f"--write_lat_log={path}")
        if logs:
            argv.append(f"--log_avg_msec={self.args.log_avg_msec}")
        kinds = [k for k in logs if k == "bw"] + (["lat", "clat", "slat"] if "lat" in logs else [])
        files = [f"{prefix}.fio.json"] + [f"{prefix}_{k}.{j}.log" for k in kinds for j in range(1, jobs + 1)]
        samples = ["/proc/vmstat"] + ([self.cgroup.stat_file()] if self.cgroup.stat_file() else [])
        argv = self.cgroup.prefix() + argv
        if not measured:
            mon = cl.Monitors(self.run, prefix, sample_paths=samples)
            with mon:
                self.run.step(prefix, argv, labels, [*files, *mon.files.values()])
            return None
        self.run.measure(prefix, argv, labels, files,
                         monitors=lambda: cl.Monitors(self.run, prefix, sample_paths=samples))
        direction = labels.get("phase") if labels.get("phase") in ("read", "write") else None
        return {"labels": {k: str(v) for k, v in labels.items() if k not in ("repetition", "drift_check")},
                "values": cl.fio_values(self.run.dir / f"{prefix}.fio.json", direction)}

    def command(self, name: str, argv: list[str]):
        """A set-up step (no output files, no labels): its argv, exit code and output go into the manifest."""
        return self.run.step(name, argv, {})

    def timed(self) -> list[str]:
        return ["--time_based", f"--runtime={self.args.runtime}"]

    def rounds(self, configs: list[dict], measure, label: str, baseline: str, groups: list[dict],
               baseline_configs: list[dict]) -> None:
        """cl.Rounds over `configs`, comparing bandwidth of every config whose `label` is not `baseline` with
        the config whose label is `baseline`, within each of `groups` (labels both sides share)."""
        comparisons = []
        for group in groups:
            base = {**group, label: baseline}
            for config in configs:
                if str(config.get(label)) != baseline and all(str(config.get(k, v)) == str(v)
                                                              for k, v in group.items()):
                    sample = {**group, **config}
                    name = ", ".join(f"{k}={v}" for k, v in sample.items())
                    comparisons.append(cl.Comparison(f"{name} / {label}={baseline}", "bw_mib_s",
                                                     {k: str(v) for k, v in sample.items()},
                                                     {k: str(v) for k, v in base.items()}, "bandwidth"))
        cl.Rounds(self.run, self.args, configs, measure, comparisons, baseline_configs, ["bw_mib_s"],
                  min_rounds=self.args.repetitions).execute()

    def attach_loop(self) -> str:
        """An image file of --size on a loop device that does direct I/O to it (so the image's own page cache
        is not a second cache under the device's), filled once by a sequential direct write."""
        self.command("truncate-image", ["truncate", "-s", self.args.size, str(self.image)])
        self.loop = self.command("losetup", ["losetup", "--direct-io=on", "--find", "--show",
                                             str(self.image)]).stdout.strip()
        name = Path(self.loop).name
        queue = Path("/sys/block") / name / "queue"
        self.run.manifest["facts"]["loop"] = {
            "device": self.loop, "image_size": self.args.size,
            "direct_io": (Path("/sys/block") / name / "loop" / "dio").read_text().strip(),
            "discard_max_bytes": (queue / "discard_max_bytes").read_text().strip(),
            "read_ahead_kb_at_start": (queue / "read_ahead_kb").read_text().strip()}
        self.run.save()
        self.fio("fill", {"phase": "fill", "mode": "direct"},
                 [f"--filename={self.loop}", f"--bs={self.args.bs}", "--rw=write", "--ioengine=libaio",
                  "--iodepth=16", "--direct=1"], logs=(), measured=False)
        return self.loop

    def cleanup(self) -> None:
        if self.loop:
            self.run.step("losetup-detach", ["losetup", "-d", self.loop], {}, check=False)
        for f in [self.data_file, self.image, *self.args.dir.glob("shared-file*")]:
            f.unlink(missing_ok=True)

    def layout(self) -> None:
        """Write the test file once, so that no measured step allocates it."""
        a = self.args
        self.fio("layout", {"phase": "layout", "mode": "direct"},
                 [f"--filename={self.data_file}", f"--size={a.size}", f"--bs={a.bs}", "--rw=write",
                  "--ioengine=libaio", "--iodepth=16", "--direct=1"], logs=(), measured=False)

    def modes(self) -> None:
        a = self.args
        self.layout()

        def measure(config: dict, rep: int, extra: dict) -> list[dict]:
            mode = config["mode"]
            return [self.fio(f"{phase}-{mode}-r{rep}", {"phase": phase, "mode": mode, "repetition": rep, **extra},
                             [f"--filename={self.data_file}", f"--size={a.size}", f"--bs={a.bs}", f"--rw={phase}",
                              f"--ioengine={a.ioengine}", f"--direct={1 if mode == 'direct' else 0}",
                              *self.timed()], logs=("bw", "lat"))
                    for phase in ("write", "read")]

        modes = a.modes.split(",")
        self.rounds([{"mode": m} for m in modes], measure, "mode", "direct",
                    [{"phase": "write"}, {"phase": "read"}], [{"mode": "direct"}] if "direct" in modes else [])

    def queue_depth(self) -> None:
        a = self.args
        self.layout()
        common = [f"--filename={self.data_file}", f"--size={a.size}", f"--bs={a.bs}", "--rw=read", *self.timed()]

        def measure(config: dict, rep: int, extra: dict) -> list[dict]:
            engine, depth, mode = config["ioengine"], config["iodepth"], config["mode"]
            return [self.fio(f"read-{mode}-{engine}-qd{depth}-r{rep}",
                             {"phase": "read", **config, "repetition": rep, **extra},
                             [*common, f"--ioengine={engine}", f"--iodepth={depth}",
                              f"--direct={1 if mode == 'direct' else 0}"])]

        buffered = {"mode": "buffered", "ioengine": a.ioengine, "iodepth": 1}
        configs = [buffered] + [{"mode": "direct", "ioengine": e, "iodepth": int(d)}
                                for e in a.engines.split(",") for d in a.iodepths.split(",")]
        self.rounds(configs, measure, "mode", "buffered", [{"phase": "read"}], [buffered])

    def readahead(self) -> None:
        a = self.args
        loop = self.attach_loop()
        common = [f"--filename={loop}", f"--bs={a.bs}", "--rw=read", f"--ioengine={a.ioengine}", *self.timed()]

        def measure(config: dict, rep: int, extra: dict) -> list[dict]:
            if config["mode"] == "direct":
                return [self.fio(f"read-direct-r{rep}", {"phase": "read", "mode": "direct", "repetition": rep,
                                                         **extra}, [*common, "--direct=1"])]
            kb = config["readahead_kb"]
            # blockdev counts read-ahead in 512-byte sectors; --flushbufs drops the device's cached pages
            self.command(f"setra-{kb}kb-r{rep}", ["blockdev", "--setra", str(kb * 2), loop])
            self.command(f"getra-{kb}kb-r{rep}", ["blockdev", "--getra", loop])
            self.command(f"flushbufs-{kb}kb-r{rep}", ["blockdev", "--flushbufs", loop])
            return [self.fio(f"read-buffered-ra{kb}-r{rep}", {"phase": "read", "mode": "buffered",
                             "readahead_kb": kb, "repetition": rep, **extra}, [*common, "--direct=0"])]

        configs = [{"mode": "direct"}] + [{"mode": "buffered", "readahead_kb": int(k)}
                                          for k in a.readahead_kb.split(",")]
        self.rounds(configs, measure, "mode", "direct", [{"phase": "read"}], [{"mode": "direct"}])

    def trim(self) -> None:
        a = self.args
        loop = self.attach_loop()

        def measure(config: dict, rep: int, extra: dict) -> list[dict]:
            trim = config["trim"]
            labels = {"mode": "direct", "trim": trim, "repetition": rep, **extra}
            # The stimulus and the trim set up the state the write is measured in: not repeated on their own.
            self.fio(f"stimulus-randwrite-{trim}-r{rep}", {**labels, "phase": "stimulus"},
                     [f"--filename={loop}", "--bs=4k", "--rw=randwrite", "--ioengine=libaio", "--iodepth=16",
                      "--direct=1", "--time_based", f"--runtime={a.stimulus_runtime}"], measured=False)
            if trim == "trim":
                self.fio(f"trim-r{rep}", {**labels, "phase": "trim"},
                         [f"--filename={loop}", f"--bs={a.bs}", "--rw=trim", "--ioengine=libaio",
                          "--iodepth=16", "--direct=1"], measured=False)
            return [self.fio(f"recovery-write-{trim}-r{rep}", {**labels, "phase": "write"},
                             [f"--filename={loop}", f"--bs={a.bs}", "--rw=write", "--ioengine=libaio",
                              "--iodepth=16", "--direct=1", *self.timed()])]

        self.rounds([{"trim": "trim"}, {"trim": "none"}], measure, "trim", "none", [{"phase": "write"}],
                    [{"trim": "none"}])

    def shared_file(self) -> None:
        a = self.args
        per_job = cl.parse_size(a.size) // a.writers
        layouts = {"shared": [f"--filename={a.dir / 'shared-file.dat'}", f"--offset_increment={per_job}"],
                   "per-file": [f"--filename_format={a.dir}/shared-file-per-job.$jobnum.dat"]}
        common = [f"--numjobs={a.writers}", f"--size={per_job}", f"--bs={a.bs}", "--rw=write",
                  f"--ioengine={a.ioengine}"]
        for layout, options in layouts.items():  # lay the files out once: the steps then overwrite, never allocate
            self.fio(f"layout-{layout}", {"phase": "layout", "layout": layout, "writers": a.writers},
                     [*common, *options, "--direct=1"], logs=(), jobs=a.writers, measured=False)

        def measure(config: dict, rep: int, extra: dict) -> list[dict]:
            mode, layout = config["mode"], config["layout"]
            return [self.fio(f"write-{mode}-{layout}-r{rep}", {"phase": "write", "mode": mode, "layout": layout,
                             "writers": a.writers, "repetition": rep, **extra},
                             [*common, *layouts[layout], f"--direct={1 if mode == 'direct' else 0}", *self.timed()],
                             jobs=a.writers)]

        modes = a.modes.split(",")
        self.rounds([{"mode": m, "layout": lay} for m in modes for lay in layouts], measure, "layout", "per-file",
                    [{"mode": m, "phase": "write"} for m in modes], [{"mode": m, "layout": "per-file"} for m in modes])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
