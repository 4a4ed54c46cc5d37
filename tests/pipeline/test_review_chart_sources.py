"""A change to a chart source alone (an OCIRepository's tag, a HelmRepository's url) reaches every
HelmRelease reading its chart from it, built by Flux Kustomizations the change does not touch: each
is rendered at both refs from the chart cache with its own build (targetNamespace, postBuild), or
is not reviewed, and a release reading another source is not reached
(pipeline/builds/source_reach.py)."""

from __future__ import annotations

import pytest
from test_review_external_charts import ARCHIVES, REPOSITORY, _images, write_repository

from aftershock.graph.build import build_graph
from aftershock.graph.model import EdgeKind, NodeKind, node_id
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.pipeline.builds import source_reach
from aftershock.render.kustomize import available
from gitrepo import commit, make_repo

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))


def kustomization(name: str, path: str, namespace: str | None = None, app: str = "") -> str:
    target = f"\n  targetNamespace: {namespace}" if namespace else ""
    post = f"\n  postBuild:\n    substitute: {{APP: {app}}}" if app else ""
    return f"""\
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: {name}, namespace: flux-system}}
spec:
  interval: 10m
  path: {path}
  prune: true
  sourceRef: {{kind: GitRepository, name: flux-system}}{target}{post}
"""


OCI = """\
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {{name: podinfo}}
spec:
  interval: {interval}
  url: oci://registry.example.com/charts/podinfo
  ref: {{tag: {tag}}}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {{name: other}}
spec:
  url: oci://registry.example.com/charts/podinfo
  ref: {{tag: 6.5.0}}
"""

CHART_REF = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: {name}
spec:
  chartRef: {{kind: OCIRepository, name: {source}{namespace}}}
  values: {{replicas: {replicas}}}
"""

SOURCE_REF = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web}
spec:
  chart:
    spec:
      chart: podinfo
      version: 6.5.0
      sourceRef: {kind: HelmRepository, name: upstream, namespace: flux-system}
  values: {replicas: 3}
"""

RELEASE_A = "helm.toolkit.fluxcd.io/HelmRelease/team-a/a@prod"
RELEASE_B = "helm.toolkit.fluxcd.io/HelmRelease/team-b/b@prod"
RELEASE_C = "helm.toolkit.fluxcd.io/HelmRelease/team-c/c@prod"


def oci_fleet(tag: str = "6.5.0", interval: str = "5m") -> dict[str, str]:
    """One Kustomization builds the sources (a component giving each team's namespace its own
    copy, as home-ops does); three others build one release each, none naming the source's file."""
    kustomizations = (
        kustomization("sources", "./infra")
        + kustomization("app-a", "./apps/a", "team-a")
        + kustomization("app-b", "./apps/b", "team-b", app="b")
        + kustomization("app-c", "./apps/c", "team-c")
    )
    team = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    return {
        "clusters/prod/apps.yaml": kustomizations,
        "infra/kustomization.yaml": "resources: [team-a, team-b, team-c]\n",
        **{
            f"infra/{t}/kustomization.yaml": f"{team}namespace: {t}\ncomponents: [../common]\n"
            for t in ("team-a", "team-b", "team-c")
        },
        "infra/common/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "resources: [sources.yaml]\n"
        ),
        "infra/common/sources.yaml": OCI.format(tag=tag, interval=interval),
        "apps/a/release.yaml": CHART_REF.format(
            name="a", source="podinfo", namespace="", replicas=2
        ),
        "apps/b/release.yaml": CHART_REF.format(
            name="${APP}", source="podinfo", namespace=", namespace: team-a", replicas=4
        ),
        "apps/c/release.yaml": CHART_REF.format(name="c", source="other", namespace="", replicas=1),
    }


def _review(repo, base, renderer, cache):
    request = ReviewRequest(repo=repo, base=base, run_tests=False, chart_cache=cache)
    return review_change(request, renderer).review


def _released(review, release):
    return [r for r in review.chart_reviews if r.release == release]


def _bumped(tmp_path):
    repo = make_repo(tmp_path / "src")
    base = commit(repo, oci_fleet(), "feat: podinfo")
    commit(repo, {"infra/common/sources.yaml": OCI.format(tag="6.6.0", interval="5m")}, "6.6.0")
    return repo, base


