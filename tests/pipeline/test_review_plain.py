"""Plain manifests are objects: a folder of Kubernetes YAML outside any chart is diffed at base and head,
judged by the rules, linked in the impact graph and redacted like a rendered Secret."""

from __future__ import annotations

import json

from aftershock.graph.build import build_graph
from aftershock.graph.model import NodeKind
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from charts import app_chart
from gitrepo import commit, make_repo

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: agent
  namespace: ops
spec:
  selector: {{matchLabels: {{app: agent}}}}
  template:
    metadata: {{labels: {{app: agent}}}}
    spec:
      {extra}containers:
        - name: agent
          image: agent:1.0.0
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Service
    metadata: {{name: agent, namespace: ops}}
    spec: {{ports: [{{port: 80}}]}}
"""

SECRET = """\
apiVersion: v1
kind: Secret
metadata: {{name: agent-token, namespace: ops}}
stringData:
  token: {token}
"""

NOT_KUBERNETES = "name: build\non: [push]\njobs: {test: {runs-on: ubuntu-latest}}\n"


def _review(repo, base, renderer):
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)


def _fleet(extra: str = "", token: str = "s3cr3t-old") -> dict[str, str]:
    return {
        "clusters/prod/agent.yaml": DEPLOYMENT.format(extra=extra),
        "clusters/prod/secret.yaml": SECRET.format(token=token),
        "clusters/prod/notes.yaml": NOT_KUBERNETES,
        **app_chart("charts/web", "web"),
    }


def test_a_plain_deployment_gaining_host_network_is_an_actionable_finding(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _fleet(), "feat: fleet")
    commit(
        repo,
        {"clusters/prod/agent.yaml": DEPLOYMENT.format(extra="hostNetwork: true\n      ")},
        "feat: host network",
    )
    result = _review(repo, base, renderer)
    (plain,) = [r for r in result.review.chart_reviews if r.chart == "clusters/prod"]
    assert plain.outcome is ChartOutcome.CHANGED
    (change,) = plain.changes
    assert str(change.key) == "Deployment.apps ops/agent"
    assert change.templates == ("clusters/prod/agent.yaml",)
    assert [f.path for f in change.fields] == ["spec.template.spec.hostNetwork"]
    assert {o.key.kind for o in plain.head_objects} == {
        "Deployment",
        "Service",
        "Secret",
    }  # List expanded
    findings = [f for f in result.judgement.findings if f.actionable]
    assert any(f.rule_id == "pss-host-namespaces" for f in findings), [f.rule_id for f in findings]
    assert result.review.complete


def test_plain_objects_are_linked_from_file_to_object_to_workload(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _fleet(), "feat: fleet")
    commit(
        repo,
        {"clusters/prod/agent.yaml": DEPLOYMENT.format(extra="hostNetwork: true\n      ")},
        "feat: host network",
    )
    graph = build_graph(_review(repo, base, renderer).review)
    by_id = {n.id: n for n in graph.nodes}
    (obj,) = [n for n in graph.nodes if n.kind is NodeKind.OBJECT]
    sources = {by_id[e.source].kind for e in graph.edges if e.target == obj.id}
    assert {NodeKind.TEMPLATE, NodeKind.CHART} <= sources
    template = next(
        e.source
        for e in graph.edges
        if e.target == obj.id and by_id[e.source].kind is NodeKind.TEMPLATE
    )
    assert any(e.target == template and by_id[e.source].kind is NodeKind.FILE for e in graph.edges)
    assert any(
        e.source == obj.id and by_id[e.target].kind is NodeKind.WORKLOAD for e in graph.edges
    )


def test_a_plain_secret_change_is_redacted_and_other_yaml_makes_no_noise(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _fleet(), "feat: fleet")
    commit(
        repo,
        {
            "clusters/prod/secret.yaml": SECRET.format(token="s3cr3t-new"),
            "clusters/prod/notes.yaml": NOT_KUBERNETES + "env: {A: b}\n",
        },
        "feat: rotate",
    )
    result = _review(repo, base, renderer)
    text = json.dumps(review_document(result.review, result.judgement))
    assert "s3cr3t" not in text
    (plain,) = [r for r in result.review.chart_reviews if r.chart == "clusters/prod"]
    assert [str(c.key) for c in plain.changes] == ["Secret ops/agent-token"]


def test_an_unreadable_manifest_makes_its_folder_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _fleet(), "feat: fleet")
    commit(
        repo,
        {
            "clusters/prod/agent.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: [x\n"
        },
        "broken",
    )
    result = _review(repo, base, renderer)
    (gap,) = [g for g in result.review.not_reviewed if g.part == "manifests clusters/prod"]
    assert "clusters/prod/agent.yaml" in gap.reason
    (plain,) = [r for r in result.review.chart_reviews if r.chart == "clusters/prod"]
    assert plain.outcome is ChartOutcome.NOT_REVIEWED and not plain.changes


KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n"


def test_a_manifest_document_without_a_name_is_not_reviewed_with_the_reason(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**_fleet(), "clusters/prod/kubeconfig.yaml": KUBECONFIG}, "feat: fleet")
    nameless = "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: ops}\ndata: {a: b}\n"
    commit(
        repo,
        {
            "clusters/prod/settings.yaml": nameless,
            "clusters/prod/kubeconfig.yaml": KUBECONFIG + "preferences: {}\n",
        },
        "feat: settings",
    )
    result = _review(repo, base, renderer)
    assert not result.review.complete
    (gap,) = result.review.not_reviewed  # the kubeconfig is tool configuration, not an object
    assert gap.part == "manifest clusters/prod/settings.yaml"
    assert "document 1 (ConfigMap): no metadata.name" in gap.reason
    (plain,) = [r for r in result.review.chart_reviews if r.chart == "clusters/prod"]
    assert plain.outcome is ChartOutcome.UNCHANGED  # the folder's named objects are still reviewed


def test_an_unchanged_folder_and_non_kubernetes_yaml_are_not_reviewed_as_manifests(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, {**_fleet(), "ci/pipeline.yaml": NOT_KUBERNETES}, "feat: fleet")
    commit(repo, {"ci/pipeline.yaml": NOT_KUBERNETES + "x: 1\n"}, "ci")
    result = _review(repo, base, renderer)
    assert [r.chart for r in result.review.chart_reviews] == []
    assert result.review.complete


CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: release-web, namespace: default}}\ndata: {{mode: {mode}}}\n"


def test_an_object_a_chart_and_a_plain_manifest_both_produce_is_a_conflict(tmp_path, renderer):
    repo = make_repo(tmp_path)
    chart = app_chart("charts/web", "web")
    base = commit(
        repo, {**chart, "clusters/prod/agent.yaml": DEPLOYMENT.format(extra="")}, "feat: fleet"
    )
    deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: release-web, namespace: default}\nspec: {replicas: 1}\n"
    commit(
        repo,
        {
            "manifests/web.yaml": deployment,
            "charts/web/values.yaml": chart["charts/web/values.yaml"] + "x: 1\n",
        },
        "dup",
    )
    result = _review(repo, base, renderer)
    (conflict,) = [f for f in result.judgement.findings if f.rule_id == "object-conflict"]
    assert (
        conflict.actionable and "charts/web" in conflict.message and "manifests" in conflict.message
    )


def test_an_object_declared_twice_in_one_folder_is_a_duplicate(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {"clusters/prod/a.yaml": CONFIGMAP.format(mode="a")}, "feat: a")
    commit(repo, {"clusters/prod/b.yaml": CONFIGMAP.format(mode="b")}, "feat: b")
    result = _review(repo, base, renderer)
    (duplicate,) = [f for f in result.judgement.findings if f.rule_id == "object-duplicate"]
    assert (
        duplicate.actionable and "clusters/prod/a.yaml, clusters/prod/b.yaml" in duplicate.message
    )
    assert not [f for f in result.judgement.findings if f.rule_id == "object-conflict"]
