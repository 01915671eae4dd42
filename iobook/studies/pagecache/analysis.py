"""The page-cache study's analysis: frames (data.py) in, evidence records out. Every comparison is one row of a
`rows` frame (its run, what tells it apart, the record, and the steps on each side, so that a step a buffered write
left dirty can be traced to the comparisons it touches), undecided until the report decides them all at once;
estimates over the rounds of one run; the censuses of the buffered reads' cache and the buffered writes' dirty
pages. Rounds of one collector run are the units; runs of different designs are never pooled."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...book import comparison
from ...inference import evidence
from ...inference.evidence import Replicate
from .data import DEFAULT_EXPERIMENT, FULL_SHARE

MODE_QUANTITY = "{phase} {measure}, buffered ÷ direct"
TRIM_QUANTITY = "write bandwidth, after a trim ÷ after none"
SHARED_QUANTITY = "write bandwidth, one shared file ÷ one file each"
DEPTH_QUANTITY = "direct {engine} read bandwidth, depth {depth} ÷ depth {shallowest}"
FILL_QUANTITY = "buffered read bandwidth, full ÷ filling cache, paired by read"
REACHED_QUANTITY = "buffered reads of {run} during which the cgroup's cache reached full"
FILLING_QUANTITY = "buffered reads of {run} that began below full and filled the cgroup's cache while they ran"
DIRTY_LEFT_SHARE = 0.05  # of the cgroup's limit: dirty pages a buffered write leaves to the next step
DIRTY_QUANTITY = "buffered writes of {run} leaving dirty pages to the next step"
RECEIVED_QUANTITY = "steps of {run}, {side}, that began with a buffered write's dirty pages"
# buffered ÷ direct: measure -> (column of data.get_steps, unit)
MODE_RATIOS = {"bandwidth": ("bw_mib_s", "MiB/s"), "coefficient of variation": ("cv", "1"),
               "fio system CPU per GiB": ("fio_sys_cpu_s_per_gib", "CPU-s/GiB")}
MODE_MEASURES = {"bw_mib_s": "bandwidth (MiB/s)", "cv": "coefficient of variation per second",
                 "fio_sys_cpu_s_per_gib": "fio system CPU (s/GiB)",
                 "cgroup_pgpgout_per_gib": "cgroup pgpgout (events/GiB)"}
READ_MEASURES = {"bw_mib_s": "bandwidth (MiB/s)", "clat_mean_ms": "completion latency (ms)",
                 "fio_sys_cpu_s_per_gib": "fio system CPU (s/GiB)"}
# The labels that name a configuration the collector measures again at the end of a run (drift_check=end).
END_BASELINE_CONFIG = ["phase", "mode", "ioengine", "iodepth", "layout", "trim"]
SIDES = ["sample_steps", "baseline_steps"]  # the steps behind each side of a comparison row


def _steps(part: pd.DataFrame) -> tuple:
    return tuple(part.step) if "step" in part else ()


def estimates(df: pd.DataFrame, by: list[str], measures: dict[str, str]) -> pd.DataFrame:
    """Per group of `by` and measure (`measures`: column -> name shown), the geometric mean over the rounds
    with its interval (evidence.estimate), long format: repetitions, mean, low, high; no interval where the
    rounds cannot tell (evidence.as_shown)."""
    rows = []
    for keys, part in df.groupby(by, sort=True) if len(df) else ():
        for column, name in measures.items():
            values = part[column].dropna().to_numpy(dtype=float)
            if not len(values):
                continue
            e = evidence.as_shown(evidence.estimate(values, quantity=name, unit="", replicate=Replicate.ROUND))
            rows.append({**dict(zip(by, keys if isinstance(keys, tuple) else (keys,))), "measure": name,
                         "repetitions": e.n, "mean": e.value, "low": np.nan if e.low is None else e.low,
                         "high": np.nan if e.high is None else e.high})
    return pd.DataFrame(rows, columns=[*by, "measure", "repetitions", "mean", "low", "high"])


def compare_modes(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, phase and measure (MODE_RATIOS: fio's bandwidth, the coefficient of variation of its
    bucket means, fio's system CPU-seconds per GiB): buffered over direct, rounds as units, a run's
    comparisons one family (runs of different designs never pooled)."""
    rows = []
    for (run_id, phase), part in steps.groupby(["run_id", "phase"], sort=True) if len(steps) else ():
        buffered, direct = part[part["mode"] == "buffered"], part[part["mode"] == "direct"]
        for measure, (column, unit) in MODE_RATIOS.items() if len(buffered) and len(direct) else ():
            rows.append({"run_id": run_id, "phase": phase, "measure": measure, "record": evidence.compare(
                buffered[column].to_numpy(), direct[column].to_numpy(),
                quantity=MODE_QUANTITY.format(phase=phase, measure=measure), unit=unit, replicate=Replicate.ROUND,
                family=f"{run_id}: buffered ÷ direct", label=f"buffered {phase}s", baseline_label=f"direct {phase}s"),
                "sample_steps": _steps(buffered), "baseline_steps": _steps(direct)})
    return pd.DataFrame(rows, columns=["run_id", "phase", "measure", "record", *SIDES])


