"""Rule tests-newly-failing: a helm-unittest test that passes at base fails at head (observed by running it)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.tests import ChartTestEvidence, TestChange, TestComparison
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.sources import find_lines

# Field names whose test guards security or availability: a broken guard there is High.
GUARDED_WORDS = (
    "securityContext",
    "privileged",
    "capabilities",
    "runAsNonRoot",
    "runAsUser",
    "allowPrivilegeEscalation",
    "readOnlyRootFilesystem",
    "seccompProfile",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "hostPath",
    "hostPort",
    "automountServiceAccountToken",
    "serviceAccountName",
    "rules",
    "verbs",
    "tls",
    "replicas",
    "resources",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "minAvailable",
    "maxUnavailable",
    "strategy",
    "podAntiAffinity",
    "topologySpreadConstraints",
    "PodDisruptionBudget",
    "NetworkPolicy",
)


def check(ctx: RuleContext) -> Iterator[Concern]:
    evidence = ctx.review.tests
    if evidence is None:
        return
    for chart in evidence.charts:
        for test in chart.tests:
            if test.change is TestChange.NEWLY_FAILING:
                yield _concern(ctx, chart, test)


def guarded_fields(chart: ChartTestEvidence, test: TestComparison) -> tuple[str, ...]:
    """The rendered fields the test's assertions pin (from the guard map), and the path its failure names."""
    paths = [
        guard.field_path
        for guard in chart.guards
        for pin in guard.pins
        if (pin.assertion.suite_file, pin.assertion.test) == (test.suite_file, test.test)
    ]
    failure = test.head.failure if test.head else ""
    paths += re.findall(r"[A-Za-z][\w.\[\]=\"/-]*\.[\w.\[\]=\"/-]+", failure)
    return tuple(dict.fromkeys(p for p in paths if p))


def _change_path(ctx: RuleContext, chart: str) -> tuple[PathStep, ...]:
    """How the change reaches the tested chart (changed file -> ... -> chart), then the chart's test."""
    affected = next((a for a in ctx.review.affected if a.chart == chart), None)
    steps = tuple(PathStep(s.kind, s.id, s.relation) for s in affected.path) if affected else ()
    return (*steps, PathStep("chart", chart, "is tested by"))


def _concern(ctx: RuleContext, chart: ChartTestEvidence, test: TestComparison) -> Concern:
    file = f"{chart.chart}/{test.suite_file}" if chart.chart else test.suite_file
    fields = guarded_fields(chart, test)
    critical = [f for f in fields if any(word in f for word in GUARDED_WORDS)]
    failure = test.head.failure if test.head else ""
    lines = find_lines(
        ctx.sources.head.get(file, ""),
        re.compile(r"it:\s*['\"]?" + re.escape(test.test.split(" (")[0])),
    )
    guards = f" It guards {', '.join(critical[:3])}." if critical else ""
    return Concern(
        subject=Subject(SubjectKind.FILE, file, f"{file} · {test.test}", test.test),
        message=f'test "{test.test}" in {file} passes at base and fails at head: {failure or "no failure text"}.{guards}',
        delta=Delta.INTRODUCED,
        severity=Severity.HIGH if critical else Severity.MEDIUM,
        location=Location(file, lines[0] if lines else None),
        path=(*_change_path(ctx, chart.chart), PathStep("file", file, "fails at head")),
        facts=(Fact("test", test.test), Fact("failure", failure), Fact("guards", critical)),
        scope_paths=(chart.chart, file),
    )


RULE = Rule(
    id="tests-newly-failing",
    title="Chart test newly failing",
    category=Category.TESTS,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    needs_sources=True,
    doc=RuleDoc(
        what="Each helm-unittest test of an affected chart that passes (or is absent) at base and fails or errors at "
        "head, as observed by running the chart's suites at both refs. High when the test's assertions pin a "
        "security or availability field (security context, RBAC rules, TLS, replicas, resources, probes, "
        "disruption budgets, spread), else Medium.",
        why="The chart's own tests describe what its authors promised; a test that the change breaks is either a "
        "regression or a promise changed without saying so, and CI running the suite will fail.",
        example="    # values.yaml: replicaCount: 2 -> 3\n    # tests/deployment_test.yaml: equal spec.replicas 2  -> fails at head",
        fix="Fix the regression, or update the test together with the behaviour it pins.",
    ),
)
