"""Real git repositories for tests, built in a tmp folder with plain git commands.

    repo = make_repo(tmp_path)
    base = commit(repo, {"c/Chart.yaml": "name: c\\n", "run.sh": Executable("#!/bin/sh")}, "base")
    head = commit(repo, {"c/Chart.yaml": None, "link": Symlink("run.sh")}, "head")

`commit` takes a mapping of repository path -> content: str (written as UTF-8), bytes,
Executable (mode 100755), Symlink (mode 120000), Gitlink (a submodule entry, mode 160000)
or None (delete). Paths not named keep their content. It returns the new commit's sha.
The helper's own git ignores the user's and the system's configuration and never runs hooks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEFAULT_AUTHOR = "Ada Lovelace <ada@example.com>"


@dataclass(frozen=True)
class Symlink:
    """A symbolic link whose text is `target` (relative or absolute, as git stores it)."""

    target: str


@dataclass(frozen=True)
class Executable:
    """A file with mode 100755."""

    content: str | bytes


@dataclass(frozen=True)
class Gitlink:
    """A submodule entry pointing at commit `sha` (no .gitmodules is written)."""

    sha: str


FileContent = str | bytes | Executable | Symlink | Gitlink | None


def git(repo: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
    """Runs git in `repo` with a clean configuration and returns its stdout (stripped)."""
    environment = {
        **{key: value for key, value in os.environ.items() if not key.startswith("GIT_")},
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        **(env or {}),
    }
    completed = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {completed.stderr.strip()}")
    return completed.stdout.strip()


def make_repo(tmp_path: Path, name: str = "repo", *, branch: str = "main") -> Path:
    """An empty repository at tmp_path/name on `branch`."""
    repo = tmp_path / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", branch)
    git(repo, "config", "user.name", "Test Committer")
    git(repo, "config", "user.email", "committer@example.com")
    git(repo, "config", "commit.gpgsign", "false")
    return repo


def commit(
    repo: Path,
    files: dict[str, FileContent],
    message: str,
    *,
    author: str = DEFAULT_AUTHOR,
    date: str | None = None,
) -> str:
    """Applies `files` to the work tree, commits everything with `message`, returns the sha."""
    for path, content in files.items():
        _apply(repo, path, content)
    git(repo, "add", "-A")
    env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else None
    git(
        repo,
        "commit",
        "-q",
        "--allow-empty",
        "--no-verify",
        f"--author={author}",
        "-m",
        message,
        env=env,
    )
    return git(repo, "rev-parse", "HEAD")


def _apply(repo: Path, path: str, content: FileContent) -> None:
    target = repo / path
    _remove(target)
    if content is None:
        git(repo, "rm", "-q", "--cached", "--ignore-unmatch", "-r", "--", path)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    match content:
        case Symlink(link_target):
            os.symlink(link_target, target)
        case Gitlink(sha):
            target.mkdir()  # an empty folder: an unpopulated submodule, not a deleted one
            git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{path}")
        case Executable(data):
            _write(target, data)
            target.chmod(0o755)
        case str() | bytes():
            _write(target, content)


def _remove(target: Path) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)


def _write(target: Path, data: str | bytes) -> None:
    target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
