"""A large review judged in a forked child while the review's process does other work beside it.

After the renders, the rules and the review's document each take one core for seconds on a review
that reaches hundreds of charts, while the other core waits: the document's observed layers do not
depend on the findings, so the command line builds them (`beside`) while a child process, forked
with everything the review saw, judges. The child hands its judgement back as a pickle in the
review's own workspace. A small review is judged in place: a fork and the pages its child copies
cost more than its judge.

The judge is a pure function of what the fork copies, so the child's judgement is the one the
review's process would make; if the child fails in any way, the judge runs again in the review's
process, where an error is raised and said as any other. The child's copies of the pages it reads
cost memory (on sapcc's whole tree, 0.47 GiB beside the review's 0.75 GiB), so it forks only when
the machine has at least as much available as the review holds (Linux's `/proc`; elsewhere the judge
runs in place).
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
from collections.abc import Callable
from pathlib import Path

from aftershock.judgement.result import Judgement

FORK_AT = 64  # chart reviews: from here, a judge takes longer than a fork of the review's process


def judged_beside(
    judging: Callable[[], Judgement],
    beside: Callable[[], None] | None,
    folder: Path,
    size: int,
) -> Judgement:
    """`judging()`, in a forked child while `beside()` runs here when `size` (the review's chart
    reviews) reaches `FORK_AT` and the system can fork; else here alone (`beside` is not run: the
    caller then does that work itself, after)."""
    if beside is None or size < FORK_AT or not hasattr(os, "fork") or not room_for_a_copy():
        return judging()
    result = folder / f"judgement-{os.getpid()}.pickle"
    child = os.fork()
    if child == 0:
        _judge_in_child(judging, result)
    try:
        beside()
    except BaseException:
        os.kill(child, signal.SIGKILL)
        raise
    finally:
        _, status = os.waitpid(child, 0)
    if status == 0 and result.is_file():
        with result.open("rb") as handed:
            judgement: Judgement = pickle.load(handed)
        result.unlink()
        return judgement
    return judging()  # the child failed: judged here, where an error says what it is


def _judge_in_child(judging: Callable[[], Judgement], result: Path) -> None:
    """The child: judge, write the judgement, and end without running anything of the parent's
    (exit handlers, buffered output, `finally` blocks up the stack)."""
    status = 1
    try:
        gc.disable()  # short-lived: a collection would write to, and so copy, every page it walks
        with result.open("wb") as out:
            pickle.dump(judging(), out, protocol=pickle.HIGHEST_PROTOCOL)
        status = 0
    finally:
        os._exit(status)


def room_for_a_copy(
    meminfo: Path = Path("/proc/meminfo"), statm: Path = Path("/proc/self/statm")
) -> bool:
    """Whether the memory available on the machine is at least what this process holds (all a
    forked child could copy); False when either cannot be read."""
    try:
        available = next(
            int(line.split()[1]) * 1024
            for line in meminfo.read_text().splitlines()
            if line.startswith("MemAvailable:")
        )
        resident = int(statm.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    return available >= resident
