"""Container image references split the way registries read them: name, tag and digest."""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class ImageRef:
    name: str
    tag: str | None
    digest: str | None

    @property
    def pinned(self) -> bool:
        return self.digest is not None

    @property
    def mutable_tag(self) -> bool:
        """No digest, and the tag is `latest` or missing (which means latest)."""
        return self.digest is None and (self.tag is None or self.tag == "latest")


@functools.lru_cache(maxsize=4096)
def parse_image(reference: str) -> ImageRef:
    """Split once per reference: the same images recur across workloads and rules."""
    rest, _, digest = reference.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    if colon > slash:
        return ImageRef(rest[:colon], rest[colon + 1 :] or None, digest or None)
    return ImageRef(rest, None, digest or None)
