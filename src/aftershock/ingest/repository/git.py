"""The one place aftershock runs git: a hardened, read-only view of an untrusted repository.

Layers 0 and 1 of a review come from here: the commits of base..head and the net file changes
with their hunks. Every git call goes through `GitRepository._command`, which disables hooks,
fsmonitor, external diff and textconv drivers, pagers, signature checks, replace objects and
any network access, so a repository under review cannot make git run its code. Nothing here
checks out files or runs filters; file contents are read by `ingest/repository/tree.py` through
`git cat-file --batch`.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from aftershock.ingest.repository import gitparse
from aftershock.model.change import Commit, FileChange, FileStatus
from aftershock.model.errors import EmptyRangeError, GitError

DEFAULT_MAX_HUNK_BYTES = 1 << 20
_TIMEOUT_SECONDS = 600

# Configuration that a repository's own .git/config could otherwise use to run code or
# change output we parse. Command-line `-c` wins over every config file.
_HARDENING = (
    "--no-pager",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "core.untrackedCache=false",
    "-c", "core.pager=cat",
    "-c", "core.attributesFile=/dev/null",
    "-c", "diff.external=",
    "-c", "diff.orderFile=/dev/null",  # git log reads it too; an unreadable one makes every call fail
    "-c", "log.showSignature=false",
    "-c", "protocol.allow=never",
    "-c", "color.ui=false",
    "-c", "gc.auto=0",
    "-c", "maintenance.auto=false",
)  # fmt: skip
_DIFF_FLAGS = (
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-relative",
    "--ignore-submodules=none",
    "--submodule=short",
    "-O/dev/null",  # a configured diff.orderFile would reorder blocks
)
_KEPT_GIT_VARIABLES = frozenset({"GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL", "GIT_CEILING_DIRECTORIES"})
_FIXED_ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",  # review the objects themselves, not refs/replace stand-ins
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}
_DEFAULT_BRANCH_NAMES = ("main", "master", "trunk")


def git_environment() -> dict[str, str]:
    """The caller's environment without variables that redirect git, plus the hardening ones."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("GIT_") or key in _KEPT_GIT_VARIABLES
    }
    environment.update(_FIXED_ENVIRONMENT)
    return environment


def _first_line(stderr: bytes) -> str:
    lines = [
        line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()
    ]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["no message"])[0]


