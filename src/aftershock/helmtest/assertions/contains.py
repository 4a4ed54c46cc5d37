"""`contains`/`notContains` (list items, with `count` and `any`), `isSubset`/`isNotSubset`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.gocompat.gofmt import deep_equal
from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    Verdict,
    error_info,
    fail_format,
    over_path_values,
    split_info,
    yaml_text,
)

CONTAINS_PARAMS = {"Path": "str", "Content": "any", "Count": "int?", "Any": "bool"}
SUBSET_PARAMS = {"Path": "str", "Content": "any"}


def _is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def _subset(actual: dict[str, Any], content: dict[str, Any]) -> bool:
    """validateSubset: every key of `content` has a deep-equal value in `actual`."""
    return all(deep_equal(actual.get(key), content[key]) for key in content)


def _found(params: Mapping[str, Any], items: list[Any]) -> tuple[bool, int]:
    found, count = False, 0
    content = params["Content"]
    for item in items:
        is_array = False
        if params["Any"]:
            if _is_string_map(item) and _is_string_map(content):
                if _subset(item, content):
                    found, count = True, count + 1
            else:
                is_array = True
        if (not params["Any"] or is_array) and deep_equal(item, content):
            found, count = True, count + 1
    return found, count


def _contains_fail(
    params: Mapping[str, Any], actual: Any, manifest_index: int, values_index: int, negative: bool
) -> list[str]:
    template = fail_format(negative, True, True, False, " to contain")
    return split_info(
        template,
        manifest_index,
        values_index,
        params["Path"],
        yaml_text([params["Content"]]),
        yaml_text(actual),
    )


def _contains_single(
    params: Mapping[str, Any],
    items: list[Any],
    indexes: tuple[int, int],
    negative: bool,
    out: Collector,
) -> bool:
    found, count = _found(params, items)
    expected_count = params["Count"]
    if expected_count is None:
        if found == negative:
            out.add(_contains_fail(params, items, *indexes, negative))
            return False
        return True
    if (found and expected_count == count) == negative:
        if not found:
            out.add(_contains_fail(params, items, *indexes, negative))
        else:
            out.add(
                error_info(
                    *indexes,
                    (
                        f"expect count {expected_count} in '{params['Path']}' to be in array, "
                        f"got {count}:\n{yaml_text(items)}"
                    ),
                )
            )
        return False
    return True


def _contains_value(
    params: Mapping[str, Any],
    actual: Any,
    doc: Doc,
    indexes: tuple[int, int],
    ctx: Context,
    out: Collector,
) -> bool:
    if isinstance(actual, list):
        passed = _contains_single(params, actual, indexes, ctx.negative, out)
    else:
        passed = False
        out.add(
            error_info(
                *indexes, f"expect '{params['Path']}' to be an array, got:\n{yaml_text(actual)}"
            )
        )
    out.check(doc, params["Path"], actual, passed)
    return passed


def validate_contains(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    return over_path_values(
        params["Path"],
        ctx,
        out,
        lambda actual, doc, indexes: _contains_value(params, actual, doc, indexes, ctx, out),
        lambda: _contains_fail(params, "no manifest found", 0, -1, ctx.negative),
    )


def _subset_fail(
    params: Mapping[str, Any], actual: Any, manifest_index: int, values_index: int, negative: bool
) -> list[str]:
    template = fail_format(negative, True, True, False, " to contain")
    return split_info(
        template,
        manifest_index,
        values_index,
        params["Path"],
        yaml_text(params["Content"]),
        yaml_text(actual),
    )


def _subset_value(
    params: Mapping[str, Any],
    actual: Any,
    doc: Doc,
    indexes: tuple[int, int],
    ctx: Context,
    out: Collector,
) -> bool:
    if _is_string_map(actual) and _is_string_map(params["Content"]):
        found = _subset(actual, params["Content"])
        passed = found != ctx.negative
        if not passed:
            out.add(_subset_fail(params, actual, *indexes, ctx.negative))
    else:
        passed = False
        out.add(
            error_info(
                *indexes, f"expect '{params['Path']}' to be an object, got:\n{yaml_text(actual)}"
            )
        )
    out.check(doc, params["Path"], actual, passed)
    return passed


def validate_subset(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    return over_path_values(
        params["Path"],
        ctx,
        out,
        lambda actual, doc, indexes: _subset_value(params, actual, doc, indexes, ctx, out),
        lambda: _subset_fail(params, "no manifest found", -1, -1, ctx.negative),
    )
