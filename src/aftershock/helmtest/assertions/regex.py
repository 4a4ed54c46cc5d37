"""`matchRegex`/`notMatchRegex` on values and `matchRegexRaw`/`notMatchRegexRaw` on NOTES text."""

from __future__ import annotations

from typing import Any, Mapping

from aftershock.helmtest.assertions.common import (
    ERROR_FORMAT,
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
    yaml_text,
)
from aftershock.helmtest.goregex import GoRegex, GoRegexError, compile_go
from aftershock.helmtest.jsonpath import PathError

REGEX_PARAMS = {"Path": "str", "Pattern": "str", "DecodeBase64": "bool"}
REGEX_RAW_PARAMS = {"Pattern": "str"}
_PATTERN_REQUIRED = "expected field 'pattern' to be filled"


def _regex_fail(params: Mapping[str, Any], actual: str, manifest_index: int, actual_index: int,
                negative: bool) -> list[str]:
    template = fail_format(negative, True, True, False, " to match")
    return split_info(template, manifest_index, actual_index, params["Path"], params["Pattern"],
                      actual)


def _regex_single(params: Mapping[str, Any], actual: Any, pattern: GoRegex, doc: Doc,
                  indexes: tuple[int, int], ctx: Context, out: Collector) -> bool:
    if not isinstance(actual, str):
        out.add(error_info(*indexes, f"expect '{params['Path']}' to be a string, got:\n"
                                     f"{yaml_text(actual)}"))
        out.check(doc, params["Path"], actual, False)
        return False
    text = actual
    if params["DecodeBase64"]:
        decoded = decode_base64(actual)
        if decoded is None:
            out.add(error_info(*indexes, f"unable to decode base64 expected content {actual}"))
            out.check(doc, params["Path"], actual, False)
            return False
        text = decoded
    passed = pattern.search(text) != ctx.negative
    out.check(doc, params["Path"], text, passed)
    if not passed:
        out.add(_regex_fail(params, text, *indexes, ctx.negative))
    return passed


def _regex_manifest(params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context,
                    out: Collector) -> bool:
    path = params["Path"]
    try:
        actuals = path_values(doc, path)
    except PathError as exc:
        out.add(error_info(manifest_index, -1, str(exc)))
        return False
    try:
        pattern = compile_go(params["Pattern"])
    except GoRegexError as exc:
        out.add(error_info(-1, -1, str(exc)))
        return False
    if not actuals and not ctx.negative:
        out.add(error_info(manifest_index, -1, f"unknown path {path}"))
        out.check(doc, path, None, False)
        return False
    success = not actuals and ctx.negative
    for actual_index, actual in enumerate(actuals):
        single = _regex_single(params, actual, pattern, doc, (manifest_index, actual_index), ctx,
                               out)
        success = determine_success(actual_index, success, single)
    return success


def validate_regex(params: Mapping[str, Any], ctx: Context) -> Verdict:
    if not params["Pattern"]:
        return Verdict(False, tuple(split_info(ERROR_FORMAT, -1, -1, _PATTERN_REQUIRED)))
    out = Collector()
    success = False
    for manifest_index, doc in enumerate(ctx.selected):
        passed = _regex_manifest(params, doc, manifest_index, ctx, out)
        success = determine_success(manifest_index, success, passed)
    if not ctx.selected and not ctx.negative:
        out.add(_regex_fail(params, "no manifest found", -1, -1, ctx.negative))
    elif not ctx.selected:
        success = True
    return out.verdict(success)


def _raw_fail(pattern: str, actual: str, negative: bool) -> list[str]:
    return split_info(fail_format(negative, False, True, False, " to match"), -1, -1, pattern,
                      actual)


def validate_regex_raw(params: Mapping[str, Any], ctx: Context) -> Verdict:
    if not params["Pattern"]:
        return Verdict(False, tuple(split_info(ERROR_FORMAT, -1, -1, _PATTERN_REQUIRED)))
    out = Collector()
    success = False
    for index, doc in enumerate(ctx.selected):
        actual = uniform_content(doc.body.get("raw"))
        try:
            pattern = compile_go(params["Pattern"])
        except GoRegexError as exc:
            return Verdict(False, tuple(error_info(-1, -1, str(exc))))
        passed = pattern.search(actual) != ctx.negative
        out.check(doc, None, actual, passed)
        if not passed:
            success = False
            out.add(_raw_fail(params["Pattern"], actual, ctx.negative))
            continue
        success = determine_success(index, success, True)
    if not ctx.selected and not ctx.negative:
        out.add(_raw_fail(params["Pattern"], "no manifest found", ctx.negative))
    elif not ctx.selected:
        success = True
    return out.verdict(success)
