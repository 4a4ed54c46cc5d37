"""Conformance with flux-local (../shared/corpus/flux-local.bundle): for each test tree whose `get ks` and
`get hr` snapshots list the Flux Kustomizations and HelmReleases, aftershock finds the same set; where a
`build` snapshot lists the objects a tree's Kustomizations build, aftershock's builds hold the same
(kind, namespace, name) set.

Kustomizations are found by reading the tree (ingest/gitops/flux.py, with the `sources:` mapping SOURCES gives,
as flux-local's `--sources`); HelmReleases and objects by building every Kustomization of the tree as a
review does (pipeline/builds/flux.py, real kustomize). AGREEMENT and BUILDS record, tree by tree, where the sets
agree (docs/rendering.md: "Conformance with flux-local"); a tree that starts or stops agreeing fails the test until
the record is updated.
"""

from __future__ import annotations

import functools
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from aftershock.config.settings import SourceSettings
from aftershock.ingest.gitops.flux import find_flux_kustomizations
from aftershock.ingest.gitops.flux_sources import FluxSources, SourceRef
from aftershock.ingest.gitops.kustomizations import find_kustomizations
from aftershock.ingest.gitops.manifests import plain_manifests
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import Side
from aftershock.pipeline.builds.flux import FluxSide, build_closure, build_side
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
    "cluster3": ("cluster3", "cluster3", True, True),
    "cluster4": ("cluster4", "cluster4", True, True),
    "cluster5": ("cluster5-all", "cluster5", True, True),
    "cluster6": ("cluster6", "cluster6", True, True),
    "cluster7": ("cluster7", "cluster7", True, True),
    "cluster9": ("cluster9", "cluster9", True, True),
}
# tree -> its `.aftershock.yaml` `sources:` for those snapshots, and whether the snapshot's command
# restricts the Kustomizations to them (flux-local's `--sources` does; a mapping alone does not).
SOURCES = {
    # `--sources cluster=tests/testdata/cluster3`: the OCIRepository `cluster` is that folder.
    "cluster3": ((SourceSettings(name="cluster", path="tests/testdata/cluster3"),), True),
    # infra-controllers (no spec.path) builds its source's root: its sourceRef `flux-system` is of its
    # own namespace, `controllers/flux-system`, which flux-local roots at the folder given with --path.
    "cluster5": (
        (SourceSettings(name="controllers/flux-system", path="tests/testdata/cluster5"),),
        False,
    ),
}
# tree -> the `build` snapshots listing its built objects: (snapshot file, case, the one Kustomization
# it builds or None for all, built objects agree). Without --enable-helm (helm output is not built
# objects of a Kustomization) and without --sources unless SOURCES says so.
BUILDS = {
    # flux-local substitutes a Secret's values with placeholders (`..PLACEHOLDER_SECRET_DOMAIN3..`),
    # aftershock with the values the repository holds: its Certificates `${SECRET_DOMAIN3/./-}-staging`
    # and `${SECRET_DOMAIN4/./-}-staging` are both `SECRET-staging` here.
    "cluster": (
        ("build_all", "build", None, False),
        ("build_ks", "build-ks-single", "apps", False),
    ),
    "cluster2": (("build_all", "build-cluster2", None, True),),
    "cluster3": (("build_all", "build-cluster3", None, True),),  # run without --sources
    "cluster6": (
        ("build_all", "build-cluster6", None, True),
        ("build_ks", "build-ks-single-cluster6", "apps", True),
    ),
    "cluster9": (("build_ks", "build-ks-single-cluster9", "apps-stack", True),),
}
# flux-local's builds leave these out by default (--skip-crds, --skip-secrets).
SKIPPED_KINDS = {"CustomResourceDefinition", "Secret"}

ObjectId = tuple[str, str, str]  # kind, namespace ("" when none), name


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


def snapshot_objects(repo: Path, command: str, case: str) -> set[ObjectId]:
    """kind, namespace and name of each document of one `build` snapshot."""
    text = (repo / SNAPSHOTS / f"test_{command}.ambr").read_text()
    match = re.search(
        rf"# name: test_{command}\[{re.escape(case)}\]\n  '''\n(.*?)\n  '''", text, re.S
    )
    assert match, f"no snapshot {command}[{case}]"
    stream = "\n".join(line[2:] for line in match.group(1).splitlines())
    return {_object_id(doc) for doc in yaml.safe_load_all(stream) if isinstance(doc, dict)}


