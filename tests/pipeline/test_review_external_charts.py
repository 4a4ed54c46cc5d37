"""Charts from outside the repository: a HelmRelease of a HelmRepository chart renders from the chart cache
(verified against index.yaml) or, with fetch_charts, from a real Helm chart repository served on loopback."""

from __future__ import annotations

import hashlib
import io
import tarfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from charts import DEPLOYMENT, chart_yaml
from gitrepo import commit, make_repo

REPOSITORY = """\
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {{name: upstream, namespace: flux-system}}
spec: {{url: "{url}"}}
"""

RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: podinfo, namespace: flux-system}}
spec:
  targetNamespace: apps
  chart:
    spec: {{chart: podinfo, version: "{version}", sourceRef: {{kind: HelmRepository, name: upstream}}}}
  values: {{replicas: {replicas}}}
"""


def archive(version: str, image: str) -> bytes:
    """A small packaged chart, laid out as `helm package` writes it (`podinfo/...`)."""
    files = {
        "podinfo/Chart.yaml": chart_yaml("podinfo").replace("0.1.0", version),
        "podinfo/values.yaml": f"replicas: 1\nimage: {image}\nmode: fast\n",
        "podinfo/templates/deployment.yaml": DEPLOYMENT,
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def write_repository(folder: Path, archives: dict[str, bytes], url: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for version, data in archives.items():
        (folder / f"podinfo-{version}.tgz").write_bytes(data)
        entries.append(
            {
                "version": version,
                "digest": hashlib.sha256(data).hexdigest(),
                "urls": [f"podinfo-{version}.tgz"],
            }
        )
    (folder / "index.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "entries": {"podinfo": entries}})
    )


@pytest.fixture
def chart_server(tmp_path):
    """A Helm chart repository (index.yaml and archives) served over HTTP on loopback."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}/charts"
    server.shutdown()
    server.server_close()


def fleet_repo(tmp_path: Path, url: str):
    repo = make_repo(tmp_path / "src")
    files = {
        "clusters/prod/repository.yaml": REPOSITORY.format(url=url),
        "clusters/prod/podinfo.yaml": RELEASE.format(version="6.5.0", replicas=2),
        "clusters/prod/other.yaml": RELEASE.format(version="6.5.0", replicas=2).replace(
            "name: podinfo, namespace", "name: other, namespace"
        ),
    }
    base = commit(repo, files, "feat: podinfo")
    commit(
        repo,
        {"clusters/prod/podinfo.yaml": RELEASE.format(version="6.6.0", replicas=2)},
        "bump podinfo",
    )
    return repo, base


ARCHIVES = {"6.5.0": archive("6.5.0", "podinfo:6.5.0"), "6.6.0": archive("6.6.0", "podinfo:6.6.0")}


def _review(repo, base, renderer, **options):
    return review_change(
        ReviewRequest(repo=repo, base=base, run_tests=False, **options), renderer
    ).review


def _podinfo(review):
    return [
        r
        for r in review.chart_reviews
        if r.release == "helm.toolkit.fluxcd.io/HelmRelease/flux-system/podinfo@prod"
    ]


def test_a_version_bump_renders_both_versions_from_the_chart_cache(tmp_path, renderer):
    repo, base = fleet_repo(tmp_path, "https://charts.example.com/podinfo")
    write_repository(tmp_path / "cache", ARCHIVES)
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (podinfo,) = _podinfo(review)
    assert (
        podinfo.outcome is ChartOutcome.CHANGED
        and podinfo.chart == "https://charts.example.com/podinfo/podinfo"
    )
    (change,) = podinfo.changes
    assert change.key.namespace == "apps"
    assert ("spec.template.spec.containers[name=app].image", "podinfo:6.5.0", "podinfo:6.6.0") in [
        (f.path, f.before, f.after) for f in change.fields
    ]
    assert (
        review.complete
    )  # the unchanged `other` release needs no archive of its own beyond the cache


def test_a_tampered_archive_is_refused_by_the_index_digest(tmp_path, renderer):
    repo, base = fleet_repo(tmp_path, "https://charts.example.com/podinfo")
    write_repository(tmp_path / "cache", ARCHIVES)
    (tmp_path / "cache" / "podinfo-6.6.0.tgz").write_bytes(archive("6.6.0", "evil:latest"))
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (gap,) = [g for g in review.not_reviewed if "podinfo" in g.part]
    assert "does not match its index.yaml digest" in gap.reason


def test_without_archives_only_the_release_the_change_reaches_is_not_reviewed(tmp_path, renderer):
    repo, base = fleet_repo(tmp_path, "https://charts.example.com/podinfo")
    commit(
        repo,
        {"clusters/prod/podinfo.yaml": RELEASE.format(version="6.6.0", replicas=3)},
        "and three replicas",
    )
    review = _review(repo, base, renderer)
    gaps = [g.part for g in review.not_reviewed]
    assert gaps == [
        "release HelmRelease.helm.toolkit.fluxcd.io flux-system/podinfo in cluster prod"
    ]  # `other` never touched
    assert "not in the chart cache" in review.not_reviewed[0].reason
    values = [
        (v.path, v.before, v.after) for v in review.values_changes if v.file.startswith("release ")
    ]
    assert values == [("replicas", 2, 3)]  # the release's own values diff is still shown


def test_fetch_charts_downloads_from_a_chart_repository_on_loopback(
    tmp_path, renderer, chart_server
):
    served, url = chart_server
    write_repository(served / "charts", ARCHIVES)
    repo, base = fleet_repo(tmp_path, url)
    cache = tmp_path / "fetched"
    review = _review(repo, base, renderer, chart_cache=cache, fetch_charts=True)
    (podinfo,) = _podinfo(review)
    assert podinfo.outcome is ChartOutcome.CHANGED
    assert sorted(p.name for p in cache.iterdir()) == ["podinfo-6.5.0.tgz", "podinfo-6.6.0.tgz"]
    (served / "charts" / "podinfo-6.6.0.tgz").write_bytes(
        archive("6.6.0", "evil:latest")
    )  # the index no longer matches
    review = _review(repo, base, renderer, chart_cache=tmp_path / "fresh", fetch_charts=True)
    assert any("does not match its index.yaml digest" in g.reason for g in review.not_reviewed)
