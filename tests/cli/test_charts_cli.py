"""`aftershock charts fetch` as a user runs it: the version a Chart.lock pins, downloaded from a real
chart repository (an OCI registry) on loopback into the chart cache and checked against its
index.yaml digest (the manifest's layer digest), then rendered by the review from there; a chart of
an unreachable registry (ghcr.io) pulled from its mirror on loopback and cached as from ghcr.io."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from aftershock.model.units import DependencySource
from aftershock.pipeline import ReviewRequest, run_review
from charts import chart_yaml, packaged
from gitrepo import commit, make_repo
from ociregistry import serve_registry
from served_folder import serve_folder

AFTERSHOCK = [sys.executable, "-m", "aftershock.cli"]
CM = (
    '{{- define "lib.cm" -}}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\n'
    "data: {KEY: {{ .Values.mode | quote }}}\n{{- end -}}\n"
)


def lib_archive(version: str, key: str) -> bytes:
    files = {
        "lib/Chart.yaml": f"apiVersion: v2\nname: lib\nversion: {version}\ntype: library\n",
        "lib/templates/_cm.tpl": CM.replace("KEY", key),
    }
    return packaged(files)


@pytest.fixture
def served(tmp_path):
    """A Helm chart repository (index.yaml and archives) served over HTTP on loopback."""
    folder = tmp_path / "served"
    folder.mkdir()
    with serve_folder(folder) as url:
        yield folder, url


def publish(folder: Path, data: bytes, digest: str | None = None) -> None:
    (folder / "lib-3.0.0.tgz").write_bytes(data)
    entry = {"version": "3.0.0", "digest": digest or hashlib.sha256(data).hexdigest()}
    entry["urls"] = ["lib-3.0.0.tgz"]
    (folder / "index.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "entries": {"lib": [entry]}})
    )


def platform(tmp_path: Path, url: str, locked: str = "3.0.0") -> tuple[Path, str]:
    """An app depending on any lib from `url`, locked to 3.0.0; this repository's own lib is 2.1.0."""
    deps = f'dependencies:\n- name: lib\n  version: ">= 0.0.0"\n  repository: {url}\n'
    lock = (
        f"dependencies:\n- name: lib\n  repository: {url}\n  version: {locked}\ndigest: sha256:0\n"
    )
    repo = make_repo(tmp_path)
    files = {
        "charts/lib/Chart.yaml": "apiVersion: v2\nname: lib\nversion: 2.1.0\ntype: library\n",
        "charts/lib/templates/_cm.tpl": CM.replace("KEY", "lib2mode"),
        "apps/web/Chart.yaml": chart_yaml("web", deps=deps),
        "apps/web/Chart.lock": lock,
        "apps/web/values.yaml": "mode: fast\n",
        "apps/web/templates/cm.yaml": '{{ include "lib.cm" . }}\n',
    }
    base = commit(repo, files, "feat: web")
    commit(repo, {"apps/web/values.yaml": "mode: slow\n"}, "feat: slow")
    return repo, base


def fetch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AFTERSHOCK, "charts", "fetch", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "CI": "true"},
        timeout=120,
    )


def test_fetch_downloads_the_locked_version_and_the_review_renders_it(tmp_path, served, renderer):
    folder, url = served
    publish(folder, lib_archive("3.0.0", "lib3mode"))
    repo, base = platform(tmp_path, url)
    cache = tmp_path / "cache"
    before = run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (gap,) = before.not_reviewed
    assert "aftershock charts fetch --repo . --chart-cache DIR apps/web" in gap.reason
    done = fetch("--repo", str(repo), "--chart-cache", str(cache), "apps/web")
    assert done.returncode == 0, done.stderr
    assert (
        f"fetched: {url}/lib 3.0.0 (for apps/web)" in done.stdout
        and "digest checked" in done.stdout
    )
    assert (cache / "lib-3.0.0.tgz").is_file() and (cache / "lib-3.0.0.tgz.sha256").is_file()
    again = fetch("--repo", str(repo), "--chart-cache", str(cache))
    assert again.returncode == 0 and "nothing to fetch" in again.stdout
    assert_renders_from_cache(repo, base, cache, renderer)


def assert_renders_from_cache(repo, base, cache, renderer) -> None:
    """The review with the cache renders the fetched lib 3.0.0 (`cached`) and sees its key change."""
    result = run_review(
        ReviewRequest(repo=repo, base=base, run_tests=False, chart_cache=cache), renderer
    )
    assert result.not_reviewed == ()
    (web,) = [c for c in result.charts if c.path == "apps/web"]
    assert web.dependencies[0].source is DependencySource.CACHED
    (review,) = result.chart_reviews
    assert [f.path for c in review.changes for f in c.fields] == ["data.lib3mode"]


