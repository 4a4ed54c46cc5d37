"""A PostgreSQL outage, through a proxy the test closes (the machine's server is never stopped): a job
that loses the database mid-review is tried again and completes; one that keeps losing it ends failed
with a failed check run (never a passed one); a delivery that arrives while the database is down
answers 202 and is kept, then recorded and reviewed once when it is back (issue 22: the job ended
failed while its check run said success, and such deliveries got HTTP 500 with a traceback)."""

from __future__ import annotations

import time

import httpx
import pytest

from aftershock.server.ledger import Outcome
from aftershock.state.records import ReviewTarget
from charts import app_chart
from gitrepo import commit, make_repo
from pg_outage import PgProxy, throwaway_database
from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, pull_request_payload, service_settings, start_service, wait_for

REPO = "acme/platform"
KEY = "127.0.0.1/acme/platform"  # the fake's host names the repository in the state store


@pytest.fixture
def proxy():
    proxy = PgProxy()
    proxy.up()
    yield proxy
    proxy.down()


@pytest.fixture
def setup(tmp_path, proxy):
    key = AppKey.generate()
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\n"}, "three")
    fake.serve_repository(REPO, repo)
    with throwaway_database() as name:
        url = f"postgresql+psycopg://postgres@127.0.0.1:{proxy.port}/{name}"
        yield fake, key, url, base, head
    fake.stop()


def _final(running, delivery: str) -> Outcome | None:
    try:
        row = running.service.ledger.get(delivery)
    except Exception:
        return None  # the database is down
    return row.outcome if row is not None and row.outcome.final else None


def _reviews(running) -> int:
    return len(running.service.store.history(KEY, ReviewTarget.pull_request(5)))


def test_a_review_that_loses_the_database_midway_is_tried_again_and_completes(
    tmp_path, proxy, setup
):
    fake, key, url, base, head = setup
    settings = service_settings(fake, key, tmp_path, state=url, state_backoff_seconds=0.5)
    running = start_service(settings)
    try:
        fake.state.slow_answers = [1.5]  # the in_progress update: the database goes down meanwhile
        with httpx.Client() as client:
            answer = deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "m-1",
            )
            assert answer.status_code == 202, answer.text
        wait_for(lambda: [r for r in fake.runs_for(head) if "in_progress" in r.statuses], 60)
        proxy.down()  # resets the review lock's session too
        time.sleep(2.5)
        proxy.up()
        outcome = wait_for(lambda: _final(running, "m-1"), 120, "the review to finish")
        assert outcome is Outcome.REVIEWED, running.service.ledger.get("m-1").detail
        (run,) = fake.runs_for(head)
        assert run.conclusion == "success"
        assert _reviews(running) == 1
    finally:
        running.stop()


def test_a_review_that_keeps_losing_the_database_ends_failed_with_a_failed_check_run(
    tmp_path, proxy, setup
):
    fake, key, url, base, head = setup
    settings = service_settings(
        fake, key, tmp_path, state=url, state_attempts=2, state_backoff_seconds=0.5
    )
    running = start_service(settings)
    try:
        fake.state.slow_answers = [1.0]
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "f-1",
            )
        wait_for(lambda: [r for r in fake.runs_for(head) if "in_progress" in r.statuses], 60)
        proxy.down()
        (run,) = wait_for(
            lambda: [r for r in fake.runs_for(head) if r.conclusion], 60, "the check run to end"
        )
        proxy.up()  # within the backoff in which the runner still tries to record the failure
        assert run.conclusion == "failure"
        assert "state database failed in each of 2 attempts" in run.output["summary"]
        assert wait_for(lambda: _final(running, "f-1"), 30) is Outcome.FAILED
        assert "state database failed" in running.service.ledger.get("f-1").detail
        assert _reviews(running) == 0
    finally:
        running.stop()


def test_a_delivery_while_the_database_is_down_is_kept_then_reviewed_once(tmp_path, proxy, setup):
    fake, key, url, base, head = setup
    settings = service_settings(fake, key, tmp_path, state=url, reconcile_seconds=0.2)
    running = start_service(settings)
    try:
        with httpx.Client() as client:
            proxy.down()
            payload = pull_request_payload(REPO, 5, head, base)
            answers = [deliver(client, running.url, "pull_request", payload, "d-1") for _ in "ab"]
            for answer in answers:  # GitHub's redelivery while down is the same kept delivery
                assert answer.status_code == 202, answer.text
                assert answer.json()["outcome"] == "spooled"
                assert "when it is back" in answer.json()["reason"]
            assert client.get(f"{running.url}/healthz").status_code == 503
            time.sleep(0.6)  # reconciler rounds while the database is down keep it
            assert len(list(settings.spool_folder.glob("*.json"))) == 1
            assert fake.runs_for(head) == []
            proxy.up()
            outcome = wait_for(lambda: _final(running, "d-1"), 120, "the kept delivery's review")
            assert outcome is Outcome.REVIEWED
            again = deliver(client, running.url, "pull_request", payload, "d-1")
            assert again.status_code == 200 and again.json()["duplicate"], again.text
        assert list(settings.spool_folder.glob("*.json")) == []
        (run,) = fake.runs_for(head)
        assert run.conclusion == "success"
        assert _reviews(running) == 1
    finally:
        running.stop()
