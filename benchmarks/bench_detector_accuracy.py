"""How often History's change points find a real change, how late, and how many they invent on unchanged histories.

    .venv/bin/python benchmarks/bench_detector_accuracy.py [--series 100] [--seed 0] [--quick]
        [--out data/reference/detector_accuracy.csv] [--otava /tmp/otava-venv/bin/python] [--dump /tmp/series.csv]

The noise is real: the committed unchanged histories (data/examples/history/steady: fio randread bandwidth, 30 runs;
data/examples/ior-history/steady: IOR write and read bandwidth and mdtest File creation rate, 24 runs each), read
with the project's own ingest and repeated_runs.get_runs. Each real series' log values less their mean (its residuals)
are put in a random order (a permutation: the real run-to-run noise, without its drift or order) around the series'
geometric mean, which gives a history of the same length with the real values in a random order. From the change
run k = n // 2 + 1 on its values are multiplied by 1 - step (a slowdown of 5, 10, 20, 50 %; step 0: no change). Each
source uses the same --series permutations for every step (common random numbers: the steps differ only by the step).

Every history is searched by the chapter's own path, change_points.history_changes, one history a call (a centre's single
nightly history: its own family for Holm's correction). A change is found when a change point within +-2 runs of k
is decided (the nearest one; its delay the found run - k); every other decided change point is a false change, and
where those lie is listed (run:count). The unchanged histories are also searched ten in one call (one family of ten
histories, as the chapter searches a centre's many histories): their false changes per history are the rows with
histories_per_family 10, from --series further families of ten permutations.

--otava PYTHON: the same series (dumped to --dump, a CSV) are also searched by Apache Otava's e-divisive
(otava.analysis.compute_change_points on the raw values, its defaults: window 50, min magnitude 0, at p 0.001,
its default, and at p 0.05, the chapter's level), by PYTHON, a Python with apache-otava installed (in its own venv,
never this project's); its rows carry detector "otava e-divisive". Otava has no family correction: its rows are of
single histories only.

Writes --out (one row per detector, source, measure, step and histories_per_family) and prints it with the run time.
"""
from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from iobook.database import repeated_runs  # noqa: E402
from iobook.database import store  # noqa: E402
from iobook.database.ingest import ingest  # noqa: E402
from iobook.inference import change_points  # noqa: E402
from iobook.inference import evidence, stats

# (source, committed folder, workload prefix, measure column)
SOURCES = [("fio randread", "data/examples/history/steady", "randread4k:", "bw_bytes_s"),
           ("IOR write", "data/examples/ior-history/steady", "IOR write:", "bw_bytes_s"),
           ("IOR read", "data/examples/ior-history/steady", "IOR read:", "bw_bytes_s"),
           ("mdtest File creation", "data/examples/ior-history/steady", "mdtest File creation:", "ops_s")]
STEPS = (0.0, 0.05, 0.10, 0.20, 0.50)
WINDOW = 2  # a change point within this many runs of the change run finds it
FAMILY = 10  # histories searched together in the family rows
SERIES = 100
QUICK_SERIES = 8
OTAVA_P = (0.001, 0.05)
COLUMNS = ["detector", "source", "measure", "runs", "step_pct", "histories_per_family", "series", "found",
           "found_share", "median_delay_runs", "delay_range_runs", "false_changes", "false_per_history",
           "histories_with_false", "false_at_runs", "noise_sd_log", "method"]

# Run by --otava's Python: reads the dumped series, writes each series' change points (Otava's index of the first
# run after the change, as a run number).
OTAVA_HELPER = """
import csv, sys
from collections import defaultdict
import importlib.metadata
from otava.analysis import compute_change_points
series_csv, out_csv, p_values = sys.argv[1], sys.argv[2], [float(p) for p in sys.argv[3].split(",")]
series = defaultdict(list)
with open(series_csv) as f:
    for row in csv.DictReader(f):
        if row["histories_per_family"] == "1":
            series[row["series_id"]].append((int(row["run"]), float(row["value"])))
with open(out_csv, "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["series_id", "max_pvalue", "run", "pvalue", "version"])
    version = importlib.metadata.version("apache-otava")
    for sid, points in series.items():
        values = [v for _, v in sorted(points)]
        for p in p_values:
            found, _ = compute_change_points(values, window_len=50, max_pvalue=p, min_magnitude=0.0)
            out.writerow([sid, p, "", "", version])  # every series searched, with or without a change point
            for cp in found:
                out.writerow([sid, p, cp.index + 1, cp.stats.pvalue, version])
"""


