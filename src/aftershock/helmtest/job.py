"""Running one helm-unittest test job on what Helm rendered for it (TestJob.RunV3 after rendering).

Pure given its inputs (the render, the suite and the test), apart from the snapshot comparer it
is handed. It reproduces upstream's rules: a render failure becomes an error document for the
blamed template when the test asserts `failedTemplate`, and an execution error otherwise;
templates are looked up by name; documents counted per template; assertion results combined the
way helm-unittest combines them (including its quirks).
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from aftershock.gocompat.gofmt import stringify_keys
from aftershock.gocompat.goyaml import GoYamlError, build_value, compose_documents
from aftershock.helmtest.assertions import ASSERTION_KINDS
from aftershock.helmtest.assertions.common import Context, Doc, SnapshotComparer
from aftershock.helmtest.goyaml_emit import trusted_marshal
from aftershock.helmtest.render_errors import blamed_template
from aftershock.helmtest.selection import (
    ALL_TEMPLATES,
    DocumentFilter,
    SelectionError,
    prefixed_template,
)
from aftershock.helmtest.suite import SPLITTER, AssertionSpec, TestJob, TestSuite
from aftershock.model.test_results import AssertionResult, CheckedValue, TestResult

_EXPECTED_PARAMS = (
    "Value",
    "Content",
    "Pattern",
    "Of",
    "Count",
    "Type",
    "ErrorMessage",
    "ErrorPattern",
    "Kind",
)


@dataclass(frozen=True)
class JobRender:
    """What rendering gave one test, as helm-unittest would have seen it.

    `outputs` holds only the templates the suite selects. `error` is Helm's text (Helm v3
    wording); `values_stage` says Helm failed before running templates (values schema, release
    name). `exec_error` is a failure before rendering (unreadable values file, bad `set` key).
    """

    outputs: Mapping[str, str] = field(default_factory=dict, hash=False)
    error: str | None = None
    values_stage: bool = False
    exec_error: str | None = None
    crds: Mapping[str, str] = field(default_factory=dict, hash=False)
    render_key: str | None = None


class ManifestError(ValueError):
    """Rendered output that yaml.v3 cannot read into a manifest."""


def parse_manifests(text: str) -> tuple[Doc, ...]:
    """parseYamlFile: split on `---`, keep non-empty mappings, count them from 0."""
    text = SPLITTER.sub("\n---\n", text)
    try:
        nodes = compose_documents(text)
    except GoYamlError as exc:
        raise ManifestError(str(exc)) from None
    docs: list[Doc] = []
    for node in nodes:
        try:
            value = build_value(node)
        except GoYamlError as exc:
            raise ManifestError(str(exc)) from None
        if value is None:
            continue
        if not isinstance(value, dict):
            line = node.start_mark.line + 1 if node is not None else 0
            raise ManifestError(
                f"yaml: unmarshal errors:\n  line {line}: cannot unmarshal "
                f"into map[string]interface {{}}"
            )
        if value:
            docs.append(Doc.of(len(docs), stringify_keys(value)))
    return tuple(docs)


@dataclass
class _Rendered:
    """The state RunV3 builds before assertions: outputs, manifests, the render's fate."""

    outputs: dict[str, str]
    succeeded: bool = True
    exec_error: str | None = None
    render_error: str | None = None
    default_templates: tuple[str, ...] = ()
    manifests: dict[str, tuple[Doc, ...]] = field(default_factory=dict)


def _render_state(suite: TestSuite, test: TestJob, render: JobRender) -> _Rendered:
    require_success = all(
        ASSERTION_KINDS[a.assert_type].needs_render_success for a in test.assertions
    )
    defaults = suite.templates
    if render.error is None:
        return _Rendered(dict(render.outputs), default_templates=defaults or (ALL_TEMPLATES,))
    if render.values_stage:  # returned before the defaults were filled in, as upstream
        return _Rendered({}, False, render.error, render.error, defaults)
    defaults = defaults or (ALL_TEMPLATES,)
    blamed, message = blamed_template(render.error)
    if require_success or (not blamed and not message):
        return _Rendered({}, False, render.error, render.error, defaults)
    document = trusted_marshal({"raw": message})
    if posixpath.basename(blamed).startswith("_"):
        outputs = {prefixed_template(suite.chart_route, name): document for name in defaults}
    else:
        outputs = {blamed: document}
    return _Rendered(outputs, False, default_templates=defaults)


def _parse_outputs(
    state: _Rendered, render: JobRender, chart_name: str, include_crds: bool
) -> None:
    if include_crds:
        for name, text in render.crds.items():
            state.manifests[name] = parse_manifests(text)
    for name, text in state.outputs.items():
        key = name if name.startswith(chart_name) else posixpath.join(chart_name, name)
        extension = posixpath.splitext(key)[1] if state.succeeded else ".yaml"
        if extension in (".yaml", ".yml", ".tpl"):
            state.manifests[key] = parse_manifests(text)
        elif extension == ".txt":
            state.manifests[key] = (Doc.of(0, {"raw": text}),)


def _assertion_templates(
    suite: TestSuite, test: TestJob, spec: AssertionSpec, state: _Rendered, crds: Mapping[str, str]
) -> list[str]:
    """determineTemplatesToAssert + prefixTemplatesToAssert."""
    if spec.template:
        names = [spec.template]
    elif test.templates:
        names = list(test.templates)
    elif test.template:
        names = [test.template]
    elif any("*" in name for name in state.default_templates):
        return list(state.outputs) + (list(crds) if suite.include_crds else [])
    else:
        names = list(state.default_templates)
    return [prefixed_template(suite.chart_route, name) for name in names]


