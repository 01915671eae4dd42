"""The book's numbers do not depend on the machine that computes them. On a 2-core AMD EPYC with AVX2 and no
AVX-512, the committed chapters came out with other last digits (`135.6986163786736` against
`135.69861637867356`) and so other chart ids and download names (issue 37): numpy's log and exp take the vector
path the CPU offers, and its AVX-512 and AVX2 paths differ in the last bit. Every kernel the tests start runs with
every vector path numpy could choose turned off (NPY_DISABLE_CPU_FEATURES: what a CPU with only its baseline
gets), DuckDB with one thread instead of two and BLAS with one (conftest.baseline_only), so nbval's run of the
published chapters compares such an execution with the committed one, which `make book` made with all of them; on
a fresh clone (CI) nbval's database is ingested at once, where the committed chapters' grew file by file. Here:
that the kernels get those settings, and the evidence model's bits without the vector paths. OpenBLAS picks its
kernel by CPU too, and a bw log's slope (np.polyfit) and a Spearman rho changed with it: a chapter's own kernel
computes on every CPU's baseline (iobook.book.kernel)."""
import json
import os
import subprocess
import sys

import pytest
from conftest import REPO, baseline_only

# Every numeric column of four published tables (seed 000's checksum and SC23 tables, seed 002's phase tables,
# seed 003's snapshot table) through the evidence model: halves compared, the whole estimated.
EVIDENCE_ON_PUBLISHED = """
import json, sys
import pandas as pd
from iobook.inference import evidence
from iobook.inference.evidence import Replicate
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
    """The bits of the records, computed in a process started with `environment` and without the tests' settings."""
    clean = {k: v for k, v in os.environ.items() if k not in baseline_only()}
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", EVIDENCE_ON_PUBLISHED], cwd=REPO, check=True,
                          capture_output=True, text=True, env={**clean, **environment})
    return json.loads(done.stdout)


def test_evidence_has_the_same_bits_without_the_cpus_vector_paths():
    # before the fix: 2 of the 14 groups' geometric means or interval ends differed in their last bit
    default = evidence_bits({})
    assert len(default) == 14
    assert evidence_bits(baseline_only()) == default


@pytest.mark.slow
def test_kernels_the_tests_start_compute_on_the_baseline_only():
    shown = subprocess.run([sys.executable, "-c", "import os, numpy, iobook.database.store as s; "
                            "print(s.DUCKDB_THREADS, os.environ['OPENBLAS_NUM_THREADS'], os.environ['OPENBLAS_CORETYPE'], "
                            "sorted(k for k, on in numpy._core._multiarray_umath.__cpu_features__.items() "
                            "if on and k in numpy._core._multiarray_umath.__cpu_dispatch__))"],
                           cwd=REPO, check=True, capture_output=True, text=True).stdout.strip().split(maxsplit=3)
    assert shown == ["1", "1", "Prescott", "[]"]


@pytest.mark.slow
def test_a_chapters_kernel_computes_on_every_cpus_baseline(tmp_path, monkeypatch):
    # `make book` wrote History's and the IO500 archive's chapters on an AMD EPYC (OpenBLAS's Haswell kernel,
    # numpy's AVX2 paths); nbval's baseline run of them gave other last bits for a bw log's slope (np.polyfit,
    # pagecache read-buffered-ra1024 run 9: 4.45301455326 against ...327 at 12 digits) and a Spearman rho, so other
    # download names and chart ids. The kernel a chapter runs in now computes on the same paths on every CPU.
    import nbformat

    from iobook.book import kernel

    for name in baseline_only():  # what the test run set for itself must not be what the kernel shows
        monkeypatch.delenv(name, raising=False)
    template = tmp_path / "probe.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os, numpy\nprint(os.environ['OPENBLAS_CORETYPE'], os.environ['OPENBLAS_NUM_THREADS'], "
        "sorted(k for k, on in numpy._core._multiarray_umath.__cpu_features__.items() "
        "if on and k in numpy._core._multiarray_umath.__cpu_dispatch__))")]), template)
    kernel.execute(template, tmp_path / "out.ipynb", {}, tmp_path)
    (cell,) = nbformat.read(tmp_path / "out.ipynb", 4).cells
    assert cell.outputs[0].text.split(maxsplit=2) == ["Prescott", "1", "[]\n"]
