"""Provenance on real repositories rendered by Helm: static links, then perturbation renders that observe
or rule them out; the document, its schema fragment and the graph's `produces` edges."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from aftershock.graph import EdgeKind, blast_radius, build_graph
from aftershock.model.releases import Evidence
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.observation.provenance import (
    chart_folder,
    materialize_workspaces,
    trace_provenance,
)
from aftershock.provenance import Check, provenance_document, provenance_edges
from charts import app_chart, chart_yaml, library_and_app, releases_chart
from gitrepo import commit, make_repo

FRAGMENT = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "aftershock"
    / "provenance"
    / "schema_fragment.json"
)
IMAGE = "spec.template.spec.containers[name=app].image"

LIBRARY_TEMPLATE = """\
{{- define "lib.deployment" -}}
{{- $ctx := .context }}
{{- $values := $ctx.Values }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $ctx.Release.Name }}
spec:
  replicas: {{ $values.replicas }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: "{{ $values.image.repository }}:{{ $values.image.tag }}"
{{- end -}}
"""


def library_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        library_and_app(
            {"templates/_workload.tpl": LIBRARY_TEMPLATE},
            {
                "templates/deployment.yaml": '{{ include "lib.deployment" (dict "context" .) }}\n',
                "values.yaml": "replicas: 2\nimage:\n  repository: nginx\n  tag: 1.27.0\n",
            },
        ),
        "feat: app on the library",
    )
    return repo, base


def trace(repo: Path, base: str, renderer, tmp_path: Path, max_renders: int = 20):
    review = run_review(ReviewRequest(repo=repo, base=base), renderer)
    base_root, head_root = materialize_workspaces(review, tmp_path / "work")
    return review, trace_provenance(review, base_root, head_root, renderer, max_renders=max_renders)


def field(report, path: str):
    (found,) = [f for f in report.fields if f.field == path and f.scenario == "default"]
    return found


def test_library_include_is_inferred_then_observed_by_one_render(tmp_path, renderer):
    repo, base = library_repo(tmp_path)
    commit(
        repo,
        {"app/values.yaml": "replicas: 2\nimage:\n  repository: nginx\n  tag: 1.28.0\n"},
        "feat: bump",
    )
    _, static = trace(repo, base, renderer, tmp_path / "a", max_renders=0)
    (link,) = field(static, IMAGE).values
    assert (link.ref, link.reads, link.templates) == (
        "app/values.yaml::image.tag",
        ("image.tag",),
        ("lib/templates/_workload.tpl",),
    )
    assert (link.evidence, link.check, static.renders, len(static.cut)) == (
        Evidence.INFERRED,
        Check.CUT,
        0,
        1,
    )
    _, traced = trace(repo, base, renderer, tmp_path / "b")
    (link,) = field(traced, IMAGE).values
    assert (link.evidence, link.check, traced.renders, traced.cut) == (
        Evidence.OBSERVED,
        Check.PRODUCED,
        1,
        (),
    )
    templates = [(t.path, t.changed, t.evidence) for t in field(traced, IMAGE).templates]
    assert templates == [("app/templates/deployment.yaml", False, Evidence.OBSERVED)]


def test_two_changed_keys_are_told_apart_by_perturbation(tmp_path, renderer):
    repo, base = library_repo(tmp_path)
    commit(
        repo,
        {"app/values.yaml": "replicas: 3\nimage:\n  repository: nginx\n  tag: 1.28.0\n"},
        "feat: scale and bump",
    )
    _, report = trace(repo, base, renderer, tmp_path)
    replicas, image = field(report, "spec.replicas"), field(report, IMAGE)
    assert (
        {v.key for v in replicas.values}
        == {v.key for v in image.values}
        == {"replicas", "image.tag"}
    )
    assert [(v.key, v.evidence) for v in replicas.standing] == [("replicas", Evidence.OBSERVED)]
    assert [(v.key, v.evidence) for v in image.standing] == [("image.tag", Evidence.OBSERVED)]
    assert {v.key: v.check for v in replicas.values} == {
        "replicas": Check.PRODUCED,
        "image.tag": Check.NOT_PRODUCED,
    }
    assert report.renders == 2
    doc = provenance_document(report)
    jsonschema.Draft202012Validator(json.loads(FRAGMENT.read_text())).validate(doc)
    assert doc["renders"] == {"max": 20, "ran": 2, "failed": 0, "cut": 0}
    assert [(v["key"], v["standing"]) for v in doc["fields"][0]["values"]] in (
        [("replicas", True), ("image.tag", False)],
        [("replicas", False), ("image.tag", True)],
    )


def test_budget_cuts_the_renders_over_it_and_says_so(tmp_path, renderer):
    repo, base = library_repo(tmp_path)
    commit(
        repo,
        {"app/values.yaml": "replicas: 3\nimage:\n  repository: nginx\n  tag: 1.28.0\n"},
        "feat: scale and bump",
    )
    _, report = trace(repo, base, renderer, tmp_path, max_renders=1)
    assert report.renders == 1 and [(p.review, p.key) for p in report.cut] == [("app", "replicas")]
    assert {v.key: v.check for v in field(report, "spec.replicas").values} == {
        "replicas": Check.CUT,
        "image.tag": Check.NOT_PRODUCED,
    }
    assert provenance_document(report)["cut"] == [
        {"review": "app", "values_key": "app/values.yaml::replicas"}
    ]


SUBCHART_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: agent
  labels: {cluster: {{ .Values.global.cluster | quote }}}
data:
  port: {{ .Values.port | quote }}
  interval: {{ .Values.interval | quote }}
"""


def test_subchart_values_are_scoped_under_its_name_and_global_is_shared(tmp_path, renderer):
    repo = make_repo(tmp_path)
    wrap_values = "agent:\n  port: {port}\nglobal:\n  cluster: {cluster}\n"
    base = commit(
        repo,
        {
            "wrap/Chart.yaml": chart_yaml(
                "wrap",
                deps="dependencies:\n  - name: agent\n    version: 0.1.0\n    repository: https://charts.example.org\n    condition: agent.enabled\n",
            ),
            "wrap/values.yaml": wrap_values.format(port=9100, cluster="a"),
            "wrap/charts/agent/Chart.yaml": chart_yaml("agent"),
            "wrap/charts/agent/values.yaml": "port: 8080\ninterval: 10s\n",
            "wrap/charts/agent/templates/configmap.yaml": SUBCHART_TEMPLATE,
        },
        "feat: wrapper",
    )
    commit(
        repo,
        {
            "wrap/values.yaml": wrap_values.format(port=9200, cluster="b"),
            "wrap/charts/agent/values.yaml": "port: 8080\ninterval: 20s\n",
        },
        "feat: tune the agent",
    )
    _, report = trace(repo, base, renderer, tmp_path)
    for path, ref in [
        ("data.port", "wrap/values.yaml::agent.port"),
        ("metadata.labels.cluster", "wrap/values.yaml::global.cluster"),
        ("data.interval", "wrap/charts/agent/values.yaml::interval"),
    ]:
        item = field(report, path)
        assert len(item.values) == 3
        assert [v.ref for v in item.standing] == [ref] and item.standing[
            0
        ].evidence is Evidence.OBSERVED
    assert field(report, "data.port").standing[0].reads == ("agent.port",)
    assert report.renders == 3


def test_a_release_value_produces_the_downstream_field(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **releases_chart()}, "feat: charts")
    commit(
        repo,
        {"releases/values.yaml": releases_chart(image="nginx:1.28.0")["releases/values.yaml"]},
        "feat: bump",
    )
    review, report = trace(repo, base, renderer, tmp_path)
    downstream = field(report, IMAGE)
    assert downstream.review == "apps/web@helm.toolkit.fluxcd.io/HelmRelease/flux-system/web"
    (link,) = downstream.values
    assert link.ref == "release HelmRelease.helm.toolkit.fluxcd.io flux-system/web::image"
    assert (link.evidence, link.check) == (Evidence.OBSERVED, Check.PRODUCED)
    upstream = field(report, 'data["values.yaml"]')
    assert [(v.ref, v.evidence) for v in upstream.standing] == [
        ("releases/values.yaml::image", Evidence.OBSERVED)
    ]
    graph = build_graph(review, provenance_edges(report))
    produces = {(e.source, e.target, e.via) for e in graph.edges if e.kind is EdgeKind.PRODUCES}
    assert (
        "release_value:helm.toolkit.fluxcd.io/HelmRelease/flux-system/web::image",
        f"downstream_object:{downstream.object_id}",
        f"observed: {IMAGE}",
    ) in produces
    reach = blast_radius(graph).get(f"downstream_object:{downstream.object_id}")
    assert reach is not None and reach.nodes[2:5] == (
        "values_key:releases/values.yaml::image",
        "object:releases::core/ConfigMap/flux-system/web-values",
        "release:helm.toolkit.fluxcd.io/HelmRelease/flux-system/web",
    )
    assert [e.kind for e in reach.path[2:4]] == [
        EdgeKind.PRODUCES,
        EdgeKind.FEEDS,
    ]  # valuesFrom feeds the release