def _no_file_message(template: str) -> str:
    if template:
        return f'\ttemplate "{template}" not exists or not selected in test suite'
    return "\tassertion.template must be given if testsuite.templates is empty"


def _render_failure_lines(rendered: tuple[Doc, ...] | None) -> list[str]:
    if rendered:
        raw = rendered[0].body.get("raw")
        shown = raw if isinstance(raw, str) else "%!s(<nil>)"
        return [f"Error: Invalid rendering: {shown}"]
    return ["Error: rendered manifest is empty"]


@dataclass
class _Outcome:
    passed: bool = False
    lines: list[str] = field(default_factory=list)
    checked: list[CheckedValue] = field(default_factory=list)


def _run_template(
    spec: AssertionSpec,
    template: str,
    selected: tuple[Doc, ...],
    state: _Rendered,
    snapshots: SnapshotComparer | None,
) -> _Outcome:
    kind = ASSERTION_KINDS[spec.assert_type]
    rendered = state.manifests.get(template)
    if rendered is None and kind.needs_render_success:
        return _Outcome(False, ["Error:", _no_file_message(template)])
    if kind.needs_render_success != state.succeeded:
        return _Outcome(False, [f"Template:\t{template}", *_render_failure_lines(rendered)])
    context = Context(
        rendered or (), selected, spec.negated != kind.antonym, snapshots, state.render_error
    )
    verdict = kind.validate(spec.params, context)
    checked = [
        CheckedValue(template, c.document_index, c.path, c.actual, c.passed) for c in verdict.checks
    ]
    lines = [] if verdict.passed else [f"Template:\t{template}", *verdict.info]
    return _Outcome(verdict.passed, lines, checked)


def _expected(spec: AssertionSpec) -> Any:
    for name in _EXPECTED_PARAMS:
        if name in spec.params and spec.params[name] not in (None, ""):
            return spec.params[name]
    return None


def run_assertion(
    suite: TestSuite,
    test: TestJob,
    spec: AssertionSpec,
    state: _Rendered,
    crds: Mapping[str, str],
    snapshots: SnapshotComparer | None,
) -> AssertionResult:
    """Assertion.Assert: select templates and documents, then validate each template."""
    kind = ASSERTION_KINDS[spec.assert_type]
    templates = _assertion_templates(suite, test, spec, state, crds)
    base = AssertionResult(
        spec.index,
        spec.assert_type,
        spec.negated,
        False,
        path=spec.params.get("Path") or None,
        expected=_expected(spec),
        parameters=spec.params,
        templates=tuple(dict.fromkeys(templates)),
    )
    docs = {template: state.manifests.get(template) or () for template in templates}
    document_filter = DocumentFilter(
        test.document_index if test.document_index is not None else spec.document_index,
        spec.document_selector or test.document_selector,
    )
    try:
        selected = document_filter.apply(docs)
    except SelectionError as exc:
        return _with(base, False, ["Error:", str(exc)], [])
    skip_empty = bool(test.document_selector and test.document_selector.skip_empty_templates)
    if not selected and skip_empty:
        reason = (
            "skipped as 'documentSelector.skipEmptyTemplates: true' and 'selectedTemplates: empty'"
        )
        return replace(base, passed=True, skipped=True, skip_reason=reason)
    if not selected:
        if kind.needs_render_success != state.succeeded:
            return _with(base, False, ["Error: rendered manifest is empty"], [])
        context = Context((), (), spec.negated != kind.antonym, snapshots, state.render_error)
        verdict = kind.validate(spec.params, context)
        return _with(base, verdict.passed, list(verdict.info), [])
    passed, lines, checked = False, [], []
    for position, template in enumerate(sorted(selected)):
        outcome = _run_template(spec, template, selected[template], state, snapshots)
        passed = outcome.passed if position == 0 else passed and outcome.passed
        lines += outcome.lines
        checked += outcome.checked
    return _with(base, passed, lines, checked)


def _with(
    base: AssertionResult, passed: bool, lines: list[str], checked: list[CheckedValue]
) -> AssertionResult:
    return replace(base, passed=passed, fail_info=tuple(lines), checked=tuple(checked))


def _combine(results: list[AssertionResult]) -> bool:
    """runAssertions: upstream lets a skipped assertion reset earlier failures; kept as is."""
    passed = False
    for position, result in enumerate(results):
        if result.skipped:
            passed = True
        if position == 0:
            passed = result.passed
        passed = passed and result.passed
    return passed


def run_job(
    suite: TestSuite,
    test: TestJob,
    render: JobRender,
    chart_name: str,
    snapshots: SnapshotComparer | None,
) -> TestResult:
    """The result of `test` given what rendering produced for it."""
    started = time.monotonic()
    result = TestResult(test.name, test.index, False, render_key=render.render_key)
    if render.exec_error is not None:
        return replace(result, exec_error=render.exec_error, seconds=time.monotonic() - started)
    state = _render_state(suite, test, render)
    try:
        _parse_outputs(state, render, chart_name, suite.include_crds)
    except ManifestError as exc:
        return replace(result, exec_error=str(exc), seconds=time.monotonic() - started)
    assertions = tuple(
        run_assertion(suite, test, spec, state, render.crds, snapshots) for spec in test.assertions
    )
    return replace(
        result,
        passed=_combine(list(assertions)),
        skipped=bool(assertions) and all(a.skipped for a in assertions),
        exec_error=state.exec_error,
        assertions=assertions,
        seconds=time.monotonic() - started,
    )
