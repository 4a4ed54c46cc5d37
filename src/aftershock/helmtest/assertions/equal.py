"""`equal`/`notEqual` (EqualValidator) and `equalRaw`/`notEqualRaw` (EqualRawValidator)."""

from __future__ import annotations

from typing import Any, Mapping

from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    Verdict,
    decode_base64,
    determine_success,
    error_info,
    fail_format,
    path_values,
    split_info,
    uniform_content,
    unified_diff,
    yaml_text,
)
from aftershock.helmtest.gofmt import deep_equal
from aftershock.helmtest.jsonpath import PathError

EQUAL_PARAMS = {"Path": "str", "Value": "any", "DecodeBase64": "bool"}
EQUAL_RAW_PARAMS = {"Value": "str"}


def _equal_fail(params: Mapping[str, Any], actual: Any, manifest_index: int, actual_index: int,
                negative: bool) -> list[str]:
    expected = yaml_text(params["Value"])
    if negative:
        template = fail_format(negative, True, False, False, " to equal")
        return split_info(template, manifest_index, actual_index, params["Path"], expected)
    shown = yaml_text(actual)
    template = fail_format(negative, True, True, True, " to equal")
    return split_info(template, manifest_index, actual_index, params["Path"], expected, shown,
                      unified_diff(expected, shown))


def _equal_single(params: Mapping[str, Any], actual: Any, doc: Doc, indexes: tuple[int, int],
                  ctx: Context, out: Collector) -> bool:
    manifest_index, actual_index = indexes
    if isinstance(actual, str):
        if params["DecodeBase64"]:
            decoded = decode_base64(actual)
            if decoded is None:
                out.add(error_info(manifest_index, actual_index,
                                   f"unable to decode base64 expected content {actual}"))
                out.check(doc, params["Path"], actual, False)
                return False
            actual = decoded
        actual = uniform_content(actual)
    passed = deep_equal(params["Value"], actual) != ctx.negative
    out.check(doc, params["Path"], actual, passed)
    if not passed:
        out.add(_equal_fail(params, actual, manifest_index, actual_index, ctx.negative))
    return passed


def _equal_manifest(params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context,
                    out: Collector) -> bool:
    path = params["Path"]
    try:
        actuals = path_values(doc, path)
    except PathError as exc:
        out.add(error_info(manifest_index, -1, str(exc)))
        return False
    if not actuals and not ctx.negative:
        out.add(error_info(manifest_index, -1, f"unknown path {path}"))
        out.check(doc, path, None, False)
        return False
    success = not actuals and ctx.negative
    if success:
        out.check(doc, path, None, True)
    for actual_index, actual in enumerate(actuals):
        single = _equal_single(params, actual, doc, (manifest_index, actual_index), ctx, out)
        success = determine_success(actual_index, success, single)
    return success


def validate_equal(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    success = False
    for manifest_index, doc in enumerate(ctx.selected):
        passed = _equal_manifest(params, doc, manifest_index, ctx, out)
        success = determine_success(manifest_index, success, passed)
    if not ctx.selected and not ctx.negative:
        out.add(_equal_fail(params, "no manifest found", -1, -1, ctx.negative))
    elif not ctx.selected:
        success = True
    return out.verdict(success)


def _raw_fail(expected: str, actual: Any, negative: bool) -> list[str]:
    expected_yaml = yaml_text(expected)
    if negative:
        return split_info(fail_format(negative, False, False, False, " to equal"), -1, -1,
                          expected_yaml)
    actual_yaml = yaml_text(actual)
    return split_info(fail_format(negative, False, True, True, " to equal"), -1, -1,
                      expected_yaml, actual_yaml, unified_diff(expected_yaml, actual_yaml))


def validate_equal_raw(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    success = False
    for index, doc in enumerate(ctx.selected):
        actual = uniform_content(doc.body.get("raw"))
        passed = (params["Value"] == actual) != ctx.negative
        out.check(doc, None, actual, passed)
        if not passed:
            success = False
            out.add(_raw_fail(params["Value"], actual, ctx.negative))
            continue
        success = determine_success(index, success, True)
    if not ctx.selected and not ctx.negative:
        out.add(_raw_fail(params["Value"], "no manifest found", ctx.negative))
    elif not ctx.selected:
        success = True
    return out.verdict(success)
