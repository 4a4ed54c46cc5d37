"""rollout-everywhere for a per-tenant chart: a Deployment every release of the chart renders and changes
rolls every tenant (the fixtures under tests/fixtures/rules/rollout-everywhere cover DaemonSets)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Severity
from aftershock.model.review import Review
from aftershock.rules.engine import evaluate
from rulecases import FIXTURES, build_review, read_manifests

CASE = FIXTURES / "rollout-everywhere" / "on-delete-and-single-deployment-silent"


def tenants(tmp_path: Path, names: list[str], changed: int) -> Review:
    """The case's chart released once per tenant; the first `changed` releases see the head render."""
    base = read_manifests(CASE / "base.yaml")
    review = build_review(base, read_manifests(CASE / "head.yaml"), tmp_path=tmp_path)
    [chart] = review.chart_reviews
    same = build_review(base, base, tmp_path=tmp_path / "same").chart_reviews[0]
    releases = tuple(
        replace(
            chart if i < changed else same, release=f"helm.toolkit.fluxcd.io/HelmRelease/{name}/app"
        )
        for i, name in enumerate(names)
    )
    return replace(review, chart_reviews=releases)


def rollouts(review: Review) -> list:
    found = evaluate(review, AftershockConfig())
    return [f for f in found if f.rule_id == "rollout-everywhere"]


def test_a_deployment_every_tenant_changes_is_reported_once_with_the_count(tmp_path):
    [finding] = rollouts(tenants(tmp_path, ["tenant-a", "tenant-b", "tenant-c"], changed=3))
    assert "rolls it in every one of the 3 releases of charts/app" in finding.message
    assert "it also changes the image" in finding.message
    assert finding.severity is Severity.MEDIUM


def test_a_deployment_only_some_tenants_change_is_not_everywhere(tmp_path):
    assert rollouts(tenants(tmp_path, ["tenant-a", "tenant-b", "tenant-c"], changed=2)) == []
