"""An in-memory tree for tests of discovery logic (the thing under test is discovery, not git)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field


@dataclass
class MemoryTree:
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)  # path -> relative target, as git stores it

    def file_paths(self):
        return list(self.files) + list(self.links)

    def symlink_target(self, path: str) -> str | None:
        if path not in self.links:
            return None
        return posixpath.normpath(posixpath.join(posixpath.dirname(path), self.links[path]))

    def read_text(self, path: str) -> str:
        return self.files[path]

    def read_texts(self, paths):
        return {p: self.files[p] for p in paths}

    def text_or_none(self, path: str) -> str | None:
        return self.files.get(path)
