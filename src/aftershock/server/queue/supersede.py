"""Which review of a pull request wins: the one of its newest head, whatever order deliveries came in (pure).

GitHub does not promise delivery order: a late `opened` (head H1) can arrive after the `synchronize`
that pushed H2. So a review job is superseded by another review of the same pull request when that
one's head is newer than its own (it descends from it, or, unrelated after a force-push, was
committed later), and, as before, by a later one of the same head or of no head (a chat command that
reads the current head when it runs). Only where neither git nor the dates can tell does arrival
order decide.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass


class HeadOrder(str, enum.Enum):
    """How another head relates to this job's head."""

    NEWER = "newer"
    OLDER = "older"
    UNKNOWN = (
        "unknown"  # not fetchable, or committed in the same second with no ancestry between them
    )


@dataclass(frozen=True)
class RivalReview:
    """Another review job of the same pull request, from the delivery ledger."""

    delivery_id: str
    head_sha: str | None  # None: it reads the pull request's current head when it runs
    later: bool  # recorded after this job's delivery


def superseding(
    head_sha: str, rivals: Iterable[RivalReview], order: Callable[[str], HeadOrder]
) -> RivalReview | None:
    """The rival that replaces a review of `head_sha`, or None; `order` is asked only when needed."""
    heads_differ = []
    for rival in rivals:
        if rival.head_sha is None or rival.head_sha == head_sha:
            if rival.later:
                return rival
        else:
            heads_differ.append(rival)
    for rival in heads_differ:
        relation = order(rival.head_sha or "")
        if relation is HeadOrder.NEWER or (relation is HeadOrder.UNKNOWN and rival.later):
            return rival
    return None
