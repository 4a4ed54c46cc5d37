"""The bundled fleet example (examples/fleet): each commit of its history reviewed, with real git, real
kustomize and real Helm: a plain Deployment, an overlay patch, a substituted variable, an external chart,
a generator's data change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aftershock.graph import blast_radius, build_graph
from aftershock.graph.model import EdgeKind
from aftershock.model.diff import ObjectChangeKind
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.kustomize import available

PROJECT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("fleet") / "fleet"
    subprocess.run(
        [
            sys.executable,
            str(PROJECT / "scripts" / "build_example.py"),
            "--example",
            "fleet",
            str(dest),
        ],
        check=True,
        capture_output=True,
    )
    return dest


def _review(fleet: Path, state: str, renderer):
    request = ReviewRequest(
        repo=fleet, base=f"state-{state}~1", head=f"state-{state}", run_tests=False
    )
    return review_change(request, renderer)


def _changes(review):
    return {
        (r.chart, str(c.key)): [(f.path, f.before, f.after) for f in c.fields]
        for r in review.chart_reviews
        for c in r.changes
    }


def test_a_plain_bootstrap_deployment_gaining_host_network_is_high_risk(fleet, renderer):
    result = _review(fleet, "01-bootstrap-host-network", renderer)
    assert _changes(result.review) == {
        ("bootstrap", "Deployment.apps kube-system/node-agent"): [
            ("spec.template.spec.hostNetwork", None, True)
        ]
    }
    assert [f.rule_id for f in result.judgement.findings if f.actionable] == ["pss-host-namespaces"]
    assert result.review.complete


def test_an_overlay_patch_reaches_only_its_cluster(fleet, renderer):
    review = _review(fleet, "02-prod-web-memory", renderer).review
    assert _changes(review) == {
        ("apps/overlays/prod", "Deployment.apps web/web"): [
            ("spec.template.spec.containers[name=web].resources.limits.memory", "512Mi", "768Mi")
        ]
    }
    (prod,) = review.chart_reviews
    assert (
        prod.cluster == "prod"
        and prod.release == "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps@prod"
    )


def test_a_substituted_variable_reaches_the_built_objects_and_the_release_they_hold(
    fleet, renderer
):
    review = _review(fleet, "03-staging-replicas", renderer).review
    changes = _changes(review)
    assert changes[("apps/overlays/staging", "Deployment.apps web/web")] == [
        ("spec.replicas", 1, 2)
    ]
    assert changes[("charts/api", "Deployment.apps web/api")] == [("spec.replicas", 1, 2)]
    (api,) = [r for r in review.chart_reviews if r.chart == "charts/api"]
    assert api.cluster == "staging"
    assert review.complete


def test_an_external_chart_bump_renders_both_versions_from_the_shipped_cache(fleet, renderer):
    result = _review(fleet, "04-podinfo-6-6", renderer)
    (podinfo,) = [
        r
        for r in result.review.chart_reviews
        if r.release and r.release.endswith("HelmRelease/flux-system/podinfo@prod")
    ]
    assert podinfo.outcome is ChartOutcome.CHANGED
    (change,) = podinfo.changes
    assert (
        "spec.template.spec.containers[name=podinfo].image",
        "ghcr.io/stefanprodan/podinfo:6.5.0",
        "ghcr.io/stefanprodan/podinfo:6.6.0",
    ) in [(f.path, f.before, f.after) for f in change.fields]
    assert result.review.complete
    assert not [
        f for f in result.judgement.findings if f.rule_id in ("object-conflict", "object-duplicate")
    ]


def test_a_generator_data_change_is_one_renamed_config_map_that_rolls_the_deployment(
    fleet, renderer
):
    result = _review(fleet, "05-web-log-format", renderer)
    review = result.review
    for cluster in ("prod", "staging"):
        (built,) = [r for r in review.chart_reviews if r.chart == f"apps/overlays/{cluster}"]
        changes = {c.key.kind: c for c in built.changes}
        assert sorted(changes) == [
            "ConfigMap",
            "Deployment",
        ]  # no object deleted and another created
        config, deployment = changes["ConfigMap"], changes["Deployment"]
        assert config.kind is ObjectChangeKind.RENAMED and config.generator == "ConfigMapGenerator"
        assert config.previous_key is not None
        old, new = config.previous_key.name, config.key.name
        assert [(f.path, f.before, f.after) for f in config.fields] == [
            ("data.CACHE_TTL", None, "60s"),
            ("data.LOG_FORMAT", None, "json"),
            ("metadata.name", old, new),
        ]
        assert config.templates == ("apps/base/web/kustomization.yaml",)
        assert config.rolls == (deployment.key,)
        assert [(f.path, f.before, f.after) for f in deployment.fields] == [
            ("spec.template.spec.containers[name=web].envFrom[0].configMapRef.name", old, new)
        ]
    renames = [f for f in result.judgement.findings if f.rule_id == "resource-deleted"]
    assert len(renames) == 2 and all("rolls Deployment.apps web/web" in f.message for f in renames)
    # Two clusters' renames read alike but for where they happen: each message says which.
    assert sorted(
        c
        for f in renames
        for c in ("prod", "staging")
        if f"(release apps in cluster {c})" in f.message
    ) == ["prod", "staging"]
    assert {f.severity.value for f in renames} == {"info"}
    assert review.complete


def test_the_graph_links_a_patch_file_to_the_object_it_patches(fleet, renderer):
    result = _review(fleet, "02-prod-web-memory", renderer)
    graph = build_graph(result.review)
    patch = "template:apps/overlays/prod/web-resources.yaml"
    (edge,) = [e for e in graph.edges if e.source == patch and e.kind is EdgeKind.RENDERS]
    assert edge.target.endswith("::apps/Deployment/web/web") and edge.via == "patches or feeds it"
    reach = blast_radius(graph).get(edge.target)
    assert reach is not None and [e.source for e in reach.path][1:3] == [
        "file:apps/overlays/prod/web-resources.yaml",
        patch,
    ]  # commit -> the patch file -> its template node -> the Deployment


def test_the_base_release_is_rendered_once_per_cluster_with_its_cluster_variables(fleet, renderer):
    review = _review(fleet, "06-api-image", renderer).review
    api = {r.cluster: r for r in review.chart_reviews if r.chart == "charts/api"}
    assert sorted(api) == ["prod", "staging"]
    for cluster, replicas in (("prod", 3), ("staging", 2)):
        assert api[cluster].release == f"helm.toolkit.fluxcd.io/HelmRelease/web/api@{cluster}"
        (change,) = api[cluster].changes
        assert [(f.path, f.after) for f in change.fields] == [
            ("spec.template.spec.containers[name=api].image", "ghcr.io/example/api:1.4.0")
        ]
        deployment = next(o.body for o in api[cluster].head_objects if o.key.kind == "Deployment")
        assert deployment["spec"]["replicas"] == replicas
        env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
        assert env == [{"name": "CLUSTER", "value": cluster}]
    assert review.complete


def test_an_external_chart_range_is_pinned_from_the_shipped_index(fleet, renderer):
    result = _review(fleet, "07-podinfo-range", renderer)
    (podinfo,) = [
        r
        for r in result.review.chart_reviews
        if r.release and r.release.endswith("HelmRelease/flux-system/podinfo@prod")
    ]
    (change,) = podinfo.changes
    assert [(f.path, f.before, f.after) for f in change.fields] == [("spec.replicas", 2, 3)]
    assert podinfo.affected.path[-1].relation == (
        "installed by the release (observed: version 6.6.0, the highest in the chart cache's"
        " index.yaml satisfying '6.x')"
    )
    assert result.review.complete
