"""The cluster of each Flux Kustomization, read from the chain of Kustomizations that applies it
(ingest/gitops/flux_clusters.py), over the Kustomizations found in a real git tree."""

from __future__ import annotations

from aftershock.ingest.gitops.flux import find_flux_kustomizations
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from gitrepo import commit, make_repo

KS = """\
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: {name}, namespace: flux-system}}
spec:
  path: {path}
  sourceRef: {{kind: {source}, name: {repo}}}
"""


def ks(name: str, path: str, source: str = "GitRepository", repo: str = "flux-system") -> str:
    return KS.format(name=name, path=path, source=source, repo=repo)


def clusters(
    tmp_path, files: dict[str, str]
) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    repo_path = make_repo(tmp_path)
    sha = commit(repo_path, files, "feat: flux")
    with RefSnapshot.open(GitRepository(repo_path), sha, "head", 1_000_000) as tree:
        found, _ = find_flux_kustomizations(tree, (), "default")
    return {(f.file, f.key.name): (f.cluster, f.tree) for f in found.values()}


def side_by_side(root: str) -> dict[str, str]:
    """flux-local's test trees: a root `cluster` applying its own folder, and apps under it."""
    return {
        f"{root}/flux/config/cluster.yaml": ks("cluster", f"./{root}/flux"),
        f"{root}/flux/config/flux.yaml": ks("flux", "./", "OCIRepository", "flux-manifests"),
        f"{root}/flux/apps.yaml": ks("cluster-apps", f"./{root}/apps"),
        f"{root}/apps/web/ks.yaml": ks("web", f"./{root}/apps/web/app"),
        f"{root}/apps/web/app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n",
    }


def test_two_trees_that_each_apply_themselves_are_two_clusters(tmp_path):
    # built from another source, `ext`'s folder is not this repository's `t`: it applies neither tree
    ext = {"ext.yaml": ks("ext", "./t", "OCIRepository", "elsewhere")}
    found = clusters(tmp_path, {**side_by_side("t/one"), **side_by_side("t/two"), **ext})
    for root in ("t/one", "t/two"):
        tree = f"{root}/flux"
        assert found[(f"{root}/flux/config/cluster.yaml", "cluster")] == (tree, tree)
        assert found[(f"{root}/flux/apps.yaml", "cluster-apps")] == (tree, tree)
        # two steps down the chain, in a folder of its own
        assert found[(f"{root}/apps/web/ks.yaml", "web")] == (tree, tree)
        # built from a source elsewhere: it applies nothing here, but it is applied from the tree
        assert found[(f"{root}/flux/config/flux.yaml", "flux")] == (tree, tree)


def test_one_tree_is_one_cluster(tmp_path):
    found = clusters(tmp_path, side_by_side("t/one"))
    assert set(found.values()) == {(None, "t/one/flux")}


def test_a_root_applied_from_outside_names_no_cluster(tmp_path):
    # home-ops: the root is applied by something the repository does not hold
    files = {
        "kubernetes/flux/cluster/ks.yaml": ks("cluster-apps", "./kubernetes/apps"),
        "kubernetes/apps/web/ks.yaml": ks("web", "./kubernetes/apps/web/app"),
        "other/flux/ks.yaml": ks("other", "./other/apps"),
        "other/apps/db/ks.yaml": ks("db", "./other/apps/db/app"),
    }
    assert set(clusters(tmp_path, files).values()) == {(None, None)}


def test_a_kustomization_building_the_whole_repository_from_inside_a_tree_joins_no_trees(tmp_path):
    files = {
        **side_by_side("t/one"),
        **side_by_side("t/two"),
        # flux-local's cluster5: a Kustomization with no path, declared inside one tree
        "t/one/flux/infra.yaml": ks("infra", "./"),
    }
    found = clusters(tmp_path, files)
    assert found[("t/one/flux/infra.yaml", "infra")] == ("t/one/flux", "t/one/flux")
    assert found[("t/two/flux/apps.yaml", "cluster-apps")] == ("t/two/flux", "t/two/flux")


def test_a_clusters_tree_names_its_cluster_and_the_apps_its_root_applies(tmp_path):
    files = {
        "clusters/prod/flux-system/gotk-sync.yaml": ks("flux-system", "./clusters/prod"),
        "clusters/prod/apps.yaml": ks("apps", "./apps/prod"),
        "apps/prod/web/ks.yaml": ks("web", "./apps/prod/web/app"),
        "clusters/staging/flux-system/gotk-sync.yaml": ks("flux-system", "./clusters/staging"),
        "clusters/staging/apps.yaml": ks("apps", "./apps/staging"),
        "apps/staging/web/ks.yaml": ks("web", "./apps/staging/web/app"),
    }
    found = clusters(tmp_path, files)
    assert found[("apps/prod/web/ks.yaml", "web")] == ("prod", "clusters/prod")
    assert found[("apps/staging/web/ks.yaml", "web")] == ("staging", "clusters/staging")
    assert found[("clusters/prod/apps.yaml", "apps")] == ("prod", "clusters/prod")
