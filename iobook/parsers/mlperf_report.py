"""MLPerf Storage's mlperf_storage_report.json: a result's five runs and the mean and stdev it publishes.

`mlpstorage reportgen` (mlcommons/storage v1.0) writes "overall" (model, accelerator type, number of runs, the
accelerators as a string, the mean and stdev of samples/s and MB/s over the runs) and "runs", keyed by the run's
folder name ("run1", or Hydra's "result_unet3d_18_..._iter4_..."), each with its own samples/s and MB/s.
DLIO's MB: 2^20 bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from . import Format, Parsed
from .fields import Fields, load_json

FORMAT_NAME = "mlperf-storage-report"
WHAT = "mlperf_storage_report.json"
MARKS = ('"overall"', '"num_benchmark_runs"')


@dataclass(frozen=True, kw_only=True)
class MlperfReport:
    TABLE: ClassVar[str] = "raw_mlperf_reports"
    model: str
    accelerator: str
    num_benchmark_runs: int
    num_accelerators: int
    num_files_train: int | None
    num_samples_per_file: int | None
    samples_per_s: float  # the published mean over the runs
    samples_per_s_stdev: float
    mb_per_s: float  # DLIO's MB = 2^20 bytes
    mb_per_s_stdev: float


@dataclass(frozen=True, kw_only=True)
class MlperfReportRun:
    TABLE: ClassVar[str] = "raw_mlperf_report_runs"
    position: int  # 1-based, in the file's order
    run_key: str  # the run's folder name as the report keys it
    model: str | None
    accelerator: str | None
    num_accelerators: int | None
    num_files_train: int | None
    num_samples_per_file: int | None
    samples_per_s: float
    mb_per_s: float


def _detect(head: str) -> bool:
    return head.lstrip().startswith("{") and all(mark in head for mark in MARKS)


def parse(text: str) -> Parsed:
    doc = load_json(text, WHAT)
    f = Fields(text, WHAT, '"{}"')
    overall = f.mapping(doc, "overall")
    records: list = [MlperfReport(
        model=f.string(overall, "model"), accelerator=f.string(overall, "accelerator"),
        num_benchmark_runs=f.integer(overall, "num_benchmark_runs"),
        num_accelerators=f.integer(overall, "train_num_accelerators", text_ok=True),
        num_files_train=f.integer(overall, "num_files_train", optional=True),
        num_samples_per_file=f.integer(overall, "num_samples_per_file", optional=True),
        samples_per_s=f.number(overall, "train_throughput_mean_samples_per_second"),
        samples_per_s_stdev=f.number(overall, "train_throughput_stdev_samples_per_second"),
        mb_per_s=f.number(overall, "train_throughput_mean_MB_per_second"),
        mb_per_s_stdev=f.number(overall, "train_throughput_stdev_MB_per_second"))]
    runs = f.mapping(doc, "runs")
    for position, key in enumerate(runs, 1):
        run = f.mapping(runs, key)
        records.append(MlperfReportRun(
            position=position, run_key=key, model=f.string(run, "model", optional=True),
            accelerator=f.string(run, "accelerator", optional=True),
            num_accelerators=f.integer(run, "train_num_accelerators", optional=True, text_ok=True),
            num_files_train=f.integer(run, "num_files_train", optional=True),
            num_samples_per_file=f.integer(run, "num_samples_per_file", optional=True),
            samples_per_s=f.number(run, "train_throughput_samples_per_second"),
            mb_per_s=f.number(run, "train_throughput_MB_per_second")))
    return Parsed(format=FORMAT_NAME, tool="mlperf-storage", tool_version=None, records=records)


# written with json.dump, without a final newline: a cut one is JSON that does not close
FORMATS = (Format(name=FORMAT_NAME, tool="mlperf-storage", detect=_detect, parse=parse, ends_in_newline=False),)
RECORDS = (MlperfReport, MlperfReportRun)
