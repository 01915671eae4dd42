"""IOR's JSON output (summaryFormat=JSON), IOR 3.3 to 4.1+dev: every document of a file, one run each.

Its records are those of ior_records; the tests of a file of several documents (runs appended to one log) are
numbered on through them.
"""
from __future__ import annotations

import json
import re

from . import DETECT_BYTES, Format, ParseError, Parsed, detect, json_float
from .ior_records import ACCESSES, IorIteration, IorSummary, IorTest, derived_nodes, machine_host, orderings

JSON_START = re.compile(r'^\{\s*"Version"\s*:', re.M)


def _first_wins(pairs: list[tuple]) -> dict:
    """IOR's JSON repeats keys (its summary prints segmentCount, blockSize, transferSize twice); keep the first."""
    out: dict = {}
    for key, value in pairs:
        out.setdefault(key, value)
    return out


def _results(value) -> list[tuple[int | None, dict]]:
    """Results is a flat list in IOR 4, a list per iteration in IOR 3.3: (iteration or None, row)."""
    out = []
    for i, item in enumerate(value if isinstance(value, list) else []):
        if isinstance(item, list):
            out.extend((i, row) for row in item if isinstance(row, dict))
        elif isinstance(item, dict):
            out.append((None, item))
    return out


def _json_int(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def parse_json(text: str) -> Parsed:
    """Every IOR JSON document of the file, one after another (runs appended to one log), then, when another
    tool's output follows, where they end; any other text after a document is an error, never silently
    dropped."""
    start = JSON_START.search(text)
    if start is None:
        raise ParseError("no IOR JSON object (a line starting '{ \"Version\":')", 1)
    decoder = json.JSONDecoder(object_pairs_hook=_first_wins)
    records: list = []
    version = None
    pos, run_index = start.start(), 0
    first_line = text.count("\n", 0, pos) + 1
    while True:
        try:
            doc, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise ParseError(f"IOR JSON unreadable: {e.msg}", e.lineno) from None
        if not isinstance(doc, dict):
            raise ParseError("IOR JSON is not an object", first_line)
        version = version or doc.get("Version")
        records += _json_run(doc, run_index, sum(isinstance(r, IorTest) for r in records), first_line)
        # Counted from the last document on, never from the start: a long file of documents stays linear.
        first_line += text.count("\n", pos, end)
        pos = BLANKS.match(text, end).end()
        first_line += text.count("\n", end, pos)
        if pos == len(text):
            return Parsed(format="ior-json", tool="ior", tool_version=version, records=records, start=start.start())
        if not NEXT_JSON.match(text, pos):
            if detect(text[pos:pos + DETECT_BYTES]):  # another tool's output, which ingest reads next
                return Parsed(format="ior-json", tool="ior", tool_version=version, records=records, start=start.start(),
                              end=pos)
            raise ParseError("text after the IOR JSON document that is not another one", first_line)
        run_index += 1


NEXT_JSON = re.compile(r'\{\s*"Version"\s*:')
BLANKS = re.compile(r"\s*")


def _json_run(doc: dict, run_index: int, first_index: int, first_line: int) -> list:
    """The records of one IOR JSON document, its tests numbered from `first_index`."""
    tests = doc.get("tests")
    if not isinstance(tests, list) or not tests:
        raise ParseError("IOR JSON has no tests", first_line)
    command, version = doc.get("Command line"), doc.get("Version")
    summaries = [s for s in doc.get("summary") or [] if isinstance(s, dict)]
    records: list = []
    for index, test in enumerate(tests, first_index):
        if not isinstance(test, dict):
            raise ParseError(f"IOR JSON test {index - first_index} is not an object", first_line)
        params = test.get("Parameters") if isinstance(test.get("Parameters"), dict) else {}
        options = test.get("Options") if isinstance(test.get("Options"), dict) else {}
        test_id = _json_int(test.get("TestID"))
        tasks = _json_int(options.get("tasks"))
        per_node = _json_int(params.get("tasksPerNode"))
        fpp = params.get("filePerProc")
        records.append(IorTest(
            test_index=index, run_index=run_index, layout="json", version=version, ior_test_id=test_id,
            began=doc.get("Began"), host=machine_host(doc.get("Machine")), command=command,
            api=params.get("api") or options.get("api"), tasks=tasks,
            tasks_per_node=per_node, nodes=_json_int(params.get("nodes")) or derived_nodes(tasks, per_node),
            segments=_json_int(params.get("segmentCount")), transfer_bytes=_json_int(params.get("transferSize")),
            block_bytes=_json_int(params.get("blockSize")), sizes_from="options",
            file_per_proc=bool(fpp) if fpp is not None else None, repetitions=_json_int(params.get("repetitions")),
            stonewall_s=_json_int(params.get("deadlineForStonewall")) or None,  # 0: no deadline
            stonewall_pairs_min=None, stonewall_pairs_max=None, rank_csv=None, finished="Finished" in doc,
            **orderings(options),
        ))
        seen: dict[str, int] = {}
        results = len(records)
        for iteration, row in _results(test.get("Results")):
            access = row.get("access")
            if access not in ACCESSES:
                raise ParseError(f"IOR JSON result with access {access!r}", first_line)
            seen[access] = seen.get(access, -1) + 1
            records.append(IorIteration(
                test_index=index, access=access, iteration=iteration if iteration is not None else seen[access],
                bw_mib_s=json_float(row.get("bwMiB")), iops=json_float(row.get("iops")),
                latency_s=json_float(row.get("latency")),
                block_kib=json_float(row.get("blockKiB")), xfer_kib=json_float(row.get("xferKiB")),
                open_s=json_float(row.get("openTime")), wrrd_s=json_float(row.get("wrRdTime")),
                close_s=json_float(row.get("closeTime")), total_s=json_float(row.get("totalTime")),
            ))
        for s in summaries:
            if _json_int(s.get("TestID")) != test_id or json_float(s.get("bwMaxMIB")) is None:
                continue
            records.append(IorSummary(
                test_index=index, access=str(s.get("operation")), bw_max_mib_s=json_float(s.get("bwMaxMIB")),
                bw_min_mib_s=json_float(s.get("bwMinMIB")), bw_mean_mib_s=json_float(s.get("bwMeanMIB")),
                bw_std_mib_s=json_float(s.get("bwStdMIB")), ops_max=json_float(s.get("OPsMax")),
                ops_min=json_float(s.get("OPsMin")), ops_mean=json_float(s.get("OPsMean")),
                ops_std=json_float(s.get("OPsSD")),
                mean_time_s=json_float(s.get("MeanTime")), stonewall_time_s=None, stonewall_bw_mib_s=None,
                iterations=_json_int(s.get("repetitions")),
            ))
        if len(records) == results:  # as a text log's test without a result row
            raise ParseError(f"IOR JSON test {index - first_index} has no results", first_line)
    return records


FORMATS = (
    Format(name="ior-json", tool="ior", detect=lambda head: '"tests"' in head and bool(JSON_START.search(head)),
           parse=parse_json),
)