def test_release_charts_are_found_where_release_following_materialised_them(tmp_path):
    (tmp_path / "work" / "base").mkdir(parents=True)
    chart = tmp_path / "work" / "releases-1" / "base" / "apps" / "web"
    chart.mkdir(parents=True)
    (chart / "Chart.yaml").write_text(chart_yaml("web"))
    assert chart_folder(tmp_path / "work" / "base", "apps/web") == chart
    assert chart_folder(tmp_path / "work" / "head", "apps/web") is None


def test_an_app_version_bump_is_traced_to_chart_yaml_without_renders(tmp_path, renderer):
    repo = make_repo(tmp_path)
    version = 'apiVersion: v2\nname: app\nversion: 0.1.0\nappVersion: "{}"\n'
    base = commit(
        repo,
        {
            "app/Chart.yaml": version.format("1.0"),
            "app/templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n  version: {{ .Chart.AppVersion | quote }}\n",
        },
        "feat: app",
    )
    commit(repo, {"app/Chart.yaml": version.format("1.1")}, "chore: app 1.1")
    _, report = trace(repo, base, renderer, tmp_path)
    item = field(report, "data.version")
    assert item.values == () and report.renders == 0
    assert [(t.path, t.changed, t.evidence) for t in item.templates] == [
        ("app/templates/configmap.yaml", False, Evidence.OBSERVED),
        ("app/Chart.yaml", True, Evidence.INFERRED),
    ]
