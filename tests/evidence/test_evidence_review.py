"""Test evidence of a whole review: a real git history, real Helm renders, the chart's real suites.

One change to one chart exercises every outcome at once: a default the tests assert (stale), a
default no test asserts (unguarded), a default that makes a `notExists` pass trivially (vacuous),
a subchart value asserted through the parent's suite, tests added and removed, a suite broken.
"""

from __future__ import annotations

import textwrap

import pytest

from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.tests import (
    Coverage,
    GuardTarget,
    ProblemKind,
    RunStatus,
    TestChange,
    TestStatus,
)
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.testing.tests import (
    collect_test_evidence,
    collect_test_evidence_for_refs,
    materialize_charts,
)
from charts import chart_yaml
from gitrepo import commit, make_repo

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: app
          image: {{ .Values.image | quote }}
          env:
            - name: MODE
              value: {{ .Values.mode | quote }}
          {{- if .Values.probe }}
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
          {{- end }}
"""
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  level: {{ .Values.level | quote }}\n"
SUB_CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sub\ndata:\n  size: {{ .Values.size | quote }}\n"

SUITE = """\
suite: deployment
templates: [templates/deployment.yaml]
tests:
  - it: runs two replicas
    asserts:
      - equal: {path: spec.replicas, value: 2}
  - it: runs the replicas it is given
    set: {replicas: 2}
    asserts:
      - equal: {path: spec.replicas, value: 2}
  - it: runs the pinned image
    asserts:
      - isKind: {of: Deployment}
      - equal: {path: 'spec.template.spec.containers[?(@.name == "app")].image', value: "nginx:1.27.0"}
  - it: runs in fast mode
    asserts:
      - equal:
          path: spec.template.spec.containers[0].env
          value: [{name: MODE, value: fast}]
  - it: has no readiness probe when disabled
    set: {probe: false}
    asserts:
      - notExists: {path: 'spec.template.spec.containers[0].readinessProbe'}
  - it: is removed at head
    asserts:
      - exists: {path: metadata.name}
"""
SUB_SUITE = """\
suite: subchart
templates: [charts/sub/templates/cm.yaml]
tests:
  - it: sizes the subchart small
    asserts:
      - equal: {path: 'data["size"]', value: small}
"""
SETTINGS_SUITE = """\
suite: settings
templates: [templates/configmap.yaml]
tests:
  - it: takes a custom level
    set: {level: custom}
    asserts:
      - equal: {path: data.level, value: custom}
