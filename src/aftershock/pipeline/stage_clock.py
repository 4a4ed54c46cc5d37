"""The timings a review records of its own stages (`StageClock`): wall and CPU per named stage.

The review's own stages are measured where they run, so a stage added or renamed is timed with
no instrument to keep in step; `--profile` prints them and the JSON carries them. Nested stages
are timed exclusive of the stages inside them. The clocks are passed in, so a test drives them.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aftershock.model.timings import StageTiming


def process_cpu() -> float:
    """CPU seconds of this process and of its children that ended (git, kustomize)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime


def process_tree_cpu() -> float:
    """`process_cpu` and the CPU of the children still running (the render workers), read from
    /proc where there is one: a scan of every process, so only when a profile is asked for."""
    return process_cpu() + _running_children_cpu()


def _running_children_cpu() -> float:
    """utime + stime (and those of their ended children) of this process's running children."""
    me, total = os.getpid(), 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for entry in entries:
        if not entry.isdigit():
            continue
        fields = _stat_fields(entry)
        if fields is None:
            continue  # ended meanwhile
        # after the command: state, ppid, ..., utime (12th), stime, cutime, cstime
        if len(fields) > 14 and int(fields[1]) == me:
            total += sum(int(f) for f in fields[11:15])
    return total / _TICKS


def _stat_fields(pid: str) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command (state, ppid, ... utime is the 12th); None
    when there is no such file (the process ended, or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def startup_timing() -> StageTiming:
    """The process's own time until now as the stage `start-up` (the interpreter, the imports, the
    options): CPU from its usage; wall from its start time in /proc where there is one, else the CPU."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    cpu = own.ru_utime + own.ru_stime
    fields, wall = _stat_fields("self"), cpu
    try:
        if fields is not None:  # its start, 22nd field of stat, in ticks after boot
            with open("/proc/uptime", "rb") as uptime:
                wall = float(uptime.read().split()[0]) - int(fields[19]) / _TICKS
    except (OSError, IndexError, ValueError):
        pass
    return StageTiming("start-up", round(wall, 3), round(cpu, 3))


@dataclass
class StageClock:
    wall: Callable[[], float] = time.perf_counter
    cpu: Callable[[], float] = process_tree_cpu
    _totals: dict[str, list[float]] = field(default_factory=dict)
    _open: list[str] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time what runs inside as `name` (a stage entered again adds to its total)."""
        outer = self._open[-1] if self._open else None
        if outer is not None:
            self._stop(outer)
        self._open.append(name)
        self._start(name)
        try:
            yield
        finally:
            self._stop(name)
            self._open.pop()
            if outer is not None:
                self._start(outer)

    def timings(self) -> tuple[StageTiming, ...]:
        return tuple(
            StageTiming(name, round(wall, 3), round(cpu, 3))
            for name, (wall, cpu, *_) in self._totals.items()
        )

    def _start(self, name: str) -> None:
        total = self._totals.setdefault(name, [0.0, 0.0, 0.0, 0.0])
        total[2:] = [self.wall(), self.cpu()]

    def _stop(self, name: str) -> None:
        total = self._totals[name]
        total[0] += self.wall() - total[2]
        total[1] += self.cpu() - total[3]
