"""The book's numbers do not depend on the machine that computes them. On a 2-core AMD EPYC with AVX2 and no
AVX-512, the committed chapters came out with other last digits (`135.6986163786736` against
`135.69861637867356`) and so other chart ids and download names (issue 37): numpy's log and exp take the vector
path the CPU offers, and its AVX-512 and AVX2 paths differ in the last bit. Here numpy is started with every
vector path it could choose turned off (NPY_DISABLE_CPU_FEATURES: what a CPU with only its baseline gets),
DuckDB with one thread instead of two and BLAS with one, on a database ingested at once."""
import json
import os
import subprocess
import sys

import nbformat
import numpy._core._multiarray_umath as numpy_umath
import pytest

from iobook import chapters

from conftest import REPO

# numpy's dispatched CPU features on this machine (X86_V3, X86_V4, AVX512_*; NEON's on ARM): all turned off
BASELINE_ONLY = {"NPY_DISABLE_CPU_FEATURES": " ".join(numpy_umath.__cpu_dispatch__),
                 "OPENBLAS_NUM_THREADS": "1", "IOBOOK_DUCKDB_THREADS": "1"}

# Every numeric column of four published tables (seed 000's checksum and SC23 tables, seed 002's phase tables,
# seed 003's snapshot table) through the evidence model: halves compared, the whole estimated.
EVIDENCE_ON_PUBLISHED = """
import json, sys
import pandas as pd
from iobook import evidence
from iobook.evidence import Replicate
bits = []
for name in ["seed000_checksum_cpu_memory", "seed000_sc23_io500", "seed002_phase_tables", "seed003_snapshot_mdtest"]:
    frame = pd.read_csv(f"data/published/{name}.csv")
    for _, group in frame.groupby(["table", "column"] if "column" in frame else ["table"]):
        v = group["value"].dropna()
        v = v[v > 0].tolist()
        if len(v) >= 4:
            c = evidence.compare(v[: len(v) // 2], v[len(v) // 2:], quantity="q", unit="", family="f",
                                 replicate=Replicate.RUN)
            e = evidence.estimate(v, quantity="q", unit="", replicate=Replicate.RUN)
            bits.append([float(x).hex() for x in (evidence.geometric_mean(v), c.ratio, c.low, c.high, e.low, e.high)])
json.dump(bits, sys.stdout)
"""


def evidence_bits(environment: dict[str, str]) -> list:
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", EVIDENCE_ON_PUBLISHED], cwd=REPO, check=True,
                          capture_output=True, text=True, env={**os.environ, **environment})
    return json.loads(done.stdout)


def test_evidence_has_the_same_bits_without_the_cpus_vector_paths():
    # before the fix: 2 of the 14 groups' geometric means or interval ends differed in their last bit
    default = evidence_bits({})
    assert len(default) == 14
    assert evidence_bits(BASELINE_ONLY) == default


def code_outputs(path) -> list:
    """Every code cell's outputs but papermill's injected parameters (they hold the database's relative path)."""
    return [cell.get("outputs", []) for cell in nbformat.read(path, 4).cells
            if cell.cell_type == "code" and "injected-parameters" not in cell.metadata.get("tags", [])]


def test_published_chapters_do_not_depend_on_cpu_threads_or_ingest_order(tmp_path, monkeypatch):
    """Also on a database ingested at once: the published chapters may come from one that grew file by file
    (ingest numbers rows in the order it meets files; those ids once reached chart data)."""
    from iobook.ingest import ingest

    db = tmp_path / "at-once.duckdb"
    ingest([REPO / "data" / "raw"], db, progress=False)
    for key, value in BASELINE_ONLY.items():  # the kernels papermill starts inherit them
        monkeypatch.setenv(key, value)
    summary = chapters.run_chapters(db, out_dir=tmp_path, force=True, progress=False)
    failed = [row for row in summary if row["status"] != "executed"]
    assert not failed, failed
    differ = [row["chapter"] for row in summary
              if code_outputs(tmp_path / f"{row['chapter']}.ipynb") != code_outputs(REPO / "book" / f"{row['chapter']}.ipynb")]
    assert differ == []
