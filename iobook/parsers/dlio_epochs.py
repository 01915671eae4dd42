"""DLIO's per_epoch_stats.json: each epoch's start, end and duration, and those of its steps (block1, ckpt1, ...).

An object keyed by the epoch's number ("1", "2", ...); an epoch holds "start", "end" and "duration" (seconds,
written as a string: "356.48") and one object of the same three per step: DLIO's training blocks ("block1") and
checkpoints ("ckpt1"). Times are the host's local time without a zone, as in summary.json.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, Parsed
from .fields import Fields, load_json

FORMAT_NAME = "dlio-per-epoch-stats"
WHAT = "DLIO per_epoch_stats.json"
START = re.compile(r'\s*\{\s*"\d+"\s*:\s*\{\s*"start"\s*:')  # the first epoch's first key
EPOCH_KEY = re.compile(r"\d{1,9}")
TIME_KEYS = ("start", "end", "duration")


@dataclass(frozen=True, kw_only=True)
class DlioEpoch:
    TABLE: ClassVar[str] = "raw_dlio_epochs"
    epoch: int
    started: str | None  # ISO 8601, the host's local time
    ended: str | None  # none when the run stopped inside the epoch
    duration_s: float | None


@dataclass(frozen=True, kw_only=True)
class DlioEpochStep:
    TABLE: ClassVar[str] = "raw_dlio_epoch_steps"
    epoch: int
    step: str  # DLIO's name: 'block1', 'ckpt1', ...
    started: str | None
    ended: str | None
    duration_s: float | None


def _detect(head: str) -> bool:
    return START.match(head) is not None


def _times(f: Fields, obj: dict) -> dict:
    return {"started": f.string(obj, "start", optional=True), "ended": f.string(obj, "end", optional=True),
            "duration_s": f.number(obj, "duration", optional=True, text_ok=True)}


def parse(text: str) -> Parsed:
    doc = load_json(text, WHAT)
    f = Fields(text, WHAT, '"{}"')
    records: list = []
    for key in doc:
        if not EPOCH_KEY.fullmatch(key):
            f.fail(f"{key[:40]!r} is not an epoch number", key)
        epoch = f.mapping(doc, key)
        records.append(DlioEpoch(epoch=int(key), **_times(f, epoch)))
        records += [DlioEpochStep(epoch=int(key), step=step, **_times(f, f.mapping(epoch, step)))
                    for step in epoch if step not in TIME_KEYS]
    if not records:
        f.fail("no epoch")
    return Parsed(format=FORMAT_NAME, tool="dlio", tool_version=None, records=records)


# written with json.dump, without a final newline: a cut one is JSON that does not close
FORMATS = (Format(name=FORMAT_NAME, tool="dlio", detect=_detect, parse=parse, ends_in_newline=False),)
RECORDS = (DlioEpoch, DlioEpochStep)
