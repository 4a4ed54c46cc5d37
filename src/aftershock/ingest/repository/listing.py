"""The listing of one commit's tree: its entries as `git ls-tree -r -l` gives them, either whole or
carried over from another commit's whole listing with only the paths that differ listed again.

A review lists both refs of a change, which share almost every entry: listing the head again costs
git a size lookup per object and this process a record per entry (on a 6,000-file repository some
0.06 CPU-s), where the paths the change touched are a handful.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.gitparse import decode_path

# Beyond this many changed paths the head is listed whole: the argument list stays short, and a
# change that large costs far more elsewhere than its listing.
MAX_RELISTED_PATHS = 512


class EntryKind(str, enum.Enum):
    BLOB = "blob"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"


@dataclass(frozen=True)
class TreeEntry:
    """One non-tree entry of `git ls-tree -r`; `size` is None for a submodule."""

    path: str
    mode: str
    sha: str
    size: int | None
    kind: EntryKind

    @property
    def executable(self) -> bool:
        return self.kind is EntryKind.BLOB and int(self.mode, 8) & 0o111 != 0


def whole_listing(
    repo: GitRepository, commit: str, only: Sequence[str] = ()
) -> dict[str, TreeEntry]:
    """Every entry of `commit` (with `only`, those under these folders alone)."""
    return _listed(repo, commit, only)


def listing_changed_from(
    listed: Mapping[str, TreeEntry],
    repo: GitRepository,
    commit: str,
    changed: Collection[str],
) -> dict[str, TreeEntry]:
    """The entries of `commit`, given the whole listing of another commit and every path whose entry
    differs between the two (both paths of a rename): the other's entries without those paths, and
    those paths as `commit` holds them (a path that became a folder brings the files under it)."""
    if len(changed) > MAX_RELISTED_PATHS:
        return _listed(repo, commit, ())
    entries = {path: entry for path, entry in listed.items() if path not in changed}
    if changed:
        entries.update(_listed(repo, commit, sorted(changed)))
    return entries


def _listed(repo: GitRepository, commit: str, paths: Sequence[str]) -> dict[str, TreeEntry]:
    # ls-tree matches its paths as literal prefixes; literal pathspecs refuse `:(...)` magic too
    literal = ("--literal-pathspecs",) if paths else ()
    return parse_ls_tree(
        repo.run(*literal, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", *paths)
    )


def parse_ls_tree(listing: bytes) -> dict[str, TreeEntry]:
    """Entries of `git ls-tree -r -l -z`: `MODE TYPE SHA SIZE\\tPATH` records."""
    entries = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, sha, size = meta.decode("ascii").split()
        path = decode_path(raw_path)
        entries[path] = TreeEntry(
            path=path,
            mode=mode,
            sha=sha,
            size=None if size == "-" else int(size),
            kind=_entry_kind(mode, kind),
        )
    return entries


def _entry_kind(mode: str, kind: str) -> EntryKind:
    if kind == "commit":
        return EntryKind.SUBMODULE
    return EntryKind.SYMLINK if mode == "120000" else EntryKind.BLOB