def test_an_archive_that_does_not_match_the_index_digest_is_not_kept(tmp_path, served):
    folder, url = served
    publish(folder, lib_archive("3.0.0", "lib3mode"), digest="0" * 64)
    repo, _ = platform(tmp_path, url)
    cache = tmp_path / "cache"
    done = fetch("--repo", str(repo), "--chart-cache", str(cache))
    assert done.returncode == 3, done.stderr
    assert "not fetched" in done.stdout and "does not match its index.yaml digest" in done.stdout
    assert not (cache / "lib-3.0.0.tgz").exists()


def test_fetch_without_a_chart_cache_is_one_line(tmp_path):
    repo, _ = platform(tmp_path, "https://charts.example.invalid")
    done = fetch("--repo", str(repo))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "aftershock: error: no chart cache to fetch into; pass --chart-cache DIR (or set chart_cache: in .aftershock.yaml)"
    ]


@pytest.fixture
def registry():
    """An OCI registry on loopback (reached over plain http, as loopback registries are)."""
    with serve_registry() as served:
        yield served


def oci_url(registry) -> str:
    return registry.url.replace("http://", "oci://") + "/charts"


def test_fetch_pulls_an_oci_dependency_and_the_review_renders_it(tmp_path, registry, renderer):
    digest = registry.push("charts/lib", "3.0.0", lib_archive("3.0.0", "lib3mode"))
    repo, base = platform(tmp_path, oci_url(registry))
    cache = tmp_path / "cache"
    before = run_review(ReviewRequest(repo=repo, base=base, run_tests=False), renderer)
    (gap,) = before.not_reviewed
    assert "aftershock charts fetch --repo . --chart-cache DIR apps/web" in gap.reason
    assert "helm pull" not in gap.reason
    done = fetch("--repo", str(repo), "--chart-cache", str(cache), "apps/web")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"fetched: {oci_url(registry)}/lib 3.0.0 (for apps/web) into {cache} (digest checked)"
    ]
    written = (cache / "lib-3.0.0.tgz.sha256").read_text()
    assert written == digest.removeprefix("sha256:") + "\n"
    assert fetch("--repo", str(repo), "--chart-cache", str(cache)).stdout.startswith("nothing")
    assert_renders_from_cache(repo, base, cache, renderer)


def test_an_anonymous_token_is_asked_for_once_and_a_plus_is_written_underscore(tmp_path, registry):
    registry.token = "anon-t0ken"
    registry.push("charts/lib", "3.0.0_build.1", lib_archive("3.0.0+build.1", "lib3mode"))
    repo, _ = platform(tmp_path, oci_url(registry), locked="3.0.0+build.1")
    cache = tmp_path / "cache"
    done = fetch("--repo", str(repo), "--chart-cache", str(cache))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (cache / "lib-3.0.0+build.1.tgz").is_file()
    manifest, token, again, blob = registry.asked
    assert manifest == "GET /v2/charts/lib/manifests/3.0.0_build.1 (anonymous)"
    assert token == "GET /token?service=fake&scope=repository%3Acharts%2Flib%3Apull (anonymous)"
    assert again == manifest.replace("anonymous", "Bearer anon-t0ken")
    assert blob.startswith("GET /v2/charts/lib/blobs/sha256:") and "Bearer anon-t0ken" in blob


def test_an_oci_blob_that_does_not_match_its_manifest_digest_is_refused(tmp_path, registry):
    digest = registry.push("charts/lib", "3.0.0", lib_archive("3.0.0", "x"), served=b"tampered")
    repo, _ = platform(tmp_path, oci_url(registry))
    cache = tmp_path / "cache"
    done = fetch("--repo", str(repo), "--chart-cache", str(cache))
    assert done.returncode == 3 and "Traceback" not in done.stderr
    (line,) = done.stdout.splitlines()
    assert line.startswith(f"not fetched: {oci_url(registry)}/lib 3.0.0 (for apps/web): chart")
    assert f"does not match its manifest's layer digest {digest}" in line
    assert not cache.exists() or list(cache.iterdir()) == []


