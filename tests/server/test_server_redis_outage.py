"""A Redis outage, with a redis-server of the test's own on a free loopback port (the shared one is never
touched): a delivery that arrives while it is down answers 503 and is recorded, and the reconciler
queues it once Redis is back, without a restart (issue 12, item 7: HTTP 500, then `accepted` forever)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from aftershock.server.queue.ledger import Outcome
from charts import app_chart
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, pull_request_payload, service_settings, start_service, wait_for

REPO = "acme/platform"
pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="no redis-server binary on PATH"
)


class OwnRedis:
    """A redis-server process on one port, stopped and started again by the test."""

    def __init__(self, folder: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.folder = folder
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        connection = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        wait_for(lambda: _answers(connection), 20, "redis-server to start")
        connection.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(20)


def _answers(connection) -> bool:
    try:
        return bool(connection.ping())
    except Exception:
        return False


@pytest.fixture
def own_redis(tmp_path):
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def test_a_delivery_during_an_outage_answers_503_and_is_queued_when_redis_returns(
    tmp_path, own_redis
):
    from rq.job import Job as RqJob

    key = AppKey.generate()
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(
        repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"}, "three"
    )
    fake.serve_repository(REPO, repo)
    running = start_service(
        service_settings(fake, key, tmp_path, reconcile_seconds=0.2), own_redis.url, "outage"
    )
    ledger = running.service.ledger
    try:
        with httpx.Client() as client:
            own_redis.stop()
            answer = deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "o-1",
            )
            assert answer.status_code == 503, answer.text
            assert "recorded" in answer.json()["error"]
            assert client.get(f"{running.url}/healthz").status_code == 503
            time.sleep(0.6)  # reconciler rounds while Redis is down leave it accepted
            assert ledger.get("o-1").outcome is Outcome.ACCEPTED
            own_redis.start()
            import redis

            connection = redis.Redis.from_url(own_redis.url)
            wait_for(
                lambda: RqJob.exists("aftershock-o-1", connection=connection),
                30,
                "the reconciler to queue it",
            )
            assert ledger.get("o-1").outcome is Outcome.QUEUED
            assert running.service.queue.depth() == 1
            metrics = client.get(f"{running.url}/metrics").text
            assert (
                'aftershock_deliveries_total{event="pull_request",outcome="accepted"}'
                not in metrics
            )  # dropped while down
            again = deliver(
                client,
                running.url,
                "pull_request",
                pull_request_payload(REPO, 5, head, base),
                "o-1",
            )
            assert (
                again.status_code == 200 and again.json()["duplicate"]
            )  # GitHub's redelivery changes nothing
    finally:
        running.stop()
        fake.stop()
    (run,) = fake.runs_for(head)
    assert run.statuses == ["queued"]  # announced once, by the reconciler's dispatch


class _CountingQueue:
    """A queue that keeps what it was given (the service's dispatch is what is tested)."""

    def __init__(self) -> None:
        self.jobs: list = []

    def submit(self, job) -> None:
        time.sleep(0.01)  # a real submit takes a moment: let the other dispatchers catch up
        self.jobs.append(job)

    def depth(self) -> int:
        return len(self.jobs)

    def healthy(self) -> bool:
        return True

    def results(self, delivery_ids) -> dict:
        return {}  # none of its jobs ran

    def close(self) -> None:
        pass


def test_a_delivery_dispatched_by_the_request_and_the_reconciler_at_once_is_queued_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from aftershock.server.metrics import MemoryMetrics
    from aftershock.server.service import WebhookService
    from aftershock.server.settings import ServiceSettings
    from aftershock.state.store import open_store

    store = open_store(str(tmp_path / "state.db"))
    queue = _CountingQueue()
    service = WebhookService(
        ServiceSettings(b"s", str(tmp_path / "state.db")),
        store,
        queue,
        None,
        MemoryMetrics(),
        embedded_queue=False,
    )
    accepted = service.accept(
        "pull_request", "c-1", pull_request_payload(REPO, 5, "a" * 40, "b" * 40)
    )
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: service.dispatch(accepted.job), range(4)))
    assert service.reconcile(grace_seconds=0) == 0  # nothing is left accepted
    assert len(queue.jobs) == 1 and service.ledger.get("c-1").outcome is Outcome.QUEUED
    store.close()
