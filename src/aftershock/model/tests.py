"""Test evidence of a review: helm-unittest outcomes at base and head, and the guard map.

Tests are keyed per chart by suite file (chart-relative, e.g. `tests/deployment_test.yaml`) and
test name (`it`); a name repeated in one file gets ` (2)`, ` (3)`, ... in file order. The guard
map links every changed rendered field to the assertions that pin it, by concrete location in
the rendered object (see `aftershock.evidence.locations`), and names three problems: a new or
changed field no assertion pins, an assertion still expecting the base value, and an assertion
whose path no longer exists at head.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from aftershock.model.change import Side

BaseTests = Literal["needed", "all"]  # which base outcomes a review runs (see evidence.base_needs)
TESTS_PART = (
    "helm-unittest suites"  # the part not reviewed when the review's budget cut the test run
)


class TestStatus(str, enum.Enum):
    __test__ = False  # not a pytest class
    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"  # a render, values or suite error stopped it
    SKIPPED = "skipped"
    NOT_RUN = "not_run"  # a base outcome the review did not need (see evidence.base_needs)


class TestChange(str, enum.Enum):
    """How a test's outcome moved from base to head. Skipped counts as neither passing nor failing."""

    __test__ = False
    NEWLY_FAILING = "newly_failing"  # failing (failed or errored) at head, not at base
    NEWLY_PASSING = "newly_passing"  # passing at head, failing at base
    ADDED = "added"  # only at head
    REMOVED = "removed"  # only at base
    STILL_FAILING = "still_failing"
    UNCHANGED = "unchanged"  # passing at both, or skipped at one side
    NOT_COMPARED = "not_compared"  # passing at head, its base outcome not run: never newly failing


class RunStatus(str, enum.Enum):
    RAN = "ran"
    NO_TESTS = "no_tests"  # the chart is there without suites
    ABSENT = "absent"  # the chart does not exist at this ref
    ERRORED = "errored"  # the chart's suites could not be loaded at all


@dataclass(frozen=True)
class TestOutcome:
    __test__ = False
    status: TestStatus
    failure: str = ""  # one line: the first failed assertion, or the error
    skip_reason: str = ""


@dataclass(frozen=True)
class TestComparison:
    __test__ = False
    suite_file: str
    suite: str  # the suite's name (head's when it exists there)
    test: str
    change: TestChange
    base: TestOutcome | None = None
    head: TestOutcome | None = None


@dataclass(frozen=True)
class SuiteError:
    """A suite file that could not run (unparsable, unreadable snapshot file): never counted as passing."""

    suite_file: str
    error: str


@dataclass(frozen=True)
class SideTests:
    """One chart's test run at one ref."""

    status: RunStatus
    error: str | None = None
    suites: int = 0
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    not_run: int = 0  # tests of this ref's suites the review left out (their outcome not needed)
    suite_errors: tuple[SuiteError, ...] = ()

    @property
    def tests(self) -> int:
        return self.passed + self.failed + self.errored + self.skipped + self.not_run


class Coverage(str, enum.Enum):
    """How an assertion's concrete location relates to a changed field's."""

    EXACT = "exact"  # the same location
    ENCLOSING = "enclosing"  # the assertion's location holds the field: it pins everything below
    PARTIAL = "partial"  # the assertion pins a part below the field (e.g. one key of an added map)


@dataclass(frozen=True)
class AssertionRef:
    """One assertion of a test, on one rendered document, resolved to one concrete location.

    `template` is the repository path of the template (as RenderedObject.template);
    `document_index` counts the template's documents as helm-unittest does;
    `location` is written in the diff path syntax with positional list indexes.
    """

    suite_file: str
    suite: str
    test: str
    index: int  # position in the test's `asserts`
    assert_type: str
    negated: bool
    path: str | None  # as the assertion checked it (None: the whole document or no path)
    template: str
    document_index: int
    location: str
    passed: bool  # at the side the assertion was read from


@dataclass(frozen=True)
class Pin:
    """An assertion pinning a field. `same_value`: the test saw there the value the review renders
    (its own render agrees at that location); False when its own values (`set`, `values`, release)
    rendered something else, or when what it compared is no value at the path (a length, a count)."""

    assertion: AssertionRef
    coverage: Coverage
    same_value: bool = False


class GuardTarget(str, enum.Enum):
    """What changed: a field (FieldChangeKind's values) or a whole object."""

    FIELD_ADDED = "added"
    FIELD_REMOVED = "removed"
    FIELD_MODIFIED = "modified"
    FIELD_REORDERED = "reordered"
    OBJECT_ADDED = "object_added"
    OBJECT_REMOVED = "object_removed"


@dataclass(frozen=True)
class FieldGuard:
    """A changed field (or a whole added/removed object, `field_path` "") and the assertions pinning it.

    Resolved on the head render and head tests; removals on the base render and base tests.
    `location` is None when the field's path could not be walked in the rendered body.
    """

    object_id: str
    field_path: str
    target: GuardTarget
    side: Side
    location: str | None
    pins: tuple[Pin, ...] = ()


class ProblemKind(str, enum.Enum):
    UNGUARDED = (
        "unguarded"  # a new or changed field no assertion pins with the value the review renders
    )
    STALE = "stale"  # an assertion still expecting the base value
    VACUOUS = "vacuous"  # an assertion whose path (or document) no longer exists at head


@dataclass(frozen=True)
class GuardProblem:
    kind: ProblemKind
    detail: str
    object_id: str | None = None
    field_path: str | None = None
    assertion: AssertionRef | None = None


@dataclass(frozen=True)
class ChartTestEvidence:
    """The tests of one affected chart (default scenario) at base and head, and its guard map.

    `unresolved` counts assertion documents that could not be matched to a rendered object of the
    review (a template the default values do not render, a List document, an unknown template).
    """

    chart: str
    base: SideTests
    head: SideTests
    tests: tuple[TestComparison, ...] = ()
    guards: tuple[FieldGuard, ...] = ()
    problems: tuple[GuardProblem, ...] = ()
    unresolved: int = 0


@dataclass(frozen=True)
class SuiteSearch:
    """Where a chart's suites were looked for: helm-unittest `-f` patterns, and why those."""

    chart: str
    patterns: tuple[str, ...]
    source: str  # "default", ".aftershock.yaml", or the CI file and command that named them


@dataclass(frozen=True)
class TestEvidence:
    """Every affected chart's test evidence; `untested` lists affected charts without suites at either
    ref (0 suites found with the patterns `searched` names)."""

    __test__ = False
    charts: tuple[ChartTestEvidence, ...] = ()
    untested: tuple[str, ...] = ()
    searched: tuple[SuiteSearch, ...] = ()
    seconds: float = 0.0
    renders: int = 0
    tests_rendered: int = 0
