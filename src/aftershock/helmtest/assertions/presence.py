"""Presence and type of values: `exists`/`notExists` (and the deprecated `isNotNull`/`isNull`),
`isNullOrEmpty`/`isEmpty` and their negations, `isType`/`isNotType`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from aftershock.gocompat.gofmt import go_type_name
from aftershock.helmtest.assertions.common import (
    NO_MANIFEST,
    Collector,
    Context,
    Doc,
    Verdict,
    fail_format,
    over_path_values,
    over_selected,
    split_info,
    values_or_report,
    yaml_text,
)

PATH_PARAMS = {"Path": "str"}
TYPE_PARAMS = {"Path": "str", "Type": "str"}


def _exists_fail(path: str, manifest_index: int, negative: bool) -> list[str]:
    text = "Path:%s expected to " + ("NOT " if negative else "") + "exists"
    return split_info(text, manifest_index, -1, path)


def validate_exists(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    path = params["Path"]

    def judge(index: int, doc: Doc) -> bool:
        found = values_or_report(doc, path, index, out)
        if found is None:
            return False
        passed = bool(found) != ctx.negative
        out.check(doc, path, found[0] if len(found) == 1 else (found or None), passed)
        if not passed:
            out.add(_exists_fail(path, index, ctx.negative))
        return passed

    return over_selected(ctx, out, judge, lambda: _exists_fail(path, -1, ctx.negative))


def _is_empty(value: Any) -> bool:
    """Go's zero-or-empty test: nil, "", 0, 0.0, false, and empty lists or maps."""
    if value is None:
        return True
    if isinstance(value, (list, dict, str)):
        return len(value) == 0
    if isinstance(value, bool):
        return value is False
    if isinstance(value, (int, float)):
        return value == 0
    return False


class _ValueFail(Protocol):
    """The failure lines for one value (`shown_as_is`: the value is a note, not a document's value)."""

    def __call__(
        self, actual: Any, manifest_index: int, actual_index: int, shown_as_is: bool = False
    ) -> list[str]: ...


def _per_value(
    params: Mapping[str, Any], ctx: Context, judge: Callable[[Any], bool], fail: _ValueFail
) -> Verdict:
    """The loop shared by isNullOrEmpty and isType: every value of `Path` in every document."""
    out = Collector()

    def judge_value(actual: Any, doc: Doc, indexes: tuple[int, int]) -> bool:
        passed = judge(actual) != ctx.negative
        out.check(doc, params["Path"], actual, passed)
        if not passed:
            out.add(fail(actual, *indexes))
        return passed

    return over_path_values(
        params["Path"], ctx, out, judge_value, lambda: fail(NO_MANIFEST, -1, -1, shown_as_is=True)
    )


def validate_null_or_empty(params: Mapping[str, Any], ctx: Context) -> Verdict:
    def fail(
        actual: Any, manifest_index: int, actual_index: int, shown_as_is: bool = False
    ) -> list[str]:
        template = fail_format(ctx.negative, True, False, False, " to be null or empty, got")
        return split_info(template, manifest_index, actual_index, params["Path"], yaml_text(actual))

    return _per_value(params, ctx, _is_empty, fail)


def validate_type(params: Mapping[str, Any], ctx: Context) -> Verdict:
    def fail(
        actual: Any, manifest_index: int, actual_index: int, shown_as_is: bool = False
    ) -> list[str]:
        shown = actual if shown_as_is else go_type_name(actual)
        template = fail_format(ctx.negative, True, True, False, " to be of type")
        return split_info(
            template, manifest_index, actual_index, params["Path"], params["Type"], shown
        )

    return _per_value(params, ctx, lambda actual: go_type_name(actual) == params["Type"], fail)
