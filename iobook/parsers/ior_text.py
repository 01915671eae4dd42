"""IOR's text output: its logs, IOR 2.10 and 3.1 to 4.1+dev (one or several runs, one or several tests each); its stdout
without a banner (the summaryFile line, or the error of a run that stopped before it); and IOR 2's summary copied
out of a log, which is refused with how it was changed.

Its records are those of ior_records.
"""
from __future__ import annotations

import re

from . import DETECT_BYTES, Format, ParseError, Parsed, detect, line_starting
from .ior_records import ACCESSES, IorIteration, IorSummary, IorTest, derived_nodes, machine_host, orderings

BINARY_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}
COMMAND_SUFFIXES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}

BANNER = re.compile(r"IOR-(\S+): MPI Coordinated Test of Parallel I/O")  # at the start of a line


# --- sizes -------------------------------------------------------------------------------------

PRINTED_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s+(bytes|[KMGTP]iB)\s*")
COMMAND_SIZE = re.compile(r"(\d+)([kmgtp]?)")
INT_PREFIX = re.compile(r"\s*(-?\d+)")


def printed_size(text: str | None) -> tuple[int, bool] | None:
    """'9.46 TiB' -> (bytes, exact?). IOR prints whole units exactly and others rounded to 2 decimals."""
    m = PRINTED_SIZE.fullmatch(text or "")
    if not m:
        return None
    number, unit = m.groups()
    if "." in number:
        return round(float(number) * BINARY_UNITS[unit]), False
    return int(number) * BINARY_UNITS[unit], True


def command_size(command: str | None, letter: str, directive: str) -> int | None:
    """-t/-b as typed: '-t 8m', '-t=4096', '-t8m' or '-O transferSize=1m'; suffixes are powers of 1024."""
    words = (command or "").split()
    value = None
    for i, word in enumerate(words):
        if word == f"-{letter}" and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith(f"-{letter}") and not word.startswith("--"):
            value = word[2:].lstrip("=")
        elif word.startswith(f"{directive}="):
            value = word.split("=", 1)[1]
    m = COMMAND_SIZE.fullmatch((value or "").lower())
    return int(m.group(1)) * COMMAND_SUFFIXES[m.group(2)] if m else None


def exact_size(summary: int | None, printed: str | None, command: int | None) -> tuple[int | None, str | None]:
    """Best byte size and where it came from: summary table, whole printed unit, command line, rounded print."""
    if summary is not None:
        return summary, "summary"
    shown = printed_size(printed)
    if shown and shown[1]:
        return shown[0], "options"
    # Prefer -t/-b from the command line over a rounded "9.46 TiB", but only when they agree: in an
    # -f script the command line may not be what this test used.
    if command is not None and (shown is None or abs(command - shown[0]) <= 0.01 * shown[0]):
        return command, "command"
    return (shown[0], "rounded") if shown else (None, None)


def _number(word: str) -> float | None:
    return None if word == "-" else float(word)


def _int(text: str | None) -> int | None:
    m = INT_PREFIX.match(text or "")
    return int(m.group(1)) if m else None


# --- text logs ---------------------------------------------------------------------------------

RESULTS_HEADER = re.compile(r"^access\s+bw\(MiB/s\)")
RESULT_VALUE = re.compile(r"[-\d.]+|[-+]?(?i:inf|nan)")  # inf/nan rows are read, and refused by ingest
KEY_VALUE = re.compile(r"^([A-Za-z][\w /#()-]*?)\s*:(?:\s+(.*?))?\s*$")  # "tasks               : 200"
OLD_OPTION = re.compile(r"^\t([a-z][a-z ]*?)\s*=\s*(.*?)\s*$")  # IOR 2, 3.1: "\tclients            = 1200 (12 per node)"
ITERATION_COLUMNS = {
    "bw(MiB/s)": "bw_mib_s", "IOPS": "iops", "Latency(s)": "latency_s", "block(KiB)": "block_kib",
    "xfer(KiB)": "xfer_kib", "open(s)": "open_s", "wr/rd(s)": "wrrd_s", "close(s)": "close_s",
    "total(s)": "total_s",
}
SUMMARY_COLUMNS = {
    "Max(MiB)": "bw_max_mib_s", "Min(MiB)": "bw_min_mib_s", "Mean(MiB)": "bw_mean_mib_s",
    "Max(OPs)": "ops_max", "Min(OPs)": "ops_min", "Mean(OPs)": "ops_mean", "Mean(s)": "mean_time_s",
    "Stonewall(s)": "stonewall_time_s", "Stonewall(MiB)": "stonewall_bw_mib_s",
}


