"""Comparing test results of base and head: the classification, keys, errors and failure lines.

The inputs are the runner's result records, written out here so every combination is covered
without a render; the end-to-end runs are in test_evidence_review and test_evidence_example.
"""

from __future__ import annotations

import pytest

from aftershock.evidence.outcomes import classify, compare_tests, failure_line, summarize
from aftershock.model.test_results import (
    AssertionResult,
    ChartResult,
    CheckedValue,
    SuiteResult,
    TestResult,
)
from aftershock.model.tests import RunStatus, TestChange, TestOutcome, TestStatus

PASSED, FAILED, ERRORED, SKIPPED, NOT_RUN = (TestOutcome(s) for s in TestStatus)


@pytest.mark.parametrize(
    "base, head, change",
    [
        (None, PASSED, TestChange.ADDED),
        (None, FAILED, TestChange.ADDED),
        (PASSED, None, TestChange.REMOVED),
        (PASSED, FAILED, TestChange.NEWLY_FAILING),
        (PASSED, ERRORED, TestChange.NEWLY_FAILING),
        (SKIPPED, FAILED, TestChange.NEWLY_FAILING),
        (FAILED, PASSED, TestChange.NEWLY_PASSING),
        (ERRORED, PASSED, TestChange.NEWLY_PASSING),
        (FAILED, ERRORED, TestChange.STILL_FAILING),
        (FAILED, SKIPPED, TestChange.UNCHANGED),
        (PASSED, SKIPPED, TestChange.UNCHANGED),
        (PASSED, PASSED, TestChange.UNCHANGED),
        (NOT_RUN, PASSED, TestChange.NOT_COMPARED),
        (NOT_RUN, SKIPPED, TestChange.UNCHANGED),
        (NOT_RUN, FAILED, TestChange.NOT_COMPARED),
        (NOT_RUN, None, TestChange.REMOVED),
    ],
)
def test_classification(base, head, change):
    assert classify(base, head) is change


def _equal(passed: bool, path: str = "spec.replicas", expected=2, actual=3) -> AssertionResult:
    checked = (CheckedValue("c/templates/d.yaml", 0, path, actual, passed),)
    return AssertionResult(0, "equal", False, passed, path=path, expected=expected, checked=checked)


def _test(name: str, passed: bool, **extra) -> TestResult:
    return TestResult(name, 0, passed, assertions=(_equal(passed),), **extra)


def _chart(*suites: SuiteResult, error: str | None = None) -> ChartResult:
    return ChartResult("c", "/w/c", error is None and all(s.passed for s in suites), error, suites)


def test_tests_are_keyed_by_suite_file_and_name_with_repeats_numbered():
    base = _chart(
        SuiteResult("s", "tests/a_test.yaml", "c", True, tests=(_test("x", True), _test("x", True)))
    )
    head = _chart(
        SuiteResult(
            "renamed", "tests/a_test.yaml", "c", False, tests=(_test("x", True), _test("x", False))
        )
    )
    assert [(t.suite_file, t.suite, t.test, t.change) for t in compare_tests(base, head)] == [
        ("tests/a_test.yaml", "renamed", "x", TestChange.UNCHANGED),
        ("tests/a_test.yaml", "renamed", "x (2)", TestChange.NEWLY_FAILING),
    ]


def test_a_suite_that_cannot_run_errs_its_tests_on_that_side():
    base = _chart(
        SuiteResult("s", "tests/a_test.yaml", "c", True, tests=(_test("x", True),)),
        SuiteResult("t", "tests/b_test.yaml", "c", True, tests=(_test("y", True),)),
    )
    head = _chart(
        SuiteResult("s", "tests/a_test.yaml", "c", True, tests=(_test("x", True),)),
        SuiteResult(
            "", "tests/b_test.yaml", "c", False, exec_error="snapshot file unreadable\nmore"
        ),
    )
    by_name = {t.test: t for t in compare_tests(base, head)}
    assert by_name["x"].change is TestChange.UNCHANGED
    assert by_name["y"].change is TestChange.NEWLY_FAILING
    assert by_name["y"].head == TestOutcome(TestStatus.ERRORED, failure="snapshot file unreadable")
    side = summarize(head)
    assert (side.status, side.passed, [e.suite_file for e in side.suite_errors]) == (
        RunStatus.RAN,
        1,
        ["tests/b_test.yaml"],
    )


def test_a_chart_whose_suites_cannot_load_errs_every_test():
    base = _chart(SuiteResult("s", "tests/a_test.yaml", "c", True, tests=(_test("x", True),)))
    head = _chart(
        SuiteResult("", "tests/a_test.yaml", "c", False, exec_error="yaml: line 3: bad"),
        error="yaml: line 3: bad",
    )
    (test,) = compare_tests(base, head)
    assert (test.change, test.head.status) == (TestChange.NEWLY_FAILING, TestStatus.ERRORED)
    assert summarize(head).status is RunStatus.ERRORED
    assert [t.change for t in compare_tests(None, base)] == [TestChange.ADDED]


def test_counts_follow_helm_unittest_statuses():
    suite = SuiteResult(
        "s",
        "tests/a_test.yaml",
        "c",
        False,
        tests=(
            _test("p", True),
            _test("f", False),
            TestResult("e", 0, False, exec_error="render failed"),
            TestResult("k", 0, False, skipped=True, skip_reason="later"),
        ),
    )
    side = summarize(_chart(suite))
    assert (side.passed, side.failed, side.errored, side.skipped, side.tests, side.suites) == (
        1,
        1,
        1,
        1,
        4,
        1,
    )


def test_failure_lines_never_show_secret_values():
    assert failure_line(_test("t", False)) == "asserts[0] equal spec.replicas: expected 2, got 3"
    secret = TestResult(
        "t", 0, False, assertions=(_equal(False, "data.password", "aGk=", "c2VjcmV0"),)
    )
    assert failure_line(secret) == "asserts[0] equal data.password failed"
    snapshot = AssertionResult(
        1, "matchSnapshot", False, False, fail_info=("Template:\tx", "\t- data: c2VjcmV0")
    )
    assert (
        failure_line(TestResult("t", 0, False, assertions=(snapshot,)))
        == "asserts[1] matchSnapshot failed"
    )
    errored = TestResult(
        "t", 0, False, exec_error="Error: execution error at (c/templates/x.yaml:3:4): boom\nmore"
    )
    assert failure_line(errored) == "Error: execution error at (c/templates/x.yaml:3:4): boom"
