"""Facts about the helm-unittest this package follows, and its version comparison.

The semantics were read from helm-unittest at commit 866069b (1.1.x, built with Helm v3.20.2).
"""

from __future__ import annotations

import re

PLUGIN_VERSION = "1.1.0"  # what `skip.minimumVersion` is compared with
DEFAULT_RELEASE_NAME = "RELEASE-NAME"
DEFAULT_NAMESPACE = "NAMESPACE"
# Helm v3's chartutil defaults as helm-unittest builds it (no k8s version linker flags).
DEFAULT_KUBE_MAJOR = "1"
DEFAULT_KUBE_MINOR = "20"

_SEMVER = re.compile(
    r"v?(?P<major>[0-9]+)(?:\.(?P<minor>[0-9]+))?(?:\.(?P<patch>[0-9]+))?"
    r"(?:-(?P<pre>[0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?"
)


def _parse(version: str) -> tuple[int, int, int, tuple[tuple[int, int | str], ...] | None] | None:
    match = _SEMVER.fullmatch(version.strip())
    if match is None:
        return None
    pre = match.group("pre")
    pre_parts = (
        None
        if pre is None
        else tuple((0, int(part)) if part.isdigit() else (1, part) for part in pre.split("."))
    )
    return (
        int(match.group("major")),
        int(match.group("minor") or 0),
        int(match.group("patch") or 0),
        pre_parts,
    )


def version_at_least(current: str, minimum: str) -> bool:
    """VersionMeetsMinimum (Masterminds semver); an unparsable version does not meet it."""
    have, need = _parse(current), _parse(minimum)
    if have is None or need is None:
        return False
    if have[:3] != need[:3]:
        return have[:3] > need[:3]
    if have[3] is None or need[3] is None:
        return have[3] is None  # a release is above its pre-releases
    return have[3] >= need[3]
