"""Provenance on the bundled example history: a default reaching a field through the library, and a
release template's default reaching the downstream chart's objects, each observed by one render."""

from __future__ import annotations

from aftershock.graph import EdgeKind, NodeKind, blast_radius, build_graph
from aftershock.model.releases import Evidence
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.observation.provenance import materialize_workspaces, trace_provenance
from aftershock.provenance import Check, provenance_edges

ORDERS_RELEASE = "helm.toolkit.fluxcd.io/HelmRelease/flux-system/orders"
OTEL = "spec.template.spec.containers[name=orders].env[name=OTEL_EXPORTER_OTLP_ENDPOINT]"


def traced(example_repo, renderer, tmp_path, base, head):
    review = run_review(ReviewRequest(repo=example_repo, base=base, head=head), renderer)
    base_root, head_root = materialize_workspaces(review, tmp_path)
    return review, trace_provenance(review, base_root, head_root, renderer)


def test_replica_count_default_produces_spec_replicas_through_the_library(
    example_repo, renderer, tmp_path
):
    _, report = traced(
        example_repo, renderer, tmp_path, "state-00-initial", "state-01-orders-replicas"
    )
    (item,) = report.fields
    assert (item.object_id, item.field) == (
        "charts/apps/orders::apps/Deployment/orders/orders",
        "spec.replicas",
    )
    (link,) = item.values
    assert link.ref == "charts/apps/orders/values.yaml::replicaCount"
    assert link.templates == ("charts/library/platform-lib/templates/_deployment.tpl",)
    assert (link.evidence, link.check, report.renders, report.cut) == (
        Evidence.OBSERVED,
        Check.PRODUCED,
        1,
        (),
    )


def test_release_default_reaches_the_downstream_deployment_by_produces_edges(
    example_repo, renderer, tmp_path
):
    review, report = traced(
        example_repo,
        renderer,
        tmp_path,
        "state-03-lib-security-context-helpers",
        "state-04-orders-release-tracing",
    )
    links = {
        (f.object_id, f.field): [(v.ref, v.evidence) for v in f.standing] for f in report.fields
    }
    assert links == {
        (
            f"charts/releases/platform-releases::{ORDERS_RELEASE}",
            "spec.values.env[name=OTEL_EXPORTER_OTLP_ENDPOINT]",
        ): [
            (
                "charts/releases/platform-releases/values.yaml::defaults.orders.env",
                Evidence.OBSERVED,
            )
        ],
        (f"charts/apps/orders@{ORDERS_RELEASE}::apps/Deployment/orders/orders", OTEL): [
            (
                "release HelmRelease.helm.toolkit.fluxcd.io flux-system/orders::env",
                Evidence.OBSERVED,
            )
        ],
    }
    assert report.renders == 2
    graph = build_graph(review, provenance_edges(report))
    reach = blast_radius(graph).get(
        f"downstream_object:charts/apps/orders@{ORDERS_RELEASE}::apps/Deployment/orders/orders"
    )
    assert reach is not None
    kinds = [graph.node(n).kind for n in reach.nodes]
    assert kinds[:4] == [NodeKind.COMMIT, NodeKind.FILE, NodeKind.VALUES_KEY, NodeKind.OBJECT]
    assert reach.path[2].kind is EdgeKind.PRODUCES and reach.path[2].via.startswith(
        "observed: spec.values.env"
    )
    produced = [
        e
        for e in graph.edges
        if e.kind is EdgeKind.PRODUCES and e.source == f"release_value:{ORDERS_RELEASE}::env"
    ]
    assert [e.via for e in produced] == [f"observed: {OTEL}"]
