"""Reading many small YAML files of one ref at once: one batch of blob reads, sizes checked first.

Discovery (Flux Kustomizations, kustomizations) reads thousands of small files in a fleet repository;
read one by one, each read is a round trip to git. A file over the size limit or not UTF-8 is left out
and reported in `unreadable` (path -> reason), never read partially. `over_bound` names a file among
those a build or render would read that is over the size limit or whose YAML aliases expand past
go-yaml's bound (kustomize's YAML reader would expand them without one), so that the build or render
is refused, *not reviewed* with the reason, before it starts.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable

import yaml

from aftershock.gocompat.yamlnodes import COMPOSER, AliasBomb
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.ingest.repository.tree import EntryKind


def read_texts(
    tree: RefSnapshot, paths: Iterable[str], unreadable: dict[str, str]
) -> dict[str, str]:
    """Path -> text of every readable file among `paths` (symlinks and submodules are left out)."""
    entries = tree.tree.entries
    wanted, texts = [], {}
    for path in paths:
        entry = entries.get(path)
        if entry is None or entry.kind is not EntryKind.BLOB:
            continue
        if (entry.size or 0) > tree.max_file_bytes:
            unreadable[path] = (
                f"file over the size limit: {path} at {tree.label} is {entry.size} bytes"
            )
            continue
        wanted.append(path)
    for path, data in tree.tree.read_many(wanted, max_bytes=tree.max_file_bytes):
        try:
            texts[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            unreadable[path] = f"file is not UTF-8 text: {path} at {tree.label}"
    return texts


_ALL: OrderedDict[tuple[str, int, frozenset[str]], tuple[dict[str, str], dict[str, str]]] = (
    OrderedDict()
)
_KEPT = 8  # refs, with and without the charts: a review reads two, a re-review the same two again


def yaml_texts(
    tree: RefSnapshot, outside: frozenset[str] = frozenset()
) -> tuple[dict[str, str], dict[str, str]]:
    """(path -> text, path -> why unreadable) of every YAML file of the ref, less those inside the
    folders `outside` names (chart folders: a platform monorepo's YAML is mostly chart templates, which
    plain-manifest and Flux discovery skip), read once per commit: discovery of plain manifests, Flux
    Kustomizations and kustomizations all start from it. Keyed by the commit, so it never goes stale;
    treat the mappings as read-only."""
    key = (tree.tree.ref, tree.max_file_bytes, outside)
    if key not in _ALL:
        unreadable: dict[str, str] = {}
        paths = sorted(
            p
            for p in tree.file_paths()
            if p.endswith((".yaml", ".yml")) and not (outside and in_folders(p, outside))
        )
        _ALL[key] = read_texts(tree, paths, unreadable), unreadable
        while len(_ALL) > _KEPT:
            _ALL.popitem(last=False)
    _ALL.move_to_end(key)
    return _ALL[key]


def in_folders(path: str, folders: Collection[str]) -> bool:
    """Whether a folder holding `path` (or the root) is one of `folders` (with chart folders: whether
    `path` is inside a chart): a walk up the path, not over the folders."""
    if "" in folders:
        return True
    cut = path.rfind("/")
    while cut > 0:
        path = path[:cut]
        if path in folders:
            return True
        cut = path.rfind("/")
    return False


def over_bound(
    tree: RefSnapshot, paths: Iterable[str], parsed: Callable[[str], bool] = lambda _: True
) -> str | None:
    """Why a build or render reading `paths` is refused: the first file among them over the size limit,
    or the first YAML file it parses (`parsed`) that is an alias bomb; None when all are within bounds."""
    entries, ordered = tree.tree.entries, sorted(paths)
    # the YAML files among them read in one batch (the blob reader keeps what it read)
    texts = read_texts(tree, [p for p in ordered if p.endswith((".yaml", ".yml"))], {})
    for path in ordered:
        entry = entries.get(path)
        if entry is not None and (entry.size or 0) > tree.max_file_bytes:
            return (
                f"file over the size limit: {path} at {tree.label} is {entry.size} bytes"
                f" (limit {tree.max_file_bytes}); raise --max-file-size or exclude it"
            )
        text = texts.get(path)
        if (
            text is not None
            and "&" in text
            and "*" in text
            and parsed(path)
            and _is_alias_bomb(text)
        ):
            return (
                f"{path} at {tree.label}: YAML document contains excessive aliasing (an alias bomb)"
            )
    return None


@functools.lru_cache(maxsize=256)  # by content: both refs and every build share an unchanged file
def _is_alias_bomb(text: str) -> bool:
    composer = COMPOSER(text)
    try:
        while composer.check_node():
            composer.get_node()  # checks the aliasing of each document
    except AliasBomb:
        return True
    except (yaml.YAMLError, RecursionError):
        return False  # kustomize reports broken YAML in its own words
    finally:
        composer.dispose()
    return False
