"""Flux sources: a Kustomization builds its `spec.path` from the source its `sourceRef` names, found where
`.aftershock.yaml` `sources:` puts it, else this repository's root for a GitRepository of this
repository; another repository's (or an unmapped OCIRepository's) Kustomization is not reviewed. A
Kustomization without `spec.path` builds its source's root, nested kustomizations and `../..` included."""

from __future__ import annotations

import pytest

from aftershock.config.settings import parse_config
from aftershock.ingest.gitops.flux_sources import normalized_url
from aftershock.model.errors import ConfigError
from aftershock.model.review import ChartOutcome
from aftershock.pipeline import ReviewRequest, review_change
from aftershock.render.kustomize import available
from gitrepo import commit, make_repo

needs_kustomize = pytest.mark.skipif(available() is not None, reason=str(available()))


def kustomization(name: str, source: str, path: str | None, kind: str = "GitRepository") -> str:
    spec_path = f"  path: {path}\n" if path is not None else ""
    return (
        f"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
        f"metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n{spec_path}"
        f"  prune: true\n  sourceRef: {{kind: {kind}, name: {source}}}\n"
    )


def git_repository(name: str, url: str) -> str:
    return (
        f"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
        f"metadata: {{name: {name}, namespace: flux-system}}\nspec: {{interval: 1m, url: {url}}}\n"
    )


def config_map(name: str, value: str) -> str:
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{value: {value}}}\n"
    )


def fleet(**changes: str) -> dict[str, str]:
    """A bootstrapped fleet: flux-system builds clusters/prod, which declares the other Kustomizations."""
    return {
        "clusters/prod/flux-system/gotk-sync.yaml": git_repository(
            "flux-system", "ssh://git@github.com/me/fleet"
        )
        + "---\n"
        + kustomization("flux-system", "flux-system", "./clusters/prod"),
        "clusters/prod/tenant.yaml": git_repository("tenant", "https://github.com/other/tenant.git")
        + "---\n"
        + changes.get("tenant", kustomization("tenant-apps", "tenant", "./apps")),
        "clusters/prod/oci.yaml": changes.get(
            "oci", kustomization("oci-apps", "cluster", "./apps", "OCIRepository")
        ),
        "apps/settings.yaml": changes.get("apps", config_map("settings", "one")),
        "deploy/apps/settings.yaml": changes.get("deploy", config_map("deployed", "one")),
    }


def _review(repo, base, renderer):
    return review_change(ReviewRequest(repo=repo, base=base, run_tests=False), renderer).review


def _flux(review, name):
    suffix = f"Kustomization/flux-system/{name}"
    # A release in a cluster tree is identified with it: `<key>@<cluster>`.
    return [r for r in review.chart_reviews if (r.release or "").split("@")[0].endswith(suffix)]


@needs_kustomize
def test_a_kustomization_of_another_repository_is_not_reviewed_never_built_from_here(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    base = commit(repo, fleet(), "feat: fleet")
    commit(
        repo,
        {
            "clusters/prod/tenant.yaml": fleet()["clusters/prod/tenant.yaml"].replace("10m", "5m"),
            "clusters/prod/oci.yaml": fleet()["clusters/prod/oci.yaml"].replace("10m", "5m"),
            "apps/settings.yaml": config_map("settings", "two"),
        },
        "tune",
    )
    review = _review(repo, base, renderer)
    for name, source in (
        ("tenant-apps", "GitRepository flux-system/tenant (https://github.com/other/tenant.git"),
        ("oci-apps", "OCIRepository flux-system/cluster,"),
    ):
        (flux,) = _flux(review, name)
        assert flux.outcome is ChartOutcome.NOT_REVIEWED and not flux.head_objects
        reasons = [g.reason for g in review.not_reviewed if name in g.part]
        assert reasons and all(
            f"it builds {source}" in r and "not this repository" in r and "sources:" in r
            for r in reasons
        ), reasons
    assert not review.complete


@needs_kustomize
def test_a_mapped_source_builds_its_path_under_the_mapped_folder(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**fleet(), ".aftershock.yaml": "sources: [{name: cluster, path: ./deploy}]\n"},
        "feat: fleet",
    )
    commit(repo, {"deploy/apps/settings.yaml": config_map("deployed", "two")}, "bump")
    review = _review(repo, base, renderer)
    (flux,) = _flux(review, "oci-apps")
    assert flux.outcome is ChartOutcome.CHANGED and flux.chart == "deploy/apps"
    (change,) = flux.changes
    assert change.key.name == "deployed"
    assert [(f.path, f.before, f.after) for f in change.fields] == [("data.value", "one", "two")]
    assert not _flux(review, "tenant-apps")  # another repository's: its files here are not its


