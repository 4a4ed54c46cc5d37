"""Go's strconv number parsing (ParseInt/ParseUint with base 0, ParseFloat), shared by the go-yaml v2
reader (yamlio.py) and the go-yaml v3 reader (goyaml.py), which both resolve numbers with it."""

from __future__ import annotations

import math
import re

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1

_GO_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
DIGITS = {
    2: re.compile(r"[01]+"),
    8: re.compile(r"[0-7]*"),  # may be empty: "0" is octal 0
    10: re.compile(r"[0-9]+"),
    16: re.compile(r"[0-9a-fA-F]+"),
}


def go_parse_int(text: str, *, signed: bool) -> int | None:
    """strconv.ParseInt/ParseUint(text, 0, 64): sign, base prefix, range; None when invalid."""
    body, negative = text, False
    if signed and body[:1] in ("+", "-"):
        negative, body = body[0] == "-", body[1:]
    if not body:
        return None
    base = 10
    if body[0] == "0" and len(body) > 1:
        prefix = body[1].lower()
        if prefix in ("b", "o", "x"):
            base, body = {"b": 2, "o": 8, "x": 16}[prefix], body[2:]
            if not body:
                return None
        else:
            base, body = 8, body[1:]
    if not DIGITS[base].fullmatch(body):
        return None
    value = int(body, base) if body else 0
    value = -value if negative else value
    low, high = (INT64_MIN, INT64_MAX) if signed else (0, UINT64_MAX)
    return value if low <= value <= high else None


def go_parse_float(text: str) -> float | None:
    """strconv.ParseFloat for decimal text; out of range (infinite) counts as a failure."""
    if not _GO_FLOAT.fullmatch(text):
        return None
    value = float(text)
    return None if math.isinf(value) else value