# IOR 2.x prints its summary table without "Summary of all tests", under "Operation  Max (MiB)" (a space before
# "(MiB)", where 3.x prints "Max(MiB)"). Its header names "Op grep #Tasks ..." after "Mean (s)", but no value
# stands under "Op grep": a row holds the 9 numbers, then with -v the 14 parameters, then "EXCEL". They are
# read by position under IOR 3's column names, so one reader serves both.
IOR2_SUMMARY_HEADER = re.compile(r"Operation\s+Max \(MiB\)")
IOR2_SUMMARY_NUMBERS = ("Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev", "Max(OPs)", "Min(OPs)", "Mean(OPs)", "StdDev",
                        "Mean(s)")
IOR2_SUMMARY_PARAMETERS = ("#Tasks", "tPN", "reps", "fPP", "reord", "reordoff", "reordrand", "seed", "segcnt",
                           "blksiz", "xsize", "aggsize", "RefNum", "API")
# After its table IOR 2 prints the best iteration of each access again: "Max Write: 9403.61 MiB/sec (...)".
IOR2_BEST = re.compile(r"Max (Write|Read):\s+(\S+) MiB/sec")
STONEWALL_PAIRS = re.compile(r"stonewalling pairs accessed min: (\d+) max: (\d+)"
                             r"(?: -- min data: [\d.]+ GiB mean data: ([\d.]+) GiB time: ([\d.]+)s)?")

TEST_START = re.compile(r"Test (\d+) started:|TestID\s*:\s*(\d+)\s*$")  # IOR 3.x, then 4.x
CLIENTS = re.compile(r"(\d+) \((\d+) per node\)")
SEGMENTS = re.compile(r"\((\d+) segment")
RANK_CSV_OPTION = re.compile(r"saveRankPerformanceDetailsCSV=(\S+)")
DEADLINE = re.compile(r"(?:^|\s)-D[ =]?(\d+)")


