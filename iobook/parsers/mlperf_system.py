"""An MLPerf Storage system description: Closed/<org>/systems/<system>.json.

The v1.0 template (the Schema.json beside them, not a description: it is not read) states the networks and their
bitrate (Gbit/s), each type of node (CPU, DRAM in MiB, accelerators, NIC ports with their bitrate and count,
drives), the benchmark hosts (each a node of a type) and the storage system (vendor, solution, capacity, its
hardware components). Submitters fill it by hand: accelerator counts are written as ranges ("4-18"), drive
bandwidths as numbers or "10000 MB/s" (the template says GiB/s), so those are kept as written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, Parsed
from .fields import Fields, load_json

FORMAT_NAME = "mlperf-storage-system"
WHAT = "MLPerf Storage system description"
# a description names its node types with a string; the JSON Schema template defines the key with an object
NODE_TYPE_NAMED = re.compile(r'"node_type_name"\s*:\s*"')


@dataclass(frozen=True, kw_only=True)
class MlperfSystem:
    TABLE: ClassVar[str] = "raw_mlperf_systems"
    vendor_name: str | None
    solution_name: str | None
    model_name: str | None
    solution_type: str | None
    version: str | None
    software_defined: str | None
    hyperconverged: str | None
    usable_capacity_gib: float | None
    raw_capacity_gib: float | None
    number_of_benchmark_hosts: int | None


@dataclass(frozen=True, kw_only=True)
class MlperfSystemNetwork:
    TABLE: ClassVar[str] = "raw_mlperf_system_networks"
    network_name: str | None
    network_type: str | None
    bitrate_gbps: float | None  # Gbit/s, as the template states
    protocols: str | None  # joined by ', '


@dataclass(frozen=True, kw_only=True)
class MlperfSystemNode:
    TABLE: ClassVar[str] = "raw_mlperf_system_nodes"
    node_index: int  # 0-based position in "nodes": the key of its ports and drives
    node_type_name: str
    cpu_model: str | None
    cpu_sockets: int | None
    cores_per_socket: int | None
    threads_per_socket: int | None
    dram_mib: float | None  # DRAM.capacity_MiB
    dram_gb: float | None  # DRAM.capacity_GB, where a submitter wrote that instead
    accelerator_model: str | None
    accelerators_stated: str | None  # count_of_this_type as written: a number or a range ("4-18")
    accelerators: int | None  # that count when it is one integer


@dataclass(frozen=True, kw_only=True)
class MlperfSystemPort:
    TABLE: ClassVar[str] = "raw_mlperf_system_ports"
    node_index: int
    network_name: str | None
    bitrate_gbps: float  # Gbit/s per port
    count: int


@dataclass(frozen=True, kw_only=True)
class MlperfSystemDrive:
    TABLE: ClassVar[str] = "raw_mlperf_system_drives"
    node_index: int | None  # null: a drive component of the storage system ("hardware_components")
    drive_type: str | None
    interface: str | None
    model: str | None
    purpose: str | None  # joined by ', '
    capacity_gib: float | None
    capacity_gb: float | None  # hardware_components' disk_capacity_gigabytes
    count: int
    read_peak_bandwidth: str | None  # as written: units vary (the template says GiB/s; files hold MB/s)
    write_peak_bandwidth: str | None


@dataclass(frozen=True, kw_only=True)
class MlperfSystemHost:
    TABLE: ClassVar[str] = "raw_mlperf_system_hosts"
    node_name: str
    node_type_name: str
    instances: int  # benchmark instances on it


def _detect(head: str) -> bool:
    return (head.lstrip().startswith("{") and '"nodes"' in head and NODE_TYPE_NAMED.search(head) is not None
            and ('"benchmark_hosts"' in head or '"storage_system"' in head))


def _label(f: Fields, obj: dict, key: str) -> str | None:
    """A value written by hand as a name: a string, or a number some submitters wrote instead."""
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return f.string(obj, key, optional=True)


def _joined(f: Fields, obj: dict, key: str) -> str | None:
    values = f.array(obj, key, optional=True)
    if not all(isinstance(v, str) for v in values):
        f.fail(f"{key} holds a value that is not a string", key)
    return ", ".join(values) or None


def _peak(f: Fields, performance: dict, key: str) -> str | None:
    return _label(f, f.mapping(performance, key, optional=True), "peak_bandwidth")


def _drive(f: Fields, drive: dict, node_index: int) -> MlperfSystemDrive:
    performance = f.mapping(drive, "performance", optional=True)
    return MlperfSystemDrive(
        node_index=node_index, drive_type=_label(f, drive, "drive_type"), interface=_label(f, drive, "interface"),
        model=_label(f, drive, "drive_details"), purpose=_joined(f, drive, "purpose"),
        capacity_gib=f.number(drive, "capacity_GiB", optional=True), capacity_gb=None,
        count=f.integer(drive, "count_of_this_type", text_ok=True),
        read_peak_bandwidth=_peak(f, performance, "read_bandwidth"),
        write_peak_bandwidth=_peak(f, performance, "write_bandwidth"))


def _node(f: Fields, node: dict, index: int) -> list:
    cpu, dram = f.mapping(node, "CPU", optional=True), f.mapping(node, "DRAM", optional=True)
    accelerators = [a for a in f.array(node, "accelerators", optional=True) if isinstance(a, dict)]
    stated = [_label(f, a, "count_of_this_type") for a in accelerators]
    count = sum(int(s) for s in stated) if stated and all(s and s.isdigit() for s in stated) else None
    records: list = [MlperfSystemNode(
        node_index=index, node_type_name=f.string(node, "node_type_name"),
        cpu_model=_label(f, cpu, "vendor_and_model_name"), cpu_sockets=f.integer(cpu, "socket_count", optional=True),
        cores_per_socket=f.integer(cpu, "cores_per_socket", optional=True),
        threads_per_socket=f.integer(cpu, "threads_per_socket", optional=True),
        dram_mib=f.number(dram, "capacity_MiB", optional=True), dram_gb=f.number(dram, "capacity_GB", optional=True),
        accelerator_model=", ".join(filter(None, (_label(f, a, "vendor_and_model") for a in accelerators))) or None,
        accelerators_stated=", ".join(filter(None, stated)) or None, accelerators=count)]
    for port in f.array(node, "nic_ports", optional=True):
        port = f.mapping({"nic_ports": port}, "nic_ports")
        records.append(MlperfSystemPort(node_index=index, network_name=_label(f, port, "network_name"),
                                        bitrate_gbps=f.number(port, "bitrate"),
                                        count=f.integer(port, "count_of_this_type", text_ok=True)))
    records += [_drive(f, f.mapping({"drives": d}, "drives"), index) for d in f.array(node, "drives", optional=True)]
    return records


def parse(text: str) -> Parsed:
    doc = load_json(text, WHAT)
    f = Fields(text, WHAT, '"{}"')
    # YanRongTech's v1.0 descriptions put theirs under the template's "properties" key
    if "nodes" not in doc and isinstance(doc.get("properties"), dict):
        doc = doc["properties"]
    storage = f.mapping(doc, "storage_system", optional=True)
    records: list = [MlperfSystem(
        vendor_name=_label(f, storage, "vendor_name"), solution_name=_label(f, storage, "solution_name"),
        model_name=_label(f, storage, "model_name"), solution_type=_label(f, storage, "solution_type"),
        version=_label(f, storage, "version"), software_defined=_label(f, storage, "software_defined"),
        hyperconverged=_label(f, storage, "hyperconverged"),
        usable_capacity_gib=f.number(storage, "usable_capacity_GiB", optional=True),
        raw_capacity_gib=f.number(storage, "raw_capacity_GiB", optional=True),
        number_of_benchmark_hosts=f.integer(doc, "number_of_benchmark_hosts", optional=True, text_ok=True))]
    for network in f.array(doc, "networks", optional=True):
        network = f.mapping({"networks": network}, "networks")
        records.append(MlperfSystemNetwork(
            network_name=_label(f, network, "network_name"), network_type=_label(f, network, "network_type"),
            bitrate_gbps=f.number(network, "bitrate", optional=True), protocols=_joined(f, network, "protocols")))
    for index, node in enumerate(f.array(doc, "nodes")):
        records += _node(f, f.mapping({"nodes": node}, "nodes"), index)
    for component in f.array(storage, "hardware_components", optional=True):
        component = f.mapping({"hardware_components": component}, "hardware_components")
        if str(component.get("component_name", "")).lower() == "drives":
            records.append(MlperfSystemDrive(
                node_index=None, drive_type=_label(f, component, "type"), interface=_label(f, component, "protocol"),
                model=_label(f, component, "model"), purpose=None, capacity_gib=None,
                capacity_gb=f.number(component, "disk_capacity_gigabytes", optional=True),
                count=f.integer(component, "count", text_ok=True), read_peak_bandwidth=None, write_peak_bandwidth=None))
    for host in f.array(doc, "benchmark_hosts", optional=True):
        host = f.mapping({"benchmark_hosts": host}, "benchmark_hosts")
        records.append(MlperfSystemHost(node_name=_label(f, host, "node_name") or "",
                                        node_type_name=f.string(host, "node_type_name"),
                                        instances=len(f.array(host, "benchmark_instances", optional=True))))
    return Parsed(format=FORMAT_NAME, tool="mlperf-storage", tool_version=None, records=records)


# a hand-written JSON may end without a newline: a cut one is JSON that does not close
FORMATS = (Format(name=FORMAT_NAME, tool="mlperf-storage", detect=_detect, parse=parse, ends_in_newline=False),)
RECORDS = (MlperfSystem, MlperfSystemNetwork, MlperfSystemNode, MlperfSystemPort, MlperfSystemDrive,
           MlperfSystemHost)
