#!/usr/bin/env python3
"""DLIO runs of your own: a small unet3d-like training workload read by simulated accelerators.

The method behind MLPerf Storage (the book's MLPerf chapter), re-run with DLIO itself (dlio-benchmark 2.0.0, the
PyTorch data loader) on one machine. Each run (--runs) is independent: DLIO generates the data set anew in --dir
(npz files, one sample each, --files x --record-length), the page cache is dropped (`sync; echo 3 >
/proc/sys/vm/drop_caches`, so the first epoch reads from the device), then `mpirun -np <accelerators>` runs DLIO's
training: each rank a simulated accelerator that "computes" --computation-time seconds per batch while the loader
reads the next, for --epochs epochs; then the data set is removed. DLIO writes its own logs, unmodified, into the
run folder: summary.json (AU, samples/s and MB/s, MB = 2^20 bytes), per_epoch_stats.json, .hydra/{config,hydra,
overrides}.yaml, dlio.log and each rank's <rank>_output.json. Later epochs of a data set this small read from the
page cache (DLIO's summary says so: potential_caching), so the first epoch is the one the storage bounds.

--throttle-read-bps runs the training inside a block-I/O cgroup that limits reads of --dir's device to that many
bytes per second (cgroup v2 io.max rbps, or v1 blkio.throttle.read_bps_device; root): a deliberately slowed run,
labelled `throttle_read_bps`, for testing a regression gate (the committed ones are tests/fixtures/dlio-slowed/).

DLIO runs from its own environment (--dlio-venv, made by `make dlio-venv` from scripts/requirements-dlio.txt, which
says why each package is there); this script needs only Python's standard library. Before each training the machine
must be quiet (--quiet-busy, waiting up to --max-wait); what the check saw is in each step's labels.

Output: <out>/<hostname>-<UTC>/ with r<k>/ (DLIO's output folder of run k) and manifest.json listing every command
and each file's labels.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

import collectlib as cl

WORKLOAD = "unet3d_a100"  # DLIO's own unet3d workload configuration, scaled down by the overrides below
DROP_CACHES = "sync && echo 3 > /proc/sys/vm/drop_caches"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlio-venv", type=Path, default=cl.REPO / ".venv-dlio",
                    help="DLIO's environment (make dlio-venv); default %(default)s")
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp/iobook-dlio"),
                    help="where the data set is generated (removed after each run); default %(default)s")
    ap.add_argument("--runs", type=int, default=1, help="independent runs, each on a data set generated anew; "
                                                        "default %(default)s")
    ap.add_argument("--accelerators", type=int, default=2, help="simulated accelerators (MPI ranks); default "
                                                                "%(default)s")
    ap.add_argument("--files", type=int, default=96, help="npz files of the training set; default %(default)s")
    ap.add_argument("--record-length", default="4M", help="bytes per sample (one a file); default %(default)s")
    ap.add_argument("--batch-size", type=int, default=4, help="samples per step and accelerator; default %(default)s")
    ap.add_argument("--read-threads", type=int, default=1, help="loader workers per accelerator; default %(default)s")
    ap.add_argument("--epochs", type=int, default=1,
                    help="default %(default)s: from the second epoch on a data set this small is read from the page "
                         "cache, which the storage does not bound")
    ap.add_argument("--computation-time", type=float, default=0.1,
                    help="seconds an accelerator computes per step; default %(default)s")
    ap.add_argument("--throttle-read-bps", default=None,
                    help="limit the training's reads of --dir's device to this many bytes/s ('16M'): a slowed run")
    ap.add_argument("--out", type=Path, default=cl.REPO / "data/raw/dlio",
                    help="where the run folder is created; default %(default)s")
    cl.add_design_arguments(ap, max_repetitions=None)
    args = ap.parse_args(argv)

    dlio, mpirun, python = (args.dlio_venv / "bin" / name for name in ("dlio_benchmark", "mpirun", "python"))
    problems = [f"{p} not found: make dlio-venv (scripts/requirements-dlio.txt)" for p in (dlio, mpirun)
                if not p.exists()]
    if os.geteuid() != 0:
        problems.append("dropping the page cache between runs (/proc/sys/vm/drop_caches) needs root")
    throttle = BlockThrottle(cl.parse_size(args.throttle_read_bps), args.dir) if args.throttle_read_bps else None
    if throttle is not None and throttle.problem():
        problems.append(throttle.problem())
    cl.require(["findmnt"], problems)
    args.dir.mkdir(parents=True, exist_ok=True)

    record_length = cl.parse_size(args.record_length)
    overrides = [f"workload={WORKLOAD}", "++workload.workflow.checkpoint=False",
                 f"++workload.dataset.num_files_train={args.files}", "++workload.dataset.num_samples_per_file=1",
                 f"++workload.dataset.record_length={record_length}", "++workload.dataset.record_length_stdev=0",
                 "++workload.dataset.record_length_resize=0", f"++workload.reader.batch_size={args.batch_size}",
                 f"++workload.reader.read_threads={args.read_threads}", f"++workload.train.epochs={args.epochs}",
                 f"++workload.train.computation_time={args.computation_time}"]
    labels = {"workload": WORKLOAD, "accelerators": args.accelerators, "files": args.files,
              "record_length": record_length, "batch_size": args.batch_size, "read_threads": args.read_threads,
              "epochs": args.epochs, "computation_time": args.computation_time}
    if throttle is not None:
        labels["throttle_read_bps"] = throttle.bps
    run = cl.Run("dlio", args.out, [sys.argv[0], *argv], labels)
    run.manifest["target"] = cl.target_facts(args.dir)
    run.manifest["tools"] = {name: cl.tool_version([str(python), "-c", f"import importlib.metadata as m; "
                                                    f"print(m.version('{name}'))"])
                             for name in ("dlio_benchmark", "torch", "tensorflow_cpu", "mpi4py", "mpich")}
    run.manifest["facts"]["page_cache"] = f"dropped before each training: {DROP_CACHES}"
    if throttle is not None:
        run.manifest["facts"]["throttle"] = throttle.describe()
    run.gate = cl.LoadGate.from_args(args)
    run.manifest["facts"]["load_policy"] = run.gate.policy()
    run.save()
    cl.install_signal_cleanup()

    status = "failed"
    try:
        for k in range(1, args.runs + 1):
            data = args.dir / f"data-r{k}"
            shutil.rmtree(data, ignore_errors=True)
            folder = f"++workload.dataset.data_folder={data}"
            # the generation's own logs go to the scratch folder: they hold no measurement
            run.step(f"generate-r{k}", [str(dlio), *overrides, folder, "++workload.workflow.generate_data=True",
                                        "++workload.workflow.train=False", f"hydra.run.dir={args.dir}/generate-r{k}"],
                     {"phase": "generate", "repetition": k})
            run.step(f"drop-caches-r{k}", ["sh", "-c", DROP_CACHES], {"phase": "drop_caches", "repetition": k})
            out = f"r{k}"
            train = [str(mpirun), "-np", str(args.accelerators), str(dlio), *overrides, folder,
                     "++workload.workflow.generate_data=False", "++workload.workflow.train=True",
                     f"hydra.run.dir={run.dir / out}"]
            step_labels = {"phase": "train", "repetition": k,
                           **({"throttle_read_bps": throttle.bps} if throttle else {})}
            if throttle is not None:
                with throttle:
                    run.measure(f"train-r{k}", throttle.prefix() + train, step_labels, [], repeatable=False)
            else:
                run.measure(f"train-r{k}", train, step_labels, [])
            entry = run.manifest["steps"][-1]
            entry["files"] = sorted(str(p.relative_to(run.dir)) for p in (run.dir / out).rglob("*") if p.is_file())
            run.save()
            shutil.rmtree(data, ignore_errors=True)
            shutil.rmtree(args.dir / f"generate-r{k}", ignore_errors=True)
        status = "complete"
    finally:
        run.finish(status)
    print(run.dir)
    return 0


class BlockThrottle:
    """A block-I/O cgroup limiting reads of one device to `bps` bytes/s, joined by an argv prefix (recorded in the
    step's argv): cgroup v2 io.max (rbps) or v1 blkio.throttle.read_bps_device, a child of the root hierarchy."""

    def __init__(self, bps: int, directory: Path):
        self.bps = bps
        dev = os.stat(directory if directory.exists() else directory.parent).st_dev
        self.device = self._disk(os.major(dev), os.minor(dev))
        v2 = Path("/sys/fs/cgroup/cgroup.controllers")
        self.mechanism = ("cgroup-v2" if v2.exists() and "io" in v2.read_text().split() else
                          "cgroup-v1" if Path("/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device").exists() else None)
        root = {"cgroup-v2": Path("/sys/fs/cgroup"), "cgroup-v1": Path("/sys/fs/cgroup/blkio")}.get(self.mechanism)
        self.path = root / f"iobook-dlio-{os.getpid()}" if root else None

    @staticmethod
    def _disk(major: int, minor: int) -> str:
        """'MAJ:MIN' of the disk holding a partition (throttling is per disk), else of the device itself."""
        sys_dev = Path(f"/sys/dev/block/{major}:{minor}")
        if (sys_dev / "partition").exists():
            return (sys_dev.resolve().parent / "dev").read_text().strip()
        return f"{major}:{minor}"

    def problem(self) -> str | None:
        if self.mechanism is None:
            return "no block-I/O cgroup for --throttle-read-bps: need cgroup v2 with io, or v1 blkio"
        if os.geteuid() != 0:
            return "--throttle-read-bps needs root (a cgroup of the root hierarchy)"
        return None

    def __enter__(self):
        self.path.mkdir()
        if self.mechanism == "cgroup-v2":
            (self.path / "io.max").write_text(f"{self.device} rbps={self.bps}")
        else:
            (self.path / "blkio.throttle.read_bps_device").write_text(f"{self.device} {self.bps}")
        return self

    def __exit__(self, *exc):
        cl.remove_cgroup(self.path)
        return False

    def prefix(self) -> list[str]:
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs")]

    def describe(self) -> dict:
        return {"mechanism": self.mechanism, "device": self.device, "read_bytes_per_s": self.bps,
                "path": str(self.path)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
