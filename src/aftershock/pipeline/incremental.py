"""The incremental side of a review (`ReviewRequest.since`): what since..head changes, and the scope
the review examined because of it.

An incremental review still reviews base..head as a whole, but renders only the charts since..head
reaches; `examined_scope` says what it looked at again, so the state store carries the rest forward
instead of calling it resolved. A whole review's scope is the whole change.
"""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.ingest.affected import affected_charts
from aftershock.ingest.repository.git import GitRepository
from aftershock.model.review import ChartOutcome, Review
from aftershock.model.state_scope import ReviewScope
from aftershock.model.tests import TESTS_PART
from aftershock.model.units import Chart


@dataclass(frozen=True)
class SinceChanges:
    """What changed since..head of an incremental review: the charts it reaches, the paths, the commits."""

    charts: frozenset[str]
    paths: tuple[str, ...]
    commits: frozenset[str]


def changes_since(
    repo: GitRepository,
    since: str,
    head_sha: str,
    charts_base: tuple[Chart, ...],
    charts_head: tuple[Chart, ...],
) -> SinceChanges:
    """The charts, paths and commits that since..head changes (nothing when `since` is the head)."""
    since_sha = repo.resolve(since)
    if since_sha == head_sha:
        return SinceChanges(frozenset(), (), frozenset())
    files = repo.file_changes(since_sha, head_sha)
    commits = frozenset(
        repo.run("rev-list", f"{since_sha}..{head_sha}", "--").decode("ascii").split()
    )
    charts = frozenset(a.chart for a in affected_charts(files, charts_base, charts_head))
    return SinceChanges(charts, tuple(p for f in files for p in (f.path, f.old_path) if p), commits)


def examined_scope(review: Review, since: SinceChanges | None) -> ReviewScope:
    """What the review examined: the whole change, or what since..head reaches; less the charts it could not
    render (or test, when the budget cut the test run: their test findings were not looked at again)."""
    skipped = frozenset(
        r.chart for r in review.chart_reviews if r.outcome is ChartOutcome.NOT_REVIEWED
    )
    if any(gap.part == TESTS_PART for gap in review.not_reviewed):
        skipped |= {r.chart for r in review.chart_reviews if r.release is None}
    if since is None:
        return ReviewScope.whole_change(skipped)
    charts = since.charts | {r.chart for r in review.chart_reviews}
    return ReviewScope.only(charts, frozenset(since.paths), since.commits, skipped)
