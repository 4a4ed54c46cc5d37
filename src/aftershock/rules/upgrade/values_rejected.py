"""Rule upgrade-values-rejected: values an install passes at base no longer render at head (a new
`fail`/`required`/regex guard), observed by rendering the base version of an edited values file
against head (the pipeline's `upgrade:` scenarios, render/scenarios.py)."""

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
from aftershock.model.review import UPGRADE_PREFIX, ChartOutcome, ChartReview, RenderStatus
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

# Helm's message for `fail` and `required`: `execution error at (app/templates/x.yaml:5:12): <text>`.
_GUARD = re.compile(r"execution error at \(([^:()]+):(\d+):\d+\): (.*)", re.S)


def rejected(review: ChartReview) -> bool:
    return (
        review.scenario.startswith(UPGRADE_PREFIX)
        and review.outcome is ChartOutcome.NOT_REVIEWED
        and review.base.status is RenderStatus.OK
        and review.head.status is RenderStatus.FAILED
    )


def _template_file(chart: str, template: str) -> str:
    """The repository path of a template Helm names as `<chart name>/templates/...`."""
    rest = template.split("/", 1)[1] if "/" in template else template
    return f"{chart}/{rest}" if chart else rest


def check(ctx: RuleContext) -> Iterator[Concern]:
    for review in ctx.review.chart_reviews:
        if not rejected(review):
            continue
        values_file = review.scenario.removeprefix(UPGRADE_PREFIX)
        where = f"{review.chart}@{review.release}" if review.release else review.chart
        error = " ".join((review.head.error or "no error text").split())
        guard = _GUARD.search(error)
        said = (guard.group(3) if guard else error)[:300]
        template = _template_file(review.chart, guard.group(1)) if guard else None
        by = (
            f"a guard in {template}:{guard.group(2)}"
            if guard and template
            else "the head templates"
        )
        repo_file = f"{review.chart}/{values_file}" if review.chart else values_file
        yield Concern(
            subject=Subject(SubjectKind.CHART, where, where, values_file),
            message=f"chart {where}: {repo_file} as it is at base renders at base but {by} rejects it at head "
            f"({said}); the change edits that file, so installs upgraded with their existing values fail",
            delta=Delta.INTRODUCED,
            location=Location(template, int(guard.group(2)))
            if guard and template
            else Location(repo_file),
            path=(
                PathStep("file", repo_file, "values at base"),
                PathStep("chart", review.chart, "fails to render at head"),
            ),
            facts=(Fact("values_file", values_file), Fact("error", said), Fact("guard", template)),
            scope_paths=(review.chart, repo_file, *((template,) if template else ())),
        )


RULE = Rule(
    id="upgrade-values-rejected",
    title="Existing values rejected on upgrade",
    category=Category.COMPATIBILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="For each values file beside the chart (`values-*.yaml`) or under `ci/` that the change edits, "
        "the review also renders the chart at head with that file as it was at base (scenario "
        "`upgrade:<file>`). When that render fails while base rendered it, the head templates reject values "
        "that worked: a new `required`, a `fail` behind a condition or a regex check. The message names "
        "the guard's template and line from Helm's error. The edited file itself passing at head does not "
        "help the installs that still pass the old values.",
        why="Adding the missing key to the chart's own example or CI values makes the chart's checks pass, "
        "but every existing release keeps its values: `helm upgrade` (or the GitOps controller) fails for "
        "them on the next sync, and the release is stuck until someone edits each one.",
        example='    # templates/deployment.yaml (head)\n    image: {{ required "image.tag is required" '
        ".Values.image.tag }}\n    # ci/prod-values.yaml: the change adds image.tag, which existing installs lack",
        fix="Give the new value a default (or derive it from the old key), accept the old shape for a "
        "release or two with a deprecation note, or document the upgrade step in the chart's notes and bump "
        "its major version.",
    ),
)