def test_a_tag_bump_renders_every_release_reading_the_source_from_other_builds(tmp_path, renderer):
    repo, base = _bumped(tmp_path)
    write_repository(tmp_path / "cache", ARCHIVES)
    review = _review(repo, base, renderer, tmp_path / "cache")
    # a reads the source of its own namespace; b names team-a's
    for release, replicas, source in ((RELEASE_A, 2, "team-a"), (RELEASE_B, 4, "team-a")):
        (found,) = _released(review, release)
        assert found.outcome is ChartOutcome.CHANGED
        assert (_images(found, "base"), _images(found, "head")) == (
            ["podinfo:6.5.0"],
            ["podinfo:6.6.0"],
        )
        # its own build's namespace and substitution, its own values
        namespace = release.split("/")[2]
        (deployment,) = [o for o in found.head_objects if o.key.kind == "Deployment"]
        assert deployment.key.namespace == namespace
        assert deployment.body["spec"]["replicas"] == replicas
        (change,) = found.changes
        assert (
            "spec.template.spec.containers[name=app].image",
            "podinfo:6.5.0",
            "podinfo:6.6.0",
        ) in [(f.path, f.before, f.after) for f in change.fields]
        path = [(s.kind, s.id) for s in found.affected.path]
        assert path[:2] == [
            ("file", "infra/common/sources.yaml"),
            ("object", f"source.toolkit.fluxcd.io/OCIRepository/{source}/podinfo"),
        ]
        assert ("release", release) in path
    # a release reading another source, in a build the change does not touch, is not reached
    assert not _released(review, RELEASE_C)
    assert not [g for g in review.not_reviewed if "team-c" in g.part or "app-c" in g.part]
    assert review.complete
    # the blast radius: the changed source object feeds the release, which installs the chart
    graph = build_graph(review)
    feeds = [
        e
        for e in graph.edges
        if e.kind is EdgeKind.FEEDS and e.target == node_id(NodeKind.RELEASE, RELEASE_A)
    ]
    assert [e.source.rsplit("::", 1)[1] for e in feeds] == [
        "source.toolkit.fluxcd.io/OCIRepository/team-a/podinfo"
    ]


def test_without_the_archive_every_reached_release_is_not_reviewed(tmp_path, renderer):
    repo, base = _bumped(tmp_path)
    (tmp_path / "empty").mkdir()
    review = _review(repo, base, renderer, tmp_path / "empty")
    gaps = {g.part: g.reason for g in review.not_reviewed}
    for part in (
        "release HelmRelease.helm.toolkit.fluxcd.io team-a/a in cluster prod",
        "release HelmRelease.helm.toolkit.fluxcd.io team-b/b in cluster prod",
    ):
        assert "podinfo-6.6.0.tgz" in gaps[part] and "is not in the chart cache" in gaps[part]
    assert not [p for p in gaps if "team-c" in p]
    assert not review.complete


def test_a_source_change_that_does_not_decide_the_chart_reaches_no_release(tmp_path, renderer):
    repo = make_repo(tmp_path / "src")
    base = commit(repo, oci_fleet(), "feat: podinfo")
    commit(repo, {"infra/common/sources.yaml": OCI.format(tag="6.5.0", interval="1h")}, "interval")
    (tmp_path / "empty").mkdir()
    review = _review(repo, base, renderer, tmp_path / "empty")
    assert not [r for r in review.chart_reviews if r.release and "HelmRelease" in r.release]
    assert review.complete


def test_builds_over_the_bound_are_not_reviewed(tmp_path, renderer, monkeypatch):
    monkeypatch.setattr(source_reach, "MAX_SOURCE_BUILDS", 1)
    repo, base = _bumped(tmp_path)
    write_repository(tmp_path / "cache", ARCHIVES)
    review = _review(repo, base, renderer, tmp_path / "cache")
    assert len(_released(review, RELEASE_A)) == 1  # the first in order is built and reviewed
    (gap,) = [g for g in review.not_reviewed if "app-b" in g.part]
    assert "reading its chart from OCIRepository podinfo" in gap.reason
    assert "at most 1 Kustomizations" in gap.reason
    assert not review.complete


def helm_repository_fleet(url: str) -> dict[str, str]:
    return {
        "clusters/prod/apps.yaml": kustomization("sources", "./infra")
        + kustomization("web", "./apps/web", "team-a"),
        "infra/repository.yaml": REPOSITORY.format(url=url),
        "apps/web/release.yaml": SOURCE_REF,
    }


def test_a_helm_repository_url_change_reaches_the_releases_it_serves(tmp_path, renderer):
    repo = make_repo(tmp_path / "src")
    base = commit(repo, helm_repository_fleet("https://charts.example.com/podinfo"), "web")
    moved = helm_repository_fleet("https://mirror.example.com/podinfo")
    commit(repo, {"infra/repository.yaml": moved["infra/repository.yaml"]}, "mirror")
    write_repository(tmp_path / "cache", ARCHIVES)
    review = _review(repo, base, renderer, tmp_path / "cache")
    (web,) = _released(review, "helm.toolkit.fluxcd.io/HelmRelease/team-a/web@prod")
    # the same version from the cache at both refs: rendered, and alike
    assert web.outcome is ChartOutcome.UNCHANGED
    assert _images(web, "base") == _images(web, "head") == ["podinfo:6.5.0"]
    assert [(s.kind, s.id) for s in web.affected.path[:2]] == [
        ("file", "infra/repository.yaml"),
        ("object", "source.toolkit.fluxcd.io/HelmRepository/flux-system/upstream"),
    ]
    assert review.complete
    (tmp_path / "empty").mkdir()
    review = _review(repo, base, renderer, tmp_path / "empty")
    assert [g.part for g in review.not_reviewed] == [
        "release HelmRelease.helm.toolkit.fluxcd.io team-a/web in cluster prod"
    ]
