"""Typed values of a parsed JSON or YAML document, for the parsers of DLIO's and MLPerf Storage's files: each
value checked as the format states it, a bad one a ParseError at the line of its key."""
from __future__ import annotations

import json
import math
from typing import NoReturn

from . import ParseError

INT64 = range(-(1 << 63), 1 << 63)


def load_json(text: str, what: str) -> dict:
    """A JSON object, or ParseError at the line where reading stopped: a document the text ends inside is cut."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        if not text[e.pos:].strip():
            raise ParseError(f"{what} cut short: the JSON ends before it closes ({e.msg})", e.lineno) from None
        raise ParseError(f"{what} is not valid JSON: {e.msg}", e.lineno) from None
    except (ValueError, RecursionError) as e:  # an integer of over 4,300 digits; nesting deeper than Python reads
        raise ParseError(f"{what} unreadable: {type(e).__name__}") from None
    if not isinstance(doc, dict):
        raise ParseError(f"{what} is not a JSON object", 1)
    return doc


class Fields:
    """Readers of one document's values; `key_mark` is how a key appears in the text ('"{}"' in JSON, '{}:' in
    YAML), to give an error the line of the key it names."""

    def __init__(self, text: str, what: str, key_mark: str):
        self.text, self.what, self.key_mark = text, what, key_mark

    def fail(self, reason: str, key: str | None = None) -> NoReturn:
        at = self.text.find(self.key_mark.format(key)) if key else -1
        raise ParseError(f"{self.what}: {reason}", self.text.count("\n", 0, at) + 1 if at >= 0 else None)

    def number(self, obj: dict, key: str, *, optional: bool = False, text_ok: bool = False) -> float | None:
        """A finite number; with text_ok, a string holding one too (DLIO writes durations as "356.48")."""
        value = obj.get(key)
        if value is None and optional:
            return None
        if text_ok and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                self.fail(f"{key} is {value[:40]!r}, not a number", key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            self.fail(f"{key} is {value!r:.40}, not a finite number", key)
        return float(value)

    def integer(self, obj: dict, key: str, *, optional: bool = False, text_ok: bool = False) -> int | None:
        """An integer a BIGINT holds; with text_ok, a string of digits too (the report's "72" accelerators)."""
        value = obj.get(key)
        if value is None and optional:
            return None
        if text_ok and isinstance(value, str) and value.strip().isdigit() and len(value) < 20:
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool) or value not in INT64:
            self.fail(f"{key} is {value!r:.40}, not an integer", key)
        return value

    def string(self, obj: dict, key: str, *, optional: bool = False) -> str | None:
        value = obj.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            self.fail(f"{key} is {value!r:.40}, not a string", key)
        return value

    def boolean(self, obj: dict, key: str, *, optional: bool = False) -> bool | None:
        value = obj.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, bool):
            self.fail(f"{key} is {value!r:.40}, not true or false", key)
        return value

    def mapping(self, obj: dict, key: str, *, optional: bool = False) -> dict:
        """An object; an absent optional one is empty."""
        value = obj.get(key)
        if value is None and optional:
            return {}
        if not isinstance(value, dict):
            self.fail(f"{key} is not an object", key)
        return value

    def array(self, obj: dict, key: str, *, optional: bool = False) -> list:
        """A list; an absent optional one is empty."""
        value = obj.get(key)
        if value is None and optional:
            return []
        if not isinstance(value, list):
            self.fail(f"{key} is not a list", key)
        return value
