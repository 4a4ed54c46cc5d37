"""Reading many small YAML files of one ref at once: one batch of blob reads, sizes checked first.

Discovery (Flux Kustomizations, kustomizations) reads thousands of small files in a fleet repository;
read one by one, each read is a round trip to git. A file over the size limit or not UTF-8 is left out
and reported in `unreadable` (path -> reason), never read partially.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from aftershock.ingest.snapshot import RefSnapshot
from aftershock.ingest.tree import EntryKind


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


_ALL: OrderedDict[tuple[str, int], tuple[dict[str, str], dict[str, str]]] = OrderedDict()
_KEPT = 4  # refs: a review reads two, a re-review the same two again


def yaml_texts(tree: RefSnapshot) -> tuple[dict[str, str], dict[str, str]]:
    """(path -> text, path -> why unreadable) of every YAML file of the ref, read once per commit: discovery of
    plain manifests, Flux Kustomizations and kustomizations all start from it. Keyed by the commit, so
    it never goes stale; treat the mappings as read-only."""
    key = (tree.tree.ref, tree.max_file_bytes)
    if key not in _ALL:
        unreadable: dict[str, str] = {}
        paths = sorted(p for p in tree.file_paths() if p.endswith((".yaml", ".yml")))
        _ALL[key] = read_texts(tree, paths, unreadable), unreadable
        while len(_ALL) > _KEPT:
            _ALL.popitem(last=False)
    _ALL.move_to_end(key)
    return _ALL[key]
