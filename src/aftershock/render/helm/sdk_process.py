"""One `sdk_worker` child process seen from the reviewer: its start, its line protocol, its bounds.

The child is a new interpreter (`python -m`, never a fork), so this process never loads helm_python.
A worker starts lazily, is reused across renders, and is killed and replaced when a render overruns
its time (or the review's deadline), its memory, or the worker dies. Workers die with this process
(`render.helm.process_bounds`).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aftershock
from aftershock.render.helm.process_bounds import died_of_memory, go_memory_env, spawn
from aftershock.render.helm.sdk_worker import MAX_SNAPSHOTS
from aftershock.render.helm.values import values_error, values_json
from aftershock.render.interface import RenderOutcome, RenderRequest
from aftershock.render.limits import (
    DEFAULT_MAX_MEMORY_MIB,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    Deadline,
    memory_error,
    timeout_error,
)
from aftershock.render.lookup.cluster import ClusterKey, snapshot_message

WORKER_MODULE = "aftershock.render.helm.sdk_worker"
_STARTUP_SECONDS = 60.0  # loading the 85 MB Go library; separate from the per-render bound
_STOP_SECONDS = 5.0
_READ_CHUNK = 1 << 20


class _WorkerTimeout(Exception):
    pass


@dataclass(frozen=True)
class WorkerBounds:
    """What bounds each render of one worker."""

    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    max_memory_mib: int = DEFAULT_MAX_MEMORY_MIB


class WorkerGone(Exception):
    """The worker could not be started, or exited; the message says what it left on stderr."""


def _worker_env(max_memory_mib: int) -> dict[str, str]:
    """This environment, with aftershock's own source folder first on the worker's path and Go's
    soft memory limit under the worker's hard one."""
    env = dict(os.environ) | go_memory_env(max_memory_mib)
    source_root = str(Path(aftershock.__file__).resolve().parent.parent)
    inherited = env.get("PYTHONPATH")
    env["PYTHONPATH"] = source_root + (os.pathsep + inherited if inherited else "")
    return env


def _open_log() -> int:
    """An anonymous append-only file for a worker's stderr, truncated before each render."""
    fd, path = tempfile.mkstemp(prefix="aftershock-sdk-worker-", suffix=".log")
    os.unlink(path)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd


def _request_line(
    request: RenderRequest,
    max_output_bytes: int,
    parse: bool = True,
    batch: str | None = None,
    worker_has_cluster: bool = False,
) -> bytes:
    """The protocol line for one request; ValueError/TypeError when values are not JSON. A cluster
    snapshot the worker already holds is named by its digest alone."""
    options: dict[str, Any] = {
        "name": request.release_name,
        "namespace": request.namespace,
        "revision": request.revision,
        "is_install": not request.is_upgrade,
        "is_upgrade": request.is_upgrade,
    }
    if request.kube_version:
        options["kube_version"] = request.kube_version
    if request.api_versions:
        options["api_versions"] = list(request.api_versions)
    message = {
        "chart_dir": os.fspath(request.chart_dir),
        "values_json": values_json(request.values),
        "options": options,
        "max_output_bytes": max_output_bytes,
        "parse": parse,
        "batch": batch,
    }
    if request.cluster is not None:
        message["cluster"] = (
            {"digest": request.cluster.digest}
            if worker_has_cluster
            else snapshot_message(request.cluster)
        )
    return json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"


