"""The newest head of a pull request wins, whatever order its deliveries came in (issue 12, item 6: a late
`opened` of an older head was reviewed and marked the newer head's review superseded)."""

from __future__ import annotations

import httpx
import pytest

from aftershock.model.state_records import ReviewTarget
from aftershock.server.github.fetch import fetch_commits, head_order
from aftershock.server.queue.ledger import Outcome
from aftershock.server.queue.supersede import HeadOrder, RivalReview, superseding
from charts import app_chart
from gitrepo import commit, git, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, pull_request_payload, service_settings, start_service, wait_for

REPO = "acme/platform"
H1, H2 = "1" * 40, "2" * 40


def test_a_newer_head_supersedes_whichever_arrived_first():
    newer = {H2: HeadOrder.NEWER}
    assert (
        superseding(H1, [RivalReview("d-2", H2, later=False)], lambda h: newer[h]).delivery_id
        == "d-2"
    )
    assert superseding(H2, [RivalReview("d-1", H1, later=True)], lambda h: HeadOrder.OLDER) is None
    # the same head, or a review of the current head, asked for later: supersedes without asking git
    unasked = lambda h: pytest.fail("git was asked")  # noqa: E731
    assert superseding(H1, [RivalReview("d-1b", H1, later=True)], unasked).delivery_id == "d-1b"
    assert superseding(H1, [RivalReview("cmd", None, later=True)], unasked).delivery_id == "cmd"
    assert superseding(H1, [RivalReview("d-1a", H1, later=False)], unasked) is None
    # only where git and the dates cannot tell does arrival order decide
    assert (
        superseding(
            H1, [RivalReview("d-x", H2, later=True)], lambda h: HeadOrder.UNKNOWN
        ).delivery_id
        == "d-x"
    )
    assert (
        superseding(H1, [RivalReview("d-x", H2, later=False)], lambda h: HeadOrder.UNKNOWN) is None
    )


def test_head_order_by_ancestry_then_by_commit_date_after_a_force_push(tmp_path):
    repo = make_repo(tmp_path / "work")
    base = commit(repo, {"a.txt": "0\n"}, "base", date="2026-01-01T09:00:00Z")
    first = commit(repo, {"a.txt": "1\n"}, "first", date="2026-01-01T10:00:00Z")
    second = commit(repo, {"a.txt": "2\n"}, "second", date="2026-01-01T10:05:00Z")
    git(repo, "tag", "pushed-before", second)
    git(repo, "reset", "-q", "--hard", base)
    rebased = commit(repo, {"a.txt": "3\n"}, "rebased", date="2026-01-01T11:00:00Z")
    url = f"file://{repo}"
    (tmp_path / "job").mkdir()
    fetched = fetch_commits(tmp_path / "job", url, None, [first, base], depth=50)
    assert (
        head_order(fetched.path, url, None, first, second) is HeadOrder.NEWER
    )  # fetched on demand
    assert head_order(fetched.path, url, None, second, first) is HeadOrder.OLDER
    assert (
        head_order(fetched.path, url, None, second, rebased) is HeadOrder.NEWER
    )  # unrelated: committed later
    assert head_order(fetched.path, url, None, rebased, second) is HeadOrder.OLDER
    assert (
        head_order(fetched.path, url, None, first, "f" * 40) is HeadOrder.UNKNOWN
    )  # not on the remote


@pytest.fixture(scope="module")
def key() -> AppKey:
    return AppKey.generate()


def test_a_late_opened_of_an_older_head_never_replaces_the_newer_review(tmp_path, key):
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base", date="2026-01-01T09:00:00Z")
    old = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "three",
        date="2026-01-01T10:00:00Z",
    )
    new = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 4\nimage: nginx:1.27.0\nmode: fast\n"},
        "four",
        date="2026-01-01T10:05:00Z",
    )
    fake.serve_repository(REPO, repo)
    running = start_service(service_settings(fake, key, tmp_path))
    try:
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, new, base, "synchronize"),
                "d-new",
            )
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, old, base, "opened"),
                "d-old",
            )

            def final(d):
                return (
                    (row := running.service.ledger.get(d)) is not None
                    and row.outcome.final
                    and row.outcome
                )

            assert (
                wait_for(lambda: final("d-new"), 120, "the newer head's review") is Outcome.REVIEWED
            )
            assert (
                wait_for(lambda: final("d-old"), 120, "the older head's job") is Outcome.SUPERSEDED
            )
    finally:
        running.stop()
        fake.stop()
    assert f"head {new[:7]}" in running.service.ledger.get("d-old").detail
    (comment,) = fake.comments_on(REPO, 5)
    assert f"`{base[:7]}..{new[:7]}`" in comment["body"]
    assert [r.conclusion for r in fake.runs_for(old)] == ["skipped"]
    latest = running.service.store.latest_review(
        running.service.settings.repository_key(REPO), ReviewTarget.pull_request(5)
    )
    assert latest.head_sha == new
