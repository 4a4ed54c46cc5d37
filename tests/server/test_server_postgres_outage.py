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

from aftershock.model.state_records import ReviewTarget
from aftershock.server.ledger import Outcome
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


def _logged(caplog, text: str) -> bool:
    return any(text in record.getMessage() for record in caplog.records)


def test_a_review_that_loses_the_database_midway_is_tried_again_and_completes(
    tmp_path, proxy, setup, caplog
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
        wait_for(lambda: _logged(caplog, "(attempt 1 of 5)"), 60, "the first attempt to fail")
        proxy.up()
        outcome = wait_for(lambda: _final(running, "m-1"), 120, "the review to finish")
        assert outcome is Outcome.REVIEWED, running.service.ledger.get("m-1").detail
        (run,) = fake.runs_for(head)
        assert run.conclusion == "success"
        assert _reviews(running) == 1
    finally:
        running.stop()


def test_a_review_whose_lock_session_is_reset_midway_runs_again_and_completes_once(
    tmp_path, proxy, setup, caplog
):
    """The issue's case: the review lock's session dies mid-review (the other queries reconnect). The
    job ended failed after publishing a passed check run; now the lost lock is noticed before the
    review is recorded, and the review runs again under a new lock: recorded and published once."""
    fake, key, url, base, head = setup
    running = start_service(service_settings(fake, key, tmp_path, state=url))
    try:
        fake.state.slow_answers = [1.0]
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "r-1",
            )
        wait_for(lambda: [r for r in fake.runs_for(head) if "in_progress" in r.statuses], 60)
        proxy.reset()
        outcome = wait_for(lambda: _final(running, "r-1"), 120, "the review to finish")
        assert outcome is Outcome.REVIEWED, running.service.ledger.get("r-1").detail
        (run,) = fake.runs_for(head)
        assert run.conclusion == "success"
        assert _reviews(running) == 1
        assert _logged(caplog, "was lost with its database session (")
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


def _redis_url() -> str | None:
    url = os.environ.get("AFTERSHOCK_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        import redis

        return url if redis.Redis.from_url(url, socket_connect_timeout=1).ping() else None
    except Exception:
        return None


def test_an_rq_worker_tries_a_job_again_when_the_database_drops_midway(tmp_path, proxy, setup):
    fake, key, url, base, head = setup
    redis_url = _redis_url()
    if redis_url is None:
        pytest.skip("no redis-server answering at 127.0.0.1:6379")
    name = f"aftershock-pg-outage-{uuid.uuid4().hex[:8]}"
    settings = service_settings(fake, key, tmp_path, state=url)
    running = start_service(settings, redis_url, name)
    env = {
        **os.environ,
        "AFTERSHOCK_APP_ID": "42",
        "AFTERSHOCK_PRIVATE_KEY": key.private_pem,
        "AFTERSHOCK_GITHUB_API_URL": fake.url,
        "AFTERSHOCK_STATE": url,
        "AFTERSHOCK_WORK_DIR": str(settings.work_dir),
        "AFTERSHOCK_STATE_BACKOFF_SECONDS": "0.5",
    }
    code = "from aftershock.cli.worker import worker_command; worker_command()"
    command = [sys.executable, "-c", code, "--queue", redis_url, "--queue-name", name, "--burst"]
    try:
        fake.state.slow_answers = [1.5]
        with httpx.Client() as client:
            deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "w-1",
            )
        wait_for(lambda: _final(running, "w-1") or running.service.queue.depth() == 1, 30)
        worker = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(worker.stderr), daemon=True)
        reader.start()
        wait_for(lambda: [r for r in fake.runs_for(head) if "in_progress" in r.statuses], 120)
        proxy.down()
        wait_for(lambda: any("(attempt 1 of 5)" in line for line in lines), 60, "a failed try")
        time.sleep(2.0)  # longer than RQ's own immediate retries would last
        proxy.up()
        worker.wait(180)
        reader.join(10)
        assert _final(running, "w-1") is Outcome.REVIEWED, "".join(lines)[-2000:]
        (run,) = fake.runs_for(head)
        assert run.conclusion == "success"
        assert _reviews(running) == 1
    finally:
        running.stop()
        import redis

        connection = redis.Redis.from_url(redis_url)
        for pattern in (f"rq:*{name}*", f"aftershock:metrics:{name}"):
            for found in connection.scan_iter(pattern):
                connection.delete(found)
