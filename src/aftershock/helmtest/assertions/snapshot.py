"""`matchSnapshot` (a value, optionally checked against patterns) and `matchSnapshotRaw` (NOTES).

Comparison and bookkeeping are the suite's `SnapshotComparer`; this module only turns answers into
helm-unittest's failure text. Without a comparer (a test run outside a suite) the assertion fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aftershock.helmtest.assertions.common import (
    Collector,
    Context,
    Doc,
    SnapshotAnswer,
    Verdict,
    error_info,
    fail_format,
    found_values,
    judge_each,
    split_info,
    unified_diff,
    uniform_content,
)

SNAPSHOT_PARAMS = {"Path": "str", "MatchRegex": "pattern?", "NotMatchRegex": "pattern?"}
SNAPSHOT_RAW_PARAMS: dict[str, str] = {}


def _snapshot_fail(
    path: str, answer: SnapshotAnswer, manifest_index: int, actual_index: int, negative: bool
) -> list[str]:
    if answer.message:
        return split_info(
            fail_format(negative, False, False, False, answer.message),
            manifest_index,
            actual_index,
            answer.cached,
        )
    shown = answer.cached if negative else unified_diff(answer.cached, answer.new)
    return split_info(
        fail_format(negative, True, False, False, f" to match snapshot {answer.index}"),
        manifest_index,
        actual_index,
        path,
        shown,
    )


def _value(
    params: Mapping[str, Any],
    actual: Any,
    doc: Doc,
    indexes: tuple[int, int],
    ctx: Context,
    out: Collector,
) -> bool:
    assert ctx.snapshots is not None
    answer = ctx.snapshots.compare(
        actual, (params["MatchRegex"] or "").strip(), (params["NotMatchRegex"] or "").strip()
    )
    passed = answer.passed != ctx.negative
    out.check(doc, params["Path"] or None, actual, passed)
    if not passed:
        out.add(_snapshot_fail(params["Path"], answer, *indexes, ctx.negative))
    return passed


def _manifest(
    params: Mapping[str, Any], doc: Doc, manifest_index: int, ctx: Context, out: Collector
) -> bool:
    actuals = found_values(doc, params["Path"], manifest_index, ctx, out, record_unknown=False)
    if actuals is None:
        return False
    return judge_each(
        actuals,
        ctx.negative,
        lambda actual_index, actual: _value(
            params, actual, doc, (manifest_index, actual_index), ctx, out
        ),
    )


def _over_documents(ctx: Context, out: Collector, judge: Callable[[int, Doc], bool]) -> Verdict:
    """Unlike the other validators, no document selected passes a positive assertion."""
    if ctx.selected and ctx.snapshots is None:
        return Verdict(False, tuple(error_info(-1, -1, "no snapshot file for this test")))
    return out.verdict(judge_each(ctx.selected, not ctx.negative, judge))


def validate_snapshot(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()
    return _over_documents(
        ctx, out, lambda manifest_index, doc: _manifest(params, doc, manifest_index, ctx, out)
    )


def validate_snapshot_raw(params: Mapping[str, Any], ctx: Context) -> Verdict:
    out = Collector()

    def judge(index: int, doc: Doc) -> bool:
        assert ctx.snapshots is not None
        actual = uniform_content(doc.body.get("raw"))
        answer = ctx.snapshots.compare(actual, "", "")
        passed = answer.passed != ctx.negative
        out.check(doc, None, actual, passed)
        if not passed:
            shown = answer.cached if ctx.negative else unified_diff(answer.cached, answer.new)
            out.add(
                split_info(
                    fail_format(
                        ctx.negative, False, False, False, f" to match snapshot {answer.index}"
                    ),
                    -1,
                    -1,
                    shown,
                )
            )
        return passed

    return _over_documents(ctx, out, judge)
