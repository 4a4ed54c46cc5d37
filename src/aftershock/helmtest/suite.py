"""helm-unittest suite files as frozen dataclasses: suites, test jobs and assertion specs.

A file may hold several suites separated by `---` lines (split with helm-unittest's own pattern
before YAML is read). Settings a test does not give are taken from its suite the way
helm-unittest's `polish*` steps do (see `effective_*`). Parsing is strict where upstream is: a
suite without tests, a test without asserts, an unknown assertion type or a parameter of the
wrong type is an error for the whole file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from yaml.nodes import Node, SequenceNode

from aftershock.gocompat.goyaml import GoYamlError, build_value, compose_documents
from aftershock.helmtest.assertions import ASSERTION_KINDS
from aftershock.helmtest.kubeprovider import KubernetesProvider, parse_provider
from aftershock.helmtest.structdecode import Decoder, ParamError, decode_params
from aftershock.helmtest.upstream import PLUGIN_VERSION, version_at_least

# helm-unittest splits suite files (and rendered output) on this before reading YAML.
SPLITTER = re.compile(r"(?:^|[\t\n\f\r ]*\n)---[\t\n\f\r ]*")


class SuiteError(ValueError):
    """A suite file helm-unittest would refuse; the message is upstream's."""


@dataclass(frozen=True)
class Release:
    name: str = ""
    namespace: str = ""
    revision: int = 0
    upgrade: bool = False


@dataclass(frozen=True)
class Capabilities:
    """`api_versions` is None when a test wrote `apiVersions:` with no value (then it has none)."""

    major_version: str = ""
    minor_version: str = ""
    api_versions: tuple[str, ...] | None = ()


@dataclass(frozen=True)
class ChartOverride:
    version: str = ""
    app_version: str = ""

    def __bool__(self) -> bool:
        return bool(self.version or self.app_version)


@dataclass(frozen=True)
class DocumentSelector:
    path: str
    value: Any = None
    match_many: bool = False
    skip_empty_templates: bool = False


@dataclass(frozen=True)
class AssertionSpec:
    index: int
    assert_type: str
    params: Mapping[str, Any] = field(hash=False)
    negated: bool = False
    template: str = ""
    document_index: int = -1
    document_selector: DocumentSelector | None = None


@dataclass(frozen=True)
class TestJob:
    __test__ = False  # a helm-unittest test, not a pytest class
    index: int
    name: str
    assertions: tuple[AssertionSpec, ...]
    values: tuple[str, ...] = ()
    set: Mapping[str, Any] = field(default_factory=dict, hash=False)
    template: str = ""
    templates: tuple[str, ...] = ()
    document_index: int | None = None
    document_selector: DocumentSelector | None = None
    release: Release = Release()
    capabilities: Capabilities = Capabilities()
    chart: ChartOverride = ChartOverride()
    skip_reason: str = ""
    kubernetes_provider: KubernetesProvider = KubernetesProvider()  # the fake cluster of `lookup`
    post_renderer: str = ""


@dataclass(frozen=True)
class TestSuite:
    __test__ = False  # a helm-unittest suite, not a pytest class
    name: str
    file: str  # absolute path of the suite file
    chart_route: str  # "chart" or "chart/charts/sub" for a suite of a subchart
    tests: tuple[TestJob, ...]
    values: tuple[str, ...] = ()
    set: Mapping[str, Any] = field(default_factory=dict, hash=False)
    templates: tuple[str, ...] = ()
    exclude_templates: tuple[str, ...] = ()
    include_crds: bool = False
    release: Release = Release()
    capabilities: Capabilities = Capabilities()
    chart: ChartOverride = ChartOverride()
    skip_reason: str = ""
    snapshot_id: str = ""
    kubernetes_provider: KubernetesProvider = KubernetesProvider()
    post_renderer: str = ""

    @property
    def snapshot_file(self) -> Path:
        """`__snapshot__/<file>[_<snapshotId>].snap` beside the suite file."""
        path = Path(self.file)
        base = path.name + (f"_{self.snapshot_id}" if self.snapshot_id else "")
        return path.parent / "__snapshot__" / f"{base}.snap"


def effective_release(suite: TestSuite, test: TestJob) -> Release:
    return Release(
        name=test.release.name or suite.release.name,
        namespace=test.release.namespace or suite.release.namespace,
        revision=test.release.revision or suite.release.revision,
        upgrade=test.release.upgrade or suite.release.upgrade,
    )


