"""Log parsers: one module per tool or format, each a pure function from text to typed records.

The contract every parser module follows (see ior_text.py, mdtest.py, fio_json.py, io500_ini.py, ...):

- It defines frozen dataclasses for its records (formats of one tool that give the same records share a
  module of them: IOR's text, JSON and CSV parsers, ior_records; fio's, fio_records; IO500's summaries, io500). Each class names the raw DuckDB table its
  rows go to in a ``TABLE: ClassVar[str]`` attribute; field annotations (int, float, str, bool, optional of
  those) become the table's columns. The store adds a ``source_id`` column in front, so records never
  carry file identity: a record links to its siblings from the same file through local keys
  (e.g. ``test_index``), and the public views in ``iobook/database/views/<tool>.sql`` turn those into ids.
- It exports ``FORMATS`` (a tuple of ``Format``), and ``RECORDS`` (every record class it defines) where it
  defines any.
- ``Format.detect(head)`` looks at the first ``DETECT_BYTES`` characters of a decoded file and says
  whether this format is the one; detection is by content, never by file name.
- ``Format.parse(text)`` returns ``Parsed`` or raises ``ParseError(reason, line)``. It never raises
  anything else on bad input (tests fuzz this), and it does no I/O.
- Bulk rows (fio's bw/iops/lat logs, per-rank CSVs: ~1.3 million rows in the IO500 archive) are returned
  as Arrow tables (``Parsed.tables``, one per record class, columns named as its fields), split, checked
  and converted by pyarrow (``arrow_csv``) from the text that was parsed, not record by record in Python.
- Every real log of every format ends in a newline: a file that does not was cut inside its last line, and
  ingest parses the whole lines before it (then records the cut) rather than the cut line. (A format whose
  files need not, ``Format.ends_in_newline=False``, is parsed whole: its parser tells a cut file.)
- A parser that knows where its tool's output begins or ends (IOR's banner and last result, a JSON
  document) says so in ``Parsed.start`` and ``Parsed.end``; ``parse_outputs`` then reads the text before
  and after it as other outputs (a job script's stdout holds one tool's output after another's).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import pyarrow as pa

DETECT_BYTES = 1 << 20  # some launchers print ~360 KB of noise before the tool's banner


class ParseError(Exception):
    """A log that cannot be read, with the 1-based line where reading stopped (None: whole file)."""

    def __init__(self, reason: str, line: int | None = None, path: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.path = path

    def __str__(self) -> str:
        where = self.path or "<text>"
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self.reason}"


def json_float(value) -> float | None:
    """A JSON number as a float; None for anything else (null, strings, and booleans, which are ints in Python)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True, kw_only=True)
class Parsed:
    format: str  # e.g. "ior-text", "fio-json", "io500-result-summary"
    tool: str  # "ior" | "mdtest" | "fio" | "io500" | ...
    tool_version: str | None
    records: list = field(default_factory=list)
    tables: dict[type, pa.Table] = field(default_factory=dict)  # record class -> its rows, bulk formats
    start: int = 0  # offset where this output began: the text before it was not read by it
    end: int | None = None  # offset where this output ended, when text after it may be another (None: it read all)


@dataclass(frozen=True, kw_only=True)
class Format:
    name: str
    tool: str
    detect: Callable[[str], bool]
    parse: Callable[[str], Parsed]
    # a document a web form wrote (the IO500 questionnaire's JSON) may end without a newline: its parser knows
    # a cut one (JSON that does not close), so the newline rule below does not apply to it
    ends_in_newline: bool = True


# Known by their whole first line, so no other format's file can be one of them. Tried first: a third of
# the IO500 archive's bytes are these CSVs, which the other formats' substring checks would scan whole.
FIRST_LINE_FORMATS = ("ior-csv-summary", "ior-rank-csv", "mdtest-rank-csv", "pfind-csv")


def all_formats() -> tuple[Format, ...]:
    """Every known format, most specific first (the first whose detect() says yes wins)."""
    from . import (combined, dlio_config, dlio_epochs, dlio_log, dlio_summary, fio_error, fio_json, fio_log, fio_terse,
                   fio_text, gpfs, hydra_overrides, io500_bash, io500_ini, io500_sc17, io500_summary, io500_system,
                   io500_verify, ior_csv, ior_json, ior_text, mdtest, mdworkbench, mlperf_report, mlperf_system,
                   monitor, pfind)

    formats = (io500_ini.FORMATS + io500_summary.FORMATS + io500_bash.FORMATS + io500_sc17.FORMATS
               + io500_system.FORMATS + io500_verify.FORMATS + gpfs.FORMATS + combined.FORMATS + ior_json.FORMATS
               + ior_text.FORMATS + ior_csv.FORMATS + mdtest.FORMATS + mdworkbench.FORMATS + fio_json.FORMATS
               + fio_terse.FORMATS + fio_text.FORMATS + fio_log.FORMATS + fio_error.FORMATS + monitor.FORMATS
               + pfind.FORMATS + dlio_summary.FORMATS + dlio_epochs.FORMATS + dlio_config.FORMATS + dlio_log.FORMATS
               + hydra_overrides.FORMATS + mlperf_report.FORMATS + mlperf_system.FORMATS)
    return tuple(sorted(formats, key=lambda f: f.name not in FIRST_LINE_FORMATS))  # stable: the rest keep their order


