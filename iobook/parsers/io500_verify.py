"""`io500 --verify`'s output (io500-verify): the hashes it recomputed and its verdict, as an Io500Verification.
"""
from __future__ import annotations

import re

from . import Format, ParseError, Parsed
from .io500 import Io500Verification

_VERIFY_VERSION = re.compile(r"^result file ver = (\S+)\s*$", re.M | re.I)
_VERIFY_HASH = re.compile(r"^(config|score)-hash\s*=\s*(\S+)\s*$", re.M)
_VERIFY_OK = re.compile(r"^\[OK\]( But this is an invalid run!)?\s*$", re.M)
_VERIFY_ERROR = re.compile(r"^ERROR.*$", re.M)


def _detect_verify(head: str) -> bool:
    return "file ver = " in head and bool(_VERIFY_VERSION.search(head)) and bool(_VERIFY_HASH.search(head))


def parse_verify(text: str) -> Parsed:
    """io500's --verify output: the hashes it recomputed and its verdict. What follows the verdict (mpirun's
    abort banner: io500 exits 1 on an invalid run) is the launcher's, not read."""
    version = _VERIFY_VERSION.search(text)
    hashes = {m[1]: m[2] for m in _VERIFY_HASH.finditer(text)}
    verdict = _VERIFY_OK.search(text) or _VERIFY_ERROR.search(text)
    if verdict is None:
        raise ParseError("io500 --verify output without its verdict ('[OK]' or an ERROR line)",
                         text.count("\n") + 1)
    ok = verdict.re is _VERIFY_OK
    record = Io500Verification(
        result_version=version[1] if version else None, config_hash=hashes.get("config"),
        score_hash=hashes.get("score"), hashes_match=ok, valid=ok and verdict[1] is None,
        message=verdict[0].strip(), line=text.count("\n", 0, verdict.start()) + 1)
    return Parsed(format="io500-verify", tool="io500", tool_version=version[1] if version else None, records=[record])


FORMATS = (Format(name="io500-verify", tool="io500", detect=_detect_verify, parse=parse_verify),)
