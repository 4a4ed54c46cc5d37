"""The objects `.aftershock.yaml` `cluster:` declares: its inline objects and the YAML documents of its
`files`, read at one ref, as plain dicts for `render.lookup.cluster.cluster_snapshot(extra_objects=...)`.

Files are parsed as Helm parses YAML (`yamlio`); a `kind: List` document (as `kubectl get -o yaml`
writes) gives its `items`. An object without apiVersion, kind or metadata.name, a missing file or
invalid YAML is bad input: one ConfigError naming the file and document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.config.settings import CONFIG_FILE_NAME, ClusterSettings
from aftershock.gocompat import yamlio
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import AftershockError, ConfigError


def read_cluster_objects(
    settings: ClusterSettings, tree: RefSnapshot
) -> tuple[dict[str, Any], ...]:
    """The declared objects, the files read from `tree`."""
    texts = {}
    for path in settings.files:
        try:
            texts[path] = tree.read_text(path)
        except KeyError:
            raise ConfigError(
                f"cluster file not found at {tree.label}: {path}",
                where=CONFIG_FILE_NAME,
                hint="list repository paths of YAML files under cluster.files",
            ) from None
    return parse_cluster_objects(settings, texts)


def parse_cluster_objects(
    settings: ClusterSettings, texts: Mapping[str, str]
) -> tuple[dict[str, Any], ...]:
    """Inline objects first, then each file's documents in order; `texts` holds every file's text."""
    found = [
        _checked(body, f"{CONFIG_FILE_NAME}: cluster.objects[{index}]")
        for index, body in enumerate(settings.objects)
    ]
    for path in settings.files:
        try:
            documents = yamlio.load_all(texts[path], source=path)
        except AftershockError as error:
            raise ConfigError(
                f"cannot read cluster file: {error.what}",
                where=error.where or path,
                hint="fix the YAML syntax",
            ) from None
        for index, document in enumerate(documents):
            if document is None:
                continue
            for body in _expanded(document):
                found.append(_checked(body, f"{path}: document {index + 1}"))
    return tuple(found)


def _expanded(document: Any) -> list[Any]:
    if (
        isinstance(document, dict)
        and document.get("kind") == "List"
        and isinstance(document.get("items"), list)
    ):
        return list(document["items"])
    return [document]


def _checked(body: Any, where: str) -> dict[str, Any]:
    metadata = body.get("metadata") if isinstance(body, dict) else None
    if not (
        isinstance(body, dict)
        and isinstance(body.get("apiVersion"), str)
        and isinstance(body.get("kind"), str)
        and isinstance(metadata, dict)
        and isinstance(metadata.get("name"), str)
        and metadata["name"]
    ):
        raise ConfigError(
            "a cluster object needs apiVersion, kind and metadata.name",
            where=where,
            hint="give each object of cluster: its apiVersion, kind and metadata.name",
        )
    return body