def mode_record(modes: pd.DataFrame, run_id: str, phase: str, measure: str):
    """One buffered ÷ direct comparison of compare_modes (its record)."""
    return modes.set_index(["run_id", "phase", "measure"]).record[(run_id, phase, measure)]


def mode_costs(steps: pd.DataFrame, reclaim: pd.DataFrame) -> pd.DataFrame:
    """Buffered and direct per run and phase: fio bandwidth, the coefficient of variation of the bucket
    means, fio's system CPU-seconds per GiB and the cgroup's pgpgout events per GiB moved, each estimated
    over the rounds (estimates)."""
    df = steps.merge(reclaim[["run_id", "step_index", "cgroup_pgpgout_events"]], on=["run_id", "step_index"],
                     how="left")
    df["cgroup_pgpgout_per_gib"] = df.cgroup_pgpgout_events / df.gib
    return estimates(df, ["run_id", "phase", "mode"], MODE_MEASURES)


def read_settings(depth: pd.DataFrame, ahead: pd.DataFrame) -> pd.DataFrame:
    """Sequential read bandwidth by setting (data.get_fio_results of the queue-depth and the readahead runs), geometric
    mean over the rounds with its interval (estimates): the queue-depth runs' direct reads per engine and iodepth beside
    their buffered psync read at depth 1, and the readahead runs' buffered reads of the loop device per read-ahead (KiB)
    beside its direct read at depth 1. `series` names the line; `value` the varied setting (iodepth or KiB)."""
    frames = []
    if not depth.empty:
        depth = depth[depth.phase == "read"].copy()
        depth["series"] = np.where(depth["mode"] == "direct", "direct " + depth.ioengine, "buffered psync, depth 1")
        depth["value"] = np.where(depth["mode"] == "direct", depth.iodepth.astype(float), np.nan)
        frames.append(depth.assign(experiment="queue-depth"))
    if not ahead.empty:
        ahead = ahead[ahead.phase == "read"].copy()
        ahead["series"] = np.where(ahead["mode"] == "direct", "direct psync, depth 1", "buffered psync")
        ahead["value"] = pd.to_numeric(ahead.readahead_kb).astype("Int64")
        frames.append(ahead.assign(experiment="readahead"))
    if not frames:
        return pd.DataFrame(columns=["run_id", "experiment", "series", "value", "measure", "repetitions", "mean",
                                     "low", "high"])
    df = pd.concat(frames, ignore_index=True)
    df["value"] = df["value"].astype(float)  # NaN: the reference series has no varied value
    df["value_key"] = df["value"].fillna(-1)
    out = estimates(df, ["run_id", "experiment", "series", "value_key"], READ_MEASURES)
    out["value"] = out.pop("value_key").replace(-1, np.nan)
    return out


