"""Shared parts of the collectors: run folder and manifest, host facts, prerequisites, monitors, memory cgroup,
the quiet-machine check, and the sequential design (interleaved rounds until the main comparisons are decided).

Standard library only, so a reader can run a collector with any Python 3.10+ and the tools it names, on the
machine under test, without the book's venv (numpy and scipy are not there, and importing them would load
the machine being measured). The statistics of the stopping rule are therefore a small copy of the book's
(iobook/inference/stats.py: Welch's t on the log scale, Holm, at least MIN_REPETITIONS a side), with Student's t
distribution from the regularised incomplete beta function; tests/test_collectors.py checks them against scipy.
Every command a collector runs for a measurement goes through ``Run.step`` so that its exact argv,
times, exit code, output files and labels land in ``manifest.json`` next to the logs.
"""
from __future__ import annotations

import json
import math
import os
import platform
import random
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
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
    if shutil.which(argv[0]) is None:
        return "not installed"
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


# What each monitor records, for the note when its tool is missing. A monitor is never a prerequisite: the run
# goes on without it and says so (manifest facts.monitors.<tool>, and once on stderr).
MONITOR_RECORDS = {
    "vmstat": "memory, run queue and CPU each second",
    "mpstat": "CPU per core each second",
    "perf": "perf counters (task-clock, instructions, cycles) of each fio step",
}


