"""The fields a review leaves out of "what changed" and the rollout rules, marked on its changes
(`review.ignore_fields`, defaults in diff/ignored.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from aftershock.config.settings import AftershockConfig
from aftershock.diff.ignored import DEFAULT_IGNORED_FIELDS, marked
from aftershock.model.review import ChartReview


def ignored_patterns(config: AftershockConfig) -> tuple[str, ...]:
    given = config.review.ignore_fields
    return DEFAULT_IGNORED_FIELDS if given is None else tuple(given)


def with_ignored_fields(
    reviews: Sequence[ChartReview], patterns: Sequence[str]
) -> tuple[ChartReview, ...]:
    """Each review with the fields of its changes that `patterns` match marked as ignored."""
    if not patterns:
        return tuple(reviews)
    return tuple(
        replace(r, changes=tuple(marked(c, patterns) for c in r.changes)) if r.changes else r
        for r in reviews
    )
