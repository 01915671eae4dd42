"""The page-cache study's sentences: records in, Markdown out (names from the data escaped), each finding one claim
with the records its numbers rest on (issue 50: at most report.MAX_FINDING_WORDS words; what a claim's setup and
caveats are, the section it points to says, from the sentences here named `*_text`)."""
from __future__ import annotations

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding, Prose
from ...inference import evidence
from ...inference.evidence import Replicate
from . import analysis
from .analysis import DIRTY_LEFT_SHARE
from .data import FULL_SHARE, SAMPLER_LEAD_S


def scope_text(runs: pd.DataFrame) -> Prose:
    """What the local runs ran on, said once at the top of their part (issue 46: headings presented ext4 on a loop
    device in a VM as Lustre): the file systems and devices of the runs read, the machine, the cgroup, and which
    experiments ran on a loop device over an image file."""
    first = runs.iloc[0]
    where = "; ".join(f"{present.md_escape(fs)} on {present.md_escape(device)}" for fs, device in
                      runs[["target_filesystem", "target_device"]].drop_duplicates().itertuples(index=False))
    limits = present.span(runs.memory_limit_mib.dropna(), ",.0f")
    return Prose(f"Every run below ran fio {{cite:p}}`fio` on the build machine, a VM with {first.cores} virtual CPUs "
                 f"(kernel {present.md_escape(first.kernel)}): its files on {where}, fio in a memory cgroup of "
                 f"{limits} MiB; the `readahead` and `trim` experiments read and write a loop device over an image "
                 "file there. No Lustre, no OSS and no SSD array: what follows demonstrates the method")


def modes_finding(record) -> Finding:
    """The chapter's first finding: how much more buffered writes swing than direct ones in the modes run read, with
    the caveat that changes what it means: a direct write in a VM skips only the guest's cache (direct_writes_text);
    the cgroup's limit is the section's."""
    return Finding(text=f"Buffered writes in a VM swung second to second {evidence.phrase(record)} as much as direct "
                        "ones, which skip only the guest's cache", target="tab-pagecache-modes", evidence=(record,))


def direct_writes_text(steps: pd.DataFrame, device: str) -> Prose:
    """Where a direct write goes in a VM (issue 46: the page named the host's cache for reads only): the direct
    writes' bandwidth range (`steps`: data.get_steps of the modes run read) on the virtual disk `device`."""
    direct = steps[(steps["mode"] == "direct") & (steps.phase == "write")].bw_mib_s
    return Prose(f"Direct writes ran at {direct.min():,.0f}–{direct.max():,.0f} MiB/s on the virtual disk "
                 f"{present.md_escape(device)}. `direct=1` (O_DIRECT) bypasses the guest's page cache only: a host "
                 "that keeps its virtual disks in its own page cache takes a direct write, or serves a direct read, "
                 "from memory. So buffered ÷ direct here sets the guest's cache against the host's, for writes as for "
                 "reads; the runs hold no record of the host's cache mode")


def fill_finding(compared: pd.DataFrame, steps: pd.DataFrame) -> Finding:
    """Buffered reads once the cgroup's cache was full over while it filled, paired by read, per run with the median
    full seconds a read its ratio rests on (one, in a read of five seconds, is thin ground); the caveat that changes
    what it means (filling is always a read's first seconds) stays, the rest is fill_text's."""
    full = analysis.median_seconds(steps).full_buckets
    ratios = evidence.phrases([(f"{present.md_escape(r.experiment)} run (median {full[r.run_id]:.0f} full s a read)",
                                r.record) for r in compared.itertuples()])
    return Finding(text=f"Buffered reads ran faster once fio's cgroup cache was full than while it filled, in their "
                        f"first seconds: {ratios}; those seconds are also fio's start-up",
                   target="fig-pagecache-fill", evidence=tuple(compared.record))