"""


def _files(values: str, suite: str) -> dict[str, str]:
    return {
        "charts/web/Chart.yaml": chart_yaml("web"),
        "charts/web/values.yaml": values,
        "charts/web/templates/deployment.yaml": DEPLOYMENT,
        "charts/web/templates/configmap.yaml": CONFIGMAP,
        "charts/web/tests/deployment_test.yaml": suite,
        "charts/web/tests/sub_test.yaml": SUB_SUITE,
        "charts/web/tests/settings_test.yaml": SETTINGS_SUITE,
        "charts/web/charts/sub/Chart.yaml": chart_yaml("sub"),
        "charts/web/charts/sub/values.yaml": "size: small\n",
        "charts/web/charts/sub/templates/cm.yaml": SUB_CONFIGMAP,
    }


BASE_VALUES = (
    "replicas: 2\nimage: nginx:1.27.0\nmode: fast\nprobe: true\nlevel: info\nsub: {size: small}\n"
)
HEAD_VALUES = (
    "replicas: 3\nimage: nginx:1.27.0\nmode: slow\nprobe: false\nlevel: debug\nsub: {size: large}\n"
)
HEAD_SUITE = SUITE.replace(
    "  - it: is removed at head\n    asserts:\n      - exists: {path: metadata.name}\n",
    "  - it: is added at head\n    asserts:\n      - isKind: {of: Deployment}\n",
)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    repo = make_repo(tmp_path_factory.mktemp("evidence"))
    base = commit(repo, _files(BASE_VALUES, SUITE), "feat: web chart")
    head = commit(repo, _files(HEAD_VALUES, HEAD_SUITE), "feat: new defaults")
    return repo, base, head


@pytest.fixture(scope="module")
def evidence(history, renderer):
    repo, base, head = history
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    return review, collect_test_evidence_for_refs(repo, base, head, review.chart_reviews, renderer)


def _chart(evidence):
    (chart,) = evidence[1].charts
    return chart


def _tests(chart):
    return {(t.suite_file, t.test): t for t in chart.tests}


def _problems(chart, kind):
    return [p for p in chart.problems if p.kind is kind]


def test_outcomes_at_base_and_head_are_compared_test_by_test(evidence):
    chart = _chart(evidence)
    tests = _tests(chart)
    assert (
        chart.chart == "charts/web"
        and chart.base.status is RunStatus.RAN
        and chart.head.status is RunStatus.RAN
    )
    assert (
        tests[("tests/deployment_test.yaml", "runs two replicas")].change
        is TestChange.NEWLY_FAILING
    )
    assert (
        tests[("tests/deployment_test.yaml", "runs two replicas")].head.failure
        == "asserts[0] equal spec.replicas: expected 2, got 3"
    )
    assert (
        tests[("tests/deployment_test.yaml", "runs in fast mode")].change
        is TestChange.NEWLY_FAILING
    )
    assert (
        tests[("tests/deployment_test.yaml", "runs the pinned image")].change
        is TestChange.UNCHANGED
    )
    assert tests[("tests/deployment_test.yaml", "is removed at head")].change is TestChange.REMOVED
    assert tests[("tests/deployment_test.yaml", "is added at head")].change is TestChange.ADDED
    assert (
        tests[("tests/sub_test.yaml", "sizes the subchart small")].change
        is TestChange.NEWLY_FAILING
    )


def test_a_suite_broken_at_head_is_an_error_never_a_pass(tmp_path, renderer):
    """The runner stops loading a chart's suites at an unparsable file: every test of it errs at head."""
    repo = make_repo(tmp_path)
    suite = "suite: s\ntemplates: [templates/cm.yaml]\ntests:\n  - it: names the map\n    asserts:\n      - exists: {path: metadata.name}\n"
    files = {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "level: info\n",
        "c/templates/cm.yaml": CONFIGMAP,
        "c/tests/cm_test.yaml": suite,
    }
    base = commit(repo, files, "feat: c")
    head = commit(
        repo,
        {"c/values.yaml": "level: debug\n", "c/tests/cm_test.yaml": suite + "  - it: [\n"},
        "feat: debug",
    )
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (chart,) = collect_test_evidence_for_refs(
        repo, base, head, review.chart_reviews, renderer
    ).charts
    (test,) = chart.tests
    assert (test.test, test.change, test.head.status) == (
        "names the map",
        TestChange.NEWLY_FAILING,
        TestStatus.ERRORED,
    )
    assert test.head.failure == "yaml: line 8: did not find expected node content"
    assert chart.head.status is RunStatus.ERRORED
    assert [e.suite_file for e in chart.head.suite_errors] == ["tests/cm_test.yaml"]
    assert chart.base.status is RunStatus.RAN and chart.base.suite_errors == ()


def test_a_default_asserted_only_under_other_values_is_unguarded(evidence):
    chart = _chart(evidence)
    unguarded = {
        (p.object_id, p.field_path): p.detail for p in _problems(chart, ProblemKind.UNGUARDED)
    }
    assert unguarded == {
        (
            "core/ConfigMap/default/release-settings",
            "data.level",
        ): 'changed from "info" to "debug"; 1 assertion(s) check this location only under other values'
    }
    (guard,) = [g for g in chart.guards if g.field_path == "data.level"]
    assert [(p.assertion.test, p.coverage, p.same_value) for p in guard.pins] == [
        ("takes a custom level", Coverage.EXACT, False)
    ]


