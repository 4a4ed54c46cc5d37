"""The namespace a kustomization gives the objects of a file it includes (`namespace:`), for files
read as they are (Flux Kustomizations, releases): `default/x` is wrong for an object whose
kustomization puts it in `flux-system`.

From the file's folder up, the first kustomization (`kustomization.yaml`, `.yml`, `Kustomization`)
decides: when it includes the file (by its relative path, `./konflate/ks.yaml`, or a folder holding
it, in `resources`), its `namespace:` is the objects' default; without one, the kustomization that
includes its folder in turn is asked. A kustomization that does not include the file ends the walk;
a folder without one is passed through. Objects that name
their own namespace keep it here (kustomize would override it: a simplification kept on purpose,
since such files are read for what they name, not applied).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.ingest.gitops.kustomizations import KUSTOMIZATION_FILES
from aftershock.model.errors import MalformedInputError

MAX_LEVELS = 16

TextReader = Callable[[str], str | None]


def kustomize_namespace(path: str, read: TextReader) -> str | None:
    """The namespace the kustomizations that include the file at `path` give it, if any."""
    folder, included = posixpath.dirname(path), path
    for _ in range(MAX_LEVELS):
        found = _kustomization(folder, read)
        if found is not None:
            if not _includes(found, posixpath.relpath(included, folder or ".")):
                return None
            namespace = found.get("namespace")
            if isinstance(namespace, str) and namespace:
                return namespace
            included = folder  # what a kustomization further up must include
        if not folder:
            return None
        folder = posixpath.dirname(folder)
    return None


def _kustomization(folder: str, read: TextReader) -> dict[str, Any] | None:
    for name in KUSTOMIZATION_FILES:
        text = read(f"{folder}/{name}" if folder else name)
        if text is not None:
            try:
                loaded = yamlio.load_one(text, source=name)
            except MalformedInputError:
                return None
            return loaded if isinstance(loaded, dict) else None
    return None


def _includes(kustomization: dict[str, Any], relative: str) -> bool:
    """Whether a resource of the kustomization is the file (`./konflate/ks.yaml`) or a folder
    holding it (`./konflate`), relative to the kustomization's folder."""
    resources = kustomization.get("resources")
    if not isinstance(resources, list):
        return False
    named = {posixpath.normpath(r.strip()) for r in resources if isinstance(r, str)}
    return any(relative == r or relative.startswith(f"{r}/") for r in named)