def fill_rule_text(bucket_ms: int) -> Prose:
    """The exact rule that labels a second of a buffered read filling or full (data.get_read_fill), so that a reader
    recomputes the paired ratios from the bandwidth logs and proc files (issue 46: it did not reproduce unstated)."""
    width = bucket_ms / 1000
    early, late = SAMPLER_LEAD_S
    return Prose(f"A bucket [t, t + {width:g}) s of fio's bandwidth log is **filling** when t ≤ f − "
                 f"{1 + width + late:g}, and **full** when t ≥ f − {early:g}, where f is the first second of the "
                 f"sampler's clock (its samples rounded to the whole second) at which the cgroup's `cache` is "
                 f"{FULL_SHARE:.0%} of its limit or more (f = 0 when the read began full; a read that never got there "
                 f"is filling throughout). The sampler starts {early:g} s before its step and fio's clock up to a "
                 "second after the step, so the buckets between are left out")


def fill_text(compared: pd.DataFrame, counts: dict, steps: pd.DataFrame, idle_max_pct: float) -> Prose:
    """What stands behind the paired ratios, run by run: how many reads reached full, how many filled it while they
    ran, how many of those are paired and on how many seconds; then the two confounds (a read's first seconds, a
    saturated machine), which leave load neither excluded nor measured."""
    seconds = analysis.median_seconds(steps)
    per_run = "; ".join(
        f"{present.md_escape(r.experiment)} run: {evidence.phrase(counts[r.run_id][0])} reached full and "
        f"{evidence.phrase(counts[r.run_id][1])} filled it while they ran; {r.record.n} of them have seconds in both "
        f"states and are paired (medians of {seconds.filling_buckets[r.run_id]:.0f} filling and "
        f"{seconds.full_buckets[r.run_id]:.0f} full seconds a read)" for r in compared.itertuples())
    return Prose(f"{per_run}. Filling is always a read's first seconds, when fio starts up and read-ahead grows, so "
                 "those may make the difference as well as the cache; the CPUs were never idle (at most "
                 f"{idle_max_pct:.0f} %), so load is neither excluded nor measured as a cause")


def _received(row) -> str:
    """Which steps of one comparison began with a buffered write's dirty pages, on each side."""
    record, sample, baseline = row.record, row.sample, row.baseline
    if row.paired:
        return f"{sample.k} of the {sample.n} reads paired for full ÷ filling"
    if row.kind == "drift":
        return (f"the drift check of {record.label.removesuffix(' at the end')} ({sample.k} of {sample.n} at the end, "
                f"{baseline.k} of {baseline.n} during)")
    return f"{sample.k} of {sample.n} {record.label} against {baseline.k} of {baseline.n} {record.baseline_label}"


def dirty_finding(counts: dict, left: pd.DataFrame) -> Finding:
    """What buffered writes, which end without fsync, left dirty for the step after them, per run."""
    experiment = left.groupby("run_id").experiment.first()
    most = left.groupby("run_id").dirty_mib.max()
    per_run = " and ".join(f"{evidence.phrase(c)} in the {present.md_escape(experiment[run])} run"
                           for run, c in counts.items())
    return Finding(text=f"Buffered writes end without fsync: {per_run} left the next step more than "
                        f"{DIRTY_LEFT_SHARE:.0%} of the cgroup's limit dirty (up to "
                        f"{' and '.join(f'{most[run]:,.0f}' for run in counts)} MiB) to write back while it ran",
                   target="tab-pagecache-dirty", evidence=tuple(counts.values()))


def touched_text(touched: pd.DataFrame) -> Prose:
    """The comparisons whose steps began with a buffered write's dirty pages (analysis.touched), side by side."""
    if touched.empty:
        return Prose("No step of a comparison began with them")
    parts = dict.fromkeys(_received(row) for row in touched.itertuples())
    return Prose(f"That write-back ran into {present.md_escape('; '.join(parts))}")


