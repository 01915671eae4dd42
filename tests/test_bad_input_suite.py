"""The bad-input suite: each case adds one bad input, made from a real log, to a small tree of real logs of
every kind iobook reads (IOR text/CSV/JSON, mdtest text/CSV, fio JSON and logs, IO500 summaries, GPFS
listings, vmstat). Every case asserts that

- every good file's rows are those of a clean ingest of the good files alone (rows lost 0): per table, row
  count and a digest of the rows, with the file's path relative to the tree in place of its source id;
- the bad input is recorded in `sources` with its status, reason and, where there is one, its line;
- the bad input stores no rows when it failed, and exactly the rows of its readable part when it loaded
  (wrong values stored 0);
- ingest ends within the case's timeout (hangs 0).
"""
from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import re
import shutil
import socket
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import zstandard
from conftest import ARCHIVE, BUILT_TOOLS, REPO, TUCSON_SC23

from iobook.database import store
from iobook.database.ingest import ingest

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

TUCSON = TUCSON_SC23 / "results" / "2023.10.22-06.40.20"
FIO = REPO / "tests" / "fixtures" / "fio"
FIO_ERRORS = FIO / "errors"
RAW_679 = next((REPO / "data" / "raw" / "io500").glob("IBM Tucson/Arches Storage Scale System 3500/*/2023/submission-679/results"))
CHECKSUM_RUN = REPO / "data" / "raw" / "checksum" / "vm-20261121T131428Z"
IOR_HERE = REPO / "tests" / "fixtures" / "ior" / "built-here"  # IOR 4.1.0+dev built here: its MANIFEST.tsv
IO500_RUN = BUILT_TOOLS / "io500" / "run1-standard-np2-stonewall10"
IO500_CONFIG = IO500_RUN / "2026.11.21-12.37.24" / "config-orig.ini"  # not a log: a tool's input
MDWORKBENCH = ARCHIVE / "GWDG/SCC/BeeGFS/2021/submission-582" / "mdworkbench-create.txt"  # IO500 extended mode

# name in the good tree -> the real log it is a copy of
GOOD = {
    "ior-easy-write.txt": TUCSON / "ior-easy-write.txt",
    "ior-easy-write.csv": TUCSON / "ior-easy-write.csv",
    "mdtest-easy-write.txt": TUCSON / "mdtest-easy-write.txt",
    "mdtest-easy-write.csv": TUCSON / "mdtest-easy-write.csv",
    "result_summary.txt": TUCSON / "result_summary.txt",
    "result.txt": TUCSON / "result.txt",
    "mmlsconfig": RAW_679 / "mmlsconfig",
    "fio-multi.json": FIO / "fio333-multi.json",
    "raw_bw.1.log": FIO / "logs-raw" / "raw_bw.1.log",
    "ior-summary.csv": BUILT_TOOLS / "ior" / "ior_csv_posix_fpp_1m_np2_i3.log",
    "ior.json": BUILT_TOOLS / "ior" / "ior_json_posix_fpp_1m_np2_i3.log",
    "mdtest.log": BUILT_TOOLS / "mdtest" / "mdtest_n1000_i3_np2.log",
    "vmstat.txt": CHECKSUM_RUN / "001-write-none-direct-r1.vmstat.txt",
}


def good(name: str) -> bytes:
    return GOOD[name].read_bytes()


def _make_good_tree(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name, source in GOOD.items():
        shutil.copyfile(source, folder / name)
    return folder


def _rel(path: str, root: Path) -> str:
    return path.removeprefix(str(root) + os.sep)


def good_files_digest(db: Path, root: Path) -> dict:
    """table -> (rows, sha256 of the sorted rows) over the files whose relative path has no `zz-` (the bad
    inputs' mark), each row keyed by its file's path relative to `root` instead of its source id; the
    good files' sources rows (path, hash, status, reason, line) count as a table too."""
    con = store.open_read(db)
    try:
        prefix = str(root) + os.sep
        # file_stats is left out: it holds a file's stat only when the file was written over 2 s before ingest
        # read it (discovery.RACY_NS), which on a loaded machine differed between the clean ingest and a case's
        columns_of = dict(con.execute(
            "SELECT table_name, list(column_name) FROM information_schema.columns JOIN information_schema.tables "
            "USING (table_name) WHERE table_type = 'BASE TABLE' AND table_name NOT IN ('ingest_state', 'file_stats') "
            "GROUP BY 1").fetchall())
        rows_in = dict(con.execute(" UNION ALL ".join(f"SELECT '{t}', count(*) FROM {t}" for t in columns_of)).fetchall())
        out = {}
        for table, columns in sorted(columns_of.items()):
            if not rows_in[table]:  # one query for every table's count: half of them are empty
                out[table] = (0, hashlib.sha256(b"").hexdigest())
                continue
            if table == "sources":
                sql = ("SELECT replace(path, ?, '') AS rel, sha256, bytes, status, error, error_line FROM sources "
                       "WHERE starts_with(path, ?) AND NOT contains(replace(path, ?, ''), 'zz-')")
                params = [prefix, prefix, prefix]
            elif "source_id" in columns:
                sql = (f"SELECT replace(s.path, ?, '') AS rel, t.* EXCLUDE (source_id) FROM {table} t "
                       "JOIN sources s USING (source_id) WHERE NOT contains(replace(s.path, ?, ''), 'zz-')")
                params = [prefix, prefix]
            else:  # derived from IO500 runs (a bad input's run is not a good file's): paths made relative
                sql = f"SELECT * FROM {table}" + (
                    " WHERE run_id NOT IN (SELECT run_id FROM io500_run_info WHERE contains(replace(path, ?, ''), 'zz-'))"
                    if "run_id" in columns else "")
                params = [str(root)] if "run_id" in columns else []
            rows = sorted(repr(r).replace(str(root), "") for r in con.execute(sql, params).fetchall())
            out[table] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest())
        return out
    finally:
        con.close()


