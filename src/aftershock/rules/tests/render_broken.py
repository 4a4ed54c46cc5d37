"""Rule chart-render-broken: a chart renders at base and fails at head in a values scenario (observed)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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
from aftershock.model.contexts import ChartContext
from aftershock.model.review import ChartOutcome, ChartReview, RenderStatus
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

MAX_SCENARIOS = 5  # scenario names a template's finding lists; the rest are counted


def check(ctx: RuleContext) -> Iterator[Concern]:
    yield from _broken_templates(ctx.review.chart_reviews, ctx.review.added_paths)
    yield from _needs_at_head(ctx.review.contexts)
    for review in ctx.review.chart_reviews:
        if review.outcome is not ChartOutcome.NOT_REVIEWED or review.rejects_upgrade:
            continue  # an upgrade scenario's failure is upgrade-values-rejected's
        if review.probe:
            continue  # made-up values: its failure is a part not reviewed, not an observed break
        if (
            review.base.status is not RenderStatus.OK
            or review.head.status is not RenderStatus.FAILED
            or review.head.reads_cluster  # a lookup answered offline: not reviewed
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


def _broken_templates(reviews: Sequence[ChartReview], added: frozenset[str]) -> Iterator[Concern]:
    """In charts rendered by template: each template that renders at base and fails at head (or
    that the change adds, `added`, and fails), once for all the scenarios it fails in (the default
    scenario's error, else the first's)."""
    failing: dict[tuple[str, str], list[tuple[ChartReview, str]]] = {}
    for review in reviews:
        if not review.partial or review.base.status is not RenderStatus.OK or review.probe:
            continue
        where = f"{review.chart}@{review.release}" if review.release else review.chart
        for failure in review.templates_not_rendered:
            if (
                failure.base_error is None
                and failure.head_error is not None
                and not failure.reads_cluster
            ):
                failing.setdefault((where, failure.template), []).append(
                    (review, failure.head_error)
                )
    for (where, template), found in failing.items():
        found.sort(key=lambda entry: entry[0].scenario != "default")
        review, first_error = found[0]
        error = " ".join(first_error.split())[:300]
        scenarios = [r.scenario for r, _ in found]
        yield Concern(
            subject=Subject(SubjectKind.CHART, where, where, template),
            message=f"template {template} of chart {where} "
            + ("that the change adds fails " if template in added else "renders at base but fails ")
            + f"at head in {_scenarios(scenarios)}: {error}",
            delta=Delta.INTRODUCED,
            location=Location(template),
            path=(PathStep("file", template, "fails to render at head"),),
            facts=(
                Fact("scenario", ", ".join(scenarios)),
                Fact("template", template),
                Fact("error", error),
            ),
            scope_paths=(review.chart,),
        )


def _needs_at_head(contexts: Sequence[ChartContext]) -> Iterator[Concern]:
    """Charts whose context renders the base and renders the head only with values no context gives
    (rendered with them, so the rest is reviewed): the head fails without them."""
    for context in contexts:
        need = context.head_need
        if need is None:
            continue
        keys = ", ".join(
            f"{v.key} (placeholder)" if v.file is None else f"{v.key} (from {v.file})"
            for v in need.values
        )
        error = " ".join(need.error.split())[:300]
        yield Concern(
            subject=Subject(SubjectKind.CHART, context.chart, context.chart, need.template or ""),
            message=f"chart {context.chart} renders at base in its context ({context.name}) but at "
            f"head only with values that context does not give: {keys} (rendered with them, so "
            f"that the rest is reviewed): {error}",
            delta=Delta.INTRODUCED,
            location=Location(need.template or f"{context.chart}/Chart.yaml"),
            path=(PathStep("chart", context.chart, "fails to render at head without them"),),
            facts=(Fact("context", context.name or ""), Fact("keys", keys), Fact("error", error)),
            scope_paths=(context.chart,),
        )


def _scenarios(names: list[str]) -> str:
    if len(names) == 1:
        return f"scenario {names[0]}"
    shown = ", ".join(names[:MAX_SCENARIOS]) + (
        f" and {len(names) - MAX_SCENARIOS} more" if len(names) > MAX_SCENARIOS else ""
    )
    return f"{len(names)} scenarios ({shown})"


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
        "in a chart rendered by template, each template that renders at base and fails at head, once for all the "
        "scenarios it fails in; a chart whose head renders only with values its context does not give (taken "
        "from the repository's CI or tests values files, or a placeholder for a text a `required` names), "
        "rendered with them so that the rest of the change is still diffed and judged. "
        "Scenarios taken from helm-unittest tests that expect the render to fail (`failedTemplate`, or "
        "`notFailedTemplate` with `not: true`) are never rendered as scenarios: their failure is the expected outcome, "
        "and the test run reports it.",
        why="`helm upgrade` with those values would fail: the change breaks installs that work today.",
        example='    # templates/deployment.yaml: {{ required "image.tag" .Values.image.tag }} added, no default',
        fix="Give the new required value a default, or make the template handle its absence.",
    ),
)
