"""Scenarios from a chart's helm-unittest suites wherever its CI's `-f` patterns find them, and what a
scenario whose base could not render a template says of that template's objects. Real git, real Helm."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change, run_review
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import app_chart, chart_yaml, library_and_app
from gitrepo import commit, make_repo

SUITE = """\
suite: deployment
templates: [deployment.yaml]
tests:
  - it: runs the {tag} image
    set:
      image: nginx:1.29.0-{tag}
    asserts:
      - isKind: {{of: Deployment}}
"""

WORKFLOW = """\
jobs:
  unittest:
    runs-on: ubuntu-latest
    steps:
      - run: helm unittest -f "unittests/**/*_test.yaml" c
"""


def _suites(ci: bool) -> dict[str, str]:
    files = {
        **app_chart("c", "c"),
        # two suites of one file name in two folders: their tests are told apart by the folder
        "c/unittests/canary/deployment_test.yaml": SUITE.format(tag="canary"),
        "c/unittests/beta/deployment_test.yaml": SUITE.format(tag="beta"),
    }
    return {**files, ".github/workflows/test.yaml": WORKFLOW} if ci else files


def _strip_suffix(repo) -> None:
    deployment = app_chart("c", "c")["c/templates/deployment.yaml"].replace(
        'image: "{{ .Values.image }}"', 'image: "{{ .Values.image | replace "-canary" "" }}"'
    )
    commit(repo, {"c/templates/deployment.yaml": deployment}, "fix: strip the canary suffix")


def test_suites_the_ci_patterns_find_outside_tests_become_scenarios(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _suites(ci=True), "feat: chart")
    _strip_suffix(repo)
    doc = review_document(run_review(ReviewRequest(repo=repo, base=base), renderer))
    (summary,) = doc["scenarios"]
    assert "test:unittests/canary/deployment_test.yaml/runs the canary image" in summary["ran"]
    assert "test:unittests/beta/deployment_test.yaml/runs the beta image" in summary["ran"]
    assert summary["changed_in"] == [
        "test:unittests/canary/deployment_test.yaml/runs the canary image"
    ]


def test_without_the_ci_patterns_only_helm_unittests_default_folder_is_read(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _suites(ci=False), "feat: chart")
    _strip_suffix(repo)
    doc = review_document(run_review(ReviewRequest(repo=repo, base=base), renderer))
    (summary,) = doc["scenarios"]
    assert not [s for s in summary["ran"] if s.startswith("test:")]


WORKER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata:
      labels: {app: worker}
      annotations: {region: "REGION"}
    spec:
      containers: [{name: worker, image: "busybox:1.36"}]
"""


def test_a_template_that_failed_at_base_has_its_objects_judged_as_they_stand(tmp_path, renderer):
    """No base to compare with: its Deployment shows as added in the diff, but no rule calls what it
    holds new (a workload without probes it may have had for years)."""
    repo = make_repo(tmp_path)
    broken = WORKER.replace('"REGION"', '{{ index .Values.global.platform "region" }}')
    base = commit(repo, {**app_chart("c", "c"), "c/templates/worker.yaml": broken}, "feat")
    commit(repo, {"c/templates/worker.yaml": WORKER.replace("REGION", "eu-de-1")}, "fix: region")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (review,) = [r for r in result.review.chart_reviews if r.scenario == "default"]
    (repaired,) = review.templates_fixed_at_head
    assert repaired.template == "c/templates/worker.yaml"
    assert [(c.key.name, c.kind.value) for c in review.changes] == [("worker", "added")]
    probes = [f for f in result.judgement.findings if f.rule_id == "new-workload-without-probes"]
    assert probes == []
    said = render_markdown(review_document(result.review, result.judgement)).replace("\\", "")
    assert "1 template(s) fixed: failed at base, render at head: c/templates/worker.yaml" in said


def _define(name: str, key: str, mode: str) -> str:
    return (
        f'{{{{- define "lib.{name}" -}}}}\n'
        f"{{{{- if .Values.{key}.enabled }}}}\n"
        f"{key}Mode: {mode}-{{{{ .Values.{key}.size }}}}\n"
        "{{- end }}\n"
        "{{- end }}\n"
    )


def test_a_librarys_edited_lines_choose_the_scenarios_and_a_second_round_runs_what_the_first_did_not(
    tmp_path, renderer
):
    """The harness renders the library's named templates: the fields their changed lines read rank
    the harness's scenarios (alpha first, past `aaa` that sets nothing of them), and with room for
    one scenario beside the defaults, the second round renders beta for the lines alpha left unrun."""
    configmap = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n"
        '  {{- include "lib.alpha" . | nindent 2 }}\n  {{- include "lib.beta" . | nindent 2 }}\n'
    )
    app = {
        "values.yaml": "alpha: {enabled: false, size: 1}\nbeta: {enabled: false, size: 1}\n",
        "templates/cm.yaml": configmap,
        "ci/aaa-values.yaml": "unrelated: true\n",
        "ci/alpha-values.yaml": "alpha: {enabled: true}\n",
        "ci/beta-values.yaml": "beta: {enabled: true}\n",
    }
    library = {
        "templates/_alpha.tpl": _define("alpha", "alpha", "a"),
        "templates/_beta.tpl": _define("beta", "beta", "a"),
    }
    repo = make_repo(tmp_path)
    base = commit(repo, library_and_app(library, app), "feat: library and harness")
    commit(
        repo,
        {
            "lib/templates/_alpha.tpl": _define("alpha", "alpha", "b"),
            "lib/templates/_beta.tpl": _define("beta", "beta", "b"),
        },
        "feat: mode b",
    )
    result = run_review(
        ReviewRequest(repo=repo, base=base, run_tests=False, max_scenarios=2), renderer
    )
    doc = review_document(result)
    (summary,) = [s for s in doc["scenarios"] if s["chart"] == "app"]
    assert summary["ran"] == ["default", "file:ci/alpha-values.yaml", "file:ci/beta-values.yaml"]
    assert summary["cut"] == ["file:ci/aaa-values.yaml"]
    assert [n["part"] for n in doc["not_reviewed"]] == []


HARNESS_DEPENDENCY = "dependencies:\n  - name: lib\n    version: 0.1.0\n    repository: file://..\n"


def test_a_test_harness_gaining_a_fixture_is_no_new_workload(tmp_path, renderer):
    """bjw-s keeps `common/test-chart` inside the library it renders: its objects are fixtures,
    installed nowhere, so a workload its change adds is no new workload lacking probes."""
    deployment = WORKER.replace('"REGION"', '"eu-de-1"')
    files = {
        "lib/Chart.yaml": chart_yaml("lib", kind="library"),
        "lib/templates/_x.tpl": '{{- define "lib.x" }}x: 1{{- end }}\n',
        "lib/test-chart/Chart.yaml": chart_yaml("lib-test", deps=HARNESS_DEPENDENCY),
        "lib/test-chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    }
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: library and its harness")
    commit(repo, {"lib/test-chart/templates/worker.yaml": deployment}, "test: a worker fixture")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (review,) = [r for r in result.review.chart_reviews if r.chart == "lib/test-chart"]
    assert [(c.key.name, c.kind.value) for c in review.changes] == [("worker", "added")]
    rules = {f.rule_id for f in result.judgement.findings if f.actionable}
    assert "new-workload-without-probes" not in rules