def depth_finding(depths: pd.DataFrame) -> Finding:
    """Direct reads at each deeper queue depth over the shallowest, as a range (comparison.range_sentence), and the best
    depth's comparison: the best is chosen after the fact, so it is decided with the whole family."""
    records = list(depths.record)
    best = depths.loc[depths.sample_mean.idxmax(), "record"]
    shallowest = int(depths.shallowest.min())
    lead = ("Queue depth made a decided difference to" if any(r.decided for r in records)
            else "Queue depth made no decided difference to")
    text = (f"{lead} direct reads of the virtual disk: deeper against depth {shallowest}, "
            f"{comparison.range_sentence(records)}; the best, {present.md_escape(best.label)}: {evidence.phrase(best)}")
    return Finding(text=text, target="fig-pagecache-reads", evidence=tuple(records))


def trim_target_text(target: pd.Series) -> str:
    """The trimmed device as the manifest records it: '/dev/loop0, a loop device over an image file of 8G in ext4
    on /dev/vda' (plain text)."""
    return (f"{target.loop_device}, a loop device over an image file of {target.image_size} in "
            f"{target.image_filesystem} on {target.image_device}")


def trim_finding(windows: pd.Series, target: pd.Series) -> Finding:
    """Write bandwidth after a trim over after none (analysis.trim_effect's records by window: the first seconds and
    the whole step, issue 46: the finding left the whole step out), said to be the backing file system's work: a
    trim of a loop device (`target`, a data.get_trim_targets row) punches holes in its image file, which the writes
    after it must allocate again."""
    ratios = evidence.phrases([(window, record) for window, record in windows.items()])
    return Finding(text=f"Write bandwidth after a trim of the loop device over after none: {ratios}: "
                        f"{present.md_escape(target.image_filesystem)} filling the holes the trim punched in its image "
                        "file, not an SSD's garbage collection", target="fig-pagecache-trim", evidence=tuple(windows))


def shared_finding(records: dict, writers: int) -> Finding:
    """N writers to one shared file over one file each, per mode, what the modes share said once."""
    ratios = evidence.phrases([(mode, r) for mode, r in records.items()])
    return Finding(text=f"Bandwidth of {writers} writers to one shared file over one file each: {ratios}",
                   target="fig-pagecache-shared", evidence=tuple(records.values()))


def published_text(share: pd.Series) -> tuple[Prose, tuple]:
    """The talk's profile shares, as printed, and their records (one printed figure each)."""
    off, on = "pagecache passthrough off", "pagecache passthrough on"
    printed = ((off, "Find_or_create_page"), (off, "I/O done by ofd_commitrw"), (on, "I/O done by ofd_commitrw"))
    figures = tuple(evidence.described(share[mode, row], quantity=f"{row}, {mode}", unit="% of profile", n=1,
                                       replicate=Replicate.PUBLISHED, how="one figure the slide prints")
                    for mode, row in printed)
    return Prose(f"The talk's profile of a Lustre 2.12.2 OSS: `find_or_create_page` "
                 f"{share[off, 'Find_or_create_page']:g} %, `ofd_commitrw` {share[off, 'I/O done by ofd_commitrw']:g} %; "
                 f"with LU-11347's passthrough on, `ofd_commitrw` {share[on, 'I/O done by ofd_commitrw']:g} % "
                 "{cite:p}`delbary2019` [one profile each, no spread]"), figures


def runs_text(side: pd.DataFrame) -> Prose:
    """Buffered ÷ direct reads of each modes run, side by side (each run decided within itself), what they share
    said once."""
    return Prose(evidence.phrases([(f"{present.md_escape(r.run_id)} ({present.md_escape(r.status)}):", r.record)
                                   for r in side.itertuples()]))


def drift_text(drift: pd.DataFrame) -> Prose:
    """Every run's drift check: its run (by its experiment where that has one run here), its configuration and the
    end ÷ during record, what they share said once."""
    unique = drift.groupby("experiment").run_id.nunique().max() <= 1
    return Prose(evidence.phrases([(f"{present.md_escape(r.experiment if unique else r.run_id)} run, "
                                    f"{present.md_escape(r.configuration)}:", r.record) for r in drift.itertuples()]))

