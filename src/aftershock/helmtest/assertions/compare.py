"""`greaterOrEqual`, `lessOrEqual` and their negations (helm-unittest's operatorValidator)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.gocompat.gofmt import go_type_name, sprint
from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    Verdict,
    determine_success,
    error_info,
    fail_format,
    found_values,
    over_selected,
    split_info,
)

COMPARE_PARAMS = {"Path": "str", "Value": "any"}


def _go_type(value: Any) -> str:
    return go_type_name(value) or "<nil>"


def _holds(expected: Any, actual: Any, comparison: str, positive: bool) -> bool:
    """compare*Values, including upstream's precedence: `a && b || c == positive`."""
    greater = comparison == "greater" and actual >= expected
    less_matches = (comparison == "less" and actual <= expected) == positive
    return greater or less_matches


def _compare(expected: Any, actual: Any, comparison: str, positive: bool) -> tuple[bool, str]:
    if isinstance(expected, bool) or not isinstance(expected, (str, int, float)):
        return False, f"unsupported type '{_go_type(expected)}'"
    if _holds(expected, actual, comparison, positive):
        return True, ""
    return False, (
        f"the actual '{sprint(actual)}' is not {comparison} or equal to the expected "
        f"'{sprint(expected)}'"
    )


def _manifest(
    params: Mapping[str, Any],
    doc: Doc,
    manifest_index: int,
    comparison: str,
    ctx: Context,
    out: Collector,
) -> bool:
    path = params["Path"]
    actuals = found_values(
        doc, path, manifest_index, ctx, out, unknown_message=f"unknown path '{path}'"
    )
    if actuals is None:
        return False
    success = not actuals and ctx.negative
    for actual_index, actual in enumerate(actuals):  # not judge_each: a type mismatch is skipped
        if _go_type(actual) != _go_type(params["Value"]):
            out.add(
                error_info(
                    manifest_index,
                    actual_index,
                    f"actual '{_go_type(actual)}' and expected "
                    f"'{_go_type(params['Value'])}' types do not match",
                )
            )
            out.check(doc, path, actual, False)
            continue
        passed, message = _compare(params["Value"], actual, comparison, not ctx.negative)
        out.check(doc, path, actual, passed)
        if not passed:
            custom = f" to be {comparison} then or equal to, got"
            out.add(
                split_info(
                    fail_format(ctx.negative, True, False, False, custom),
                    manifest_index,
                    actual_index,
                    path,
                    message,
                )
            )
        success = determine_success(actual_index, success, passed)
    return success


def _operator(comparison: str) -> Any:
    def validate(params: Mapping[str, Any], ctx: Context) -> Verdict:
        out = Collector()
        custom = f" to be {comparison} then or equal to, got"
        return over_selected(
            ctx,
            out,
            lambda manifest_index, doc: _manifest(
                params, doc, manifest_index, comparison, ctx, out
            ),
            lambda: split_info(
                fail_format(False, True, False, False, custom),
                -1,
                -1,
                params["Path"],
                "no manifests found",
            ),
        )

    return validate


validate_greater_or_equal = _operator("greater")
validate_less_or_equal = _operator("less")
