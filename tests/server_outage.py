"""The service on a PostgreSQL that goes down on demand, for the outage tests: the `outage` fixture gives a
throwaway database reached through a `PgProxy`, a FakeGitHub serving one repository with a base and a
head commit of a chart, and services started on them (stopped, the proxy up again, at teardown).

    def test_x(outage):
        running = outage.start(state_backoff_seconds=0.5)
        outage.deliver(running, "d-1")                      # a pull_request of #5, base..head
        assert outage.final(running, "d-1") is Outcome.REVIEWED
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from aftershock.model.state_records import ReviewTarget
from aftershock.server.queue.ledger import Outcome
from charts import app_chart
from gitrepo import commit, make_repo
from pg_outage import PgProxy, throwaway_database
from server_fakes import AppKey, FakeGitHub
from server_harness import (
    RunningService,
    deliver,
    pull_request_payload,
    service_settings,
    start_service,
    wait_for,
)

REPO = "acme/platform"
KEY = "127.0.0.1/acme/platform"  # the fake's host names the repository in the state store
PULL = 5


@dataclass
class Outage:
    proxy: PgProxy
    fake: FakeGitHub
    key: AppKey
    url: str  # the state database, through the proxy
    base: str
    head: str
    tmp: Path
    services: list[RunningService] = field(default_factory=list)

    def settings(self, **changes: Any) -> Any:
        return service_settings(self.fake, self.key, self.tmp, state=self.url, **changes)

    def start(
        self, settings: Any = None, queue_url: str | None = None, queue_name: str = "aftershock"
    ) -> RunningService:
        running = start_service(settings or self.settings(), queue_url, queue_name)
        self.services.append(running)
        return running

    def payload(self) -> dict[str, Any]:
        return pull_request_payload(REPO, PULL, self.head, self.base)

    def deliver(
        self,
        running: RunningService,
        delivery: str,
        event: str = "pull_request",
        payload: Any = None,
    ) -> httpx.Response:
        with httpx.Client() as client:
            return deliver(client, running.url, event, payload or self.payload(), delivery)

    def final(self, running: RunningService, delivery: str) -> Outcome | None:
        """The delivery's final outcome; None while it has none or the database is down."""
        try:
            row = running.service.ledger.get(delivery)
        except Exception:
            return None
        return row.outcome if row is not None and row.outcome.final else None

    def wait_final(self, running: RunningService, delivery: str, timeout: float = 120) -> Outcome:
        return wait_for(lambda: self.final(running, delivery), timeout, f"{delivery} to finish")

    def reviews(self, running: RunningService) -> int:
        return len(running.service.store.history(KEY, ReviewTarget.pull_request(PULL)))

    def assert_published_once(self, running: RunningService) -> None:
        """One check run on the head, passed, and one review recorded: nothing done twice."""
        (run,) = self.fake.runs_for(self.head)
        assert run.conclusion == "success"
        assert self.reviews(running) == 1

    def wait_in_progress(self, timeout: float = 60) -> None:
        wait_for(
            lambda: [r for r in self.fake.runs_for(self.head) if "in_progress" in r.statuses],
            timeout,
            "a check run in progress",
        )


@pytest.fixture
def outage(tmp_path):
    with throwaway_database() as name:
        proxy = PgProxy()
        proxy.up()
        key = AppKey.generate()
        fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
        repo = make_repo(tmp_path / "work")
        base = commit(repo, app_chart("charts/app", "app"), "base")
        head = commit(repo, {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\n"}, "3")
        fake.serve_repository(REPO, repo)
        url = f"postgresql+psycopg://postgres@127.0.0.1:{proxy.port}/{name}"
        situation = Outage(proxy, fake, key, url, base, head, tmp_path)
        try:
            yield situation
        finally:
            if not proxy.is_up:
                proxy.up()  # so jobs waiting on the database can end
            for running in situation.services:
                running.stop()
            proxy.down()
            fake.stop()
