"""The semantic difference between two renders: object changes made of field changes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from aftershock.model.objects import ObjectKey


class ObjectChangeKind(str, enum.Enum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    RENAMED = "renamed"


class FieldChangeKind(str, enum.Enum):
    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    REORDERED = "reordered"  # a list whose entries are the same, in another order


# Fields that hold a version a release or source installs (Flux, Argo CD, OCI sources, values).
VERSION_FIELDS = ("version", "tag", "semver", "targetRevision", "digest")


@dataclass(frozen=True)
class RedactedValue:
    """Stands in for a Secret value: only its size is ever shown."""

    bytes: int


@dataclass(frozen=True)
class FieldChange:
    """One changed field, e.g. `spec.template.spec.containers[name=app].env[name=FOO].value`.

    `before`/`after` are JSON-compatible values (or RedactedValue); `None` with ADDED/REMOVED
    means absent. `path_parts` holds the same path as a tuple of keys and `[k=v]`/`[i]` selectors.
    """

    path: str
    kind: FieldChangeKind
    before: Any = None
    after: Any = None
    # Each part as written in `path` (a key is `["a/b"]` when quoted there); derived, so not compared.
    path_parts: tuple[str, ...] = field(default=(), compare=False)
    # Left out of "what changed" and the rollout rules (`review.ignore_fields`: diff/ignored.py).
    ignored: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class ObjectChange:
    """An object added, removed, renamed or changed between base and head.

    `key` is the head key (the base key for REMOVED); `previous_key` is set for RENAMED.
    `templates` names the rendered template files on either side it came from (for a kustomize
    build, the files that declare, generate or patch it).
    `generator` is set on a RENAMED object whose new name is its kustomize generator's new content
    hash (ConfigMapGenerator, SecretGenerator); `rolls` then lists the workloads whose pod template
    changed from the old name to the new one, observed in their diff: the rename restarts their pods.
    """

    kind: ObjectChangeKind
    key: ObjectKey
    api_version: str
    chart: str
    templates: tuple[str, ...]
    fields: tuple[FieldChange, ...] = ()
    previous_key: ObjectKey | None = None
    similarity: float | None = None
    previous_api_version: str | None = None
    generator: str | None = None
    rolls: tuple[ObjectKey, ...] = ()


@dataclass(frozen=True)
class UnstableField:
    """A field of an object that varies from render to render, masked before diffing: the whole of
    it, or (`line`, a signature from `aftershock.diff.varying.lines`) the lines of its text with
    that signature."""

    key: ObjectKey
    path: str
    line: str | None = None