def test_guard_map_links_fields_to_the_assertions_that_pin_them(evidence):
    chart = _chart(evidence)
    guards = {(g.object_id, g.field_path): g for g in chart.guards}
    deployment = "apps/Deployment/default/release-web"
    replicas = guards[(deployment, "spec.replicas")]
    assert replicas.target is GuardTarget.FIELD_MODIFIED and replicas.location == "spec.replicas"
    assert [
        (p.assertion.test, p.assertion.assert_type, p.coverage, p.same_value) for p in replicas.pins
    ] == [
        (
            "runs two replicas",
            "equal",
            Coverage.EXACT,
            True,
        ),  # it fails at head, on the value head renders
        ("runs the replicas it is given", "equal", Coverage.EXACT, False),
    ]  # its own value: not the default
    assert replicas.pins[0].assertion.template == "charts/web/templates/deployment.yaml"
    mode = guards[(deployment, "spec.template.spec.containers[name=app].env[name=MODE].value")]
    assert mode.location == "spec.template.spec.containers[0].env[0].value"
    assert [
        (p.assertion.test, p.assertion.location, p.coverage, p.same_value) for p in mode.pins
    ] == [("runs in fast mode", "spec.template.spec.containers[0].env", Coverage.ENCLOSING, True)]
    probe = guards[(deployment, "spec.template.spec.containers[name=app].readinessProbe")]
    assert probe.target is GuardTarget.FIELD_REMOVED and probe.side.value == "base"
    assert [(p.assertion.test, p.same_value) for p in probe.pins] == [
        ("has no readiness probe when disabled", False)
    ]
    size = guards[("core/ConfigMap/default/release-sub", "data.size")]
    assert [(p.assertion.template, p.assertion.path) for p in size.pins] == [
        ("charts/web/charts/sub/templates/cm.yaml", 'data["size"]')
    ]


def test_tests_still_expecting_the_base_value_are_stale(evidence):
    chart = _chart(evidence)
    stale = {
        (p.field_path, p.assertion.test): p.detail for p in _problems(chart, ProblemKind.STALE)
    }
    assert stale == {
        (
            "spec.replicas",
            "runs two replicas",
        ): "`equal spec.replicas` still expects 2, the base value; head renders 3; the test fails at head",
        (
            "spec.template.spec.containers[name=app].env[name=MODE].value",
            "runs in fast mode",
        ): '`equal spec.template.spec.containers[0].env` still expects [{"name": "MODE", "value": "fast"}], '
        'the base value; head renders [{"name": "MODE", "value": "slow"}]; the test fails at head',
        (
            "data.size",
            "sizes the subchart small",
        ): '`equal data["size"]` still expects "small", the base value; head renders "large"; the test fails at head',
    }


def test_an_assertion_on_a_path_gone_at_head_is_vacuous(evidence):
    chart = _chart(evidence)
    (vacuous,) = _problems(chart, ProblemKind.VACUOUS)
    assert vacuous.assertion.test == "has no readiness probe when disabled"
    assert vacuous.field_path == "spec.template.spec.containers[name=app].readinessProbe"
    assert vacuous.assertion.location == "spec.template.spec.containers[0].readinessProbe"
    assert (
        vacuous.detail
        == "`notExists spec.template.spec.containers[0].readinessProbe` passes only because the path no longer exists at head"
    )


def test_the_review_workspace_and_fresh_materialisation_give_the_same_evidence(
    history, evidence, renderer, tmp_path
):
    """collect_test_evidence runs on roots laid out as the review lays them out."""
    repo, base, head = history
    review, expected = evidence
    git = GitRepository.open(repo)
    for sha, side in ((base, "base"), (head, "head")):
        with RefSnapshot.open(git, sha, side, 2**20) as tree:
            materialize_charts(tree, ["charts/web"], tmp_path / side)
    again = collect_test_evidence(
        review.chart_reviews, tmp_path / "base", tmp_path / "head", renderer
    )
    assert again.charts == expected.charts
    assert (tmp_path / "head" / "charts/web/tests/sub_test.yaml").is_file()


def test_a_chart_without_suites_is_listed_untested(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "level: info\n",
        "c/templates/cm.yaml": CONFIGMAP,
    }
    base = commit(repo, files, "feat: c")
    head = commit(repo, {"c/values.yaml": "level: debug\n"}, "feat: debug")
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    found = collect_test_evidence_for_refs(repo, base, head, review.chart_reviews, renderer)
    assert (found.charts, found.untested, found.renders) == ((), ("c",), 0)


