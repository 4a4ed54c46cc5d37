"""Rule upgrade-values-rejected: values an install passes at base no longer render at head (a new
`fail`/`required`/regex guard), observed by rendering the base version of an edited values file,
and the value sets base's helm-unittest tests give that no head test gives, against head (the pipeline's
`upgrade:` scenarios, render/scenarios.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

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
from aftershock.model.review import UPGRADE_PREFIX
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

# Helm's message for `fail` and `required`: `execution error at (app/templates/x.yaml:5:12): <text>`.
# Helm's message when values fail the chart's values.schema.json.
_SCHEMA = "values don't meet the specifications of the schema"
TEST_PREFIX = "test:"  # an upgrade scenario of a base test's values (render/scenarios.py)
_GUARD = re.compile(r"execution error at \(([^:()]+):(\d+):\d+\): (.*)", re.S)


def _template_file(chart: str, template: str) -> str:
    """The repository path of a template Helm names as `<chart name>/templates/...`."""
    rest = template.split("/", 1)[1] if "/" in template else template
    return f"{chart}/{rest}" if chart else rest


@dataclass(frozen=True)
class _Source:
    """What an upgrade scenario rendered: a values file as it is at base, or a base test's values."""

    file: str  # repository path: the values file, or the suite file
    rendered: str  # what rendered at base, as a message names it, with its verb
    pronoun: str  # "it" or "them"
    edited: str  # what the change edits
    facts: tuple[Fact, ...]


def _source(chart: str, scenario: str) -> _Source:
    source = scenario.removeprefix(UPGRADE_PREFIX)
    prefix = f"{chart}/" if chart else ""
    if source.startswith(TEST_PREFIX):
        suite_file, _, test = source.removeprefix(TEST_PREFIX).partition("/")
        suite = f"{prefix}tests/{suite_file}"
        return _Source(
            suite,
            f'the values of test "{test}" in {suite} (as at base) render',
            "them",
            "that test's values, so installs upgraded with values like these fail",
            (Fact("suite", suite), Fact("test", test)),
        )
    file = f"{prefix}{source}"
    return _Source(
        file,
        f"{file} as it is at base renders",
        "it",
        "that file, so installs upgraded with their existing values fail",
        (Fact("values_file", source),),
    )


@dataclass(frozen=True)
class _Rejection:
    """What at head rejects the values, read from Helm's error."""

    by: str  # for the message: "a guard in <template>:<line>", "the schema <file>", "the chart"
    said: str  # the error's own words, cut short
    file: str | None = None  # the guard's template or the schema file
    line: int | None = None


def _rejection(chart: str, error: str) -> _Rejection:
    guard = _GUARD.search(error)
    if guard:
        template = _template_file(chart, guard.group(1))
        line = int(guard.group(2))
        return _Rejection(f"a guard in {template}:{line}", guard.group(3)[:300], template, line)
    if _SCHEMA in error:
        schema = f"{chart}/values.schema.json" if chart else "values.schema.json"
        return _Rejection(f"the schema {schema}", error[:300], schema)
    return _Rejection("the chart", error[:300])


def check(ctx: RuleContext) -> Iterator[Concern]:
    for review in ctx.review.chart_reviews:
        if not review.rejects_upgrade:
            continue
        source = _source(review.chart, review.scenario)
        where = f"{review.chart}@{review.release}" if review.release else review.chart
        found = _rejection(review.chart, " ".join((review.head.error or "no error text").split()))
        yield Concern(
            subject=Subject(
                SubjectKind.CHART, where, where, review.scenario.removeprefix(UPGRADE_PREFIX)
            ),
            message=f"chart {where}: {source.rendered} at base but {found.by} rejects {source.pronoun} "
            f"at head ({found.said}); the change edits {source.edited}",
            delta=Delta.INTRODUCED,
            location=Location(found.file or source.file, found.line),
            path=(
                PathStep("file", source.file, "values at base"),
                PathStep("chart", review.chart, "fails to render at head"),
            ),
            facts=(
                *source.facts,
                Fact("error", found.said),
                Fact("guard", found.file if found.line else None),
            ),
            scope_paths=(review.chart, source.file, *filter(None, (found.file,))),
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
        "`upgrade:<file>`), and with each value set a helm-unittest test gives at base that no head test gives "
        "(a test the change edited; `upgrade:test:<suite>/<test>`, at most 3 per chart, the suite's templates "
        "only, as helm-unittest renders them). When that render fails while base rendered it, the head chart rejects values "
        "that worked: a new `required`, a `fail` behind a condition, a regex check or a stricter "
        "values.schema.json. The message names the guard's template and line from Helm's error (or the "
        "schema). The edited file itself passing at head does not "
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