@dataclass(frozen=True)
class GitRepository:
    """A repository on disk; `root` is its top-level folder (the git folder when bare)."""

    root: Path
    # full commit shas already verified: an object never changes, so asking git again is waste
    _commits: set[str] = field(default_factory=set, compare=False, repr=False, hash=False)

    @classmethod
    def open(cls, path: Path | str) -> GitRepository:
        folder = Path(path).expanduser().absolute()
        if not folder.is_dir():
            raise _not_a_repository(folder)
        probe = cls(root=folder)
        completed = probe._call(("rev-parse", "--show-toplevel"))
        if b"dubious ownership" in completed.stderr:
            raise GitError(
                f"git refuses a repository owned by another user: {folder}",
                hint=f"trust it with `git config --global --add safe.directory {folder}`",
            )
        top = completed.stdout.decode("utf-8", "surrogateescape").strip()
        if completed.returncode == 0 and top:
            if not Path(top).is_dir():
                raise _missing_work_tree(Path(top), folder)
            return cls(root=Path(top))
        bare = probe._call(("rev-parse", "--is-bare-repository", "--absolute-git-dir"))
        answer = bare.stdout.decode("utf-8", "surrogateescape").split("\n")
        if bare.returncode == 0 and answer[0] == "true":
            return cls(root=Path(answer[1]))
        raise _not_a_repository(folder)

    def resolve(self, ref: str) -> str:
        """The full sha of the commit `ref` names."""
        if ref in self._commits:
            return ref
        completed = self._call(
            ("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
        )
        sha = completed.stdout.decode("ascii", "replace").strip()
        if completed.returncode != 0 or not sha:
            raise GitError(
                f"unknown git ref: {ref!r} in {self.root}",
                hint="check the branch, tag or sha; fetch it first if it only exists on a remote",
            )
        self._commits.add(sha)
        return sha

    def default_branch(self) -> str | None:
        """origin/HEAD's target, else the first existing main/master/trunk (local, then origin/)."""
        completed = self._call(("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"))
        target = completed.stdout.decode("utf-8", "surrogateescape").strip()
        if completed.returncode == 0 and target.startswith("refs/remotes/"):
            return target.removeprefix("refs/remotes/")
        candidates = [
            (f"refs/{space}/{name}", f"{prefix}{name}")
            for name in _DEFAULT_BRANCH_NAMES
            for space, prefix in (("heads", ""), ("remotes/origin", "origin/"))
        ]
        listing = self.run("for-each-ref", "--format=%(refname)", *(ref for ref, _ in candidates))
        existing = set(listing.decode("utf-8", "surrogateescape").splitlines())
        return next((short for ref, short in candidates if ref in existing), None)

    def merge_base(self, a: str, b: str) -> str:
        a_sha, b_sha = self.resolve(a), self.resolve(b)
        completed = self._call(("merge-base", a_sha, b_sha))
        if completed.returncode != 0:
            raise GitError(
                f"no common ancestor between {a} and {b} in {self.root}",
                hint="pass --base explicitly",
            )
        return completed.stdout.decode("ascii").strip()

    def commits(self, base: str, head: str) -> tuple[Commit, ...]:
        """The commits of base..head, oldest first."""
        base_sha, head_sha = self._range(base, head)
        output = self.run(
            "log", "--reverse", "--topo-order", "--no-color", "--no-decorate", "--encoding=UTF-8",
            f"--format={gitparse.LOG_FORMAT}", f"{base_sha}..{head_sha}", "--",
        )  # fmt: skip
        commits = gitparse.parse_log(output)
        if not commits:
            raise _empty_range(base, head)
        return commits

    def file_changes(
        self,
        base: str,
        head: str,
        *,
        max_hunk_bytes: int = DEFAULT_MAX_HUNK_BYTES,
        detect_copies: bool = False,
    ) -> tuple[FileChange, ...]:
        """The net change from base to head, one FileChange per path, in git's path order.

        A file whose hunk text exceeds `max_hunk_bytes` is reported without hunks (its
        line counts remain). Pass `merge_base(...)` as base for pull-request semantics.
        """
        base_sha, head_sha = self._range(base, head)
        detection = ("-M", "-C") if detect_copies else ("-M",)
        diff = ("diff", *_DIFF_FLAGS, *detection)
        entries = gitparse.parse_raw_numstat(
            self.run(*diff, "--raw", "--numstat", "-z", base_sha, head_sha, "--")
        )
        patches = gitparse.parse_patch(
            self.stream_lines(*diff, "-p", "-U3", base_sha, head_sha, "--"),
            max_hunk_bytes=max_hunk_bytes,
        )
        touched = gitparse.parse_touched(
            self.run(
                "log", "--no-renames", "--name-only", "-z", "--reverse", "--topo-order",
                f"--format={gitparse.TOUCHED_FORMAT}", f"{base_sha}..{head_sha}", "--",
            )
        )  # fmt: skip
        return _join_changes(entries, patches, touched)

    def run(self, *args: str) -> bytes:
        """Stdout of a git command that must succeed."""
        completed = self._call(args)
        if completed.returncode != 0:
            raise self._failure(args, completed.stderr)
        return completed.stdout

    def stream_lines(self, *args: str) -> Generator[bytes, None, None]:
        """Stdout lines of a git command as it runs; raises GitError at the end if it failed."""
        with tempfile.TemporaryFile() as stderr:
            process = self._popen(args, stdin=subprocess.DEVNULL, stderr=stderr)
            assert process.stdout is not None
            try:
                yield from process.stdout
                code = process.wait(timeout=_TIMEOUT_SECONDS)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
                process.stdout.close()
            if code != 0:
                stderr.seek(0)
                raise self._failure(args, stderr.read())

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        """A long-running git command with piped stdin and stdout (stderr discarded)."""
        return self._popen(args, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def _command(self, args: tuple[str, ...]) -> list[str]:
        return ["git", *_HARDENING, *args]

    def _call(self, args: tuple[str, ...]) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(
                self._command(args),
                cwd=self.root,
                env=git_environment(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_TIMEOUT_SECONDS,
                check=False,
            )
        except FileNotFoundError as error:
            raise _not_found(error, self.root) from error
        except subprocess.TimeoutExpired as error:
            raise GitError(
                f"git {args[0]} took over {_TIMEOUT_SECONDS}s in {self.root}",
                hint="check the repository is healthy (git fsck)",
            ) from error

    def _popen(
        self, args: tuple[str, ...], *, stdin: int, stderr: int | IO[bytes]
    ) -> subprocess.Popen[bytes]:
        try:
            return subprocess.Popen(
                self._command(args),
                cwd=self.root,
                env=git_environment(),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        except FileNotFoundError as error:
            raise _not_found(error, self.root) from error

    def _failure(self, args: tuple[str, ...], stderr: bytes) -> GitError:
        return GitError(
            f"git {_command_name(args)} failed in {self.root}: {_first_line(stderr)}",
            hint="check the refs, and that the clone is not shallow or missing them",
        )

    def _range(self, base: str, head: str) -> tuple[str, str]:
        base_sha, head_sha = self.resolve(base), self.resolve(head)
        if base_sha == head_sha:
            raise _empty_range(base, head)
        return base_sha, head_sha


def _command_name(args: tuple[str, ...]) -> str:
    """The git command of `args`, past any global option before it (`--literal-pathspecs`)."""
    return next((a for a in args if not a.startswith("-")), args[0])


def _join_changes(
    entries: tuple[gitparse.RawEntry, ...],
    patches: list[gitparse.FilePatch],
    touched: gitparse.TouchedPaths,
) -> tuple[FileChange, ...]:
    """Pairs raw records with patch blocks; git prints a type change as two blocks."""
    order = {sha: index for index, sha in enumerate(touched.commits)}
    expected = sum(2 if entry.status is FileStatus.TYPE_CHANGED else 1 for entry in entries)
    if expected != len(patches):
        raise GitError(
            f"git diff printed {len(patches)} patches for {expected} changes",
            hint="report this with your git version",
        )
    blocks = iter(patches)
    changes = []
    for entry in entries:
        hunks = next(blocks).hunks
        if entry.status is FileStatus.TYPE_CHANGED:
            hunks += next(blocks).hunks
        paths = (entry.path,) if entry.old_path is None else (entry.old_path, entry.path)
        shas = {sha for path in paths for sha in touched.paths.get(path, ())}
        in_order = tuple(sorted(shas, key=lambda sha: order[sha]))
        changes.append(
            FileChange(
                path=entry.path,
                status=entry.status,
                old_path=entry.old_path,
                similarity=entry.similarity,
                old_mode=entry.old_mode,
                new_mode=entry.new_mode,
                binary=entry.binary,
                additions=entry.additions,
                deletions=entry.deletions,
                hunks=hunks,
                commits=in_order,
            )
        )
    return tuple(changes)


def _not_a_repository(folder: Path) -> GitError:
    return GitError(
        f"not a git repository: {folder}", hint="run aftershock inside a repository or pass --repo"
    )


def _empty_range(base: str, head: str) -> EmptyRangeError:
    return EmptyRangeError(
        f"nothing to review: {base}..{head} has no commits",
        hint="check --base and --head (head must hold commits that base lacks)",
    )


def _git_missing() -> GitError:
    return GitError("git is not installed or not on PATH", hint="install git 2.31 or newer")


def _not_found(error: FileNotFoundError, root: Path) -> GitError:
    """git itself, or the folder it runs in (a work tree removed meanwhile), is missing."""
    if error.filename is not None and Path(error.filename) == root:
        return _missing_work_tree(root, root)
    return _git_missing()


def _missing_work_tree(top: Path, folder: Path) -> GitError:
    return GitError(
        f"the repository's work tree folder does not exist: {top} (repository {folder})",
        hint="fix or unset core.worktree in its git config, or pass --repo",
    )
