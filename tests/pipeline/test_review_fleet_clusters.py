"""A fleet whose clusters each hold a HelmRelease of the same name (one base, per-cluster values through
postBuild): each cluster's release is followed and rendered with its own values, and the blast radius
shows both, cluster by cluster, with objects whose identities do not collide. Real git, real kustomize,
real Helm."""

from __future__ import annotations

import pytest

from aftershock.graph import NodeKind, blast_radius, build_graph
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.kustomize import available
from charts import app_chart
from gitrepo import commit, make_repo

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))

KUSTOMIZATION = """\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: apps, namespace: flux-system}}
spec:
  interval: 10m
  path: ./apps/{cluster}
  prune: true
  sourceRef: {{kind: GitRepository, name: flux-system}}
  postBuild:
    substitute: {{replicas: "{replicas}"}}
"""

RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: podinfo, namespace: podinfo}}
spec:
  chart:
    spec: {{chart: ./charts/podinfo, sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}}}
  values:
    replicas: {replicas}
    mode: {mode}
"""

PROD = "helm.toolkit.fluxcd.io/HelmRelease/podinfo/podinfo@prod"
STAGING = "helm.toolkit.fluxcd.io/HelmRelease/podinfo/podinfo@staging"


def fleet(prod: str = "3", staging: str = "1", replicas: str = "${replicas}") -> dict[str, str]:
    return {
        "clusters/prod/apps.yaml": KUSTOMIZATION.format(cluster="prod", replicas=prod),
        "clusters/staging/apps.yaml": KUSTOMIZATION.format(cluster="staging", replicas=staging),
        "apps/base/kustomization.yaml": "resources: [podinfo.yaml]\n",
        "apps/base/podinfo.yaml": RELEASE.format(replicas=replicas, mode="fast"),
        "apps/prod/kustomization.yaml": "resources: [../base]\n",
        "apps/staging/kustomization.yaml": "resources: [../base]\n",
        **app_chart("charts/podinfo", "podinfo"),
    }


def _review(repo, base, renderer):
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer).review


def _releases(review):
    return {r.release: r for r in review.chart_reviews if r.chart == "charts/podinfo"}


def _deployment(chart_review, side: str):
    objects = chart_review.head_objects if side == "head" else chart_review.base_objects
    return next(o.body for o in objects if o.key.kind == "Deployment")


def test_each_cluster_renders_its_release_with_its_own_values(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(
        repo,
        {"apps/base/podinfo.yaml": RELEASE.format(replicas="${replicas}", mode="slow")},
        "slow",
    )
    review = _review(repo, base, renderer)
    releases = _releases(review)
    assert sorted(releases) == [PROD, STAGING]
    prod, staging = releases[PROD], releases[STAGING]
    assert (prod.cluster, staging.cluster) == ("prod", "staging")
    assert prod.outcome is staging.outcome is ChartOutcome.CHANGED
    assert (
        _deployment(prod, "head")["spec"]["replicas"],
        _deployment(staging, "head")["spec"]["replicas"],
    ) == (3, 1)
    assert [s.id for s in prod.affected.path if s.kind == "release"] == [
        "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps@prod",
        PROD,
    ]
    values = sorted((v.file, v.path, v.after) for v in review.values_changes if v.path == "mode")
    assert values == [
        (
            "release HelmRelease.helm.toolkit.fluxcd.io podinfo/podinfo in cluster prod",
            "mode",
            "slow",
        ),
        (
            "release HelmRelease.helm.toolkit.fluxcd.io podinfo/podinfo in cluster staging",
            "mode",
            "slow",
        ),
    ]
    assert review.complete


def test_the_blast_radius_shows_both_clusters_through_their_own_chains(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(
        repo,
        {"apps/base/podinfo.yaml": RELEASE.format(replicas="${replicas}", mode="slow")},
        "slow",
    )
    graph = build_graph(_review(repo, base, renderer))
    radius = blast_radius(graph)
    by_id = {n.id: n for n in graph.nodes}
    workloads = [n for n in graph.nodes if n.kind is NodeKind.WORKLOAD]
    assert len({w.id for w in workloads}) == 2  # one Deployment podinfo/podinfo-podinfo per cluster
    for cluster, other, release in (("prod", "staging", PROD), ("staging", "prod", STAGING)):
        (workload,) = [w for w in workloads if release in w.id]
        # commit -> the file that declares the HelmRelease (one template node for both clusters'
        # builds) -> the HelmRelease object the cluster's Kustomization builds -> the HelmRelease of the cluster -> the chart
        # as it installs it -> the Deployment
        path = [by_id[n] for n in radius.get(workload.id).nodes]
        assert path[0].kind is NodeKind.COMMIT
        assert [n.ref for n in path if n.kind is NodeKind.FILE] == ["apps/base/podinfo.yaml"]
        kustomization = (
            f"apps/{cluster}@kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps@{cluster}"
        )
        built = [n.ref for n in path if n.kind is NodeKind.DOWNSTREAM_OBJECT]
        assert built[0] == f"{kustomization}::helm.toolkit.fluxcd.io/HelmRelease/podinfo/podinfo"
        assert [n.ref for n in path if n.kind is NodeKind.RELEASE] == [release]
        reach = radius.get(f"cluster:{cluster}")
        assert reach is not None and not [n for n in reach.nodes if other in n]
        (namespace,) = [
            n for n in graph.nodes if n.kind is NodeKind.NAMESPACE and n.fact("cluster") == cluster
        ]
        assert namespace.label == "podinfo"  # each cluster's own namespace podinfo


def test_same_values_in_two_clusters_are_two_releases_and_a_same_cluster_duplicate_is_one(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    files = fleet(replicas="2")  # no per-cluster value: both clusters pass the same values
    # prod applies the same build twice: the same release, in the same cluster, with the same values
    again = KUSTOMIZATION.format(cluster="prod", replicas="3").replace(
        "name: apps,", "name: again,"
    )
    base = commit(repo, {**files, "clusters/prod/again.yaml": again}, "feat: fleet")
    commit(repo, {"apps/base/podinfo.yaml": RELEASE.format(replicas="2", mode="slow")}, "slow")
    review = _review(repo, base, renderer)
    installs = [r.release for r in review.chart_reviews if r.chart == "charts/podinfo"]
    assert sorted(installs) == [PROD, STAGING]


PLAIN_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: podinfo, namespace: podinfo}}
spec:
  chart:
    spec: {{chart: ./charts/podinfo, sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}}}
  values: {{replicas: {replicas}}}
"""


