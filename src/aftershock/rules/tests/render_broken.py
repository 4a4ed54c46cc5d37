"""Rule chart-render-broken: a chart renders at base and fails at head in a values scenario (observed)."""

from __future__ import annotations

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
from aftershock.model.review import ChartOutcome, ChartReview, RenderStatus
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc


def check(ctx: RuleContext) -> Iterator[Concern]:
    for review in ctx.review.chart_reviews:
        if review.partial:
            yield from _broken_templates(review)
        if review.outcome is not ChartOutcome.NOT_REVIEWED or review.rejects_upgrade:
            continue  # an upgrade scenario's failure is upgrade-values-rejected's
        if (
            review.base.status is not RenderStatus.OK
            or review.head.status is not RenderStatus.FAILED
        ):
            continue
        where = f"{review.chart}@{review.release}" if review.release else review.chart
        error = " ".join((review.head.error or "no error text").split())[:300]
        yield Concern(
            subject=Subject(SubjectKind.CHART, where, where, review.scenario),
            message=f"chart {where} renders at base but fails at head in scenario {review.scenario}: {error}",
            delta=Delta.INTRODUCED,
            location=Location(f"{review.chart}/Chart.yaml" if review.chart else "Chart.yaml"),
            path=(PathStep("chart", review.chart, "fails to render at head"),),
            facts=(Fact("scenario", review.scenario), Fact("error", error)),
            scope_paths=(review.chart,),
        )


def _broken_templates(review: ChartReview) -> Iterator[Concern]:
    """In a chart rendered by template: each template that renders at base and fails at head."""
    if review.base.status is not RenderStatus.OK:
        return
    where = f"{review.chart}@{review.release}" if review.release else review.chart
    for failure in review.templates_not_rendered:
        if failure.base_error is not None or failure.head_error is None:
            continue
        error = " ".join(failure.head_error.split())[:300]
        yield Concern(
            subject=Subject(SubjectKind.CHART, where, where, review.scenario),
            message=f"template {failure.template} of chart {where} renders at base but fails at head "
            f"in scenario {review.scenario}: {error}",
            delta=Delta.INTRODUCED,
            location=Location(failure.template),
            path=(PathStep("file", failure.template, "fails to render at head"),),
            facts=(
                Fact("scenario", review.scenario),
                Fact("template", failure.template),
                Fact("error", error),
            ),
            scope_paths=(review.chart,),
        )


RULE = Rule(
    id="chart-render-broken",
    title="Chart no longer renders",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A chart (or a release's chart) that renders at base and fails at head in one of its values scenarios; "
        "in a chart rendered by template (one failing as a whole at both refs), each template that renders at base "
        "and fails at head. "
        "Scenarios taken from helm-unittest tests that expect the render to fail (`failedTemplate`, or "
        "`notFailedTemplate` with `not: true`) are never rendered as scenarios: their failure is the expected outcome, "
        "and the test run reports it.",
        why="`helm upgrade` with those values would fail: the change breaks installs that work today.",
        example='    # templates/deployment.yaml: {{ required "image.tag" .Values.image.tag }} added, no default',
        fix="Give the new required value a default, or make the template handle its absence.",
    ),
)
