"""Shared parts of the collectors: run folder and manifest, host facts, prerequisites, monitors, memory cgroup.

Standard library only, so a reader can run a collector with any Python 3.10+ and the tools it names.
Every command a collector runs for a measurement goes through ``Run.step`` so that its exact argv,
times, exit code, output files and labels land in ``manifest.json`` next to the logs.
"""
from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Every step runs in the C locale, so text outputs (df's header, dates) parse the same whatever the reader's locale.
C_LOCALE = {**os.environ, "LC_ALL": "C"}

# Debian package that provides each tool, for the "missing" message.
PACKAGES = {
    "fio": "fio", "vmstat": "procps", "mpstat": "sysstat", "perf": "linux-perf",
    "mkfs.btrfs": "btrfs-progs", "btrfs": "btrfs-progs", "losetup": "mount", "mount": "mount",
    "umount": "mount", "findmnt": "util-linux", "blockdev": "util-linux", "truncate": "coreutils", "df": "coreutils",
}


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def require(tools: list[str], extra_problems: list[str] = ()) -> None:
    """Exit with status 2 naming every missing tool (and its Debian package) and every other problem."""
    problems = [f"missing tool: {t} (Debian package: {PACKAGES.get(t, t)})" for t in tools if shutil.which(t) is None]
    problems += list(extra_problems)
    if problems:
        print("cannot run, prerequisites not met:", *problems, sep="\n  ", file=sys.stderr)
        sys.exit(2)


def tool_version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unavailable: {e}"
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else f"exit {out.returncode}, no output"


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def _mem_total_bytes() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no MemTotal in /proc/meminfo")


def target_facts(directory: Path) -> dict:
    """File system, device and mount point holding `directory`, as findmnt reports them."""
    out = subprocess.run(["findmnt", "-n", "-J", "-o", "SOURCE,FSTYPE,TARGET,OPTIONS", "-T", str(directory)],
                         capture_output=True, text=True, check=True)
    (fs,) = json.loads(out.stdout)["filesystems"]
    return {"dir": str(directory), "device": fs["source"], "filesystem": fs["fstype"],
            "mount_point": fs["target"], "mount_options": fs["options"]}


def _os_name() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except OSError:
        return ""


def host_facts() -> dict:
    return {
        "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": _mem_total_bytes(),
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "os": _os_name(),
        "load_average_at_start": list(os.getloadavg()),
    }


class Run:
    """One run folder ``<out>/<hostname>-<UTC timestamp>/`` and its manifest, rewritten after every step."""

    def __init__(self, study: str, out: Path, argv: list[str], labels: dict):
        started = datetime.now(timezone.utc)
        self.run_id = f"{socket.gethostname()}-{started.strftime('%Y%m%dT%H%M%SZ')}"
        self.dir = Path(out) / self.run_id
        self.dir.mkdir(parents=True)
        self.manifest = {
            "iobook_manifest": 1,
            "study": study,
            "run_id": self.run_id,
            "collector": " ".join(shlex.quote(a) for a in argv),
            "started_utc": utc_now(),
            "finished_utc": None,
            "status": "running",
            "host": host_facts(),
            "target": None,
            "labels": {k: str(v) for k, v in labels.items()},
            "tools": {},
            "facts": {},
            "steps": [],
        }
        self.save()

    def save(self) -> None:
        tmp = self.dir / "manifest.json.tmp"
        tmp.write_text(json.dumps(self.manifest, indent=1) + "\n")
        tmp.replace(self.dir / "manifest.json")

    def step(self, name: str, argv: list[str], labels: dict, files: list[str] = (),
             check: bool = True, stdout_file: str | None = None) -> subprocess.CompletedProcess:
        """Run one command; record argv, times, exit code, short stdout/stderr, and the labels of each output file.
        With `stdout_file`, the command's whole stdout is also written, unmodified, to that file of the run folder
        (for tools that print their result, such as df), which becomes one of the step's files."""
        labels = {k: str(v) for k, v in labels.items()}
        entry = {"name": name, "command": argv, "started_utc": utc_now(), "labels": labels,
                 "files": list(files) + ([stdout_file] if stdout_file else [])}
        t0 = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, env=C_LOCALE)
        entry.update(finished_utc=utc_now(), seconds=round(time.monotonic() - t0, 6), exit_code=proc.returncode,
                     stdout=proc.stdout[-4000:], stderr=proc.stderr[-4000:])
        if stdout_file:
            (self.dir / stdout_file).write_text(proc.stdout)
        self.manifest["steps"].append(entry)
        self.save()
        if check and proc.returncode != 0:
            raise RuntimeError(f"step {name} failed with exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
        return proc

    def finish(self, status: str) -> None:
        self.manifest.update(finished_utc=utc_now(), status=status)
        self.save()

    def start(self, name: str, argv: list[str], labels: dict) -> "BackgroundStep":
        """Start a command that runs while other steps run (e.g. waiting for btrfs's cleaner)."""
        return BackgroundStep(self, name, argv, labels)


class BackgroundStep:
    """A command started by Run.start; a thread waits for it, so its end time is exact, not the time someone
    looked. `finish` records it in the manifest like a step (after the steps that started later; its
    started_utc says when it began)."""

    def __init__(self, run: Run, name: str, argv: list[str], labels: dict):
        self.run = run
        self.entry = {"name": name, "command": argv, "started_utc": utc_now(),
                      "labels": {k: str(v) for k, v in labels.items()}, "files": []}
        t0 = time.monotonic()
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=C_LOCALE)

        def wait() -> None:
            out, err = self.proc.communicate()
            self.entry.update(finished_utc=utc_now(), seconds=round(time.monotonic() - t0, 6),
                              exit_code=self.proc.returncode, stdout=out[-4000:], stderr=err[-4000:])

        self.waiter = threading.Thread(target=wait, daemon=True)
        self.waiter.start()

    def done(self) -> bool:
        return not self.waiter.is_alive()

    def finish(self, timeout_s: float) -> None:
        """Wait up to timeout_s, stop the command if it is still running (its exit code then says so), record it."""
        self.waiter.join(timeout_s)
        if self.waiter.is_alive():
            self.proc.terminate()
            self.waiter.join()
        self.run.manifest["steps"].append(self.entry)
        self.run.save()


