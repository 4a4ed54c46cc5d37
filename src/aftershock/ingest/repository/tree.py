"""A snapshot of the tree at one commit: its listing, file reads, symlink safety, materialisation.

Nothing is checked out. The listing comes from one `git ls-tree`, contents from the one
`git cat-file --batch` of a BlobReader, so no filter, hook or attribute of the repository runs.
Symlinks are resolved inside the tree itself; a link that leaves the repository root is refused
before anything is read through it or written to disk.
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import assert_never

from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.gitparse import decode_path
from aftershock.ingest.repository.listing import (
    EntryKind,
    TreeEntry,
    listing_changed_from,
    whole_listing,
)
from aftershock.ingest.repository.safewrite import SafeWriter
from aftershock.model.errors import (
    FileTooLargeError,
    GitError,
    MalformedInputError,
    UnsafeRepositoryError,
)

__all__ = [
    "BlobReader",
    "EntryKind",
    "Materialized",
    "Resolution",
    "SymlinkCheck",
    "Tree",
    "TreeEntry",
    "check_symlinks",
    "materialize",
]

_MAX_LINK_HOPS = 40  # as Linux's MAXSYMLINKS
_MAX_LINK_TARGET_BYTES = 4096  # PATH_MAX


@dataclass(frozen=True)
class Resolution:
    """Where a path leads inside the tree once symlinks are followed.

    `path` is None when the links loop; `links` are the symlink entries followed, in order.
    """

    path: str | None
    links: tuple[str, ...] = ()


def _folders(paths: Iterable[str]) -> frozenset[str]:
    """Every folder on the way to each path; each folder's own parents are walked once."""
    folders: set[str] = set()
    for path in paths:
        cut = path.rfind("/")
        while cut > 0:
            parent = path[:cut]
            if parent in folders:
                break
            folders.add(parent)
            cut = parent.rfind("/")
    return frozenset(folders)


def _normalize(path: str) -> str:
    path = path.strip("/")
    return "" if path == "." else path