def rows_of(db: Path, path: Path) -> dict:
    """table -> sorted rows (without source_id) that the file at `path` stored."""
    con = store.open_read(db)
    try:
        found = con.execute("SELECT source_id FROM sources WHERE path = ?", [store.printable_path(str(path))]).fetchone()
        assert found, f"{path} is not in sources"
        out = {}
        for table in store.raw_tables()[1:]:
            rows = con.execute(f"SELECT * EXCLUDE (source_id) FROM {table} WHERE source_id = ?", [found[0]]).fetchall()
            if rows:
                out[table] = sorted(map(repr, rows))
        return out
    finally:
        con.close()


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory) -> Path:
    """A database with this version's schema and no file: each case's databases start as copies of it, which
    spares ~95 cases making the schema (0.4 s each; what a case tests starts after it)."""
    db = tmp_path_factory.mktemp("schema") / "empty.duckdb"
    store.open_write(db).close()
    return db


def ingest_into(db: Path, empty_db: Path, paths: list[Path]) -> dict:
    shutil.copyfile(empty_db, db)
    return ingest(paths, db, progress=False)


@pytest.fixture(scope="module")
def clean_digest(tmp_path_factory) -> dict:
    folder = _make_good_tree(tmp_path_factory.mktemp("clean") / "tree")
    db = folder.parent / "clean.duckdb"
    counts = ingest([folder], db, progress=False)
    assert counts["parsed"] == len(GOOD) and counts["failed"] == 0 and counts["skipped"] == 0
    return good_files_digest(db, folder)


@dataclass
class Bad:
    """What a case expects of its bad input `path`: its status in sources, a regex its reason must match,
    its line (None: none recorded), and, for an input that loads, the bytes whose clean ingest gives
    exactly its rows."""
    path: Path
    status: str
    reason: str
    line: int | None = None
    rows_like: bytes | None = None
    extra: list[Path] = field(default_factory=list)  # more arguments to ingest (e.g. a FIFO)
    tables: dict[str, int] = field(default_factory=dict)  # raw table -> rows it must hold from the input
    tool: str | None = None  # the tool sources must name (a tool's own failed run)
    parts: list[bytes] = field(default_factory=list)  # outputs one after another in the input: it stores the rows
    # the first gives alone, and in each table as many rows as the parts give alone


def replace_once(data: bytes, old: bytes, new: bytes) -> bytes:
    assert old in data, old
    return data.replace(old, new, 1)


def line_no(data: bytes, needle: bytes) -> int:
    return data[: data.index(needle)].count(b"\n") + 1


def cut_in_last_number(data: bytes) -> bytes:
    """The file as a wall-time kill leaves it: cut inside the last number of its last line."""
    body = data.rstrip(b"\n")
    last_number = list(re.finditer(rb"\d+\.\d+|\d{3,}", body))[-1]
    return body[: last_number.start() + 2]


def whole_lines(data: bytes) -> bytes:
    return data[: data.rfind(b"\n") + 1]


# ---------------------------------------------------------------- the cases

def non_finite_fio_json(token: bytes):
    def case(folder, tmp):
        data = replace_once(good("fio-multi.json"), b'"iops" : 32000.000000,', b'"iops" : ' + token + b",")
        (folder / "zz-fio.json").write_bytes(data)
        line = line_no(data, b'"iops" : ' + token)
        return Bad(folder / "zz-fio.json", "error", rf"^non-finite value -?(inf|nan) in FioIO\.iops \(line {line}\)$", line)
    return case


def non_finite_csv_field(name: str, row: int, column: int, token: bytes, reason: str):
    def case(folder, tmp):
        lines = good(name).splitlines(keepends=True)
        fields = lines[row - 1].split(b",")
        fields[column] = token
        lines[row - 1] = b",".join(fields)
        (folder / f"zz-{name}").write_bytes(b"".join(lines))
        return Bad(folder / f"zz-{name}", "error", reason, row)
    return case


def non_finite_ior_text(folder, tmp):
    data = good("ior-easy-write.txt")
    row = b"write     109172     13654      0.000262"
    bad = replace_once(data, row, b"write     inf     13654      0.000262")
    (folder / "zz-ior.txt").write_bytes(bad)
    line = line_no(bad, b"write     inf")
    return Bad(folder / "zz-ior.txt", "error", rf"^non-finite value inf in IorIteration\.bw_mib_s \(line {line}\)$", line)


def non_finite_mdtest_text(folder, tmp):
    data = good("mdtest.log")
    first = re.search(rb"\n(   File creation\s+)(\d+\.\d+)", data)
    bad = data[: first.start(2)] + b"nan" + data[first.end(2):]
    (folder / "zz-mdtest.log").write_bytes(bad)
    line = bad[: first.start(2)].count(b"\n") + 1
    return Bad(folder / "zz-mdtest.log", "error", rf"^non-finite value nan in MdtestResult\.max \(line {line}\)$", line)


def non_finite_io500_result(folder, tmp):
    data = replace_once(good("result_summary.txt"), b"106.612964 GiB/s", b"inf GiB/s")
    (folder / "zz-run").mkdir()  # a run is a folder: the bad summary is its own run's
    (folder / "zz-run" / "result_summary.txt").write_bytes(data)
    return Bad(folder / "zz-run" / "result_summary.txt", "error", r"^non-finite value inf in Io500Phase.value",
               line_no(data, b"inf GiB/s"))


