"""Helm hooks: objects Helm creates at a point of the release's life, never patches, and deletes by policy."""

from __future__ import annotations

from aftershock.model.objects import RenderedObject
from aftershock.rules.support.access import as_map, dig, text

HOOK_ANNOTATION = "helm.sh/hook"
DELETE_POLICY_ANNOTATION = "helm.sh/hook-delete-policy"
# Helm's default when a hook names no policy (Helm 3 and later).
DEFAULT_DELETE_POLICY = frozenset({"before-hook-creation"})


def _annotation_set(obj: RenderedObject, name: str) -> frozenset[str]:
    value = text(as_map(dig(obj.body, "metadata", "annotations")).get(name))
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def hook_events(obj: RenderedObject) -> frozenset[str]:
    """The hook events (`pre-install`, `post-upgrade`, …) an object declares; empty for a release object."""
    return _annotation_set(obj, HOOK_ANNOTATION)


def recreated_hook(obj: RenderedObject) -> bool:
    """A hook Helm deletes before it creates it again or once it succeeded: no old copy is ever updated."""
    if not hook_events(obj):
        return False
    policy = _annotation_set(obj, DELETE_POLICY_ANNOTATION) or DEFAULT_DELETE_POLICY
    return bool(policy & {"before-hook-creation", "hook-succeeded"})
