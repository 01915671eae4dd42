"""What a configuration is made of and how it reads: the parameters each tool's log states, the measures, and the
parameters' values as numbers (sizes in bytes) and as a reader sees them ('4k', '1 MiB', 'yes', '–' unknown)."""
from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

# The parameters that define a configuration, per tool, in the order shown; fio's `other` holds the rest.
PARAMETERS = {
    "fio": ["rw", "bs", "iodepth", "numjobs", "direct", "ioengine", "size", "other"],
    "ior": ["api", "transfer", "block", "segments", "tasks", "nodes", "file_per_proc", "collective",
            "ordering_in_file", "ordering_inter_file", "stonewall"],
    "mdtest": ["items", "item_kind", "tasks", "nodes", "branching", "depth", "unique_dir", "write_bytes",
               "read_bytes", "stonewall"],
    "dlio": ["accelerators", "hosts", "files_train", "record_length", "batch_size", "read_threads", "computation_time",
             "epochs"],
}
ALL_PARAMETERS = list(dict.fromkeys(p for ps in PARAMETERS.values() for p in ps))
SHOWN_NAMES = {"file_per_proc": "file per process", "ordering_in_file": "offsets", "ordering_inter_file": "reorder",
               "unique_dir": "unique dir", "item_kind": "items are", "write_bytes": "write bytes",
               "read_bytes": "read bytes", "files_train": "files", "record_length": "record length",
               "batch_size": "batch", "read_threads": "read threads", "computation_time": "computation (s)"}
# Sizes in bytes, as fio writes them ("4k", "1m") or as numbers of bytes (IOR, mdtest).
BYTE_PARAMETERS = {"bs", "size", "transfer", "block", "write_bytes", "read_bytes", "record_length"}
OTHER_SEPARATOR = ", "  # between fio's other options and manifest labels (a label's value may hold spaces)

# Measures, per tool: column -> name shown, with its unit. All are positive (rates, latencies).
MEASURES = {"fio": {"bw_mib_s": "bandwidth (MiB/s)", "ops_s": "IOPS", "lat_ms": "latency (ms)"},
            "ior": {"bw_mib_s": "bandwidth (MiB/s)", "ops_s": "IOPS", "lat_ms": "latency (ms)"},
            "mdtest": {"ops_s": "rate (ops/s)"},
            # DLIO's mean over the epochs, its MB being 2^20 bytes; AU: the share of time the simulated accelerators
            # computed rather than waited for data
            "dlio": {"bw_mib_s": "bandwidth (MiB/s)", "accel_mib_s": "bandwidth per accelerator (MiB/s)",
                     "ops_s": "samples/s", "au_pct": "AU (%)"}}
MEASURE_COLUMNS = ["bw_mib_s", "ops_s", "lat_ms", "accel_mib_s", "au_pct"]
# fio's completion latency percentiles (its default list holds them all; fio_io): column -> name shown
TAIL_PERCENTILES = {"p50_ms": "clat p50", "p99_ms": "clat p99", "p999_ms": "clat p99.9", "p9999_ms": "clat p99.99"}
PERCENTILES = list(TAIL_PERCENTILES)
MAIN_MEASURE = {"fio": "bw_mib_s", "ior": "bw_mib_s", "mdtest": "ops_s", "dlio": "bw_mib_s"}  # what sweeps and comparisons use
UNITS = {"bw_mib_s": "MiB/s", "ops_s": "ops/s", "lat_ms": "ms", "accel_mib_s": "MiB/s", "au_pct": "%"}
TOOL_NAMES = {"fio": "fio", "ior": "IOR", "mdtest": "mdtest", "dlio": "DLIO"}


def cells(column: pd.Series) -> list:
    """A column's values with None for missing ones (pandas gives NaN or NA)."""
    return column.astype(object).where(column.notna(), None).tolist()


def missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def what(measure: str) -> tuple[str, str]:
    """'bandwidth (MiB/s)' -> ('bandwidth', 'MiB/s'); 'IOPS' -> ('IOPS', 'IOPS')."""
    name, _, unit = measure.partition(" (")
    return name, unit.rstrip(")") or name


