"""An edit that changes what is made of a value shows in a probe, where the context's value hides it."""

from __future__ import annotations

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

JOB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: "app:{{ .Values.image.tag }}"
          env:
            - name: WAIT_FOR_JOB
              value: migrate-{{ .Values.image.tag }}
"""


def _repo(tmp_path, values: str):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            "c/Chart.yaml": chart_yaml("c"),
            "c/values.yaml": values,
            "c/templates/api.yaml": JOB,
        },
        "feat: c",
    )
    normalized = JOB.replace(
        "migrate-{{ .Values.image.tag }}", 'migrate-{{ .Values.image.tag | replace "." "-" }}'
    )
    commit(repo, {"c/templates/api.yaml": normalized}, "fix: job name without dots")
    return repo, base


def test_an_edit_the_contexts_value_hides_shows_with_the_value_probed(tmp_path, renderer):
    repo, base = _repo(tmp_path, "image:\n  tag: latest\n")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    doc = review_document(result.review, result.judgement)
    (summary,) = doc["scenarios"]
    assert summary["ran"][:2] == ["default", "probe:image.tag=latest.Probe_1"]
    assert summary["changed_in"] == ["probe:image.tag=latest.Probe_1"]
    (obj,) = doc["objects"]
    assert [(f["before"], f["after"]) for f in obj["fields"]] == [
        ("migrate-latest.Probe_1", "migrate-latest-Probe_1")
    ]
    # a made-up value: no rule judges the probe's objects, and the default's concerns about the
    # object (its image has no digest, ...) are not listed as concerns of the change
    assert any(i["delta"] == "pre_existing" for i in doc["findings"]["items"])
    markdown = render_markdown(doc)
    assert "probe:image.tag=latest.Probe\\_1" in markdown
    assert "Pre-existing concerns" not in markdown


def test_a_value_the_edit_already_shows_is_probed_alike_and_counted_once(tmp_path, renderer):
    repo, base = _repo(tmp_path, 'image:\n  tag: "1.2"\n')
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    doc = review_document(result.review, result.judgement)
    (summary,) = doc["scenarios"]
    assert "default" in summary["changed_in"]
    assert doc["summary"]["objects_changed"] >= 1


SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  ports:
    - port: {{ .Values.port | default 8080 }}
"""


def test_a_changed_default_the_contexts_value_hides_shows_with_the_value_unset(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {"c/Chart.yaml": chart_yaml("c"), "c/values.yaml": "port: 80\n"}
    base = commit(repo, {**files, "c/templates/svc.yaml": SERVICE}, "feat: c")
    commit(repo, {"c/templates/svc.yaml": SERVICE.replace("8080", "9090")}, "feat: new default")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    doc = review_document(result.review, result.judgement)
    (summary,) = doc["scenarios"]
    assert summary["changed_in"] == ["probe:port=null"]
    (obj,) = doc["objects"]
    # the ports list is keyed by port: the old default's entry goes, the new one's comes
    assert [(f["change"], f["before"], f["after"]) for f in obj["fields"]] == [
        ("removed", {"port": 8080}, None),
        ("added", None, {"port": 9090}),
    ]
