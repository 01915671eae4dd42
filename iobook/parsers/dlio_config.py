"""The Hydra configuration DLIO ran with: configs/config.yaml in each host's folder of a run.

Hydra writes the composed configuration, all under "workload:": the model, the data set (files, samples per
file, record length in bytes), the reader (batch size, threads), the epochs and computation time per step, the
AU the run must reach (metric.au, a fraction) and the storage. It does not hold the accelerator type, which is
in the name of the workload chosen (overrides.yaml's "workload=unet3d_a100": parsers/hydra_overrides.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed, first_line
from .fields import Fields

FORMAT_NAME = "dlio-config"
WHAT = "DLIO config.yaml"
SECTION = re.compile(r"\n  (?:dataset|reader|train):\n")  # a section of DLIO's workload, indented by Hydra


@dataclass(frozen=True, kw_only=True)
class DlioConfig:
    TABLE: ClassVar[str] = "raw_dlio_configs"
    model: str
    framework: str | None
    data_folder: str | None
    dataset_format: str | None
    num_files_train: int
    num_files_eval: int | None
    num_samples_per_file: int
    num_subfolders_train: int | None
    record_length_bytes: float | None
    record_length_stdev_bytes: float | None
    record_length_resize_bytes: float | None
    data_loader: str | None
    batch_size: int | None
    read_threads: int | None
    computation_threads: int | None
    prefetch_size: int | None
    transfer_size: int | None
    file_shuffle: str | None
    sample_shuffle: str | None
    shuffle_size: int | None
    epochs: int | None
    computation_time_s: float | None
    au_min: float | None  # the AU the run must reach, a fraction (0.9)
    storage_type: str | None
    storage_root: str | None
    checkpoint_folder: str | None
    checkpoint: bool | None
    generate_data: bool | None
    train: bool | None


def _detect(head: str) -> bool:
    return first_line(head).rstrip() == "workload:" and "\n  model: " in head and SECTION.search(head) is not None


def parse(text: str) -> Parsed:
    import yaml  # here: an ingest that meets no YAML should not pay for the import

    try:
        doc = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.MarkedYAMLError as e:
        raise ParseError(f"invalid {WHAT}: {e.problem}", e.problem_mark.line + 1 if e.problem_mark else None) from None
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as e:  # a date YAML cannot hold ("2024-02-30")
        raise ParseError(f"{WHAT} unreadable: {type(e).__name__}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("workload"), dict):
        raise ParseError(f"{WHAT} without a 'workload:' mapping", 1)
    f = Fields(text, WHAT, "{}:")
    w = doc["workload"]
    dataset, reader, train = f.mapping(w, "dataset"), f.mapping(w, "reader", optional=True), f.mapping(
        w, "train", optional=True)
    checkpoint, workflow = f.mapping(w, "checkpoint", optional=True), f.mapping(w, "workflow", optional=True)
    storage, metric = f.mapping(w, "storage", optional=True), f.mapping(w, "metric", optional=True)
    count = {"optional": True}
    # YAML 1.1 reads 1e6 (no dot) as a string: a number written so is still the number
    size = {"optional": True, "text_ok": True}
    return Parsed(format=FORMAT_NAME, tool="dlio", tool_version=None, records=[DlioConfig(
        model=f.string(w, "model"), framework=f.string(w, "framework", optional=True),
        data_folder=f.string(dataset, "data_folder", optional=True),
        dataset_format=f.string(dataset, "format", optional=True),
        num_files_train=f.integer(dataset, "num_files_train"),
        num_files_eval=f.integer(dataset, "num_files_eval", **count),
        num_samples_per_file=f.integer(dataset, "num_samples_per_file"),
        num_subfolders_train=f.integer(dataset, "num_subfolders_train", **count),
        record_length_bytes=f.number(dataset, "record_length", **size),
        record_length_stdev_bytes=f.number(dataset, "record_length_stdev", **size),
        record_length_resize_bytes=f.number(dataset, "record_length_resize", **size),
        data_loader=f.string(reader, "data_loader", optional=True),
        batch_size=f.integer(reader, "batch_size", **count), read_threads=f.integer(reader, "read_threads", **count),
        computation_threads=f.integer(reader, "computation_threads", **count),
        prefetch_size=f.integer(reader, "prefetch_size", **count),
        transfer_size=f.integer(reader, "transfer_size", **count),
        file_shuffle=f.string(reader, "file_shuffle", optional=True),
        sample_shuffle=f.string(reader, "sample_shuffle", optional=True),
        shuffle_size=f.integer(reader, "shuffle_size", **count),
        epochs=f.integer(train, "epochs", **count),
        computation_time_s=f.number(train, "computation_time", **size),
        au_min=f.number(metric, "au", **size),
        storage_type=f.string(storage, "storage_type", optional=True),
        storage_root=f.string(storage, "storage_root", optional=True),
        checkpoint_folder=f.string(checkpoint, "checkpoint_folder", optional=True),
        checkpoint=f.boolean(workflow, "checkpoint", optional=True),
        generate_data=f.boolean(workflow, "generate_data", optional=True),
        train=f.boolean(workflow, "train", optional=True))])


FORMATS = (Format(name=FORMAT_NAME, tool="dlio", detect=_detect, parse=parse),)
RECORDS = (DlioConfig,)
