"""helm-unittest suite files: several suites per file, settings inherited, upstream's errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from aftershock.helmtest.suite import (
    SuiteError,
    effective_capabilities,
    effective_chart,
    effective_release,
    effective_skip_reason,
    parse_suite_file,
    parse_suite_text,
)


def test_several_suites_and_inherited_settings(tmp_path: Path):
    suite_file = tmp_path / "deploy_test.yaml"
    suite_file.write_text(
        textwrap.dedent("""\
        suite: first
        templates: [deployment.yaml]
        release: {name: rel, revision: 3}
        capabilities: {majorVersion: 1, minorVersion: 27, apiVersions: [a/v1]}
        chart: {version: 1.2.3}
        set: {image.tag: v1}
        tests:
          - it: takes the suite settings
            asserts: [{isKind: {of: Deployment}}]
          - it: overrides some
            release: {namespace: ns}
            capabilities: {minorVersion: 29, apiVersions: [b/v1]}
            chart: {appVersion: "2.0"}
            documentIndex: 1
            asserts:
              - equal: {path: metadata.name, value: x}
                not: true
                template: other.yaml
        ---
        # a comment-only part is no suite
        ---
        suite: second
        skip: {reason: not yet}
        tests:
          - it: skipped
            asserts: [{hasDocuments: {count: 1}}]
        """)
    )
    first, second = parse_suite_file(suite_file, "chart")
    plain, custom = first.tests
    assert (first.name, first.templates, dict(first.set)) == (
        "first",
        ("deployment.yaml",),
        {"image.tag": "v1"},
    )
    assert effective_release(first, plain).name == "rel"
    assert effective_release(first, custom).namespace == "ns"
    assert effective_release(first, custom).revision == 3
    assert effective_capabilities(first, plain).api_versions == ("a/v1",)
    own = effective_capabilities(first, custom)
    assert (own.major_version, own.minor_version, own.api_versions) == ("1", "29", ("b/v1", "a/v1"))
    assert effective_chart(first, custom).version == "1.2.3"
    assert effective_chart(first, custom).app_version == "2.0"
    spec = custom.assertions[0]
    assert (spec.assert_type, spec.negated, spec.template, custom.document_index) == (
        "equal",
        True,
        "other.yaml",
        1,
    )
    assert effective_skip_reason(second, second.tests[0]) == "not yet"
    assert first.snapshot_file == tmp_path / "__snapshot__" / "deploy_test.yaml.snap"


def _suite(body: str):
    return parse_suite_text(textwrap.dedent(body), "/x/s_test.yaml", "chart")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("suite: s\n", "no tests found"),
        ("tests:\n  - it: t\n", "no asserts found"),
        ("tests:\n  - it: t\n    asserts: [{bogus: {}}]\n", "Assertion type `bogus` is invalid"),
        ("tests:\n  - it: t\n    asserts: [{not: true}]\n", "no assertion type defined"),
        ("tests:\n  - it: t\n    asserts: [{equal: {}, exists: {}}]\n", "declared duplicately"),
        (
            "tests:\n  - it: t\n    asserts: [{equal: {path: 1}}]\n",
            "'Path' expected type 'string', got unconvertible type 'int'",
        ),
        (
            "templates: a.yaml\ntests:\n  - it: t\n    asserts: [{exists: {path: a}}]\n",
            "cannot unmarshal !!str `a.yaml` into []string",
        ),
    ],
)
def test_upstream_errors(body: str, message: str):
    with pytest.raises(SuiteError) as caught:
        _suite(body)
    assert message in str(caught.value)


def test_minimum_version_and_unset_api_versions():
    suite = _suite("""\
        skip: {minimumVersion: 99.0.0}
        capabilities: {apiVersions: [x/v1]}
        tests:
          - it: t
            capabilities: {apiVersions: }
            asserts: [{exists: {path: a}}]
        """)
    assert suite is not None
    assert "requires minimum unittest plugin version 99.0.0" in suite.skip_reason
    # `apiVersions:` without a value leaves the test with none, not even the suite's.
    assert effective_capabilities(suite, suite.tests[0]).api_versions is None


@pytest.mark.parametrize(
    "text, message",
    [
        # found by tests/fuzz: a duplicate key inside assertion parameters escaped as GoYamlError
        (
            "suite: s\ntests:\n  - it: x\n    asserts:\n      - equal: {path: a, path: b, value: 1}\n",
            'mapping key "path" already defined',
        ),
        # found by tests/fuzz: an int assertion parameter given as .nan or .inf raised a bare ValueError / OverflowError
        (
            "suite: s\ntests:\n  - it: x\n    asserts: [{hasDocuments: {count: .nan}}]\n",
            "'Count' expected type 'int'",
        ),
        (
            "suite: s\ntests:\n  - it: x\n    asserts: [{contains: {path: a, content: 1, count: -.inf}}]\n",
            "'Count' expected type 'int'",
        ),
    ],
)
def test_malformed_parameters_are_suite_errors(text, message):
    with pytest.raises(SuiteError, match=message):
        parse_suite_text(text, "tests/x_test.yaml", "c")


def test_a_linked_subcharts_suite_is_named_where_the_chart_holds_it(tmp_path):
    """A dependency linked in (from the tree at head, from an earlier commit at base) keeps one
    identity: the suite's place inside the chart, not where the link points."""
    from aftershock.helmtest.suite import parse_suite_file
    from aftershock.model.test_results import chart_relative_file

    suite = "suite: s\ntests:\n  - it: works\n    asserts: [{hasDocuments: {count: 1}}]\n"
    for place in ("tree/lib", ".history/abc123/lib"):
        (tmp_path / place / "tests").mkdir(parents=True)
        (tmp_path / place / "tests" / "s_test.yaml").write_text(suite)
    names = set()
    for place in ("tree/lib", ".history/abc123/lib"):
        chart = tmp_path / f"app-{place.count('/')}"
        (chart / "charts").mkdir(parents=True)
        (chart / "charts" / "lib").symlink_to(tmp_path / place)
        (parsed,) = parse_suite_file(chart / "charts" / "lib" / "tests" / "s_test.yaml", "app")
        names.add(chart_relative_file(parsed.file, chart))
    assert names == {"charts/lib/tests/s_test.yaml"}
