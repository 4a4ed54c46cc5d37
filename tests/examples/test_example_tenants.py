"""The tenant platform example (examples/tenants): charts that render only in their platform's context.

Each commit of its history is visible in one place only: a chart's context, a `lookup`, a release
downstream, a dependency by repository URL, a scenario's partial override. The review must see each.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aftershock.model.contexts import ContextKind
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tenants(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("example") / "tenants"
    subprocess.run(
        [sys.executable, str(PROJECT / "scripts" / "build_example.py"), str(dest), "tenants"],
        check=True,
        capture_output=True,
    )
    return dest


@pytest.fixture(scope="module")
def reviewed(tenants, renderer):
    cache = {}

    def review(head: str):
        if head not in cache:
            cache[head] = review_change(
                ReviewRequest(repo=tenants, base=f"{head}^", head=head), renderer
            )
        return cache[head]

    return review


def default_reviews(result, chart):
    return [r for r in result.review.chart_reviews if r.chart == chart and r.scenario == "default"]


def test_a_change_visible_only_in_the_charts_context(reviewed):
    result = reviewed("state-01-billing-ledger-v2")
    review = result.review
    assert review.complete, review.not_reviewed
    (context,) = review.contexts
    assert context.kind is ContextKind.RELEASE and context.release_name == "tenant-acme"
    (billing,) = default_reviews(result, "charts/apps/billing")
    assert billing.outcome is ChartOutcome.CHANGED
    (change,) = billing.changes
    (field,) = change.fields
    assert field.after == "https://ledger.prod-eu-1.example.internal/v2"


def test_a_change_visible_only_through_a_lookup(reviewed):
    review = reviewed("state-02-platform-api-host").review
    assert review.complete, review.not_reviewed
    gateway = next(c for c in review.contexts if c.chart == "charts/apps/gateway")
    assert gateway.lookups == ("ConfigMap platform-system/platform-config",)
    (dependent,) = [r for r in review.chart_reviews if r.chart == "charts/apps/gateway"]
    assert [s.relation for s in dependent.affected.path][-2:] == [
        "rendered by charts/platform/platform-config",
        "looks it up (charts/apps/gateway/templates/deployment.yaml)",
    ]
    (change,) = dependent.changes
    assert [(f.path, f.after) for f in change.fields] == [
        (
            "spec.template.spec.containers[name=gateway].env[name=UPSTREAM_HOST].value",
            "api.platform-v2.example.internal",
        )
    ]


def test_a_change_visible_only_downstream_of_a_release_that_needs_a_context(reviewed):
    review = reviewed("state-03-billing-replicas").review
    assert review.complete, review.not_reviewed
    billing = [
        r
        for r in review.chart_reviews
        if r.chart == "charts/apps/billing" and r.scenario == "default"
    ]
    (downstream,) = billing
    assert downstream.release == "helm.toolkit.fluxcd.io/HelmRelease/flux-system/acme-billing"
    assert [(f.path, f.before, f.after) for c in downstream.changes for f in c.fields] == [
        ("spec.replicas", 2, 3)
    ]


def test_a_library_change_reaches_a_chart_through_its_dependency_by_url(reviewed):
    review = reviewed("state-04-tenant-lib-owner-label").review
    assert review.complete, review.not_reviewed
    assert [
        r.outcome
        for r in default_reviews(reviewed("state-04-tenant-lib-owner-label"), "charts/apps/billing")
    ] == [ChartOutcome.CHANGED]


def test_a_partial_override_in_a_scenario_drops_the_new_default(reviewed):
    result = reviewed("state-05-billing-tracing-default")
    traps = [f for f in result.judgement.findings if f.rule_id == "values-override-trap"]
    assert traps and "TRACING_ENDPOINT" in traps[0].message
