"""Running every helm-unittest suite of some charts: parse, plan, render in one batch, evaluate.

helm-unittest renders the chart once per test. Here every test is planned first; tests with the
same inputs share one render, and all distinct renders of the run go to the renderer in one
`render_many` call, so they run in parallel workers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from aftershock.gocompat.goregex import ENGINE
from aftershock.helmtest.charts import TEST_FILE_PATTERN, ChartUnderTest, find_charts, load_chart
from aftershock.helmtest.crds import chart_crds
from aftershock.helmtest.job import JobRender, run_job
from aftershock.helmtest.render_errors import as_helm3_text, is_values_stage
from aftershock.helmtest.selection import selected_outputs
from aftershock.helmtest.snapshots import SnapshotFileError, SnapshotStore, snapshot_path
from aftershock.helmtest.suite import SuiteError, TestSuite, parse_suite_file
from aftershock.model.errors import AftershockError
from aftershock.model.test_results import (
    ChartResult,
    RenderStats,
    RunResult,
    SuiteResult,
    TestKey,
    TestResult,
    chart_relative_file,
    test_keys,
)
from aftershock.render.interface import Renderer, RenderOutcome, RenderRequest
from aftershock.render.workspaces.chart_copies import ChartCopies
from aftershock.safety.sandbox import Sandbox, SandboxError, default_root
from aftershock.testrun.planning import PlannedTest, Planner, input_key


@dataclass(frozen=True)
class _ChartPlan:
    chart: ChartUnderTest | None
    path: str
    error: str | None = None
    failed_file: str | None = None
    suites: tuple[tuple[TestSuite, tuple[PlannedTest, ...]], ...] = ()
    sandbox: Sandbox | None = None  # where the chart's tests may read and write files


def _plan_chart(
    path: Path, planner: Planner, patterns: tuple[str, ...], with_subcharts: bool, root: Path | None
) -> _ChartPlan:
    sandbox = Sandbox.at(root if root is not None else default_root(path))
    try:
        if path.is_dir():
            sandbox.check_links(
                path
            )  # before any file of it is read: Helm and the chart copies follow links
        chart = load_chart(path, patterns, with_subcharts)
    except (AftershockError, SandboxError) as exc:
        return _ChartPlan(
            None, str(path), error=exc.line() if isinstance(exc, AftershockError) else str(exc)
        )
    suites: list[tuple[TestSuite, tuple[PlannedTest, ...]]] = []
    parsed: list[TestSuite] = []
    for suite_file in chart.suite_files:
        try:
            parsed += parse_suite_file(sandbox.resolve(suite_file.path), suite_file.chart_route)
        except (SuiteError, SandboxError, OSError, UnicodeDecodeError) as exc:
            return _ChartPlan(chart, str(path), error=str(exc), failed_file=str(suite_file.path))
    try:
        render_dir = planner.copies.prepared(str(path)) if path.is_dir() else str(path)
    except (AftershockError, OSError) as exc:
        message = exc.line() if isinstance(exc, AftershockError) else str(exc)
        return _ChartPlan(chart, str(path), error=message)
    for suite in parsed:
        planned = tuple(planner.plan(render_dir, suite, test, sandbox) for test in suite.tests)
        suites.append((suite, planned))
    return _ChartPlan(chart, str(path), suites=tuple(suites), sandbox=sandbox)


class _Batches:
    """The run's renders: each distinct request rendered once, all in one `render_many` call."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer
        self.outcomes: dict[str, RenderOutcome] = {}

    def render(self, planned: list[PlannedTest]) -> None:
        distinct: dict[str, RenderRequest] = {}
        for item in planned:
            if item.request is not None and item.key is not None:
                distinct.setdefault(item.key, item.request)
        outcomes = self.renderer.render_many(list(distinct.values()))
        self.outcomes = dict(zip(distinct, outcomes))

    def job_render(self, planned: PlannedTest, crds: dict[str, str]) -> JobRender:
        if planned.exec_error is not None:
            return JobRender(exec_error=planned.exec_error)
        if planned.values_error is not None:
            return JobRender(error=planned.values_error, values_stage=True)
        key = planned.key or ""
        outcome = self.outcomes[key]
        if outcome.error is not None:
            text = as_helm3_text(outcome.error)
            return JobRender(
                error=text, values_stage=is_values_stage(text), crds=crds, render_key=key
            )
        outputs = selected_outputs(
            outcome.manifests, planned.suite.chart_route, planned.include, planned.exclude
        )
        return JobRender(outputs=outputs, crds=crds, render_key=key)

    def stats(self, planned: list[PlannedTest], copies: int) -> RenderStats:
        return RenderStats(
            tests_rendered=sum(1 for item in planned if item.request is not None),
            renders=len(self.outcomes),
            chart_copies=copies,
            render_seconds=sum(outcome.seconds for outcome in self.outcomes.values()),
            inputs_any_selection=len(
                {key for item in planned if (key := input_key(item)) is not None}
            ),
        )


