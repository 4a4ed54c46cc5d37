"""Conformance with flux-local (../shared/corpus/flux-local.bundle): for each test tree whose `get ks` and
`get hr` snapshots list the Flux Kustomizations and HelmReleases, aftershock finds the same set.

Kustomizations are found by reading the tree (ingest/flux.py); HelmReleases by building every
Kustomization of the tree as a review does (pipeline/flux.py, real kustomize). AGREEMENT records, tree by
tree, where the sets agree (README: "Conformance with flux-local"); a tree that starts or stops agreeing
fails the test until the record is updated.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from aftershock.ingest.flux import find_flux_kustomizations
from aftershock.ingest.git import GitRepository
from aftershock.ingest.kustomizations import find_kustomizations
from aftershock.ingest.manifests import plain_manifests
from aftershock.ingest.snapshot import RefSnapshot
from aftershock.model.review import Side
from aftershock.pipeline.flux import FluxSide, build_closure, build_side
from aftershock.render.kustomize import PyKustomizeBuilder, available
from conftest import CORPUS

BUNDLE = CORPUS / "flux-local.bundle"
pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not BUNDLE.is_file(), reason=f"flux-local corpus absent: {BUNDLE}"),
    pytest.mark.skipif(available() is not None, reason=str(available())),
]
SNAPSHOTS = "tests/tool/__snapshots__"
# tree -> (its `get ks` snapshot case, its `get hr` case, Kustomizations agree, HelmReleases agree)
AGREEMENT = {
    "cluster": ("cluster", "cluster", True, True),
    "cluster2": ("cluster2", "cluster2", True, True),
    # Its Kustomizations build paths of another source (flux-local's `--sources cluster=...`): not this repository.
    "cluster3": ("cluster3", "cluster3", False, False),
    "cluster4": ("cluster4", "cluster4", True, True),
    # infra-controllers has no spec.path: flux-local builds the --path folder, aftershock the repository's root.
    "cluster5": ("cluster5-all", "cluster5", False, False),
    "cluster6": ("cluster6", "cluster6", True, True),
    "cluster7": ("cluster7", "cluster7", True, True),
    "cluster9": ("cluster9", "cluster9", True, True),
}


@pytest.fixture(scope="module")
def flux_local(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("flux-local") / "flux-local"
    subprocess.run(
        ["git", "clone", "--quiet", str(BUNDLE), str(dest)], check=True, capture_output=True
    )
    return dest


def snapshot_rows(repo: Path, command: str, case: str) -> list[dict[str, str]]:
    """The table of one snapshot (`# name: test_get_<command>[<case>]`) as rows of its columns."""
    text = (repo / SNAPSHOTS / f"test_get_{command}.ambr").read_text()
    match = re.search(
        rf"# name: test_get_{command}\[{re.escape(case)}\]\n  '''\n(.*?)\n  '''", text, re.S
    )
    assert match, f"no snapshot {command}[{case}]"
    lines = [line.strip() for line in match.group(1).splitlines() if line.strip()]
    if not lines or lines[0].startswith("no "):
        return []
    header = lines[0].split()
    return [dict(zip(header, line.split())) for line in lines[1:]]


def found(repo: Path, tree: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(Kustomization name, path) and (HelmRelease namespace, name) that aftershock finds under the tree."""
    prefix = f"tests/testdata/{tree}/"
    git = GitRepository.open(repo)
    with RefSnapshot.open(git, git.resolve("HEAD"), "HEAD", 5 * 2**20) as snapshot:
        kustomizations, _ = find_flux_kustomizations(snapshot, (), "default")
        mine = {k: f for k, f in kustomizations.items() if f.file.startswith(prefix)}
        lookup: dict = {}
        for obj in plain_manifests(snapshot, (), "default").all_objects():
            lookup[obj.key] = lookup.get(obj.key, ()) + (obj,)
        side = FluxSide(Side.HEAD, snapshot, mine, find_kustomizations(snapshot), lookup)
        builder = PyKustomizeBuilder()
        try:
            built = build_side(
                side,
                [build_closure(f, side) for f in mine.values()],
                builder,
                repo.parent / f"work-{tree}",
                "default",
            )
        finally:
            builder.close()
    releases = {
        (o.key.namespace, o.key.name)
        for result in built.values()
        if isinstance(result, tuple)
        for o in result[1]
        if o.key.kind == "HelmRelease"
    }
    return {(f.key.name, f.path) for f in mine.values()}, releases


@pytest.mark.parametrize("tree", sorted(AGREEMENT))
def test_aftershock_finds_what_flux_local_lists(flux_local, tree):
    ks_case, hr_case, *recorded = AGREEMENT[tree]
    kustomizations, releases = found(flux_local, tree)
    expected_ks = {(row["NAME"], row["PATH"]) for row in snapshot_rows(flux_local, "ks", ks_case)}
    expected_hr = {
        (row["NAMESPACE"], row["NAME"]) for row in snapshot_rows(flux_local, "hr", hr_case)
    }
    agree = [kustomizations == expected_ks, releases == expected_hr]
    assert agree == recorded, (
        f"{tree}: Kustomizations {sorted(kustomizations)} vs flux-local {sorted(expected_ks)}; "
        f"HelmReleases {sorted(releases)} vs flux-local {sorted(expected_hr)}"
    )
