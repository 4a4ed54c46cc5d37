"""The delivery ledger on SQLite and PostgreSQL: deduplication by GUID under concurrency, the claim that
keeps a finished job from running twice, supersession by a newer review of the same pull request,
and paused pull requests."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from aftershock.model.state_records import ReviewTarget
from aftershock.server.queue.ledger import Ledger, Outcome
from aftershock.server.queue.supersede import RivalReview
from aftershock.state.store import open_store
from state_support import state_location  # noqa: F401 (fixture)

REVIEW = {"type": "review"}
COMMAND = {"type": "command"}


@pytest.fixture
def ledger(state_location):
    store = open_store(state_location)
    yield Ledger(store)
    store.close()


def _record(
    ledger: Ledger,
    delivery: str,
    target: str = "5",
    job: dict | None = REVIEW,
    outcome: Outcome = Outcome.ACCEPTED,
) -> bool:
    return ledger.record(
        delivery, "pull_request", "opened", "acme/platform", target, "a" * 40, outcome, "why", job
    )


def test_a_delivery_is_recorded_once_even_when_sent_concurrently(ledger):
    with ThreadPoolExecutor(8) as pool:
        fresh = list(pool.map(lambda _: _record(ledger, "same-guid"), range(16)))
    assert fresh.count(True) == 1
    assert ledger.counts() == {"accepted": 1}
    assert ledger.get("same-guid").job == REVIEW


def test_a_finished_job_is_never_started_again(ledger):
    _record(ledger, "d-1")
    assert ledger.start("d-1") and ledger.start("d-1")  # a retried (lost) run may start again
    ledger.mark("d-1", Outcome.REVIEWED, "done")
    assert not ledger.start("d-1")
    row = ledger.get("d-1")
    assert (row.outcome, row.detail) == (Outcome.REVIEWED, "done") and row.finished_at is not None
    assert [r.delivery_id for r in ledger.unfinished([Outcome.ACCEPTED, Outcome.RUNNING])] == []


def test_the_other_reviews_of_the_same_pull_request_are_its_rivals(ledger):
    _record(ledger, "old", job={"type": "review", "head_sha": "1" * 40})
    _record(ledger, "other-pr", target="6")
    _record(ledger, "ignored", job=None, outcome=Outcome.IGNORED)
    _record(ledger, "command", job=COMMAND)
    assert (
        ledger.rival_reviews("old") == ()
    )  # another pull request, an ignored event and a command do not count
    _record(ledger, "new", job={"type": "review", "head_sha": "2" * 40})
    _record(ledger, "asked", job={"type": "review", "head_sha": None})
    assert ledger.rival_reviews("old") == (
        RivalReview("new", "2" * 40, later=True),
        RivalReview("asked", None, later=True),
    )
    assert ledger.rival_reviews("new") == (
        RivalReview("old", "1" * 40, later=False),
        RivalReview("asked", None, later=True),
    )


def test_pause_and_resume(ledger):
    pr = ReviewTarget.pull_request(5)
    assert not ledger.paused("github.com/acme/platform", pr)
    assert ledger.pause("github.com/acme/platform", pr, "maintainer")
    assert not ledger.pause("github.com/acme/platform", pr, "maintainer")
    assert ledger.paused("github.com/acme/platform", pr) and not ledger.paused(
        "github.com/acme/other", pr
    )
    assert ledger.resume("github.com/acme/platform", pr) and not ledger.resume(
        "github.com/acme/platform", pr
    )
    assert not ledger.paused("github.com/acme/platform", pr)
