"""Lookups that guard: a chart that fails when its `lookup` of one named object finds nothing is
rendered with an empty placeholder of that object and says so; a `cluster:` object wins. Real Helm
renders against the loopback API server."""

from __future__ import annotations

import json

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

GUARDED = """\
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" "platform-config" }}
{{- if not $cfg }}{{ fail "platform-config not found" }}{{ end }}
{{- $etc := lookup "v1" "Secret" .Release.Namespace (print .Release.Name "-etc") }}
{{- $token := required "the etc Secret is needed" $etc.metadata }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  host: {{ dig "data" "host" "none" $cfg | quote }}
  level: {{ .Values.level | quote }}
"""
UNGUARDED = """\
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" "platform-config" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data:
  host: {{ dig "data" "host" "none" $cfg | quote }}
"""
UNNAMED = """\
{{- $name := .Release.Name | upper }}
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" $name }}
{{- if not $cfg }}{{ fail "config not found" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata: {name: unnamed}
"""
DECLARED = """\
cluster:
  objects:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: platform-config, namespace: platform-system}
      data: {host: db.internal}
    - {apiVersion: v1, kind: Secret, metadata: {name: release-etc, namespace: default}}
"""


def reviewed(tmp_path, renderer, files: dict[str, str]):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {"c/Chart.yaml": chart_yaml("c"), "c/values.yaml": "level: info\n", **files},
        "feat: c",
    )
    commit(repo, {"c/values.yaml": "level: debug\n"}, "feat: debug")
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)


def test_a_chart_stopped_by_a_lookup_that_found_nothing_renders_with_placeholders(
    tmp_path, renderer
):
    result = reviewed(tmp_path, renderer, {"c/templates/cm.yaml": GUARDED})
    review = result.review
    assert review.complete, review.not_reviewed
    (context,) = review.contexts
    assert context.inferred == (
        "lookup of ConfigMap platform-system/platform-config found nothing at base and head; "
        "served an empty placeholder",
        "lookup of Secret default/release-etc found nothing at base and head; "
        "served an empty placeholder",
    )
    (default,) = review.chart_reviews
    assert default.head_objects[0].body["data"] == {"host": "none", "level": "debug"}
    document = review_document(review, result.judgement)
    assert document["contexts"][0]["inferred"] == list(context.inferred)
    markdown = render_markdown(json.loads(json.dumps(document)))
    assert "inferred: lookup of ConfigMap platform-system/platform-config found nothing" in markdown


def test_the_configurations_objects_win_over_placeholders(tmp_path, renderer):
    files = {"c/templates/cm.yaml": GUARDED, ".aftershock.yaml": DECLARED}
    review = reviewed(tmp_path, renderer, files).review
    assert review.complete, review.not_reviewed
    (context,) = review.contexts
    assert context.inferred == ()
    (default,) = review.chart_reviews
    assert default.head_objects[0].body["data"] == {"host": "db.internal", "level": "debug"}


def test_a_lookup_whose_name_is_not_known_is_not_served_and_stays_not_reviewed(tmp_path, renderer):
    files = {"c/templates/cm.yaml": UNNAMED, "c/values.yaml": "level: info\n"}
    review = reviewed(tmp_path, renderer, files).review
    assert [n.reason for n in review.not_reviewed] == [
        "execution error at (c/templates/cm.yaml:3:21): config not found"
    ]
    assert review.contexts[0].inferred == ()


def test_a_failure_in_another_template_is_not_the_lookups(tmp_path, renderer):
    files = {
        "c/templates/cm.yaml": UNGUARDED,
        "c/templates/other.yaml": '{{ fail "something else is wrong" }}\n',
    }
    review = reviewed(tmp_path, renderer, files).review
    assert [n.reason for n in review.not_reviewed] == [
        "execution error at (c/templates/other.yaml:1:3): something else is wrong"
    ]
    assert review.contexts[0].inferred == ()


# Issue 32, item 6: the template indexes into what the lookup found, and the lookup sits in a define
# the failing template includes.
INDEXED = """\
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" "platform-config" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: indexed}
data:
  host: {{ index $cfg.data "host" | default "none" | quote }}
  level: {{ .Values.level | quote }}
"""
HELPER = """\
{{- define "c.platform" -}}
{{- lookup "v1" "ConfigMap" "platform-system" "platform-config" | toYaml -}}
{{- end -}}
"""
INCLUDING = """\
{{- $cfg := include "c.platform" . | fromYaml }}
{{- if not $cfg.metadata }}{{ fail "platform-config not found" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata: {name: including}
data:
  level: {{ .Values.level | quote }}
"""


def test_a_template_indexing_into_an_absent_object_renders_with_a_placeholder(tmp_path, renderer):
    review = reviewed(tmp_path, renderer, {"c/templates/cm.yaml": INDEXED}).review
    assert review.complete, review.not_reviewed
    assert (
        review.contexts[0]
        .inferred[0]
        .startswith("lookup of ConfigMap platform-system/platform-config found nothing")
    )


def test_a_lookup_in_a_define_the_failing_template_includes_gets_its_placeholder(
    tmp_path, renderer
):
    files = {"c/templates/_helpers.tpl": HELPER, "c/templates/cm.yaml": INCLUDING}
    review = reviewed(tmp_path, renderer, files).review
    assert review.complete, review.not_reviewed
    assert (
        review.contexts[0]
        .inferred[0]
        .startswith("lookup of ConfigMap platform-system/platform-config found nothing")
    )


FROM_VALUES = """\
{{- $db := lookup "v1" "Secret" .Release.Namespace .Values.db.secretName }}
{{- $password := index $db.data "password" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data:
  level: {{ .Values.level | quote }}
"""


def test_a_lookup_named_by_a_value_gets_the_placeholder_of_that_name(tmp_path, renderer):
    # the name comes from values.yaml; the template indexes into the object (index of untyped nil)
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "c/Chart.yaml": chart_yaml("c"),
            "c/values.yaml": "level: info\ndb:\n  secretName: app-db\n",
            "c/templates/cm.yaml": FROM_VALUES,
        },
        "feat: c",
    )
    commit(repo, {"c/values.yaml": "level: debug\ndb:\n  secretName: app-db\n"}, "feat: debug")
    review = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer).review
    assert review.complete, review.not_reviewed
    (context,) = review.contexts
    assert context.inferred == (
        "lookup of Secret default/app-db found nothing at base and head; served an empty placeholder",
    )