class _Test:
    """What the text log says about one test, gathered line by line."""

    def __init__(self, run: dict, index: int, ior_test_id: int | None):
        self.run, self.index, self.ior_test_id = run, index, ior_test_id
        self.options: dict[str, str] = {}
        self.columns: list[str] | None = None
        self.iterations: list[IorIteration] = []
        self.summaries: dict[str, tuple[list, int]] = {}  # access -> ((column, word) pairs, line)
        self.abort: tuple[str, int] | None = None  # first ERROR line, for the reason when no result came
        self.stonewall_pairs: tuple[int, int, float | None, float | None] | None = None  # min, max, mean GiB, hit s
        self.ior2_summary = False  # its summary is IOR 2's, which its "Max Write:"/"Max Read:" lines close
        self.best: dict[str, tuple[str, int]] = {}  # access -> (MiB/s as printed, line) of those lines

    def record(self) -> IorTest:
        o = self.options
        summary = dict(next(iter(self.summaries.values()), ([], 0))[0])
        clients = CLIENTS.match(o.get("clients", ""))  # IOR 2, 3.1
        tasks = _int(o.get("tasks")) or (int(clients.group(1)) if clients else _int(summary.get("#Tasks")))
        per_node = (_int(o.get("clients per node")) or (int(clients.group(2)) if clients else None)
                    or _int(summary.get("tPN")))
        pattern = SEGMENTS.search(o.get("pattern", ""))  # IOR 2, 3.1 with -v
        segments = _int(o.get("segments")) or (int(pattern.group(1)) if pattern else _int(summary.get("segcnt")))
        command = self.run["command"]
        xfer, xfer_from = exact_size(_int(summary.get("xsize")), o.get("xfersize"),
                                     command_size(command, "t", "transferSize"))
        block, block_from = exact_size(_int(summary.get("blksiz")), o.get("blocksize"),
                                       command_size(command, "b", "blockSize"))
        access = o.get("access")
        rank_csv = RANK_CSV_OPTION.search(command or "")
        deadline = DEADLINE.search(command or "")
        return IorTest(
            test_index=self.index, run_index=self.run["index"], layout="text", version=self.run["version"],
            ior_test_id=self.ior_test_id, began=self.run.get("began"), host=self.run.get("host"), command=command,
            api=(o.get("api") or "").split(" ")[0] or summary.get("API"), tasks=tasks,
            tasks_per_node=per_node, nodes=_int(o.get("nodes")) or derived_nodes(tasks, per_node), segments=segments,
            transfer_bytes=xfer, block_bytes=block,
            sizes_from=xfer_from if xfer_from == block_from else f"{xfer_from}/{block_from}",
            file_per_proc=access.startswith("file-per-process") if access else None,
            repetitions=_int(o.get("repetitions")) or _int(summary.get("reps")),
            stonewall_s=_int(o.get("stonewallingTime")) or (int(deadline.group(1)) if deadline else None),
            stonewall_pairs_min=self.stonewall_pairs[0] if self.stonewall_pairs else None,
            stonewall_pairs_max=self.stonewall_pairs[1] if self.stonewall_pairs else None,
            stonewall_mean_gib=self.stonewall_pairs[2] if self.stonewall_pairs else None,
            stonewall_hit_s=self.stonewall_pairs[3] if self.stonewall_pairs else None,
            rank_csv=rank_csv.group(1) if rank_csv else None, finished=self.run["finished"],
            **orderings(o),
        )


def _iteration(test: _Test, words: list[str], line: int) -> IorIteration:
    if len(words) != len(test.columns):
        raise ParseError(f"result row has {len(words)} fields, its table header {len(test.columns)}", line)
    try:
        values = {ITERATION_COLUMNS[c]: _number(w) for c, w in zip(test.columns, words) if c in ITERATION_COLUMNS}
        iteration = int(words[test.columns.index("iter")])
    except ValueError:
        raise ParseError("result row holds a value that is not a number", line) from None
    return IorIteration(test_index=test.index, access=words[0], iteration=iteration, **{
        name: values.get(name) for name in ITERATION_COLUMNS.values()})


def _summary(test: _Test, access: str, pairs: list[tuple[str, str]], line: int) -> IorSummary:
    row = dict(pairs)
    try:
        # StdDev appears twice (MiB, then OPs), so take them by position.
        std = [float(w) for c, w in pairs if c == "StdDev"] or [None]
        values = {name: (None if row.get(c) in (None, "NA") else float(row[c]))
                  for c, name in SUMMARY_COLUMNS.items()}
    except ValueError:
        raise ParseError("summary row holds a value that is not a number", line) from None
    if values["bw_max_mib_s"] is None:
        raise ParseError("summary row has no Max(MiB)", line)
    return IorSummary(test_index=test.index, access=access, bw_std_mib_s=std[0],
                      ops_std=std[1] if len(std) > 1 else None, ops_min=values.pop("ops_min"),
                      iterations=_int(row.get("reps")), **values)


