"""The page-cache study's sentences: records in, Markdown out (names from the data escaped), each finding with the
records its numbers rest on."""
from __future__ import annotations

import pandas as pd

from ...book import comparison, present
from ...book.report import Finding, Prose
from ...inference import evidence
from ...inference.evidence import Replicate
from .analysis import DIRTY_LEFT_SHARE
from .data import FULL_SHARE


def modes_finding(record, limit_mib: float) -> Finding:
    """The chapter's first finding: how much more buffered writes swing than direct ones in the modes run read."""
    return Finding(text=f"In the VM, buffered writes under a {limit_mib:,.0f} MiB cgroup varied second to second "
                        f"{evidence.phrase(record)} as much as direct ones", target="tab-pagecache-modes",
                   evidence=(record,))


def fill_finding(compared: pd.DataFrame, counts: dict, idle_max_pct: float) -> Finding:
    """Buffered reads once the cgroup's cache was full over while it filled, per run, paired by read, with how many of
    its reads reached full and how many filled it while they ran; the confound of a read's first seconds, and the
    machine's saturation, which leaves load neither excluded nor measured."""
    per_run = "; ".join(f"{present.md_escape(r.experiment)} run: {evidence.phrase(counts[r.run_id][0])} reached full, "
                        f"{evidence.phrase(counts[r.run_id][1])} filled it while they ran; full ÷ filling "
                        f"{evidence.phrase(r.record)}" for r in compared.itertuples())
    text = (f"Buffered reads ran faster once fio's cgroup cache was full ({FULL_SHARE:.0%} of its limit) than while "
            f"it filled, read by read: {per_run}. Filling is always a read's first seconds, when fio ramps up and "
            f"read-ahead grows, so those may make the difference as well as the cache; the CPUs were never idle (at "
            f"most {idle_max_pct:.0f} %), so load is neither excluded nor measured as a cause")
    records = (*compared.record, *(c for r in compared.run_id for c in counts[r]))
    return Finding(text=text, target="fig-pagecache-fill", evidence=records)


def _received(row) -> str:
    """Which steps of one comparison began with a buffered write's dirty pages, on each side."""
    record, sample, baseline = row.record, row.sample, row.baseline
    if row.paired:
        return f"{sample.k} of the {sample.n} reads paired for full ÷ filling"
    if row.kind == "drift":
        return (f"the drift check of {record.label.removesuffix(' at the end')} ({sample.k} of {sample.n} at the end, "
                f"{baseline.k} of {baseline.n} during)")
    return f"{sample.k} of {sample.n} {record.label} against {baseline.k} of {baseline.n} {record.baseline_label}"


def dirty_finding(counts: dict, left: pd.DataFrame, touched: pd.DataFrame) -> Finding:
    """What buffered writes, which end without fsync, left dirty for the step after them, per run, and the comparisons
    whose steps began with that write-back (analysis.touched), side by side."""
    experiment = left.groupby("run_id").experiment.first()
    most = left.groupby("run_id").dirty_mib.max()
    per_run = " and ".join(f"after {evidence.phrase(c)} of the {present.md_escape(experiment[run])} run's buffered "
                           f"writes (up to {most[run]:,.0f} MiB)" for run, c in counts.items())
    text = (f"Buffered writes end without fsync, so what they leave dirty is written back during the next step: more "
            f"than {DIRTY_LEFT_SHARE:.0%} of the cgroup's limit {per_run}")
    if len(touched):
        parts = dict.fromkeys(_received(row) for row in touched.itertuples())
        text += f". That write-back ran into {present.md_escape('; '.join(parts))}"
    records = (*counts.values(), *(c for side in ("sample", "baseline") for c in touched[side] if c is not None))
    return Finding(text=text, target="tab-pagecache-dirty", evidence=records)


def depth_finding(depths: pd.DataFrame) -> Finding:
    """Direct reads at each deeper queue depth over the shallowest, as a range (comparison.range_sentence), and the best
    depth's comparison: the best is chosen after the fact, so it is decided with the whole family."""
    records = list(depths.record)
    best = depths.loc[depths.sample_mean.idxmax(), "record"]
    shallowest = int(depths.shallowest.min())
    lead = ("Queue depth made a decided difference to" if any(r.decided for r in records)
            else "Queue depth made no decided difference to")
    text = (f"{lead} direct reads on this VM's virtual disk: deeper against depth {shallowest}, "
            f"{comparison.range_sentence(records)}; the best, {present.md_escape(best.label)}: {evidence.phrase(best)}")
    return Finding(text=text, target="fig-pagecache-reads", evidence=tuple(records))


def trim_target_text(target: pd.Series) -> str:
    """The trimmed device as the manifest records it: '/dev/loop0, a loop device over an image file of 8G in ext4
    on /dev/vda' (plain text)."""
    return (f"{target.loop_device}, a loop device over an image file of {target.image_size} in "
            f"{target.image_filesystem} on {target.image_device}")


def trim_finding(record, target: pd.Series, first_s: float) -> Finding:
    """Write bandwidth right after a trim over after none (an analysis.trim_effect record), said to be the backing
    file system's work: a trim of a loop device (`target`, a data.get_trim_targets row) punches holes in its image
    file, which the writes after it must allocate again."""
    text = (f"In the first {first_s:g} s after a trim of {present.md_escape(trim_target_text(target))}, writes ran at "
            f"{evidence.phrase(record)} the write bandwidth after none: the trim punches holes in the image file, so "
            f"this measures {present.md_escape(target.image_filesystem)} allocating them again, not an SSD's garbage "
            "collection")
    return Finding(text=text, target="fig-pagecache-trim", evidence=(record,))


def shared_finding(records: dict, writers: int) -> Finding:
    """N writers to one shared file over one file each, per mode."""
    text = "; ".join(f"{writers} {mode} writers to one shared file: {evidence.phrase(r)} the bandwidth of one file each"
                     for mode, r in records.items())
    return Finding(text=text, target="fig-pagecache-shared", evidence=tuple(records.values()))


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
    """Buffered ÷ direct reads of each modes run, side by side (each run decided within itself)."""
    return Prose("; ".join(f"{present.md_escape(r.run_id)} ({present.md_escape(r.status)}): {evidence.phrase(r.record)}"
                           for r in side.itertuples()))


def drift_text(drift: pd.DataFrame) -> Prose:
    """Every run's drift check: its configuration and the end ÷ during record."""
    return Prose("; ".join(f"{present.md_escape(r.run_id)}, {present.md_escape(r.configuration)}: "
                           f"{evidence.phrase(r.record)}" for r in drift.itertuples()))