def effective_capabilities(suite: TestSuite, test: TestJob) -> Capabilities:
    own = test.capabilities.api_versions
    suite_versions = suite.capabilities.api_versions or ()
    api = own + suite_versions if own is not None and suite_versions else own
    return Capabilities(
        major_version=test.capabilities.major_version or suite.capabilities.major_version,
        minor_version=test.capabilities.minor_version or suite.capabilities.minor_version,
        api_versions=api,
    )


def effective_chart(suite: TestSuite, test: TestJob) -> ChartOverride:
    return ChartOverride(
        test.chart.version or suite.chart.version, test.chart.app_version or suite.chart.app_version
    )


def effective_skip_reason(suite: TestSuite, test: TestJob) -> str:
    return suite.skip_reason or test.skip_reason


def parse_suite_file(path: Path, chart_route: str) -> list[TestSuite]:
    """Every suite in the file at `path`; SuiteError (or OSError) for a file upstream refuses."""
    text = path.read_text(encoding="utf-8")
    suites = []
    for part in SPLITTER.split(text):
        if part.strip():
            # as found through the chart (a linked subchart keeps its place, as upstream names it)
            suite = parse_suite_text(part, os.path.abspath(path), chart_route)
            if suite is not None:
                suites.append(suite)
    return suites


def parse_suite_text(text: str, file: str, chart_route: str) -> TestSuite | None:
    """One suite document; None when it holds no YAML node (only comments)."""
    try:
        nodes = compose_documents(text, limit=1)
    except GoYamlError as exc:
        raise SuiteError(str(exc)) from None
    if not nodes or nodes[0] is None:
        return None
    try:
        return _suite(Decoder(), nodes[0], file, chart_route)
    except (
        GoYamlError
    ) as exc:  # decoding a node (a duplicate key in assertion parameters) fails as reading does
        raise SuiteError(str(exc)) from None


def _suite(decoder: Decoder, node: Node, file: str, chart_route: str) -> TestSuite:
    fields = decoder.fields(node, "unittest.TestSuite")
    skip = decoder.fields(fields.get("skip"), "struct")
    capabilities = decoder.fields(fields.get("capabilities"), "struct")
    suite = TestSuite(
        name=decoder.string(fields.get("suite")),
        file=file,
        chart_route=chart_route,
        tests=_tests(decoder, fields.get("tests")),
        values=decoder.strings(fields.get("values")),
        set=decoder.any_map(fields.get("set")),
        templates=decoder.strings(fields.get("templates")),
        exclude_templates=decoder.strings(fields.get("excludeTemplates")),
        include_crds=decoder.boolean(fields.get("includeCrds")),
        release=_release(decoder, fields.get("release")),
        capabilities=Capabilities(
            decoder.string(capabilities.get("majorVersion")),
            decoder.string(capabilities.get("minorVersion")),
            decoder.strings(capabilities.get("apiVersions")),
        ),
        chart=_chart(decoder, fields.get("chart")),
        skip_reason=decoder.string(skip.get("reason")),
        snapshot_id=decoder.string(fields.get("snapshotId")),
        kubernetes_provider=parse_provider(decoder, fields.get("kubernetesProvider")),
        post_renderer=_post_renderer(decoder, fields.get("postRenderer")),
    )
    if decoder.errors:
        raise SuiteError(decoder.error_text())
    return _validated(suite, decoder.string(skip.get("minimumVersion")))


def _validated(suite: TestSuite, minimum_version: str) -> TestSuite:
    """validateTestSuite: tests and asserts present; `skip.minimumVersion` against ours."""
    if not suite.tests:
        raise SuiteError("no tests found")
    if minimum_version and not version_at_least(PLUGIN_VERSION, minimum_version):
        reason = (
            f"Test suite requires minimum unittest plugin version {minimum_version}, "
            f"but current version is {PLUGIN_VERSION}"
        )
        suite = replace(suite, skip_reason=reason)
    if any(not test.assertions for test in suite.tests):
        raise SuiteError("no asserts found")
    return suite


def _post_renderer(decoder: Decoder, node: Node | None) -> str:
    return decoder.string(decoder.fields(node, "unittest.PostRendererConfig").get("cmd"))


def _release(decoder: Decoder, node: Node | None) -> Release:
    fields = decoder.fields(node, "struct")
    return Release(
        name=decoder.string(fields.get("name")),
        namespace=decoder.string(fields.get("namespace")),
        revision=decoder.integer(fields.get("revision")) or 0,
        upgrade=decoder.boolean(fields.get("upgrade")),
    )


def _chart(decoder: Decoder, node: Node | None) -> ChartOverride:
    fields = decoder.fields(node, "struct")
    return ChartOverride(
        decoder.string(fields.get("version")), decoder.string(fields.get("appVersion"))
    )


