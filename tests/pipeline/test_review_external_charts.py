"""Charts from outside the repository: a HelmRelease of a HelmRepository chart renders from the chart cache
(verified against index.yaml) or, with fetch_charts, from a real Helm chart repository served on loopback."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from charts import DEPLOYMENT, chart_yaml, packaged
from gitrepo import commit, make_repo
from served_folder import serve_folder

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
    return packaged(files)


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
    with serve_folder(folder) as url:
        yield folder, f"{url}/charts"


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


RANGE_ARCHIVES = {
    **ARCHIVES,
    "7.0.0": archive("7.0.0", "podinfo:7.0.0"),
    "6.7.0-rc.1": archive("6.7.0-rc.1", "podinfo:6.7.0-rc.1"),
}


def range_repo(tmp_path: Path, url: str, version: str, replicas: int = 2):
    """podinfo pinned to 6.5.0 at base, asking for `version` (a range) at head."""
    repo = make_repo(tmp_path / "src")
    files = {
        "clusters/prod/repository.yaml": REPOSITORY.format(url=url),
        "clusters/prod/podinfo.yaml": RELEASE.format(version="6.5.0", replicas=2),
    }
    base = commit(repo, files, "feat: podinfo")
    release = RELEASE.format(version=version, replicas=replicas)
    commit(repo, {"clusters/prod/podinfo.yaml": release}, "follow a range")
    return repo, base


def _images(chart_review, side: str) -> list[str]:
    objects = chart_review.head_objects if side == "head" else chart_review.base_objects
    return [
        c["image"]
        for o in objects
        if o.key.kind == "Deployment"
        for c in o.body["spec"]["template"]["spec"]["containers"]
    ]


@pytest.mark.parametrize(
    ("version", "chosen"),
    [
        ("6.x", "6.6.0"),
        (">=6.5.0 <7", "6.6.0"),
        ("~6.5", "6.5.0"),
        ("*", "7.0.0"),
        ("^6.7.0-0", "6.7.0-rc.1"),
    ],
)
def test_a_range_is_pinned_to_the_highest_version_the_cached_index_lists(
    tmp_path, renderer, version, chosen
):
    repo, base = range_repo(tmp_path, "https://charts.example.com/podinfo", version, replicas=3)
    write_repository(tmp_path / "cache", RANGE_ARCHIVES)
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (podinfo,) = _podinfo(review)
    assert _images(podinfo, "base") == ["podinfo:6.5.0"]
    assert _images(podinfo, "head") == [f"podinfo:{chosen}"]
    step = podinfo.affected.path[-1]
    assert step.relation == (
        f"installed by the release (observed: version {chosen}, the highest in the chart cache's"
        f" index.yaml satisfying {version!r})"
    )
    assert review.complete


def test_without_an_index_a_range_is_pinned_among_the_cached_archives_as_inferred(
    tmp_path, renderer
):
    repo, base = range_repo(tmp_path, "https://charts.example.com/podinfo", "6.x")
    write_repository(tmp_path / "cache", RANGE_ARCHIVES)
    (tmp_path / "cache" / "index.yaml").unlink()
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (podinfo,) = _podinfo(review)
    assert _images(podinfo, "head") == ["podinfo:6.6.0"]  # not 7.0.0, not the release candidate
    assert podinfo.affected.path[-1].relation.startswith(
        f"installed by the release (inferred: version 6.6.0, the highest in the chart cache {tmp_path / 'cache'}"
    )


def test_a_range_no_version_satisfies_is_not_reviewed_with_the_reason(tmp_path, renderer):
    repo, base = range_repo(tmp_path, "https://charts.example.com/podinfo", "8.x")
    write_repository(tmp_path / "cache", RANGE_ARCHIVES)
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    assert not _podinfo(review)
    (gap,) = [g for g in review.not_reviewed if "podinfo" in g.part]
    assert (
        gap.part == "release HelmRelease.helm.toolkit.fluxcd.io flux-system/podinfo in cluster prod"
    )
    assert gap.reason.startswith(
        "no version of chart podinfo in the chart cache's index.yaml satisfies '8.x'"
        " (listed: 7.0.0, 6.7.0-rc.1, 6.6.0, 6.5.0)"
    )
    assert not review.complete


def test_fetch_charts_pins_a_range_against_the_repository_index_on_loopback(
    tmp_path, renderer, chart_server
):
    served, url = chart_server
    write_repository(served / "charts", RANGE_ARCHIVES)
    repo, base = range_repo(tmp_path, url, "<7", replicas=3)
    cache = tmp_path / "fetched"
    review = _review(repo, base, renderer, chart_cache=cache, fetch_charts=True)
    (podinfo,) = _podinfo(review)
    assert _images(podinfo, "head") == ["podinfo:6.6.0"]
    assert f"the highest in {url}/index.yaml satisfying '<7'" in podinfo.affected.path[-1].relation
    assert sorted(p.name for p in cache.iterdir()) == ["podinfo-6.5.0.tgz", "podinfo-6.6.0.tgz"]


ARGO_APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: podinfo, namespace: argocd}}
spec:
  destination: {{name: in-cluster, namespace: apps}}
  source:
    repoURL: https://charts.example.com/podinfo
    chart: podinfo
    targetRevision: "{version}"
    helm: {{valuesObject: {{replicas: {replicas}}}}}
"""


