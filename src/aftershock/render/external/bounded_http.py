"""Bodies of HTTP responses read up to a size bound (httpx): a chart repository's index and
archives, an OCI registry's manifests and blobs. A body over the bound is one line, never read whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aftershock.model.errors import AftershockError

if TYPE_CHECKING:
    import httpx


def read_capped(response: httpx.Response, url: str, limit: int, hint: str) -> bytes:
    """The body of `response` (of a GET of `url`); AftershockError once it passes `limit` bytes."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise AftershockError(f"GET {url} is over {limit} bytes", hint=hint)
        chunks.append(chunk)
    return b"".join(chunks)
