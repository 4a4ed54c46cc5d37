"""Fetching a pull request: a shallow fetch of base and head into a per-job folder, deepened to their merge base.

    with job_folder(settings.work_dir, job_id) as folder:
        fetched = fetch_commits(folder, clone_url, token, [head, base], depth=commits + 1)

The token travels in an `http.extraHeader` given through git's environment (never in the URL, the
config file or the process list). Hooks are off, only the clone URL's own scheme is allowed, and
the folder is deleted when the job ends, whatever happened.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from aftershock.model.errors import GitError
from aftershock.server.queue.supersede import HeadOrder
from aftershock.state.locks import FileLock

FETCH_TIMEOUT_SECONDS = 600
JOB_FOLDER_PREFIX = "aftershock-job-"
ABANDONED_AFTER_SECONDS = 60.0
_OWNER_FILE = ".owner.lock"
MAX_DEEPENINGS = 6  # depth doubles each time; then the whole history is fetched


@dataclass(frozen=True)
class FetchedCommits:
    path: Path
    merge_base: str | None  # None when base and head share no history


@contextmanager
def job_folder(work_dir: Path, label: str) -> Iterator[Path]:
    """A fresh folder for one job, removed afterwards even when the job fails.

    The job holds a lock on a file in it while it runs; folders whose lock nobody holds (their worker
    was killed) are removed by the next job that starts.
    """
    work_dir.mkdir(parents=True, exist_ok=True)
    remove_abandoned_job_folders(work_dir)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in label)[:60]
    folder = Path(tempfile.mkdtemp(prefix=f"{JOB_FOLDER_PREFIX}{safe}-", dir=work_dir))
    owner = FileLock(folder / _OWNER_FILE)
    try:
        if not owner.try_acquire():  # a folder mkdtemp just made: nobody else can hold it
            raise RuntimeError(f"cannot lock the new job folder {folder}")
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        owner.release()


def remove_abandoned_job_folders(
    work_dir: Path, *, min_age_seconds: float = ABANDONED_AFTER_SECONDS
) -> list[Path]:
    """Remove the job folders left by killed workers: no process holds their lock. A folder younger
    than `min_age_seconds` is left alone (its job may not have taken its lock yet)."""
    removed = []
    for folder in sorted(work_dir.glob(f"{JOB_FOLDER_PREFIX}*")):
        owner = FileLock(folder / _OWNER_FILE)
        try:
            if not folder.is_dir() or time.time() - folder.stat().st_mtime < min_age_seconds:
                continue
            if not owner.try_acquire(create=False):
                continue  # a live job holds it
        except OSError:
            continue  # gone meanwhile, or not ours to judge (no lock file)
        try:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        finally:
            owner.release()
    return removed


def clone_url(clone_base: str, repository: str) -> str:
    return f"{clone_base.rstrip('/')}/{repository}.git"


def fetch_commits(
    folder: Path, url: str, token: str | None, shas: Sequence[str], depth: int
) -> FetchedCommits:
    """Fetch `shas` (head first, then base) `depth` commits deep, deepening until they share a merge base."""
    repo = folder / "repo"
    _git(folder, token, url, "init", "--quiet", "--bare", str(repo))
    wanted = list(dict.fromkeys(s for s in shas if s))
    _git(
        repo,
        token,
        url,
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        f"--depth={max(depth, 1)}",
        url,
        *wanted,
    )
    if len(wanted) < 2:
        return FetchedCommits(repo, wanted[0] if wanted else None)
    step = max(depth, 8)
    for _ in range(MAX_DEEPENINGS):
        found = merge_base(repo, wanted[0], wanted[1])
        if found is not None:
            return FetchedCommits(repo, found)
        _git(
            repo,
            token,
            url,
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            f"--deepen={step}",
            url,
            *wanted,
        )
        step *= 2
    if (repo / "shallow").exists():
        _git(
            repo,
            token,
            url,
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--unshallow",
            url,
            *wanted,
        )
    return FetchedCommits(repo, merge_base(repo, wanted[0], wanted[1]))


def fetch_more(repo: Path, url: str, token: str | None, sha: str) -> bool:
    """Fetch one more commit (a previous head) deep enough to judge ancestry; False when the remote lacks it."""
    try:
        _git(
            repo,
            token,
            url,
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--depth=1",
            url,
            sha,
        )
    except GitError:
        return False
    return True


def merge_base(repo: Path, first: str, second: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "merge-base", first, second],
        env=_environment(None, ""),
        capture_output=True,
        text=True,
        timeout=FETCH_TIMEOUT_SECONDS,
        check=False,
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


def is_ancestor(repo: Path, ancestor: str, descendant: str) -> bool | None:
    """True/False as `git merge-base --is-ancestor` says; None when `ancestor` is not in the repository."""
    env = _environment(None, "")
    present = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{ancestor}^{{commit}}"],
        env=env,
        capture_output=True,
        check=False,
        timeout=60,
    )
    if present.returncode != 0:
        return None
    done = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", ancestor, descendant],
        env=env,
        capture_output=True,
        check=False,
        timeout=60,
    )
    return done.returncode == 0


def head_order(repo: Path, url: str, token: str | None, head: str, other: str) -> HeadOrder:
    """How `other` relates to the fetched `head`: newer when it descends from it or, unrelated (a
    force-push), was committed later; `other` is fetched when missing."""
    if is_ancestor(repo, other, head) is None and not fetch_more(repo, url, token, other):
        return HeadOrder.UNKNOWN
    if is_ancestor(repo, head, other):
        return HeadOrder.NEWER
    if is_ancestor(repo, other, head):
        return HeadOrder.OLDER
    mine, theirs = commit_time(repo, head), commit_time(repo, other)
    if mine is None or theirs is None or mine == theirs:
        return HeadOrder.UNKNOWN
    return HeadOrder.NEWER if theirs > mine else HeadOrder.OLDER


def commit_time(repo: Path, sha: str) -> int | None:
    """The committer date of `sha` (seconds since the epoch), or None when it is not in the repository."""
    done = subprocess.run(
        ["git", "-C", str(repo), "show", "-s", "--format=%ct", f"{sha}^{{commit}}"],
        env=_environment(None, ""),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    value = done.stdout.strip()
    return int(value) if done.returncode == 0 and value.isdigit() else None


def file_at(repo: Path, sha: str, path: str, max_bytes: int = 1 << 20) -> str | None:
    """The text of `path` at `sha`, or None when it does not exist there (or is too large)."""
    done = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "blob", f"{sha}:{path}"],
        env=_environment(None, ""),
        capture_output=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0 or len(done.stdout) > max_bytes:
        return None
    return done.stdout.decode("utf-8", "replace")


def _environment(token: str | None, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "true",
            "LC_ALL": "C",
        }
    )
    scheme = urlsplit(url).scheme or "file"
    config = [
        ("core.hooksPath", os.devnull),
        ("protocol.allow", "never"),
        (f"protocol.{scheme}.allow", "always"),
    ]
    if token:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
        config.append(("http.extraHeader", f"Authorization: Basic {basic}"))
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def _git(cwd: Path, token: str | None, url: str, *args: str) -> None:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=_environment(token, url),
        capture_output=True,
        text=True,
        timeout=FETCH_TIMEOUT_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        detail = next(
            (line for line in reversed(done.stderr.splitlines()) if line.strip()),
            f"exit {done.returncode}",
        )
        if token:
            detail = detail.replace(token, "***")
        raise GitError(
            f"git {args[0]} failed: {detail.strip()}",
            where=_safe(url),
            hint="check the App's contents permission and the clone URL",
        )


def _safe(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{':' + str(parts.port) if parts.port else ''}{parts.path}"
