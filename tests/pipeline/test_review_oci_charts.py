"""A Flux OCIRepository chart, with fetch_charts, pulled from a real OCI registry on loopback (the
manifest's chart layer, checked against its digest) and rendered at both versions of a tag bump."""

from __future__ import annotations

from test_review_external_charts import (
    ARCHIVES,
    _images,
    _podinfo,
    _review,
    podinfo_tag_bump,
)

from aftershock.model.review import ChartOutcome
from ociregistry import serve_registry


def test_fetch_charts_pulls_an_oci_repository_chart_from_a_registry_on_loopback(tmp_path, renderer):
    with serve_registry() as registry:
        repo, base = podinfo_tag_bump(tmp_path, registry)
        cache = tmp_path / "fetched"
        review = _review(repo, base, renderer, chart_cache=cache, fetch_charts=True)
        (podinfo,) = _podinfo(review)
        assert podinfo.outcome is ChartOutcome.CHANGED
        assert (_images(podinfo, "base"), _images(podinfo, "head")) == (
            ["podinfo:6.5.0"],
            ["podinfo:6.6.0"],
        )
        assert sorted(p.name for p in cache.iterdir()) == ["podinfo-6.5.0.tgz", "podinfo-6.6.0.tgz"]
        registry.push("charts/podinfo", "6.6.0", ARCHIVES["6.6.0"], served=ARCHIVES["6.5.0"])
        review = _review(repo, base, renderer, chart_cache=tmp_path / "fresh", fetch_charts=True)
        assert any(
            "does not match its manifest's layer digest" in g.reason for g in review.not_reviewed
        )
