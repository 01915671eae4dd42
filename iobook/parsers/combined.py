"""One log holding both IOR's and mdtest's output: a site's own IO500 driver that wrote every phase into
one file (e.g. Janelia's 2019 `output.txt`, with `[IOR EASY WRITE]` ... `[MDTEST HARD DELETE]` sections).

Each tool's parser already skips the other's lines, so the file yields both tools' records.
"""
from __future__ import annotations

from . import Format, Parsed, ior_text, mdtest

RECORDS: tuple = ()  # the records are IOR's and mdtest's own


def _detect(head: str) -> bool:
    return ior_text.detect_text(head) and mdtest.detect_log(head)


def parse(text: str) -> Parsed:
    ior_part, mdtest_part = ior_text.parse_text(text), mdtest.parse_log(text)
    return Parsed(format="ior+mdtest-text", tool="ior+mdtest",
                  tool_version=f"{ior_part.tool_version} + {mdtest_part.tool_version}",
                  records=ior_part.records + mdtest_part.records)


FORMATS = (Format(name="ior+mdtest-text", tool="ior+mdtest", detect=_detect, parse=parse),)
