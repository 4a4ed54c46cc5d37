"""One check run per review, whatever the database does between creating it and recording its id
(issue 22: the retry created a second one, left queued or in progress for ever beside the one that
was completed). The database goes down while GitHub is still answering the create call: when the
service announces a push's queued check run, and when a review a command asked for starts its own."""

from __future__ import annotations

from aftershock.server.queue.ledger import Outcome
from server_harness import comment_payload, wait_for
from server_outage import PULL, REPO, outage  # noqa: F401 (fixture)


def _created(outage) -> bool:
    return bool(outage.fake.runs_for(outage.head))


def test_a_queued_check_run_announced_while_the_database_drops_is_the_one_completed(outage, caplog):
    running = outage.start(outage.settings(reconcile_seconds=0.2))
    outage.fake.state.slow_creates = [1.5]  # the announcement: the database goes down meanwhile
    assert outage.deliver(running, "a-1").status_code == 202
    wait_for(lambda: _created(outage), 30, "the queued check run")
    outage.proxy.down()
    wait_for(lambda: "could not dispatch a-1" in caplog.text, 30, "the id to go unrecorded")
    outage.proxy.up()  # the delivery is still accepted: the reconciler dispatches it again
    assert outage.wait_final(running, "a-1") is Outcome.REVIEWED
    (run,) = outage.fake.runs_for(outage.head)
    assert run.conclusion == "success" and run.external_id == "a-1"
    assert outage.reviews(running) == 1


def test_a_check_run_a_retried_review_created_is_the_one_it_completes(outage, caplog):
    running = outage.start(outage.settings(state_backoff_seconds=0.5))
    outage.fake.set_pull(REPO, PULL, outage.head, outage.base)
    outage.fake.state.slow_creates = [1.5]  # the review's own check run (a command: none announced)
    command = comment_payload(REPO, PULL, "@aftershock full review")
    assert outage.deliver(running, "c-1", "issue_comment", command).status_code == 202
    wait_for(lambda: _created(outage), 60, "the review's check run")
    outage.proxy.down()
    wait_for(lambda: "(attempt 1 of 5)" in caplog.text, 60, "the first attempt to fail")
    outage.proxy.up()
    assert outage.wait_final(running, "c-1") is Outcome.REVIEWED
    (run,) = outage.fake.runs_for(outage.head)
    assert run.conclusion == "success" and run.statuses == ["in_progress", "completed"]
    assert outage.reviews(running) == 1