def _unshared(plan: _ChartPlan) -> _ChartPlan:
    """The plan with a key of its own for every test, so that no render is shared."""
    suites = tuple(
        (
            suite,
            tuple(
                replace(item, key=f"{item.key}#{id(item)}") if item.key else item
                for item in planned
            ),
        )
        for suite, planned in plan.suites
    )
    return replace(plan, suites=suites)


NOT_RUN_REASON = "not run: the caller left it out"


def _left_out(plan: _ChartPlan, skip: frozenset[TestKey]) -> _ChartPlan:
    """The plan with the tests keyed in `skip` (chart-relative suite file, unique name) not rendered.
    Planned first and dropped after, so that the Kubernetes version a left-out test sets still
    reaches the tests after it, as in a run of them all."""
    if not skip:
        return plan
    entries = [
        (chart_relative_file(suite.file, plan.path), item.test.name)
        for suite, planned in plan.suites
        for item in planned
    ]
    dropped = iter(key in skip for key in test_keys(entries))
    suites = tuple(
        (
            suite,
            tuple(
                replace(item, request=None, key=None, skip_reason=NOT_RUN_REASON, not_run=True)
                if next(dropped)
                else item
                for item in planned
            ),
        )
        for suite, planned in plan.suites
    )
    return replace(plan, suites=suites)


def _suite_passed(tests: list[TestResult]) -> tuple[bool, bool]:
    """runV3TestJobs: (passed, skipped); a skipped test neither passes nor fails the suite."""
    passed, skipped = False, 0
    for position, test in enumerate(tests):
        if test.skipped and not test.passed and not test.assertions:
            skipped += 1
            passed = True if position == 0 else passed
            continue
        passed = test.passed if position == 0 else passed and test.passed
    return passed, skipped == len(tests)


def _run_suite(
    suite: TestSuite,
    planned: tuple[PlannedTest, ...],
    batches: _Batches,
    chart: ChartUnderTest,
    update_snapshots: bool,
    sandbox: Sandbox,
) -> SuiteResult:
    shown = _shown(suite.file)
    try:
        store = SnapshotStore(snapshot_path(suite, sandbox), update_snapshots, sandbox)
    except (SnapshotFileError, SandboxError) as exc:
        return SuiteResult(suite.name, shown, chart.name, False, exec_error=str(exc))
    crds = chart_crds(Path(planned[0].chart_dir), chart.name) if suite.include_crds else {}
    tests: list[TestResult] = []
    for item in planned:
        if item.skip_reason:
            tests.append(
                TestResult(
                    item.test.name,
                    item.test.index,
                    False,
                    skipped=True,
                    skip_reason=item.skip_reason,
                    unsupported=item.unsupported,
                    not_run=item.not_run,
                )
            )
            continue
        render = batches.job_render(item, crds)
        tests.append(run_job(suite, item.test, render, chart.name, store.for_test(item.test.name)))
    passed, skipped = _suite_passed(tests)
    try:
        store.write_if_updating()
    except (SandboxError, OSError) as exc:
        return SuiteResult(
            suite.name, shown, chart.name, False, exec_error=f"snapshots not written: {exc}"
        )
    return SuiteResult(
        suite.name,
        shown,
        chart.name,
        passed,
        skipped,
        tests=tuple(tests),
        snapshots=store.counts(),
        skip_reason=suite.skip_reason,
    )


