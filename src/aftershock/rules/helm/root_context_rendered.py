"""Rule root-context-rendered: an object the change renders holds Helm's whole template context
(`Capabilities`, `Chart`, `Release`, `Values`, …) in a field: a template wrote `.` where the dot
was not the value it meant (`{{ if .Values.x }}{{ toYaml . }}` — `if` does not rebind the dot)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.review import ChartOutcome
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.index import ObjectPair, pair_objects
from aftershock.rules.support.judge import line_in_source

# The top-level names of a template's context (Helm's `chartutil.ToRenderValues`): a map holding
# three of them is that context, written out.
CONTEXT_KEYS = frozenset(
    {"Capabilities", "Chart", "Files", "Release", "Subcharts", "Template", "Values"}
)


# The same names as keys of a text (`toJson .`, `toYaml .` into a ConfigMap's data): `"Release":`.
_CONTEXT_KEY = re.compile(r'(?:^|[\s{,"])(' + "|".join(sorted(CONTEXT_KEYS)) + r')"?\s*:', re.M)


def _context_fields(value: Any, path: str = "") -> Iterator[str]:
    """The field paths of `value` that hold the template context (not looked into further): a map
    with three of its names as keys, or a text naming `Capabilities` and two more so."""
    if isinstance(value, str):
        named = set(_CONTEXT_KEY.findall(value)) if "Capabilities" in value else set()
        if "Capabilities" in named and len(named) >= 3:
            yield path
    elif isinstance(value, Mapping):
        if len(CONTEXT_KEYS.intersection(k for k in value if isinstance(k, str))) >= 3:
            yield path
            return
        for key, inner in value.items():
            yield from _context_fields(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for number, inner in enumerate(value):
            yield from _context_fields(inner, f"{path}[{number}]")


def _concerns(ctx: RuleContext, pair: ObjectPair) -> Iterator[Concern]:
    if pair.head is None:
        return
    before = set(_context_fields(pair.base.body)) if pair.base is not None else set()
    for field in _context_fields(pair.head.body):
        if field in before:
            continue  # there at base: not this change's
        token = field.rsplit(".", 1)[-1].split("[", 1)[0]
        location = ctx.index.locate_object(pair, (token,), in_change=True)
        yield Concern(
            subject=pair.subject(field),
            delta=Delta.INTRODUCED,
            message=f"{pair.display} holds Helm's whole template context in {field} (Capabilities, "
            "Chart, Release, Values, …): a template wrote `.` where the dot is the top-level context, "
            "not the value it meant, and every value the release is given is written into the object",
            location=line_in_source(ctx, location, (token,)),
            path=pair.impact_path(field, "writes"),
            facts=(Fact("field", field),),
            scope_paths=pair.scope_paths,
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    # the probes' objects too (the index pairs the others once for every rule): whatever value opens
    # the guard, the dot it writes is the context
    probes = (
        pair
        for chart in ctx.review.chart_reviews
        if chart.probe and chart.outcome is ChartOutcome.CHANGED
        for pair in pair_objects(chart)
    )
    for pair in (*ctx.index.pairs, *probes):
        if pair.change is not None:  # an object the same at both refs holds nothing new
            yield from _concerns(ctx, pair)


RULE = Rule(
    id="root-context-rendered",
    title="Helm's template context written into an object",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A rendered object that holds, in one field, a map with three or more of the template context's "
        "top-level names (`Capabilities`, `Chart`, `Files`, `Release`, `Subcharts`, `Template`, `Values`), "
        "where the object at base did not. Observed in the render, in every scenario, the made-up values "
        "of a guard included: the value only opens the block; what the block writes is the context "
        "whatever the value.",
        why="Inside `if`, the dot stays the top-level context (only `with` and `range` rebind it), so "
        "`{{ if .Values.x }}{{ toYaml . }}{{ end }}` writes Helm's whole context: a field the API server "
        "rejects or the controller misreads, and every value of the release, credentials included, "
        "copied into an object anyone who can read it sees.",
        example='    {{- if dig "verticalPodAutoscaler" "maxAllowed" nil .Values.garden }}\n'
        "    maxAllowed: {{ toYaml . | nindent 10 }}\n    {{- end }}",
        fix='Use `with` so the dot is the value (`{{- with dig "verticalPodAutoscaler" "maxAllowed" nil '
        ".Values.garden }}`), or write the value's own path.",
    ),
)
