"""Where an `oci://` chart is asked for: https unless the registry is on loopback or plain http is
asked for, the chart's name under the repository path, and `+` of a version written `_` as Helm
writes OCI tags; a pull from a loopback registry is checked against the manifest's layer digest.
A registry's (a chart repository's) mirror serves its charts under the mirror's own path, checked alike."""

from __future__ import annotations

import hashlib

import pytest
import yaml

from aftershock.model.errors import AftershockError, ConfigError
from aftershock.render.external.chart_archives import ChartCache, ExternalChart
from aftershock.render.external.mirrors import Mirror, parse_mirror
from aftershock.render.external.oci_registry import locate
from ociregistry import serve_registry
from served_folder import serve_folder


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


def test_a_mirror_takes_the_registry_s_place_under_its_own_path():
    chart = locate("oci://ghcr.io/org/charts", "lib", "1.0.0+b", mirror="https://harbor.lan/ghcr")
    assert chart.url("manifests", chart.tag) == (
        "https://harbor.lan/v2/ghcr/org/charts/lib/manifests/1.0.0_b"
    )
    assert chart.shown == "oci://ghcr.io/org/charts/lib:1.0.0_b" and not chart.plain_http
    assert chart.named == "oci://ghcr.io/org/charts/lib:1.0.0_b (mirror https://harbor.lan/ghcr)"
    assert locate("oci://ghcr.io/org", "lib", "1.0.0", mirror="http://127.0.0.1:5000").plain_http


def test_a_mirror_is_host_equals_url_and_plain_http_only_on_loopback_or_when_asked():
    assert parse_mirror("GHCR.io=https://harbor.lan/ghcr/") == Mirror(
        "ghcr.io", "https://harbor.lan/ghcr"
    )
    assert parse_mirror("ghcr.io=http://localhost:5000").plain_http
    assert parse_mirror("ghcr.io=http://harbor.lan", plain_http=True).url == "http://harbor.lan"
    with pytest.raises(
        ConfigError, match="plain http off loopback; use https, or pass --plain-http"
    ):
        parse_mirror("ghcr.io=http://harbor.lan")
    for wrong in ("ghcr.io", "oci://ghcr.io=https://harbor.lan", "=https://harbor.lan"):
        with pytest.raises(ConfigError, match="not HOST=URL"):
            parse_mirror(wrong)
    with pytest.raises(ConfigError, match="oci://harbor.lan is not an http"):
        parse_mirror("ghcr.io=oci://harbor.lan")


def test_a_chart_of_a_mirrored_registry_is_pulled_from_the_mirror_and_checked_alike():
    with serve_registry() as registry:
        digest = registry.push("proxy/org/charts/lib", "3.0.0", b"archive")
        mirrors = (parse_mirror(f"ghcr.io={registry.url}/proxy"),)
        cache = ChartCache(fetch=True, timeout_seconds=10, mirrors=mirrors)
        lib = ExternalChart("oci://ghcr.io/org/charts", "lib", "3.0.0")
        assert cache.download(lib) == (b"archive", digest.removeprefix("sha256:"))
        assert registry.asked[0] == "GET /v2/proxy/org/charts/lib/manifests/3.0.0 (anonymous)"
        with pytest.raises(
            AftershockError,
            match=f"no tag 3.1.0 in oci://ghcr.io/org/charts/lib on mirror {registry.url}/proxy",
        ):
            cache.download(ExternalChart("oci://ghcr.io/org/charts", "lib", "3.1.0"))
        registry.push("proxy/org/charts/lib", "3.0.0", b"archive", served=b"archivf")
        with pytest.raises(
            AftershockError, match=r"from oci://ghcr.io/org/charts/lib:3.0.0 \(mirror "
        ):
            cache.download(lib)


@pytest.fixture
def chart_repository(tmp_path):
    """A Helm chart repository's files served over HTTP on loopback, under /proxy/stable/."""
    folder = tmp_path / "served" / "proxy" / "stable"
    folder.mkdir(parents=True)
    with serve_folder(tmp_path / "served") as url:
        yield folder, url


def test_a_chart_repository_s_index_and_archive_are_read_from_its_mirror(chart_repository):
    folder, url = chart_repository
    (folder / "lib-3.0.0.tgz").write_bytes(b"archive")
    entry = {"version": "3.0.0", "digest": hashlib.sha256(b"archive").hexdigest()}
    index = {"apiVersion": "v1", "entries": {"lib": [{**entry, "urls": ["lib-3.0.0.tgz"]}]}}
    (folder / "index.yaml").write_text(yaml.safe_dump(index))
    mirrors = (parse_mirror(f"charts.example.invalid={url}/proxy"),)
    cache = ChartCache(fetch=True, timeout_seconds=10, mirrors=mirrors)
    lib = ExternalChart("https://charts.example.invalid/stable", "lib", "3.x")
    pinned = cache.pin(lib).chart
    assert pinned.version == "3.0.0" and pinned.repository == lib.repository
    assert cache.download(pinned) == (b"archive", entry["digest"])
    (folder / "lib-3.0.0.tgz").write_bytes(b"archivf")
    with pytest.raises(
        AftershockError, match=f"index.yaml digest .{url}/proxy/stable/lib-3.0.0.tgz"
    ):
        cache.download(pinned)
