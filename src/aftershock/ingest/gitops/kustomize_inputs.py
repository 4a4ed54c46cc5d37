"""What the kustomizations of a build patch and generate, read from their files: so each object a build
makes can be linked to the patch files that changed it and the files its generator read.

kustomize records where an object was declared (its origin annotation, see pipeline/builds/build_origin.py) but
not which patches changed it. A patch names its targets: a `target` selector (group, kind, name as a
regex, labelSelector), or, for a strategic-merge patch without one, the kind and name of each of its
documents. A patch applies to what its own kustomization accumulates; a match here is by kind (and
group) and by the name the object has in the build, which a `namePrefix`/`nameSuffix` further out may
have extended: with one in the build, a name matches when it is contained in the built name. The links
are inferred from the files (kustomize does not report them); an inline patch links to its
kustomization file.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.ingest.gitops.kustomizations import KustomizationSet, kustomization_body
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import AftershockError

GENERATOR_KINDS = {"configMapGenerator": "ConfigMapGenerator", "secretGenerator": "SecretGenerator"}


@dataclass(frozen=True)
class PatchTarget:
    """What one patch (or one document of a strategic-merge patch) selects, and the file it is in."""

    folder: str  # the kustomization applying it
    file: str  # the patch file, or the kustomization file for an inline patch
    kind: str | None = None
    name: str | None = None
    group: str | None = None
    name_is_regex: bool = False  # a `target` name is a regex; a patch document's name is a name
    label_selector: str | None = None


@dataclass(frozen=True)
class GeneratorInput:
    """One configMapGenerator/secretGenerator entry: its kustomization file, the files it reads, and
    whether it merges into (or replaces) a generator of a base."""

    folder: str
    kustomization: str
    kind: str  # ConfigMapGenerator or SecretGenerator
    name: str
    files: tuple[str, ...] = ()
    merges: bool = False


@dataclass(frozen=True)
class BuildInputs:
    patches: tuple[PatchTarget, ...] = ()
    generators: tuple[GeneratorInput, ...] = ()
    renames: bool = False  # a kustomization of the build sets namePrefix or nameSuffix


def build_inputs(tree: RefSnapshot, found: KustomizationSet, folders: Iterable[str]) -> BuildInputs:
    """The patches and generators of the kustomization `folders` of one build."""
    patches: list[PatchTarget] = []
    generators: list[GeneratorInput] = []
    renames = False
    for folder in sorted(set(folders)):
        kustomization = found.by_folder.get(folder)
        body = kustomization_body(tree, kustomization.file) if kustomization else None
        if kustomization is None or body is None:
            continue
        renames = renames or bool(body.get("namePrefix") or body.get("nameSuffix"))
        patches += patch_targets(tree, folder, kustomization.file, body)
        generators += _generators(folder, kustomization.file, body)
    return BuildInputs(tuple(patches), tuple(generators), renames)


def patch_targets(
    tree: RefSnapshot, folder: str, file: str, body: Mapping[str, Any]
) -> Iterator[PatchTarget]:
    """The targets of the patches a kustomization body (`file`, in `folder`) applies."""
    entries = [*_list(body.get("patches")), *_list(body.get("patchesJson6902"))]
    entries += [
        {"path": p} if isinstance(p, str) and "\n" not in p else {"patch": p}
        for p in _list(body.get("patchesStrategicMerge"))
    ]
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        path = entry.get("path")
        where = posixpath.normpath(posixpath.join(folder, path)) if isinstance(path, str) else file
        target = entry.get("target")
        if isinstance(target, dict):
            yield _selector(folder, where, target)
            continue
        text = entry.get("patch") if isinstance(entry.get("patch"), str) else _text(tree, where)
        yield from _document_targets(folder, where, text or "")


def _selector(folder: str, file: str, target: Mapping[str, Any]) -> PatchTarget:
    def text(key: str) -> str | None:
        value = target.get(key)
        return value if isinstance(value, str) and value else None

    return PatchTarget(
        folder,
        file,
        kind=text("kind"),
        name=text("name"),
        group=text("group"),
        name_is_regex=True,
        label_selector=text("labelSelector"),
    )


@functools.lru_cache(maxsize=4096)  # by content: a patch unchanged between the refs is parsed once
def _document_targets(folder: str, file: str, text: str) -> tuple[PatchTarget, ...]:
    """The targets of a strategic-merge patch: the kind and name of each document."""
    try:
        documents = yamlio.load_all(text, source=file)
    except AftershockError:
        return ()  # kustomize reports the broken patch
    return tuple(_document_target(folder, file, doc) for doc in documents if _is_object(doc))


def _is_object(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("kind"), str)


def _document_target(folder: str, file: str, doc: dict[str, Any]) -> PatchTarget:
    name = _map(doc.get("metadata")).get("name")
    api_version = doc["apiVersion"] if isinstance(doc.get("apiVersion"), str) else ""
    return PatchTarget(
        folder,
        file,
        kind=doc["kind"],
        name=name if isinstance(name, str) else None,
        group=api_version.rsplit("/", 1)[0] if "/" in api_version else "",
    )


def _generators(folder: str, file: str, body: Mapping[str, Any]) -> Iterator[GeneratorInput]:
    for key, kind in GENERATOR_KINDS.items():
        for entry in _list(body.get(key)):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            named = [f.split("=", 1)[-1] for f in _list(entry.get("files")) if isinstance(f, str)]
            named += [e for e in _list(entry.get("envs")) if isinstance(e, str)]
            if isinstance(entry.get("env"), str):
                named.append(entry["env"])
            yield GeneratorInput(
                folder,
                file,
                kind,
                entry["name"],
                tuple(posixpath.normpath(posixpath.join(folder, p)) for p in named),
                entry.get("behavior") in ("merge", "replace"),
            )


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(tree: RefSnapshot, path: str) -> str | None:
    """The file's text (the blob reader keeps what it read: both refs share most files)."""
    try:
        return tree.text_or_none(path)
    except AftershockError:
        return None


def patch_selects(
    target: PatchTarget, group: str, kind: str, name: str, labels: Mapping[str, Any], renames: bool
) -> bool:
    """Whether `target` selects a built object of this group, kind, name and labels."""
    if target.kind is not None and target.kind != kind:
        return False
    if target.group is not None and target.group != group:
        return False
    if target.label_selector is not None and not _labels_match(target.label_selector, labels):
        return False
    if target.name is None:
        return True
    if target.name_is_regex:
        pattern = target.name if not renames else f".*(?:{target.name}).*"
        try:
            return re.fullmatch(pattern, name) is not None
        except re.error:
            return target.name == name
    return target.name == name or (renames and target.name in name)


def _labels_match(selector: str, labels: Mapping[str, Any]) -> bool:
    """Equality-based selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`); any other term is taken to match."""
    for term in (t.strip() for t in selector.split(",") if t.strip()):
        if "!=" in term:
            key, value = (p.strip() for p in term.split("!=", 1))
            if str(labels.get(key)) == value:
                return False
        elif "=" in term and not re.search(r"\s(in|notin)\s", term):
            key, value = (p.strip() for p in term.replace("==", "=").split("=", 1))
            if key not in labels or str(labels[key]) != value:
                return False
        elif (re.fullmatch(r"[\w./-]+", term) and term not in labels) or (
            term.startswith("!") and term[1:] in labels
        ):
            return False
    return True
