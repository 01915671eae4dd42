"""What a submission says of its system: system-information.txt (io500_info_* lines, io500-system-information) and
the io500-info-creator's JSON questionnaire (io500-questionnaire), as Io500Info records (iobook.database.setups reads
them).
"""
from __future__ import annotations

import re

from . import Format, ParseError, Parsed
from .io500 import Io500Info
from .io500_bash import BASH_INFO, detect_bash

_INFO_LINE = re.compile(r"^io500_info_\w+=", re.MULTILINE)
_QUESTIONNAIRE = re.compile(r'\s*\{\s*"DATA"\s*:\s*\{\s*"type"\s*:\s*"Site"')


def _detect_system_information(head: str) -> bool:
    # the bash script's own logs print the same lines beside its results: those are io500-bash
    return "io500_info_" in head and bool(_INFO_LINE.search(head)) and not detect_bash(head)


def parse_system_information(text: str) -> Parsed:
    """A submission's ``system-information.txt``: the bash template's ``io500_info_<key>="<value>"`` lines
    (comments and shell lines skipped)."""
    info = [Io500Info(line=no, key=m.group(1), value=m.group(2).strip())
            for no, line in enumerate(text.splitlines(), 1) if line.startswith("io500_info_") and (m := BASH_INFO.match(line))]
    if not info:
        raise ParseError("no io500_info line")
    return Parsed(format="io500-system-information", tool="io500", tool_version=None, records=info)


def _detect_questionnaire(head: str) -> bool:
    return bool(_QUESTIONNAIRE.match(head))


def parse_questionnaire(text: str) -> Parsed:
    """The io500-info-creator's JSON questionnaire (``system-information.json``): each node's attributes as
    keys of its types' path (``Site.Supercomputer.Nodes.Interconnect.speed``), a [value, unit] pair joined by a
    space, empty answers left out."""
    import json

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(f"not JSON: {e.msg}", e.lineno) from None
    except RecursionError:
        raise ParseError("JSON nested deeper than any questionnaire") from None
    info = []

    def walk(node, path: str) -> None:
        if not isinstance(node, dict) or not isinstance(node.get("att", {}), dict):
            raise ParseError("a questionnaire node that is not an object with attributes")
        path = f"{path}.{node.get('type')}" if path else str(node.get("type"))
        for key, value in node.get("att", {}).items():
            shown = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            if shown.strip():
                info.append(Io500Info(line=1, key=f"{path}.{key}", value=shown.strip()))
        for child in node.get("childs") or []:
            walk(child, path)

    try:
        walk(doc.get("DATA") if isinstance(doc, dict) else None, "")
    except RecursionError:
        raise ParseError("nodes nested deeper than any questionnaire") from None
    return Parsed(format="io500-questionnaire", tool="io500", tool_version=None, records=info)


FORMATS = (
    Format(name="io500-system-information", tool="io500", detect=_detect_system_information,
           parse=parse_system_information),
    # written by a web form, without a final newline; a cut one is JSON that does not close
    Format(name="io500-questionnaire", tool="io500", detect=_detect_questionnaire, parse=parse_questionnaire,
           ends_in_newline=False),
)