def test_an_oci_artifact_without_a_chart_layer_is_not_fetched(tmp_path, registry):
    layer = "application/vnd.oci.image.layer.v1.tar+gzip"
    registry.push("charts/lib", "3.0.0", lib_archive("3.0.0", "x"), layer=layer)
    repo, _ = platform(tmp_path, oci_url(registry))
    done = fetch("--repo", str(repo), "--chart-cache", str(tmp_path / "cache"))
    assert done.returncode == 3
    (line,) = done.stdout.splitlines()
    assert f"{oci_url(registry)}/lib:3.0.0 holds no Helm chart" in line
    assert f"its layers: {layer}" in line and not (tmp_path / "cache").exists()


def test_a_missing_oci_tag_says_which_and_where(tmp_path, registry):
    registry.push("charts/lib", "2.9.0", lib_archive("2.9.0", "x"))
    repo, _ = platform(tmp_path, oci_url(registry))
    done = fetch("--repo", str(repo), "--chart-cache", str(tmp_path / "cache"))
    assert done.returncode == 3
    url = f"{registry.url}/v2/charts/lib/manifests/3.0.0"
    assert done.stdout.splitlines() == [
        f"not fetched: {oci_url(registry)}/lib 3.0.0 (for apps/web): lib-3.0.0.tgz: no tag 3.0.0 in "
        f"{oci_url(registry)}/lib (GET {url} answered 404: MANIFEST_UNKNOWN); check the version "
        "Chart.lock pins and that the chart is pushed to that registry"
    ]


def app_archive(name: str, version: str, key: str) -> bytes:
    """An application chart's archive: one ConfigMap whose data key names the version's layout."""
    files = {
        f"{name}/Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: {version}\n",
        f"{name}/values.yaml": "mode: fast\n",
        f"{name}/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\n"
        f"data: {{{key}: {{{{ .Values.mode | quote }}}}}}\n",
    }
    return packaged(files)


def flux_apps(oci: str, http: str, tag: str) -> dict[str, str]:
    """A Flux tree: podinfo from an OCIRepository (`chartRef`, `ref.tag`), web from a HelmRepository
    by a version range."""
    return {
        "apps/podinfo/ocirepository.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n"
        f"metadata: {{name: podinfo, namespace: apps}}\nspec:\n  url: {oci}/podinfo\n  ref: {{tag: {tag}}}\n",
        "apps/podinfo/helmrelease.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
        "metadata: {name: podinfo, namespace: apps}\nspec:\n"
        "  chartRef: {kind: OCIRepository, name: podinfo}\n  values: {mode: slow}\n",
        "apps/web/helmrepository.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\n"
        f"metadata: {{name: charts, namespace: apps}}\nspec: {{url: {http}}}\n",
        "apps/web/helmrelease.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
        "metadata: {name: web, namespace: apps}\nspec:\n  chart:\n    spec:\n      chart: web\n"
        '      version: "1.x"\n      sourceRef: {kind: HelmRepository, name: charts}\n',
    }


def test_fetch_reads_the_releases_charts_at_base_and_head_and_the_bump_is_reviewed(
    tmp_path, registry, served, renderer
):
    """A Renovate-style bump of an OCIRepository tag: not reviewed without the chart cache; with it,
    filled by `charts fetch` for both refs, the bump renders at both versions."""
    for version, key in (("1.0.0", "old"), ("1.1.0", "new")):
        registry.push("charts/podinfo", version, app_archive("podinfo", version, key))
    folder, url = served
    web = app_archive("web", "1.2.0", "web")
    (folder / "web-1.2.0.tgz").write_bytes(web)
    entry = {
        "version": "1.2.0",
        "digest": hashlib.sha256(web).hexdigest(),
        "urls": ["web-1.2.0.tgz"],
    }
    (folder / "index.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "entries": {"web": [entry]}})
    )
    repo = make_repo(tmp_path)
    oci = oci_url(registry)
    base = commit(repo, flux_apps(oci, url, "1.0.0"), "feat: podinfo and web")
    head = commit(repo, flux_apps(oci, url, "1.1.0"), "chore(deps): update podinfo to 1.1.0")
    cache = tmp_path / "cache"
    before = run_review(ReviewRequest(repo=repo, base=base, head=head, run_tests=False), renderer)
    assert any("podinfo" in g.part for g in before.not_reviewed)
    done = fetch("--repo", str(repo), "--chart-cache", str(cache), "--ref", base, "--ref", head)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(done.stdout.splitlines()) == sorted(
        [
            f"fetched: {oci}/podinfo 1.0.0 (for apps/podinfo/helmrelease.yaml) into {cache} (digest checked)",
            f"fetched: {oci}/podinfo 1.1.0 (for apps/podinfo/helmrelease.yaml) into {cache} (digest checked)",
            f"fetched: {url}/web 1.2.0 (for apps/web/helmrelease.yaml) into {cache} (digest checked)",
        ]
    )
    again = fetch("--repo", str(repo), "--chart-cache", str(cache), "--ref", base, "--ref", head)
    assert again.stdout.startswith("nothing to fetch")
    after = run_review(
        ReviewRequest(repo=repo, base=base, head=head, run_tests=False, chart_cache=cache),
        renderer,
    )
    assert after.not_reviewed == ()
    (podinfo,) = [r for r in after.chart_reviews if r.chart == f"{oci}/podinfo"]
    assert podinfo.release == "helm.toolkit.fluxcd.io/HelmRelease/apps/podinfo"
    assert sorted(f.path for c in podinfo.changes for f in c.fields) == ["data.new", "data.old"]


