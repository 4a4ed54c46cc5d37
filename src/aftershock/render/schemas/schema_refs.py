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
import re
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote

from aftershock.gocompat.schema_reach import pointer

SCHEMA_FILE = "values.schema.json"
RemoteMap = Callable[[str], Path | None]
_RAW_GITHUB = re.compile(
    r"https://(?:raw\.githubusercontent\.com/[^/]+/[^/]+/[^/]+|github\.com/[^/]+/[^/]+/raw/[^/]+)/(?P<path>[^?#]+)"
)


def raw_repository_path(url: str) -> str | None:
    """The repository path a raw GitHub address names (`…/<owner>/<repo>/<ref>/<path>`), taken to be
    this repository's file at the reviewed ref; None for any other address."""
    match = _RAW_GITHUB.fullmatch(url)
    return match.group("path") if match else None


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
    files = _FolderFiles(Path(os.path.realpath(within)), remote)
    inlined, changed = inline(document, Path(os.path.realpath(source_dir / SCHEMA_FILE)), files)
    if not changed:
        return False
    target = (target_dir or source_dir) / SCHEMA_FILE
    target.unlink(missing_ok=True)
    target.write_text(json.dumps(inlined), encoding="utf-8")
    return True


def inline(document: Any, where: Hashable, files: SchemaFiles) -> tuple[Any, bool]:
    """`document` (the schema at `where`) with each reference `files` can read replaced by what it
    points at, and whether anything was."""
    resolver = _Resolver(files)
    inlined = resolver.walk(document, where, top=True)
    return inlined, resolver.changed


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


class SchemaFiles(Protocol):
    """Where a schema's references are read from: a folder on disk, or a git tree."""

    def locate(self, address: str, document: Hashable) -> Hashable | None:
        """The file that `address` (a reference less its fragment, not empty) names from the file
        `document`, when it is one of the files this source may read."""
        ...

    def load(self, where: Hashable) -> Any:
        """The parsed JSON of a file `locate` gave, or None."""
        ...


class _FolderFiles:
    """Files of a folder on disk (`within`), relative to the folder of the file that refers to them;
    an `https://` address only as `remote` maps it to a local file."""

    def __init__(self, within: Path, remote: RemoteMap | None) -> None:
        self.within = within
        self.remote = remote
        self._documents: dict[Path, Any] = {}

    def locate(self, address: str, document: Hashable) -> Path | None:
        assert isinstance(document, Path)
        if address.startswith(("https://", "http://")):
            mapped = self.remote(address) if self.remote else None
            return Path(os.path.realpath(mapped)) if mapped is not None else None
        relative = unquote(address.removeprefix("file://"))
        if "://" in relative or os.path.isabs(relative):
            return None
        path = Path(os.path.realpath(document.parent / relative))
        return path if path.is_relative_to(self.within) else None

    def load(self, where: Hashable) -> Any:
        assert isinstance(where, Path)
        if where not in self._documents:
            text = _read(where)
            try:
                self._documents[where] = json.loads(text) if text is not None else None
            except ValueError:
                self._documents[where] = None
        return self._documents[where]


class _Resolver:
    """Walks a schema, replacing each readable reference by a copy of what it points at."""

    def __init__(self, files: SchemaFiles) -> None:
        self.files = files
        self.changed = False
        self._active: set[tuple[Hashable, str]] = set()

    def walk(self, node: Any, document: Hashable, top: bool = False) -> Any:
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

    def _inline(self, node: dict[str, Any], target: tuple[Hashable, str]) -> Any:
        if target in self._active:
            return node  # a cycle cannot be inlined; Helm reports it if it cannot resolve it
        loaded = self.files.load(target[0])
        pointed = pointer(loaded, target[1]) if loaded is not None else None
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

    def _target(self, ref: str, document: Hashable) -> tuple[Hashable, str] | None:
        address, _, fragment = ref.partition("#")
        if address == "":
            return document, fragment
        located = self.files.locate(address, document)
        return (located, fragment) if located is not None else None
