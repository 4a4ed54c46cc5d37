"""How go-yaml v3 writes one scalar or orders map keys (helm-unittest's snapshot text).

libyaml's scalar analysis decides which styles can carry a string (plain, single-quoted,
double-quoted, literal block); yaml.v3's encoder first rules out plain text that would read back
as another type (`"80"`, `"yes"`, `""`) and picks a literal block for text with line breaks.
Map keys are sorted in yaml.v3's natural order (`a9` before `a10`, numbers numerically).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from aftershock.gocompat.goyaml import GoUint, resolve_scalar

BEST_INDENT = 2
BEST_WIDTH = 2**31 - 1  # yaml.v3's encoder leaves the width unset: lines are never folded
BREAKS = frozenset("\r\n\x85\u2028\u2029")
_OLD_BOOLS = frozenset(
    [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "on",
        "On",
        "ON",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "off",
        "Off",
        "OFF",
    ]
)
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_ESCAPES = {
    "\x00": "0",
    "\x07": "a",
    "\x08": "b",
    "\t": "t",
    "\n": "n",
    "\x0b": "v",
    "\x0c": "f",
    "\r": "r",
    "\x1b": "e",
    '"': '"',
    "\\": "\\",
    "\x85": "N",
    "\xa0": "_",
    "\u2028": "L",
    "\u2029": "P",
}
SEQ_ITEM = "block-sequence-item"  # the only parent state yaml.v3's indentation looks at


def printable(char: str) -> bool:
    code = ord(char)
    return (
        code == 0x0A
        or 0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
    )


def _is_base60_float(text: str) -> bool:
    if not text or not (text[0] in "+-" or text[0].isdigit()) or ":" not in text:
        return False
    return re.fullmatch(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?", text) is not None


def _block_indicators(text: str) -> bool:
    """Whether the text holds an indicator that rules out a plain block scalar."""
    if text[:3] in ("---", "..."):
        return True
    preceded_by_whitespace = True
    last = len(text) - 1
    for i, char in enumerate(text):
        followed_by_whitespace = i == last or text[i + 1] in " \t"
        if i == 0 and (char in _FIRST_INDICATORS or (char in "?:-" and followed_by_whitespace)):
            return True
        if i > 0 and (
            (char == ":" and followed_by_whitespace) or (char == "#" and preceded_by_whitespace)
        ):
            return True
        preceded_by_whitespace = char in " \t\x00" or char in BREAKS
    return False


class Analysis:
    """libyaml's yaml_emitter_analyze_scalar: which styles can carry a scalar."""

    def __init__(self, text: str) -> None:
        self.multiline = False
        self.block_plain = self.single_quoted = True
        self.block = True
        if not text:
            self.block = False
            return
        line_breaks = special = tabs = False
        leading_space = leading_break = trailing_space = trailing_break = False
        break_space = space_break = previous_space = previous_break = False
        last = len(text) - 1
        for i, char in enumerate(text):
            if char == "\t":
                tabs = True
            elif not printable(char):
                special = True
            if char == " ":
                leading_space = leading_space or i == 0
                trailing_space = trailing_space or i == last
                break_space = break_space or previous_break
                previous_space, previous_break = True, False
            elif char in BREAKS:
                line_breaks = True
                leading_break = leading_break or i == 0
                trailing_break = trailing_break or i == last
                space_break = space_break or previous_space
                previous_space, previous_break = False, True
            else:
                previous_space = previous_break = False
        self.multiline = line_breaks
        if leading_space or leading_break or trailing_space or trailing_break or line_breaks:
            self.block_plain = False
        if trailing_space or space_break or special:
            self.block = False
        if break_space or space_break or tabs or special:
            self.block_plain = self.single_quoted = False
        if _block_indicators(text):
            self.block_plain = False


def _key_less(a: Any, b: Any) -> bool:
    """yaml.v3's keyList.Less: numbers (and bools) numerically, strings in natural order."""
    numeric_a, numeric_b = _as_number(a), _as_number(b)
    if numeric_a is not None and numeric_b is not None:
        if numeric_a != numeric_b:
            return numeric_a < numeric_b
        return _kind_rank(a) < _kind_rank(b)
    if not isinstance(a, str) or not isinstance(b, str):
        return _kind_rank(a) < _kind_rank(b)
    digits = False
    for i in range(min(len(a), len(b))):
        if a[i] == b[i]:
            digits = a[i].isdigit()
            continue
        a_letter, b_letter = a[i].isalpha(), b[i].isalpha()
        if a_letter and b_letter:
            return a[i] < b[i]
        if a_letter or b_letter:
            return a_letter if digits else b_letter
        return _numeric_run_less(a, b, i)
    return len(a) < len(b)


def _numeric_run_less(a: str, b: str, i: int) -> bool:
    a_number = b_number = 0
    if a[i] == "0" or b[i] == "0":
        j = i - 1
        while j >= 0 and a[j].isdigit():
            if a[j] != "0":
                a_number = b_number = 1
                break
            j -= 1
    a_end = i
    while a_end < len(a) and a[a_end].isdigit():
        a_number, a_end = a_number * 10 + int(a[a_end]), a_end + 1
    b_end = i
    while b_end < len(b) and b[b_end].isdigit():
        b_number, b_end = b_number * 10 + int(b[b_end]), b_end + 1
    if a_number != b_number:
        return a_number < b_number
    if a_end != b_end:
        return a_end < b_end
    return a[i] < b[i]


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, GoUint):
        return float(value.value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _kind_rank(value: Any) -> int:
    """Go's reflect.Kind order, which breaks ties between keys of different kinds."""
    for kind, rank in ((bool, 1), (GoUint, 11), (int, 2), (float, 14), (str, 24)):
        if isinstance(value, kind):
            return rank
    return 0


def sorted_keys(mapping: dict[Any, Any]) -> list[Any]:
    return sorted(
        mapping,
        key=functools.cmp_to_key(
            lambda a, b: -1 if _key_less(a, b) else (1 if _key_less(b, a) else 0)
        ),
    )


def string_style(text: str, analysis: Analysis, simple_key: bool) -> str:
    tag, _ = resolve_scalar("", text)
    can_use_plain = tag == "str" and not (_is_base60_float(text) or text in _OLD_BOOLS)
    if "\n" in text:
        style = "literal"
    elif can_use_plain:
        style = "plain"
    else:
        style = "double"
    return select_style(style, text, analysis, simple_key)


def select_style(style: str, text: str, analysis: Analysis, simple_key: bool) -> str:
    if simple_key and analysis.multiline:
        style = "double"
    if style == "plain" and (not analysis.block_plain or (not text and simple_key)):
        style = "single"
    if style == "single" and not analysis.single_quoted:
        style = "double"
    if style == "literal" and (not analysis.block or simple_key):
        style = "double"
    return style


def chomp_hint(text: str) -> str:
    if not text or text[-1] not in BREAKS:
        return "-"
    if len(text) == 1 or text[-2] in BREAKS:
        return "+"
    return ""


def escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    if code <= 0xFF:
        return f"x{code:02X}"
    if code <= 0xFFFF:
        return f"u{code:04X}"
    return f"U{code:08X}"
