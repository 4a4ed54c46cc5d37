"""The garbage collector during a review: young collections every 50,000 allocations, not 700.

A review builds large trees of plain data that live until it ends (parsed manifests, their diffs,
the findings) and holds almost no reference cycles. Under CPython's default thresholds the collector
looks at the young objects every 700 allocations and walks the whole heap again after every hundred
such collections, so a growing review is walked over and over: on the rule benchmark (2,800 objects)
a tenth of the pass, one full collection per pass. With a young generation of 50,000 a pass makes
one young collection and no full one. Cycles still go at the next young collection, so at most some
50,000 objects' worth waits; the thresholds are put back when the review ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 50_000


@contextmanager
def review_collector() -> Iterator[None]:
    """The review's collector thresholds until the block ends. When they are as high already (a
    review in another thread, or the caller's own choice), they are left as they are."""
    before = gc.get_threshold()
    if before[0] >= YOUNG_THRESHOLD:
        yield
        return
    gc.set_threshold(YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
