"""fio's bw, iops and lat logs (write_bw_log, write_iops_log, write_lat_log): their samples as an Arrow table of
fio_records.FioLogSample (bulk rows: no Python object a line)."""
from __future__ import annotations

import io
import re

import pyarrow as pa
import pyarrow.csv as pa_csv

from . import DETECT_BYTES, Format, ParseError, Parsed, first_line
from .fio_records import FioLogSample

# fio's per-job logs: "time_ms, value, ddir, bs[, offset[, prio]]", integers only (fio 2.x writes
# four columns, 3.x five, six with log_prio). Which log (bw, iops, clat, slat, lat) a file is
# cannot be told from its numbers; the view takes it from the file name fio gave it.
LOG_LINE = r"\d+(?:, ?\d+){3,5}"
LOG_DETECT_LINES = 1000  # a log is uniform: its first lines tell
LOG_COLUMNS = ("t_ms", "value", "direction_code", "bs", "offset_bytes", "prio")


def _detect_log(head: str) -> bool:
    if not head[:1].isdigit():  # the first line must be a log line: no need to split a 1 MiB head into lines
        return False
    lines = head.splitlines()[:LOG_DETECT_LINES + 1]
    if len(lines) > LOG_DETECT_LINES or len(head) >= DETECT_BYTES:
        lines = lines[:-1]  # the last line of a cut head may be partial
    return bool(lines) and all(re.fullmatch(LOG_LINE, ln) for ln in lines)


def parse_log(text: str) -> Parsed:
    return Parsed(format="fio-log", tool="fio", tool_version=None,
                  tables={FioLogSample: log_table(text, log_columns(text))})


def log_columns(text: str) -> int:
    """How many columns a log has, from its first line (4 to 6)."""
    ncols = first_line(text).count(",") + 1
    if not 4 <= ncols <= 6:
        raise ParseError(f"fio log lines have 4 to 6 integer columns, this one has {ncols}", 1)
    return ncols


def log_table(text: str, ncols: int, first_line: int = 1) -> pa.Table:
    """The rows of whole log lines of `ncols` columns (the first at line `first_line` of its file: ingest
    streams a large log in pieces), checked and converted by Arrow; the first bad line fails it."""
    data = text.encode()
    names = LOG_COLUMNS[:ncols]
    table = None
    if _only_log_lines(data):  # then Arrow's int64 columns check the rest: their count, and the range
        try:
            table = pa_csv.read_csv(io.BytesIO(data), pa_csv.ReadOptions(column_names=names, use_threads=False),
                                    convert_options=pa_csv.ConvertOptions(column_types=dict.fromkeys(names, pa.int64())))
        except pa.ArrowInvalid:
            pass
    if table is None:
        _fail_at_bad_line(text, ncols, first_line)
    return table


def _only_log_lines(data: bytes) -> bool:
    """Whether `data` holds only lines of unsigned integers separated by "," or ", ": the check that a
    regex over the whole text made, which took ~30 bytes of memory a byte of log (backtracking state)."""
    bare = data.replace(b", ", b",")
    return not (bare.translate(None, b"0123456789,\n") or bare.startswith((b"\n", b",")) or b"\n\n" in bare
                or b",," in bare or b",\n" in bare or b"\n," in bare or bare.endswith(b","))


def _fail_at_bad_line(text: str, ncols: int, first_line: int) -> None:
    """Raise for the first line that is not `ncols` integers, or holds one past BIGINT."""
    line_re = re.compile(r"\d+" + r", ?\d+" * (ncols - 1), re.ASCII)
    lines = text.split("\n")
    lines = lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines
    for n, line in enumerate(lines, first_line):
        if not line_re.fullmatch(line):
            raise ParseError(f"not a fio log line of {ncols} integers: {line[:60]!r}", n)
        if any(int(v) >= 2**63 for v in line.split(",")):
            raise ParseError(f"a number past the 64-bit integer range: {line[:60]!r}", n)
    raise ParseError("fio log lines Arrow cannot read as integers", first_line)  # each line passed: not seen


FORMATS = (Format(name="fio-log", tool="fio", detect=_detect_log, parse=parse_log),)
