"""Scale-out through RQ on the real redis-server at 127.0.0.1:6379: `aftershock worker` processes run
the jobs `serve --queue` queued; a newer push supersedes a queued review of an older head; a worker
killed mid-job has its job finished by another worker; metrics of workers show on the service."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import httpx
import pytest

from aftershock.server.queue.ledger import Outcome
from charts import app_chart
from gitrepo import commit, make_repo
from redis_support import REDIS_URL, needs_redis, stop_workers
from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, pull_request_payload, service_settings, start_service, wait_for

REPO = "acme/platform"

pytestmark = needs_redis


@pytest.fixture
def setup(tmp_path):
    import redis

    key = AppKey.generate()
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    fake.serve_repository(REPO, repo)
    name = f"aftershock-test-{uuid.uuid4().hex[:8]}"
    settings = service_settings(fake, key, tmp_path)
    running = start_service(settings, REDIS_URL, name)
    workers: list[subprocess.Popen] = []

    def start_worker(*extra: str) -> subprocess.Popen:
        env = {
            **os.environ,
            "AFTERSHOCK_APP_ID": "42",
            "AFTERSHOCK_PRIVATE_KEY": key.private_pem,
            "AFTERSHOCK_GITHUB_API_URL": fake.url,
            "AFTERSHOCK_STATE": settings.state,
            "AFTERSHOCK_WORK_DIR": str(settings.work_dir),
        }
        code = "from aftershock.cli.worker import worker_command; worker_command()"
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                code,
                "--queue",
                REDIS_URL,
                "--queue-name",
                name,
                "--heartbeat-seconds",
                "1",
                "--maintenance-seconds",
                "1",
                *extra,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        workers.append(process)
        return process

    yield fake, repo, base, running, start_worker, name
    stop_workers(workers)
    running.stop()
    fake.stop()
    connection = redis.Redis.from_url(REDIS_URL)
    for pattern in (f"rq:*{name}*", f"aftershock:metrics:{name}"):
        for found in connection.scan_iter(pattern):
            connection.delete(found)


def _outcome(running, delivery):
    row = running.service.ledger.get(delivery)
    return row.outcome if row is not None else None


def test_workers_run_queued_jobs_and_a_newer_push_supersedes(setup):
    fake, repo, base, running, start_worker, name = setup
    r1, r2, r3 = (
        f"{name}-r-{n}" for n in (1, 2, 3)
    )  # RQ job ids come from delivery ids: unique per run
    head1 = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "fix: three",
    )
    head2 = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 4\nimage: nginx:1.27.0\nmode: fast\n"},
        "fix: four",
    )
    fake.serve_repository(REPO, repo)
    with httpx.Client() as client:
        deliver(client, running.url, "pull_request", pull_request_payload(REPO, 3, head1, base), r1)
        deliver(
            client,
            running.url,
            "pull_request",
            pull_request_payload(REPO, 3, head2, base, "synchronize"),
            r2,
        )
        deliver(client, running.url, "pull_request", pull_request_payload(REPO, 4, head1, base), r3)
        wait_for(
            lambda: all(_outcome(running, d) is Outcome.QUEUED for d in (r1, r2, r3)),
            30,
            "queued jobs",
        )
        # the ledger says queued just before the job reaches Redis (a worker must never find it unrecorded)
        wait_for(lambda: running.service.queue.depth() == 3, 30, "three jobs on the queue")
        worker = start_worker("--burst")
        assert worker.wait(180) == 0, worker.stderr.read().decode()[-2000:]
        metrics = client.get(f"{running.url}/metrics").text
    assert [_outcome(running, d) for d in (r1, r2, r3)] == [
        Outcome.SUPERSEDED,
        Outcome.REVIEWED,
        Outcome.REVIEWED,
    ]
    (older,) = [
        r for r in fake.runs_for(head1) if r.repository == REPO and r.conclusion == "skipped"
    ]
    assert older.statuses == ["queued", "completed"]
    assert len(fake.comments_on(REPO, 3)) == 1 and head2[:7] in fake.comments_on(REPO, 3)[0]["body"]
    assert 'aftershock_reviews_total{status="complete"} 2' in metrics
    assert 'aftershock_jobs_total{outcome="superseded"} 1' in metrics
    assert "aftershock_queue_depth 0" in metrics


def test_a_killed_workers_job_is_finished_by_another_worker(setup):
    fake, repo, base, running, start_worker, name = setup
    delivery = f"{name}-k-1"
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 5\nimage: nginx:1.27.0\nmode: fast\n"},
        "fix: five",
    )
    fake.serve_repository(REPO, repo)
    fake.state.slow_answers = [30.0]  # the move to in_progress is applied, but answered late
    doomed = start_worker()
    with httpx.Client() as client:
        deliver(
            client, running.url, "pull_request", pull_request_payload(REPO, 6, head, base), delivery
        )
    wait_for(
        lambda: fake.runs_for(head) and fake.runs_for(head)[0].statuses[-1] == "in_progress",
        60,
        "the job to start",
    )
    assert _outcome(running, delivery) is Outcome.RUNNING
    doomed.kill()
    doomed.wait(10)
    start_worker()
    assert (
        wait_for(
            lambda: _outcome(running, delivery) if _outcome(running, delivery).final else None,
            120,
            "another worker to finish the job",
        )
        is Outcome.REVIEWED
    )
    (run,) = fake.runs_for(head)
    assert run.statuses == ["queued", "in_progress", "completed"] and run.conclusion in (
        "success",
        "neutral",
        "failure",
    )
    assert len(fake.comments_on(REPO, 6)) == 1


def test_a_job_that_fails_in_the_queue_ends_its_delivery_failed(tmp_path):
    """A job RQ gave up on (it raised each time) no longer leaves its delivery queued for ever."""
    import redis
    from rq import Queue, SimpleWorker
    from rq.serializers import JSONSerializer

    from aftershock.server.metrics import MemoryMetrics
    from aftershock.server.queue.rq_jobs import RedisJobQueue
    from aftershock.server.service import WebhookService
    from aftershock.server.settings import ServiceSettings
    from aftershock.state.store import open_store

    connection = redis.Redis.from_url(REDIS_URL)
    name = f"aftershock-test-{uuid.uuid4().hex[:8]}"
    store = open_store(str(tmp_path / "state.db"))
    service = WebhookService(
        ServiceSettings(b"s", str(tmp_path / "state.db")),
        store,
        RedisJobQueue(connection, name),
        None,
        MemoryMetrics(),
        embedded_queue=False,
    )
    try:
        payload = pull_request_payload(REPO, 5, "a" * 40, "b" * 40)
        service.dispatch(service.accept("pull_request", "q-1", payload).job)
        assert service.settle() == 0  # still waiting for a worker: nothing to write
        # a worker without a runner: the job raises, RQ tries it again, then fails it
        queue = Queue(name, connection=connection, serializer=JSONSerializer)
        SimpleWorker([queue], connection=connection, serializer=JSONSerializer).work(burst=True)
        assert service.settle() == 1 and service.settle() == 0
        row = service.ledger.get("q-1")
        assert row.outcome is Outcome.FAILED and "no job runner in this process" in row.detail
    finally:
        store.close()
        for found in connection.scan_iter(f"rq:*{name}*"):
            connection.delete(found)
