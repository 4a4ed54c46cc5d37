"""Writing repository files and links under one folder without ever landing outside it.

Paths come from an untrusted tree: `..` components are refused, folders are created one by one
without following a link that leaves the folder, and files are opened with O_NOFOLLOW.
"""

from __future__ import annotations

import os
from pathlib import Path

from aftershock.model.errors import UnsafeRepositoryError


class SafeWriter:
    """Creates files and links under one root, refusing any path that would land outside it."""

    def __init__(self, dest: Path, *, label: str) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        self._label = label  # the ref being written, for messages
        self._root = Path(os.path.realpath(dest))
        self._root_text = str(self._root)
        self._checked: set[str] = set()

    def write_file(self, path: str, data: bytes, *, executable: bool) -> None:
        target = self._target(path, cached=True)
        try:
            descriptor = os.open(
                target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
            )
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(descriptor, view) :]
                os.fchmod(descriptor, 0o755 if executable else 0o644)
            finally:
                os.close(descriptor)
        except OSError as error:
            raise self._unwritable(path, error) from error

    def write_link(self, path: str, text: str) -> None:
        self._checked.clear()  # a link may stand where a folder was verified: check every way again
        target = self._target(path, cached=False)
        try:
            if os.path.islink(target):
                os.unlink(target)
            os.symlink(text, target)
        except OSError as error:
            raise self._unwritable(path, error) from error

    def _target(self, path: str, *, cached: bool) -> str:
        parts = path.split("/")
        if any(part in ("", ".", "..") for part in parts):
            raise UnsafeRepositoryError(
                f"unsafe path in the tree: {path!r} at {self._label}",
                hint="aftershock never writes outside its work folder",
            )
        # Without "", "." and ".." the joined path is normal and under the root by its text; the
        # folders on the way are checked for links leaving the root when first made.
        target = os.path.join(self._root_text, *parts)
        parent = os.path.dirname(target)
        if not (cached and parent in self._checked):
            self._make_folders(path, parts[:-1])
            self._checked.add(parent)
        return target

    def _make_folders(self, path: str, parts: list[str]) -> None:
        """Creates the folders of `path` one by one, never through a link that leaves the root."""
        folder = self._root_text
        for part in parts:
            folder = os.path.join(folder, part)
            if folder in self._checked:
                continue  # made or verified before, and no link has been written since
            try:
                if os.path.islink(folder):
                    real = os.path.realpath(folder)
                    if not _inside(Path(real), self._root):
                        raise self._outside(path)
                    os.makedirs(real, exist_ok=True)
                elif not os.path.isdir(folder):
                    os.mkdir(folder)
            except OSError as error:
                raise self._unwritable(path, error) from error
            self._checked.add(folder)

    def _outside(self, path: str) -> UnsafeRepositoryError:
        return UnsafeRepositoryError(
            f"path leads outside the work folder: {path} at {self._label}",
            hint="aftershock never writes outside its work folder",
        )

    def _unwritable(self, path: str, error: OSError) -> UnsafeRepositoryError:
        return UnsafeRepositoryError(
            f"cannot write {path} at {self._label} under {self._root}: {error.strerror}",
            hint="materialize into an empty folder",
        )


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
