"""Release following: a chart renders a HelmRelease/Application whose values feed a second chart."""

from __future__ import annotations

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.releases.values import merge_maps
from charts import FLUX_RELEASE, app_chart, chart_yaml, releases_chart
from gitrepo import commit, make_repo


def review(repo, base, renderer):
    return run_review(ReviewRequest(repo=repo, base=base), renderer)


def followed(result):
    return [r for r in result.chart_reviews if r.release]


def test_release_default_reaches_the_downstream_objects_with_the_path(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **releases_chart()}, "feat: charts")
    commit(
        repo,
        {"releases/values.yaml": releases_chart(image="nginx:1.28.0")["releases/values.yaml"]},
        "feat: bump",
    )
    result = review(repo, base, renderer)
    (web,) = followed(result)
    assert web.chart == "apps/web" and web.outcome is ChartOutcome.CHANGED
    (change,) = web.changes
    assert change.key.namespace == "apps" and change.key.name == "web-web"
    assert [(f.path, f.before, f.after) for f in change.fields] == [
        ("spec.template.spec.containers[name=app].image", "nginx:1.27.0", "nginx:1.28.0")
    ]
    assert [s.kind for s in web.affected.path] == ["file", "chart", "release", "chart"]
    assert "observed" in web.affected.path[-1].relation
    release_values = [v for v in result.values_changes if v.file.startswith("release ")]
    assert [(v.path, v.before, v.after) for v in release_values] == [
        ("image", "nginx:1.27.0", "nginx:1.28.0")
    ]


def test_values_from_layers_then_inline_values_win(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo, {**app_chart("apps/web", "web"), **releases_chart(mode="steady")}, "feat: charts"
    )
    commit(
        repo,
        {"releases/values.yaml": releases_chart(mode="burst")["releases/values.yaml"]},
        "feat: burst",
    )
    (web,) = followed(review(repo, base, renderer))
    (deployment,) = web.head_objects
    assert deployment.body["spec"]["replicas"] == 4  # spec.values beats the ConfigMap's replicas: 1
    env = deployment.body["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "MODE", "value": "burst"}]  # from targetPath


def test_unchanged_release_is_not_rendered_again(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **releases_chart()}, "feat: charts")
    commit(repo, {"releases/templates/NOTES.txt": "hello\n"}, "docs: notes")
    assert followed(review(repo, base, renderer)) == []


def test_unresolvable_chart_is_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **releases_chart()}, "feat: charts")
    commit(
        repo,
        {"releases/values.yaml": releases_chart(chart_path="./apps/nope")["releases/values.yaml"]},
        "feat: move",
    )
    result = review(repo, base, renderer)
    (gap,) = result.not_reviewed
    assert gap.part.startswith("release HelmRelease") and "./apps/nope" in gap.reason


def test_chart_matched_by_name_is_inferred(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            **app_chart("apps/web", "web"),
            **releases_chart(chart_path="web", source="HelmRepository"),
        },
        "feat",
    )
    commit(
        repo,
        {
            "releases/values.yaml": releases_chart(
                chart_path="web", source="HelmRepository", replicas=5
            )["releases/values.yaml"]
        },
        "feat: 5",
    )
    (web,) = followed(review(repo, base, renderer))
    assert "inferred" in web.affected.path[-1].relation
    assert [(f.path, f.after) for c in web.changes for f in c.fields] == [("spec.replicas", 5)]


def test_missing_values_from_object_is_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    release = FLUX_RELEASE.replace("name: not-there\n      optional: true", "name: not-there")
    files = {
        **app_chart("apps/web", "web"),
        **releases_chart(),
        "releases/templates/web.yaml": release,
    }
    base = commit(repo, files, "feat: charts")
    commit(
        repo,
        {"releases/values.yaml": releases_chart(replicas=9)["releases/values.yaml"]},
        "feat: 9",
    )
    (gap,) = review(repo, base, renderer).not_reviewed
    assert "ConfigMap/not-there" in gap.reason and followed(review(repo, base, renderer)) == []


def test_release_installing_its_own_chart_is_a_cycle(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, releases_chart(chart_path="./releases"), "feat: loop")
    commit(
        repo,
        {
            "releases/values.yaml": releases_chart(chart_path="./releases", replicas=2)[
                "releases/values.yaml"
            ]
        },
        "feat",
    )
    (gap,) = review(repo, base, renderer).not_reviewed
    assert "release cycle" in gap.reason


def test_argo_application_with_values_object(tmp_path, renderer):
    app = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web, namespace: argocd}
