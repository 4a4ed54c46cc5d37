"""Ordered parallel dispatch of render requests over a fixed set of lanes (one thread each)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence

from aftershock.render.interface import ProgressCallback, RenderOutcome, RenderRequest

RenderOne = Callable[[RenderRequest], RenderOutcome]


def dispatch(
    requests: Sequence[RenderRequest],
    lanes: Sequence[RenderOne],
    progress: ProgressCallback | None = None,
    delays: Sequence[float] = (),
) -> list[RenderOutcome]:
    """Render every request on whichever lane is free; outcomes come back in request order.

    Each lane renders one request at a time, so a lane may own a stateful worker. A lane with a
    delay (`delays`, by lane; none by default) takes work only once that long has passed and work
    is left: one whose start is dear joins only batches the others do not finish by then.
    `progress` is called once per outcome as it finishes, never from two threads at once.
    An exception from a lane or from `progress` stops the dispatch and is re-raised.
    """
    if not requests:
        return []
    if not lanes:
        raise ValueError("dispatch needs at least one lane")
    pending: queue.SimpleQueue[tuple[int, RenderRequest]] = queue.SimpleQueue()
    for item in enumerate(requests):
        pending.put(item)
    outcomes: list[RenderOutcome | None] = [None] * len(requests)
    failures: list[BaseException] = []
    progress_lock = threading.Lock()
    finished = threading.Event()  # every request was taken (or the dispatch failed)

    def run(lane: RenderOne, delay: float) -> None:
        if delay > 0 and finished.wait(delay):
            return
        while not failures:
            try:
                index, request = pending.get_nowait()
            except queue.Empty:
                finished.set()
                return
            try:
                outcome = lane(request)
                outcomes[index] = outcome
                if progress is not None:
                    with progress_lock:
                        progress(outcome)
            except BaseException as exc:  # re-raised in the caller's thread below
                failures.append(exc)
                finished.set()

    active = lanes[: len(requests)]
    _run_all(run, active, [delays[i] if i < len(delays) else 0.0 for i in range(len(active))])
    if failures:
        raise failures[0]
    return [outcome for outcome in outcomes if outcome is not None]


def _run_all(
    run: Callable[[RenderOne, float], None], lanes: Sequence[RenderOne], waits: Sequence[float]
) -> None:
    """Each lane run on a thread of its own (a single lane on this one), all joined."""
    if len(lanes) == 1:
        run(lanes[0], waits[0])
        return
    threads = [
        threading.Thread(target=run, args=(lane, wait), daemon=True)
        for lane, wait in zip(lanes, waits, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
