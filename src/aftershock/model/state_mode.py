"""Full or incremental: what the next review of a target should cover, given the last one (pure).

The caller answers the ancestry question with git (`git merge-base --is-ancestor LAST NEW`: exit 0
ANCESTOR, exit 1 NOT_ANCESTOR; LAST unknown to `git cat-file -e LAST^{commit}`: MISSING).
An incremental review is only offered when it is sound: the last review completed, on the same
base, with the same aftershock and configuration, and the branch was not rewritten since.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import assert_never

from aftershock.model.state_records import ReviewMode, ReviewStatus, ReviewSummary


class RequestedMode(str, enum.Enum):
    DEFAULT = "default"  # no flag: review base..head as a whole
    SINCE_LAST = "since_last"  # --since-last
    FULL = "full"  # --full


class Ancestry(str, enum.Enum):
    ANCESTOR = "ancestor"  # the last reviewed head is an ancestor of the new head
    NOT_ANCESTOR = "not_ancestor"  # history was rewritten (force-push, rebase)
    MISSING = "missing"  # the last reviewed head is not in this repository at all


@dataclass(frozen=True)
class ReviewPlan:
    """What to review. INCREMENTAL covers `since_sha..head` and carries the rest forward;
    when `since_sha` equals the head there is nothing new and everything is carried forward.
    `reason` is one line for the output; `force_pushed` is set whatever the mode. `narrowed`: the
    range starts inside the commits the last review covered (its base is past the last base), so a
    finding of the earlier commits that this review does not raise is carried forward, not resolved:
    the pull request still makes it."""

    mode: ReviewMode
    reason: str
    since_sha: str | None = None
    force_pushed: bool = False
    narrowed: bool = False


@dataclass(frozen=True)
class CurrentReview:
    head_sha: str
    base_sha: str
    config_hash: str
    aftershock_version: str


def decide_review_mode(
    requested: RequestedMode,
    last: ReviewSummary | None,
    current: CurrentReview,
    ancestry: Ancestry | None,
) -> ReviewPlan:
    """Decide full vs incremental. `last` is the latest non-failed review of the target, if any;
    `ancestry` says how its head relates to the new head (None when it could not be asked)."""
    if last is None:
        return ReviewPlan(ReviewMode.FULL, "first review of this target: reviewing the whole range")
    rewritten = _rewritten(last, current, ancestry)
    if rewritten is not None:
        return ReviewPlan(
            ReviewMode.FULL,
            rewritten,
            force_pushed=ancestry in (Ancestry.NOT_ANCESTOR, Ancestry.MISSING),
        )
    match requested:
        case RequestedMode.FULL:
            return ReviewPlan(ReviewMode.FULL, "full review requested: reviewing the whole range")
        case RequestedMode.DEFAULT:
            return ReviewPlan(
                ReviewMode.FULL,
                f"reviewing the whole range (last reviewed head {last.head_sha[:7]})",
            )
        case RequestedMode.SINCE_LAST:
            return _since_last(last, current)
    assert_never(requested)


def _rewritten(
    last: ReviewSummary, current: CurrentReview, ancestry: Ancestry | None
) -> str | None:
    """Why the last reviewed head cannot serve as a starting point, when history was rewritten."""
    short_last, short_new = last.head_sha[:7], current.head_sha[:7]
    match ancestry:
        case Ancestry.ANCESTOR:
            return None
        case Ancestry.NOT_ANCESTOR:
            return (
                f"force-push detected: last reviewed head {short_last} is not an ancestor of {short_new}; "
                "reviewing the whole range"
            )
        case Ancestry.MISSING:
            return (
                f"force-push detected: last reviewed head {short_last} is no longer in this repository; "
                "reviewing the whole range"
            )
        case None:
            return f"could not check that {short_last} is an ancestor of {short_new}; reviewing the whole range"
    assert_never(ancestry)


def _since_last(last: ReviewSummary, current: CurrentReview) -> ReviewPlan:
    short = last.head_sha[:7]
    if last.status is not ReviewStatus.COMPLETE:
        return ReviewPlan(
            ReviewMode.FULL,
            f"the last review ({short}) was {last.status.value}: reviewing the whole range",
        )
    if last.base_sha != current.base_sha:
        return ReviewPlan(
            ReviewMode.FULL,
            f"the base moved from {last.base_sha[:7]} to {current.base_sha[:7]} since the last review: reviewing the whole range",
        )
    if (
        last.aftershock_version != current.aftershock_version
        or last.config_hash != current.config_hash
    ):
        return ReviewPlan(
            ReviewMode.FULL,
            "aftershock or its configuration changed since the last review: reviewing the whole range",
        )
    if last.head_sha == current.head_sha:
        return ReviewPlan(
            ReviewMode.INCREMENTAL,
            f"no new commits since the last review of {short}",
            since_sha=last.head_sha,
        )
    return ReviewPlan(
        ReviewMode.INCREMENTAL, f"reviewing what changed since {short}", since_sha=last.head_sha
    )


# Seconds a review waits for another review of the same target to finish.
DEFAULT_LOCK_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class StateOptions:
    """Where a review's state lives and what it is a review of, as the CLI and the Action ask."""

    location: str | None = None  # a path or URL; None: .aftershock/state.db in the repository
    target: str | None = None  # `pr:42`, `42`, `branch:x` or a branch name; None: resolve_target
    requested: RequestedMode = RequestedMode.DEFAULT
    lock_timeout_seconds: float = DEFAULT_LOCK_TIMEOUT_SECONDS