def test_an_argo_target_revision_range_is_pinned_too(tmp_path, renderer):
    repo = make_repo(tmp_path / "src")
    base = commit(
        repo, {"apps/podinfo.yaml": ARGO_APPLICATION.format(version="6.5.0", replicas=2)}, "app"
    )
    commit(repo, {"apps/podinfo.yaml": ARGO_APPLICATION.format(version="6.*", replicas=2)}, "6.*")
    write_repository(tmp_path / "cache", RANGE_ARCHIVES)
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (podinfo,) = [
        r for r in review.chart_reviews if r.release == "argoproj.io/Application/argocd/podinfo"
    ]
    assert _images(podinfo, "head") == ["podinfo:6.6.0"]
    assert "version 6.6.0, the highest in the chart cache's index.yaml satisfying '6.*'" in (
        podinfo.affected.path[-1].relation
    )


OCI_SOURCE = """\
apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: OCIRepository
metadata: {{name: podinfo, namespace: flux-system}}
spec:
  url: oci://registry.example.com/charts/podinfo
  ref: {{{ref}}}
"""

OCI_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: podinfo, namespace: flux-system}
spec:
  targetNamespace: apps
  chartRef: {kind: OCIRepository, name: podinfo}
  values: {replicas: 2}
"""


def podinfo_tag_bump(tmp_path: Path, registry) -> tuple[Path, str]:
    """Both podinfo archives pushed to `registry` (a loopback one), and a repository whose second
    commit bumps its OCIRepository's tag 6.5.0 -> 6.6.0; the repository and its first commit."""
    for version, data in ARCHIVES.items():
        registry.push("charts/podinfo", version, data)
    source = OCI_SOURCE.replace("registry.example.com", registry.url.removeprefix("http://"))
    return _source_changed(tmp_path, source, "tag: 6.6.0")


def _source_changed(tmp_path: Path, source: str, ref: str) -> tuple[Path, str]:
    """A repository whose podinfo release reads its chart from the OCIRepository `source` at
    `tag: 6.5.0`, then a commit that changes only the source's ref to `ref`; and its first commit."""
    repo = make_repo(tmp_path / "src")
    files = {
        "clusters/prod/source.yaml": source.format(ref="tag: 6.5.0"),
        "clusters/prod/podinfo.yaml": OCI_RELEASE,
    }
    base = commit(repo, files, "feat: podinfo")
    commit(repo, {"clusters/prod/source.yaml": source.format(ref=ref)}, ref)
    return repo, base


def test_an_oci_repository_semver_is_pinned_among_the_cached_archives(tmp_path, renderer):
    # Only the source changes: the release reads its chart from it, so the change reaches the release.
    repo, base = _source_changed(tmp_path, OCI_SOURCE, "semver: '6.x'")
    write_repository(tmp_path / "cache", RANGE_ARCHIVES)
    (tmp_path / "cache" / "index.yaml").unlink()
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (podinfo,) = _podinfo(review)
    assert (_images(podinfo, "base"), _images(podinfo, "head")) == (
        ["podinfo:6.5.0"],
        ["podinfo:6.6.0"],
    )
    assert "(inferred: version 6.6.0, the highest in the chart cache" in (
        podinfo.affected.path[-1].relation
    )
    assert [(s.kind, s.id) for s in podinfo.affected.path[:3]] == [
        ("file", "clusters/prod/source.yaml"),
        ("object", "source.toolkit.fluxcd.io/OCIRepository/flux-system/podinfo"),
        ("release", "helm.toolkit.fluxcd.io/HelmRelease/flux-system/podinfo@prod"),
    ]


def test_a_source_change_that_no_archive_satisfies_is_not_reviewed(tmp_path, renderer):
    repo, base = _source_changed(tmp_path, OCI_SOURCE, "semver: '9.x'")
    write_repository(tmp_path / "cache", RANGE_ARCHIVES)
    (tmp_path / "cache" / "index.yaml").unlink()
    review = _review(repo, base, renderer, chart_cache=tmp_path / "cache")
    (gap,) = [g for g in review.not_reviewed if "podinfo" in g.part]
    assert gap.reason.startswith("no version of chart podinfo in the chart cache")
    assert "satisfies '9.x' (listed: 7.0.0, 6.7.0-rc.1, 6.6.0, 6.5.0)" in gap.reason
