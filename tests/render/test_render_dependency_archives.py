"""A locked remote dependency resolves to the chart cache's archive of the locked version: `cached` when
a recorded digest matches, `cached_unverified` when none is recorded, unresolved when one does not match."""

from __future__ import annotations

import hashlib

from aftershock.model.units import Chart, ChartDependency, ChartType, DependencySource
from aftershock.render.external.dependency_archives import with_cached

DEP = ChartDependency(
    "lib", ">= 0", "https://charts.example.invalid", DependencySource.REMOTE, locked="3.0.0"
)
WEB = Chart("apps/web", "web", "0.1.0", ChartType.APPLICATION, "v2", dependencies=(DEP,))


def source(folder) -> DependencySource:
    (chart,) = with_cached([WEB], folder)
    return chart.dependencies[0].source


def test_the_cached_archive_is_checked_against_the_digest_recorded_beside_it(tmp_path):
    assert source(tmp_path) is DependencySource.REMOTE  # no archive
    (tmp_path / "lib-3.0.0.tgz").write_bytes(b"archive")
    assert source(tmp_path) is DependencySource.CACHED_UNVERIFIED
    (tmp_path / "lib-3.0.0.tgz.sha256").write_text(hashlib.sha256(b"archive").hexdigest() + "\n")
    assert source(tmp_path) is DependencySource.CACHED
    (tmp_path / "lib-3.0.0.tgz").write_bytes(b"tampered")
    assert source(tmp_path) is DependencySource.REMOTE


def test_an_unlocked_dependency_is_never_taken_from_the_cache(tmp_path):
    (tmp_path / "lib-3.0.0.tgz").write_bytes(b"archive")
    unlocked = Chart(
        "apps/web",
        "web",
        "0.1.0",
        ChartType.APPLICATION,
        "v2",
        dependencies=(DEP.__class__("lib", "3.0.0", DEP.repository, DEP.source),),
    )
    (chart,) = with_cached([unlocked], tmp_path)
    assert chart.dependencies[0].source is DependencySource.REMOTE
