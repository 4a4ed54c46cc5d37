"""The `tests` section of the canonical review document: test outcomes, the guard map, its problems.

Plain JSON-compatible data in a stable order, the same for the same evidence: charts by path, tests
by suite file then name, guards in the review's change order, problems by kind then subject. Tests
whose outcome did not change, and those whose base outcome the review did not run, are counted, not listed. Timings are left out (they differ from run to
run); the render counts are kept. Its JSON Schema is schema_fragment.json next to this module.
"""

from __future__ import annotations

from typing import Any

from aftershock.model.tests import (
    AssertionRef,
    ChartTestEvidence,
    FieldGuard,
    GuardProblem,
    ProblemKind,
    SideTests,
    TestChange,
    TestComparison,
    TestEvidence,
    TestOutcome,
)

SECTION_VERSION = "1"
_PROBLEM_ORDER = {kind: index for index, kind in enumerate(ProblemKind)}
# counted, not listed: unchanged tests, and those passing at head whose base outcome was not run
_COUNTED_ONLY = (TestChange.UNCHANGED, TestChange.NOT_COMPARED)


def test_evidence_document(evidence: TestEvidence) -> dict[str, Any]:
    return {
        "version": SECTION_VERSION,
        "summary": _summary(evidence),
        "run": {"renders": evidence.renders, "tests_rendered": evidence.tests_rendered},
        "untested_charts": sorted(evidence.untested),
        "suite_files": [
            {"chart": s.chart, "patterns": list(s.patterns), "source": s.source}
            for s in sorted(evidence.searched, key=lambda s: s.chart)
        ],
        "charts": [_chart(chart) for chart in sorted(evidence.charts, key=lambda c: c.chart)],
    }


test_evidence_document.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def _summary(evidence: TestEvidence) -> dict[str, Any]:
    changes = {change.value: 0 for change in TestChange}
    problems = {kind.value: 0 for kind in ProblemKind}
    fields = guarded = suite_errors = 0
    for chart in evidence.charts:
        for test in chart.tests:
            changes[test.change.value] += 1
        for problem in chart.problems:
            problems[problem.kind.value] += 1
        fields += len(chart.guards)
        guarded += sum(1 for guard in chart.guards if guard.pins)
        suite_errors += len(chart.base.suite_errors) + len(chart.head.suite_errors)
    return {
        "charts": len(evidence.charts),
        "head_tests": sum(chart.head.tests for chart in evidence.charts),
        "tests": changes,
        "suite_errors": suite_errors,
        "changed_fields": fields,
        "guarded_fields": guarded,
        "problems": problems,
    }


def _chart(chart: ChartTestEvidence) -> dict[str, Any]:
    problems = sorted(chart.problems, key=_problem_order)
    return {
        "chart": chart.chart,
        "base": _side(chart.base),
        "head": _side(chart.head),
        "tests": [_test(t) for t in chart.tests if t.change not in _COUNTED_ONLY],
        "unchanged_tests": sum(1 for t in chart.tests if t.change is TestChange.UNCHANGED),
        "not_compared_tests": sum(1 for t in chart.tests if t.change is TestChange.NOT_COMPARED),
        "guards": [_guard(g) for g in chart.guards],
        "problems": [_problem(p) for p in problems],
        "unresolved_assertions": chart.unresolved,
    }


def _side(side: SideTests) -> dict[str, Any]:
    return {
        "status": side.status.value,
        "error": side.error,
        "suites": side.suites,
        "tests": side.tests,
        "passed": side.passed,
        "failed": side.failed,
        "errored": side.errored,
        "skipped": side.skipped,
        "not_run": side.not_run,
        "suite_errors": [{"suite_file": e.suite_file, "error": e.error} for e in side.suite_errors],
    }


def _test(test: TestComparison) -> dict[str, Any]:
    return {
        "suite_file": test.suite_file,
        "suite": test.suite,
        "test": test.test,
        "change": test.change.value,
        "base": _outcome(test.base),
        "head": _outcome(test.head),
    }


def _outcome(outcome: TestOutcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {
        "status": outcome.status.value,
        "failure": outcome.failure,
        "skip_reason": outcome.skip_reason,
    }


def _guard(guard: FieldGuard) -> dict[str, Any]:
    return {
        "object": guard.object_id,
        "field": guard.field_path,
        "change": guard.target.value,
        "side": guard.side.value,
        "location": guard.location,
        "pins": [
            {
                "coverage": pin.coverage.value,
                "same_value": pin.same_value,
                "assertion": _assertion(pin.assertion),
            }
            for pin in guard.pins
        ],
    }


def _assertion(ref: AssertionRef) -> dict[str, Any]:
    return {
        "suite_file": ref.suite_file,
        "suite": ref.suite,
        "test": ref.test,
        "index": ref.index,
        "type": ref.assert_type,
        "negated": ref.negated,
        "path": ref.path,
        "template": ref.template,
        "document_index": ref.document_index,
        "location": ref.location,
        "passed": ref.passed,
    }


def _problem(problem: GuardProblem) -> dict[str, Any]:
    return {
        "kind": problem.kind.value,
        "object": problem.object_id,
        "field": problem.field_path,
        "detail": problem.detail,
        "assertion": _assertion(problem.assertion) if problem.assertion else None,
    }


def _problem_order(problem: GuardProblem) -> tuple[Any, ...]:
    ref = problem.assertion
    where = (
        (ref.suite_file, ref.test, ref.index, ref.template, ref.document_index)
        if ref
        else ("", "", -1, "", -1)
    )
    return (_PROBLEM_ORDER[problem.kind], problem.object_id or "", problem.field_path or "", where)