def parse_text(text: str) -> Parsed:
    tests: list[_Test] = []
    run: dict | None = None
    previous: dict | None = None  # the run before the last banner
    test: _Test | None = None
    state = "outside"  # outside | header | results | summary-header | summary
    summary_header: list[str] = []
    last_result = None  # line of the last result row or "Finished": after it, the text may be another tool's
    first_banner = None  # before it, the text may be another tool's too
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        banner = line.startswith("IOR-") and BANNER.match(line)
        if banner:
            first_banner = first_banner or number
            previous = run
            run = {"index": 0 if run is None else run["index"] + 1, "version": banner.group(1),
                   "command": None, "finished": False}
            test, state = None, "header"
            continue
        if run is None or state == "outside":
            continue  # noise before the banner, or another tool's output after "Finished"
        stripped = line.strip()
        if state in ("summary-header", "summary") and stripped.startswith("Operation"):
            summary_header, state = stripped.split(), "summary"
            continue
        if stripped.startswith("Summary of all tests"):
            state = "summary-header"
            continue
        if stripped.startswith(("Finished", "Run finished")):  # IOR 3 and 4, then IOR 2
            run["finished"], state, last_result = True, "outside", number
            continue
        words = stripped.split()
        if test is not None and stripped.startswith("Operation") and IOR2_SUMMARY_HEADER.match(stripped):
            test.ior2_summary, state = True, "ior2-summary"
            continue
        if state == "ior2-summary" and words and words[0] in ACCESSES:
            test.summaries[words[0]] = (_ior2_summary_pairs(words, number), number)
            last_result = number
            continue
        best = state == "ior2-summary" and stripped.startswith("Max ") and IOR2_BEST.match(stripped)
        if best:
            test.best[best.group(1).lower()] = (best.group(2), number)
            last_result = number
            continue
        if state == "summary" and words and words[0] in ACCESSES:
            if len(words) != len(summary_header):
                raise ParseError(f"summary row has {len(words)} fields, its header {len(summary_header)}", number)
            pairs = list(zip(summary_header, words))
            by_id = {t.ior_test_id: t for t in tests if t.run is run}
            owner = by_id.get(_int(dict(pairs).get("Test#")), test)
            if owner is None:
                raise ParseError("summary row before any test", number)
            owner.summaries[words[0]] = (pairs, number)
            last_result = number
            continue
        new_test = line.startswith("Test") and TEST_START.match(line)
        if new_test:
            test = _Test(run, len(tests), int(new_test.group(1) or new_test.group(2)))
            tests.append(test)
            state = "header"
            continue
        key_value = state == "header" and KEY_VALUE.match(line)
        if key_value:
            key, value = key_value.group(1), key_value.group(2) or ""
            if key in ("Command line", "Command line used"):
                run["command"] = value
                if _next_test_of_ior2_script(previous, run, tests):
                    run = previous
            elif key in ("Began", "Run began"):  # IOR 3 and 4, then IOR 2
                run["began"] = value
            elif key == "Machine":
                run["host"] = machine_host(value)
            elif key == "Summary" and test is None:  # IOR 2 numbers no test: its "Summary:" block starts one
                test = _Test(run, len(tests), None)
                tests.append(test)
            elif test is not None:
                test.options.setdefault(key, value)
            continue
        old_option = state == "header" and test is not None and line.startswith("\t") and OLD_OPTION.match(line)
        if old_option:
            test.options.setdefault(old_option.group(1), old_option.group(2))
            continue
        if line.startswith("access") and RESULTS_HEADER.match(line):
            if test is None:  # a run with no "TestID" line: one test
                test = _Test(run, len(tests), None)
                tests.append(test)
            test.columns, state = words, "results"
            continue
        pairs_hit = test is not None and stripped.startswith("stonewalling") and STONEWALL_PAIRS.match(stripped)
        if pairs_hit:
            test.stonewall_pairs = (int(pairs_hit.group(1)), int(pairs_hit.group(2)),
                                    *(None if g is None else float(g) for g in pairs_hit.group(3, 4)))
            continue
        if state == "results" and len(words) > 1 and words[0] in ACCESSES and RESULT_VALUE.fullmatch(words[1]):
            # IOR 2 (-vv) ends each iteration row with an "XXCEL" marker, under no column
            test.iterations.append(_iteration(test, words[:-1] if words[-1] == "XXCEL" else words, number))
            last_result = number
        elif test is not None and test.abort is None and (stripped.startswith("ERROR") or "MPI_ABORT" in line):
            test.abort = (stripped, number)
    if run is None:
        raise ParseError("no IOR banner ('IOR-x.y: MPI Coordinated Test of Parallel I/O')", 1)
    if not tests:
        raise ParseError("log ends before the first test's results table (truncated header)", len(lines))
    records: list = []
    for t in tests:
        if not t.iterations and not t.summaries:
            if t.abort:
                raise ParseError(f"IOR stopped with an error before any result: {t.abort[0]}", t.abort[1])
            raise ParseError(f"test {t.index} has no result row (log truncated)", len(lines))
        if t.ior2_summary:
            _check_ior2_best(t, len(lines))
        records.append(t.record())
        records.extend(t.iterations)
        records.extend(_summary(t, access, pairs, line) for access, (pairs, line) in t.summaries.items())
    return Parsed(format="ior-text", tool="ior", tool_version=tests[0].run["version"], records=records,
                  start=_line_end(text, first_banner - 1),
                  end=_line_end(text, last_result))