def _tests(decoder: Decoder, node: Node | None) -> tuple[TestJob, ...]:
    if node is None or not isinstance(node, SequenceNode):
        if node is not None and build_value(node) is not None:
            decoder.fail(node, "[]*unittest.TestJob")
        return ()
    return tuple(_test(decoder, index, item) for index, item in enumerate(node.value))


def _test_capabilities(raw: Any) -> Capabilities:
    """SetCapabilities: the test's `capabilities` read as a free-form map."""
    raw = raw if isinstance(raw, dict) else {}

    def as_text(value: Any) -> str:
        if isinstance(value, str):
            return value
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else ""

    versions: tuple[str, ...] | None = ()
    if "apiVersions" in raw:
        listed = raw["apiVersions"]
        versions = (
            tuple(item for item in listed if isinstance(item, str))
            if isinstance(listed, list)
            else None
        )
    return Capabilities(
        as_text(raw.get("majorVersion")), as_text(raw.get("minorVersion")), versions
    )


def _test(decoder: Decoder, index: int, node: Node) -> TestJob:
    fields = decoder.fields(node, "unittest.TestJob")
    selector = _test_selector(decoder, fields.get("documentSelector"))
    capabilities_node = fields.get("capabilities")
    return TestJob(
        index=index,
        name=decoder.string(fields.get("it")),
        assertions=_assertions(fields.get("asserts")),
        values=decoder.strings(fields.get("values")),
        set=decoder.any_map(fields.get("set")),
        template=decoder.string(fields.get("template")),
        templates=decoder.strings(fields.get("templates")),
        document_index=decoder.integer(fields.get("documentIndex")),
        document_selector=selector,
        release=_release(decoder, fields.get("release")),
        capabilities=_test_capabilities(
            build_value(capabilities_node) if capabilities_node is not None else {}
        ),
        chart=_chart(decoder, fields.get("chart")),
        skip_reason=decoder.string(decoder.fields(fields.get("skip"), "struct").get("reason")),
        kubernetes_provider=parse_provider(decoder, fields.get("kubernetesProvider")),
        post_renderer=_post_renderer(decoder, fields.get("postRenderer")),
    )


def _test_selector(decoder: Decoder, node: Node | None) -> DocumentSelector | None:
    if node is None:
        return None
    fields = decoder.fields(node, "valueutils.DocumentSelector")
    value_node = fields.get("value")
    return DocumentSelector(
        path=decoder.string(fields.get("path")),
        value=build_value(value_node) if value_node is not None else None,
        match_many=decoder.boolean(fields.get("matchMany")),
        skip_empty_templates=decoder.boolean(fields.get("skipEmptyTemplates")),
    )


def _assertions(node: Node | None) -> tuple[AssertionSpec, ...]:
    if node is None or not isinstance(node, SequenceNode):
        return ()
    specs = []
    for index, item in enumerate(node.value):
        raw = build_value(item)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            raise SuiteError(
                f"yaml: unmarshal errors:\n  line {item.start_mark.line + 1}: "
                f"cannot unmarshal into map[string]interface {{}}"
            )
        specs.append(parse_assertion(index, raw))
    return tuple(specs)


def parse_assertion(index: int, definition: dict[Any, Any]) -> AssertionSpec:
    """Assertion.UnmarshalYAML: one assertion type key plus `not`, `template`, `document*`."""
    document_index = definition.get("documentIndex")
    selector = definition.get("documentSelector")
    parsed_selector = None
    if isinstance(selector, dict) and all(isinstance(key, str) for key in selector):
        if not isinstance(selector.get("path"), str):
            raise SuiteError("empty 'documentSelector.path' not supported")
        parsed_selector = DocumentSelector(
            selector["path"],
            selector.get("value"),
            selector.get("matchMany") is True,
            selector.get("skipEmptyTemplates") is True,
        )
    types = [name for name in ASSERTION_KINDS if name in definition]
    if len(types) > 1:
        raise SuiteError(f"assertion type `{types[0]}` and `{types[1]}` is declared duplicately")
    if not types:
        for key in definition:
            if key not in ("template", "documentIndex", "not"):
                raise SuiteError(f"Assertion type `{key}` is invalid")
        raise SuiteError("no assertion type defined")
    kind = ASSERTION_KINDS[types[0]]
    try:
        params = decode_params(definition[types[0]], kind.params)
    except ParamError as exc:
        raise SuiteError(str(exc)) from None
    negated = definition.get("not")
    template = definition.get("template")
    return AssertionSpec(
        index=index,
        assert_type=types[0],
        params=params,
        negated=negated if isinstance(negated, bool) else False,
        template=template if isinstance(template, str) else "",
        document_index=document_index if type(document_index) is int else -1,
        document_selector=parsed_selector,
    )
