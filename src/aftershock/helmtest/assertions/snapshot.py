"""`matchSnapshot` (a value, optionally checked against patterns) and `matchSnapshotRaw` (NOTES).

Comparison and bookkeeping are the suite's `SnapshotComparer`; this module only turns answers into
helm-unittest's failure text. Without a comparer (a test run outside a suite) the assertion fails.
"""

from __future__ import annotations

from typing import Any, Mapping

from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    SnapshotAnswer,
    Verdict,
    determine_success,
    error_info,
    fail_format,
    path_values,
    split_info,
    uniform_content,
    unified_diff,
)
from aftershock.helmtest.jsonpath import PathError

SNAPSHOT_PARAMS = {"Path": "str", "MatchRegex": "pattern?", "NotMatchRegex": "pattern?"}
SNAPSHOT_RAW_PARAMS: dict[str, str] = {}


def _snapshot_fail(path: str, answer: SnapshotAnswer, manifest_index: int, actual_index: int,
                   negative: bool) -> list[str]:
    if answer.message:
        return split_info(fail_format(negative, False, False, False, answer.message),
                          manifest_index, actual_index, answer.cached)
    shown = answer.cached if negative else unified_diff(answer.cached, answer.new)
    return split_info(fail_format(negative, True, False, False,
                                  f" to match snapshot {answer.index}"),
                      manifest_index, actual_index, path, shown)


def _manifest(params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context,
              out: Collector) -> bool:
    path = params["Path"]
    try:
        actuals = path_values(doc, path)
    except PathError as exc:
        out.add(error_info(manifest_index, -1, str(exc)))
        return False
    if not actuals and not ctx.negative:
        out.add(error_info(manifest_index, -1, f"unknown path {path}"))
        return False
    success = not actuals and ctx.negative
    for actual_index, actual in enumerate(actuals):
        assert ctx.snapshots is not None
        answer = ctx.snapshots.compare(actual, (params["MatchRegex"] or "").strip(),
                                       (params["NotMatchRegex"] or "").strip())
        passed = answer.passed != ctx.negative
        out.check(doc, path or None, actual, passed)
        if not passed:
            out.add(_snapshot_fail(path, answer, manifest_index, actual_index, ctx.negative))
        success = determine_success(actual_index, success, passed)
    return success


def validate_snapshot(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    success = not ctx.selected and not ctx.negative
    for manifest_index, doc in enumerate(ctx.selected):
        if ctx.snapshots is None:
            return Verdict(False, tuple(error_info(-1, -1, "no snapshot file for this test")))
        passed = _manifest(params, doc, manifest_index, ctx, out)
        success = determine_success(manifest_index, success, passed)
    return out.verdict(success)


def validate_snapshot_raw(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    success = not ctx.selected and not ctx.negative
    for index, doc in enumerate(ctx.selected):
        if ctx.snapshots is None:
            return Verdict(False, tuple(error_info(-1, -1, "no snapshot file for this test")))
        actual = uniform_content(doc.body.get("raw"))
        answer = ctx.snapshots.compare(actual, "", "")
        passed = answer.passed != ctx.negative
        out.check(doc, None, actual, passed)
        if not passed:
            shown = answer.cached if ctx.negative else unified_diff(answer.cached, answer.new)
            out.add(split_info(fail_format(ctx.negative, False, False, False,
                                           f" to match snapshot {answer.index}"), -1, -1, shown))
        success = determine_success(index, success, passed)
    return out.verdict(success)
