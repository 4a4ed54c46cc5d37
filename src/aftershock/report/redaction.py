"""Keeps credentials out of every report: hunk lines that carry a secret value show its size only."""

from __future__ import annotations

import re

from aftershock.ingest.values import is_sensitive

# `  key: value` (with the diff marker first); the value may be quoted.
_YAML_PAIR = re.compile(r"^(?P<lead>[-+ ]?\s*-?\s*)(?P<key>[\w.\-\"']+)(?P<sep>\s*:\s+)(?P<value>[^#{|>].*?)\s*$")


def redact_hunk_line(line: str, *, secret_file: bool) -> str:
    """Replace the value of a YAML `key: value` line when the key names a credential, or when the
    file renders a Secret (then every scalar value is hidden; keys stay visible)."""
    match = _YAML_PAIR.match(line)
    if match is None:
        return line
    key = match.group("key").strip("\"'")
    if not (secret_file or is_sensitive(key)):
        return line
    if secret_file and key in ("apiVersion", "kind", "name", "namespace", "type"):
        return line
    value = match.group("value")
    if value.startswith("{{") and value.endswith("}}"):
        return line  # a template expression is code, not data
    size = len(value.strip("\"'").encode("utf-8"))
    return f"{match.group('lead')}{match.group('key')}{match.group('sep')}<redacted: {size} bytes>"
