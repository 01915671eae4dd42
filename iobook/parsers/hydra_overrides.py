"""Hydra's overrides.yaml of a DLIO run: the command line's overrides, one YAML list item each.

An override is "[+|++|~]key=value" (Hydra's override grammar): DLIO's runs choose their workload so
("workload=unet3d_a100", whose name says the accelerator type the config does not) and set the rest as
"++workload.dataset.num_files_train=252000". Read for what config.yaml lacks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed

FORMAT_NAME = "hydra-overrides"
WHAT = "Hydra overrides.yaml"
OVERRIDE = re.compile(r"(\+\+|\+|~)?([\w./@-]+)(?:=(.*))?", re.S)  # Hydra: a deletion (~key) may have no value
ITEM_LINE = re.compile(r"- [+~]{0,2}[\w./@-]+=")
WORKLOAD_LINE = re.compile(r"(?:^|\n)- workload=\w")  # DLIO's workload choice: what tells a DLIO run's overrides
DETECT_LINES = 64  # a DLIO run's overrides are ~10 lines


@dataclass(frozen=True, kw_only=True)
class HydraOverride:
    TABLE: ClassVar[str] = "raw_hydra_overrides"
    position: int  # 1-based, in command-line order
    prefix: str  # '' (set), '+' (add), '++' (add or set), '~' (delete)
    key: str  # e.g. 'workload', 'workload.dataset.num_files_train'
    value: str | None


def _detect(head: str) -> bool:
    lines = [ln for ln in head.split("\n", DETECT_LINES)[:DETECT_LINES] if ln.strip()]
    return (bool(lines) and all(ITEM_LINE.match(ln) for ln in lines)
            and WORKLOAD_LINE.search(head) is not None)


def parse(text: str) -> Parsed:
    import yaml  # here: an ingest that meets no YAML should not pay for the import

    try:
        items = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.MarkedYAMLError as e:
        raise ParseError(f"invalid {WHAT}: {e.problem}", e.problem_mark.line + 1 if e.problem_mark else None) from None
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as e:
        raise ParseError(f"{WHAT} unreadable: {type(e).__name__}") from None
    if not isinstance(items, list) or not items:
        raise ParseError(f"{WHAT} is not a list of overrides", 1)
    records = []
    for position, item in enumerate(items, 1):
        m = OVERRIDE.fullmatch(item) if isinstance(item, str) else None
        if m is None:
            raise ParseError(f"{WHAT}: item {position} is {item!r:.60}, not [+|++|~]key=value", position)
        records.append(HydraOverride(position=position, prefix=m[1] or "", key=m[2], value=m[3]))
    return Parsed(format=FORMAT_NAME, tool="dlio", tool_version=None, records=records)


FORMATS = (Format(name=FORMAT_NAME, tool="dlio", detect=_detect, parse=parse),)
RECORDS = (HydraOverride,)
