"""`equal`/`notEqual` (EqualValidator) and `equalRaw`/`notEqualRaw` (EqualRawValidator)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.gocompat.gofmt import deep_equal
from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    Verdict,
    decode_base64,
    error_info,
    fail_format,
    found_values,
    judge_each,
    judge_raw,
    over_selected,
    split_info,
    unified_diff,
    uniform_content,
    yaml_text,
)

EQUAL_PARAMS = {"Path": "str", "Value": "any", "DecodeBase64": "bool"}
EQUAL_RAW_PARAMS = {"Value": "str"}


def _equal_fail(
    params: Mapping[str, Any], actual: Any, manifest_index: int, actual_index: int, negative: bool
) -> list[str]:
    expected = yaml_text(params["Value"])
    if negative:
        template = fail_format(negative, True, False, False, " to equal")
        return split_info(template, manifest_index, actual_index, params["Path"], expected)
    shown = yaml_text(actual)
    template = fail_format(negative, True, True, True, " to equal")
    return split_info(
        template,
        manifest_index,
        actual_index,
        params["Path"],
        expected,
        shown,
        unified_diff(expected, shown),
    )


def _equal_single(
    params: Mapping[str, Any],
    actual: Any,
    doc: Doc,
    indexes: tuple[int, int],
    ctx: Context,
    out: Collector,
) -> bool:
    manifest_index, actual_index = indexes
    if isinstance(actual, str):
        if params["DecodeBase64"]:
            decoded = decode_base64(actual)
            if decoded is None:
                out.add(
                    error_info(
                        manifest_index,
                        actual_index,
                        f"unable to decode base64 expected content {actual}",
                    )
                )
                out.check(doc, params["Path"], actual, False)
                return False
            actual = decoded
        actual = uniform_content(actual)
    passed = deep_equal(params["Value"], actual) != ctx.negative
    out.check(doc, params["Path"], actual, passed)
    if not passed:
        out.add(_equal_fail(params, actual, manifest_index, actual_index, ctx.negative))
    return passed


def _equal_manifest(
    params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context, out: Collector
) -> bool:
    path = params["Path"]
    actuals = found_values(doc, path, manifest_index, ctx, out)
    if actuals is None:
        return False
    if not actuals:  # a negative assertion on a missing value: it passes
        out.check(doc, path, None, True)
    return judge_each(
        actuals,
        ctx.negative,
        lambda actual_index, actual: _equal_single(
            params, actual, doc, (manifest_index, actual_index), ctx, out
        ),
    )


def validate_equal(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    return over_selected(
        ctx,
        out,
        lambda manifest_index, doc: _equal_manifest(params, doc, manifest_index, ctx, out),
        lambda: _equal_fail(params, "no manifest found", -1, -1, ctx.negative),
    )


def _raw_fail(expected: str, actual: Any, negative: bool) -> list[str]:
    expected_yaml = yaml_text(expected)
    if negative:
        return split_info(
            fail_format(negative, False, False, False, " to equal"), -1, -1, expected_yaml
        )
    actual_yaml = yaml_text(actual)
    return split_info(
        fail_format(negative, False, True, True, " to equal"),
        -1,
        -1,
        expected_yaml,
        actual_yaml,
        unified_diff(expected_yaml, actual_yaml),
    )


def validate_equal_raw(params: Mapping[str, Any], ctx: Context) -> Verdict:
    return judge_raw(
        ctx,
        lambda actual: params["Value"] == actual,
        lambda actual: _raw_fail(params["Value"], actual, ctx.negative),
    )
