"""IBM Storage Scale (GPFS) configuration listings: ``mmlsconfig``, ``mmlscluster`` and ``mmlsfs`` output.

- ``mmlsconfig``: ``Configuration data for cluster X:`` and a dashed rule, then ``key value`` lines.
  A ``[nodeclass,...]`` line scopes the settings after it until the next such line; settings before the
  first one are cluster-wide, like ``[common]``. A ``File systems in cluster X:`` block lists devices.
- ``mmlscluster``: ``GPFS cluster information`` and ``  Key:  value`` lines, then the node table
  (number, daemon name, IP address, admin name, and a designation that may be blank).
- ``mmlsfs``: a ``flag  value  description`` header and a rule of three dashed columns, then one line per
  attribute (`` -B   16777216   Block size``). A value may overflow its column (the ``-d`` disk list, long
  flags such as ``--write-cache-threshold``), a line without a flag continues the one above (``-Q``), and a
  long ``-d`` list is printed over several ``-d`` lines. ``mmlsfs fs --snc`` prints a second listing.

IBM's IO500 submissions save these listings as-is, some preceded by a ``####`` banner that names the
command (``... Output for /usr/lpp/mmfs/bin/mmlsconfig on host - timeout=60``); one file may hold both.
Values stay text as printed (``48G``, ``128k``, ``324379307212``): GPFS accepts several spellings.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from . import Format, ParseError, Parsed


@dataclass(frozen=True, kw_only=True)
class GpfsSetting:
    TABLE: ClassVar[str] = "raw_gpfs_config"
    cluster: str
    scope: str  # node classes / nodes as printed between brackets, e.g. "client" or "nc_35,nc_352"
    key: str
    value: str  # as printed; "" for a key printed without a value
    line: int  # 1-based line in the file


@dataclass(frozen=True, kw_only=True)
class GpfsFilesystem:
    TABLE: ClassVar[str] = "raw_gpfs_filesystems"
    cluster: str
    device: str  # e.g. "/dev/fs1"


@dataclass(frozen=True, kw_only=True)
class GpfsNode:
    TABLE: ClassVar[str] = "raw_gpfs_nodes"
    cluster: str
    node_number: int
    daemon_node: str
    ip_address: str
    admin_node: str
    designation: str  # e.g. "quorum-manager-perfmon"; "" for a client node


@dataclass(frozen=True, kw_only=True)
class GpfsFsAttribute:
    TABLE: ClassVar[str] = "raw_gpfs_fs_attributes"
    listing: int  # 0-based mmlsfs listing of the file (`mmlsfs fs` and `mmlsfs fs --snc` saved in one file)
    flag: str  # as printed, "-B", "--inode-limit"; a line continuing the one above repeats its flag
    value: str  # as printed, inner spaces kept: "31.00 (5.1.7.0)", "Sun Nov 10 23:20:41 2024"
    description: str  # "" where the value filled the line (the first of several -d lines)
    line: int


@dataclass(frozen=True, kw_only=True)
class GpfsFsDisk:
    TABLE: ClassVar[str] = "raw_gpfs_fs_disks"
    listing: int
    disk: str  # one NSD of the ';'-separated -d list, e.g. "RG001LG001VS001"
    line: int


RECORDS = (GpfsSetting, GpfsFilesystem, GpfsNode, GpfsFsAttribute, GpfsFsDisk)

CONFIG_HEADER = re.compile(r"^Configuration data for cluster (\S+):$")
FILESYSTEMS_HEADER = re.compile(r"^File systems in cluster (\S+):$")
CLUSTER_HEADER = "GPFS cluster information"
RULE = re.compile(r"^[-=]+$")
BANNER = re.compile(r"^#{10,}$")
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
SCOPE = re.compile(r"^\[([^\[\]\s]+)\]$")
NODE_NUMBER = re.compile(r"^[0-9]+$")
FS_HEADER = re.compile(r"^flag +value +description$")
FS_RULE = re.compile(r"^-+ -+ -+$")
NODE_TABLE_HEADER = ("Node", "Daemon", "node", "name", "IP", "address", "Admin", "node", "name", "Designation")


def _content_lines(text: str):
    """(line number, line) of the listing itself: blank lines and the #### banners around a command name
    are left out, as they carry no configuration."""
    in_banner = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        if BANNER.match(line.strip()):
            in_banner = not in_banner
            continue
        if in_banner:
            continue
        yield lineno, line.rstrip()


def _first_line(head: str) -> str | None:
    for _, line in _content_lines(head):
        if line:
            return line
    return None


def _is_mmlsconfig(head: str) -> bool:
    if "Configuration data for cluster " not in head:  # cheap before splitting a 1 MiB head into lines
        return False
    first = _first_line(head)
    return first is not None and CONFIG_HEADER.match(first) is not None


def _is_mmlscluster(head: str) -> bool:
    return CLUSTER_HEADER in head and _first_line(head) == CLUSTER_HEADER


def _is_mmlsfs(head: str) -> bool:
    if "description" not in head:
        return False
    first = _first_line(head)
    return first is not None and FS_HEADER.match(first) is not None


def parse(text: str) -> Parsed:
    lines = list(_content_lines(text))
    records: list = []
    kinds: list[str] = []  # which listings the file holds, in order
    i = 0

    def expect_rule(after: int) -> None:
        if after + 1 >= len(lines) or not RULE.match(lines[after + 1][1].strip()):
            raise ParseError("header is not followed by its dashed or '=' rule", lines[after][0])

    while i < len(lines):
        lineno, line = lines[i]
        if not line:
            i += 1
        elif m := CONFIG_HEADER.match(line):
            expect_rule(i)
            kinds.append("mmlsconfig")
            i = _parse_settings(lines, i + 2, m[1], records)
        elif m := FILESYSTEMS_HEADER.match(line):
            expect_rule(i)
            i += 2
            while i < len(lines) and lines[i][1]:
                device = lines[i][1].strip()
                if len(device.split()) != 1:
                    raise ParseError(f"file system line {device!r} is not one device name", lines[i][0])
                records.append(GpfsFilesystem(cluster=m[1], device=device))
                i += 1
        elif line == CLUSTER_HEADER:
            expect_rule(i)
            kinds.append("mmlscluster")
            i = _parse_cluster(lines, i + 2, records)
        elif FS_HEADER.match(line):
            if i + 1 >= len(lines) or not FS_RULE.match(lines[i + 1][1].strip()):
                raise ParseError("mmlsfs header is not followed by its rule of three dashed columns", lineno)
            i = _parse_fs(lines, i + 1, kinds.count("mmlsfs"), records)
            kinds.append("mmlsfs")
        else:
            raise ParseError(f"expected an mmlsconfig, mmlscluster or mmlsfs header, found {line[:60]!r}", lineno)
    if not kinds:
        raise ParseError("no mmlsconfig, mmlscluster or mmlsfs listing", 1)
    return Parsed(format="gpfs-" + "+".join(dict.fromkeys(kinds)), tool="gpfs", tool_version=None, records=records)


def _parse_settings(lines, i: int, cluster: str, records: list) -> int:
    """Settings up to the first blank line; returns the index after them."""
    scope = "common"  # settings before any [..] line apply to every node
    while i < len(lines) and lines[i][1]:
        lineno, line = lines[i]
        if m := SCOPE.match(line.strip()):
            scope = m[1]
        else:
            key, _, value = line.strip().partition(" ")
            if not KEY.match(key):
                raise ParseError(f"{line[:60]!r} is not a 'key value' setting or a [nodeclass] line", lineno)
            records.append(GpfsSetting(cluster=cluster, scope=scope, key=key, value=value.strip(), line=lineno))
        i += 1
    return i


def _parse_cluster(lines, i: int, records: list) -> int:
    """The '  Key:  value' block, then the node table; returns the index after the table."""
    facts = {}
    while i < len(lines) and lines[i][1]:
        lineno, line = lines[i]
        key, colon, value = line.strip().partition(":")
        if not colon:
            raise ParseError(f"{line[:60]!r} is not a 'Key: value' line of mmlscluster", lineno)
        facts[key] = value.strip()
        i += 1
    cluster = facts.get("GPFS cluster name")
    if not cluster:
        raise ParseError("mmlscluster output names no 'GPFS cluster name'", lines[i - 1][0] if i else 1)
    while i < len(lines) and not lines[i][1]:
        i += 1
    if i >= len(lines) or tuple(lines[i][1].split()) != NODE_TABLE_HEADER:
        raise ParseError("mmlscluster output has no node table header", lines[i][0] if i < len(lines) else None)
    if i + 1 >= len(lines) or not RULE.match(lines[i + 1][1].strip()):
        raise ParseError("node table header is not followed by its dashed rule", lines[i][0])
    i += 2
    rows = 0
    while i < len(lines) and lines[i][1]:
        lineno, line = lines[i]
        fields = line.split()
        if len(fields) not in (4, 5) or not NODE_NUMBER.match(fields[0]):
            raise ParseError(f"node line {line[:60]!r} is not 'number daemon-name IP admin-name [designation]'",
                             lineno)
        records.append(GpfsNode(cluster=cluster, node_number=int(fields[0]), daemon_node=fields[1],
                                ip_address=fields[2], admin_node=fields[3],
                                designation=fields[4] if len(fields) == 5 else ""))
        rows += 1
        i += 1
    if not rows:
        raise ParseError("mmlscluster node table has no nodes", lines[i - 1][0])
    return i


def _parse_fs(lines, i: int, listing: int, records: list) -> int:
    """One mmlsfs listing from its rule (lines[i]) up to the first blank line; returns the index after it.
    The rule's dashes give the columns; a value that overflows its column ends at the last run of two or
    more spaces before the description, or runs to the end of the line when no description follows."""
    rule = lines[i][1]
    value_col, description_col = (m.start() for m in list(re.finditer(r"-+", rule))[1:3])
    flag = None
    rows = 0
    i += 1
    while i < len(lines) and lines[i][1]:
        lineno, line = lines[i]
        if line[:value_col].strip():
            flag = line.split()[0]
            if not flag.startswith("-"):
                raise ParseError(f"mmlsfs line {line[:60]!r} starts with no flag", lineno)
            rest_at = line.index(flag) + len(flag)
        elif flag is None:
            raise ParseError("an mmlsfs line without a flag comes before any flag", lineno)
        else:
            rest_at = 0  # a line continuing the flag above it
        value, description = _value_and_description(line, rest_at, description_col)
        records.append(GpfsFsAttribute(listing=listing, flag=flag, value=value, description=description, line=lineno))
        if flag == "-d":
            records.extend(GpfsFsDisk(listing=listing, disk=disk.strip(),
                                      line=lineno) for disk in value.split(";") if disk.strip())
        rows += 1
        i += 1
    if not rows:
        raise ParseError("mmlsfs listing has no attributes", lines[i - 1][0])
    return i


def _value_and_description(line: str, rest_at: int, description_col: int) -> tuple[str, str]:
    aligned = (len(line) > description_col > rest_at and line[description_col - 1] == " "
               and line[description_col] != " " and line[rest_at:description_col].strip())
    if aligned:
        return line[rest_at:description_col].strip(), line[description_col:].strip()
    rest = line[rest_at:].strip()
    gaps = list(re.finditer(r" {2,}", rest))
    if not gaps:
        return rest, ""
    return rest[:gaps[-1].start()], rest[gaps[-1].end():]


FORMATS = (
    Format(name="gpfs-mmlsconfig", tool="gpfs", detect=_is_mmlsconfig, parse=parse),
    Format(name="gpfs-mmlscluster", tool="gpfs", detect=_is_mmlscluster, parse=parse),
    Format(name="gpfs-mmlsfs", tool="gpfs", detect=_is_mmlsfs, parse=parse),
)