def _next_test_of_ior2_script(previous: dict | None, run: dict, tests: list[_Test]) -> bool:
    """IOR 2 prints its banner, "Run began" and command line again before each test of a script (-f), and
    "Run finished" once at the end: a banner after a test whose summary closed, with the same command line
    and no "Run finished" between, continues that run."""
    last = tests[-1] if tests else None
    return (previous is not None and previous["version"].startswith("2.") and previous["version"] == run["version"]
            and not previous["finished"] and previous["command"] == run["command"]
            and last is not None and last.run is previous and last.ior2_summary
            and all(access in last.best for access in last.summaries))


def _ior2_summary_pairs(words: list[str], line: int) -> list[tuple[str, str]]:
    """The (column, word) pairs of an IOR 2 summary row, under IOR 3's column names."""
    body = words[1:-1]
    if words[-1] != "EXCEL" or len(body) not in (len(IOR2_SUMMARY_NUMBERS),
                                                 len(IOR2_SUMMARY_NUMBERS) + len(IOR2_SUMMARY_PARAMETERS)):
        raise ParseError(f"IOR 2 summary row has {len(words)} fields; IOR 2 prints 11 or 25 and 'EXCEL'", line)
    return [("Operation", words[0]), *zip(IOR2_SUMMARY_NUMBERS + IOR2_SUMMARY_PARAMETERS, body)]


def _check_ior2_best(test: _Test, last_line: int) -> None:
    """IOR 2 prints the "Max Write:"/"Max Read:" line of each summary row after the table, with the row's
    Max(MiB) to the same digits: without it the log was cut inside the summary; when they differ, the row
    was not read as IOR wrote it."""
    for access, (pairs, _) in test.summaries.items():
        label = f"Max {access.title()}:"
        if access not in test.best:
            raise ParseError(f"log ends before IOR 2's '{label}' line that closes its summary (truncated)", last_line)
        best, line = test.best[access]
        if best != dict(pairs)["Max(MiB)"]:
            raise ParseError(f"'{label} {best} MiB/sec' differs from its summary row's Max(MiB) "
                             f"{dict(pairs)['Max(MiB)']}", line)


def _line_end(text: str, line: int) -> int:
    """The offset just past the 1-based `line` of `text` (0 for line 0)."""
    end = -1
    for _ in range(line):
        end = text.find("\n", end + 1)
        if end < 0:
            return len(text)
    return end + 1


# --- stdout without IOR's result output --------------------------------------------------------