def _stop_on_sigint() -> None:
    """In a monitor's child process: SIGINT's default action. A shell starts a background job with SIGINT
    ignored and children inherit that, so vmstat would ignore the SIGINT that stops it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Monitors:
    """vmstat and mpstat (and optionally a /proc sampler) writing into the run folder while a step runs.

    Each step gets its own monitor files, so each file carries exactly that step's labels.
    """

    def __init__(self, run: Run, prefix: str, sample_paths: list[str] = (), settle_s: float = 1.0):
        self.files = {"vmstat": f"{prefix}.vmstat.txt", "mpstat": f"{prefix}.mpstat.txt"}
        if sample_paths:
            self.files["proc"] = f"{prefix}.proc.txt"
        self.run, self.sample_paths, self.settle_s = run, list(sample_paths), settle_s
        self.procs: list[subprocess.Popen] = []
        self.sampler: ProcSampler | None = None

    def commands(self) -> dict[str, list[str]]:
        return {"vmstat": ["vmstat", "-n", "-t", "-w", "1"], "mpstat": ["mpstat", "-P", "ALL", "1"]}

    def __enter__(self):
        # C locale and ISO dates so the parsers see one time format whatever the reader's locale.
        env = {**C_LOCALE, "S_TIME_FORMAT": "ISO"}
        for tool, argv in self.commands().items():
            out = open(self.run.dir / self.files[tool], "w")
            self.procs.append(subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                               preexec_fn=_stop_on_sigint))
            out.close()
        if self.sample_paths:
            self.sampler = ProcSampler(self.run.dir / self.files["proc"], self.sample_paths)
            self.sampler.start()
        time.sleep(self.settle_s)  # a baseline sample before the workload starts
        return self

    def __exit__(self, *exc):
        time.sleep(self.settle_s)
        for p in self.procs:
            p.send_signal(signal.SIGINT)  # mpstat prints its Average lines on SIGINT
        for p in self.procs:
            p.wait(timeout=10)
        if self.sampler:
            self.sampler.stop()
        return False


class ProcSampler(threading.Thread):
    """Copies selected lines of kernel counter files (``/proc/vmstat``, a cgroup's ``memory.stat``) every second.

    Output: a header line, then per sample ``@ <unix time> <path>`` followed by that file's lines, verbatim.
    """

    HEADER = "# iobook proc sampler 1: verbatim lines of kernel counter files, every {interval} s"

    # Line prefixes kept: /proc/vmstat's dirty/writeback/reclaim counters and memory.stat's page-cache sizes.
    KEYS = ("nr_dirty", "nr_writeback", "nr_file_pages", "nr_free_pages", "pgscan", "pgsteal", "pgpgin", "pgpgout",
            "allocstall", "workingset_refault_file", "cache ", "dirty ", "writeback ", "inactive_file ",
            "active_file ", "rss ")

    def __init__(self, out: Path, paths: list[str], interval_s: float = 1.0):
        super().__init__(daemon=True)
        self.out, self.paths, self.interval_s = out, paths, interval_s
        self.stopping = threading.Event()

    def run(self) -> None:
        with open(self.out, "w") as f:
            f.write(self.HEADER.format(interval=self.interval_s) + "\n")
            while not self.stopping.is_set():
                for path in self.paths:
                    lines = Path(path).read_text().splitlines()
                    f.write(f"@ {time.time():.6f} {path}\n")
                    f.writelines(line + "\n" for line in lines if line.startswith(self.KEYS))
                f.flush()
                self.stopping.wait(self.interval_s)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=10)


def perf_probe(events: list[str]) -> dict:
    """Which perf events this machine counts: `perf stat -x,` on `true`, event -> value or the reason it is not."""
    if shutil.which("perf") is None:
        return {"perf": "not installed"}
    argv = ["perf", "stat", "-x", ",", "-e", ",".join(events), "true"]
    out = subprocess.run(argv, capture_output=True, text=True)
    supported = {}
    for line in out.stderr.splitlines():
        fields = line.split(",")
        if len(fields) >= 3 and not line.startswith("#"):
            supported[fields[2]] = fields[0]
    pmus = sorted(p.name for p in Path("/sys/bus/event_source/devices").iterdir())
    memory_pmus = [p for p in pmus if p.startswith(("uncore_imc", "amd_umc", "amd_df", "arm_cmn", "hisi_ddrc"))]
    return {"command": argv, "exit_code": out.returncode, "events": supported, "pmus": pmus,
            "memory_controller_pmus": memory_pmus,
            # The collectors do not yet program memory-controller events (their names differ per CPU
            # vendor and generation), so memory traffic is never measured; the fact says why.
            "memory_traffic": "not measured: " + (
                f"memory-controller PMUs {memory_pmus} present, but the collector does not program their events"
                if memory_pmus else "no memory-controller PMU (uncore_imc*, amd_umc*, amd_df, arm_cmn*, hisi_ddrc*) "
                "in /sys/bus/event_source/devices")}


class MemoryCgroup:
    """A memory-limited cgroup that a command joins by a shell prefix (recorded in the step's argv).

    systemd (when PID 1) gives a transient scope; otherwise a child of this process's own cgroup,
    under cgroup v2 (memory.max) or the v1 memory controller (memory.limit_in_bytes).
    """

    def __init__(self, limit_bytes: int, name: str):
        self.limit_bytes, self.name = limit_bytes, name
        self.path: Path | None = None
        self.mechanism = self._mechanism()

    @staticmethod
    def _own_cgroup(controller: str) -> str | None:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _id, controllers, path = line.split(":", 2)
            if controller in controllers.split(","):
                return path
        return None

    def _mechanism(self) -> str | None:
        if Path("/run/systemd/system").is_dir() and shutil.which("systemd-run"):
            return "systemd-run"
        v2_root = Path("/sys/fs/cgroup/cgroup.controllers")
        if v2_root.exists() and "memory" in v2_root.read_text().split():
            return "cgroup-v2"
        if Path("/sys/fs/cgroup/memory/memory.limit_in_bytes").exists() and self._own_cgroup("memory") is not None:
            return "cgroup-v1"
        return None

    def problem(self) -> str | None:
        if self.mechanism is None:
            return "no usable memory cgroup: need systemd, cgroup v2 with the memory controller, or cgroup v1 memory"
        if self.mechanism != "systemd-run" and os.geteuid() != 0:
            return f"creating a {self.mechanism} memory cgroup needs root"
        return None

    def __enter__(self):
        if self.mechanism == "cgroup-v2":
            parent = Path("/sys/fs/cgroup") / self._own_cgroup("").lstrip("/")
            self.path = parent / self.name
            self.path.mkdir()
            (self.path / "memory.max").write_text(str(self.limit_bytes))
        elif self.mechanism == "cgroup-v1":
            parent = Path("/sys/fs/cgroup/memory") / self._own_cgroup("memory").lstrip("/")
            self.path = parent / self.name
            self.path.mkdir()
            (self.path / "memory.limit_in_bytes").write_text(str(self.limit_bytes))
        return self

    def __exit__(self, *exc):
        if self.path is not None:
            # The cgroup can only be removed once empty; its page cache is then reparented, not dropped.
            for _ in range(50):
                try:
                    self.path.rmdir()
                    break
                except OSError:
                    time.sleep(0.2)
        return False

    def prefix(self) -> list[str]:
        """argv prefix that runs the rest of argv inside the cgroup."""
        if self.mechanism == "systemd-run":
            return ["systemd-run", "--quiet", "--scope", "-p", f"MemoryMax={self.limit_bytes}", "--"]
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs")]

    def stat_file(self) -> str | None:
        return str(self.path / "memory.stat") if self.path else None

    def describe(self) -> dict:
        return {"mechanism": self.mechanism, "path": str(self.path) if self.path else None,
                "memory_limit_bytes": self.limit_bytes}


def parse_size(text: str) -> int:
    """'4G', '512M', '1048576' -> bytes (binary multiples, as fio reads them)."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    text = text.strip().lower().rstrip("ib")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def install_signal_cleanup() -> None:
    """SIGTERM/SIGHUP raise SystemExit so `finally` blocks (unmount, losetup -d, rmdir) still run."""
    def _exit(signum, _frame):
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit)
