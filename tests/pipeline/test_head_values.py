"""Values the head newly requires: a chart whose context renders its base and whose head fails for a
value that context does not give is rendered with it (a file's, else a placeholder), so what the
change adds is diffed and judged, and the failure stays a finding."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from aftershock.model.contexts import HeadNeed, InferredValue
from aftershock.model.diff import ObjectChangeKind
from aftershock.pipeline import ReviewRequest
from aftershock.pipeline.review import review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

SCHEMA = (
    Path(__file__).resolve().parents[2] / "src" / "aftershock" / "schema" / "review.schema.json"
)

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  level: {{ .Values.level | quote }}
"""

# `required` in a helper the new template includes: Helm's error names the including line
HELPER = """\
{{- define "app.bucket" -}}
AUTH_{{ .Values.swift.projectID | required "swift.projectID must be set (the project UUID)" }}
{{- end -}}
"""

ROUTER = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: router
spec:
  selector: {matchLabels: {app: router}}
  template:
    metadata: {labels: {app: router}}
    spec:
      containers:
        - name: router
          image: registry.example.com/router:1.0
          env:
            - name: BUCKET
              value: {{ include "app.bucket" . | quote }}
"""


def _repo(tmp_path, head_files):
    repo = make_repo(tmp_path)
    files = {
        "apps/app/Chart.yaml": chart_yaml("app"),
        "apps/app/values.yaml": "level: info\nswift:\n  projectID: ''\n",
        "apps/app/templates/cm.yaml": CONFIG,
    }
    base = commit(repo, files, "feat: app")
    commit(repo, head_files, "feat: router")
    return repo, base


def test_a_value_only_the_platform_sets_that_the_head_requires_is_a_placeholder_and_the_rest_is_reviewed(
    tmp_path, renderer
):
    repo, base = _repo(
        tmp_path,
        {"apps/app/templates/_bucket.tpl": HELPER, "apps/app/templates/router.yaml": ROUTER},
    )
    outcome = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    result = outcome.review
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert not default.partial and result.complete, result.not_reviewed
    (router,) = [c for c in default.changes if c.key.kind == "StatefulSet"]
    assert router.kind is ObjectChangeKind.ADDED  # observed, not left out of the head
    (context,) = result.contexts
    assert context.head_need == HeadNeed(
        (InferredValue("swift.projectID", None),),
        context.head_need.error if context.head_need else "",
        "apps/app/templates/router.yaml",
    )
    assert context.head_need and "swift.projectID must be set" in context.head_need.error
    assert InferredValue("swift.projectID", None) not in context.inferred_values  # base needs none
    (broken,) = [f for f in outcome.judgement.findings if f.rule_id == "chart-render-broken"]
    assert "swift.projectID (placeholder)" in broken.message
    assert broken.location and broken.location.file == "apps/app/templates/router.yaml"
    doc = review_document(result, outcome.judgement)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    assert "at head, which fails without them" in render_markdown(doc)


def test_a_head_that_still_fails_with_what_is_found_keeps_its_render_by_template(
    tmp_path, renderer
):
    """A map no file sets (a nil pointer, no `required` naming a text): nothing is invented."""
    router = ROUTER.replace(
        '{{ include "app.bucket" . | quote }}', "{{ .Values.swift.region.name }}"
    )
    repo, base = _repo(tmp_path, {"apps/app/templates/router.yaml": router})
    outcome = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    result = outcome.review
    (default,) = [r for r in result.chart_reviews if r.scenario == "default"]
    assert [f.template for f in default.templates_not_rendered] == [
        "apps/app/templates/router.yaml"
    ]
    assert [c.head_need for c in result.contexts] == [None]
    broken = [f for f in outcome.judgement.findings if f.rule_id == "chart-render-broken"]
    assert len(broken) == 1 and "placeholder" not in broken[0].message
