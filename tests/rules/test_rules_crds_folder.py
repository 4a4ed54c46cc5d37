"""Which objects Helm read from a chart's root `crds/` folder: those it never upgrades nor deletes."""

from __future__ import annotations

import pytest

from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.rules.upgrade.crds_folder import from_crds_folder


def crd(template: str, chart: str = "charts/app") -> RenderedObject:
    key = ObjectKey("apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com")
    return RenderedObject(key, "apiextensions.k8s.io/v1", {}, chart, template)


@pytest.mark.parametrize(
    "template, chart, expected",
    [
        ("charts/app/crds/widgets.yaml", "charts/app", True),
        ("charts/app/crds/nested/widgets.yaml", "charts/app", True),
        ("charts/app/charts/sub/crds/widgets.yaml", "charts/app", True),
        ("crds/widgets.yaml", "", True),
        ("libs/sub/crds/widgets.yaml", "charts/app", True),  # a file:// dependency beside it
        ("charts/app/templates/crds/crds.yaml", "charts/app", False),
        ("charts/app/charts/sub/templates/crds/crds.yaml", "charts/app", False),
        ("templates/crds/crds.yaml", "", False),
        ("libs/sub/templates/crds/crds.yaml", "charts/app", False),
        ("charts/app/templates/crd.yaml", "charts/app", False),
    ],
)
def test_only_a_charts_root_crds_folder_counts(template, chart, expected):
    assert from_crds_folder(crd(template, chart)) is expected
