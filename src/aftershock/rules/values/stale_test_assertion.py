"""Rule tests-stale-assertion: a chart test asserts a rendered value that the change no longer renders."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.diff.values import deep_equal
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
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.sources import files_under, find_lines, load_yaml_documents

_PART = re.compile(r"\.?([A-Za-z0-9_$-]+)|\[(\d+)\]|\[\"([^\"]*)\"\]|\['([^']*)'\]")
_MISSING = object()
# Test settings that change what is rendered: such tests are not about the default render.
_RENDER_SETTINGS = ("set", "values", "capabilities", "kubernetesProvider", "chart")


@dataclass(frozen=True)
class Assertion:
    file: str
    test: str
    template: str  # chart-relative, e.g. templates/deployment.yaml
    path: str
    value: Any
    document_index: int | None


def read_path(body: Any, path: str) -> Any:
    """The value at a helm-unittest path such as `spec.template.spec.containers[0].image`; _MISSING if absent."""
    position, node = 0, body
    while position < len(path):
        match = _PART.match(path, position)
        if match is None or match.end() == position:
            return _MISSING
        key, index, quoted, single = match.groups()
        position = match.end()
        if index is not None:
            node = (
                node[int(index)] if isinstance(node, list) and int(index) < len(node) else _MISSING
            )
        else:
            name = key if key is not None else (quoted if quoted is not None else single)
            node = node.get(name, _MISSING) if isinstance(node, Mapping) else _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def assertions(texts: Mapping[str, str], chart: str) -> Iterator[Assertion]:
    for path, body in files_under(texts, f"{chart}/tests", ("_test.yaml", "_test.yml")):
        for suite in map(as_map, load_yaml_documents(body)):
            if any(suite.get(key) for key in _RENDER_SETTINGS):
                continue
            suite_templates = [text(t) for t in as_list(suite.get("templates"))]
            for test in map(as_map, as_list(suite.get("tests"))):
                if any(test.get(key) for key in _RENDER_SETTINGS):
                    continue
                templates = (
                    [text(test.get("template"))] if test.get("template") else suite_templates
                )
                for entry in map(as_map, as_list(test.get("asserts"))):
                    equal = as_map(entry.get("equal"))
                    if not equal or entry.get("not") is True or not text(equal.get("path")):
                        continue
                    index = entry.get("documentIndex")
                    for template in templates:
                        yield Assertion(
                            path,
                            text(test.get("it")),
                            template,
                            text(equal.get("path")),
                            equal.get("value"),
                            index if isinstance(index, int) else None,
                        )


def _target(pairs: list[ObjectPair], chart: str, assertion: Assertion) -> ObjectPair | None:
    template = f"{chart}/{assertion.template}"
    matching = [
        p for p in pairs if any(o is not None and o.template == template for o in (p.base, p.head))
    ]
    if assertion.document_index is not None:
        matching = [p for p in matching if p.current.document_index == assertion.document_index]
    return next((p for p in matching if p.base is not None and p.head is not None), None)


def _value(obj: RenderedObject, path: str) -> Any:
    return read_path(obj.body, path)


def check(ctx: RuleContext) -> Iterator[Concern]:
    by_chart: dict[str, list[ObjectPair]] = {}
    for pair in ctx.index.pairs:
        by_chart.setdefault(pair.chart.chart, []).append(pair)
    for chart, pairs in sorted(by_chart.items()):
        for assertion in assertions(ctx.sources.head, chart):
            target = _target(pairs, chart, assertion)
            if (
                target is None
                or target.change is None
                or target.base is None
                or target.head is None
            ):
                continue  # `_target` picks a pair with both sides; this tells the type checker
            before, after = _value(target.base, assertion.path), _value(target.head, assertion.path)
            if (
                before is _MISSING
                or not deep_equal(before, assertion.value)
                or (after is not _MISSING and deep_equal(after, assertion.value))
            ):
                continue
            yield _concern(ctx, target, assertion, after)


def _concern(ctx: RuleContext, pair: ObjectPair, assertion: Assertion, after: Any) -> Concern:
    shown = "nothing" if after is _MISSING else repr(after)[:80]
    lines = find_lines(
        ctx.sources.head.get(assertion.file, ""), re.compile(re.escape(assertion.path))
    )
    return Concern(
        subject=Subject(
            SubjectKind.FILE, assertion.file, assertion.file, f"{assertion.test}#{assertion.path}"
        ),
        message=f'test "{assertion.test}" in {assertion.file} asserts {assertion.path} == {repr(assertion.value)[:80]}, '
        f"which base renders, but head renders {shown} for {pair.display}: the test now fails",
        delta=Delta.INTRODUCED,
        location=Location(assertion.file, lines[0] if lines else None),
        path=(
            *pair.impact_path(assertion.path, "changes"),
            PathStep("file", assertion.file, "asserts the old value"),
        ),
        facts=(Fact("test", assertion.test), Fact("path", assertion.path)),
        scope_paths=(*pair.scope_paths, assertion.file),
    )


RULE = Rule(
    id="tests-stale-assertion",
    title="Chart test asserts the old render",
    category=Category.TESTS,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="helm-unittest `equal` assertions (in <chart>/tests/*_test.yaml at head) of tests that render the "
        "defaults (no `set`, `values`, `capabilities` or `chart` override) whose value matches the object "
        "rendered at base and no longer matches the one rendered at head. The object is found by the test's "
        "template (and documentIndex). The suite is not run, so this is inferred with medium confidence: the "
        "test's release name or namespace can differ from the review's.",
        why="A default changed without its test means CI fails on the chart test, or, if the chart's tests are "
        "not run in CI, that the test suite no longer describes the chart.",
        example="    # values.yaml: replicaCount: 2 -> 3\n    # tests/deployment_test.yaml\n    - equal:\n        path: spec.replicas\n        value: 2",
        fix="Update the assertion together with the default, or make the test set the value it checks.",
    ),
)
