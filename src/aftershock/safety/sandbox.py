"""One sandbox for every file opened relative to a chart or the repository (helm-unittest suites and
their values, snapshot files, `aftershock test -u` writes, CRD files a suite includes).

A path, absolute or relative to a folder, is resolved with every symlink and `..` followed
(`os.path.realpath`) and refused with SandboxError when the result is not under the sandbox's
root (itself resolved). A refused path is never opened: the caller turns the error into a failed
test, a failed suite or a part *not reviewed*, with the error's one line as the reason. Writes
also refuse a final symlink (O_NOFOLLOW), so a link made after the check cannot redirect them.

`default_root` is the root for a chart on disk: the repository holding it (the nearest folder with
`.git`), else the chart folder itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class SandboxError(ValueError):
    """A path that leaves the sandbox; its text is the one line to show."""


@dataclass(frozen=True)
class Sandbox:
    root: Path  # resolved

    @classmethod
    def at(cls, root: Path | str) -> Sandbox:
        return cls(Path(os.path.realpath(root)))

    def resolve(self, path: Path | str, relative_to: Path | str | None = None) -> Path:
        """`path` (relative to `relative_to` when not absolute) with links and `..` resolved, or SandboxError."""
        joined = (
            Path(path) if relative_to is None or os.path.isabs(path) else Path(relative_to) / path
        )
        resolved = Path(os.path.realpath(joined))
        if resolved != self.root and not resolved.is_relative_to(self.root):
            raise SandboxError(
                f"{path} resolves outside {self.root}: refused, files are read only inside it"
            )
        return resolved

    def read_text(self, path: Path | str, relative_to: Path | str | None = None) -> str:
        return self.resolve(path, relative_to).read_text(encoding="utf-8")

    def write_text(self, path: Path | str, text: str) -> None:
        """Write `path` (created 0644, parents as needed) after checking it and its folder stay inside."""
        target = self.resolve(path)
        self._make_folders(target.parent)
        descriptor = os.open(
            target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)

    def check_links(self, folder: Path) -> None:
        """SandboxError for the first symlink under `folder` that resolves outside (Helm would follow it)."""
        for parent, names, files in os.walk(folder):
            for name in (*names, *files):
                entry = Path(parent) / name
                if entry.is_symlink():
                    self.resolve(entry)

    def _make_folders(self, folder: Path) -> None:
        missing = []
        while not folder.exists():
            missing.append(folder)
            folder = folder.parent
        for part in reversed(missing):
            part.mkdir(exist_ok=True)
            self.resolve(part)  # a link raced in on the way is refused before anything is written


def default_root(chart_dir: Path | str) -> Path:
    """The repository that holds `chart_dir` (nearest ancestor with `.git`), else the chart folder."""
    start = Path(os.path.realpath(chart_dir))
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start