def compare_depths(depth: pd.DataFrame) -> pd.DataFrame:
    """Per queue-depth run and engine, direct read bandwidth at each deeper iodepth over the shallowest, rounds as
    units; the run's depths of both engines one family, so that picking the best depth pays for the choice."""
    columns = ["run_id", "ioengine", "iodepth", "shallowest", "sample_mean", "record", *SIDES]
    if depth.empty or "ioengine" not in depth:
        return pd.DataFrame(columns=columns)
    reads = depth[(depth.phase == "read") & (depth["mode"] == "direct")].assign(
        iodepth=lambda d: d.iodepth.astype(int))
    rows = []
    for (run_id, engine), part in reads.groupby(["run_id", "ioengine"], sort=True):
        shallowest = part.iodepth.min()
        baseline = part[part.iodepth == shallowest]
        for d, deep in part[part.iodepth > shallowest].groupby("iodepth", sort=True):
            rows.append({"run_id": run_id, "ioengine": engine, "iodepth": d, "shallowest": int(shallowest),
                         "sample_mean": evidence.geometric_mean(deep.bw_mib_s), "record": evidence.compare(
                             deep.bw_mib_s.to_numpy(), baseline.bw_mib_s.to_numpy(),
                             quantity=DEPTH_QUANTITY.format(engine=engine, depth=d, shallowest=shallowest),
                             unit="MiB/s", replicate=Replicate.ROUND, family=f"{run_id}: direct reads by queue depth",
                             label=f"{engine} at depth {d}", baseline_label=f"{engine} at depth {shallowest}"),
                         "sample_steps": _steps(deep), "baseline_steps": _steps(baseline)})
    return pd.DataFrame(rows, columns=columns)


def trim_recovery(buckets: pd.DataFrame) -> pd.DataFrame:
    """The trim runs' sequential writes after a trim or none: per run, condition and second, the geometric
    mean bandwidth over the rounds with its interval (estimates)."""
    if "trim" not in buckets:
        return estimates(pd.DataFrame(columns=["run_id", "trim", "t_s", "mib_s"]), ["run_id", "trim", "t_s"], {})
    return estimates(buckets[buckets.phase == "write"], ["run_id", "trim", "t_s"], {"mib_s": "bandwidth (MiB/s)"})


def compare_groups(df: pd.DataFrame, by: list[str], label: str, sample: str, baseline: str, column: str,
                   quantity: str, unit: str = "MiB/s") -> pd.DataFrame:
    """Per group of `by` (its first key the run): `column` of the rows whose `label` is `sample` over those
    whose label is `baseline`, rounds as units, a run's comparisons of one quantity one family."""
    rows = []
    for keys, part in df.groupby(by, sort=True) if len(df) else ():
        keys = keys if isinstance(keys, tuple) else (keys,)
        a, b = part[part[label] == sample], part[part[label] == baseline]
        if a.empty or b.empty:
            continue
        rows.append({**dict(zip(by, keys)), "record": evidence.compare(
            a[column].to_numpy(), b[column].to_numpy(), quantity=quantity, unit=unit, replicate=Replicate.ROUND,
            family=f"{keys[0]}: {quantity}", label=" ".join(str(k) for k in (*keys[1:], sample)),
            baseline_label=" ".join(str(k) for k in (*keys[1:], baseline))),
            "sample_steps": _steps(a), "baseline_steps": _steps(b)})
    return pd.DataFrame(rows, columns=[*by, "record", *SIDES])


def trim_effect(buckets: pd.DataFrame, first_s: float) -> pd.DataFrame:
    """Write bandwidth after a trim over that after none, per run, for the first `first_s` seconds and
    for the whole step: per round the mean of its buckets, then compare_groups."""
    if "trim" not in buckets:
        return compare_groups(pd.DataFrame(columns=["run_id", "window", "trim", "mib_s"]), ["run_id", "window"],
                              "trim", "trim", "none", "mib_s", TRIM_QUANTITY)
    after = buckets[buckets.phase == "write"]
    rows = []
    for window, part in [(f"first {first_s:g} s", after[after.t_s < first_s]), ("whole step", after)]:
        per_rep = part.groupby(["run_id", "trim", "repetition"]).agg(mib_s=("mib_s", "mean"), step=("step", "first"))
        rows.append(per_rep.reset_index().assign(window=window))
    return compare_groups(pd.concat(rows, ignore_index=True), ["run_id", "window"], "trim", "trim", "none", "mib_s",
                          TRIM_QUANTITY)


