"""Webhook signatures: `X-Hub-Signature-256` is `sha256=` and the HMAC-SHA256 of the raw body (pure)."""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Hub-Signature-256"
_PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The header value GitHub sends for `body` signed with `secret`."""
    return _PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_valid(secret: bytes, body: bytes, header: str | None) -> bool:
    """True when `header` is the signature of `body`; compared in constant time.

    An empty secret never validates: a service without a secret must not accept anyone.
    """
    if not secret or not header or not header.startswith(_PREFIX):
        return False
    expected = sign(secret, body).encode("ascii")
    return hmac.compare_digest(expected, header.strip().encode("ascii", "replace"))
