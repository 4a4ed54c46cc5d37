"""Keeps credentials out of every report: hunk lines that carry a secret value show its size only
(block `key: value` lines, and each literal value of a flow mapping in a file rendering a Secret, and
in a file feeding one, such as a kustomize secretGenerator's env file, each `KEY=value` line; in any
file, the `value:` of an entry whose `name:` names a credential, as an env var's)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from aftershock.diff.values_keys import is_sensitive
from aftershock.safety.credential_text import is_sensitive_name

# `  key: value` (with the diff marker first); the value may be quoted.
_YAML_PAIR = re.compile(
    r"^(?P<lead>[-+ ]?\s*-?\s*)(?P<key>[\w.\-\"']+)(?P<sep>\s*:\s+)(?P<value>[^#{|>].*?)\s*$"
)


# `KEY=value` (an env file or a generator literal), optionally a list item or quoted.
_ENV_PAIR = re.compile(
    r"^(?P<lead>[-+ ]?\s*(?:-\s*)?[\"']?)(?P<key>[A-Za-z_][\w.\-]*)=(?P<value>.*?)(?P<trail>[\"']?)\s*$"
)

_SHOWN_KEYS = ("apiVersion", "kind", "name", "namespace", "type")  # identity, never a credential
# `  key: {a: 1, b: 2}` (a flow mapping; `{{ }}` inside is a template expression, not a nested map)
_FLOW_PAIR = re.compile(
    r"^(?P<lead>[-+ ]?\s*-?\s*)(?P<key>[\w.\-\"']+)(?P<sep>\s*:\s+)\{(?!\{)(?P<body>.*)\}\s*$"
)
_FLOW_SPLIT = re.compile(r",(?![^{]*\}\})")  # commas not inside a `{{ }}`


# `- name: API_KEY` (an env var's name), and `{name: API_KEY, value: x}` in flow style
_NAME_LINE = re.compile(r"^[-+ ]?\s*-?\s*name\s*:\s+[\"']?(?P<name>[\w.\-]+)[\"']?\s*$")
_FLOW_ENTRY = re.compile(
    r"(?P<lead>\bname\s*:\s*[\"']?(?P<name>[\w.\-]+)[\"']?\s*,\s*value\s*:\s*)(?P<value>[^,}]+)"
)


def redact_hunk_lines(
    lines: Iterable[str], *, secret_file: bool, secret_keys: frozenset[str] = frozenset()
) -> Iterator[str]:
    """Each line as `redact_hunk_line` shows it; the `value:` line right after a `name:` line naming
    a credential (an env var `API_KEY`) shows its size only too."""
    credential = False
    for line in lines:
        value = _YAML_PAIR.match(line)
        if credential and value is not None and value.group("key").strip("\"'") == "value":
            yield redact_hunk_line(line, secret_file=True)
        else:
            yield _flow_entry_hidden(
                redact_hunk_line(line, secret_file=secret_file, secret_keys=secret_keys)
            )
        name = _NAME_LINE.match(line)
        credential = name is not None and is_sensitive_name(name.group("name"))


def _flow_entry_hidden(line: str) -> str:
    def hide(m: re.Match[str]) -> str:
        value = m.group("value").strip()
        if not is_sensitive_name(m.group("name")) or _is_expression(value):
            return m.group(0)
        return f"{m.group('lead')}{_redacted(value)}"

    return _FLOW_ENTRY.sub(hide, line)


def redact_hunk_line(
    line: str, *, secret_file: bool, secret_keys: frozenset[str] = frozenset()
) -> str:
    """Replace the value of a YAML `key: value` line when the key names a credential or is one of
    `secret_keys` (the last segments of the file's values keys that feed a Secret), or when the
    file renders a Secret (then every scalar value is hidden; keys stay visible)."""
    if secret_file:
        flow = _flow_line(line)
        if flow is not None:
            return flow
    match = _YAML_PAIR.match(line)
    if match is None:
        env = _ENV_PAIR.match(line) if secret_file else None
        if env is None or not env.group("value") or _is_expression(env.group("value")):
            return line
        return f"{env.group('lead')}{env.group('key')}={_redacted(env.group('value'))}{env.group('trail')}"
    key = match.group("key").strip("\"'")
    if not (secret_file or is_sensitive(key) or key in secret_keys):
        return line
    if secret_file and key in _SHOWN_KEYS:
        return line
    value = match.group("value")
    if _is_expression(value):
        return line  # a template or workflow expression is code, not data
    return f"{match.group('lead')}{match.group('key')}{match.group('sep')}{_redacted(value)}"


def _flow_line(line: str) -> str | None:
    """`  data: {a: x, b: {{ .Values.b }}}` in a Secret's file with each literal value hidden; None if not such a line."""
    match = _FLOW_PAIR.match(line)
    if match is None:
        return None
    entries = []
    for entry in _FLOW_SPLIT.split(match.group("body")):
        key, sep, value = entry.partition(":")
        value = value.strip()
        kept = not sep or key.strip() in _SHOWN_KEYS or _is_expression(value)
        shown = value if kept else _redacted(value)
        entries.append(f"{key.strip()}: {shown}" if sep else key.strip())
    return f"{match.group('lead')}{match.group('key')}{match.group('sep')}{{{', '.join(entries)}}}"


def _is_expression(value: str) -> bool:
    """A Helm template action (`{{ .Values.token }}`) or a workflow expression naming where a secret
    is (`${{ secrets.GITHUB_TOKEN }}`): code, not the secret."""
    text = value.strip().strip("\"'")
    return text.startswith(("{{", "${{")) and text.endswith("}}")


def _redacted(value: str) -> str:
    size = len(value.strip(chr(34) + chr(39)).encode("utf-8"))
    return f"<redacted: {size} bytes>" if size else value  # an empty value holds nothing to hide