def compare_shared(writes: pd.DataFrame) -> pd.DataFrame:
    """The shared-file runs' writes (data.get_fio_results, every writer summed): per run and mode, one file shared by
    the writers over one file per writer (compare_groups)."""
    if writes.empty:
        writes = pd.DataFrame(columns=["run_id", "mode", "layout", "bw_mib_s"])
    return compare_groups(writes, ["run_id", "mode"], "layout", "shared", "per-file", "bw_mib_s", SHARED_QUANTITY)


def configuration_name(labels: dict) -> str:
    """A configuration as a reader names it, from its END_BASELINE_CONFIG labels: 'direct reads', 'buffered per-file
    writes', 'buffered reads, psync at depth 1', 'direct writes after no trim'."""
    name = " ".join(str(labels[c]) for c in ("mode", "layout") if c in labels)
    name += f" {labels['phase']}s" if "phase" in labels else ""
    if "ioengine" in labels:
        name += f", {labels['ioengine']}" + (f" at depth {labels['iodepth']}" if "iodepth" in labels else "")
    if "trim" in labels:
        name += " after no trim" if labels["trim"] == "none" else f" after a {labels['trim']}"
    return name.strip()


def compare_end_baseline(during: pd.DataFrame, end: pd.DataFrame) -> pd.DataFrame:
    """Drift (comparison.drift): per run and configuration measured again at the end (END_BASELINE_CONFIG; `end`:
    data.get_fio_results(..., end_baseline=True)), its bandwidth, all jobs summed, over that configuration's rounds
    during the run (`during`), a family per run; with the run's experiment and the configuration as text. The end
    step is never among the rounds."""
    rows = []
    config = [c for c in END_BASELINE_CONFIG if c in end]
    for _, last in end.groupby(["run_id", *config], dropna=False, sort=True) if len(end) else ():
        first = last.iloc[0]
        keys = {c: first[c] for c in config if not pd.isna(first[c])}
        match = during.run_id == first.run_id
        for c, v in keys.items():
            match &= during[c] == v if c in during else False
        base = during[match]
        if base.empty:
            continue
        configuration = configuration_name(keys)
        rows.append({"run_id": first.run_id, "experiment": first.get("experiment", DEFAULT_EXPERIMENT),
                     "configuration": configuration, "record": comparison.drift(
                         last.bw_mib_s, base.bw_mib_s, what="bandwidth", unit="MiB/s", configuration=configuration,
                         run_id=first.run_id), "sample_steps": _steps(last), "baseline_steps": _steps(base)})
    out = pd.DataFrame(rows, columns=["run_id", "experiment", "configuration", "record", *SIDES])
    return out.assign(experiment=out.experiment.fillna(DEFAULT_EXPERIMENT))


def paired_reads(steps: pd.DataFrame) -> pd.DataFrame:
    """The buffered reads with seconds both while the cgroup's cache filled and once it was full: compare_fill's pairs."""
    return steps[steps.full_mib_s.notna() & steps.filling_mib_s.notna()]


