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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from aftershock.gocompat.gofmt import after_yaml_roundtrip, sprint
from aftershock.gocompat.jsonpath import PathError, values_at
from aftershock.helmtest.goyaml_emit import trusted_marshal

ERROR_FORMAT = "\nError:\n%s\n"
_TRAILING_SPACES = re.compile(r"(?m)[ ]+\r?\n")
NO_MANIFEST = "no manifest found"
Item = TypeVar("Item")


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
    def compare(
        self, content: Any, match_pattern: str, not_match_pattern: str
    ) -> SnapshotAnswer: ...


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
    return "".join(
        difflib.unified_diff(
            _split_lines(expected), _split_lines(actual), fromfile="Expected", tofile="Actual", n=1
        )
    )


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


def judge_each(
    items: Sequence[Item], empty_passes: bool, judge: Callable[[int, Item], bool]
) -> bool:
    """helm-unittest's fold over documents or values: every item is judged (and reports), the
    result is the first verdict and-ed with the rest; no items at all give `empty_passes`."""
    success = not items and empty_passes
    for index, item in enumerate(items):
        success = determine_success(index, success, judge(index, item))
    return success


def over_selected(
    ctx: Context,
    out: Collector,
    judge: Callable[[int, Doc], bool],
    no_manifest: Callable[[], list[str]],
) -> Verdict:
    """The validators' outer loop: every selected document judged; with none selected a negative
    assertion passes and a positive one fails with `no_manifest`'s lines."""
    success = judge_each(ctx.selected, ctx.negative, judge)
    if not ctx.selected and not ctx.negative:
        out.add(no_manifest())
    return out.verdict(success)


def judge_raw(
    ctx: Context, matches: Callable[[str], bool], fail: Callable[[Any], list[str]]
) -> Verdict:
    """The `*Raw` validators: each selected document's `raw` text (NOTES) against `matches`."""
    out = Collector()

    def judge(index: int, doc: Doc) -> bool:
        actual = uniform_content(doc.body.get("raw"))
        passed = matches(actual) != ctx.negative
        out.check(doc, None, actual, passed)
        if not passed:
            out.add(fail(actual))
        return passed

    return over_selected(ctx, out, judge, lambda: fail(NO_MANIFEST))


def values_or_report(doc: Doc, path: str, manifest_index: int, out: Collector) -> list[Any] | None:
    """The values at `path` in `doc`; None after reporting a path that does not parse."""
    try:
        return path_values(doc, path)
    except PathError as exc:
        out.add(error_info(manifest_index, -1, str(exc)))
        return None


def unknown_reported(
    actuals: list[Any],
    doc: Doc,
    path: str,
    manifest_index: int,
    ctx: Context,
    out: Collector,
    message: str | None = None,
    record: bool = True,
) -> bool:
    """True after reporting `message` (`unknown path …`) when a positive assertion found nothing;
    `record` also lists the missing value as a failed check."""
    if actuals or ctx.negative:
        return False
    out.add(error_info(manifest_index, -1, f"unknown path {path}" if message is None else message))
    if record:
        out.check(doc, path, None, False)
    return True


def found_values(
    doc: Doc,
    path: str,
    manifest_index: int,
    ctx: Context,
    out: Collector,
    unknown_message: str | None = None,
    record_unknown: bool = True,
) -> list[Any] | None:
    """The values at `path` to judge; None after reporting a bad path or (positive) no value."""
    actuals = values_or_report(doc, path, manifest_index, out)
    if actuals is None or unknown_reported(
        actuals, doc, path, manifest_index, ctx, out, unknown_message, record_unknown
    ):
        return None
    return actuals


def over_path_values(
    path: str,
    ctx: Context,
    out: Collector,
    judge_value: Callable[[Any, Doc, tuple[int, int]], bool],
    no_manifest: Callable[[], list[str]],
) -> Verdict:
    """A per-value validator: every value at `path` in every selected document judged by
    `judge_value` (given the value, its document and its manifest and value indexes)."""

    def judge(manifest_index: int, doc: Doc) -> bool:
        actuals = found_values(doc, path, manifest_index, ctx, out)
        if actuals is None:
            return False
        return judge_each(
            actuals,
            ctx.negative,
            lambda actual_index, actual: judge_value(actual, doc, (manifest_index, actual_index)),
        )

    return over_selected(ctx, out, judge, no_manifest)
