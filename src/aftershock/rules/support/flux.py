"""Flux objects: HelmReleases and Kustomizations, and Go durations as Flux writes them."""

from __future__ import annotations

import re

from aftershock.model.objects import RenderedObject

HELM_GROUP = "helm.toolkit.fluxcd.io"
KUSTOMIZE_GROUP = "kustomize.toolkit.fluxcd.io"
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def is_helm_release(obj: RenderedObject) -> bool:
    return obj.key.group == HELM_GROUP and obj.key.kind == "HelmRelease"


def is_kustomization(obj: RenderedObject) -> bool:
    return obj.key.group == KUSTOMIZE_GROUP and obj.key.kind == "Kustomization"


def duration_seconds(value: object) -> float | None:
    """Seconds of a Go duration such as "5m", "1h30m" or "90s"; None when it is not one."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        return None
    return sum(float(number) * _SECONDS[unit] for number, unit in parts)