def plain(value):
    """A parameter value as JSON takes it (numpy scalars to Python; whole floats to int)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) or (isinstance(value, (float, np.floating)) and float(value).is_integer()):
        return int(value)
    return value if isinstance(value, str) else float(value)


FIO_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?", re.I)
SIZE_FACTOR = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
FIO_TEXT_BS = re.compile(r"\(R\)\s*([\d.]+[KMGTP]?i?B)-([\d.]+[KMGTP]?i?B)")


def size_bytes(value) -> float | None:
    """A size in bytes: numbers as they are; fio's '4k', '64KiB', '1m' (powers of 1024, fio's default
    kb_base) and the '(R) 64.0KiB-64.0KiB, (W) ...' of its text output when reads have one size. None for
    what is not one size (a range, one size per direction, a percentage)."""
    if missing(value):
        return None
    if not isinstance(value, str):
        return float(value)
    text = value.strip()
    if m := FIO_TEXT_BS.match(text):
        if m.group(1) != m.group(2):
            return None
        text = m.group(1)
    m = FIO_SIZE.fullmatch(text)
    return float(m.group(1)) * SIZE_FACTOR[m.group(2).lower()] if m else None


def binary_size(n) -> str:
    """Bytes in the largest binary unit that divides them: 1048576 -> '1 MiB', 47008 -> '47008 B'."""
    n = int(n)
    for unit, factor in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


def shown_value(parameter: str, value) -> str:
    """A parameter's value as the reader sees it: '–' unknown, yes/no, sizes in binary units unless fio's."""
    if missing(value):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        if FIO_TEXT_BS.match(value) and (number := size_bytes(value)) is not None and number.is_integer():
            return binary_size(number)  # fio's text output: "(R) 64.0KiB-64.0KiB, (W) ..."
        return value
    if parameter in BYTE_PARAMETERS:
        return binary_size(value)
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def parameter_text(tool: str, stated: dict, only: Iterable[str] | None = None) -> str:
    """'bs=4k iodepth=16 ...': the known parameters of a tool (or of `only` these), as the reader sees them."""
    names = [p for p in PARAMETERS[tool] if only is None or p in only]
    return " ".join(str(stated[p]) if p == "other" else f"{SHOWN_NAMES.get(p, p)}={shown_value(p, stated[p])}"
                    for p in names if not missing(stated.get(p)))


def sort_key(parameter: str, value):
    """Configurations sort by parameter values: unknown first, then numbers (sizes by bytes), then text."""
    if missing(value):
        return (0, 0.0, "")
    number = size_bytes(value) if parameter in BYTE_PARAMETERS else (
        float(value) if isinstance(value, (int, float, np.integer, np.floating)) else None)
    return (1, number, "") if number is not None else (2, 0.0, str(value))


def numeric_values(parameter: str, column: pd.Series) -> pd.Series | None:
    """The parameter's values as numbers (sizes in bytes), or None when one of them is not a number."""
    if parameter in BYTE_PARAMETERS:
        numbers = column.map(size_bytes)
    elif column.map(lambda v: isinstance(v, (int, float, np.integer, np.floating))
                    and not isinstance(v, (bool, np.bool_))).all():
        numbers = column.astype(float)
    else:
        return None
    return None if numbers.isna().any() else numbers.astype(float)


def what_was_run(config: str) -> str:
    """A configuration key without its label and design: equal for the same job run under two labels."""
    return json.dumps(json.loads(config)[1:4])


def distinguishing(configs: Iterable[str]) -> list[str]:
    """What tells configurations (their `config` keys) apart, per configuration: the parameters whose values
    differ among those of its tool, and the ones it leaves unknown that most of them state."""
    rows = [json.loads(c) for c in configs]
    stated = [dict(zip(ALL_PARAMETERS, r[3])) for r in rows]
    out = []
    for (_, tool, *_), v in zip(rows, stated):
        same = [w for (_, t, *_), w in zip(rows, stated) if t == tool]
        names = [p for p in PARAMETERS[tool] if p != "rw"]
        differ = [p for p in names if len({shown_value(p, w[p]) for w in same if w[p] is not None}) > 1]
        usual = [p for p in names if sum(w[p] is not None for w in same) * 2 > len(same)]
        shown = {p: v[p] for p in differ if v[p] is not None}
        if shown.get("other"):  # fio's other options: only those not shared by every configuration that has some
            common = set.intersection(*(set(w["other"].split(OTHER_SEPARATOR)) for w in same if w.get("other")))
            kept = [x for x in v["other"].split(OTHER_SEPARATOR) if x not in common]
            shown["other"] = OTHER_SEPARATOR.join(kept) or None
        text = parameter_text(tool, shown, differ)
        unknown = [SHOWN_NAMES.get(p, p) for p in usual if v[p] is None]
        out.append("; ".join(x for x in (text, f"{', '.join(unknown)} unknown" if unknown else "") if x) or "–")
    return out


def configuration_names(frame: pd.DataFrame) -> list[str]:
    """Each row's configuration (of a frame with tool, workload and config_baseline) as the labels-compared table
    and chart name it: 'fio randread: bs=4k iodepth=1', the tool and workload, then what tells it from the others
    (distinguishing)."""
    return [f"{tool} {workload}" + (f": {p}" if p != "–" else "") for tool, workload, p in
            zip(frame["tool"], frame["workload"], distinguishing(frame["config_baseline"]))]
