"""Inputs a fuzzer found to crash a whole review (issue 31, item 4), and a name Python misread (item 5):
each is reviewed on a real git repository with the embedded Helm, and ends with the part not
reviewed or read as Helm reads it, never with an internal error."""

from __future__ import annotations

import json

from aftershock.ingest.charts import discover_charts
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from charts import chart_yaml
from gitrepo import commit, make_repo

CONFIGMAP = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"
    'data: {a: "{{ .Values.a }}", b: {{ toJson .Values.b | quote }}}\n'
)
SUITE = """\
suite: s
templates: [cm.yaml]
tests:
  - it: renders
    values: [v.yaml]
    asserts: [{hasDocuments: {count: 1}}]
"""


def _chart(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": "a: 1\nb: {c: 1}\n",
        "c/templates/cm.yaml": CONFIGMAP,
        "c/tests/s_test.yaml": SUITE,
        "c/tests/v.yaml": "a: 2\n",
        **(extra or {}),
    }


def test_a_chart_yaml_whose_dependencies_are_not_a_list_is_not_reviewed_not_a_crash(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    commit(repo, _chart(), "base")
    commit(repo, {"c/Chart.yaml": chart_yaml("c") + "dependencies: 5\n"}, "head")
    result = review_change(ReviewRequest(repo=repo, base="HEAD~1", head="HEAD"), renderer)
    reviews = result.review.chart_reviews
    assert reviews and all(r.outcome is ChartOutcome.NOT_REVIEWED for r in reviews)
    assert all("dependencies" in (r.head.error or "") for r in reviews)


def test_suite_values_mixing_integer_and_boolean_keys_with_strings_are_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    commit(repo, _chart(), "base")
    mixed = "a: 3\nb: {c: 2, 2: z, true: w}\nlist: [{1: x, a: y}]\n"
    commit(repo, {"c/tests/v.yaml": mixed, "c/values.yaml": "a: 1\nb: {c: 5}\n"}, "head")
    result = review_change(ReviewRequest(repo=repo, base="HEAD~1", head="HEAD"), renderer)
    tested = [r for r in result.review.chart_reviews if r.scenario.startswith("test:")]
    assert tested and all(r.outcome is not ChartOutcome.NOT_REVIEWED for r in tested)
    # as Helm's JSON keys them
    assert tested[0].head_inputs.values["b"] == {"c": 2, "2": "z", "true": "w"}
    json.dumps(review_document(result.review, result.judgement), sort_keys=True)


def test_a_dependency_named_like_a_yaml_boolean_reads_as_helm_reads_it(tmp_path):
    repo = make_repo(tmp_path)
    deps = "dependencies:\n  - name: y\n    version: 0.1.0\n    repository: file://../y\n"
    sha = commit(
        repo,
        {"c/Chart.yaml": chart_yaml("c", deps=deps), "y/Chart.yaml": chart_yaml("y")},
        "base",
    )
    git = GitRepository.open(repo)
    with RefSnapshot.open(git, sha, "base", 1 << 20) as tree:
        (chart,) = [c for c in discover_charts(tree, "base") if c.path == "c"]
    # sigs.k8s.io/yaml decodes `y` as YAML 1.1's true into the string field: "true", not "True"
    assert [d.name for d in chart.dependencies] == ["true"]