def all_records() -> tuple[type, ...]:
    from . import (dlio_config, dlio_epochs, dlio_log, dlio_summary, fio_records, gpfs, hydra_overrides, io500,
                   ior_records, mdtest, mdworkbench, mlperf_report, mlperf_system, monitor, pfind)

    return (io500.RECORDS + gpfs.RECORDS + ior_records.RECORDS + mdtest.RECORDS + mdworkbench.RECORDS
            + fio_records.RECORDS + monitor.RECORDS + pfind.RECORDS + dlio_summary.RECORDS + dlio_epochs.RECORDS
            + dlio_config.RECORDS + dlio_log.RECORDS + hydra_overrides.RECORDS + mlperf_report.RECORDS + mlperf_system.RECORDS)


def line_starting(pattern: re.Pattern, text: str) -> bool:
    """Whether `pattern`, which cannot match a newline, matches at the start of a line of `text`: what
    re.search('^' + pattern, text, re.M) says, but a pattern opening with a literal is found by the regex
    engine's scan for it instead of a try at every offset (several times faster over a 1 MiB head)."""
    return any(m.start() == 0 or text[m.start() - 1] == "\n" for m in pattern.finditer(text))


def first_line(text: str) -> str:
    """text.split("\n", 1)[0] without copying the rest of a 1 MiB head."""
    end = text.find("\n")
    return text if end < 0 else text[:end]


def detect(head: str) -> Format | None:
    for fmt in all_formats():
        if fmt.detect(head):
            return fmt
    return None


_BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")


def parse_outputs(fmt: Format, text: str) -> Parsed:
    """Every output of a file: the one `fmt` reads, the one detection finds in the text before where it
    started (Parsed.start), and the ones detection finds in the text after where it ended (Parsed.end).
    Text that is no format's stays unread, as a launcher's noise. An output that does not parse, or that
    holds the records of another (IOR's text and JSON layouts), fails the file with what was left and its
    line: never is a part of the file dropped while the rest loads. Only the tool's own failed run before
    its output is its messages (fio's errors before its JSON report), not another output."""
    main = fmt.parse(text)
    parts = [main]
    before = text[:main.start]
    prior = detect(before[:DETECT_BYTES]) if before.strip() else None
    if prior is not None:
        try:
            parts.insert(0, parse_outputs(prior, before))
        except ParseError as e:
            if prior.tool != fmt.tool:
                line = text.count("\n", 0, main.start) + 1
                raise ParseError(f"{prior.name} output before the {fmt.name} output (line {line}), does not parse: "
                                 f"{e.reason}", e.line) from None
        _no_same_records(parts, f"{prior.name} output before the {fmt.name} output", 1)
    offset = None if main.end is None else _BLANK_LINES.match(text, main.end).end()
    following = detect(text[offset:offset + DETECT_BYTES]) if offset is not None and offset < len(text) else None
    if following is not None:
        line = text.count("\n", 0, offset) + 1
        what = f"{following.name} output from line {line}, after the {main.format} output"
        try:
            after = parse_outputs(following, text[offset:])
        except ParseError as e:
            raise ParseError(f"{what}, does not parse: {e.reason}", line + (e.line or 1) - 1) from None
        parts.append(dataclasses.replace(after, records=[_shifted(r, line - 1) for r in after.records]))
        _no_same_records(parts, what, line)
    if len(parts) == 1:
        return main
    return Parsed(format=main.format, tool=main.tool, tool_version=main.tool_version,
                  records=[r for p in parts for r in p.records],
                  tables={c: t for p in parts for c, t in p.tables.items()})


def _no_same_records(parts: list[Parsed], what: str, line: int) -> None:
    """Two outputs giving records of one class would mix their local keys (test_index, job_index)."""
    seen: set = set()
    for p in parts:
        classes = {*map(type, p.records), *p.tables}
        if seen & classes:
            raise ParseError(f"{what}, holds the same kind of records: not read", line)
        seen |= classes


def _shifted(record, lines: int):
    """A record of an output that starts `lines` lines into the file, its line numbers made the file's."""
    if lines and "line" in getattr(record, "__dataclass_fields__", {}):
        return dataclasses.replace(record, line=record.line + lines)
    return record
