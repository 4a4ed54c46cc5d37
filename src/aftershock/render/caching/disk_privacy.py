"""What of a render may be written to disk: nothing secret-derived (see `render.caching.cache`).

A render holds secret-derived text when one of its documents is a Secret (any `kind: Secret`, in
block, flow or JSON style, whatever its apiVersion), or holds a credential-named value that is not
an ordinary token (`DB_PASSWORD: x`, an env var `{name: API_KEY, value: x}`; `credential_text`). A
chart can render a Secret when a template of its folder writes `kind: Secret`; its render errors may
quote what the Secret would hold.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from aftershock.render.plan import TEMPLATE_SUFFIXES
from aftershock.safety.credential_text import credential_values, is_ordinary, is_sensitive_name

# `kind: Secret` in block or flow style (JSON included), as a template may write it
_SECRET_KIND = re.compile(
    r"""(^|[{,\s])["']?kind["']?\s*:\s*["']?Secret["']?[ \t]*($|[,}#])""", re.MULTILINE
)
# `key: value` and `"key": "value"` (block, flow or JSON), the value up to a separator
_PAIR = re.compile(
    r"""["']?(?P<key>[\w.\-]+)["']?\s*:[ \t]*(?P<value>"[^"\n]*"|'[^'\n]*'|[^,{}\[\]\n#]*)"""
)


def holds_secret(
    manifests: Mapping[str, str], documents: tuple[tuple[str, int, Any], ...] | None
) -> bool:
    """True when a rendered document may be a Secret or holds a credential-named secret value."""
    if documents is not None and any(_secret_document(body) for _, _, body in documents):
        return True
    return any(_SECRET_KIND.search(t) or _holds_credential(t) for t in manifests.values())


def _secret_document(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    return body.get("kind") == "Secret" or any(not is_ordinary(v) for v in credential_values(body))


def _holds_credential(text: str) -> bool:
    """A credential-named key (`DB_PASSWORD: x`) or an entry named like one (`name: API_KEY`, then
    `value: x`) with a value that is not an ordinary token."""
    named = False
    for match in _PAIR.finditer(text):
        key, value = match.group("key"), match.group("value").strip().strip("\"'")
        credential = (named and key == "value") or is_sensitive_name(key)
        if credential and value and not is_ordinary(value):
            return True
        named = key == "name" and is_sensitive_name(value)
    return False


def can_render_secret(chart_dir: str) -> bool:
    """Whether a template of the chart folder (subcharts and linked libraries included) may write a
    Secret; an archived subchart may, as its files are not read here."""
    for folder, _, names in os.walk(chart_dir, followlinks=True):
        for name in names:
            if name.endswith((".tgz", ".tar.gz")):
                return True
            if not name.endswith(TEMPLATE_SUFFIXES):
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                    if _SECRET_KIND.search(handle.read()):
                        return True
            except OSError:
                continue
    return False