def _shown(file: str) -> str:
    try:
        return os.path.relpath(file)
    except ValueError:
        return file


def _chart_result(plan: _ChartPlan, batches: _Batches, update_snapshots: bool) -> ChartResult:
    name = plan.chart.name if plan.chart else Path(plan.path).name
    if plan.error is not None:
        failed: tuple[SuiteResult, ...] = ()
        if plan.failed_file is not None:
            failed = (
                SuiteResult("", _shown(plan.failed_file), name, False, exec_error=plan.error),
            )
        return ChartResult(name, plan.path, False, plan.error, failed)
    assert plan.chart is not None and plan.sandbox is not None
    suites = tuple(
        _run_suite(suite, planned, batches, plan.chart, update_snapshots, plan.sandbox)
        for suite, planned in plan.suites
    )
    return ChartResult(name, plan.path, all(suite.passed for suite in suites), suites=suites)


def run_suites(
    paths: list[str],
    renderer: Renderer,
    update_snapshots: bool = False,
    test_files: tuple[str, ...] = (TEST_FILE_PATTERN,),
    with_subcharts: bool = True,
    share_renders: bool = True,
    root: Path | None = None,
    chart_patterns: Mapping[str, tuple[str, ...]] | None = None,
    charts_apart: bool = False,
    skip_tests: Mapping[str, frozenset[TestKey]] | None = None,
) -> RunResult:
    """Run every suite of the charts at `paths` (chart folders, archives, or folders of charts).

    `test_files` are the suite file globs relative to each chart (helm-unittest's `-f`);
    `with_subcharts` also runs the suites of enabled subcharts (`--with-subchart`, default on).
    `share_renders=False` renders once per test, as helm-unittest does (for measurements).
    `root` is the folder the suites may read files from and write snapshots to (aftershock.safety.sandbox);
    by default the repository holding each chart, else the chart folder.
    `chart_patterns` gives some charts (by path, as given) their own `test_files`.
    `charts_apart` plans each chart as its own helm-unittest run: the Kubernetes version a test sets
    carries over to the later tests of its chart only, not (as in one upstream run) to the next chart.
    `skip_tests` names, per chart path, tests left out of the run (keyed as `results.test_keys`):
    planned but not rendered, each reported `not_run`.
    Raises ConfigError when a path holds no chart; every other problem is part of the result.
    """
    started = time.monotonic()
    copies = ChartCopies()
    try:
        planner = Planner(copies)
        own = chart_patterns or {}
        plans = [
            _plan_chart(
                path,
                Planner(copies) if charts_apart else planner,
                own.get(str(path), test_files),
                with_subcharts,
                root,
            )
            for path in find_charts(paths)
        ]
        plans = [_left_out(plan, (skip_tests or {}).get(plan.path, frozenset())) for plan in plans]
        planned = [item for plan in plans for _, tests in plan.suites for item in tests]
        if not share_renders:
            plans = [_unshared(plan) for plan in plans]
            planned = [item for plan in plans for _, tests in plan.suites for item in tests]
        batches = _Batches(renderer)
        batches.render(planned)
        charts = tuple(_chart_result(plan, batches, update_snapshots) for plan in plans)
        stats = batches.stats(planned, copies.count)
        return RunResult(charts, time.monotonic() - started, stats, ENGINE)
    finally:
        copies.close()