def test_skipped_and_unchanged_tests_are_not_failures_and_no_pin_is_unguarded(tmp_path, renderer):
    repo = make_repo(tmp_path)
    suite = textwrap.dedent("""\
        suite: s
        templates: [templates/cm.yaml]
        tests:
          - it: is skipped
            skip: {reason: not yet}
            asserts: [{equal: {path: data.level, value: nope}}]
          - it: names the map
            asserts: [{exists: {path: metadata.name}}]
        """)
    files = {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "level: info\n",
        "c/templates/cm.yaml": CONFIGMAP,
        "c/tests/cm_test.yaml": suite,
    }
    base = commit(repo, files, "feat: c")
    head = commit(repo, {"c/values.yaml": "level: debug\n"}, "feat: debug")
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (chart,) = collect_test_evidence_for_refs(
        repo, base, head, review.chart_reviews, renderer
    ).charts
    assert {t.test: (t.change, t.head.status) for t in chart.tests} == {
        "is skipped": (TestChange.UNCHANGED, TestStatus.SKIPPED),
        "names the map": (TestChange.NOT_COMPARED, TestStatus.PASSED),
    }
    assert (chart.head.passed, chart.head.skipped) == (1, 1)
    # data.level changed and only metadata.name is asserted: unguarded, even with a passing suite
    assert [(p.kind, p.field_path, p.detail) for p in chart.problems] == [
        (
            ProblemKind.UNGUARDED,
            "data.level",
            'changed from "info" to "debug"; no test assertion pins it',
        )
    ]


ALIASED_PARENT = {
    "p/Chart.yaml": chart_yaml(
        "p", deps="dependencies:\n- name: sub\n  alias: small\n  version: 0.1.0\n"
    ),
    "p/templates/cm.yaml": "{{- if .Values.cm }}\n" + CONFIGMAP + "{{- end }}\n",
    "p/charts/sub/Chart.yaml": chart_yaml("sub"),
    "p/charts/sub/values.yaml": "size: s\n",
    "p/charts/sub/templates/cm.yaml": SUB_CONFIGMAP,
    "p/tests/p_test.yaml": textwrap.dedent("""\
        suite: p
        tests:
          - it: the settings are not debug
            template: templates/cm.yaml
            asserts:
              - notEqual: {path: data.level, value: debug}
          - it: the aliased subchart is small
            template: charts/small/templates/cm.yaml
            asserts:
              - equal: {path: data.size, value: s}
        """),
}


def test_aliased_subcharts_and_removed_objects(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**ALIASED_PARENT, "p/values.yaml": "cm: true\nlevel: info\nsmall: {size: s}\n"},
        "feat: p",
    )
    head = commit(
        repo, {"p/values.yaml": "cm: false\nlevel: info\nsmall: {size: m}\n"}, "feat: no settings"
    )
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (chart,) = collect_test_evidence_for_refs(
        repo, base, head, review.chart_reviews, renderer
    ).charts
    guards = {(g.object_id, g.field_path): g for g in chart.guards}
    removed = guards[("core/ConfigMap/default/release-settings", "")]
    assert (removed.target, removed.side.value) == (GuardTarget.OBJECT_REMOVED, "base")
    assert [(p.assertion.test, p.assertion.location, p.coverage) for p in removed.pins] == [
        ("the settings are not debug", "data.level", Coverage.PARTIAL)
    ]
    size = guards[("core/ConfigMap/default/release-sub", "data.size")]
    assert [(p.assertion.template, p.coverage) for p in size.pins] == [
        ("p/charts/sub/templates/cm.yaml", Coverage.EXACT)
    ]
    problems = {(p.kind, p.assertion.test if p.assertion else None) for p in chart.problems}
    assert problems == {
        (ProblemKind.VACUOUS, "the settings are not debug"),
        (ProblemKind.STALE, "the aliased subchart is small"),
    }
    tests = {t.test: t.change for t in chart.tests}
    assert tests == {
        "the settings are not debug": TestChange.UNCHANGED,
        "the aliased subchart is small": TestChange.NEWLY_FAILING,
    }


RANDOM_SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  token: {{ randAlphaNum 16 | quote }}\n"
RANDOM_SUITE = """\
suite: secret
templates: [templates/secret.yaml]
tests:
  - it: has a token
    asserts:
      - isNotNullOrEmpty: {path: stringData.token}
  - it: has a token of 16 characters
    set: {unused: 1}
    asserts:
      - matchRegex: {path: stringData.token, pattern: "^[A-Za-z0-9]{16}$"}
"""


