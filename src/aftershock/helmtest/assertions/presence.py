"""Presence and type of values: `exists`/`notExists` (and the deprecated `isNotNull`/`isNull`),
`isNullOrEmpty`/`isEmpty` and their negations, `isType`/`isNotType`."""

from __future__ import annotations

from typing import Any, Mapping

from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Verdict,
    determine_success,
    error_info,
    fail_format,
    path_values,
    split_info,
    yaml_text,
)
from aftershock.helmtest.gofmt import go_type_name
from aftershock.helmtest.jsonpath import PathError

PATH_PARAMS = {"Path": "str"}
TYPE_PARAMS = {"Path": "str", "Type": "str"}


def _exists_fail(path: str, manifest_index: int, negative: bool) -> list[str]:
    text = "Path:%s expected to " + ("NOT " if negative else "") + "exists"
    return split_info(text, manifest_index, -1, path)


def validate_exists(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    path = params["Path"]
    success = False
    for index, doc in enumerate(ctx.selected):
        try:
            found = path_values(doc, path)
        except PathError as exc:
            success = False
            out.add(error_info(index, -1, str(exc)))
            continue
        passed = bool(found) != ctx.negative
        out.check(doc, path, found[0] if len(found) == 1 else (found or None), passed)
        if not passed:
            success = False
            out.add(_exists_fail(path, index, ctx.negative))
            continue
        success = determine_success(index, success, True)
    if not ctx.selected and not ctx.negative:
        out.add(_exists_fail(path, -1, ctx.negative))
    elif not ctx.selected:
        success = True
    return out.verdict(success)


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


_NO_MANIFEST = "no manifest found"


def _per_value(params: Mapping[str, Any], ctx: Context, judge: Any, fail: Any) -> Verdict:
    """The loop shared by isNullOrEmpty and isType: every value of `Path` in every document."""
    out = Collector()
    path = params["Path"]
    success = False
    for manifest_index, doc in enumerate(ctx.selected):
        try:
            actuals = path_values(doc, path)
        except PathError as exc:
            out.add(error_info(manifest_index, -1, str(exc)))
            success = determine_success(manifest_index, success, False)
            continue
        if not actuals and not ctx.negative:
            out.add(error_info(manifest_index, -1, f"unknown path {path}"))
            out.check(doc, path, None, False)
            success = determine_success(manifest_index, success, False)
            continue
        doc_success = not actuals and ctx.negative
        for actual_index, actual in enumerate(actuals):
            passed = judge(actual) != ctx.negative
            out.check(doc, path, actual, passed)
            if not passed:
                out.add(fail(actual, manifest_index, actual_index))
            doc_success = determine_success(actual_index, doc_success, passed)
        success = determine_success(manifest_index, success, doc_success)
    if not ctx.selected and not ctx.negative:
        out.add(fail(_NO_MANIFEST, -1, -1, shown_as_is=True))
    elif not ctx.selected:
        success = True
    return out.verdict(success)


def validate_null_or_empty(params: Mapping[str, Any], ctx: Context) -> Verdict:
    def fail(actual: Any, manifest_index: int, actual_index: int,
             shown_as_is: bool = False) -> list[str]:
        template = fail_format(ctx.negative, True, False, False, " to be null or empty, got")
        return split_info(template, manifest_index, actual_index, params["Path"],
                          yaml_text(actual))

    return _per_value(params, ctx, _is_empty, fail)


def validate_type(params: Mapping[str, Any], ctx: Context) -> Verdict:
    def fail(actual: Any, manifest_index: int, actual_index: int,
             shown_as_is: bool = False) -> list[str]:
        shown = actual if shown_as_is else go_type_name(actual)
        template = fail_format(ctx.negative, True, True, False, " to be of type")
        return split_info(template, manifest_index, actual_index, params["Path"],
                          params["Type"], shown)

    return _per_value(params, ctx, lambda actual: go_type_name(actual) == params["Type"], fail)