def median_seconds(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run, the median seconds its paired reads (paired_reads) spent filling the cgroup's cache and full: what a
    run's ratio rests on (one full second in a read of five is thin ground)."""
    return paired_reads(steps).groupby("run_id")[["filling_buckets", "full_buckets"]].median()


def compare_fill(steps: pd.DataFrame) -> pd.DataFrame:
    """Per run (each collector run its own experiment, never pooled), buffered read bandwidth once the cgroup's cache
    was full over while it was filling, paired by read: each read that had seconds in both states gives one ratio of
    its bucket means (a read that was full throughout, or whose filling seconds all lie across the moment it got full,
    is in no pair), tested against 1 (compare_to_reference: the one-sample t of the log ratios). A read's filling
    seconds are always its first: both sides of a pair are the same read."""
    rows = []
    for run_id, part in steps.groupby("run_id", sort=True) if len(steps) else ():
        paired = paired_reads(part)
        if not len(paired):
            continue
        record = evidence.compare_to_reference(
            (paired.full_mib_s / paired.filling_mib_s).to_numpy(), 1.0, quantity=FILL_QUANTITY, unit="MiB/s",
            replicate=Replicate.ROUND, family=f"{run_id}: cache", label="seconds with the cache full",
            reference_label="the same read's seconds while it filled")
        rows.append({"run_id": run_id, "experiment": part.experiment.iloc[0], "record": record,
                     "sample_steps": _steps(paired), "baseline_steps": _steps(paired)})
    return pd.DataFrame(rows, columns=["run_id", "experiment", "record", *SIDES])


def fill_counts(steps: pd.DataFrame) -> dict:
    """Per run, a census of its buffered reads: (how many brought the cgroup's cache to FULL_SHARE of its limit,
    REACHED_QUANTITY; how many began below it and got there while they ran, FILLING_QUANTITY). A read that began full
    reached it without filling it; one whose filling seconds all lie across the moment still filled it."""
    counts = {}
    for run_id, part in steps.groupby("run_id", sort=True) if len(steps) else ():
        full = FULL_SHARE * part.memory_limit_mib
        reached = part.cache_peak_mib >= full
        counts[run_id] = (
            evidence.count(int(reached.sum()), len(part), quantity=REACHED_QUANTITY.format(run=run_id),
                           of=Replicate.ROUND),
            evidence.count(int((reached & (part.cache_start_mib < full)).sum()), len(part),
                           quantity=FILLING_QUANTITY.format(run=run_id), of=Replicate.ROUND))
    return counts


def dirty_counts(left: pd.DataFrame) -> dict:
    """Per run, a census of its buffered writes (data.get_dirty_left): how many left more than DIRTY_LEFT_SHARE of the
    cgroup's limit dirty for the next step (DIRTY_QUANTITY)."""
    return {run_id: evidence.count(int((part.dirty_mib > DIRTY_LEFT_SHARE * part.memory_limit_mib).sum()), len(part),
                                   quantity=DIRTY_QUANTITY.format(run=run_id), of=Replicate.CENSUS)
            for run_id, part in left.groupby("run_id", sort=True)}


def touched(left: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """The comparison rows (`rows`, with the steps of each side) a side of which holds a step that began with more than
    DIRTY_LEFT_SHARE of the cgroup's limit dirty (data.get_dirty_left): per row, how many of each side's steps did, as
    a census of each side (RECEIVED_QUANTITY). `paired`: both sides are the same reads, counted once (`baseline`
    None)."""
    columns = ["run_id", "kind", "record", "paired", "sample", "baseline"]
    received = left[left.dirty_mib > DIRTY_LEFT_SHARE * left.memory_limit_mib].groupby("run_id").next_step.agg(set)
    out = []
    for row in rows.itertuples() if len(received) else ():
        began = received.get(row.run_id, set())
        sample, baseline = set(row.sample_steps), set(row.baseline_steps)
        if not began & (sample | baseline):
            continue
        paired = sample == baseline
        names = {"sample": "reads paired" if paired else row.record.label, "baseline": row.record.baseline_label}
        counts = {side: evidence.count(len(began & steps), len(steps), of=Replicate.CENSUS,
                                       quantity=RECEIVED_QUANTITY.format(side=names[side], run=row.run_id))
                  for side, steps in (("sample", sample), ("baseline", baseline))}
        out.append({"run_id": row.run_id, "kind": row.kind, "record": row.record, "paired": paired,
                    "sample": counts["sample"], "baseline": None if paired else counts["baseline"]})
    return pd.DataFrame(out, columns=columns)


def reads_by_run(results: pd.DataFrame) -> pd.DataFrame:
    """The modes runs' sequential reads (data.get_fio_results) per run and mode: rounds, geometric mean bandwidth with
    its interval (estimates), and the mean of fio's completion latency per 1 MiB request (ms), which sets a direct psync
    read's bandwidth (one request in flight)."""
    columns = ["run_id", "mode", "repetitions", "mean", "low", "high", "clat_mean_ms"]
    if results.empty:
        return pd.DataFrame(columns=columns)
    reads = results[results.phase == "read"]
    bw = estimates(reads, ["run_id", "mode"], {"bw_mib_s": "bandwidth (MiB/s)"})
    clat = reads.groupby(["run_id", "mode"]).clat_mean_ms.mean().reset_index()
    return bw.merge(clat, on=["run_id", "mode"])[columns]
