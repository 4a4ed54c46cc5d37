"""A Flux OCIRepository chart, with fetch_charts, pulled from a real OCI registry on loopback (the
manifest's chart layer, checked against its digest) and rendered at both versions of a tag bump."""

from __future__ import annotations

from test_review_external_charts import (
    ARCHIVES,
    OCI_RELEASE,
    OCI_SOURCE,
    _images,
    _podinfo,
    _review,
)

from aftershock.model.review import ChartOutcome
from gitrepo import commit, make_repo
from ociregistry import serve_registry


def test_fetch_charts_pulls_an_oci_repository_chart_from_a_registry_on_loopback(tmp_path, renderer):
    with serve_registry() as registry:
        for version, data in ARCHIVES.items():
            registry.push("charts/podinfo", version, data)
        host = registry.url.removeprefix("http://")
        source = OCI_SOURCE.replace("registry.example.com", host)
        repo = make_repo(tmp_path / "src")
        files = {
            "clusters/prod/source.yaml": source.format(ref="tag: 6.5.0"),
            "clusters/prod/podinfo.yaml": OCI_RELEASE,
        }
        base = commit(repo, files, "feat: podinfo")
        commit(repo, {"clusters/prod/source.yaml": source.format(ref="tag: 6.6.0")}, "6.6.0")
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
