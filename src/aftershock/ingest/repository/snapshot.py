"""One ref of the repository as the review reads it: safe, size-bounded reads and materialisation."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.tree import EntryKind, Tree, check_symlinks, materialize
from aftershock.model.errors import FileTooLargeError, MalformedInputError

_SNAPSHOTS = itertools.count()


class RefSnapshot:
    """The tree of one commit with the limits of the review applied to every read."""

    def __init__(self, tree: Tree, label: str, max_file_bytes: int) -> None:
        self.tree = tree
        self.label = label
        self.max_file_bytes = max_file_bytes
        # Names this snapshot in this process: what is made from its files (a chart's workspace)
        # is the same whichever batch makes it, and another snapshot of the commit may hold less.
        self.identity = f"{tree.commit}#{next(_SNAPSHOTS)}"
        self._written: dict[Path, set[str]] = {}  # folder -> the prefixes written there
        # Facts read from this ref's files, by whoever asks (a name of its own per kind of fact):
        # the ref does not change while a review reads it, so each is read once per review.
        self.facts: dict[str, bool] = {}

    @classmethod
    @contextmanager
    def open(
        cls,
        repo: GitRepository,
        sha: str,
        label: str,
        max_file_bytes: int,
        reader: BlobReader | None = None,
        only: Sequence[str] = (),
    ) -> Iterator[RefSnapshot]:
        """The snapshot of `sha` (with `only`, of those folders alone); `reader`, when given, is
        shared (two refs share most blobs) and stays open afterwards; otherwise one is opened and
        closed here."""
        if reader is not None:
            yield cls(Tree.load(repo, sha, reader, only), label, max_file_bytes)
            return
        with BlobReader(repo) as own:
            yield cls(Tree.load(repo, sha, own, only), label, max_file_bytes)

    @classmethod
    def changed_from(
        cls, other: RefSnapshot, repo: GitRepository, sha: str, label: str, changed: Collection[str]
    ) -> RefSnapshot:
        """The snapshot of `sha`, given the snapshot `other` of a whole tree and every path whose
        entry differs between the two (`Tree.load_changed`); it reads through `other`'s reader."""
        return cls(Tree.load_changed(repo, sha, other.tree, changed), label, other.max_file_bytes)

    def check_safe(self) -> None:
        """Refuse the ref when any symlink leaves the repository (raises UnsafeRepositoryError)."""
        check_symlinks(self.tree)

    def file_paths(self) -> Iterable[str]:
        return (p for p, e in self.tree.entries.items() if e.kind is not EntryKind.SUBMODULE)

    def symlink_target(self, path: str) -> str | None:
        entry = self.tree.entries.get(path)
        if entry is None or entry.kind is not EntryKind.SYMLINK:
            return None
        return self.tree.resolve(path).path

    def read_text(self, path: str) -> str:
        """The file's text; KeyError when the path holds no file at this ref."""
        if not self._is_file(path):
            raise KeyError(path)
        return self.tree.read_text(path, max_bytes=self.max_file_bytes)

    def read_texts(self, paths: Iterable[str]) -> dict[str, str]:
        """Many files' texts through one batch of blob reads (sizes checked first)."""
        found = {}
        for path, data in self.tree.read_many(list(paths), max_bytes=self.max_file_bytes):
            try:
                found[path] = data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise MalformedInputError(
                    f"file is not UTF-8 text: {path} at {self.label}", hint="save it as UTF-8"
                ) from error
        return found

    def text_or_none(self, path: str) -> str | None:
        return (
            self.tree.read_text(path, max_bytes=self.max_file_bytes)
            if self._is_file(path)
            else None
        )

    def check_size(self, path: str) -> None:
        entry = self.tree.entries.get(path)
        if (
            entry is not None
            and entry.kind is EntryKind.BLOB
            and (entry.size or 0) > self.max_file_bytes
        ):
            raise FileTooLargeError(
                f"file over the size limit: {path} at {self.label} is {entry.size} bytes (limit {self.max_file_bytes})",
                hint="raise --max-file-size or exclude it",
            )

    def materialize(self, prefixes: Iterable[str], dest: Path) -> None:
        materialize(self.tree, prefixes, dest, max_file_bytes=self.max_file_bytes)

    def materialize_once(self, prefixes: Iterable[str], dest: Path) -> None:
        """`materialize`, leaving out the prefixes this snapshot wrote into `dest` before: batches of
        renders that share a workspace write each chart there once."""
        written = self._written.setdefault(dest, set())
        wanted = sorted(set(prefixes) - written)
        if wanted:
            self.materialize(wanted, dest)
            written.update(wanted)

    def texts_under(self, prefixes: Iterable[str], *, suffixes: tuple[str, ...]) -> Iterator[str]:
        """Decoded texts of the files under `prefixes` whose names end with one of `suffixes`."""
        yield from self.texts_by_path(prefixes, suffixes=suffixes).values()

    def texts_by_path(
        self, prefixes: Iterable[str], *, suffixes: tuple[str, ...]
    ) -> dict[str, str]:
        """`texts_under`, each by its path, in the order they are read."""
        paths = [
            p
            for prefix in prefixes
            for p in self.tree.paths_under(prefix)
            if p.endswith(suffixes) and self.tree.entries[p].kind is EntryKind.BLOB
        ]
        return {
            path: data.decode("utf-8", "replace")
            for path, data in self.tree.read_many(paths, max_bytes=self.max_file_bytes)
        }

    def scan_templates(
        self,
        folders: Iterable[str],
        suffixes: tuple[str, ...],
        test: Callable[[str], bool],
        known: dict[str, bool],
    ) -> tuple[frozenset[str], frozenset[str]]:
        """Of the chart `folders`, those with a file under `templates/` (named with one of
        `suffixes`) whose text passes `test`, and those with such a file not read (a symlink, a file
        over the size limit). Each blob is read once, in one batch; `known` (blob sha: passed)
        carries what was read before, at this ref or another: two refs share most blobs."""
        entries = self.tree.entries
        listed = {
            folder: [
                p
                for p in self.tree.paths_under(f"{folder}/templates" if folder else "templates")
                if p.endswith(suffixes)
            ]
            for folder in folders
        }
        unread: set[str] = set()
        wanted: dict[str, str] = {}  # blob sha: the first path holding it
        for path in (p for paths in listed.values() for p in paths):
            entry = entries[path]
            if entry.kind is not EntryKind.BLOB or (entry.size or 0) > self.max_file_bytes:
                unread.add(path)
            elif entry.sha not in known:
                wanted.setdefault(entry.sha, path)
        for path, data in self.tree.read_many(wanted.values(), max_bytes=self.max_file_bytes):
            known[entries[path].sha] = test(data.decode("utf-8", "replace"))
        passed = {
            f
            for f, ps in listed.items()
            if any(p not in unread and known[entries[p].sha] for p in ps)
        }
        return frozenset(passed), frozenset(
            f for f, ps in listed.items() if not unread.isdisjoint(ps)
        )

    def _is_file(self, path: str) -> bool:
        entry = self.tree.entries.get(path)
        if entry is None:
            return False
        if entry.kind is EntryKind.SYMLINK:
            target = self.tree.resolve(path).path
            target_entry = self.tree.entries.get(target) if target else None
            return target_entry is not None and target_entry.kind is EntryKind.BLOB
        return entry.kind is EntryKind.BLOB
