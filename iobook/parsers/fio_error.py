"""fio's own error output: the lines fio prints alone when it refuses its options or job file (fio-error), read as
the file's failure with fio's message."""
from __future__ import annotations

import re

from . import Format, ParseError, Parsed, first_line

# fio refusing its options or job file prints only these lines (e.g. "fio: failed parsing rw=wriet",
# "fio: unrecognized option '--badopt=1'", "Bad option <x=7>" then "fio: job job1 dropped") and no job.
ERROR_LINE = re.compile(r"^(?:fio: .+|Bad option <.*>)$", re.M)


def _detect_error(head: str) -> bool:
    return bool(ERROR_LINE.fullmatch(first_line(head.lstrip())))


def parse_error(text: str) -> Parsed:
    """A failed fio run: fio's own message (its distinct error lines, in order) at the first one's line."""
    found = list(ERROR_LINE.finditer(text))
    if not found:
        raise ParseError("no fio error line ('fio: ...' or 'Bad option <...>')", 1)
    message = "; ".join(dict.fromkeys(m.group(0) for m in found))
    raise ParseError(f"fio failed: {message}", text.count("\n", 0, found[0].start()) + 1)


FORMATS = (Format(name="fio-error", tool="fio", detect=_detect_error, parse=parse_error),)
