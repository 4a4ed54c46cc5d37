"""References of a chart's values schemas that Helm would resolve outside the repository under review.

Helm 4 validates values with santhosh-tekuri/jsonschema, whose loader fetches `http(s)://` addresses
and opens `file://` paths: a `$ref`, `$dynamicRef` or `$recursiveRef` that is not a fragment of its own
document (a relative one resolves against the schema's file or its `$id`), and a `$schema` naming a
meta-schema the library does not ship. The review reads what it can from the repository and inlines it
(`schema_refs`); a reference left after that reaches outside, so the chart is refused (*not reviewed*,
naming the reference) and nothing is fetched or opened. Hand-written for fidelity with that loader.

Two readers share the check: a chart's folders in a git tree (before anything renders, so the refusal
names the chart once), and a materialised chart folder with its subcharts and their archives (the render
worker's last look before Helm loads it, for charts that do not come from the tree).
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import tarfile
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from aftershock.gocompat.schema_reach import outside_references, schema_bomb
from aftershock.render.schemas.schema_refs import SCHEMA_FILE, inline, raw_repository_path

_MAX_ARCHIVE_BYTES = 64 * 2**20  # an archive's unpacked schemas read at most; past it, refused
_MAX_ARCHIVE_STREAM = (
    256 * 2**20
)  # bytes of an archive unpacked to find them (a gzip bomb stops here)
_MAX_ARCHIVE_DEPTH = 3  # archives of subcharts inside archives


def schema_refusal(path: str, schema: Any) -> str | None:
    """Why Helm must not validate values against `schema` (the file at `path`, inlined), or None."""
    if schema is TOO_DEEP:
        return f"{path}: its subschemas nest too deep to validate, so the chart is not rendered"
    references = outside_references(schema)
    if references:
        return refusal_reason(path, references)
    bomb = schema_bomb(schema)
    if bomb:
        return f"{path}: {bomb}, so the chart is not rendered; simplify the schema"
    return None


def refusal_reason(path: str, references: tuple[str, ...]) -> str:
    shown = ", ".join(references[:3]) + (
        f" and {len(references) - 3} more" if len(references) > 3 else ""
    )
    return (
        f"{path} refers outside the repository ({shown}): Helm would fetch or open it while it "
        "validates values, so the chart is not rendered and nothing is fetched; inline the schema "
        "or refer to a file of the chart"
    )


class _TreeFiles:
    """Schema files of a git tree: a relative reference names a file of the repository (the
    workspace inlines it from the chart's folders, or from the copy an earlier commit held); a raw
    GitHub address names the same file. Whatever the workspace then cannot inline, the render
    worker's own look refuses (`folder_schema_refusal`)."""

    def __init__(self, read: Callable[[str], str | None]) -> None:
        self._read = read
        self._documents: dict[str, Any] = {}

    def locate(self, address: str, document: Hashable) -> str | None:
        assert isinstance(document, str)
        if address.startswith(("https://", "http://")):
            path = raw_repository_path(address)
        else:
            relative = unquote(address.removeprefix("file://"))
            if "://" in relative or posixpath.isabs(relative):
                return None
            path = posixpath.normpath(posixpath.join(posixpath.dirname(document), relative))
            if path == ".." or path.startswith("../"):
                return None
        return path if path is not None and self.load(path) is not None else None

    def load(self, where: Hashable) -> Any:
        assert isinstance(where, str)
        if where not in self._documents:
            self._documents[where] = _parsed(self._read(where))
        return self._documents[where]


def tree_schema_refusal(
    read: Callable[[str], str | None],
    read_bytes: Callable[[str], bytes | None],
    paths: Iterable[str],
) -> str | None:
    """Why a chart whose folders hold `paths` is refused for a schema reaching outside, or None.
    Schemas are inlined as the workspace will inline them; archives under `charts/` are read too."""
    files = _TreeFiles(read)
    for path in sorted(paths):
        if posixpath.basename(path) == SCHEMA_FILE:
            document = files.load(path)
            if document is None:
                continue  # malformed: Helm reports it itself
            try:
                inlined = document if document is TOO_DEEP else inline(document, path, files)[0]
            except RecursionError:
                inlined = TOO_DEEP
            reason = schema_refusal(path, inlined)
            if reason:
                return reason
        elif _is_subchart_archive(path):
            data = read_bytes(path)
            reason = _archive_refusal(data, path, 1) if data is not None else None
            if reason:
                return reason
    return None


def folder_schema_refusal(chart_dir: Path) -> str | None:
    """Why Helm must not load the chart folder `chart_dir` (with its subcharts, linked or archived):
    the first schema left referring outside, or None."""
    seen: set[str] = set()
    pending = [chart_dir]
    while pending:
        folder = pending.pop()
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        schema = folder / SCHEMA_FILE
        if schema.is_file():
            reason = schema_refusal(
                str(schema.relative_to(chart_dir.parent)), _parsed(_read_text(schema))
            )
            if reason:
                return reason
        for entry in sorted((folder / "charts").iterdir()) if (folder / "charts").is_dir() else ():
            if entry.is_dir():
                pending.append(entry)
            elif entry.name.endswith(".tgz") and entry.is_file():
                reason = _archive_refusal(
                    _read_bytes(entry), str(entry.relative_to(chart_dir.parent)), 1
                )
                if reason:
                    return reason
    return None


def _archive_refusal(data: bytes | None, where: str, depth: int) -> str | None:
    """The first schema of a chart archive (and of the subchart archives it holds) referring outside."""
    if data is None:
        return None
    try:
        for name, member in _archive_members(data):
            if posixpath.basename(name) == SCHEMA_FILE:
                reason = schema_refusal(
                    f"{where}:{name}", _parsed(member.decode("utf-8", "replace"))
                )
                if reason:
                    return reason
            elif _is_subchart_archive(name) and depth < _MAX_ARCHIVE_DEPTH:
                reason = _archive_refusal(member, f"{where}:{name}", depth + 1)
                if reason:
                    return reason
    except (tarfile.TarError, OSError, EOFError, ValueError):
        return None  # Helm cannot load it either, and says so
    except _ArchiveTooLarge:
        return f"{where}: over {_MAX_ARCHIVE_STREAM} bytes unpacked before its schemas are read; not loaded"
    return None


class _ArchiveTooLarge(Exception):
    pass


def _archive_members(data: bytes) -> Iterator[tuple[str, bytes]]:
    """(name, content) of the schemas and subchart archives in a gzipped tar, within the byte bound."""
    total = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive:
            if member.offset > _MAX_ARCHIVE_STREAM:
                raise _ArchiveTooLarge
            name = member.name
            if not member.isfile() or not (
                posixpath.basename(name) == SCHEMA_FILE or _is_subchart_archive(name)
            ):
                continue
            total += member.size
            if total > _MAX_ARCHIVE_BYTES:
                raise _ArchiveTooLarge
            handle = archive.extractfile(member)
            if handle is not None:
                yield name, handle.read()


def _is_subchart_archive(path: str) -> bool:
    return path.endswith(".tgz") and posixpath.basename(posixpath.dirname(path)) == "charts"


class _TooDeep:
    """A schema nested past what Python's JSON parser (and any walk of it) can follow."""


TOO_DEEP = _TooDeep()


def _parsed(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None
    except RecursionError:
        return TOO_DEEP


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
