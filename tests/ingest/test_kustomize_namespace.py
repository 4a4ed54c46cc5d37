"""The namespace a kustomization gives the files it includes, for files read as they are."""

from __future__ import annotations

from aftershock.ingest.gitops.kustomize_namespace import kustomize_namespace

FILES = {
    "apps/kustomization.yaml": "namespace: flux-system\nresources: [./shop, tools/]\n",
    "apps/shop/kustomization.yaml": "resources: [ks.yaml]\n",
    "apps/shop/ks.yaml": "kind: Kustomization\n",
    "apps/tools/kustomization.yaml": "namespace: tools\nresources: [./ks.yaml]\n",
    "apps/tools/ks.yaml": "kind: Kustomization\n",
    "apps/shop/other.yaml": "kind: Kustomization\n",
    "loose/ks.yaml": "kind: Kustomization\n",
    # home-ops: the parent names the Flux Kustomization's file in a folder of no kustomization
    "kubernetes/apps/flux-system/kustomization.yaml": (
        "namespace: flux-system\nresources: [./namespace.yaml, ./konflate/ks.yaml]\n"
    ),
    "kubernetes/apps/flux-system/konflate/ks.yaml": "kind: Kustomization\n",
    "kubernetes/apps/flux-system/other/ks.yaml": "kind: Kustomization\n",
}


def test_the_kustomization_that_includes_the_folder_gives_the_namespace():
    assert kustomize_namespace("apps/shop/ks.yaml", FILES.get) == "flux-system"


def test_the_nearest_namespace_wins():
    assert kustomize_namespace("apps/tools/ks.yaml", FILES.get) == "tools"


def test_a_file_no_kustomization_includes_gets_none():
    assert kustomize_namespace("apps/shop/other.yaml", FILES.get) is None
    assert kustomize_namespace("loose/ks.yaml", FILES.get) is None


def test_a_file_named_by_its_path_through_a_folder_of_no_kustomization_gets_the_namespace():
    path = "kubernetes/apps/flux-system/konflate/ks.yaml"
    assert kustomize_namespace(path, FILES.get) == "flux-system"
    assert kustomize_namespace("kubernetes/apps/flux-system/other/ks.yaml", FILES.get) is None
