"""The defaults a named template builds: the YAML a `define` writes, read as far as its text allows.

A chart may keep defaults in a template (`{{- define "app.defaults" -}} env: [...] {{- end }}`) and
merge the user's values over them (`mergeOverwrite (include "app.defaults" . | fromYaml)
.Values.config`). Read, never evaluated: the body's actions are blanked (a value an action writes
becomes the text `x`; a line that is only an action is dropped, so the lists of both branches of an
`if` are read), and what then parses as a YAML mapping is the define's defaults. A body that does not
parse has none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from aftershock.gocompat.yamlnodes import safe_load_all
from aftershock.model.errors import AftershockError

_ACTION = re.compile(r"\{\{.*?\}\}", re.S)
_ONLY_ACTIONS = re.compile(r"^[ \t]*(?:\{\{.*?\}\}[ \t]*)+$")


def define_body(text: str, name: str) -> tuple[str, int] | None:
    """The text between `{{ define "name" }}` and its `{{ end }}`, and the line the define starts on.
    Nested blocks (`if`, `range`, `with`) are counted so their `end` does not close it."""
    start = re.search(r"\{\{-?\s*define\s+\"" + re.escape(name) + r"\"\s*-?\}\}", text)
    if start is None:
        return None
    depth = 1
    for match in re.finditer(r"\{\{-?\s*(if|range|with|define|block|end)\b", text[start.end() :]):
        depth += -1 if match.group(1) == "end" else 1
        if depth == 0:
            body = text[start.end() : start.end() + match.start()]
            return body, text.count("\n", 0, start.start()) + 1
    return None


def define_defaults(body: str) -> Mapping[str, Any] | None:
    """The mapping a define's body writes, read with its actions blanked; None when it is no YAML
    mapping."""
    lines = [line for line in body.split("\n") if not _ONLY_ACTIONS.match(line)]
    text = _ACTION.sub("x", "\n".join(lines))
    try:
        documents = [d for d in safe_load_all(text) if d is not None]
    except (yaml.YAMLError, AftershockError):
        return None
    return documents[0] if len(documents) == 1 and isinstance(documents[0], dict) else None


def key_line_in(body: str, first_line: int, key: str) -> int:
    """The line (in the file) of the first `key:` in the body, else the define's own line."""
    match = re.search(r"(?m)^[ \t-]*" + re.escape(key) + r"[ \t]*:", body)
    return first_line if match is None else first_line + body.count("\n", 0, match.start())