def deep_json(name: str, key: bytes):
    """A key 100,000 arrays deep inserted before `key` of a real JSON log (Python's json recurses)."""
    def case(folder, tmp):
        data = good(name)
        at = data.index(key)
        (folder / f"zz-{name}").write_bytes(data[:at] + b'"x": ' + b"[" * 100_000 + b"]" * 100_000 + b", " + data[at:])
        return Bad(folder / f"zz-{name}", "error", r"^RecursionError: maximum recursion depth exceeded")
    return case


def integer_overflow_ior_text(folder, tmp):
    data = good("ior.json") if False else good("ior-easy-write.txt")
    bad = re.sub(rb"(?m)^(tasks\s*: )\d+", rb"\g<1>99999999999999999999999", data, count=1)
    (folder / "zz-ior-overflow.txt").write_bytes(bad)
    line = line_no(bad, b"99999999999999999999999")
    return Bad(folder / "zz-ior-overflow.txt", "error",
               rf"^integer 99999999999999999999999 out of range \(64 bits\) in IorTest\.tasks \(line {line}\)$", line)


def integer_overflow_mdtest_csv(folder, tmp):
    lines = good("mdtest-easy-write.csv").splitlines(keepends=True)
    fields = lines[2].split(b",")
    fields[1] = b"99999999999999999999999"
    lines[2] = b",".join(fields)
    (folder / "zz-ranks.csv").write_bytes(b"".join(lines))
    return Bad(folder / "zz-ranks.csv", "error", r"^items '99999999999999999999999' is not a count$", 3)