class Tree:
    """The files of one commit; reads go through `reader`, which the caller owns and closes."""

    def __init__(
        self,
        *,
        ref: str,
        commit: str,
        entries: Mapping[str, TreeEntry],
        reader: BlobReader,
        whole: bool = True,
    ) -> None:
        self.ref = ref
        self.commit = commit
        self.whole = whole  # every entry of the commit, not those under some folders alone
        self._entries = MappingProxyType(dict(entries))
        self._sorted = sorted(self._entries)
        self._dirs = _folders(self._entries)
        self._reader = reader
        self._link_targets: dict[str, str] | None = None
        self._resolutions: dict[
            str, Resolution
        ] = {}  # the tree never changes: each path resolves once

    @classmethod
    def load(
        cls, repo: GitRepository, ref: str, reader: BlobReader, only: Sequence[str] = ()
    ) -> Tree:
        """The tree of `ref`; with `only`, just the entries under those folders (a partial tree)."""
        commit = repo.resolve(ref)
        entries = whole_listing(repo, commit, only)
        return cls(ref=ref, commit=commit, entries=entries, reader=reader, whole=not only)

    @classmethod
    def load_changed(
        cls, repo: GitRepository, ref: str, other: Tree, changed: Collection[str]
    ) -> Tree:
        """The whole tree of `ref`, from the whole tree `other` and the paths whose entries differ
        between them (`listing.listing_changed_from`); reads share `other`'s reader."""
        assert other.whole, "a partial tree cannot stand for the rest of another"
        commit = repo.resolve(ref)
        entries = listing_changed_from(other.entries, repo, commit, changed)
        return cls(ref=ref, commit=commit, entries=entries, reader=other._reader)

    @property
    def entries(self) -> Mapping[str, TreeEntry]:
        return self._entries

    def paths_under(self, prefix: str) -> tuple[str, ...]:
        """Entry paths inside folder `prefix` ("" for all), sorted; links are not followed."""
        prefix = _normalize(prefix)
        if not prefix:
            return tuple(self._sorted)
        start = prefix + "/"
        first = bisect.bisect_left(self._sorted, start)
        last = bisect.bisect_left(self._sorted, prefix + "0")  # "0" sorts right after "/"
        return tuple(self._sorted[first:last])

    def exists(self, path: str) -> bool:
        path = _normalize(path)
        return path in self._entries or self.is_dir(path)

    def is_dir(self, path: str) -> bool:
        path = _normalize(path)
        return path == "" or path in self._dirs

    def resolve(self, path: str) -> Resolution:
        """Follows symlinks in every component of `path`, like the kernel would in a checkout.

        Raises UnsafeRepositoryError when a link is absolute or climbs above the root; a link to a
        missing path is fine (the result then does not exist).
        """
        known = self._resolutions.get(path)
        if known is not None:
            return known
        resolution = self._resolve(path)
        self._resolutions[path] = resolution
        return resolution

    def _resolve(self, path: str) -> Resolution:
        # Each component remembers the link whose text it came from, to name the culprit.
        pending: deque[tuple[str, str | None]] = deque(
            (part, None) for part in _normalize(path).split("/")
        )
        resolved: list[str] = []
        followed: list[str] = []
        while pending:
            part, origin = pending.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                if not resolved:
                    raise self._escape(path, origin)
                resolved.pop()
                continue
            here = "/".join((*resolved, part))
            entry = self._entries.get(here)
            if entry is None or entry.kind is not EntryKind.SYMLINK:
                resolved.append(part)
                continue
            if len(followed) >= _MAX_LINK_HOPS:
                return Resolution(path=None, links=tuple(dict.fromkeys(followed)))
            followed.append(here)
            target = self.link_target(here)
            if target.startswith("/"):
                raise self._escape(path, here)
            pending.extendleft((step, here) for step in reversed(target.split("/")))
        return Resolution(path="/".join(resolved), links=tuple(dict.fromkeys(followed)))

    def link_target(self, path: str) -> str:
        """The text of symlink `path`; all link targets are read in one batch on first use."""
        if self._link_targets is None:
            links = [entry for entry in self._entries.values() if entry.kind is EntryKind.SYMLINK]
            for entry in links:
                if (entry.size or 0) > _MAX_LINK_TARGET_BYTES:
                    raise UnsafeRepositoryError(
                        f"symlink target too long: {entry.path} at {self.ref}",
                        hint="aftershock refuses links longer than PATH_MAX",
                    )
            blobs = dict(self._reader.read_many(dict.fromkeys(entry.sha for entry in links)))
            self._link_targets = {entry.path: decode_path(blobs[entry.sha]) for entry in links}
        return self._link_targets[path]

    def read_bytes(self, path: str, *, max_bytes: int) -> bytes:
        """Content of file `path`, following symlinks inside the tree."""
        for _, data in self.read_many((path,), max_bytes=max_bytes):
            return data
        raise AssertionError("read_many answered nothing")

    def read_text(self, path: str, *, max_bytes: int) -> str:
        data = self.read_bytes(path, max_bytes=max_bytes)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise MalformedInputError(
                f"file is not UTF-8 text: {path} at {self.ref}",
                hint="save it as UTF-8 or exclude it",
            ) from error

    def read_many(self, paths: Iterable[str], *, max_bytes: int) -> Iterator[tuple[str, bytes]]:
        """(path, content) for each path in one batch; every size is checked before any read."""
        entries = [(path, self._file_entry(path)) for path in paths]
        for path, entry in entries:
            size = entry.size or 0
            if size > max_bytes:
                raise FileTooLargeError(
                    f"file over the size limit: {path} at {self.ref} is {size} bytes"
                    f" (limit {max_bytes})",
                    hint="raise --max-file-size or exclude it",
                )
        blobs = self._reader.read_many(entry.sha for _, entry in entries)
        for (path, _), (_, data) in zip(entries, blobs, strict=True):
            yield path, data

    def _file_entry(self, path: str) -> TreeEntry:
        path = _normalize(path)
        entry = self._entries.get(path)
        if entry is None or entry.kind is EntryKind.SYMLINK:
            target = self.resolve(path).path
            entry = None if target is None else self._entries.get(target)
        if entry is None or entry.kind is not EntryKind.BLOB:
            raise GitError(
                f"no file {path} at {self.ref}", hint="check the path exists at that ref"
            )
        return entry

    def _escape(self, path: str, link: str | None) -> UnsafeRepositoryError:
        if link is None:
            return UnsafeRepositoryError(
                f"path leaves the repository: {path} at {self.ref}",
                hint="aftershock never reads outside the repository root",
            )
        return UnsafeRepositoryError(
            f"symlink leaves the repository: {link} -> {self.link_target(link)} at {self.ref}",
            hint="aftershock never follows links outside the repository root",
        )


