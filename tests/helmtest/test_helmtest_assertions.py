"""helm-unittest assertions evaluated on given rendered output (no Helm needed here)."""

from __future__ import annotations

import textwrap

import pytest

from aftershock.gocompat.goregex import ENGINE
from aftershock.helmtest.job import JobRender, run_job
from aftershock.helmtest.suite import parse_suite_text
from aftershock.model.test_results import JobStatus, TestResult

DEPLOYMENT = textwrap.dedent("""\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      labels: {app: web, tier: front}
    spec:
      replicas: 2
      ratio: 0.5
      template:
        spec:
          containers:
            - name: app
              image: nginx:1.25
              ports:
                - {name: http, containerPort: 80}
                - {name: https, containerPort: 443}
    ---
    apiVersion: v1
    kind: Service
    metadata:
      name: web
    """)
OUTPUTS = {"c/templates/deploy.yaml": DEPLOYMENT, "c/templates/NOTES.txt": "Visit http://web\n"}


def _run(asserts: str, render: JobRender | None = None) -> TestResult:
    text = (
        "suite: s\ntemplates: [deploy.yaml]\ntests:\n  - it: t\n    asserts:\n"
        + textwrap.indent(textwrap.dedent(asserts), "      ")
    )
    suite = parse_suite_text(text, "/nowhere/s_test.yaml", "c")
    assert suite is not None
    return run_job(suite, suite.tests[0], render or JobRender(outputs=OUTPUTS), "c", None)


def _outcomes(result: TestResult) -> list[bool]:
    return [assertion.passed for assertion in result.assertions]


def test_equal_is_go_deep_equality_per_document():
    result = _run("""\
        - equal: {path: spec.replicas, value: 2}
          documentIndex: 0
        - equal: {path: spec.replicas, value: 2.0}
          documentIndex: 0
        - notEqual: {path: metadata.name, value: api}
        - equal: {path: metadata.name, value: web}
        - equal: {path: kind, value: Deployment}
        - equal: {path: kind, value: Deployment}
          not: true
          documentIndex: 1
        """)
    assert _outcomes(result) == [True, False, True, True, False, True]
    assert result.status == JobStatus.FAILED
    failure = result.assertions[1]
    assert failure.title == "- asserts[1] `equal` fail"
    # Both print as "2", so the diff is empty: only their Go types differ.
    assert failure.fail_info == (
        "Template:\tc/templates/deploy.yaml",
        "DocumentIndex:\t0",
        "ValuesIndex:\t0",
        "Path:\tspec.replicas",
        "Expected to equal:",
        "\t2",
        "Actual:",
        "\t2",
        "Diff:",
        "\t",
    )
    checked = failure.checked[0]
    assert (checked.template, checked.document_index, checked.path, checked.actual) == (
        "c/templates/deploy.yaml",
        0,
        "spec.replicas",
        2,
    )


def test_collections_regex_types_and_documents():
    result = _run("""\
        - contains:
            path: spec.template.spec.containers[0].ports
            content: {name: http}
            any: true
            count: 1
          documentIndex: 0
        - notContains:
            path: spec.template.spec.containers[0].ports
            content: {name: http, containerPort: 8080}
          documentIndex: 0
        - isSubset: {path: metadata.labels, content: {app: web}}
          documentIndex: 0
        - matchRegex: {path: "spec.template.spec.containers[0].image", pattern: "^nginx:1\\\\.2"}
          documentIndex: 0
        - isType: {path: spec.ratio, type: float64}
          documentIndex: 0
        - lengthEqual: {path: "spec.template.spec.containers[0].ports", count: 2}
          documentIndex: 0
        - hasDocuments: {count: 2}
          template: deploy.yaml
        - isKind: {of: Service}
          documentSelector: {path: metadata.name, value: web, matchMany: true}
        - containsDocument: {kind: Service, apiVersion: v1, name: web, any: true}
          template: deploy.yaml
        - matchRegexRaw: {pattern: "http://web"}
          template: NOTES.txt
        - greaterOrEqual: {path: spec.replicas, value: 3}
          documentIndex: 0
        - notGreaterOrEqual: {path: spec.replicas, value: 1}
          documentIndex: 0
        """)
    # isKind fails on the Deployment; greaterOrEqual fails (2 < 3); upstream's
    # notGreaterOrEqual passes whatever the values (an operator-precedence quirk, kept).
    assert _outcomes(result) == [
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        False,
        True,
        True,
        False,
        True,
    ]


def test_unknown_paths_fail_and_empty_counts_as_null():
    result = _run("""\
        - exists: {path: spec.nothing}
          documentIndex: 0
        - notExists: {path: spec.nothing}
          documentIndex: 0
        - isNullOrEmpty: {path: spec.nothing}
          documentIndex: 0
        - isNullOrEmpty: {path: spec.template.spec.volumes}
          documentIndex: 0
        """)
    assert _outcomes(result) == [False, True, False, False]
    assert result.assertions[2].fail_info[-1] == "\tunknown path spec.nothing"


@pytest.mark.skipif(ENGINE != "re2", reason="Go's regexp syntax needs the google-re2 package")
def test_regex_syntax_is_go_re2():
    result = _run("""\
        - matchRegex: {path: metadata.name, pattern: "(?=web)"}
          documentIndex: 0
        - matchRegex: {path: metadata.name, pattern: '^[[:lower:]]+\\z'}
          documentIndex: 0
        """)
    assert _outcomes(result) == [False, True]
    assert "error parsing regexp" in "\n".join(result.assertions[0].fail_info)


def test_failed_template_matches_the_message_helm_unittest_cuts_out():
    error = "execution error at (c/templates/deploy.yaml:3:5): replicas must be set"
    render = JobRender(error=error)
    result = _run(
        """\
        - failedTemplate: {errorMessage: replicas must be set}
          template: deploy.yaml
        - failedTemplate: {errorPattern: "must be"}
          template: deploy.yaml
        - failedTemplate: {}
          template: deploy.yaml
        """,
        render,
    )
    assert result.passed and result.exec_error is None
    without = _run("- equal: {path: kind, value: Deployment}\n", render)
    assert without.status == JobStatus.ERRORED and without.exec_error == error
    schema = "values don't meet the specifications of the schema(s) in the following chart(s):"
    values_failure = _run(
        '- failedTemplate: {errorPattern: "specifications"}\n',
        JobRender(error=schema, values_stage=True),
    )
    assert values_failure.passed


def test_missing_template_and_selector_errors():
    result = _run("""\
        - isKind: {of: Deployment}
          template: other.yaml
        - isKind: {of: Deployment}
          documentSelector: {path: metadata.name, value: nothing}
        - isKind: {of: Deployment}
          documentIndex: 5
          template: deploy.yaml
        """)
    assert _outcomes(result) == [False, False, False]
    assert result.assertions[0].fail_info == (
        "Error:",
        '\ttemplate "c/templates/other.yaml" not exists or not selected in test suite',
    )
    assert result.assertions[1].fail_info == ("Error:", "document not found")
    assert result.assertions[2].fail_info == ("Error:", "document index 5 is out of range")
