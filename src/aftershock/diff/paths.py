"""Field paths: the segments of a path inside a document, and their one text syntax.

Syntax, e.g. `spec.template.spec.containers[name=app].env[name=FOO].value`:
- a map key is written bare, joined by `.`, when it is non-empty and made only of ASCII letters,
  digits, `_` and `-`; any other key is written `["..."]` as a JSON string, e.g.
  `metadata.annotations["checksum/config"]`;
- a list entry matched by identity is `[field=value]`; the value is bare when it is an integer or
  a string of letters, digits and `_ . / : @ + -` that JSON would not read as a number or literal
  (so the string "80" is `[port="80"]` and the integer 80 is `[port=80]`); otherwise it is a JSON string;
- a list entry matched by position is `[3]`.
`format_path` and `parse_path` are inverse of each other.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.model.errors import ConfigError

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_BARE_VALUE = re.compile(r"[A-Za-z0-9_./:@+-]+")
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INDEX = re.compile(r"[0-9]+")
_SYNTAX_HINT = 'write it like spec.containers[name=app].ports[0] or metadata.annotations["a/b"]'


@dataclass(frozen=True)
class KeySegment:
    """A map key (always text; non-text YAML keys are compared by `key_text`)."""

    key: str

    @property
    def text(self) -> str:
        return _key_segment_text(self.key)


@dataclass(frozen=True)
class IndexSegment:
    """A list entry by position."""

    index: int

    @property
    def text(self) -> str:
        return f"[{self.index}]"


@dataclass(frozen=True)
class MatchSegment:
    """A list entry by identity: the entry whose `field` equals `value` (str, or int but not bool)."""

    field: str
    value: str | int

    @property
    def text(self) -> str:
        return f"[{self.field}={_format_value(self.value)}]"


Segment = KeySegment | IndexSegment | MatchSegment


@functools.lru_cache(maxsize=8192)
def _key_segment_text(key: str) -> str:
    """A key as a path writes it: bare when it can be, else bracketed JSON (the same keys recur)."""
    if _BARE_KEY.fullmatch(key):
        return key
    return f"[{_json_string(key)}]"


def key_text(key: Any) -> str:
    """The text of a map key: itself for strings, the YAML spelling for the odd non-text key."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def segment_texts(segments: Sequence[Segment]) -> tuple[str, ...]:
    return tuple(segment.text for segment in segments)


def format_path(segments: Sequence[Segment]) -> str:
    """Join segments: keys after the first take a `.`, bracketed segments attach directly."""
    out: list[str] = []
    for segment in segments:
        text = segment.text
        if out and not text.startswith("["):
            out.append(".")
        out.append(text)
    return "".join(out)


def parse_path(path: str) -> tuple[Segment, ...]:
    """Read a path written by `format_path`; raises ConfigError on anything else."""
    segments: list[Segment] = []
    pos = 0
    while pos < len(path):
        if path[pos] == "[":
            segment, pos = _parse_bracket(path, pos)
        else:
            if segments:
                if path[pos] != ".":
                    raise _bad_path(path, pos)
                pos += 1
            match = _BARE_KEY.match(path, pos)
            if match is None:
                raise _bad_path(path, pos)
            segment, pos = KeySegment(match.group()), match.end()
        segments.append(segment)
    return tuple(segments)


def _parse_bracket(path: str, pos: int) -> tuple[Segment, int]:
    inner = pos + 1
    if path.startswith('"', inner):
        key, end = _read_json_string(path, inner)
        return KeySegment(key), _expect_close(path, end)
    index = _INDEX.match(path, inner)
    if index is not None and path.startswith("]", index.end()):
        return IndexSegment(int(index.group())), index.end() + 1
    name = _FIELD_NAME.match(path, inner)
    if name is None or not path.startswith("=", name.end()):
        raise _bad_path(path, inner)
    value_pos = name.end() + 1
    if path.startswith('"', value_pos):
        text, end = _read_json_string(path, value_pos)
        return MatchSegment(name.group(), text), _expect_close(path, end)
    bare = _BARE_VALUE.match(path, value_pos)
    if bare is None:
        raise _bad_path(path, value_pos)
    return MatchSegment(name.group(), _read_bare_value(bare.group())), _expect_close(
        path, bare.end()
    )


def _read_json_string(path: str, pos: int) -> tuple[str, int]:
    try:
        value, end = json.JSONDecoder().raw_decode(path, pos)
    except json.JSONDecodeError:
        raise _bad_path(path, pos) from None
    if not isinstance(value, str):
        raise _bad_path(path, pos)
    return value, end


def _expect_close(path: str, pos: int) -> int:
    if not path.startswith("]", pos):
        raise _bad_path(path, pos)
    return pos + 1


def _read_bare_value(text: str) -> str | int:
    literal = _json_literal(text)
    if isinstance(literal, int) and not isinstance(literal, bool):
        return literal
    return text


def _format_value(value: str | int) -> str:
    if not isinstance(value, str):
        return str(value)  # an int: MatchSegment never holds a bool
    if _BARE_VALUE.fullmatch(value) and _json_literal(value) is _NOT_JSON:
        return value
    return _json_string(value)


_NOT_JSON = object()


def _json_literal(text: str) -> Any:
    """What JSON reads `text` as, or _NOT_JSON: decides when a bare value needs quotes."""
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _bad_path(path: str, pos: int) -> ConfigError:
    return ConfigError(
        f"invalid field path {path!r}", where=f"at character {pos}", hint=_SYNTAX_HINT
    )