# -O summaryFile= sends everything IOR prints of its run (banner, options, results: text, JSON or CSV) to
# that file; stdout keeps this line and what IOR writes to its log stream (warnings, errors).
SUMMARY_FILE = re.compile(r"Writing output to \S[^\n]*")
# IOR's ERR/ERRF: "ERROR: <message>, (<source>.c:<line>)", IOR 2's ERR: "ERROR in <source>.c (line <n>): <message>."
# Errors from IOR's own sources name the tool; an I/O backend's (aiori-POSIX.c) or the shared utilities' could
# be mdtest's, so they count only in IOR's stdout.
IOR_ERROR = re.compile(r"ERROR: [^\n]*, \((?:ior|ior-output|parse_options)\.c:\d+\)"
                       r"|ERROR in (?:IOR|parse_options)\.c \(line \d+\): [^\n]*")
ANY_ERROR = re.compile(r"ERROR: [^\n]*, \([\w.-]+\.c:\d+\)|ERROR in [\w.-]+\.c \(line \d+\): [^\n]*")


def detect_stdout(head: str) -> bool:
    return ((line_starting(SUMMARY_FILE, head) or line_starting(IOR_ERROR, head))
            and not line_starting(BANNER, head))


def parse_stdout(text: str) -> Parsed:
    """IOR's stdout without its banner: the summaryFile line of a run whose results are in that file (IOR
    output with no rows here), or the ERROR of a run that stopped (its failed run, with IOR's message)."""
    summary_file = _at_line_start(SUMMARY_FILE, text)
    start = summary_file.start() if summary_file else 0
    if summary_file:
        after = summary_file.end() + 1
        if text[after:].strip() and detect(text[after:after + DETECT_BYTES]):  # another output: ingest reads it
            return Parsed(format="ior-stdout", tool="ior", tool_version=None, records=[], start=start, end=after)
    error = _at_line_start(ANY_ERROR if summary_file else IOR_ERROR, text)
    if error:
        raise ParseError(f"IOR stopped with an error before any result: {error.group()}",
                         text.count("\n", 0, error.start()) + 1)
    if summary_file is None:
        raise ParseError("no IOR output: neither its 'Writing output to' line nor an IOR ERROR line", 1)
    return Parsed(format="ior-stdout", tool="ior", tool_version=None, records=[], start=start)


def _at_line_start(pattern: re.Pattern, text: str) -> re.Match | None:
    return next((m for m in pattern.finditer(text) if m.start() == 0 or text[m.start() - 1] == "\n"), None)


def detect_text(head: str) -> bool:
    return "MPI Coordinated Test" in head and line_starting(BANNER, head)


def detect_ior2_fragment(head: str) -> bool:
    return ("Max (MiB)" in head and line_starting(IOR2_SUMMARY_HEADER, head) and line_starting(IOR2_BEST, head)
            and not line_starting(BANNER, head))


def parse_ior2_fragment(text: str) -> Parsed:
    """IOR 2's summary table and "Max Write:" lines without IOR's banner: text copied out of a log (a mail, a
    note), not IOR's output as it wrote it. Its rows are not read; the file fails at the table's header, with
    how it was changed when that shows (a header or row broken over lines: re-wrapped, as mail does)."""
    header = _at_line_start(IOR2_SUMMARY_HEADER, text)
    if header is None:
        raise ParseError("no IOR 2 summary header ('Operation  Max (MiB) ...')", 1)
    line = text.count("\n", 0, header.start()) + 1
    following = text[header.start():].split("\n", 2)
    wrapped = len(following) > 1 and following[1].lstrip().startswith("(OPs)")
    how = ("its table's header and rows are wrapped across lines (re-wrapped, as by mail)" if wrapped
           else "without IOR's banner line")
    raise ParseError(f"IOR 2 summary copied out of its log: {how}; not IOR's unmodified output, not read", line)


FORMATS = (
    Format(name="ior-text", tool="ior", detect=detect_text, parse=parse_text),
    Format(name="ior-stdout", tool="ior", detect=detect_stdout, parse=parse_stdout),
    Format(name="ior2-fragment", tool="ior", detect=detect_ior2_fragment, parse=parse_ior2_fragment),
)