def test_a_test_with_the_same_inputs_at_base_and_head_is_rendered_once(tmp_path, renderer):
    """Only a suite changes (Helm ignores tests/ here): the tests whose inputs are the same at both
    refs are rendered once for both, even of a template drawing a random token (no difference can come
    of the draw); the added test is rendered at head."""
    repo = make_repo(tmp_path)
    files = {
        "charts/app/Chart.yaml": chart_yaml("app"),
        "charts/app/values.yaml": "unused: 0\n",
        "charts/app/.helmignore": "tests/\n",
        "charts/app/templates/secret.yaml": RANDOM_SECRET,
        "charts/app/tests/secret_test.yaml": RANDOM_SUITE,
    }
    base = commit(repo, files, "base")
    added = "  - it: has a token with other values\n    set: {unused: 2}\n    asserts:\n      - isNotNullOrEmpty: {path: stringData.token}\n"
    head = commit(
        repo, {"charts/app/tests/secret_test.yaml": RANDOM_SUITE + added}, "test: one more"
    )
    review = run_review(ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer)
    found = collect_test_evidence_for_refs(repo, base, head, review.chart_reviews, renderer)
    assert (
        found.tests_rendered == 5 and found.renders == 3
    )  # two inputs at both refs, one more at head
    (chart,) = found.charts
    assert sorted((t.test, t.change) for t in chart.tests) == [
        ("has a token", TestChange.UNCHANGED),
        ("has a token of 16 characters", TestChange.UNCHANGED),
        ("has a token with other values", TestChange.ADDED),
    ]


FILES_CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-files
data:
  level: {{ .Values.level | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
  {{- range $path, $_ := .Files.Glob "files/*" }}
  {{ base $path }}: {{ $.Files.Get $path | quote }}
  {{- end }}
"""
FILES_SUITE = """\
suite: files
templates: [templates/cm.yaml]
tests:
  - it: sees the default Kubernetes version
    asserts:
      - equal: {path: data.minor, value: "20"}
  - it: reads its files
    asserts:
      - equal: {path: 'data["a.txt"]', value: hello}
  - it: sees the Kubernetes version it sets
    capabilities: {majorVersion: "1", minorVersion: "25"}
    asserts:
      - equal: {path: data.minor, value: "25"}
"""


def test_a_values_comment_in_a_chart_reading_files_shares_every_test_render(tmp_path, renderer):
    """The chart reads `.Files`, but Helm never puts values.yaml among them: a comment added there
    changes no test's inputs, so each test is rendered once for both refs. Each ref's suites are
    their own run: the Kubernetes version the base's last test sets does not reach the head's first."""
    repo = make_repo(tmp_path)
    files = {
        "charts/app/Chart.yaml": chart_yaml("app"),
        "charts/app/values.yaml": "level: info\n",
        "charts/app/.helmignore": "tests/\n",
        "charts/app/files/a.txt": "hello",
        "charts/app/templates/cm.yaml": FILES_CONFIGMAP,
        "charts/app/tests/cm_test.yaml": FILES_SUITE,
    }
    base = commit(repo, files, "base")
    head = commit(repo, {"charts/app/values.yaml": "# the level\nlevel: info\n"}, "docs: values")
    request = ReviewRequest(repo=repo, base=base, head=head, base_tests="all")
    found = run_review(request, renderer).tests
    assert found is not None
    assert (found.tests_rendered, found.renders) == (6, 2)  # two inputs, the same at both refs
    (chart,) = found.charts
    assert (chart.base.passed, chart.head.passed) == (3, 3)
    assert {t.change for t in chart.tests} == {TestChange.UNCHANGED}


def test_a_change_shown_only_in_a_toggle_scenario_is_mapped_there(tmp_path, renderer):
    """Issue 32, item 5: the change shows in no object of the default scenario (its toggle is off),
    only in the scenario that turns it on; the guard map reads that scenario and names the changed
    field no test asserts."""
    repo = make_repo(tmp_path)
    toggled = "{{- if .Values.extra.enabled }}\n" + CONFIGMAP + "{{- end }}\n"
    suite = textwrap.dedent("""\
        suite: s
        templates: [templates/cm.yaml]
        tests:
          - it: renders when enabled
            set: {extra.enabled: true}
            asserts: [{exists: {path: metadata.name}}]
        """)
    files = {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "level: info\nextra:\n  enabled: false\n",
        "c/templates/cm.yaml": toggled,
        "c/tests/cm_test.yaml": suite,
    }
    base = commit(repo, files, "feat: c")
    head = commit(repo, {"c/values.yaml": "level: debug\nextra:\n  enabled: false\n"}, "debug")
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (chart,) = review.tests.charts
    assert [(p.kind, p.field_path) for p in chart.problems] == [
        (ProblemKind.UNGUARDED, "data.level")
    ]
