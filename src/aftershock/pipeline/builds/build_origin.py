"""Provenance of the objects a kustomize build makes: the file that declares each one, the kustomization
whose generator made it, and the patch and generator files that shaped it.

The built kustomization (a root, or the overlay a Flux Kustomization is built through) is given
`buildMetadata: [originAnnotations]` in the materialised copy, so kustomize annotates every object with
`config.kubernetes.io/origin` (`path:` of the resource file, or `configuredIn:` the kustomization file
and `configuredBy:` its generator), relative to the built folder. The annotation is read and removed
again, so the objects are what the build gives without it (kustomize's content hash does not cover
annotations, so generated names are unchanged). A kustomization that declares `buildMetadata` itself is
built as it is: its annotations are output the user sees, kept, and read when they are there. Patch and
generator files are matched from the kustomizations' own fields (ingest/gitops/kustomize_inputs.py).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from aftershock.gocompat import yamlio
from aftershock.gocompat.yamlnodes import safe_load
from aftershock.ingest.gitops.kustomizations import KustomizationSet
from aftershock.ingest.gitops.kustomize_inputs import (
    BuildInputs,
    PatchTarget,
    build_inputs,
    patch_selects,
)
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import AftershockError
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartReview
from aftershock.model.units import UnitKind

ORIGIN_ANNOTATION = "config.kubernetes.io/origin"
_REQUEST = "buildMetadata: [originAnnotations]\n"


def request_origins(kustomization: Path) -> bool:
    """Ask kustomize for origin annotations in the materialised kustomization file; True when they were
    added here (and must be stripped from the output), False when the file is left as it is."""
    try:
        text = kustomization.read_text()
        body = yamlio.load_one(text, source=kustomization.name)
        if not isinstance(body, dict) or "buildMetadata" in body:
            return False
        extended = (text if text.endswith("\n") or not text else text + "\n") + _REQUEST
        if yamlio.load_one(extended, source=kustomization.name) != {
            **body,
            "buildMetadata": ["originAnnotations"],
        }:
            return False  # e.g. a flow mapping or a second document: not extended
    except (OSError, UnicodeDecodeError, AftershockError):
        return False
    kustomization.write_text(extended)
    return True


def kustomization_file(folder: Path) -> Path | None:
    """The kustomization file kustomize reads in `folder`."""
    for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
        if (folder / name).is_file():
            return folder / name
    return None


class Attribution:
    """Links the objects of one build to their files: `top` is the built folder's repository path."""

    def __init__(
        self,
        tree: RefSnapshot,
        found: KustomizationSet,
        folders: Iterable[str],
        top: str,
        whole_build: Sequence[PatchTarget] = (),
        renames: bool = False,
        tree_folder: str | None = None,
    ) -> None:
        """`whole_build`: patches applied to everything built (a Flux Kustomization's spec.patches);
        `renames`: the overlay built sets a namePrefix or nameSuffix of its own; `tree_folder`: the
        name of the materialised tree's folder when the built overlay lies beside it (`top` is then
        `../<overlays>/<n>` and kustomize's paths pass through `../<tree_folder>/`)."""
        folders = sorted(set(folders))
        self.top = top
        self.tree_folder = tree_folder
        inputs = build_inputs(tree, found, folders)
        self.inputs: BuildInputs = replace(inputs, renames=inputs.renames or renames)
        self.whole_build = tuple(whole_build)
        self.closures = {f: found.closure(f)[0] for f in folders}

    def objects(self, objects: Sequence[RenderedObject], strip: bool) -> tuple[RenderedObject, ...]:
        return tuple(self._one(obj, strip) for obj in objects)

    def _one(self, obj: RenderedObject, strip: bool) -> RenderedObject:
        origin = _origin(obj.body)
        body = _without_origin(obj.body) if strip and origin is not None else obj.body
        where = self._file(origin)
        if where is None:
            return replace(obj, body=body)
        file, generator = where
        shaped = self._patches(obj, body, file) | self._generator_files(obj, file, generator)
        return replace(
            obj,
            body=body,
            template=file,
            generator=generator,
            shaped_by=tuple(sorted(shaped - {file})),
        )

    def _file(self, origin: Mapping[str, Any] | None) -> tuple[str, str | None] | None:
        """(repository path of the declaring or generating file, generator kind or None)."""
        if origin is None or origin.get("repo"):
            return None
        path = origin.get("path") or origin.get("configuredIn")
        if not isinstance(path, str) or path.startswith("/"):
            return None
        resolved = posixpath.normpath(posixpath.join(self.top, path))
        beside = f"../{self.tree_folder}/" if self.tree_folder else None
        if beside and resolved.startswith(beside):
            resolved = resolved[len(beside) :]
        if resolved == ".." or resolved.startswith("../"):
            return None
        by = origin.get("configuredBy")
        kind = by.get("kind") if isinstance(by, dict) and "path" not in origin else None
        return resolved, kind if kind in ("ConfigMapGenerator", "SecretGenerator") else None

    def _patches(self, obj: RenderedObject, body: Mapping[str, Any], file: str) -> set[str]:
        metadata = body.get("metadata")
        labels = metadata.get("labels") if isinstance(metadata, dict) else None
        labels = labels if isinstance(labels, dict) else {}
        key, renames = obj.key, self.inputs.renames
        applying = [p for p in self.inputs.patches if file in self.closures.get(p.folder, ())]
        return {
            p.file
            for p in (*applying, *self.whole_build)
            if patch_selects(p, key.group, key.kind, key.name, labels, renames)
        }

    def _generator_files(self, obj: RenderedObject, file: str, generator: str | None) -> set[str]:
        """The files a generated object's generator reads, and the overlays merging into it."""
        if generator is None:
            return set()
        found: set[str] = set()
        for entry in self.inputs.generators:
            if entry.kind != generator or entry.name not in obj.key.name:
                continue
            if entry.kustomization == file:
                found.update(entry.files)
            elif entry.merges and file in self.closures.get(entry.folder, ()):
                found.update((entry.kustomization, *entry.files))
        return found


def _origin(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    metadata = body.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    text = annotations.get(ORIGIN_ANNOTATION) if isinstance(annotations, dict) else None
    return _parsed_origin(text) if isinstance(text, str) else None


def _parsed_origin(text: str) -> Mapping[str, Any] | None:
    """kustomize's own annotation (plain YAML it wrote: paths and builtin kinds), read with libyaml."""
    try:
        origin = safe_load(text)
    except yaml.YAMLError:
        return None
    return origin if isinstance(origin, dict) else None


def _without_origin(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body without the annotation this build asked for (and without `annotations` when it was the
    only one: kustomize itself drops an empty map there)."""
    metadata = dict(body["metadata"])
    annotations = {k: v for k, v in metadata["annotations"].items() if k != ORIGIN_ANNOTATION}
    if annotations:
        metadata["annotations"] = annotations
    else:
        del metadata["annotations"]
    return {**body, "metadata": metadata}


def source_unit_kind(path: str, review: ChartReview | None) -> UnitKind:
    """A file that declares, generates or patches an object of the build is its template (the graph
    then links file -> template -> object); any other file the build reads is a file of the build."""
    if review is None:
        return UnitKind.CHART_FILE
    sources = {
        p
        for obj in (*review.base_objects, *review.head_objects)
        for p in (obj.template, *obj.shaped_by)
    }
    return UnitKind.TEMPLATE if path in sources else UnitKind.CHART_FILE
