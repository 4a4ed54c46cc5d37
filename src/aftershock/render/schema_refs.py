"""A chart's `values.schema.json` with its references to other files inlined, so Helm can validate offline.

Charts split their schema over files (`"$ref": "schemas/pod.json#/options"`) or point at a
parent's (`"$ref": "file://../values.schema.json"`) and dereference it before they test or
package (bjw-s' CI does, and helm-unittest's Helm 3 resolved `file://` paths from the working
directory, the chart folder). Helm 4 resolves references against the schema's `$id`, often an
`https://` address, and would download them: aftershock never does. Here a reference is read
from the file it names, relative to the folder of the file that holds it (`file://PATH` too),
never outside `within`; an `https://` reference is read only when `remote` maps it to a local
file. What cannot be read is left as written, so Helm reports it and the chart is not reviewed.
References inside the same file (`#/definitions/x`) of the top schema stay as they are.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

SCHEMA_FILE = "values.schema.json"
RemoteMap = Callable[[str], Path | None]


def inline_schema_refs(
    source_dir: Path, within: Path, remote: RemoteMap | None = None, target_dir: Path | None = None
) -> bool:
    """Write `values.schema.json` of `source_dir` with its file references inlined into
    `target_dir` (default: in place); True when written. References are resolved from
    `source_dir` (a copy may lack the files they name, e.g. helmignored `schemas/`).

    The file is replaced (never written through), so a hard-linked copy leaves its source alone.
    """
    text = _read(source_dir / SCHEMA_FILE)
    if text is None or '"$ref"' not in text:
        return False
    try:
        document = json.loads(text)
    except ValueError:
        return False  # Helm reports the malformed schema itself
    if all(ref.startswith("#") for ref in _refs(document)):
        return False
    resolver = _Resolver(Path(os.path.realpath(within)), remote)
    inlined = resolver.walk(document, Path(os.path.realpath(source_dir / SCHEMA_FILE)), top=True)
    if not resolver.changed:
        return False
    target = (target_dir or source_dir) / SCHEMA_FILE
    target.unlink(missing_ok=True)
    target.write_text(json.dumps(inlined), encoding="utf-8")
    return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


class _Resolver:
    """Walks a schema, replacing each readable reference by a copy of what it points at."""

    def __init__(self, within: Path, remote: RemoteMap | None) -> None:
        self.within = within
        self.remote = remote
        self.changed = False
        self._documents: dict[Path, Any] = {}
        self._active: set[tuple[Path, str]] = set()

    def walk(self, node: Any, document: Path, top: bool = False) -> Any:
        if isinstance(node, list):
            return [self.walk(value, document, top) for value in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and not (top and ref.startswith("#")):
            target = self._target(ref, document)
            if target is not None:
                return self._inline(node, target)
        return {key: self.walk(value, document, top) for key, value in node.items()}

    def _inline(self, node: dict[str, Any], target: tuple[Path, str]) -> Any:
        if target in self._active:
            return node  # a cycle cannot be inlined; Helm reports it if it cannot resolve it
        loaded = self._load(target[0])
        pointed = _pointer(loaded, target[1]) if loaded is not None else None
        if pointed is None:
            return node
        self._active.add(target)
        try:
            inlined = self.walk(copy.deepcopy(pointed), target[0])
        finally:
            self._active.discard(target)
        self.changed = True
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        if isinstance(inlined, dict):
            inlined = {
                key: value for key, value in inlined.items() if key not in ("$id", "$schema")
            }
            return {**inlined, **siblings}
        return inlined

    def _target(self, ref: str, document: Path) -> tuple[Path, str] | None:
        address, _, fragment = ref.partition("#")
        if address == "":
            return document, fragment
        if address.startswith(("https://", "http://")):
            mapped = self.remote(address) if self.remote else None
            return (Path(os.path.realpath(mapped)), fragment) if mapped is not None else None
        relative = unquote(address.removeprefix("file://"))
        if "://" in relative or os.path.isabs(relative):
            return None
        path = Path(os.path.realpath(document.parent / relative))
        return (path, fragment) if path.is_relative_to(self.within) else None

    def _load(self, path: Path) -> Any:
        if path not in self._documents:
            text = _read(path)
            try:
                self._documents[path] = json.loads(text) if text is not None else None
            except ValueError:
                self._documents[path] = None
        return self._documents[path]


def _pointer(document: Any, fragment: str) -> Any:
    """The value a JSON Pointer fragment (`/a/b~1c/0`) names in `document`, or None."""
    current = document
    for raw in [part for part in fragment.split("/") if part] if fragment else []:
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current
