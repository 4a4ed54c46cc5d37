"""What every helm-unittest validator shares: its inputs, its verdict and the failure-text helpers.

The failure lines follow helm-unittest's formatting (`Path:`, `Expected to equal:`, `Actual:`,
`Diff:`, `DocumentIndex:`), since users read them side by side with upstream's output. Each
verdict also lists the values it looked at (`Check`), so a review can tell which rendered field
an assertion pins.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from aftershock.helmtest.gofmt import after_yaml_roundtrip, sprint
from aftershock.helmtest.goyaml_emit import trusted_marshal
from aftershock.helmtest.jsonpath import values_at

ERROR_FORMAT = "\nError:\n%s\n"
_TRAILING_SPACES = re.compile(r"(?m)[ ]+\r?\n")


@dataclass(frozen=True)
class Doc:
    """One rendered document of a template; `index` is its position in the template's output."""

    index: int
    body: Mapping[str, Any] = field(compare=False)
    path_view: Any = field(default=None, compare=False)  # body after yaml.v3's round trip

    @classmethod
    def of(cls, index: int, body: Mapping[str, Any]) -> Doc:
        return cls(index, body, after_yaml_roundtrip(body))


@dataclass(frozen=True)
class SnapshotAnswer:
    passed: bool
    index: int
    cached: str
    new: str
    message: str = ""


class SnapshotComparer(Protocol):
    def compare(self, content: Any, match_pattern: str, not_match_pattern: str) -> SnapshotAnswer:
        ...


@dataclass(frozen=True)
class Context:
    """ValidateContext: the template's documents, the selected ones and the polarity."""

    docs: tuple[Doc, ...]
    selected: tuple[Doc, ...]
    negative: bool
    snapshots: SnapshotComparer | None = None
    render_error: str | None = None


@dataclass(frozen=True)
class Check:
    """One value an assertion compared: where it was found and whether it satisfied it."""

    document_index: int | None
    path: str | None
    actual: Any
    passed: bool


@dataclass(frozen=True)
class Verdict:
    passed: bool
    info: tuple[str, ...] = ()
    checks: tuple[Check, ...] = ()


Validator = Callable[[Mapping[str, Any], Context], Verdict]


class Collector:
    """Accumulates failure lines and checks while a validator walks documents and values."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.checks: list[Check] = []

    def add(self, lines: list[str]) -> None:
        self.lines.extend(lines)

    def check(self, doc: Doc | None, path: str | None, actual: Any, passed: bool) -> None:
        self.checks.append(Check(doc.index if doc else None, path, actual, passed))

    def verdict(self, passed: bool) -> Verdict:
        return Verdict(passed, tuple(self.lines), tuple(self.checks))


def fail_format(negative: bool, path: bool, actual: bool, diff: bool, customize: str) -> str:
    """setFailFormat: the template of a failure message."""
    text = "\nExpected" + (" NOT" if negative else "") + customize.replace("%", "%%") + ":\n%s\n"
    if path:
        text = "Path:%s" + text
    if actual:
        text += "Actual:\n%s\n"
    if diff:
        text += "Diff:\n%s\n"
    return text


def split_info(template: str, manifest_index: int, values_index: int, *parts: str) -> list[str]:
    """splitInfof: fill the template with tab-indented parts, split it into lines."""
    indented = tuple("\t" + part.replace("\n", "\n\t").strip("\n\t ") for part in parts)
    lines = (template.strip("\t\n ") % indented).split("\n")
    if values_index >= 0:
        lines.insert(0, f"ValuesIndex:\t{values_index}")
    if manifest_index >= 0:
        lines.insert(0, f"DocumentIndex:\t{manifest_index}")
    return lines


def error_info(manifest_index: int, values_index: int, message: str) -> list[str]:
    return split_info(ERROR_FORMAT, manifest_index, values_index, message)


def _split_lines(text: str) -> list[str]:
    """go-difflib's SplitLines: the last piece gets a newline too."""
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + [lines[-1] + "\n"]
    return lines


def unified_diff(expected: str, actual: str) -> str:
    """go-difflib's unified diff of two YAML texts, one line of context."""
    return "".join(difflib.unified_diff(_split_lines(expected), _split_lines(actual),
                                        fromfile="Expected", tofile="Actual", n=1))


def uniform_content(content: Any) -> str:
    """Spaces before line ends dropped and leading newlines removed, as helm-unittest does."""
    return _TRAILING_SPACES.sub("\n", sprint(content)).lstrip("\n")


def determine_success(index: int, so_far: bool, current: bool) -> bool:
    return current if index == 0 else so_far and current


def yaml_text(value: Any) -> str:
    return trusted_marshal(value)


def path_values(doc: Doc, path: str) -> list[Any]:
    """GetValueOfSetPath on a document; PathError when the path does not parse."""
    return values_at(doc.body, path, doc.path_view)


def decode_base64(text: str) -> str | None:
    """Go's base64.StdEncoding.DecodeString; None when the text is not valid base64."""
    try:
        cleaned = text.replace("\r", "").replace("\n", "")  # Go's decoder skips line breaks
        return base64.b64decode(cleaned, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return None

