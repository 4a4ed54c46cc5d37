"""The bounds a render process lives under: its memory, and its parent's life (Linux).

Memory: the SDK worker caps its own address space (`RLIMIT_AS`) once helm_python is loaded. The Go
runtime reserves about 1.7 GiB of address space it never touches, so the cap is what is mapped then
plus the resident memory left under the limit: an allocation past it fails, the Go runtime aborts
with "out of memory", and the parent reports the render as over its memory. A soft `GOMEMLIMIT`
below it makes Go collect garbage harder before that. A parent-side poll of the resident set bounds
a process that cannot cap itself (the helm binary).

Parent's life: a worker must not outlive the reviewer (a hanging template would keep a core busy).
It asks the kernel for SIGKILL when its parent dies (`PR_SET_PDEATHSIG`); the kernel sends it when
the *thread* that started the child ends, so workers are started from one long-lived thread
(`spawn`). As a fallback the worker watches a lifeline pipe whose write end only the parent holds,
and exits when it closes.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

_PR_SET_PDEATHSIG = 1
_GO_MEMORY_SHARE = 0.75  # of the hard limit, as Go's soft GOMEMLIMIT
# What a process's end leaves on stderr when it ran out of memory (Go's runtime, then Python's).
_MEMORY_DEATHS = (
    "out of memory",
    "goroutine stack exceeds",
    "MemoryError",
    "Cannot allocate memory",
)

_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def go_memory_env(max_memory_mib: int) -> dict[str, str]:
    """The Go runtime's soft memory limit for a process bounded at `max_memory_mib`."""
    return {"GOMEMLIMIT": f"{int(max_memory_mib * _GO_MEMORY_SHARE)}MiB"}


def _status_kib(field: str, pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"/proc/{pid}/status has no {field}")


def resident_bytes(pid: int) -> int | None:
    """The resident set of process `pid`, None once it is gone."""
    try:
        return _status_kib("VmRSS", pid) * 1024
    except (OSError, ValueError):
        return None


def cap_own_memory(max_memory_mib: int) -> None:
    """Cap this process's address space so that its resident memory stays under `max_memory_mib`:
    what is mapped now, plus what the limit leaves above what is resident now."""
    mapped = _status_kib("VmSize") * 1024
    resident = _status_kib("VmRSS") * 1024
    cap = mapped + max(max_memory_mib * 2**20 - resident, 0)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def died_of_memory(stderr_head: str) -> bool:
    """True when what a dead process wrote to stderr says it ran out of memory."""
    return any(sign in stderr_head for sign in _MEMORY_DEATHS)


def die_with_parent(parent_pid: int, lifeline_fd: int | None) -> None:
    """SIGKILL this process when its parent dies; exit at once if it already has."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request above took effect
        os._exit(1)
    if lifeline_fd is not None:
        threading.Thread(
            target=watch_lifeline, args=(lifeline_fd,), daemon=True, name="lifeline"
        ).start()


def watch_lifeline(fd: int) -> None:
    """Block until the lifeline's write end closes (the parent is gone), then exit this process."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    while True:
        for _, events in poller.poll():
            if events & (select.POLLHUP | select.POLLERR) or not os.read(fd, 1):
                os._exit(1)  # the parent is gone: nobody will read what this render makes


def spawn(start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Run `start` (which starts a child) on the one long-lived spawning thread, so that the
    child's PR_SET_PDEATHSIG fires when this process ends, not when a passing thread does."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aftershock-spawn")
        spawner = _spawner
    return spawner.submit(start).result()