@needs_kustomize
def test_a_kustomization_without_path_builds_the_source_root(tmp_path, renderer):
    """As flux-local's controllers/infra-controllers at ca3bcff: no spec.path, no kustomization.yaml at the
    root. Its build once failed: the overlay carrying the spec sat inside the root it builds (a cycle)."""
    repo = make_repo(tmp_path)
    files = {
        "clusters/prod/infrastructure.yaml": kustomization("infra", "flux-system", None),
        "infra/kustomization.yaml": "resources: [controllers.yaml]\n",
        "infra/controllers.yaml": config_map("controllers", "one"),
        "loose.yaml": config_map("loose", "one"),
    }
    base = commit(repo, files, "feat: infra")
    commit(repo, {"infra/controllers.yaml": config_map("controllers", "two")}, "bump")
    review = _review(repo, base, renderer)
    (flux,) = _flux(review, "infra")
    assert flux.outcome is ChartOutcome.CHANGED and flux.chart == "", review.not_reviewed
    assert {o.key.name for o in flux.head_objects} == {"infra", "controllers", "loose"}
    assert [c.key.name for c in flux.changes] == ["controllers"]


@needs_kustomize
def test_a_build_reads_what_its_kustomizations_and_components_name_outside_its_path(
    tmp_path, renderer
):
    """`../../base/web` of the path's kustomization, and the spec's `components` (relative to the path)."""
    repo = make_repo(tmp_path)
    apps = kustomization("apps", "flux-system", "./apps/prod")
    files = {
        "clusters/prod/apps.yaml": apps + "  components: [../../components/labelled]\n",
        "apps/prod/kustomization.yaml": "resources: [../../base/web]\n",
        "base/web/kustomization.yaml": "resources: [web.yaml]\n",
        "base/web/web.yaml": config_map("web", "one"),
        "components/labelled/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "labels: [{pairs: {team: web}}]\n"
        ),
    }
    base = commit(repo, files, "feat: apps")
    commit(repo, {"base/web/web.yaml": config_map("web", "two")}, "bump")
    review = _review(repo, base, renderer)
    (flux,) = _flux(review, "apps")
    assert flux.outcome is ChartOutcome.CHANGED and flux.chart == "apps/prod", review.not_reviewed
    (web,) = flux.head_objects
    assert web.body["metadata"]["labels"] == {"team": "web"} and web.body["data"] == {
        "value": "two"
    }


def test_sources_config_refuses_a_path_leaving_the_repository():
    config = parse_config("sources: [{name: flux-system/cluster, path: ./k8s/}]\n")
    assert config.sources[0].path == "k8s" and config.sources[0].kind is None
    with pytest.raises(ConfigError, match="not a folder inside the repository"):
        parse_config("sources: [{name: cluster, path: ../elsewhere}]\n")
    with pytest.raises(ConfigError):
        parse_config("sources: [{name: cluster, path: k8s, kind: HelmRepository}]\n")


def test_repository_urls_compare_across_their_spellings():
    spellings = {
        "ssh://git@github.com/Me/Fleet",
        "git@github.com:me/fleet.git",
        "https://github.com/me/fleet/",
        "ssh://git@github.com:22/me/fleet.git",
    }
    assert {normalized_url(u) for u in spellings} == {"github.com/me/fleet"}
