"""Rule values-removed-key-used: a values key removed from a chart's defaults is still read by its templates or tests."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.units import ValuesKeyChange
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.removed_keys import removed_default_keys, removed_key_named_at
from aftershock.rules.support.sources import files_under, find_lines, library_dependencies


def template_pattern(path: str) -> re.Pattern[str]:
    return re.compile(r"\.Values\." + re.escape(path) + r"(?![\w])")


def test_pattern(path: str) -> re.Pattern[str]:
    return re.compile(r"(?m)^[ \t]*" + re.escape(path) + r"(?:\.[\w.\[\]-]+)?[ \t]*:")


def _readers(ctx: RuleContext, change: ValuesKeyChange) -> Iterator[tuple[str, list[int], str]]:
    """(file, lines, what) of each head source that still reads the key."""
    chart = change.chart or ""
    folders = (chart, *library_dependencies(ctx.review, chart))
    pattern = template_pattern(change.path)
    for folder in folders:
        for path, text in files_under(
            ctx.sources.head, f"{folder}/templates", (".yaml", ".yml", ".tpl", ".txt")
        ):
            lines = find_lines(text, pattern)
            if lines:
                yield path, lines, "template"
    for path, text in files_under(ctx.sources.head, f"{chart}/tests", (".yaml", ".yml")):
        lines = find_lines(text, test_pattern(change.path))
        if lines:
            yield path, lines, "test"


def check(ctx: RuleContext) -> Iterator[Concern]:
    for change in removed_default_keys(ctx):
        for path, lines, what in _readers(ctx, change):
            verb = "reads it" if what == "template" else "still sets it"
            consequence = (
                "and now gets nothing (a default or an empty value)"
                if what == "template"
                else "so the test no longer tests what it says"
            )
            yield removed_key_named_at(
                change,
                (path, lines[0]),
                f"{what} reads it",
                f"{change.path} is removed from {change.file}, but {path}:{lines[0]} {verb} {consequence}",
                (Fact("key", change.path), Fact("reader", path), Fact("kind", what)),
                Severity.MEDIUM if what == "template" else Severity.LOW,
            )


RULE = Rule(
    id="values-removed-key-used",
    title="Removed values key still used",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="Keys the change removes from a chart's own `values.yaml` that head sources still name: "
        "`.Values.<key>` (or a deeper path) in the chart's templates and in the library charts it includes "
        "(medium), or a `<key>:` line in its test suites under tests/ (low, typically a helm-unittest `set:`). "
        'Static text matching, hence medium confidence: `index .Values "a"` and `$v := .Values.a` then `$v.b` '
        "are not followed.",
        why="A template that reads a removed key silently gets nil: `default` kicks in, an `if` turns a "
        "feature off, or a required field renders empty, and users who still set the key in their own values "
        "see it ignored without any error.",
        example="    # values.yaml at head no longer has podAnnotations\n    templates/deployment.yaml:  {{- with .Values.podAnnotations }}",
        fix="Rename the key in the templates and tests as well, or keep the old key as a deprecated alias "
        "(read both, prefer the new one) for a release.",
    ),
)
