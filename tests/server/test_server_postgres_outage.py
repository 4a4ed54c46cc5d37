"""A PostgreSQL outage, through a proxy the test closes (the machine's server is never stopped): a job
that loses the database mid-review is tried again and completes; one that keeps losing it ends failed
with a failed check run (never a passed one); a delivery that arrives while the database is down
answers 202 and is kept, then recorded and reviewed once when it is back; an `aftershock worker`
(RQ) tries a job again too (issue 22: the job ended
failed while its check run said success, and such deliveries got HTTP 500 with a traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid

import httpx
import pytest

from aftershock.server.queue.ledger import Outcome
from redis_support import REDIS_URL, redis_reachable
from server_harness import deliver, wait_for
from server_outage import outage  # noqa: F401 (fixture)


def _logged(caplog, text: str) -> bool:
    return any(text in record.getMessage() for record in caplog.records)


def test_a_review_that_loses_the_database_midway_is_tried_again_and_completes(outage, caplog):
    running = outage.start(outage.settings(state_backoff_seconds=0.5))
    outage.fake.state.slow_answers = [
        1.5
    ]  # the in_progress update: the database goes down meanwhile
    answer = outage.deliver(running, "m-1")
    assert answer.status_code == 202, answer.text
    outage.wait_in_progress()
    outage.proxy.down()  # resets the review lock's session too
    wait_for(lambda: _logged(caplog, "(attempt 1 of 5)"), 60, "the first attempt to fail")
    outage.proxy.up()
    outcome = outage.wait_final(running, "m-1")
    assert outcome is Outcome.REVIEWED, running.service.ledger.get("m-1").detail
    outage.assert_published_once(running)


def test_a_review_whose_lock_session_is_reset_midway_runs_again_and_completes_once(outage, caplog):
    """The issue's case: the review lock's session dies mid-review (the other queries reconnect). The
    job ended failed after publishing a passed check run; now the lost lock is noticed before the
    review is recorded, and the review runs again under a new lock: recorded and published once."""
    running = outage.start()
    outage.fake.state.slow_answers = [1.0]
    outage.deliver(running, "r-1")
    outage.wait_in_progress()
    outage.proxy.reset()
    outcome = outage.wait_final(running, "r-1")
    assert outcome is Outcome.REVIEWED, running.service.ledger.get("r-1").detail
    outage.assert_published_once(running)
    assert _logged(caplog, "was lost with its database session (")


def test_a_review_that_keeps_losing_the_database_ends_failed_with_a_failed_check_run(outage):
    running = outage.start(outage.settings(state_attempts=2, state_backoff_seconds=0.5))
    outage.fake.state.slow_answers = [1.0]
    outage.deliver(running, "f-1")
    outage.wait_in_progress()
    outage.proxy.down()
    (run,) = wait_for(
        lambda: [r for r in outage.fake.runs_for(outage.head) if r.conclusion],
        60,
        "the check run to end",
    )
    outage.proxy.up()  # within the backoff in which the runner still tries to record the failure
    assert run.conclusion == "failure"
    assert "state database failed in each of 2 attempts" in run.output["summary"]
    assert outage.wait_final(running, "f-1", 30) is Outcome.FAILED
    assert "state database failed" in running.service.ledger.get("f-1").detail
    assert outage.reviews(running) == 0


def test_a_delivery_while_the_database_is_down_is_kept_then_reviewed_once(outage):
    running = outage.start(outage.settings(reconcile_seconds=0.2))
    with httpx.Client() as client:
        outage.proxy.down()
        payload = outage.payload()
        answers = [deliver(client, running.url, "pull_request", payload, "d-1") for _ in "ab"]
        for answer in answers:  # GitHub's redelivery while down is the same kept delivery
            assert answer.status_code == 202, answer.text
            assert answer.json()["outcome"] == "spooled"
            assert "when it is back" in answer.json()["reason"]
        assert client.get(f"{running.url}/healthz").status_code == 503
        time.sleep(0.6)  # reconciler rounds while the database is down keep it
        assert running.service.spool.waiting() == 1  # one file: waiting, or claimed this moment
        assert outage.fake.runs_for(outage.head) == []
        outage.proxy.up()
        assert outage.wait_final(running, "d-1") is Outcome.REVIEWED
        again = deliver(client, running.url, "pull_request", payload, "d-1")
        assert again.status_code == 200 and again.json()["duplicate"], again.text
    assert running.service.spool.waiting() == 0
    outage.assert_published_once(running)


def _redis_url() -> str:
    if not redis_reachable():
        pytest.skip(f"no redis-server answering at {REDIS_URL}")
    return REDIS_URL


class _Worker:
    """An `aftershock worker --burst` process on the outage's database, its log lines collected."""

    def __init__(self, outage, settings, redis_url: str, name: str, **env: str) -> None:
        environment = {
            **os.environ,
            "AFTERSHOCK_APP_ID": "42",
            "AFTERSHOCK_PRIVATE_KEY": outage.key.private_pem,
            "AFTERSHOCK_GITHUB_API_URL": outage.fake.url,
            "AFTERSHOCK_STATE": outage.url,
            "AFTERSHOCK_WORK_DIR": str(settings.work_dir),
            "AFTERSHOCK_STATE_BACKOFF_SECONDS": "0.5",
            **env,
        }
        code = "from aftershock.cli.worker import worker_command; worker_command()"
        command = [
            sys.executable,
            "-c",
            code,
            "--queue",
            redis_url,
            "--queue-name",
            name,
            "--burst",
        ]
        self.process = subprocess.Popen(
            command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(
            target=lambda: self.lines.extend(self.process.stderr), daemon=True
        )
        self._reader.start()

    def logged(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def wait(self) -> str:
        self.process.wait(180)
        self._reader.join(10)
        return "".join(self.lines)[-2000:]


def _result_ttl(redis_url: str, job_id: str) -> int:
    import redis

    return int(redis.Redis.from_url(redis_url).ttl(f"rq:results:{job_id}"))


def _clean_redis(redis_url: str, name: str) -> None:
    import redis

    connection = redis.Redis.from_url(redis_url)
    for pattern in (f"rq:*{name}*", f"aftershock:metrics:{name}"):
        for found in connection.scan_iter(pattern):
            connection.delete(found)


def test_an_rq_worker_tries_a_job_again_when_the_database_drops_midway(outage):
    redis_url = _redis_url()
    name = f"aftershock-pg-outage-{uuid.uuid4().hex[:8]}"
    settings = outage.settings()
    running = outage.start(settings, redis_url, name)
    try:
        outage.fake.state.slow_answers = [1.5]
        outage.deliver(running, "w-1")
        wait_for(lambda: outage.final(running, "w-1") or running.service.queue.depth() == 1, 30)
        worker = _Worker(outage, settings, redis_url, name)
        outage.wait_in_progress(120)
        outage.proxy.down()
        wait_for(lambda: worker.logged("(attempt 1 of 5)"), 60, "a failed try")
        time.sleep(2.0)  # longer than RQ's own immediate retries would last
        outage.proxy.up()
        log = worker.wait()
        assert outage.final(running, "w-1") is Outcome.REVIEWED, log
        outage.assert_published_once(running)
    finally:
        _clean_redis(redis_url, name)


def _completed(outage) -> bool:
    return any(r.conclusion for r in outage.fake.runs_for(outage.head))


def test_a_review_whose_outcome_could_not_be_recorded_ends_in_it_once_the_database_is_back(
    outage, caplog
):
    """The database drops after the review's last writes (recorded, check run completed): the runner
    gives up writing the outcome, and the reconciler writes it when the database answers."""
    settings = outage.settings(state_attempts=2, state_backoff_seconds=0.5, reconcile_seconds=0.2)
    running = outage.start(settings)
    outage.fake.state.slow_answers = [0.0, 2.0]  # the completion is applied, answered late
    outage.deliver(running, "o-1")
    wait_for(lambda: _completed(outage), 120, "the check run to complete")
    outage.proxy.down()
    wait_for(lambda: "could not be recorded" in caplog.text, 60, "the runner to give up")
    outage.proxy.up()
    assert outage.wait_final(running, "o-1", 30) is Outcome.REVIEWED
    assert running.service.ledger.get("o-1").detail.startswith("full review of")
    outage.assert_published_once(running)


def test_an_rq_job_whose_outcome_the_worker_could_not_record_ends_in_it(outage):
    """The issue's case: the worker's job finished in RQ while the delivery stayed `running` for
    ever; the service's reconciler writes the outcome RQ holds once the database answers."""
    redis_url = _redis_url()
    name = f"aftershock-pg-outage-{uuid.uuid4().hex[:8]}"
    settings = outage.settings(reconcile_seconds=0.2)
    running = outage.start(settings, redis_url, name)
    try:
        outage.fake.state.slow_answers = [0.0, 2.0]
        outage.deliver(running, "s-1")
        wait_for(lambda: running.service.queue.depth() == 1, 30, "the job to be queued")
        worker = _Worker(outage, settings, redis_url, name, AFTERSHOCK_STATE_ATTEMPTS="2")
        try:
            wait_for(lambda: _completed(outage), 120, "the check run to complete")
        except AssertionError as error:  # say how the job ended, so a failure can be read
            row = running.service.ledger.get("s-1")
            raise AssertionError(
                f"{error}; ledger: {row and (row.outcome, row.detail)}; "
                f"runs: {outage.fake.runs_for(outage.head)}; worker: {''.join(worker.lines)[-2000:]}"
            ) from error
        outage.proxy.down()
        log = worker.wait()  # a burst worker: the job ends, its outcome unrecorded
        assert worker.logged("could not be recorded"), log
        assert outage.final(running, "s-1") is None
        assert _result_ttl(redis_url, "aftershock-s-1") > 24 * 3600  # the result outlasts an outage
        outage.proxy.up()
        assert outage.wait_final(running, "s-1", 30) is Outcome.REVIEWED, log
        assert running.service.ledger.get("s-1").detail.startswith("full review of")
        outage.assert_published_once(running)
    finally:
        _clean_redis(redis_url, name)