def real_series(seed_dir: Path) -> dict[str, pd.DataFrame]:
    """Each source's real runs (repeated_runs.get_runs of its committed folder, ingested into a scratch store), in run
    order."""
    found = {}
    for folder in dict.fromkeys(folder for _, folder, _, _ in SOURCES):
        db = seed_dir / (folder.replace("/", "_") + ".duckdb")
        ingest([ROOT / folder], db, progress=False)
        con = store.open_read(db)
        runs = repeated_runs.get_runs(con)
        con.close()
        for source, f, prefix, column in SOURCES:
            if f == folder:
                h = runs[runs.workload.str.startswith(prefix) & (runs[column] > 0)].sort_values("run")
                if h.label.nunique() != 1:
                    raise SystemExit(f"{source}: {h.label.nunique()} histories in {folder}, expected one")
                found[source] = h.reset_index(drop=True)
    return found


def history_frame(histories: list[np.ndarray], column: str, real: pd.DataFrame) -> pd.DataFrame:
    """The runs change_points.history_changes takes: one row per run of each history (label h00, h01, ...; one workload;
    the real runs' tool and version; no options), `column` set, the other measures NaN."""
    rows = []
    start = pd.Timestamp("2026-01-01")
    for j, values in enumerate(histories):
        label = f"h{j:02d}"
        for i, v in enumerate(values):
            rows.append({"label": label, "workload": "synthetic", "history": f"{label} · synthetic",
                         "tool": real.tool[0], "version": real.version[0], "options": "{}",
                         "started": start + pd.Timedelta(hours=i), "run": i + 1,
                         **{m: (float(v) if m == column else np.nan) for m in change_points.MEASURES}})
    return pd.DataFrame(rows)


def decided_runs(histories: list[np.ndarray], column: str, real: pd.DataFrame) -> list[list[int]]:
    """Per history, the runs (first after the change) of the change points the chapter's path decides, searching
    all `histories` in one call (one family)."""
    changes, _ = change_points.history_changes(history_frame(histories, column, real))
    out = [[] for _ in histories]
    if len(changes):
        decided = changes[changes.verdict == str(evidence.Verdict.DECIDED)]
        for label, run in zip(decided.label, decided.run):
            out[int(label[1:])].append(int(run))
    return out


def score(runs_found: list[list[int]], k: int, changed: bool) -> dict:
    """found (a run within WINDOW of k, the nearest), delays, false change points and where they lie."""
    found, delays, false_at = 0, [], []
    histories_with_false = 0
    for runs in runs_found:
        runs = sorted(runs)
        near = [r for r in runs if abs(r - k) <= WINDOW] if changed else []
        hit = min(near, key=lambda r: (abs(r - k), r)) if near else None
        if hit is not None:
            found += 1
            delays.append(hit - k)
        false = list(runs)
        if hit is not None:
            false.remove(hit)
        false_at += false
        histories_with_false += bool(false)
    n = len(runs_found)
    where = pd.Series(false_at, dtype=int).value_counts().sort_index()
    return {"series": n, "found": found if changed else None, "found_share": round(found / n, 3) if changed else None,
            "median_delay_runs": float(np.median(delays)) if delays else None,
            "delay_range_runs": f"{min(delays):+d}..{max(delays):+d}" if delays else None,
            "false_changes": len(false_at), "false_per_history": round(len(false_at) / n, 4),
            "histories_with_false": histories_with_false,
            "false_at_runs": " ".join(f"{r}:{c}" for r, c in where.items()) or None}