def _object_id(body: dict) -> ObjectId:
    metadata = body.get("metadata") or {}
    return str(body.get("kind")), str(metadata.get("namespace") or ""), str(metadata.get("name"))


@dataclass(frozen=True)
class Found:
    kustomizations: set[tuple[str, str]]  # name, path
    releases: set[tuple[str, str]]  # namespace, name
    objects: dict[str, set[ObjectId]]  # Kustomization name -> what its build holds
    failed: dict[str, str | None]  # Kustomization name -> why its build failed


@functools.cache  # the module's trees are built once for both tests
def found(repo: Path, tree: str, sources: tuple = (), restrict: bool = False) -> Found:
    """What aftershock finds under the tree, with `sources:` mapped (and only those built, when `restrict`)."""
    prefix = f"tests/testdata/{tree}/"
    git = GitRepository.open(repo)
    with RefSnapshot.open(git, git.resolve("HEAD"), "HEAD", 5 * 2**20) as snapshot:
        kustomizations, _ = find_flux_kustomizations(snapshot, (), "default", sources)
        mapped = FluxSources(tuple(sources), {})
        mine = {
            k: f
            for k, f in kustomizations.items()
            if f.file.startswith(prefix)
            and (not restrict or mapped.mapped(_ref(f)) is not None)
            and not (f.problem or "").startswith("it builds")  # another source: not listed
        }
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
                Path(tempfile.mkdtemp(dir=repo.parent)),
                "default",
            )
        finally:
            builder.close()
    objects = {
        mine[key].key.name: {_object_id(o.body) for o in result[1]}
        for key, result in built.items()
        if isinstance(result, tuple)
    }
    failed = {mine[key].key.name: r.error for key, r in built.items() if not isinstance(r, tuple)}
    releases = {
        (namespace, name)
        for ids in objects.values()
        for kind, namespace, name in ids
        if kind == "HelmRelease"
    }
    return Found({(f.key.name, f.path) for f in mine.values()}, releases, objects, failed)


def _ref(flux) -> SourceRef:
    kind, _, name = flux.source.partition(" ")
    namespace, _, name = name.rpartition("/")
    return SourceRef(kind, namespace, name)


@pytest.mark.parametrize("tree", sorted(AGREEMENT))
def test_aftershock_finds_what_flux_local_lists(flux_local, tree):
    ks_case, hr_case, *recorded = AGREEMENT[tree]
    result = found(flux_local, tree, *SOURCES.get(tree, ((), False)))
    expected_ks = {(row["NAME"], row["PATH"]) for row in snapshot_rows(flux_local, "ks", ks_case)}
    expected_hr = {
        (row["NAMESPACE"], row["NAME"]) for row in snapshot_rows(flux_local, "hr", hr_case)
    }
    agree = [result.kustomizations == expected_ks, result.releases == expected_hr]
    assert agree == recorded, (
        f"{tree}: Kustomizations {sorted(result.kustomizations)} vs flux-local {sorted(expected_ks)}; "
        f"HelmReleases {sorted(result.releases)} vs flux-local {sorted(expected_hr)}; "
        f"failed builds {result.failed}"
    )


@pytest.mark.parametrize(
    ("tree", "command", "case", "kustomization", "recorded"),
    [(tree, *build) for tree, builds in sorted(BUILDS.items()) for build in builds],
)
def test_aftershock_builds_the_objects_flux_local_builds(
    flux_local, tree, command, case, kustomization, recorded
):
    result = found(flux_local, tree)  # the build snapshots are run without --sources
    built = (
        result.objects.get(kustomization, set())
        if kustomization
        else set().union(*result.objects.values())
    )
    mine = {o for o in built if o[0] not in SKIPPED_KINDS}
    expected = snapshot_objects(flux_local, command, case)
    assert (mine == expected) == recorded, (
        f"{tree} {case}: only aftershock {sorted(mine - expected)}; "
        f"only flux-local {sorted(expected - mine)}; failed builds {result.failed}"
    )
