"""Kustomizations at one ref: each folder holding a `kustomization.yaml`, what it reads, and whether it may
be built at all.

kustomize itself builds them (render/kustomize.py); this module only reads the fields that name paths,
to know which files a build reads (so a change reaches the kustomizations it touches and plain
manifests built by one are not reviewed twice), which folders must be materialised, and what must never
be built: a path that leaves the repository, a remote resource (kustomize would clone it), `helmCharts`
(kustomize would run a Helm binary) and KRM functions (exec or container plugins).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from aftershock.gocompat import yamlio
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.yaml_files import read_texts
from aftershock.model.errors import AftershockError

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_FUNCTION_MARKERS = (
    "config.kubernetes.io/function",
    "config.k8s.io/function",
    "exec:",
    "container:",
)


@dataclass(frozen=True)
class Kustomization:
    """One kustomization folder: the files it reads itself, the kustomization folders it includes,
    and why it cannot be built (None when it can)."""

    folder: str
    file: str
    files: frozenset[str] = frozenset()
    includes: frozenset[str] = frozenset()
    problem: str | None = None


@dataclass(frozen=True)
class KustomizationSet:
    by_folder: Mapping[str, Kustomization] = field(default_factory=dict)

    def roots(self) -> tuple[str, ...]:
        """Folders no other kustomization includes: what a controller or a person builds."""
        included = {i for k in self.by_folder.values() for i in k.includes}
        return tuple(sorted(f for f in self.by_folder if f not in included))

    def closure(self, folder: str) -> tuple[frozenset[str], frozenset[str], str | None]:
        """(files read, kustomization folders included, first problem) of building `folder`."""
        files: set[str] = set()
        folders: set[str] = set()
        problem: str | None = None
        stack = [folder]
        while stack:
            current = stack.pop()
            if current in folders:
                continue
            folders.add(current)
            found = self.by_folder.get(current)
            if found is None:
                continue  # kustomize reports the missing kustomization itself
            files |= found.files
            problem = problem or found.problem
            stack.extend(found.includes)
        return frozenset(files), frozenset(folders), problem

    def built_files(self) -> frozenset[str]:
        """Every file some kustomization reads: not a plain manifest on its own."""
        return frozenset(p for k in self.by_folder.values() for p in k.files)


def find_kustomizations(tree: RefSnapshot) -> KustomizationSet:
    paths = set(tree.file_paths())
    files: dict[str, str] = {}
    for path in sorted(paths):
        if posixpath.basename(path) in KUSTOMIZATION_FILES:
            files.setdefault(posixpath.dirname(path), path)
    unreadable: dict[str, str] = {}
    texts = read_texts(tree, files.values(), unreadable)
    found = {
        folder: _read(tree, folder, path, texts.get(path), unreadable.get(path), paths)
        for folder, path in files.items()
    }
    return KustomizationSet(found)


@functools.lru_cache(
    maxsize=4096
)  # by content: an unchanged kustomization is parsed once for both refs
def _parsed(path: str, text: str) -> tuple[tuple[str, ...], Any]:
    """(paths it names, the parsed body); MalformedInputError when it is not YAML."""
    body = yamlio.load_one(text, source=path) if text.strip() else {}
    return (tuple(_path_refs(body)) if isinstance(body, dict) else ()), body


def kustomization_body(tree: RefSnapshot, path: str) -> dict[str, Any] | None:
    """The parsed kustomization file at `path`; None when it cannot be read or is not a mapping."""
    try:
        text = tree.text_or_none(path)
        body = _parsed(path, text)[1] if text is not None else None
    except AftershockError:
        return None
    return body if isinstance(body, dict) else None


def _read(
    tree: RefSnapshot,
    folder: str,
    path: str,
    text: str | None,
    unreadable: str | None,
    paths: set[str],
) -> Kustomization:
    if text is None:
        return Kustomization(
            folder, path, frozenset({path}), problem=unreadable or f"{path} cannot be read"
        )
    try:
        refs, body = _parsed(path, text)
    except AftershockError as error:
        return Kustomization(folder, path, frozenset({path}), problem=error.line())
    if not isinstance(body, dict):
        return Kustomization(folder, path, frozenset({path}), problem=f"{path} is not a mapping")
    files, includes, problems = {path}, set(), []
    for ref in refs:
        if "://" in ref or ref.startswith(("github.com/", "git@", "gitlab.com/", "bitbucket.org/")):
            problems.append(
                f"remote resource {ref!r}: aftershock never fetches what a kustomization names remotely"
            )
            continue
        target = posixpath.normpath(posixpath.join(folder, ref))
        if ref.startswith("/") or target == ".." or target.startswith("../"):
            problems.append(f"path {ref!r} leaves the repository")
        elif target in paths:
            files.add(target)
        elif any(f"{target}/{n}" in paths for n in KUSTOMIZATION_FILES):
            includes.add(target)
    problems += _refused_fields(body, folder, tree)
    return Kustomization(
        folder, path, frozenset(files), frozenset(includes), "; ".join(problems) or None
    )


def _refused_fields(body: Mapping[str, Any], folder: str, tree: RefSnapshot) -> list[str]:
    problems = []
    if body.get("helmCharts") or body.get("helmChartInflationGenerator"):
        problems.append(
            "helmCharts: kustomize would run a Helm binary, which aftershock never does; render the chart as a chart or HelmRelease"
        )
    for key in ("generators", "transformers", "validators"):
        for entry in _strings(body.get(key)):
            text = (
                entry
                if "\n" in entry
                else _text(tree, posixpath.normpath(posixpath.join(folder, entry)))
            )
            if text and any(marker in text for marker in _FUNCTION_MARKERS):
                problems.append(
                    f"{key} runs a KRM function (exec or container), which aftershock never runs"
                )
    return problems


def _text(tree: RefSnapshot, path: str) -> str | None:
    try:
        return tree.text_or_none(path)
    except AftershockError:
        return None


def _strings(value: Any) -> Iterator[str]:
    for item in value if isinstance(value, list) else ():
        if isinstance(item, str):
            yield item


def _path_refs(body: Mapping[str, Any]) -> Iterable[str]:
    """Every path a kustomization names: resources, bases, components, patches, generators' files."""
    for key in (
        "resources",
        "bases",
        "components",
        "crds",
        "configurations",
        "generators",
        "transformers",
        "validators",
    ):
        yield from (s for s in _strings(body.get(key)) if "\n" not in s)
    yield from (s for s in _strings(body.get("patchesStrategicMerge")) if "\n" not in s)
    for key in ("patches", "patchesJson6902", "replacements"):
        for item in body.get(key) or () if isinstance(body.get(key), list) else ():
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                yield item["path"]
    openapi = body.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        yield openapi["path"]
    for key in ("configMapGenerator", "secretGenerator"):
        for generator in body.get(key) or () if isinstance(body.get(key), list) else ():
            if isinstance(generator, dict):
                yield from (f.split("=", 1)[-1] for f in _strings(generator.get("files")))
                yield from _strings(generator.get("envs"))
                if isinstance(generator.get("env"), str):
                    yield generator["env"]