def unreadable(folder, tmp, monkeypatch):
    """Root reads a chmod-000 file, so the OSError a user without rights gets is raised where ingest reads."""
    target = folder / "zz-unreadable.txt"
    target.write_bytes(good("ior-easy-write.txt"))
    import builtins

    real = builtins.open

    def guarded_open(file, *args, **kwargs):
        if str(file) == str(target):
            raise PermissionError(13, "Permission denied", str(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    return Bad(target, "error", r"^cannot be read: Permission denied$")


def larger_than_read(folder, tmp, monkeypatch):
    """A file over ingest's size bound is refused before it is read. The bound is lowered to the largest
    good file here, and the bad one is that file twice (two runs appended); the real case, a 1.25 GiB fio
    log, is measured by benchmarks/bench_big_files.py."""
    from iobook.database import parsing

    largest = max(GOOD, key=lambda n: len(good(n)))
    monkeypatch.setattr(parsing, "MAX_FILE_BYTES", len(good(largest)))
    big = folder / "zz-big"
    big.write_bytes(good(largest) * 2)
    return Bad(big, "error", r"^0 MiB: larger than the 0 MiB iobook reads in one file \(split it; a fio "
               r"bw/iops/lat log is read whatever its size\)$")


def dangling_symlink(folder, tmp):
    (folder / "zz-dangling").symlink_to(folder / "no-such-file")
    return Bad(folder / "zz-dangling", "skipped", r"^cannot be read: No such file or directory$")


def self_loop_symlink(folder, tmp):
    (folder / "zz-self").symlink_to(folder / "zz-self")
    return Bad(folder / "zz-self", "skipped", r"^cannot be read: .*(loop|Too many levels)")


def symlink_to_device(folder, tmp):
    (folder / "zz-null").symlink_to("/dev/zero")
    return Bad(folder / "zz-null", "skipped", r"^symlink leading out of the folders ingested$")


def device_as_argument(folder, tmp):
    return Bad(Path("/dev/zero"), "skipped", r"^not a regular file \(FIFO, socket or device\)$", extra=[Path("/dev/zero")])


def unix_socket(folder, tmp):
    path = folder / "zz-sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return Bad(path, "skipped", r"^not a regular file \(FIFO, socket or device\)$")


def fifo_in_a_subfolder(folder, tmp):
    (folder / "zz-sub").mkdir()
    os.mkfifo(folder / "zz-sub" / "pipe")
    return Bad(folder / "zz-sub" / "pipe", "skipped", r"^not a regular file \(FIFO, socket or device\)$")


def truncated(name: str, loads: bool):
    """A log cut inside the last number of its last line: whole lines before the cut load and the cut is
    recorded at its line, or, when those lines do not make a log, the file is refused at the cut; never is
    the shortened number stored."""
    def case(folder, tmp):
        data = good(name)
        cut = cut_in_last_number(data)
        (folder / "zz-cut").mkdir()
        (folder / "zz-cut" / name).write_bytes(cut)
        line = cut.count(b"\n") + 1
        reason = rf"^truncated: line {line} ends without a newline, so it was cut short; " + (
            "the lines before it were loaded$" if loads else "the lines before it do not parse: ")
        return Bad(folder / "zz-cut" / name, "ok" if loads else "error", reason, line,
                   rows_like=whole_lines(cut) if loads else None)
    return case


def cut_json(folder, tmp):
    data = good("fio-multi.json")
    cut = data[: len(data) // 2]
    (folder / "zz-fio.json").write_bytes(cut)
    line = cut.count(b"\n") + 1
    # a JSON document need not end in a newline (issue 47): the decoder, not the newline rule, tells it was cut
    return Bad(folder / "zz-fio.json", "error", r"^cut short: the JSON document ends before it closes \(invalid JSON: ",
               line)


def cut_ior_header(folder, tmp):
    data = good("ior-easy-write.txt")
    cut = data[: data.index(b"Results:")]
    (folder / "zz-ior.txt").write_bytes(cut)
    return Bad(folder / "zz-ior.txt", "error", r"^test 0 has no result row \(log truncated\)$", cut.count(b"\n"))


def named(name: str, source: str):
    """A good log under a name with characters that are special to globbing, SQL LIKE, HTML or the shell."""
    def case(folder, tmp):
        (folder / name).write_bytes(good(source))
        return Bad(folder / name, "ok", r"^$", rows_like=good(source))
    return case


def variant(source: str, transform, label: str):
    def case(folder, tmp):
        (folder / f"zz-{label}").mkdir()  # its own folder: an IO500 file joins the run of its folder
        (folder / f"zz-{label}" / source).write_bytes(transform(good(source)))
        return Bad(folder / f"zz-{label}" / source, "ok", r"^$", rows_like=good(source))
    return case


def corrupt_compressed(kind: str, compress, name: str):
    def case(folder, tmp):
        packed = compress(good("ior-easy-write.txt"))
        (folder / f"zz-cut.{kind}").write_bytes(packed[: len(packed) // 2])
        return Bad(folder / f"zz-cut.{kind}", "error",
                   rf"^ValueError: {name} file cut short: its stream ends before its end marker$")
    return case


def invalid_utf8(folder, tmp):
    data = good("mdtest-easy-write.txt")
    lines = data.splitlines(keepends=True)
    lines[19] = lines[19][:5] + b"\xff\xfe\xc3" + lines[19][5:]
    (folder / "zz-mdtest.txt").write_bytes(b"".join(lines))
    return Bad(folder / "zz-mdtest.txt", "ok", r"^not valid UTF-8: byte 0xff and 2 more on line 20, shown as U\+FFFD; "
               r"the log was loaded$", 20, tables={"raw_mdtest_results": 12})  # every row of the clean log


def binary_file(folder, tmp):
    shutil.copyfile("/bin/true", folder / "zz-true")
    return Bad(folder / "zz-true", "skipped", r"^binary file \(NUL byte\)$", 1)


def empty_file(folder, tmp):
    (folder / "zz-empty.csv").write_bytes(b"")
    return Bad(folder / "zz-empty.csv", "skipped", r"^not a log format iobook reads$")


def long_single_line(size: int, end: bytes, reason: str | None):
    """A real IOR JSON log on one line, repeated to `size` bytes (the issue's 200 MB line, smaller): cut
    (no newline at its end), it is refused at once and stores nothing; whole, every copy is read."""
    def case(folder, tmp):
        one = good("ior.json").replace(b"\n", b" ")
        copies = size // len(one)
        (folder / "zz-line").write_bytes(one * copies + end)
        if reason is None:  # whole: as many IOR runs as copies, parsed in seconds
            return Bad(folder / "zz-line", "ok", r"^$", tables={"raw_ior_tests": copies})
        return Bad(folder / "zz-line", "error", reason, 1)
    return case


def tool_error(fixture: Path, tool: str, reason: str, line: int | None):
    """A real run of the tool that failed: recorded as that tool's failed run, with the tool's message."""
    def case(folder, tmp):
        shutil.copyfile(fixture, folder / f"zz-{fixture.name}")
        return Bad(folder / f"zz-{fixture.name}", "error", reason, line, tool=tool)
    return case


def ior_output(fixture: Path, tables: dict[str, int]):
    """Real IOR output that loads: ok, named IOR, with the rows of each raw table given."""
    def case(folder, tmp):
        shutil.copyfile(fixture, folder / f"zz-{fixture.name}")
        return Bad(folder / f"zz-{fixture.name}", "ok", r"^$", tables=tables, tool="ior")
    return case


def concatenated_ior_and_mdtest(folder, tmp):
    """An IOR log and an mdtest log in one file (a job script's combined output): both tools' rows."""
    (folder / "zz-both.txt").write_bytes(good("ior-easy-write.txt") + good("mdtest.log"))
    # what each log gives alone: 1 IOR iteration (Tucson's ior-easy-write), 10 mdtest summary rows
    return Bad(folder / "zz-both.txt", "ok", r"^$", tables={"raw_ior_iterations": 1, "raw_mdtest_results": 10})


def hostile_folder(name: str):
    def case(folder, tmp):
        (folder / name).mkdir()
        (folder / name / "ior-easy-write.txt").write_bytes(good("ior-easy-write.txt"))
        return Bad(folder / name / "ior-easy-write.txt", "ok", r"^$", rows_like=good("ior-easy-write.txt"))
    return case


def unreadable_folder(folder, tmp, monkeypatch):
    """A folder that cannot be listed (chmod 000 to a user without rights; root lists everything, so the
    OSError is raised where ingest lists it): a failure with its reason, the rest of the tree read."""
    target = folder / "zz-locked"
    target.mkdir()
    (target / "ior-easy-write.txt").write_bytes(good("ior-easy-write.txt"))
    real = os.scandir

    def guarded_scandir(path="."):
        if os.fspath(path) == str(target):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", guarded_scandir)
    return Bad(target, "error", r"^folder cannot be read: Permission denied$")


def missing_argument(folder, tmp):
    return Bad(folder / "zz-no-such-folder", "error", r"^no such file or folder$", extra=[folder / "zz-no-such-folder"])


def not_utf8_name(name: bytes, source: str):
    """A good log under a name whose bytes are not UTF-8 (Latin-1 from an old NFS export, Shift-JIS, ...)."""
    def case(folder, tmp):
        path = folder / os.fsdecode(name)
        path.write_bytes(good(source))
        return Bad(path, "ok", r"^$", rows_like=good(source))
    return case


def not_utf8_folder(name: bytes):
    def case(folder, tmp):
        (folder / os.fsdecode(name)).mkdir()
        path = folder / os.fsdecode(name) / "mdtest-easy-write.csv"
        path.write_bytes(good("mdtest-easy-write.csv"))
        return Bad(path, "ok", r"^$", rows_like=good("mdtest-easy-write.csv"))
    return case


def outputs(*names: str, cut_last: bool = False):
    """Real outputs one after another in one file, as a job script's stdout collects them; `cut_last`: the
    last one cut in half."""
    def case(folder, tmp):
        parts = [good(n) for n in names]
        if cut_last:
            parts[-1] = parts[-1][: len(parts[-1]) // 2]
        (folder / "zz-outputs.log").write_bytes(b"".join(parts))
        if not cut_last:
            return Bad(folder / "zz-outputs.log", "ok", r"^$", parts=parts)
        line = b"".join(parts[:-1]).count(b"\n") + 1
        return Bad(folder / "zz-outputs.log", "error",
                   rf"; the lines before it do not parse: fio-json output from line {line}, after the ior-text output, "
                   "does not parse: cut short: the JSON document ends before it closes",
                   b"".join(parts).count(b"\n") + 1)
    return case


def ior_text_then_ior_json(folder, tmp):
    """IOR's text and JSON layouts number their tests alike: one file cannot hold both, so neither is read."""
    (folder / "zz-ior-twice.log").write_bytes(good("ior-easy-write.txt") + good("ior.json"))
    return Bad(folder / "zz-ior-twice.log", "error",
               r"^ior-text output before the ior-json output, holds the same kind of records: not read$", 1)


def mdtest_cut_in_summary(folder, tmp):
    """An mdtest log cut at a line end inside its SUMMARY table: half its rows are no result."""
    data = good("mdtest.log")
    cut = data[: data.index(b"   File stat", data.index(b"SUMMARY"))]
    (folder / "zz-mdtest-cut.log").write_bytes(cut)
    return Bad(folder / "zz-mdtest-cut.log", "error",
               r"^log ends inside a SUMMARY table, after its 'File creation' row \(truncated\)$", cut.count(b"\n"))


def ior_json_without_results(folder, tmp):
    """IOR JSON whose tests hold no Results and whose summary is spelled otherwise: no result at all."""
    data = good("ior.json").replace(b'"Results"', b'"results"').replace(b'"summary"', b'"Summary"')
    (folder / "zz-shape.json").write_bytes(data)
    return Bad(folder / "zz-shape.json", "error", r"^IOR JSON test 0 has no results$", 1)


def rank_csv_header_only(folder, tmp):
    header = good("mdtest-easy-write.csv").split(b"\n", 1)[0] + b"\n"
    (folder / "zz-header.csv").write_bytes(header)
    return Bad(folder / "zz-header.csv", "error", r"^per-rank CSV has no rows \(its header only\)$", 1)


def streamed(transform, status: str, reason: str, line=None):
    """The tree's fio logs streamed in pieces of 64 bytes (as ingest streams one over STREAM_FROM_BYTES, in
    pieces of STREAM_PIECE_BYTES), the good one among them giving the rows it gives whole, and a variant of it
    as the bad input."""
    def case(folder, tmp, monkeypatch):
        from iobook.database import parsing, writing

        monkeypatch.setattr(parsing, "STREAM_FROM_BYTES", 0)
        monkeypatch.setattr(writing, "STREAM_PIECE_BYTES", 64)
        monkeypatch.setattr(parsing, "STREAM_HEAD_BYTES", 100)  # its first lines tell a fio log
        data = good("raw_bw.1.log")
        (folder / "zz-streamed").mkdir()
        path = folder / "zz-streamed" / "raw_bw.1.log"  # the name fio gives it: the view takes its kind from it
        path.write_bytes(transform(data))
        lines = transform(data)[: transform(data).rfind(b"\n") + 1]
        return Bad(path, status, reason, line(data) if callable(line) else line,
                   rows_like=lines if status == "ok" else None)
    return case


def bad_line_in_a_later_piece(data: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[9] = lines[9].replace(b", ", b", x", 1)  # at byte ~240 of the log: its fourth 64-byte piece
    return b"\n".join(lines)


def stopped_early(source: Path, reason: str, line: int):
    """A real IO500 output as a run that stopped before its first phase ended leaves it: what it printed
    before its first [RESULT] line. That is the tool's failed run, with its messages."""
    def case(folder, tmp):
        data = source.read_bytes()
        (folder / "zz-stopped").mkdir()
        path = folder / "zz-stopped" / source.name
        path.write_bytes(data[: data.index(b"[RESULT]")])
        return Bad(path, "error", reason, line, tool="io500")
    return case


def mdworkbench_cut(at: bytes | None, status: str, reason: str):
    """md-workbench's output cut before `at` (a line), or inside the last number of its last line."""
    def case(folder, tmp):
        data = MDWORKBENCH.read_bytes()
        cut = data[: data.index(at)] if at else cut_in_last_number(data)
        (folder / "zz-mdworkbench").mkdir()
        path = folder / "zz-mdworkbench" / MDWORKBENCH.name
        path.write_bytes(cut)
        return Bad(path, status, reason, cut.count(b"\n") + (0 if at else 1),
                   rows_like=whole_lines(cut) if status == "ok" else None)
    return case


CASES = {
    # one bad file never stops the rest: values that are not finite, nesting, overflow
    "fio json Infinity": non_finite_fio_json(b"Infinity"),
    "fio json -Infinity": non_finite_fio_json(b"-Infinity"),
    "fio json NaN": non_finite_fio_json(b"NaN"),
    "ior summary csv inf": non_finite_csv_field("ior-summary.csv", 3, 1, b"inf",
                                                 r"^non-finite value inf in IorIteration\.bw_mib_s \(line 3\)$"),
    "ior summary csv nan": non_finite_csv_field("ior-summary.csv", 2, 2, b"nan",
                                                 r"^non-finite value nan in IorIteration\.iops \(line 2\)$"),
    "ior rank csv nan": non_finite_csv_field("ior-easy-write.csv", 5, 5, b"nan\n", r"^CSV row holds a value that is not a number$"),
    "mdtest rank csv -inf": non_finite_csv_field("mdtest-easy-write.csv", 3, 2, b"-inf", r"^'-inf' is not a number$"),
    "ior text inf": non_finite_ior_text,
    "mdtest text nan": non_finite_mdtest_text,
    "io500 summary inf": non_finite_io500_result,
    "fio json nested 100000 deep": deep_json("fio-multi.json", b'"jobs"'),
    "ior json nested 100000 deep": deep_json("ior.json", b'"tests"'),
    "ior text integer overflow": integer_overflow_ior_text,
    "mdtest rank csv integer overflow": integer_overflow_mdtest_csv,
    # entries that cannot or must not be read
    "unreadable file": unreadable,
    "file over the size bound": larger_than_read,
    "dangling symlink": dangling_symlink,
    "symlink to itself": self_loop_symlink,
    "symlink to a device": symlink_to_device,
    "device as an argument": device_as_argument,
    "unix socket": unix_socket,
    "FIFO in a subfolder": fifo_in_a_subfolder,
    # cut by a wall-time kill
    "fio bw log cut in a number": truncated("raw_bw.1.log", True),
    "ior rank csv cut in a number": truncated("ior-easy-write.csv", True),
    "ior summary csv cut in a number": truncated("ior-summary.csv", True),
    "ior text cut in a number": truncated("ior-easy-write.txt", False),
    "mdtest text cut in a number": truncated("mdtest.log", True),
    "io500 summary cut in a number": truncated("result_summary.txt", True),
    "vmstat cut in a number": truncated("vmstat.txt", True),
    "fio json cut in half": cut_json,
    "ior text cut in its header": cut_ior_header,
    # names that glob, LIKE, HTML or a shell would read as syntax
    "name with *": named("zz-mdtest-*.csv", "mdtest-easy-write.csv"),
    "name with ? and [ab]": named("zz-mdtest-?[ab].csv", "mdtest-easy-write.csv"),
    "name with % and _": named("zz-100%_done.txt", "ior-easy-write.txt"),
    "name with quotes": named("zz-it's \"quoted\".json", "fio-multi.json"),
    "name with a newline": named("zz-two\nlines.log", "raw_bw.1.log"),
    "name with <script>": named("zz-<script>alert(1)<%2Fscript>.txt", "mdtest-easy-write.txt"),
    "folder <!--<script>": hostile_folder("zz-<!--<script>"),
    "folder with quotes and newline": hostile_folder("zz-\"'\nx"),
    # names whose bytes are not UTF-8 (kept as bytes, shown printable)
    "file name not UTF-8 (Latin-1)": not_utf8_name(b"zz-caf\xe9.log", "mdtest.log"),
    "file name not UTF-8 (lone bytes)": not_utf8_name(b"zz-\xff\xfe\x80.json", "fio-multi.json"),
    "folder name not UTF-8": not_utf8_folder(b"zz-r\xe9sultats"),
    # paths given or found that cannot be read
    "unreadable folder": unreadable_folder,
    "path argument that does not exist": missing_argument,
    # real variants of good logs: the rows of the plain log
    "gzip fio json": variant("fio-multi.json", gzip.compress, "gz"),
    "xz mdtest csv": variant("mdtest-easy-write.csv", lzma.compress, "xz"),
    "bzip2 mdtest text": variant("mdtest.log", bz2.compress, "bz2"),
    "zstd io500 result ini": variant("result.txt", lambda b: zstandard.ZstdCompressor().compress(b), "zst"),
    "utf-16 fio json": variant("fio-multi.json", lambda b: b.decode().encode("utf-16"), "u16"),
    "utf-8 BOM ior summary csv": variant("ior-summary.csv", lambda b: b"\xef\xbb\xbf" + b, "bom"),
    "CRLF mdtest rank csv": variant("mdtest-easy-write.csv", lambda b: b.replace(b"\n", b"\r\n"), "crlf"),
    "NUL tail fio bw log": variant("raw_bw.1.log", lambda b: b + b"\0" * 8192, "nul"),
    "CRLF gpfs mmlsconfig": variant("mmlsconfig", lambda b: b.replace(b"\n", b"\r\n"), "crlf"),
    # broken containers and bytes
    "gzip cut in half": corrupt_compressed("gz", gzip.compress, "gzip"),
    "xz cut in half": corrupt_compressed("xz", lzma.compress, "xz"),
    "zstd cut in half": corrupt_compressed("zst", lambda b: zstandard.ZstdCompressor().compress(b), "zstd"),
    "invalid UTF-8 in an mdtest log": invalid_utf8,
    "binary executable": binary_file,
    "empty file": empty_file,
    "20 MB single line": long_single_line(20_000_000, b"", r"^truncated: line 1 ends without a newline"),
    "2 MB single line with its newline": long_single_line(2_000_000, b"\n", None),
    # two tools in one file
    "ior then mdtest in one file": concatenated_ior_and_mdtest,
    "two IOR JSON runs in one file": lambda folder, tmp: (
        (folder / "zz-two.json").write_bytes(good("ior.json") * 2),
        Bad(folder / "zz-two.json", "ok", r"^$", tables={"raw_ior_tests": 2}))[1],
    "IOR JSON then an mdtest log": lambda folder, tmp: (
        (folder / "zz-json-then-mdtest.log").write_bytes(good("ior.json") + good("mdtest.log")),
        Bad(folder / "zz-json-then-mdtest.log", "ok", r"^$", tables={"raw_ior_tests": 1, "raw_mdtest_results": 10}))[1],
    "IOR JSON then an io500 config": lambda folder, tmp: (
        (folder / "zz-json-then-ini.log").write_bytes(good("ior.json") + IO500_CONFIG.read_bytes()),
        Bad(folder / "zz-json-then-ini.log", "error", r"^text after the IOR JSON document that is not another one$",
            good("ior.json").count(b"\n") + 1))[1],
    "IOR log then fio JSON": outputs("ior-easy-write.txt", "fio-multi.json"),
    "fio JSON written twice": outputs("fio-multi.json", "fio-multi.json"),
    "IOR log then vmstat": outputs("ior-easy-write.txt", "vmstat.txt"),
    "IOR log then a fio JSON cut in half": outputs("ior-easy-write.txt", "fio-multi.json", cut_last=True),
    "IOR log then IOR JSON": ior_text_then_ior_json,
    # large fio logs, streamed into the store in pieces
    "streamed fio bw log": streamed(lambda b: b, "ok", r"^$"),
    "streamed fio bw log cut in a number": streamed(
        cut_in_last_number, "ok", r"^truncated: line \d+ ends without a newline, so it was cut short; the lines before "
        r"it were loaded$", lambda b: cut_in_last_number(b).count(b"\n") + 1),
    "streamed fio bw log with a bad line in a later piece": streamed(
        bad_line_in_a_later_piece, "error", r"^not a fio log line of 5 integers: '\d+, x", 10),
    "streamed fio bw log with a NUL tail": streamed(lambda b: b + b"\0" * 8192, "ok", r"^$"),
    # cut or empty outputs: an error, never ok with part of their rows
    "mdtest log cut inside its SUMMARY": mdtest_cut_in_summary,
    "IOR JSON without results": ior_json_without_results,
    "mdtest rank csv with its header only": rank_csv_header_only,
    "io500 stdout of a run stopped before its first result": stopped_early(
        IO500_RUN / "stdout.log", r"^IO500 stopped before its first phase result: stonewall-time 10s != 300s; "
        r"Write phase needed 7\.387464s", 2),
    "io500 result_summary of a run stopped before its first result": stopped_early(
        IO500_RUN / "2026.11.21-12.37.24" / "result_summary.txt", r"^IO500 stopped before its first phase result$", 1),
    "md-workbench output cut before its first phase": mdworkbench_cut(
        b"precreate process", "error", r"^no md-workbench phase result: the output ends before its first phase$"),
    "md-workbench output cut in a number": mdworkbench_cut(
        None, "ok", r"^truncated: line \d+ ends without a newline, so it was cut short; the lines before it were loaded$"),
    # a tool's own error output: a failed run of that tool
    "ior error (missing directory)": tool_error(BUILT_TOOLS / "ior" / "ior_error_nonexistent_dir_np2.log", "ior",
                                                r"^IOR stopped with an error before any result: ERROR: open64", 34),
    "ior error (bad block size)": tool_error(
        IOR_HERE / "ior_error_bad_block_size_np2.log", "ior",
        r"^IOR stopped with an error before any result: ERROR: block size must be a multiple of transfer size", 1),
    "ior error with summaryFile (missing directory)": tool_error(
        IOR_HERE / "ior_summaryfile_error_nonexistent_dir_np2.log", "ior",
        r"^IOR stopped with an error before any result: ERROR: open64\(", 11),
    "ior summaryFile JSON cut by the abort": tool_error(
        IOR_HERE / "ior_summaryfile_error_nonexistent_dir_np2.summary.json", "ior", r"^IOR JSON unreadable", 78),  # 77 lines: it ends after '"Results": ['
    # IOR's stdout when -O summaryFile= took its results: IOR output, with no rows of its own
    "ior stdout with summaryFile": ior_output(IOR_HERE / "ior_summaryfile_json_np2.log", {"raw_ior_tests": 0}),
    "ior summaryFile JSON": ior_output(IOR_HERE / "ior_summaryfile_json_np2.summary.json", {
        "raw_ior_tests": 1, "raw_ior_iterations": 2, "raw_ior_summary": 2}),
    "mdtest error (shared dir with several)": tool_error(
        BUILT_TOOLS / "mdtest" / "mdtest_error_multi_dir_shared_np2.log", "mdtest",
        r"shared directory mode is not compatible with multiple directory paths", 5),
    "fio unrecognized option": tool_error(FIO_ERRORS / "unrecognized-option.txt", "fio",
                                          r"^fio failed: fio: unrecognized option '--badopt=1'$", 1),
    "fio failed parsing rw": tool_error(FIO_ERRORS / "failed-parsing-rw.txt", "fio",
                                        r"^fio failed: fio: failed parsing rw=wriet$", 1),
    "fio failed parsing bs": tool_error(FIO_ERRORS / "failed-parsing-bs.txt", "fio",
                                        r"^fio failed: fio: failed parsing bs=abc$", 1),
    "fio job file bad option": tool_error(FIO_ERRORS / "jobfile-bad-option.txt", "fio",
                                          r"^fio failed: Bad option <badoption=7>; fio: job job1 dropped$", 1),
    "fio engine not loadable": tool_error(FIO_ERRORS / "engine-not-loadable.txt", "fio",
                                          r"^fio failed: fio: engine nosuch not loadable; fio: failed to load engine", 1),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", list(CASES), ids=[re.sub(r"\W", "_", c) for c in CASES])
def test_bad_input(case, clean_digest, empty_db, tmp_path, monkeypatch):
    folder = _make_good_tree(tmp_path / "tree")
    setup = CASES[case]
    bad = setup(folder, tmp_path, monkeypatch) if "monkeypatch" in setup.__code__.co_varnames else setup(folder, tmp_path)
    db = tmp_path / "bad.duckdb"
    counts = ingest_into(db, empty_db, [folder, *bad.extra])
    assert good_files_digest(db, folder) == clean_digest  # rows lost 0: every good file as in a clean ingest
    con = store.open_read(db)
    try:
        shown = store.printable_path(str(bad.path))  # a name that is not UTF-8 is stored printable
        recorded = con.execute("SELECT status, coalesce(error, ''), error_line FROM sources WHERE path = ?",
                               [shown]).fetchone()
        tool = con.execute("SELECT tool FROM sources WHERE path = ?", [shown]).fetchone()
    finally:
        con.close()
    assert recorded is not None, f"{bad.path} not recorded"
    status, reason, line = recorded
    assert status == bad.status and re.search(bad.reason, reason), recorded
    assert line == bad.line, recorded
    assert bad.tool is None or tool == (bad.tool,)
    stored = rows_of(db, bad.path) if status != "skipped" else {}
    if bad.rows_like is None and status != "ok":
        assert stored == {}  # a refused file stores nothing
    elif bad.rows_like is not None:
        alone = tmp_path / "alone"  # under the same name: fio logs take their kind from it
        alone.mkdir()
        (alone / bad.path.name).write_bytes(bad.rows_like)
        ingest_into(tmp_path / "alone.duckdb", empty_db, [alone])
        assert stored == rows_of(tmp_path / "alone.duckdb", alone / bad.path.name) != {}
    for table, n in bad.tables.items():
        assert len(stored.get(table, [])) == n, table
    if bad.parts:
        expected = Counter()
        for k, part in enumerate(bad.parts):
            alone = tmp_path / f"part-{k}"
            alone.mkdir()
            (alone / bad.path.name).write_bytes(part)
            ingest_into(tmp_path / f"part-{k}.duckdb", empty_db, [alone])
            rows = rows_of(tmp_path / f"part-{k}.duckdb", alone / bad.path.name)
            assert rows, f"part {k} gives no rows alone"
            if k == 0:  # the first output's rows as it gives them alone
                assert all(not Counter(r) - Counter(stored.get(t, [])) for t, r in rows.items())
            expected.update({t: len(r) for t, r in rows.items()})
        assert {t: len(r) for t, r in stored.items()} == dict(expected)  # every part's rows, none dropped
    assert counts["failed"] == (status == "error")


def test_a_fio_job_that_fails_to_start_is_stored_with_its_error(tmp_path):
    """fio ran and reported the job: its error number is the job's (err=22 in both files, EINVAL)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("missing-size.txt", "missing-size.json"):
        shutil.copyfile(FIO_ERRORS / name, folder / name)
    counts = ingest([folder], tmp_path / "t.duckdb", progress=False)
    con = store.open_read(tmp_path / "t.duckdb")
    assert counts["parsed"] == 2
    assert con.execute("SELECT error, rw FROM raw_fio_jobs ORDER BY source_id").fetchall() == [(22, "read")] * 2


def test_names_not_utf8_keep_their_bytes_and_show_printable(tmp_path, monkeypatch, capsys):
    """A file and a folder named in Latin-1 (an old NFS export): sources keeps each path's bytes and shows it
    with \\xNN for the bytes that are not UTF-8; a second ingest finds them unchanged; the Data chapter lists
    them, its downloads are written (and anonymized) and a failed one is printed, all without an error."""
    from iobook.book.anonymize import Anonymizer, _anonymized_file
    from iobook.studies import data

    folder = _make_good_tree(tmp_path / "tree")
    (folder / os.fsdecode(b"r\xe9sultats")).mkdir()
    names = {os.fsdecode(b"caf\xe9.log"): good("mdtest.log"),
             os.fsdecode(b"r\xe9sultats/ior-\xff.json"): good("ior.json"),
             os.fsdecode(b"\xe9chec.log"): (BUILT_TOOLS / "ior" / "ior_error_nonexistent_dir_np2.log").read_bytes()}
    for name, content in names.items():
        (folder / name).write_bytes(content)
    db = tmp_path / "t.duckdb"
    counts = ingest([folder], db, progress=False)
    assert counts["parsed"] == len(GOOD) + 2 and counts["failed"] == 1
    assert f"error: {folder}/\\xe9chec.log:34: IOR stopped" in capsys.readouterr().out
    con = store.open_read(db)
    stored = dict(con.execute("SELECT path_bytes, path FROM sources WHERE path_bytes IS NOT NULL").fetchall())
    assert stored == {os.fsencode(folder / n): str(folder / n).encode("utf-8", "surrogateescape")
                      .decode("utf-8", "backslashreplace") for n in names}
    assert f"{folder}/r\\xe9sultats/ior-\\xff.json" in stored.values()
    # rows as the same logs give under a UTF-8 name
    assert rows_of(db, folder / os.fsdecode(b"caf\xe9.log")) == rows_of(db, folder / "mdtest.log")
    con.close()
    assert ingest([folder], db, progress=False)["unchanged"] == len(GOOD) + len(names)

    monkeypatch.chdir(tmp_path)  # the downloads go to ./_static/downloads
    con = store.open_read(db)
    listed = data.get_sources(con)
    assert listed["path"].str.contains("caf\\xe9.log", regex=False).sum() == 1
    assert data.get_failed(con)["path"].str.endswith("\\xe9chec.log").sum() == 1
    assert store.reader_paths(con, listed["path"]).str.startswith("/").sum() == 0
    assert data.get_files_by_kind(con)["files"].sum() == len(GOOD) + len(names)
    exported = data.export_parquet(con).set_index("view")
    assert exported.loc["sources", "rows"] == len(GOOD) + len(names)
    con.close()
    sources_file = next((tmp_path / "_static" / "downloads").glob("database-*/sources.parquet"))
    anon = Anonymizer(kinds={str(tmp_path): "/path-0000000a"})
    assert str(tmp_path).encode() not in _anonymized_file(anon, sources_file)
