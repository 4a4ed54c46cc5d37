"""The outcome of a helm-unittest run: charts, suites, tests, assertions and the values checked.

Every assertion result names the templates it looked at and, value by value, the document index
(in the template's rendered output), the path, the actual value and whether it satisfied the
assertion, so a review can map assertions onto the rendered fields they guard.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TestKey = tuple[str, str]  # (suite file, test name): a test of one chart's run


def test_keys(tests: Iterable[TestKey]) -> list[TestKey]:
    """Each (suite file, test name) in run order made unique: a name repeated in one file gets
    ` (2)`, ` (3)`, ... (the key a review compares a test by, at base and head)."""
    seen: dict[TestKey, int] = {}
    keys = []
    for file, name in tests:
        seen[(file, name)] = seen.get((file, name), 0) + 1
        count = seen[(file, name)]
        keys.append((file, name if count == 1 else f"{name} ({count})"))
    return keys


test_keys.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def chart_relative_file(file: str, chart_dir: str | os.PathLike[str]) -> str:
    """A suite file as a test key names it: relative to its chart's folder, with slashes (the
    runner names suites relative to the cwd)."""
    return Path(os.path.relpath(os.path.abspath(file), os.path.abspath(chart_dir))).as_posix()


class JobStatus(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"  # failed, and an error stopped it (render or values error)
    SKIPPED = "skipped"
    NOT_RUN = (
        "not_run"  # left out of this run by its caller (a review's base side), never by upstream
    )


@dataclass(frozen=True)
class CheckedValue:
    """One value an assertion compared, and where it came from."""

    template: str
    document_index: int | None
    path: str | None
    actual: Any
    passed: bool


@dataclass(frozen=True)
class AssertionResult:
    index: int
    assert_type: str
    negated: bool
    passed: bool
    skipped: bool = False
    skip_reason: str = ""
    fail_info: tuple[str, ...] = ()
    path: str | None = None
    expected: Any = None
    parameters: Mapping[str, Any] = field(default_factory=dict, hash=False)
    templates: tuple[str, ...] = ()
    checked: tuple[CheckedValue, ...] = ()

    @property
    def title(self) -> str:
        negation = " NOT" if self.negated else ""
        return f"- asserts[{self.index}]{negation} `{self.assert_type}` fail"


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # a helm-unittest test, not a pytest class
    name: str
    index: int
    passed: bool
    skipped: bool = False
    skip_reason: str = ""
    exec_error: str | None = None
    assertions: tuple[AssertionResult, ...] = ()
    seconds: float = 0.0
    render_key: str | None = None  # tests with the same key shared one render
    unsupported: bool = False  # skipped because it needs a feature aftershock does not have
    not_run: bool = False  # left out by the caller (`run_suites(skip_tests=...)`): no outcome

    @property
    def status(self) -> JobStatus:
        """helm-unittest's counting: a passing test counts as passed even if marked skipped."""
        if self.not_run:
            return JobStatus.NOT_RUN
        if self.passed:
            return JobStatus.PASSED
        if self.skipped:
            return JobStatus.SKIPPED
        return JobStatus.ERRORED if self.exec_error else JobStatus.FAILED


@dataclass(frozen=True)
class SnapshotCounts:
    total: int = 0
    failed: int = 0
    created: int = 0  # compared without a stored entry (written only when updating)
    vanished: int = 0  # stored entries no test compared


@dataclass(frozen=True)
class SuiteResult:
    name: str
    file: str
    chart: str
    passed: bool
    skipped: bool = False
    exec_error: str | None = None
    tests: tuple[TestResult, ...] = ()
    snapshots: SnapshotCounts = SnapshotCounts()
    skip_reason: str = ""


@dataclass(frozen=True)
class ChartResult:
    name: str
    path: str
    passed: bool
    error: str | None = None
    suites: tuple[SuiteResult, ...] = ()


@dataclass(frozen=True)
class RenderStats:
    """How many Helm renders served how many tests (one render per test is helm-unittest's)."""

    tests_rendered: int = 0
    renders: int = 0
    chart_copies: int = 0  # temporary copies (metadata overrides, suites' template selections)
    render_seconds: float = 0.0
    inputs_any_selection: int = 0  # distinct render inputs if template selections were ignored

    @property
    def renders_per_test(self) -> float:
        return self.renders / self.tests_rendered if self.tests_rendered else 0.0


@dataclass(frozen=True)
class RunResult:
    charts: tuple[ChartResult, ...]
    seconds: float = 0.0
    stats: RenderStats = RenderStats()
    regex_engine: str = ""

    @property
    def passed(self) -> bool:
        return all(chart.passed for chart in self.charts)

    def suites(self) -> list[SuiteResult]:
        return [suite for chart in self.charts for suite in chart.suites]