class Run:
    """One run folder ``<out>/<hostname>-<UTC timestamp>/`` and its manifest, rewritten after every step."""

    def __init__(self, study: str, out: Path, argv: list[str], labels: dict):
        started = datetime.now(timezone.utc)
        self.run_id = f"{socket.gethostname()}-{started.strftime('%Y%m%dT%H%M%SZ')}"
        self.dir = Path(out) / self.run_id
        self.dir.mkdir(parents=True)
        self.gate: LoadGate | None = None  # set by the collector (LoadGate.from_args) before its measured steps
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

    def monitor_available(self, tool: str) -> bool:
        """Whether a monitor's tool is on PATH; the first time, recorded in facts.monitors.<tool> (recorded: true or
        false, and a note) and, when missing, said once on stderr. The measurement goes on either way."""
        monitors = self.manifest["facts"].setdefault("monitors", {})
        if tool not in monitors:
            found = shutil.which(tool) is not None
            note = "recorded" if found else (f"{tool} not found (Debian package {PACKAGES.get(tool, tool)}): "
                                             f"{MONITOR_RECORDS[tool]} not recorded")
            monitors[tool] = {"recorded": found, "note": note}
            if not found:
                print(note, file=sys.stderr)
            self.save()
        return monitors[tool]["recorded"]

    def step(self, name: str, argv: list[str], labels: dict, files: list[str] = (),
             check: bool = True, stdout_file: str | None = None) -> subprocess.CompletedProcess:
        """Run one command; record argv, times, exit code, short stdout/stderr, the machine's CPU use while it ran
        (`cpu`, see cpu_during), and the labels of each output file. With `stdout_file`, the command's whole
        stdout is also written, unmodified, to that file of the run folder (for tools that print their result,
        such as df), which becomes one of the step's files."""
        labels = {k: str(v) for k, v in labels.items()}
        entry = {"name": name, "command": argv, "started_utc": utc_now(), "labels": labels,
                 "files": list(files) + ([stdout_file] if stdout_file else [])}
        t0 = time.monotonic()
        before = CpuUse.now()
        proc = subprocess.run(argv, capture_output=True, text=True, env=C_LOCALE)
        cpu = cpu_during(before, CpuUse.now())
        entry.update(finished_utc=utc_now(), seconds=round(time.monotonic() - t0, 6), exit_code=proc.returncode,
                     stdout=proc.stdout[-4000:], stderr=proc.stderr[-4000:], cpu=cpu)
        if stdout_file:
            (self.dir / stdout_file).write_text(proc.stdout)
        self.manifest["steps"].append(entry)
        self.save()
        if check and proc.returncode != 0:
            raise RuntimeError(f"step {name} failed with exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
        return proc

    def measure(self, name: str, argv: list[str], labels: dict, files: list[str],
                monitors: Callable[[], Monitors] | None = None, repeatable: bool = True) -> dict:
        """A measured step behind the quiet-machine check (self.gate): check (and wait for) a quiet machine, run
        the step (inside `monitors()` when given), check again right after. The step's labels gain what the
        checks saw (LoadGate.LABELS); its manifest entry gains `load` with every sample. A step that ran under
        load (busy before after the wait, or busy right after) is run again when `repeatable`, attempts remain
        (--max-attempts) and the check right after it found the machine quiet: the earlier attempt's files move
        to superseded/attempt-<k>/ (listed as the entry's `superseded_files`, no labels, so no chapter counts
        them). Returns the kept attempt's manifest entry."""
        gate = self.gate or LoadGate.disabled()
        for attempt in range(1, gate.max_attempts + 1):
            before = gate.before()
            if monitors is not None:
                mon = monitors()
                with mon:
                    self.step(name, argv, labels, [*files, *mon.files.values()])
            else:
                self.step(name, argv, labels, files)
            entry = self.manifest["steps"][-1]
            after = gate.after()
            under_load = not before["quiet"] or not after["quiet"]
            repeat = under_load and repeatable and attempt < gate.max_attempts and after["quiet"]
            entry["labels"].update(gate.labels(before, after, entry["cpu"], under_load, attempt))
            entry["load"] = {"before": before, "after": after, "under_load": under_load, "attempt": attempt,
                             "repeated": repeat, "why_not_repeated": None if repeat or not under_load else (
                                 "not repeatable (the step changes the state later steps measure)" if not repeatable
                                 else "no attempts left (--max-attempts)" if attempt >= gate.max_attempts
                                 else "the machine was still busy right after the step")}
            if repeat:
                self._supersede(entry, attempt)
            self.save()
            if not repeat:
                return entry
        raise AssertionError("unreachable: the last attempt is never repeated")

    def _supersede(self, entry: dict, attempt: int) -> None:
        """Move an attempt's files to superseded/attempt-<k>/: kept, listed, unlabelled."""
        folder = Path("superseded") / f"attempt-{attempt}"
        (self.dir / folder).mkdir(parents=True, exist_ok=True)
        moved = []
        for f in entry["files"]:
            if (self.dir / f).exists():
                (self.dir / f).replace(self.dir / folder / f)
                moved.append(str(folder / f))
        entry.update(files=[], superseded_files=moved)

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

    Each step gets its own monitor files, so each file carries exactly that step's labels. A monitor whose tool
    is not on PATH is left out (Run.monitor_available records it once); `files` lists only those that run.
    """

    COMMANDS = {"vmstat": ["vmstat", "-n", "-t", "-w", "1"], "mpstat": ["mpstat", "-P", "ALL", "1"]}

    def __init__(self, run: Run, prefix: str, sample_paths: list[str] = (), settle_s: float = 1.0):
        self.commands = {tool: argv for tool, argv in self.COMMANDS.items() if run.monitor_available(tool)}
        self.files = {tool: f"{prefix}.{tool}.txt" for tool in self.commands}
        if sample_paths:
            self.files["proc"] = f"{prefix}.proc.txt"
        self.run, self.sample_paths, self.settle_s = run, list(sample_paths), settle_s
        self.procs: dict[str, subprocess.Popen] = {}
        self.sampler: ProcSampler | None = None

    def __enter__(self):
        # C locale and ISO dates so the parsers see one time format whatever the reader's locale.
        env = {**C_LOCALE, "S_TIME_FORMAT": "ISO"}
        for tool, argv in self.commands.items():
            out = open(self.run.dir / self.files[tool], "w")
            self.procs[tool] = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                                preexec_fn=_stop_on_sigint)
            out.close()
        if self.sample_paths:
            self.sampler = ProcSampler(self.run.dir / self.files["proc"], self.sample_paths)
            self.sampler.start()
        time.sleep(self.settle_s)  # a baseline sample before the workload starts
        return self

    def __exit__(self, *exc):
        time.sleep(self.settle_s)
        for p in self.procs.values():
            p.send_signal(signal.SIGINT)  # mpstat prints its Average lines on SIGINT
        for p in self.procs.values():
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


def remove_cgroup(path: Path) -> None:
    """Remove a cgroup folder, waiting up to 10 s for it to empty: a cgroup can only be removed once its processes
    have ended."""
    for _ in range(50):
        try:
            path.rmdir()
            return
        except OSError:
            time.sleep(0.2)


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
        if self.path is not None:  # its page cache is then reparented, not dropped
            remove_cgroup(self.path)
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


# ---------------------------------------------------------------- the machine's CPU use, from /proc/stat

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class CpuUse:
    """/proc/stat's all-CPU line (jiffies) and this process's waited-for children's CPU-seconds, at one moment."""
    busy: int  # user + nice + system + irq + softirq: what mpstat and the step_cpu_busy view count as busy
    steal: int  # taken by the hypervisor for other guests
    total: int  # user + nice + system + idle + iowait + irq + softirq + steal
    children_cpu_s: float  # getrusage(RUSAGE_CHILDREN): user + system seconds of the children reaped so far
    monotonic_s: float

    @classmethod
    def now(cls) -> "CpuUse":
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        user, nice, system, _idle, _iowait, irq, softirq, steal = fields + [0] * (8 - len(fields))
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return cls(user + nice + system + irq + softirq, steal, sum(fields),
                   children.ru_utime + children.ru_stime, time.monotonic())


def _pct(part: float, whole: float) -> float | None:
    return round(100 * part / whole, 2) if whole > 0 else None


def busy_between(a: CpuUse, b: CpuUse) -> dict:
    """Share of all CPUs busy and stolen between two readings, in percent (None when no tick passed)."""
    total = b.total - a.total
    return {"busy_pct": _pct(b.busy - a.busy, total), "steal_pct": _pct(b.steal - a.steal, total),
            "seconds": round(b.monotonic_s - a.monotonic_s, 3)}


def cpu_during(a: CpuUse, b: CpuUse) -> dict:
    """The machine's CPU use while a step ran: busy share of all CPUs, the step's own share (the CPU-seconds of
    the processes it started, once reaped, over the CPU-seconds all CPUs had), and the rest (`others_pct`).
    Kernel threads working for the step (writeback, the loop device, btrfs workers) are not the step's
    processes, so they count among the others: others_pct is an upper bound of other tenants' load."""
    out = busy_between(a, b)
    capacity_s = (b.total - a.total) / CLOCK_TICKS
    out["own_pct"] = _pct(b.children_cpu_s - a.children_cpu_s, capacity_s)
    if out["busy_pct"] is not None and out["own_pct"] is not None:
        out["others_pct"] = round(max(0.0, out["busy_pct"] - out["own_pct"]), 2)
    else:
        out["others_pct"] = None
    return out


def sample_busy(seconds: float) -> dict:
    a = CpuUse.now()
    time.sleep(seconds)
    return busy_between(a, CpuUse.now())


class LoadGate:
    """The quiet-machine check around each measured step (Run.measure).

    Before: sample the share of all CPUs busy over `sample_s` (/proc/stat); while it is at or above
    `quiet_busy_pct`, sample again, up to `max_wait_s` for this step and `wait_budget_s` for the whole run
    (once spent, steps are still checked and the load recorded, but no longer wait). After: one sample right
    after the step (its own processes have ended), which tells whether it ran into other work and whether a
    repeat would now run on a quiet machine.
    """

    # Labels a measured step's files gain: what the checks saw, so chapters can group or filter by load.
    LABELS = ("busy_before_pct", "busy_after_pct", "busy_others_during_pct", "wait_s", "under_load", "attempt")

    def __init__(self, quiet_busy_pct: float, sample_s: float, max_wait_s: float, wait_budget_s: float,
                 max_attempts: int):
        self.quiet_busy_pct, self.sample_s = quiet_busy_pct, sample_s
        self.max_wait_s, self.wait_budget_s, self.max_attempts = max_wait_s, wait_budget_s, max_attempts
        self.waited_s = 0.0  # over the run
        self.enabled = True
        self._last: tuple[float, dict] | None = None  # (when, sample) of the last check after a step

    @classmethod
    def from_args(cls, args) -> "LoadGate":
        return cls(args.quiet_busy, args.quiet_sample, args.max_wait, args.wait_budget, args.max_attempts)

    @classmethod
    def disabled(cls) -> "LoadGate":
        gate = cls(100.0, 0.0, 0.0, 0.0, 1)
        gate.enabled = False
        return gate

    def policy(self) -> dict:
        return {"quiet_below_busy_pct": self.quiet_busy_pct, "sample_s": self.sample_s,
                "max_wait_s": self.max_wait_s, "wait_budget_s": self.wait_budget_s,
                "max_attempts": self.max_attempts, "busy": "user+nice+system+irq+softirq over all CPUs "
                "(/proc/stat), as mpstat counts it; steal recorded apart",
                "under_load": "busy at or above quiet_below_busy_pct in the check before the step (after "
                              "waiting) or in the check right after it",
                "repeat": "a repeatable step that ran under load runs again (up to max_attempts) when the "
                          "check right after it finds the machine quiet"}

    def _sample(self) -> dict:
        if not self.enabled:
            return {"busy_pct": None, "steal_pct": None, "seconds": 0.0, "quiet": True}
        s = sample_busy(self.sample_s)
        s["quiet"] = s["busy_pct"] is not None and s["busy_pct"] < self.quiet_busy_pct
        return s

    def before(self) -> dict:
        # The check right after the previous step serves as this one's first sample when it is that fresh.
        fresh = self._last is not None and time.monotonic() - self._last[0] < self.sample_s
        first = self._last[1] if fresh else self._sample()
        samples = [first["busy_pct"]]
        last, t0 = first, time.monotonic()
        while not last["quiet"]:
            waited = time.monotonic() - t0
            if waited >= self.max_wait_s or self.waited_s + waited >= self.wait_budget_s:
                break
            last = self._sample()
            samples.append(last["busy_pct"])
        wait_s = round(time.monotonic() - t0, 3)
        self.waited_s += wait_s
        return {"busy_pct": last["busy_pct"], "steal_pct": last["steal_pct"], "quiet": last["quiet"],
                "wait_s": wait_s, "samples_busy_pct": samples, "wait_budget_left_s":
                round(max(0.0, self.wait_budget_s - self.waited_s), 3)}

    def after(self) -> dict:
        sample = self._sample()
        self._last = (time.monotonic(), sample)
        return sample

    @staticmethod
    def labels(before: dict, after: dict, cpu: dict, under_load: bool, attempt: int) -> dict:
        def text(v):
            return "" if v is None else str(v)
        return {"busy_before_pct": text(before["busy_pct"]), "busy_after_pct": text(after["busy_pct"]),
                "busy_others_during_pct": text(cpu.get("others_pct")), "wait_s": str(before["wait_s"]),
                "under_load": str(under_load).lower(), "attempt": str(attempt)}


# ---------------------------------------------------------------- statistics of the stopping rule
# A copy of the book's (iobook/inference/stats.py) in the standard library: see the module docstring for why.

MIN_REPETITIONS = 3  # a side before a comparison counts as decided (iobook.inference.stats.MIN_REPETITIONS)


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method; Numerical Recipes 6.4)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):  # the fraction converges fast on this side; use the symmetry otherwise
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with df degrees of freedom (any df > 0, not only integers: Welch's are not)."""
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p, by bisection on t_sf (to 1e-12, far below any digit the decision reads)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must lie in (0, 1)")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_sf(high, df) > 1.0 - p:
        low, high = high, high * 2.0
    while high - low > 1e-12 * max(1.0, high):
        mid = (low + high) / 2.0
        low, high = (mid, high) if t_sf(mid, df) > 1.0 - p else (low, mid)
    return (low + high) / 2.0


def _mean(x: list[float]) -> float:
    return sum(x) / len(x)


def _variance(x: list[float]) -> float:
    m = _mean(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1)


def log_ratio(sample: list[float], baseline: list[float], confidence: float = 0.95) -> dict:
    """Two groups of a positive quantity compared on the log scale, as iobook.inference.stats.ratio_row does: `ratio` =
    geometric mean of sample / that of baseline; `low`, `high` = Welch's t interval of the difference of the
    log means taken back (so positive); `p` = Welch's two-sided p on the logs; `n`, `n_baseline`; `sd_log`.
    Interval, p and sd_log are None with fewer than two values a side or when neither side varies."""
    a, b = [math.log(v) for v in sample], [math.log(v) for v in baseline]
    row = {"n": len(a), "n_baseline": len(b), "ratio": None, "low": None, "high": None, "p": None, "sd_log": None}
    if not a or not b:
        return row
    diff = _mean(a) - _mean(b)
    row["ratio"] = math.exp(diff)
    if min(len(a), len(b)) < 2:
        return row
    va, vb = _variance(a), _variance(b)
    se2a, se2b = va / len(a), vb / len(b)
    if se2a + se2b == 0:
        return row
    df = (se2a + se2b) ** 2 / (se2a ** 2 / (len(a) - 1) + se2b ** 2 / (len(b) - 1))  # Welch-Satterthwaite
    se = math.sqrt(se2a + se2b)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, df) * se
    return row | {"low": math.exp(diff - half), "high": math.exp(diff + half), "p": 2.0 * t_sf(abs(diff) / se, df),
                  "df": df, "sd_log": math.sqrt((va + vb) / 2.0)}


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values of tests read together; None stays None and is not counted."""
    tested = sorted((i for i, p in enumerate(p_values) if p is not None), key=lambda i: p_values[i])
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, i in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class Comparison:
    """One main comparison: `measure` of the results whose labels include `sample` over those whose labels
    include `baseline`; comparisons of one `family` are read together (Holm), as the chapter reads them."""
    name: str
    measure: str
    sample: dict
    baseline: dict
    family: str

    def describe(self) -> dict:
        return {"name": self.name, "measure": self.measure, "sample": self.sample, "baseline": self.baseline,
                "family": self.family}


def _matches(labels: dict, wanted: dict) -> bool:
    return all(str(labels.get(k)) == str(v) for k, v in wanted.items())


def evaluate(comparisons: list[Comparison], results: list[dict], confidence: float = 0.95) -> list[dict]:
    """Each comparison on `results` (dicts with `labels` and `values`) with log_ratio, Holm within its family,
    and `decided`: at least MIN_REPETITIONS a side and Holm's p below 1 - confidence (for a family of one:
    the interval excludes 1)."""
    rows = []
    for c in comparisons:
        def values(wanted):
            return [r["values"][c.measure] for r in results
                    if _matches(r["labels"], wanted) and r["values"].get(c.measure) not in (None, 0)]
        rows.append({"name": c.name, "family": c.family, **log_ratio(values(c.sample), values(c.baseline),
                                                                      confidence)})
    for family in {r["family"] for r in rows}:
        members = [r for r in rows if r["family"] == family]
        for r, adjusted in zip(members, holm([r["p"] for r in members])):
            r["p_holm"] = adjusted
            r["decided"] = (r["n"] >= MIN_REPETITIONS and r["n_baseline"] >= MIN_REPETITIONS
                            and adjusted is not None and adjusted < 1.0 - confidence)
    return [{k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items()} for r in rows]


def drift(baseline: list[float], end: list[float], confidence: float = 0.95) -> dict:
    """The baseline measured again at the end against the baseline's repetitions during the rounds: the ratio
    of the end's geometric mean to theirs, and the t prediction interval (log scale) of one more repetition
    of the baseline; `drifted` when an end value lies outside it."""
    logs, out = [math.log(v) for v in baseline if v], {"n": len(baseline), "end": end}
    if not logs or not end:
        return out | {"ratio": None, "prediction_low": None, "prediction_high": None, "drifted": None}
    out["ratio"] = round(math.exp(_mean([math.log(v) for v in end]) - _mean(logs)), 6)
    if len(logs) < 2:
        return out | {"prediction_low": None, "prediction_high": None, "drifted": None}
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, len(logs) - 1) * math.sqrt(_variance(logs) * (1 + 1 / len(logs)))
    low, high = math.exp(_mean(logs) - half), math.exp(_mean(logs) + half)
    return out | {"prediction_low": round(low, 6), "prediction_high": round(high, 6),
                  "drifted": any(not low <= v <= high for v in end)}


# ---------------------------------------------------------------- fio results the stopping rule reads

GIB = 1 << 30


def fio_values(path: Path, direction: str | None = None) -> dict:
    """From a fio JSON(+) output: over its jobs, in `direction` (read, write, trim; default the direction that
    moved the most I/Os), the bandwidth (MiB/s, summed), operations per second (summed), mean completion
    latency (µs, mean over jobs) and fio's CPU-seconds (usr + sys) per GiB moved: the measures the chapters
    compute from the same file. fio may print warnings before its JSON; they are skipped."""
    text = path.read_text()
    jobs = json.loads(text[text.index("{"):])["jobs"]
    if direction is None:
        direction = max(("read", "write", "trim"), key=lambda d: sum(j[d]["total_ios"] for j in jobs))
    io_bytes = sum(j[direction]["io_bytes"] for j in jobs)
    cpu_s = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000 for j in jobs)
    return {"bw_mib_s": sum(j[direction]["bw_bytes"] for j in jobs) / 2**20,
            "iops": sum(j[direction]["iops"] for j in jobs),
            "clat_mean_us": _mean([j[direction]["clat_ns"]["mean"] / 1000 for j in jobs]),
            "cpu_s_per_gib": cpu_s / (io_bytes / GIB) if io_bytes else None}


# ---------------------------------------------------------------- the sequential design

def _unique(dicts: list[dict]) -> list[dict]:
    seen: list[dict] = []
    for d in dicts:
        if d not in seen:
            seen.append(d)
    return seen


def add_design_arguments(ap, max_repetitions: int | None, time_budget_min: float | None = None) -> None:
    """The options every collector shares: rounds and stopping rule (when `max_repetitions` is given: the
    collectors that use Rounds), seed, confidence and the quiet-machine check."""
    g = ap.add_argument_group("design: interleaved rounds until decided, and the quiet-machine check")
    if max_repetitions is not None:
        g.add_argument("--max-repetitions", type=int, default=max_repetitions,
                       help="most rounds (repetitions of every configuration), also when undecided; "
                            "default %(default)s")
        g.add_argument("--time-budget", type=float, default=time_budget_min,
                       help="minutes: start no round that would end after this (the last round's duration is "
                            "the estimate); default %(default)s")
    g.add_argument("--seed", type=int, default=20, help="seed of the configurations' order in each round; "
                                                          "default %(default)s")
    g.add_argument("--confidence", type=float, default=0.95, help="of the intervals that decide; default %(default)s")
    g.add_argument("--quiet-busy", type=float, default=25.0,
                   help="the machine is quiet below this %% of all CPUs busy (/proc/stat); default %(default)s")
    g.add_argument("--quiet-sample", type=float, default=1.5, help="seconds per busy sample; default %(default)s")
    g.add_argument("--max-wait", type=float, default=60.0,
                   help="longest wait for a quiet machine before one step, seconds; default %(default)s")
    g.add_argument("--wait-budget", type=float, default=600.0,
                   help="longest total wait over the run, seconds; once spent, steps are checked and their load "
                        "recorded without waiting; default %(default)s")
    g.add_argument("--max-attempts", type=int, default=2,
                   help="runs of a repeatable step that ran under load (repeated only when the machine is quiet "
                        "right after it); default %(default)s")


class Rounds:
    """Rounds of every configuration in an order shuffled afresh each round by a seeded generator (so no
    configuration always runs first, and drift spreads over all of them), until every main comparison is
    decided (evaluate) after at least `min_rounds`, or `max_rounds`, or the time budget; then the baseline
    configurations once more, labelled drift_check=end, to catch drift. Everything lands in the manifest
    under facts.design (order, seed, rule) and facts.decision (why it stopped, each comparison after each
    round, the drift check).

    `measure(config, round, extra_labels)` runs one configuration (its steps labelled with the config, the
    round as `repetition`, and extra_labels) and returns one result per measured step: {"labels": the labels
    that identify what was measured (the config's and e.g. the phase; not the repetition), "values":
    fio_values(...)}. Comparisons select results by those labels."""

    def __init__(self, run: Run, args, configs: list[dict], measure: Callable[[dict, int, dict], list[dict]],
                 comparisons: list[Comparison], baseline_configs: list[dict], baseline_measures: list[str],
                 min_rounds: int = MIN_REPETITIONS):
        self.run, self.args, self.configs, self.measure = run, args, configs, measure
        self.comparisons, self.baseline_configs, self.baseline_measures = comparisons, baseline_configs, baseline_measures
        self.min_rounds = max(min_rounds, MIN_REPETITIONS)
        self.results: list[dict] = []

    def execute(self) -> dict:
        a, run = self.args, self.run
        rng = random.Random(a.seed)
        started = time.monotonic()
        budget_s = a.time_budget * 60 if a.time_budget else None
        design = {"order": "every configuration once per round, in an order shuffled each round "
                           "(random.Random(seed).shuffle)", "seed": a.seed, "configurations": self.configs,
                  "min_rounds": self.min_rounds, "max_rounds": a.max_repetitions, "time_budget_min": a.time_budget,
                  "baseline_at_end": self.baseline_configs, "rounds": []}
        decision = {"rule": (f"stop after round r >= {self.min_rounds} when every main comparison is decided: "
                             f"Welch's t on the log scale, Holm within each family, decided when at least "
                             f"{MIN_REPETITIONS} repetitions a side and Holm's p < {1 - a.confidence:.2g} (the "
                             f"{a.confidence:.0%} interval excludes 1 for a family of one); else stop at "
                             f"--max-repetitions or when the next round would overrun --time-budget"),
                    "confidence": a.confidence, "comparisons": [c.describe() for c in self.comparisons],
                    "stopped_because": None, "rounds": 0, "after_round": []}
        run.manifest["facts"].update(design=design, decision=decision)
        run.save()
        round_s = 0.0
        for rnd in range(1, a.max_repetitions + 1):
            order = list(self.configs)
            rng.shuffle(order)
            t0 = time.monotonic()
            for config in order:
                self.results += self.measure(config, rnd, {})
            round_s = time.monotonic() - t0
            design["rounds"].append({"round": rnd, "order": order, "seconds": round(round_s, 1)})
            rows = evaluate(self.comparisons, self.results, a.confidence)
            decision["after_round"].append({"round": rnd, "comparisons": rows})
            decision["rounds"] = rnd
            run.save()
            if rnd >= self.min_rounds and all(r["decided"] for r in rows):
                decision["stopped_because"] = f"every main comparison decided after {rnd} rounds"
                break
            if rnd == a.max_repetitions:
                decision["stopped_because"] = f"--max-repetitions {a.max_repetitions} reached, " + (
                    f"{sum(r['decided'] for r in rows)} of {len(rows)} main comparisons decided")
                break
            elapsed = time.monotonic() - started
            if budget_s is not None and rnd >= self.min_rounds and elapsed + round_s * 1.1 > budget_s:
                decision["stopped_because"] = (f"--time-budget {a.time_budget:g} min: round {rnd + 1} would end "
                                               f"after it ({elapsed / 60:.1f} min spent, last round "
                                               f"{round_s / 60:.1f} min); "
                                               f"{sum(r['decided'] for r in rows)} of {len(rows)} main comparisons "
                                               "decided")
                break
        final = decision["after_round"][-1]["comparisons"]
        decision["decided"] = all(r["decided"] for r in final)
        end_results = []
        for config in self.baseline_configs:
            end_results += self.measure(config, decision["rounds"] + 1, {"drift_check": "end"})
        decision["drift"] = []
        for labels in _unique([r["labels"] for r in end_results]):
            for m in self.baseline_measures:
                def values(results):
                    return [r["values"][m] for r in results if r["labels"] == labels and r["values"].get(m)]
                decision["drift"].append({"labels": labels, "measure": m,
                                          **drift(values(self.results), values(end_results), a.confidence)})
        run.save()
        return decision
