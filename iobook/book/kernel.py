"""The kernel a chapter executes in: papermill's, over Unix sockets, computing on what every x86-64 CPU runs alike.

numpy picks vector paths (AVX2, AVX-512) and OpenBLAS a kernel by the CPU it finds, and their last bits differ: a
chapter executed on one machine had other digits for a bw log's slope (np.polyfit) and a Spearman rho than on
another (issue 37 and its sequel), so other download names and chart ids, and nbval failed on the committed
chapters. A chapter's kernel turns numpy's dispatched paths off, takes OpenBLAS's baseline kernel and one BLAS
thread: its numbers are those of any machine.
"""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

# OpenBLAS's kernel for the x86-64 baseline (SSE3), which its DYNAMIC_ARCH builds hold
BLAS_BASELINE_CORE = "Prescott"


def baseline_environment() -> dict[str, str]:
    """The environment variables that make numpy and OpenBLAS compute as on a CPU with only the baseline."""
    import numpy._core._multiarray_umath as numpy_umath

    return {"NPY_DISABLE_CPU_FEATURES": " ".join(numpy_umath.__cpu_dispatch__), "OPENBLAS_CORETYPE": BLAS_BASELINE_CORE,
            "OPENBLAS_NUM_THREADS": "1"}


@contextmanager
def _environment(values: dict[str, str]):
    """os.environ with `values` while the block runs (a kernel inherits it), as it was afterwards."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _ipc_kernel():
    """A kernel manager whose kernel talks over Unix sockets in a private folder: over TCP (the default),
    ipykernel warns on every chapter that its traffic is unencrypted."""
    from jupyter_client.manager import KernelManager

    with tempfile.TemporaryDirectory(prefix="iobook-kernel-") as folder:
        km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(folder) / "kernel"))
        try:
            yield km
        finally:  # papermill leaves a kernel it did not start running: shut it down before its sockets go
            if km.has_kernel:
                km.shutdown_kernel(now=True)


def execute(template: Path, output: Path, parameters: dict, cwd: Path) -> None:
    """papermill's execution of `template` with `parameters` into `output`, in `cwd`, in a baseline kernel
    (raises papermill.PapermillExecutionError with the failing cell)."""
    import papermill

    with _ipc_kernel() as km, _environment(baseline_environment()):
        papermill.execute_notebook(str(template), str(output), parameters=parameters, cwd=str(cwd),
                                   kernel_name="python3", progress_bar=False, km=km)
