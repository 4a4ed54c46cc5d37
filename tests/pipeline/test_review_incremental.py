"""Reviews that remember, through the review state: lifecycle across pushes, --since-last, force-pushes, failures.

Real git repositories, real Helm (the session's SDK renderer, wrapped to count what it renders), real
SQLite files and, when a server answers at 127.0.0.1:5432, PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from aftershock.judgement.stateful import StatefulReview
from aftershock.model.errors import AftershockError
from aftershock.model.state_lifecycle import LifecycleState
from aftershock.model.state_mode import RequestedMode
from aftershock.model.state_records import ReviewMode, ReviewStatus
from aftershock.pipeline import ReviewRequest
from aftershock.pipeline.state import (
    StateOptions,
    open_target_state,
    review_with_state,
)
from aftershock.render.interface import ProgressCallback, Renderer, RenderOutcome, RenderRequest
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import app_chart
from gitrepo import Symlink, commit, git, make_repo
from state_support import state_location  # noqa: F401 (fixture)

TARGET = "pr:7"
LATEST = "image-latest-tag"


class CountingRenderer:
    """The real renderer, keeping the chart folder of every request it is asked to render."""

    def __init__(self, inner: Renderer) -> None:
        self.inner = inner
        self.name = inner.name
        self.chart_dirs: list[str] = []

    @property
    def version(self) -> str:
        return self.inner.version

    def render_many(
        self,
        requests: Sequence[RenderRequest],
        progress: ProgressCallback | None = None,
        deadline=None,
    ) -> list[RenderOutcome]:
        self.chart_dirs += [r.chart_dir for r in requests]
        return self.inner.render_many(requests, progress, deadline=deadline)

    def close(self) -> None:
        pass

    @property
    def charts(self) -> set[str]:
        return {Path(d).name for d in self.chart_dirs}


def values(image: str, replicas: int = 2) -> str:
    return f"replicas: {replicas}\nimage: {image}\nmode: fast\n"


@pytest.fixture
def topic(tmp_path: Path) -> tuple[Path, str]:
    """Charts a, b and c on main; the repository is left on branch `topic`, one commit ahead of nothing."""
    repo = make_repo(tmp_path)
    base = commit(
        repo,
        {**app_chart("a", "a"), **app_chart("b", "b"), **app_chart("c", "c")},
        "feat: three charts",
    )
    git(repo, "checkout", "-q", "-b", "topic")
    return repo, base


def review(
    repo: Path,
    base: str,
    renderer: Renderer,
    location: str,
    requested: RequestedMode = RequestedMode.DEFAULT,
) -> tuple[StatefulReview, CountingRenderer]:
    counting = CountingRenderer(renderer)
    request = ReviewRequest(repo=repo, base=base, head="HEAD")
    return review_with_state(
        request, counting, None, StateOptions(location, TARGET, requested)
    ), counting


def entry(stateful: StatefulReview, rule: str, subject_part: str):
    found = [
        e
        for e in stateful.lifecycle.entries
        if e.finding.rule_id == rule and subject_part in _subject(e.finding)
    ]
    assert len(found) == 1, [
        (e.state, e.finding.rule_id, _subject(e.finding)) for e in stateful.lifecycle.entries
    ]
    return found[0]


def _subject(finding) -> str:
    return getattr(finding, "subject_id", None) or finding.subject.id


def raised(stateful: StatefulReview) -> set[tuple[str, str]]:
    return {
        (f.rule_id, f.subject.id.split("::")[0])
        for f in stateful.result.judgement.findings
        if f.actionable
    }


def test_dismissed_retained_raised_again_and_resolved_across_pushes(
    topic, renderer, state_location
):
    repo, base = topic
    commit(
        repo,
        {"a/values.yaml": values("nginx:latest"), "b/values.yaml": values("busybox:latest")},
        "feat: latest images",
    )
    first, _ = review(repo, base, renderer, state_location)
    assert (
        entry(first, LATEST, "a::").state is LifecycleState.NEW
        and entry(first, LATEST, "b::").state is LifecycleState.NEW
    )
    with open_target_state(repo, state_location, TARGET) as opened:
        opened.store.dismiss(
            opened.repository,
            opened.target,
            entry(first, LATEST, "a::").fingerprint[:12],
            "pinned by digest in production",
            "alice",
        )

    commit(repo, {"b/values.yaml": values("busybox:latest", replicas=3)}, "feat: three b replicas")
    second, _ = review(repo, base, renderer, state_location)
    dismissed = entry(second, LATEST, "a::")
    assert (
        dismissed.state is LifecycleState.DISMISSED
        and dismissed.dismissal.reason == "pinned by digest in production"
    )
    assert entry(second, LATEST, "b::").state is LifecycleState.RETAINED
    assert raised(second) == {
        (LATEST, "b")
    }  # the dismissed one is not raised, nor counted in the verdicts
    text = render_markdown(review_document(second.result.review, second.result.judgement, second))
    assert (
        "#### Dismissed (1)" in text
        and "dismissed by alice" in text
        and "pinned by digest in production" in text
    )
    assert "#### Retained (1)" in text and "#### New" not in text

    head3 = commit(repo, {"a/values.yaml": values("nginx")}, "feat: untagged nginx")
    third, _ = review(repo, base, renderer, state_location)
    back = entry(third, LATEST, "a::")
    assert (
        back.state is LifecycleState.RETAINED
        and back.lapsed_dismissal is not None
        and back.dismissal is None
    )
    assert raised(third) == {(LATEST, "a"), (LATEST, "b")}
    doc = review_document(third.result.review, third.result.judgement, third)
    assert "raised again: its evidence changed since alice dismissed it" in render_markdown(doc)

    commit(repo, {"b/values.yaml": values("busybox:1.36", replicas=3)}, "fix: pin busybox")
    fourth, _ = review(repo, base, renderer, state_location)
    fixed = entry(fourth, LATEST, "b::")
    assert fixed.state is LifecycleState.RESOLVED and fixed.resolved_since == head3
    doc = review_document(fourth.result.review, fourth.result.judgement, fourth)
    assert [i["rule"] for i in doc["lifecycle"]["resolved"] if i["actionable"]] == [LATEST]
    assert f"#### Resolved since `{head3[:7]}` (1)" in render_markdown(doc)


def test_since_last_renders_only_the_charts_changed_since_the_last_head(topic, renderer, tmp_path):
    repo, base = topic
    location = str(tmp_path / "state.db")
    head1 = commit(
        repo,
        {"a/values.yaml": values("nginx:latest"), "b/values.yaml": values("busybox:latest")},
        "feat: latest",
    )
    _first, counted = review(repo, base, renderer, location)
    assert counted.charts == {"a", "b"}

    commit(repo, {"c/values.yaml": values("nginx:1.27.0", replicas=4)}, "feat: four c replicas")
    second, counted = review(repo, base, renderer, location, RequestedMode.SINCE_LAST)
    assert second.plan.mode is ReviewMode.INCREMENTAL and second.plan.since_sha == head1
    assert counted.charts == {"c"} and {r.chart for r in second.result.review.chart_reviews} == {
        "c"
    }
    carried = entry(second, LATEST, "a::")
    assert (
        carried.state is LifecycleState.RETAINED and carried.carried_forward
    )  # not re-checked, not resolved
    assert not second.lifecycle.resolved
    assert raised(second) == {
        (LATEST, "a"),
        (LATEST, "b"),
    }  # the verdicts still weigh what was carried forward
    doc = review_document(second.result.review, second.result.judgement, second)
    assert doc["lifecycle"]["mode"] == "incremental" and doc["lifecycle"]["carried_forward"] >= 2
    text = render_markdown(doc)
    assert (
        "carried forward, not re-checked" in text
        and f"Incremental review complete: the charts the commits since {head1[:7]}" in text
    )
    merge = second.result.judgement.verdicts.merge.rationale
    assert (
        "Every affected chart was rendered" not in text
        and "Every affected chart was rendered" not in merge
    )
    assert f"2 other affected chart(s) were carried forward from the review of {head1[:7]}" in merge

    head3 = commit(repo, {"a/values.yaml": values("nginx:1.27.1")}, "fix: pin nginx")
    third, counted = review(repo, base, renderer, location, RequestedMode.SINCE_LAST)
    assert counted.charts == {"a"}
    assert entry(third, LATEST, "a::").state is LifecycleState.RESOLVED
    assert entry(third, LATEST, "b::").carried_forward

    again, counted = review(repo, base, renderer, location, RequestedMode.SINCE_LAST)
    assert (
        again.plan.since_sha == head3
        and "no new commits" in again.plan.reason
        and counted.chart_dirs == []
    )
    assert entry(again, LATEST, "b::").state is LifecycleState.RETAINED


def test_a_force_push_leads_to_a_full_review_that_says_so(topic, renderer, tmp_path):
    repo, base = topic
    location = str(tmp_path / "state.db")
    commit(repo, {"a/values.yaml": values("nginx:latest")}, "feat: latest nginx")
    review(repo, base, renderer, location)
    git(repo, "reset", "-q", "--hard", base)
    commit(repo, {"b/values.yaml": values("busybox:latest")}, "feat: latest busybox instead")
    rewritten, counted = review(repo, base, renderer, location, RequestedMode.SINCE_LAST)
    assert rewritten.plan.mode is ReviewMode.FULL and rewritten.plan.force_pushed
    assert rewritten.plan.reason.startswith("force-push detected") and counted.charts == {"b"}
    assert (
        entry(rewritten, LATEST, "a::").state is LifecycleState.RESOLVED
    )  # a full review looked at everything
    doc = review_document(rewritten.result.review, rewritten.result.judgement, rewritten)
    assert doc["lifecycle"]["force_pushed"] and "force-push detected" in render_markdown(doc)


def test_a_failed_review_is_recorded_as_failed_and_the_previous_state_stays(
    topic, renderer, tmp_path
):
    repo, base = topic
    location = str(tmp_path / "state.db")
    head1 = commit(repo, {"a/values.yaml": values("nginx:latest")}, "feat: latest nginx")
    first, _ = review(repo, base, renderer, location)
    broken = commit(repo, {"a/files/link": Symlink("/etc/passwd")}, "feat: a link out of the repo")
    with pytest.raises(AftershockError, match="a/files/link"):
        review(repo, base, renderer, location)
    with open_target_state(repo, location, TARGET) as opened:
        history = opened.store.history(opened.repository, opened.target)
        last_good = opened.store.latest_review(opened.repository, opened.target)
    assert [(s.head_sha, s.status) for s in history] == [
        (broken, ReviewStatus.FAILED),
        (head1, ReviewStatus.COMPLETE),
    ]
    assert (
        "a/files/link" in history[0].not_reviewed[0].reason
        and history[0].counts == {}
        and history[0].verdicts == ()
    )
    assert last_good is not None and last_good.id == first.review_id

    commit(repo, {"a/files/link": None}, "fix: no link")
    after, _ = review(repo, base, renderer, location)
    assert (
        after.lifecycle.previous_head == head1
    )  # compared with the last review that ran, not the failed one
    assert entry(after, LATEST, "a::").state is LifecycleState.RETAINED


def test_a_range_starting_inside_the_last_one_carries_what_the_earlier_commits_did(
    topic, renderer, state_location
):
    """Reviewing the second commit alone (base = the last review's head) does not resolve what the
    first commit did and the pull request still does: it is carried forward; what the head still
    shows is retained."""
    repo, base = topic
    first_commit = commit(
        repo, {"a/values.yaml": values("nginx:latest")}, "fixup! feat: latest image"
    )
    first, _ = review(repo, base, renderer, state_location)
    assert entry(first, "commit-fixup", "").state is LifecycleState.NEW
    commit(repo, {"b/values.yaml": values("nginx:1.27.0", replicas=3)}, "feat: three b replicas")
    second, _ = review(repo, first_commit, renderer, state_location)
    assert second.plan.narrowed and "carried forward" in second.plan.reason
    fixup = entry(second, "commit-fixup", "")
    assert fixup.state is LifecycleState.RETAINED and fixup.carried_forward
    assert entry(second, LATEST, "a::").state is LifecycleState.RETAINED  # still at head
    assert not second.lifecycle.resolved
