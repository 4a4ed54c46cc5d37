"""Where an `oci://` chart is asked for: https unless the registry is on loopback or plain http is
asked for, the chart's name under the repository path, and `+` of a version written `_` as Helm
writes OCI tags; a pull from a loopback registry is checked against the manifest's layer digest."""

from __future__ import annotations

import hashlib

import pytest

from aftershock.model.errors import AftershockError
from aftershock.render.external.chart_archives import ChartCache, ExternalChart
from aftershock.render.external.oci_registry import locate
from ociregistry import serve_registry


def test_a_registry_off_loopback_is_reached_over_https_unless_plain_http_is_asked_for():
    chart = locate("oci://ghcr.io/org/charts/", "lib", "1.2.3+build.4")
    assert (
        chart.url("manifests", chart.tag)
        == "https://ghcr.io/v2/org/charts/lib/manifests/1.2.3_build.4"
    )
    assert chart.shown == "oci://ghcr.io/org/charts/lib:1.2.3_build.4" and not chart.plain_http
    assert locate("oci://ghcr.io/org", "lib", "1.0.0", plain_http=True).base == "http://ghcr.io"
    for host in ("127.0.0.1:5000", "localhost:5000", "[::1]:5000"):
        assert locate(f"oci://{host}", "lib", "1.0.0").base == f"http://{host}"
    assert locate("oci://registry.example", "lib", "1.0.0").path == "lib"


def test_a_repository_that_is_no_oci_url_is_one_line():
    with pytest.raises(AftershockError, match="is not an OCI registry URL"):
        locate("oci:///charts", "lib", "1.0.0")


def test_the_chart_cache_downloads_from_an_oci_registry_with_the_layer_digest():
    with serve_registry() as registry:
        registry.push("charts/lib", "3.0.0", b"archive")
        repository = registry.url.replace("http://", "oci://") + "/charts"
        cache = ChartCache(fetch=True, timeout_seconds=10)
        data, digest = cache.download(ExternalChart(repository, "lib", "3.0.0"))
        assert (data, digest) == (b"archive", hashlib.sha256(b"archive").hexdigest())
        lib = ExternalChart(repository, "lib", "3.0.0")
        with pytest.raises(AftershockError, match="the chart layer is 7 bytes, over 3;"):
            ChartCache(fetch=True, max_bytes=3).download(lib)
        registry.push("charts/lib", "3.0.0", b"archive", served=b"archive, and much more")
        with pytest.raises(AftershockError, match="blobs/sha256:[0-9a-f]+ is over 8 bytes"):
            ChartCache(fetch=True, max_bytes=8).download(lib)
