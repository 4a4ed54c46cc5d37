"""The Kubernetes version rules judge against: the configuration's, else the review's, else the newest known."""

from __future__ import annotations

from aftershock.config.settings import AftershockConfig, kube_version_tuple
from aftershock.model.review import Review

# The newest minor version the version tables (PSS controls, API removals) describe.
NEWEST_KNOWN = (1, 35)


def target_version(config: AftershockConfig, review: Review) -> tuple[int, int]:
    if config.kubernetes_version:
        return kube_version_tuple(config.kubernetes_version)
    if review.options.kube_version:
        return kube_version_tuple(review.options.kube_version)
    return NEWEST_KNOWN


def version_text(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"