spec:
  destination: {namespace: shop, server: https://kubernetes.default.svc}
  source:
    repoURL: https://git.example.invalid/platform.git
    path: apps/web
    helm:
      values: |
        replicas: 1
      valuesObject:
        replicas: {{ .Values.replicas }}
"""
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            **app_chart("apps/web", "web"),
            "argo/Chart.yaml": chart_yaml("argo"),
            "argo/values.yaml": "replicas: 2\n",
            "argo/templates/app.yaml": app,
        },
        "feat",
    )
    commit(repo, {"argo/values.yaml": "replicas: 6\n"}, "feat: 6")
    (web,) = followed(review(repo, base, renderer))
    (change,) = web.changes
    assert change.key.namespace == "shop" and [
        (f.path, f.before, f.after) for f in change.fields
    ] == [("spec.replicas", 2, 6)]


def test_merge_maps_is_helms():
    assert merge_maps({"a": {"b": 1, "l": [1, 2]}, "c": 1}, {"a": {"l": [3]}, "d": 2}) == {
        "a": {"b": 1, "l": [3]},
        "c": 1,
        "d": 2,
    }


PLAIN_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: prod
spec:
  chart:
    spec:
      chart: ./apps/web
      sourceRef: {kind: GitRepository, name: platform, namespace: flux-system}
  valuesFrom:
    - kind: ConfigMap
      name: web-prod
  values:
    mode: {mode}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-prod, namespace: prod}
data:
  values.yaml: |
    replicas: {replicas}
"""


def plain(mode="steady", replicas=3):
    return {
        "clusters/prod/web.yaml": PLAIN_RELEASE.replace("{mode}", mode).replace(
            "{replicas}", str(replicas)
        )
    }


def test_release_in_a_plain_manifest_is_followed_when_it_changes(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **plain()}, "feat: prod")
    commit(repo, plain(replicas=5), "feat: prod runs five")
    result = review(repo, base, renderer)
    # The manifest's folder is reviewed as plain objects too.
    assert [(r.chart, r.name) for r in result.chart_reviews] == [
        ("apps/web", "web"),
        ("clusters/prod", "manifests"),
    ]
    assert [str(c.key) for c in result.chart_reviews[1].changes] == [
        "ConfigMap prod/web-prod"
    ]  # its valuesFrom
    web = result.chart_reviews[0]
    assert web.release == "helm.toolkit.fluxcd.io/HelmRelease/prod/web@prod"  # clusters/prod
    assert [s.kind for s in web.affected.path] == ["file", "release", "chart"]
    (change,) = web.changes
    assert change.key.namespace == "prod" and [
        (f.path, f.before, f.after) for f in change.fields
    ] == [("spec.replicas", 3, 5)]


def test_plain_release_renders_an_affected_chart_with_its_own_values(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **plain(mode="burst")}, "feat: prod")
    commit(
        repo,
        {"apps/web/values.yaml": "replicas: 2\nimage: nginx:1.28.0\nmode: fast\n"},
        "feat: image",
    )
    result = review(repo, base, renderer)
    # The release is the chart's render context, so the chart is reviewed in it once, not twice.
    assert not [r for r in result.chart_reviews if r.release]
    (context,) = result.contexts
    assert (context.chart, context.kind.value, context.release_name) == (
        "apps/web",
        "release",
        "web",
    )
    (prod,) = [r for r in result.chart_reviews if r.scenario == "default"]
    (deployment,) = prod.head_objects
    container = deployment.body["spec"]["template"]["spec"]["containers"][0]
    assert (
        container["env"] == [{"name": "MODE", "value": "burst"}]
        and deployment.body["spec"]["replicas"] == 3
    )


def test_unreadable_release_manifest_is_not_reviewed(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, {**app_chart("apps/web", "web"), **plain()}, "feat: prod")
    commit(repo, {"clusters/prod/web.yaml": "kind: HelmRelease\nmetadata: [broken\n"}, "fix: oops")
    result = review(repo, base, renderer)
    assert [g.part for g in result.not_reviewed] == ["manifest clusters/prod/web.yaml"]


def test_configuration_maps_a_chartref_to_a_chart(tmp_path, renderer):
    release = FLUX_RELEASE.replace(
        """  chart:
    spec:
      chart: {{ .Values.chartPath }}
      sourceRef: {kind: {{ .Values.sourceKind }}, name: platform}""",
        """  chartRef: {kind: OCIRepository, name: shop-frontend}""",
    )
    repo = make_repo(tmp_path)
    files = {
        **app_chart("apps/web", "web"),
        **releases_chart(),
        "releases/templates/web.yaml": release,
        ".aftershock.yaml": "releases:\n  charts:\n    shop-frontend: apps/web\n",
    }
    base = commit(repo, files, "feat")
    commit(
        repo,
        {"releases/values.yaml": releases_chart(replicas=8)["releases/values.yaml"]},
        "feat: 8",
    )
    (web,) = followed(review(repo, base, renderer))
    assert web.chart == "apps/web" and "observed" in web.affected.path[-1].relation
    assert [(f.path, f.after) for c in web.changes for f in c.fields] == [("spec.replicas", 8)]


def test_a_release_reaches_its_target_cluster_in_the_blast_radius(tmp_path, renderer):
    from aftershock.graph import blast_radius, build_graph

    release = FLUX_RELEASE.replace(
        "  targetNamespace: apps\n",
        "  targetNamespace: apps\n  kubeConfig:\n    secretRef: {name: prod-eu}\n",
    )
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {
            **app_chart("apps/web", "web"),
            **releases_chart(),
            "releases/templates/web.yaml": release,
        },
        "feat",
    )
    commit(
        repo,
        {"releases/values.yaml": releases_chart(replicas=7)["releases/values.yaml"]},
        "feat: 7",
    )
    result = review(repo, base, renderer)
    (web,) = followed(result)
    assert web.cluster == "kubeconfig prod-eu"
    graph = build_graph(result)
    radius = blast_radius(graph)
    cluster = next(n for n in graph.nodes if n.kind.value == "cluster")
    assert cluster.label == "kubeconfig prod-eu" and radius.get(cluster.id) is not None
    assert any(e.kind.value == "in_cluster" and e.target == cluster.id for e in graph.edges)
