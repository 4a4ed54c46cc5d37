"""`matchRegex`/`notMatchRegex` on values and `matchRegexRaw`/`notMatchRegexRaw` on NOTES text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aftershock.gocompat.goregex import GoRegex, GoRegexError, compile_go
from aftershock.helmtest.assertions.common import (
    ERROR_FORMAT,
    Collector,
    Context,
    Doc,
    Verdict,
    decode_base64,
    error_info,
    fail_format,
    judge_each,
    judge_raw,
    over_selected,
    split_info,
    unknown_reported,
    values_or_report,
    yaml_text,
)

REGEX_PARAMS = {"Path": "str", "Pattern": "str", "DecodeBase64": "bool"}
REGEX_RAW_PARAMS = {"Pattern": "str"}
_PATTERN_REQUIRED = "expected field 'pattern' to be filled"


def _regex_fail(
    params: Mapping[str, Any], actual: str, manifest_index: int, actual_index: int, negative: bool
) -> list[str]:
    template = fail_format(negative, True, True, False, " to match")
    return split_info(
        template, manifest_index, actual_index, params["Path"], params["Pattern"], actual
    )


def _regex_single(
    params: Mapping[str, Any],
    actual: Any,
    pattern: GoRegex,
    doc: Doc,
    indexes: tuple[int, int],
    ctx: Context,
    out: Collector,
) -> bool:
    if not isinstance(actual, str):
        out.add(
            error_info(
                *indexes, f"expect '{params['Path']}' to be a string, got:\n{yaml_text(actual)}"
            )
        )
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


def _regex_manifest(
    params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context, out: Collector
) -> bool:
    path = params["Path"]
    actuals = values_or_report(doc, path, manifest_index, out)
    if actuals is None:
        return False
    try:  # after the path parses and before it is found missing, as upstream
        pattern = compile_go(params["Pattern"])
    except GoRegexError as exc:
        out.add(error_info(-1, -1, str(exc)))
        return False
    if unknown_reported(actuals, doc, path, manifest_index, ctx, out):
        return False
    return judge_each(
        actuals,
        ctx.negative,
        lambda actual_index, actual: _regex_single(
            params, actual, pattern, doc, (manifest_index, actual_index), ctx, out
        ),
    )


def _pattern_required() -> Verdict:
    return Verdict(False, tuple(split_info(ERROR_FORMAT, -1, -1, _PATTERN_REQUIRED)))


def validate_regex(params: Mapping[str, Any], ctx: Context) -> Verdict:
    if not params["Pattern"]:
        return _pattern_required()
    out = Collector()
    return over_selected(
        ctx,
        out,
        lambda manifest_index, doc: _regex_manifest(params, doc, manifest_index, ctx, out),
        lambda: _regex_fail(params, "no manifest found", -1, -1, ctx.negative),
    )


def _raw_fail(pattern: str, actual: str, negative: bool) -> list[str]:
    return split_info(
        fail_format(negative, False, True, False, " to match"), -1, -1, pattern, actual
    )


def validate_regex_raw(params: Mapping[str, Any], ctx: Context) -> Verdict:
    if not params["Pattern"]:
        return _pattern_required()
    matches: Callable[[str], bool]
    try:
        matches = compile_go(params["Pattern"]).search
    except GoRegexError as exc:
        if ctx.selected:
            return Verdict(False, tuple(error_info(-1, -1, str(exc))))
        matches = bool  # upstream compiles per document: with none, a bad pattern goes unseen
    return judge_raw(
        ctx, matches, lambda actual: _raw_fail(params["Pattern"], actual, ctx.negative)
    )
