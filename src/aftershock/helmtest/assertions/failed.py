"""`failedTemplate` (`errorMessage`, `errorPattern`, or any failure) and `notFailedTemplate`.

A render failure reaches this validator either as the template's error document (`raw`, the
message helm-unittest cut out of Helm's error) or, for failures before templates run (values
schema, release name), as the whole error text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aftershock.gocompat.gofmt import sprint
from aftershock.gocompat.goregex import GoRegexError, compile_go, quote_meta
from aftershock.helmtest.assertions.common import (
    ERROR_FORMAT,
    Collector,
    Context,
    Verdict,
    determine_success,
    fail_format,
    split_info,
)

FAILED_PARAMS = {"ErrorMessage": "str", "ErrorPattern": "str"}
_META = re.compile(r".*[\\.+*?()|\[\]{}^$].*", re.S)


def _fail(params: Mapping[str, Any], actual: Any, manifest_index: int, negative: bool) -> list[str]:
    custom = " to match" if params["ErrorPattern"] else " to equal"
    message = params["ErrorMessage"] or params["ErrorPattern"]
    if negative:
        return split_info(
            fail_format(True, False, False, False, custom), manifest_index, -1, message
        )
    return split_info(
        fail_format(False, False, True, False, custom), manifest_index, -1, message, sprint(actual)
    )


def _pattern_result(
    params: Mapping[str, Any], actual: Any, manifest_index: int, negative: bool
) -> tuple[bool, list[str]]:
    pattern = params["ErrorPattern"]
    try:
        try:
            compiled = compile_go(pattern)
        except GoRegexError:  # upstream retries an invalid pattern as a literal
            compiled = compile_go(quote_meta(pattern))
    except GoRegexError as exc:
        return False, split_info(ERROR_FORMAT, -1, -1, str(exc))
    if actual is not None and compiled.search(str(actual)) == negative:
        if _META.fullmatch(pattern):
            literal = compile_go(quote_meta(pattern))
            if literal.search(str(actual)) == negative:
                return False, _fail(params, actual, manifest_index, negative)
            return True, []
        return False, _fail(params, actual, manifest_index, negative)
    return True, []


def _message_result(
    params: Mapping[str, Any], actual: Any, manifest_index: int, negative: bool
) -> tuple[bool, list[str]]:
    matched = actual is not None and params["ErrorMessage"] == actual
    if matched == negative:
        return False, _fail(params, actual, manifest_index, negative)
    return True, []


def _over_documents(params: Mapping[str, Any], ctx: Context, out: Collector) -> bool:
    success = True
    empty_validator = not params["ErrorMessage"] and not params["ErrorPattern"]
    for index, doc in enumerate(ctx.selected):
        actual = doc.body.get("raw")
        if empty_validator and not ctx.negative:
            out.check(doc, None, actual, True)
            continue
        if params["ErrorPattern"]:
            current, lines = _pattern_result(params, actual, index, ctx.negative)
        elif params["ErrorMessage"]:
            current, lines = _message_result(params, actual, index, ctx.negative)
        else:
            current, lines = True, []
        out.check(doc, None, actual, current)
        out.add(lines)
        success = determine_success(index, success, current)
    if not ctx.selected and not ctx.negative:
        success = False
        out.add(_fail(params, "No failed document", -1, ctx.negative))
    return success


def validate_failed_template(params: Mapping[str, Any], ctx: Context) -> Verdict:
    if params["ErrorMessage"] and params["ErrorPattern"]:
        message = "single attribute 'errorMessage' or 'errorPattern' supported at the same time"
        return Verdict(False, tuple(split_info(ERROR_FORMAT, -1, -1, message)))
    out = Collector()
    if ctx.render_error is not None:
        if params["ErrorPattern"]:
            passed, lines = _pattern_result(params, ctx.render_error, -1, ctx.negative)
        elif params["ErrorMessage"]:
            passed, lines = _message_result(params, ctx.render_error, -1, ctx.negative)
        else:
            passed, lines = True, []
        out.check(None, None, ctx.render_error, passed)
        out.add(lines)
        return out.verdict(passed)
    return out.verdict(_over_documents(params, ctx, out))
