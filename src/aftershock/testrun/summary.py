"""helm-unittest's console report: suite lines, failure explanations and the summary counts.

The layout is upstream's (` PASS  <suite>\t<file>`, tab-indented failures, `Test Suites: N
passed, N total`), so output can be compared line for line. Colours, when asked for, are the ANSI
codes of upstream's printer.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TextIO

from aftershock.model.test_results import ChartResult, JobStatus, RunResult, SuiteResult, TestResult
from aftershock.report.escape import drop_control

_STYLES = {
    "success_label": "42;30",
    "danger_label": "41;37",
    "warning_label": "43;30",
    "danger": "31",
    "warning": "33",
    "highlight": "1",
    "faint": "2",
}


@dataclass(frozen=True)
class Painter:
    color: bool

    def paint(self, style: str, text: str) -> str:
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if self.color else text


@dataclass(frozen=True)
class Counting:
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0

    def text(self, painter: Painter) -> str:
        failed = painter.paint("danger", f"{self.failed} failed, ") if self.failed else ""
        errored = f"{self.errored} errored, " if self.errored else ""
        if self.skipped:
            total = self.passed + self.failed + self.skipped
            return f"{failed}{errored}{self.passed} passed, {self.skipped} skipped, {total} total"
        return f"{failed}{errored}{self.passed} passed, {self.passed + self.failed} total"


def go_duration(seconds: float) -> str:
    """Go's time.Duration.String for the run time."""
    if seconds >= 1:
        text = f"{seconds:.9f}".rstrip("0").rstrip(".")
        return f"{text}s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.6f}".rstrip("0").rstrip(".") + "ms"
    return f"{seconds * 1e6:.3f}".rstrip("0").rstrip(".") + "µs"


def _suite_title(suite: SuiteResult, painter: Painter) -> str:
    if suite.skipped:
        label = painter.paint("warning_label", " SKIP ")
    elif suite.passed:
        label = painter.paint("success_label", " PASS ")
    else:
        label = painter.paint("danger_label", " FAIL ")
    folder, name = os.path.split(suite.file)
    path = painter.paint("faint", (folder or ".") + "/") + name if suite.file else ""
    return f"{label} {painter.paint('highlight', suite.name)}\t{path}"


def _test_lines(test: TestResult, painter: Painter) -> list[str]:
    if test.passed:
        return []
    if test.skipped:
        reason = f" ({test.skip_reason})" if test.unsupported else ""
        return [
            "\t"
            + painter.paint("highlight", "- ")
            + painter.paint("warning_label", "SKIPPED")
            + painter.paint("warning", f" '{test.name}'{reason}")
        ]
    if test.exec_error is not None:
        return [
            "\t" + painter.paint("highlight", f"- {test.name}"),
            "\t\t" + painter.paint("highlight", f"Error: {test.exec_error}\n"),
        ]
    lines = ["\t" + painter.paint("danger", f"- {test.name}\n")]
    for assertion in test.assertions:
        if assertion.passed:
            continue
        lines.append("\t\t" + painter.paint("danger", assertion.title))
        lines += ["\t\t\t" + line for line in assertion.fail_info]
        lines.append("")
    return lines


def suite_lines(suite: SuiteResult, painter: Painter) -> list[str]:
    lines = [_suite_title(suite, painter)]
    if suite.exec_error is not None:
        lines += [
            "\t" + painter.paint("highlight", "- Execution Error: "),
            f"\t\t{suite.exec_error}\n",
        ]
        return lines
    for test in suite.tests:
        lines += _test_lines(test, painter)
    return lines


def chart_lines(chart: ChartResult, painter: Painter) -> list[str]:
    if chart.error is not None:
        lines = [line for suite in chart.suites for line in suite_lines(suite, painter)]
        return lines + [f"\n### {painter.paint('danger', 'Error: ')} {chart.error}\n"]
    header = (
        f"\n### Chart [ {painter.paint('highlight', chart.name)} ] "
        f"{painter.paint('faint', chart.path)}\n"
    )
    return [header] + [line for suite in chart.suites for line in suite_lines(suite, painter)]


def _counts(result: RunResult) -> tuple[Counting, Counting, Counting, Counting, int, int]:
    charts = Counting(
        passed=sum(1 for c in result.charts if c.passed),
        failed=sum(1 for c in result.charts if not c.passed),
        errored=sum(1 for c in result.charts if c.error is not None),
    )
    suites = result.suites()
    suite_count = Counting(
        passed=sum(1 for s in suites if not s.skipped and s.passed),
        failed=sum(1 for s in suites if not s.skipped and not s.passed),
        errored=sum(1 for s in suites if not s.skipped and not s.passed and s.exec_error),
        skipped=sum(1 for s in suites if s.skipped),
    )
    tests = [t for s in suites for t in s.tests]
    test_count = Counting(
        passed=sum(1 for t in tests if t.status == JobStatus.PASSED),
        failed=sum(1 for t in tests if t.status in (JobStatus.FAILED, JobStatus.ERRORED)),
        errored=sum(1 for t in tests if t.status == JobStatus.ERRORED),
        skipped=sum(1 for t in tests if t.status == JobStatus.SKIPPED),
    )
    snapshot_failed = sum(s.snapshots.failed for s in suites)
    snapshot_total = sum(s.snapshots.total for s in suites)
    snapshots = Counting(passed=snapshot_total - snapshot_failed, failed=snapshot_failed)
    failed_suites = sum(1 for s in suites if s.snapshots.failed and not s.passed)
    return charts, suite_count, test_count, snapshots, snapshot_failed, failed_suites


def summary_lines(result: RunResult, painter: Painter) -> list[str]:
    charts, suites, tests, snapshots, snapshot_failed, failed_suites = _counts(result)
    lines = []
    if snapshot_failed:
        failed = painter.paint("danger", f"{snapshot_failed} snapshot failed")
        advice = painter.paint("faint", " Check the changes; aftershock never rewrites snapshots.")
        lines.append(f"\nSnapshot Summary: {failed} in {failed_suites} test suite.{advice}")
    lines.append(
        f"\nCharts:      {charts.text(painter)}\n"
        f"Test Suites: {suites.text(painter)}\n"
        f"Tests:       {tests.text(painter)}\n"
        f"Snapshot:    {snapshots.text(painter)}\n"
        f"Time:        {go_duration(result.seconds)}\n"
    )
    return lines


def write_report(result: RunResult, out: TextIO, color: bool) -> None:
    """The whole console report, as helm-unittest prints it, without a control byte from the
    repository's names and messages (only the report's own colours reach the terminal)."""
    painter = Painter(color)
    for chart in result.charts:
        for line in chart_lines(chart, painter):
            out.write(drop_control(line, keep_colors=color) + "\n")
    for line in summary_lines(result, painter):
        out.write(line + "\n")
