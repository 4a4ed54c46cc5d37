"""Comparing one chart's helm-unittest results at base and head, test by test.

Input: the runner's `ChartResult` of each side, whose suite files are already chart-relative (the
pipeline rewrites them). A suite that could not run (`exec_error`) and a chart whose suites could
not be loaded (`error`) are failures, never passes: every test the other side has in that file
(or chart) counts as errored on this side, so a suite broken at head makes its tests newly failing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from aftershock.model.test_results import (
    AssertionResult,
    ChartResult,
    JobStatus,
    TestKey,
    TestResult,
    test_keys,
)
from aftershock.model.tests import (
    RunStatus,
    SideTests,
    SuiteError,
    TestChange,
    TestComparison,
    TestOutcome,
    TestStatus,
)

_MAX_FAILURE_CHARS = 300
_VALUE_FIELDS = re.compile(r"^\$?\.?(data|stringData|binaryData)\b")
_STATUS = {
    JobStatus.PASSED: TestStatus.PASSED,
    JobStatus.FAILED: TestStatus.FAILED,
    JobStatus.ERRORED: TestStatus.ERRORED,
    JobStatus.SKIPPED: TestStatus.SKIPPED,
    JobStatus.NOT_RUN: TestStatus.NOT_RUN,
}
_FAILING = (TestStatus.FAILED, TestStatus.ERRORED)


def summarize(result: ChartResult) -> SideTests:
    """The counts of one side's run; ERRORED when the chart's suites could not be loaded."""
    errors = tuple(
        SuiteError(s.file, _first_line(s.exec_error)) for s in result.suites if s.exec_error
    )
    if result.error is not None:
        return SideTests(RunStatus.ERRORED, error=_first_line(result.error), suite_errors=errors)
    counts = dict.fromkeys(TestStatus, 0)
    for _, _, test in _tests(result):
        counts[_STATUS[test.status]] += 1
    return SideTests(
        RunStatus.RAN,
        suites=len(result.suites),
        passed=counts[TestStatus.PASSED],
        failed=counts[TestStatus.FAILED],
        errored=counts[TestStatus.ERRORED],
        skipped=counts[TestStatus.SKIPPED],
        not_run=counts[TestStatus.NOT_RUN],
        suite_errors=errors,
    )


def compare_tests(base: ChartResult | None, head: ChartResult | None) -> tuple[TestComparison, ...]:
    """Every test of either side with how its outcome moved; ordered by suite file, then test name."""
    base_tests, head_tests = keyed_tests(base), keyed_tests(head)
    base_errors, head_errors = _broken(base), _broken(head)
    out: list[TestComparison] = []
    for key in sorted(base_tests.keys() | head_tests.keys()):
        base_entry, head_entry = base_tests.get(key), head_tests.get(key)
        entry = head_entry or base_entry
        assert entry is not None  # the key is one side's
        suite = entry[0]
        before = base_entry[1] if base_entry else _broken_outcome(base_errors, key[0])
        after = head_entry[1] if head_entry else _broken_outcome(head_errors, key[0])
        out.append(TestComparison(key[0], suite, key[1], classify(before, after), before, after))
    return tuple(out)


def classify(base: TestOutcome | None, head: TestOutcome | None) -> TestChange:
    if base is None:
        return TestChange.ADDED
    if head is None:
        return TestChange.REMOVED
    if head.status is TestStatus.SKIPPED and base.status is TestStatus.NOT_RUN:
        return TestChange.UNCHANGED  # skipped at head: no base outcome could move it
    if TestStatus.NOT_RUN in (base.status, head.status):
        return TestChange.NOT_COMPARED
    base_failing, head_failing = base.status in _FAILING, head.status in _FAILING
    if head_failing:
        return TestChange.STILL_FAILING if base_failing else TestChange.NEWLY_FAILING
    if base_failing and head.status is TestStatus.PASSED:
        return TestChange.NEWLY_PASSING
    return TestChange.UNCHANGED


def keyed_tests(result: ChartResult | None) -> dict[TestKey, tuple[str, TestOutcome]]:
    """(suite file, test name) -> (suite name, outcome); a repeated name gets ` (2)`, ` (3)`, ..."""
    return {key: (suite, outcome_of(test)) for key, suite, test in _keyed(result)}


def keyed_results(result: ChartResult | None) -> dict[TestKey, tuple[str, TestResult]]:
    """(suite file, test name) -> (suite name, the runner's result), keyed as `keyed_tests`."""
    return {key: (suite, test) for key, suite, test in _keyed(result)}


def _keyed(result: ChartResult | None) -> Iterator[tuple[TestKey, str, TestResult]]:
    tests = list(_tests(result))
    keys = test_keys((file, test.name) for file, _, test in tests)
    for key, (_, suite, test) in zip(keys, tests, strict=True):
        yield key, suite, test


def _tests(result: ChartResult | None) -> Iterator[tuple[str, str, TestResult]]:
    if result is None:
        return
    for suite in result.suites:
        for test in suite.tests:
            yield suite.file, suite.name, test


def outcome_of(test: TestResult) -> TestOutcome:
    status = _STATUS[test.status]
    if status is TestStatus.PASSED:
        return TestOutcome(status)
    if status in (TestStatus.SKIPPED, TestStatus.NOT_RUN):
        return TestOutcome(status, skip_reason=test.skip_reason)
    return TestOutcome(status, failure=failure_line(test))


def failure_line(test: TestResult) -> str:
    """One line saying why a test failed: its error, or its first failed assertion."""
    if test.exec_error:
        return _clip(_first_line(test.exec_error))
    failed = next((a for a in test.assertions if not a.passed and not a.skipped), None)
    if failed is None:
        return "failed"
    return _clip(_assertion_failure(failed))


def _assertion_failure(assertion: AssertionResult) -> str:
    name = f"{'not ' if assertion.negated else ''}{assertion.assert_type}"
    where = f" {assertion.path}" if assertion.path else ""
    title = f"asserts[{assertion.index}] {name}{where}"
    if not assertion.path or _VALUE_FIELDS.match(assertion.path):
        return f"{title} failed"
    actuals = [c.actual for c in assertion.checked if not c.passed]
    if assertion.expected is not None and actuals:
        return f"{title}: expected {_json(assertion.expected)}, got {_json(actuals[0])}"
    errors = [
        line.strip()
        for line in assertion.fail_info
        if line.strip() and not line.startswith(("Template:", "\t", " "))
    ]
    return f"{title}: {' '.join(errors[:3])}" if errors else f"{title} failed"


def _broken(result: ChartResult | None) -> dict[str, str]:
    """Suite file -> error for the suites of a side that could not run; "" keys a whole-chart error."""
    if result is None:
        return {}
    broken = {s.file: _first_line(s.exec_error) for s in result.suites if s.exec_error}
    if result.error is not None:
        broken[""] = _first_line(result.error)
    return broken


def _broken_outcome(broken: dict[str, str], suite_file: str) -> TestOutcome | None:
    error = broken.get(suite_file, broken.get(""))
    return None if error is None else TestOutcome(TestStatus.ERRORED, failure=_clip(error))


def _first_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else "error"


def _json(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_FAILURE_CHARS else text[: _MAX_FAILURE_CHARS - 3] + "..."
