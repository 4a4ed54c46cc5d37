"""A chart bump's version labels and checksums leave "what changed" and the rollout rules, and stay
in the JSON (`review.ignore_fields`)."""

from __future__ import annotations

import io

from rich.console import Console

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.terminal import print_terminal
from gitrepo import commit, make_repo

DAEMONSET = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  labels:
    helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
    app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata:
      labels:
        app: agent
        app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
    spec:
      containers:
        - name: agent
          image: "agent:{{ .Values.tag }}"
"""


def _chart(version: str, app_version: str) -> str:
    return f"apiVersion: v2\nname: agent\nversion: {version}\nappVersion: {app_version}\n"


def reviewed(tmp_path, renderer, config: str | None = None):
    repo = make_repo(tmp_path)
    files = {
        "agent/Chart.yaml": _chart("1.0.0", "1.0"),
        "agent/values.yaml": "tag: v1\n",
        "agent/templates/ds.yaml": DAEMONSET,
    }
    if config is not None:
        files[".aftershock.yaml"] = config
    base = commit(repo, files, "feat: agent")
    commit(repo, {"agent/Chart.yaml": _chart("1.0.1", "1.1")}, "chore: bump the chart")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    return result, review_document(result.review, result.judgement)


def test_version_labels_leave_what_changed_and_the_rollout_rules(tmp_path, renderer):
    result, doc = reviewed(tmp_path, renderer)
    (obj,) = doc["objects"]
    # (helm.sh/chart is masked by the diff itself: the chart's version in every object)
    assert {f["path"]: f["ignored"] for f in obj["fields"]} == {
        'metadata.labels["app.kubernetes.io/version"]': True,
        'spec.template.metadata.labels["app.kubernetes.io/version"]': True,
    }
    assert "rollout-everywhere" not in {f.rule_id for f in result.judgement.findings}
    markdown = render_markdown(doc)
    assert "changed only in ignored fields" in markdown
    assert "app.kubernetes.io/version" not in markdown
    console = Console(file=io.StringIO(), width=200)
    print_terminal(doc, console)
    terminal = console.file.getvalue()
    assert "app.kubernetes.io/version" not in terminal
    assert "changed only in ignored fields" in terminal


def test_an_empty_ignore_list_shows_every_field(tmp_path, renderer):
    result, doc = reviewed(tmp_path, renderer, "review:\n  ignore_fields: []\n")
    (obj,) = doc["objects"]
    assert not any(f["ignored"] for f in obj["fields"])
    assert "rollout-everywhere" in {f.rule_id for f in result.judgement.findings}
    assert "app.kubernetes.io/version" in render_markdown(doc)