@dataclass(frozen=True)
class SymlinkCheck:
    """Every symlink of a tree: in-repo links to existing paths, and dangling or looping ones."""

    targets: Mapping[str, str]
    dangling: tuple[str, ...]


def check_symlinks(tree: Tree) -> SymlinkCheck:
    """Resolves every symlink of `tree`; raises UnsafeRepositoryError for one leaving the root."""
    targets: dict[str, str] = {}
    dangling: list[str] = []
    for path, entry in tree.entries.items():
        if entry.kind is not EntryKind.SYMLINK:
            continue
        target = tree.resolve(path).path
        if target is None or not tree.exists(target):
            dangling.append(path)
        else:
            targets[path] = target
    return SymlinkCheck(targets=MappingProxyType(targets), dangling=tuple(sorted(dangling)))


@dataclass(frozen=True)
class Materialized:
    """What `materialize` wrote and what it left out, as repository paths."""

    files: tuple[str, ...]
    symlinks: tuple[str, ...]
    submodules: tuple[str, ...]  # skipped: their content is another repository
    dangling: tuple[str, ...]  # links written whose target is missing at the ref, or that loop
    missing: tuple[str, ...]  # requested prefixes absent from the tree


@dataclass
class _Plan:
    files: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)
    submodules: set[str] = field(default_factory=set)
    dangling: set[str] = field(default_factory=set)
    missing: list[str] = field(default_factory=list)


def materialize(
    tree: Tree, prefixes: Iterable[str], dest: Path, *, max_file_bytes: int
) -> Materialized:
    """Writes the files under `prefixes` into `dest`, plus whatever their symlinks point to.

    Symlinks are recreated with their own relative text once every link involved has been
    resolved inside the tree, so a symlinked subchart resolves inside `dest` as in a checkout.
    Every size and link is checked before the first write; nothing is written outside `dest`.
    """
    plan = _plan(tree, prefixes)
    files = sorted(plan.files)
    writer = SafeWriter(dest, label=tree.ref)
    for path, data in tree.read_many(files, max_bytes=max_file_bytes):
        writer.write_file(path, data, executable=tree.entries[path].executable)
    links = sorted(plan.links)
    for link in links:
        writer.write_link(link, tree.link_target(link))
    return Materialized(
        files=tuple(files),
        symlinks=tuple(links),
        submodules=tuple(sorted(plan.submodules)),
        dangling=tuple(sorted(plan.dangling)),
        missing=tuple(plan.missing),
    )


def _plan(tree: Tree, prefixes: Iterable[str]) -> _Plan:
    plan = _Plan()
    queue = deque(_normalize(prefix) for prefix in prefixes)
    seen: set[str] = set()
    while queue:
        path = queue.popleft()
        if path in seen:
            continue
        seen.add(path)
        resolution = tree.resolve(path)
        plan.links.update(resolution.links)
        target = resolution.path
        if target is not None and target in tree.entries:
            _add_entry(plan, tree.entries[target], queue)
        elif target is not None and tree.is_dir(target):
            for inner in tree.paths_under(target):
                _add_entry(plan, tree.entries[inner], queue)
        elif resolution.links:
            plan.dangling.add(path)
        else:
            plan.missing.append(path)
    return plan


def _add_entry(plan: _Plan, entry: TreeEntry, queue: deque[str]) -> None:
    match entry.kind:
        case EntryKind.BLOB:
            plan.files.add(entry.path)
        case EntryKind.SUBMODULE:
            plan.submodules.add(entry.path)
        case EntryKind.SYMLINK:
            queue.append(entry.path)  # resolving it records the link and adds its target
        case _:
            assert_never(entry.kind)
