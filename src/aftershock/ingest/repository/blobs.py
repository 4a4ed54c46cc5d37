"""Reading blobs by sha through one long-lived `git cat-file --batch` process.

`cat-file --batch` prints objects as stored: no smudge filter, textconv or attribute of the
repository applies. Requests are pipelined in windows so thousands of small files cost one
process and a few round trips, without the two pipes ever filling up against each other.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from types import TracebackType

from aftershock.ingest.repository.git import GitRepository
from aftershock.model.errors import GitError

# Requests written before reading the answers; 128 short lines never fill stdin's pipe.
_WINDOW = 128
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
DEFAULT_CACHE_BYTES = 64 * 2**20


class BlobReader:
    """Reads blobs of one repository; use as a context manager or call close()."""

    def __init__(self, repo: GitRepository, *, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self._repo = repo
        self._process: subprocess.Popen[bytes] | None = None
        # Blobs read before, by sha (an object never changes): a review reads most files of both
        # refs more than once, and two refs share most of their blobs. Filled up to `cache_bytes`.
        self._cache: dict[str, bytes] = {}
        self._cache_room = cache_bytes

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def read(self, sha: str) -> bytes:
        for _, data in self.read_many((sha,)):
            return data
        raise AssertionError("read_many answered nothing")

    def read_many(self, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """(sha, content) for each sha, in order; a window is read fully before it is yielded."""
        pending = list(shas)
        for sha in pending:
            if not _SHA.fullmatch(sha):
                raise GitError(f"not an object id: {sha!r}", hint="report this as a bug")
        for start in range(0, len(pending), _WINDOW):
            window = pending[start : start + _WINDOW]
            missing = [sha for sha in dict.fromkeys(window) if sha not in self._cache]
            read = dict(zip(missing, self._read_window(missing), strict=True)) if missing else {}
            for sha in window:
                data = read.get(sha)
                yield sha, self._cache[sha] if data is None else data
            for sha, data in read.items():
                self._remember(sha, data)

    def _remember(self, sha: str, data: bytes) -> None:
        if len(data) <= self._cache_room:
            self._cache[sha] = data
            self._cache_room -= len(data)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.close()
            process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        finally:
            process.stdout.close()

    def _read_window(self, window: list[str]) -> list[bytes]:
        process = self._running()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(b"".join(sha.encode("ascii") + b"\n" for sha in window))
            process.stdin.flush()
        except BrokenPipeError as error:
            self.close()
            raise self._stopped() from error
        try:
            return [self._read_answer(process, sha) for sha in window]
        except GitError:
            self.close()  # the stream may be out of step now; start afresh next time
            raise

    def _read_answer(self, process: subprocess.Popen[bytes], sha: str) -> bytes:
        assert process.stdout is not None
        header = process.stdout.readline().split()
        if len(header) == 2 and header[1] == b"missing":
            raise GitError(
                f"object {sha} is missing from {self._repo.root}",
                hint="the clone may be shallow or partial; fetch the full history",
            )
        if len(header) != 3 or header[0].decode("ascii", "replace") != sha:
            raise self._stopped()
        if header[1] != b"blob":
            raise GitError(
                f"object {sha} in {self._repo.root} is a {header[1].decode()}, not a file"
            )
        size = int(header[2])
        data = process.stdout.read(size)
        if len(data) != size or process.stdout.read(1) != b"\n":
            raise self._stopped()
        return data

    def _running(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = self._repo.start("cat-file", "--batch")
        return self._process

    def _stopped(self) -> GitError:
        return GitError(
            f"git cat-file stopped unexpectedly in {self._repo.root}",
            hint="check the repository with git fsck",
        )