def otava(python: str, dump: Path, keys: dict[str, tuple], seed_dir: Path) -> tuple[dict, str]:
    """Otava's change points per (max_pvalue, key) of every single-history series in `dump`, and its version."""
    out = seed_dir / "otava_change_points.csv"
    subprocess.run([python, "-c", OTAVA_HELPER, str(dump), str(out), ",".join(map(str, OTAVA_P))], check=True)
    runs: dict[tuple, list[list[int]]] = {}
    version = "?"
    with open(out) as f:
        per_series: dict[tuple, list[int]] = {}
        for row in csv.DictReader(f):
            version = row["version"]
            per_series.setdefault((float(row["max_pvalue"]), row["series_id"]), [])
            if row["run"]:
                per_series[(float(row["max_pvalue"]), row["series_id"])].append(int(row["run"]))
    for (p, sid), found in per_series.items():
        runs.setdefault((p, keys[sid]), []).append(found)
    return runs, version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--series", type=int, default=SERIES, help="histories per source and step (and families of "
                        f"{FAMILY} per source in the family rows)")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_SERIES} series (a smoke test; not published)")
    parser.add_argument("--seed", type=int, default=change_points.SEED)
    parser.add_argument("--out", type=Path, default=ROOT / "data/reference/detector_accuracy.csv")
    parser.add_argument("--otava", help="a Python with apache-otava installed: also run Otava's e-divisive")
    parser.add_argument("--dump", type=Path, help="write the series searched to this CSV (default: a temporary file)")
    args = parser.parse_args()
    n_series = QUICK_SERIES if args.quick else args.series
    began = time.perf_counter()
    method = f"benchmarks/bench_detector_accuracy.py --series {n_series}, seed {args.seed}"
    rows, dumped, keys = [], [], {}
    seeds = np.random.SeedSequence(args.seed).spawn(len(SOURCES))
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        real = real_series(scratch)
        for (source, folder, _, column), seq in zip(SOURCES, seeds):
            rng = np.random.default_rng(seq)
            h = real[source]
            x = stats.log(h[column].to_numpy(dtype=float))
            level, residuals = x.mean(), x - x.mean()
            n = len(x)
            k = n // 2 + 1  # the first run of the slower level
            measure = change_points.MEASURES[column][0]
            common = {"source": source, "measure": measure, "runs": n,
                      "noise_sd_log": round(float(residuals.std(ddof=1)), 4)}
            noise = [rng.permutation(residuals) for _ in range(n_series)]
            for step in STEPS:
                factor = np.where(np.arange(1, n + 1) >= k, 1 - step, 1.0)
                histories = [stats.exp(level + r) * factor for r in noise]
                t = time.perf_counter()
                found = [decided_runs([v], column, h)[0] for v in histories]
                seconds = time.perf_counter() - t
                rows.append({"detector": "iobook", **common, "step_pct": round(100 * step), "histories_per_family": 1,
                             **score(found, k, step > 0), "method": method})
                for j, v in enumerate(histories):
                    sid = f"{source}|{step}|{j}"
                    keys[sid] = (source, step)
                    dumped += [(sid, source, measure, round(100 * step), 1, i + 1, float(y)) for i, y in enumerate(v)]
                print(f"  {source:<22} step {step:>4.0%}: {len(histories)} histories in {seconds:5.1f} s", flush=True)
            t = time.perf_counter()
            families = [[stats.exp(level + rng.permutation(residuals)) for _ in range(FAMILY)] for _ in range(n_series)]
            found = [runs for family in families for runs in decided_runs(family, column, h)]
            rows.append({"detector": "iobook", **common, "step_pct": 0, "histories_per_family": FAMILY,
                         **score(found, k, False),
                         "method": method + f"; {n_series} families of {FAMILY}"})
            print(f"  {source:<22} step   0%: {n_series} families of {FAMILY} in {time.perf_counter() - t:5.1f} s",
                  flush=True)
        dump = args.dump or scratch / "series.csv"
        pd.DataFrame(dumped, columns=["series_id", "source", "measure", "step_pct", "histories_per_family", "run",
                                      "value"]).to_csv(dump, index=False)
        if args.otava:
            t = time.perf_counter()
            found_by, version = otava(args.otava, dump, keys, scratch)
            print(f"  otava e-divisive: {len(keys)} histories x {len(OTAVA_P)} p in {time.perf_counter() - t:5.1f} s")
            by_source = {r["source"]: r for r in rows}
            for p in OTAVA_P:
                for source, _, _, column in SOURCES:
                    common = {k: by_source[source][k] for k in ("source", "measure", "runs", "noise_sd_log")}
                    k = common["runs"] // 2 + 1
                    for step in STEPS:
                        rows.append({"detector": "otava e-divisive", **common, "step_pct": round(100 * step),
                                     "histories_per_family": 1, **score(found_by[(p, (source, step))], k, step > 0),
                                     "method": f"{method}; apache-otava {version} compute_change_points, raw values, "
                                               f"window 50, max_pvalue {p}"})
    table = pd.DataFrame(rows, columns=COLUMNS)
    table = table.astype({"found": "Int64", "histories_with_false": "Int64"})
    if not args.quick or args.out != parser.get_default("out"):
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    shown = table.assign(detector=table.detector.str.replace("otava e-divisive", "otava") + [
        f" p{m.rsplit('max_pvalue ', 1)[1]}" if "max_pvalue" in m else "" for m in table.method])
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 40):
        print(shown.drop(columns=["method", "runs", "measure", "delay_range_runs", "false_at_runs", "noise_sd_log"])
              .to_string(index=False))
    print(f"total {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