def test_a_ghcr_chart_is_fetched_through_a_mirror_and_the_bump_is_reviewed_offline(
    tmp_path, renderer
):
    """A HelmRelease whose OCIRepository names oci://ghcr.io/…, which this machine cannot reach: `charts
    fetch --mirror ghcr.io=<a proxy on loopback>` pulls both versions from the mirror and caches them
    as from ghcr.io; the review, with the mirror gone, renders the bump from the cache."""
    oci = "oci://ghcr.io/org/charts"
    files = {k: v for k, v in flux_apps(oci, "", "1.0.0").items() if k.startswith("apps/podinfo")}
    repo = make_repo(tmp_path)
    base = commit(repo, files, "feat: podinfo")
    files = {k: v.replace("tag: 1.0.0", "tag: 1.1.0") for k, v in files.items()}
    head = commit(repo, files, "chore(deps): update podinfo to 1.1.0")
    cache = tmp_path / "cache"
    request = ReviewRequest(repo=repo, base=base, head=head, run_tests=False)
    before = run_review(request, renderer)
    (gap,) = before.not_reviewed
    assert gap.part == "release HelmRelease.helm.toolkit.fluxcd.io apps/podinfo"
    assert "podinfo-1.1.0.tgz from oci://ghcr.io/org/charts is not in the chart cache" in gap.reason
    with serve_registry() as proxy:
        for version, key in (("1.0.0", "old"), ("1.1.0", "new")):
            proxy.push("ghcr/org/charts/podinfo", version, app_archive("podinfo", version, key))
        mirror = f"{proxy.url}/ghcr"
        refs = ("--ref", base, "--ref", head)
        done = fetch(
            "--repo", str(repo), "--chart-cache", str(cache), *refs, "--mirror", f"ghcr.io={mirror}"
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert {p.split(" /v2/")[1].split("/")[0] for p in proxy.asked} == {"ghcr"}
    assert done.stdout.splitlines() == [
        f"fetched: {oci}/podinfo {v} (for apps/podinfo/helmrelease.yaml) from mirror {mirror} "
        f"into {cache} (digest checked)"
        for v in ("1.0.0", "1.1.0")
    ]
    assert sorted(p.name for p in cache.iterdir()) == [
        "podinfo-1.0.0.tgz",
        "podinfo-1.0.0.tgz.sha256",
        "podinfo-1.1.0.tgz",
        "podinfo-1.1.0.tgz.sha256",
    ]
    again = fetch("--repo", str(repo), "--chart-cache", str(cache), *refs)
    assert again.returncode == 0 and again.stdout.startswith("nothing to fetch")
    after = run_review(replace(request, chart_cache=cache), renderer)
    assert after.not_reviewed == ()
    (podinfo,) = [r for r in after.chart_reviews if r.chart == f"{oci}/podinfo"]
    assert sorted(f.path for c in podinfo.changes for f in c.fields) == ["data.new", "data.old"]


def test_a_plain_http_mirror_off_loopback_is_refused_before_any_work(tmp_path):
    repo, _ = platform(tmp_path, "oci://ghcr.io/org/charts")
    done = fetch(
        "--repo",
        str(repo),
        "--chart-cache",
        str(tmp_path / "c"),
        "--mirror",
        "ghcr.io=http://harbor.lan",
    )
    assert done.returncode == 2 and not (tmp_path / "c").exists()
    assert done.stderr.strip().splitlines() == [
        "aftershock: error: --mirror ghcr.io=http://harbor.lan: plain http off loopback; use https, "
        "or pass --plain-http for a mirror you trust over plain http"
    ]
