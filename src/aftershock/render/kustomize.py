"""Building kustomizations with kustomize's own Go code (`pykustomize`), in a spawned worker process.

Like the Helm SDK, pykustomize loads a Go runtime, which does not survive a fork: builds run in one
`spawn`ed process, never in the reviewing process. Builds keep kustomize's ROOT_ONLY load restrictions,
with plugins (exec and container KRM functions) and Helm inflation off. `KustomizeBuilder` is the
interface; `PyKustomizeBuilder` the implementation; each outcome is the built YAML or kustomize's error,
with the warnings kustomize wrote (`# Warning: 'patchesStrategicMerge' is deprecated…`): its Go code
writes them to file descriptor 2, which the worker points at a file during each build, so that they
reach the review as warnings of that build instead of the reviewer's stderr, unprefixed.

A build over its time is most often a busy machine's, not the build's: its worker is stopped (the
builds after it do not wait behind it) and it is built once more in a fresh worker; a build that
times out twice says so (`TIMED_OUT`), apart from kustomize's own errors.

`multiprocessing` is imported with this module, not on the first build: its exit handler must be
registered before the builder's, or at exit it runs first and the pool's shutdown waits forever.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Protocol

from aftershock.model.review import KUSTOMIZE_TIMEOUT

TIMED_OUT = KUSTOMIZE_TIMEOUT  # how a timed-out build's error starts


@dataclass(frozen=True)
class BuildOutcome:
    folder: str  # the folder built, as given
    yaml: str | None = None
    error: str | None = None
    warnings: tuple[str, ...] = ()  # what kustomize warned of, a line each
    timed_out: bool = False  # over its time, twice: the machine's load, most likely

    @property
    def ok(self) -> bool:
        return self.error is None


class KustomizeBuilder(Protocol):
    name: str

    def build_many(self, folders: Sequence[str]) -> list[BuildOutcome]: ...

    def close(self) -> None: ...


def _build_one(folder: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """In the worker: (yaml, None) or (None, kustomize's error), and kustomize's warnings."""
    with _stderr_lines() as lines:
        text, error = _build(folder)
    return text, error, tuple(lines)


@contextmanager
def _stderr_lines() -> Iterator[list[str]]:
    """File descriptor 2 pointed at a temporary file for the block; its non-empty lines, without the
    `# Warning: ` kustomize starts them with, in the list once the block ends."""
    lines: list[str] = []
    with tempfile.TemporaryFile() as capture:
        saved = os.dup(2)
        os.dup2(capture.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            written = capture.read().decode("utf-8", "replace")
            stripped = (line.strip().removeprefix("# ") for line in written.splitlines())
            lines += [line.removeprefix("Warning: ") for line in stripped if line]


def _build(folder: str) -> tuple[str | None, str | None]:
    import asyncio

    import pykustomize

    options = pykustomize.BuildOptions(
        load_restrictions=pykustomize.LoadRestrictions.ROOT_ONLY,
        add_managedby_label=False,
        enable_plugins=False,
        enable_helm=False,
        helm_command="",
    )
    try:
        return asyncio.run(pykustomize.build(folder, options)).yaml, None
    except pykustomize.KustomizeError as error:
        return None, cause_first(str(error).strip() or type(error).__name__)


def cause_first(error: str) -> str:
    """kustomize nests a failure outermost first (`accumulating resources: … from path 'x': <cause>`):
    the cause goes first, the chain after it, so a line cut for display still says what went wrong."""
    chain, quote, cause = error.rpartition("': ")
    if not quote or "accumulat" not in chain:
        return error
    return f"{cause} (kustomize: {chain}')"


def available() -> str | None:
    """None when pykustomize can be imported, else why not (checked without loading its Go library)."""
    import importlib.util

    if importlib.util.find_spec("pykustomize") is None:
        return (
            "pykustomize is not installed: run `"
            + f"{sys.executable} -m pip install --no-deps --ignore-requires-python pykustomize==0.1.4"
            + " cffi` (it declares Python >= 3.14 and runs on 3.11; see the README's Install)"
        )
    return None


BuildOne = Callable[[str], tuple[str | None, str | None, tuple[str, ...]]]


class PyKustomizeBuilder:
    """kustomize v0.21 through pykustomize, in one spawned process started on first use. `build` is
    what the worker runs for a folder (kustomize's build; a test gives a slow one)."""

    name = "pykustomize"

    def __init__(self, timeout_seconds: float = 60.0, build: BuildOne | None = None) -> None:
        self.timeout_seconds = timeout_seconds
        self._build = build or _build_one
        self._pool: ProcessPoolExecutor | None = None
        self._pid = os.getpid()  # a forked copy of this object must not use its parent's worker
        self.retried = 0  # builds run again after a timeout

    def build_many(self, folders: Sequence[str]) -> list[BuildOutcome]:
        if not folders:
            return []
        missing = available() if self._build is _build_one else None
        if missing:
            return [BuildOutcome(f, error=missing) for f in folders]
        outcomes = [self._build_within_time(f) for f in folders]
        for index, outcome in enumerate(outcomes):
            if outcome.timed_out:
                self.retried += 1
                again = self._build_within_time(outcome.folder)
                outcomes[index] = (
                    replace(
                        again,
                        error=f"{again.error}, twice (the second time in a fresh worker); "
                        "the machine may be busy: review again",
                    )
                    if again.timed_out
                    else again
                )
        return outcomes

    def _build_within_time(self, folder: str) -> BuildOutcome:
        """One build in the worker; over its time, the worker is stopped (it would hold up the next)."""
        if self._pool is None or self._pid != os.getpid():
            self._pid = os.getpid()
            self._pool = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn")
            )
        future = self._pool.submit(self._build, folder)
        try:
            text, error, warnings = future.result(timeout=self.timeout_seconds)
        except TimeoutError:
            self._stop_worker()
            error = f"{TIMED_OUT} {self.timeout_seconds:g} s"
            return BuildOutcome(folder, None, error, (), timed_out=True)
        except Exception as failure:  # the worker died: start a fresh one for the next build
            self._stop_worker()
            error = f"kustomize worker failed: {type(failure).__name__}: {failure}"
            return BuildOutcome(folder, None, error)
        return BuildOutcome(folder, text, error, warnings)

    def _stop_worker(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # ProcessPoolExecutor cannot cancel a running call: its process is killed
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


_shared: PyKustomizeBuilder | None = None


def shared_builder() -> KustomizeBuilder:
    """The process's builder: its worker starts on the first build and stays warm for the next reviews
    (a second start costs about a second), and stops when the process exits."""
    global _shared
    if _shared is None:
        _shared = PyKustomizeBuilder()
        atexit.register(_shared.close)
    return _shared


@contextmanager
def open_builder(timeout_seconds: float = 60.0) -> Iterator[KustomizeBuilder]:
    """A builder whose worker process (started only when something is built) ends with the block."""
    builder = PyKustomizeBuilder(timeout_seconds)
    try:
        yield builder
    finally:
        builder.close()