def test_a_chart_change_reaches_each_cluster_release_of_plain_manifests_with_its_values(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    files = {
        "clusters/prod/podinfo.yaml": PLAIN_RELEASE.format(replicas=3),
        "clusters/staging/podinfo.yaml": PLAIN_RELEASE.format(replicas=1),
        **app_chart("charts/podinfo", "podinfo"),
    }
    base = commit(repo, files, "feat: fleet")
    values = app_chart("charts/podinfo", "podinfo", image="nginx:1.28.0")[
        "charts/podinfo/values.yaml"
    ]
    commit(repo, {"charts/podinfo/values.yaml": values}, "nginx 1.28")
    review = _review(repo, base, renderer)
    # The chart renders in its first installing release's context (prod's); staging's release is
    # followed on its own, with its own values, rather than taken as covered by prod's.
    (context,) = [c for c in review.contexts if c.chart == "charts/podinfo"]
    assert context.name == f"release:{PROD}"
    rendered = {
        r.release: _deployment(r, "head")["spec"]["replicas"]
        for r in review.chart_reviews
        if r.chart == "charts/podinfo"
    }
    assert rendered == {None: 3, STAGING: 1}
    assert review.complete


TREE_ROOT = """\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: cluster, namespace: flux-system}}
spec:
  path: ./{root}/flux
  sourceRef: {{kind: GitRepository, name: flux-system}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: apps, namespace: flux-system}}
spec:
  path: ./{root}/apps
  sourceRef: {{kind: GitRepository, name: flux-system}}
  postBuild:
    substituteFrom: [{{kind: ConfigMap, name: settings}}]
"""

SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings, namespace: flux-system}}\ndata: {{size: {size}}}\n"
APP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web, namespace: default}}\ndata: {{mode: {mode}, size: '${{size}}'}}\n"


def test_trees_side_by_side_that_apply_themselves_are_clusters_apart(tmp_path, renderer):
    """flux-local's test trees: each a root Kustomization applying its own folder, no `clusters/`."""
    repo = make_repo(tmp_path)
    files = {}
    for root, size in (("tests/one", "small"), ("tests/two", "large")):
        files |= {
            f"{root}/flux/cluster.yaml": TREE_ROOT.format(root=root),
            f"{root}/flux/settings.yaml": SETTINGS.format(size=size),
            f"{root}/apps/web.yaml": APP.format(mode="a"),
        }
    base = commit(repo, files, "feat: two test trees")
    commit(
        repo,
        {f"tests/{t}/apps/web.yaml": APP.format(mode="b") for t in ("one", "two")},
        "feat: mode b",
    )
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    rules = {f.rule_id for f in result.judgement.findings}
    assert "object-conflict" not in rules
    apps = {r.cluster: r for r in result.review.chart_reviews if r.chart.endswith("/apps")}
    assert sorted(apps) == ["tests/one/flux", "tests/two/flux"]
    # each tree substitutes its own settings, though both declare flux-system/settings
    sizes = {
        cluster: next(o.body["data"]["size"] for o in r.head_objects if o.key.name == "web")
        for cluster, r in apps.items()
    }
    assert sizes == {"tests/one/flux": "small", "tests/two/flux": "large"}


def test_one_tree_applying_an_object_twice_still_conflicts(tmp_path, renderer):
    repo = make_repo(tmp_path)
    root = "tests/one"
    files = {
        f"{root}/flux/cluster.yaml": TREE_ROOT.format(root=root),
        f"{root}/flux/settings.yaml": SETTINGS.format(size="small"),
        f"{root}/apps/web.yaml": APP.format(mode="a"),
    }
    base = commit(repo, files, "feat: one tree")
    web = APP.format(mode="b")
    commit(repo, {f"{root}/flux/web.yaml": web, f"{root}/apps/web.yaml": web}, "feat: web twice")
    result = review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (conflict,) = [f for f in result.judgement.findings if f.rule_id == "object-conflict"]
    assert conflict.actionable and "ConfigMap default/web" in conflict.message
