"""Blast-radius labels in the comment's Mermaid chart, shortened by what they are (report/comment/mermaid.py):
a commit subject or test name keeps its start, a path its last whole segments, an object its kind
and name."""

from __future__ import annotations

from aftershock.graph.model import Layer
from aftershock.report.comment.mermaid import _short


def test_a_commit_subject_keeps_its_start():
    label = "96fa738 feat(orders): run three replicas by default"
    assert _short(label, 32, Layer.COMMIT) == "96fa738 feat(orders): run three…"


def test_a_path_keeps_its_last_whole_segments():
    assert (
        _short("charts/apps/payments/values.yaml", 31, Layer.FILE) == "…/apps/payments/values.yaml"
    )
    deep = "system/kube-monitoring-kubernikus/charts/prometheus-server/templates/prometheus-server.yaml"
    assert _short(deep, 32, Layer.FILE) == "…/prometheus-server.yaml"


def test_a_unit_keeps_its_path_and_a_test_name_its_start():
    unit = "values_file charts/apps/payments/values.yaml"
    assert _short(unit, 30, Layer.UNIT) == "…/apps/payments/values.yaml"
    assert _short(unit, 32, Layer.UNIT) == "charts/apps/payments/values.yaml"
    test = "test traefik/tests/pod_test.yaml/should set the log level when configured"
    assert _short(test, 32, Layer.UNIT) == "test traefik/tests/pod_test.yam…"


def test_an_object_keeps_its_kind_and_name_its_group_dropped_first():
    label = "HelmRelease.helm.toolkit.fluxcd.io flux-system/orders"
    assert _short(label, 32, Layer.OBJECT) == "HelmRelease flux-system/orders"
    scenario = "Deployment.apps orders/orders toggle:autoscaling.enabled=true"
    assert _short(scenario, 32, Layer.OBJECT) == "Deployment orders/orders …d=true"
    label = "Deployment release-traefik-very-long-name-here"
    assert _short(label, 32, Layer.OBJECT) == "Deployment …-very-long-name-here"


def test_a_values_key_keeps_its_end_and_every_label_fits():
    key = "providers.kubernetesCRD.defaultTLSResourcesNamespace"
    assert _short(key, 32, Layer.UNIT) == "…RD.defaultTLSResourcesNamespace"
    for label, layer in ((key, Layer.UNIT), ("a/" + "x" * 60, Layer.FILE), ("short", Layer.FILE)):
        assert len(_short(label, 32, layer)) <= 32