class WorkerProcess:
    """One sdk_worker child and its line protocol; (re)started on demand, one request at a time."""

    def __init__(self, bounds: WorkerBounds, parse: bool = True) -> None:
        self._bounds = bounds
        self._parse = parse
        self._process: subprocess.Popen[bytes] | None = None
        self._log_fd: int | None = None
        self._lifeline: int | None = None  # the write end; the worker exits when it closes
        self._buffer = bytearray()
        self.ready_message: dict[str, Any] = {}
        # Digests of the snapshots the worker holds, least recently used first: the worker keeps
        # them the same way (sdk_worker.MAX_SNAPSHOTS), one request at a time, so this mirrors it.
        self._clusters_sent: OrderedDict[str, None] = OrderedDict()

    def render(
        self, request: RenderRequest, batch: str | None = None, deadline: Deadline | None = None
    ) -> RenderOutcome:
        """One render; requests of one `batch` may reuse a chart the worker loaded for an earlier one
        of the batch (its folders do not change while it renders). None outlasts `deadline`."""
        started = time.monotonic()
        if deadline is not None and deadline.passed():
            return RenderOutcome(request, error=deadline.reason)
        try:
            self.start()  # first: a restarted worker holds no snapshot yet
        except WorkerGone as exc:
            return RenderOutcome(request, error=str(exc), seconds=time.monotonic() - started)
        cluster = request.cluster.digest if request.cluster is not None else None
        try:
            line = _request_line(
                request,
                self._bounds.max_output_bytes,
                self._parse,
                batch,
                cluster in self._clusters_sent,
            )
        except (TypeError, ValueError) as exc:
            return RenderOutcome(request, error=values_error(exc))
        try:
            reply = self._exchange(line, deadline.at if deadline is not None else None)
            if cluster is not None and self._process is not None:
                self._held(cluster)
                if "error" in reply and "cluster snapshot" in str(reply["error"]):
                    self._clusters_sent.pop(cluster, None)  # send it whole next time
        except _WorkerTimeout:
            self.kill()
            stopped_by_review = deadline is not None and deadline.passed()
            reply = {
                "error": deadline.reason
                if deadline is not None and stopped_by_review
                else timeout_error(self._bounds.timeout_seconds)
            }
        except WorkerGone as exc:
            reply = {"error": str(exc)}
        seconds = time.monotonic() - started
        if "error" in reply:
            return RenderOutcome(request, error=str(reply["error"]), seconds=seconds)
        documents = reply.get("documents")
        parsed = None if documents is None else tuple((t, i, body) for t, i, body in documents)
        lookups = tuple(ClusterKey(*key) for key in reply.get("lookups", ()))
        return RenderOutcome(
            request,
            manifests=reply["manifests"],
            seconds=seconds,
            documents=parsed,
            lookups=lookups,
        )

    def _held(self, digest: str) -> None:
        self._clusters_sent.pop(digest, None)
        self._clusters_sent[digest] = None
        while len(self._clusters_sent) > MAX_SNAPSHOTS:
            self._clusters_sent.popitem(last=False)

    @property
    def running(self) -> bool:
        """Whether the child is up (started, and neither stopped nor dead)."""
        return self._process is not None and self._process.poll() is None

    def start(self) -> None:
        """Start the worker unless it is running; raise WorkerGone when it cannot start."""
        if self._process is not None and self._process.poll() is None:
            return
        self.kill()
        self._clusters_sent.clear()
        self._log_fd = _open_log()
        lifeline_read, self._lifeline = os.pipe()
        log_fd, env = self._log_fd, _worker_env(self._bounds.max_memory_mib)
        argv = [
            sys.executable,
            "-m",
            WORKER_MODULE,
            "--parent",
            str(os.getpid()),
            "--lifeline",
            str(lifeline_read),
            "--memory-mib",
            str(self._bounds.max_memory_mib),
        ]
        try:
            self._process = spawn(
                lambda: subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log_fd,
                    env=env,
                    close_fds=True,
                    pass_fds=(lifeline_read,),
                )
            )
        except OSError as exc:
            os.close(lifeline_read)
            self.kill()
            raise WorkerGone(f"render worker failed to start: {exc}") from None
        os.close(lifeline_read)
        try:
            message = self._read_message(time.monotonic() + _STARTUP_SECONDS)
        except (_WorkerTimeout, WorkerGone):
            detail = self._log_tail() or "no output"
            self.kill()
            raise WorkerGone(f"render worker failed to start: {detail}") from None
        self.ready_message = message

    def _exchange(self, line: bytes, review_end: float | None) -> dict[str, Any]:
        """Send one request and read its reply, within the render timeout (from when the worker is
        ready: its start-up is not the render's) and the review's end."""
        self.start()
        assert self._process is not None and self._process.stdin is not None
        if self._log_fd is not None:
            os.ftruncate(self._log_fd, 0)
        deadline = time.monotonic() + self._bounds.timeout_seconds
        if review_end is not None:
            deadline = min(deadline, review_end)
        try:
            self._process.stdin.write(line)
            self._process.stdin.flush()
            return self._read_message(deadline)
        except (WorkerGone, OSError):
            if self._process is None:  # already killed for an unreadable reply
                raise
            raise self._gone() from None

    def _read_message(self, deadline: float) -> dict[str, Any]:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        poller = select.poll()  # not select.select: it fails on descriptors above 1023
        poller.register(fd, select.POLLIN)
        scanned = 0
        while (end := self._buffer.find(b"\n", scanned)) < 0:
            scanned = len(self._buffer)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _WorkerTimeout()
            if poller.poll(remaining * 1000):
                chunk = os.read(fd, _READ_CHUNK)
                if not chunk:
                    raise WorkerGone("render worker closed its output")
                self._buffer += chunk
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        try:
            message: dict[str, Any] = json.loads(line)
        except ValueError:
            self.kill()
            raise WorkerGone("render worker sent an unreadable reply") from None
        return message

    def _gone(self) -> WorkerGone:
        """Reap an exited worker and describe its end."""
        assert self._process is not None
        try:
            code = self._process.wait(timeout=_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        detail = self._log_tail()
        out_of_memory = died_of_memory(self._log_head())
        self.kill()
        if out_of_memory:
            return WorkerGone(memory_error(self._bounds.max_memory_mib))
        text = f"render worker exited unexpectedly (exit code {code})"
        return WorkerGone(f"{text}: {detail}" if detail else text)

    def _log_head(self) -> str:
        """The start of what the worker wrote to stderr (where Go's fatal errors begin)."""
        if self._log_fd is None:
            return ""
        return os.pread(self._log_fd, 4096, 0).decode("utf-8", "replace")

    def _log_tail(self) -> str:
        """The last non-empty line the worker wrote to stderr."""
        if self._log_fd is None:
            return ""
        size = os.fstat(self._log_fd).st_size
        tail = os.pread(self._log_fd, 4096, max(0, size - 4096)).decode("utf-8", "replace")
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def kill(self) -> None:
        """Stop the worker at once (if any) and release its pipes and log."""
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            self._close_pipes()
        self._forget()

    def stop(self) -> None:
        """Let the worker exit by closing its input; kill it if it does not."""
        if self._process is not None and self._process.poll() is None:
            assert self._process.stdin is not None
            try:
                self._process.stdin.close()
                self._process.wait(timeout=_STOP_SECONDS)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _close_pipes(self) -> None:
        assert self._process is not None
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def _forget(self) -> None:
        for fd in (self._log_fd, self._lifeline):
            if fd is not None:
                os.close(fd)
        self._process = None
        self._log_fd = None
        self._lifeline = None
        self._buffer.clear()
