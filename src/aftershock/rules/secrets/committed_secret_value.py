"""Rule secret-value-committed: the change puts a new value into a Secret rendered from the repository."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.diff.paths import KeySegment, parse_path
from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.diff import FieldChangeKind, ObjectChange, RedactedValue
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.index import ObjectPair

SECRET_FIELDS = ("data", "stringData")


def _secret_changes(ctx: RuleContext) -> Iterator[tuple[ObjectPair, ObjectChange]]:
    for pair in ctx.index.pairs:
        if (
            pair.head is not None
            and pair.key.group == ""
            and pair.key.kind == "Secret"
            and pair.change is not None
        ):
            yield pair, pair.change


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, change in _secret_changes(ctx):
        for field in change.fields:
            segments = parse_path(field.path)
            if (
                len(segments) != 2
                or not isinstance(segments[0], KeySegment)
                or segments[0].key not in SECRET_FIELDS
                or not isinstance(segments[1], KeySegment)
            ):
                continue
            if (
                field.kind is FieldChangeKind.REMOVED
                or not isinstance(field.after, RedactedValue)
                or field.after.bytes == 0
            ):
                continue
            key = segments[1].text
            verb = "adds" if field.kind is FieldChangeKind.ADDED else "changes"
            size = field.after.bytes
            location = ctx.index.locate_object(pair, (segments[1].key,), in_change=True)
            yield Concern(
                subject=pair.subject(f"{segments[0].key}.{key}"),
                message=f"{pair.display}: the change {verb} the value of {field.path} ({size} bytes), which the chart "
                "renders from the repository, so the credential is committed to Git",
                delta=Delta.INTRODUCED,
                location=location,
                path=pair.impact_path(field.path, "changes"),
                facts=(
                    Fact("field", field.path),
                    Fact("change", field.kind.value),
                    Fact("bytes", size),
                ),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="secret-value-committed",
    title="Secret value committed to the repository",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Secrets whose rendered `data` or `stringData` keys the change adds or changes to a non-empty value. "
        "Renders use the chart's own values and values that vary between two renders (randAlphaNum, genCA, ...) "
        "are masked by the diff, so a changed value comes from the repository's files. Values the change does "
        "not touch are not reported (charts often ship placeholders). The value is never shown, only its size.",
        why="A credential in a chart's values or templates is in Git history for good, readable by everyone "
        "with access to the repository and its forks; rotating it by committing the new value repeats the "
        "leak.",
        example="    # values.yaml\n    secret:\n      data:\n        WEBHOOK_SIGNING_KEY: whsec_new_value_here",
        fix="Create the Secret outside the chart (External Secrets, Sealed Secrets, SOPS, the secret store) and "
        "reference it by name (`existingSecret`), then rotate the credential that was committed.",
    ),
)
