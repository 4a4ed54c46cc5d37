"""The delivery spool on its own, with a real SQLite ledger: what a previous process kept while the
database was down is recorded and queued on start, once; a kept delivery the ledger already has
(GitHub redelivered it after the database came back) is dropped, not reviewed again."""

from __future__ import annotations

from aftershock.server.ledger import Outcome
from aftershock.server.metrics import MemoryMetrics
from aftershock.server.service import WebhookService
from aftershock.server.settings import ServiceSettings
from aftershock.server.spool import DeliverySpool
from aftershock.state.store import open_store
from server_harness import pull_request_payload

REPO = "acme/platform"


class _ListQueue:
    def __init__(self) -> None:
        self.jobs: list = []

    def submit(self, job) -> None:
        self.jobs.append(job)

    def depth(self) -> int:
        return len(self.jobs)

    def healthy(self) -> bool:
        return True

    def results(self, delivery_ids) -> dict:
        return {}  # none of its jobs ran

    def close(self) -> None:
        pass


def _service(tmp_path, queue: _ListQueue):
    settings = ServiceSettings(b"s", str(tmp_path / "state.db"), work_dir=tmp_path / "jobs")
    store = open_store(settings.state)
    return WebhookService(settings, store, queue, None, MemoryMetrics(), embedded_queue=False)


def test_kept_deliveries_are_recorded_and_queued_once_on_start(tmp_path):
    queue = _ListQueue()
    service = _service(tmp_path, queue)
    spool = DeliverySpool(service.settings.spool_folder)
    payload = pull_request_payload(REPO, 5, "a" * 40, "b" * 40)
    spool.keep("pull_request", "k-1", payload)
    spool.keep("pull_request", "k-1", payload)  # redelivered while down: still one
    spool.keep("pull_request", "k-2", pull_request_payload(REPO, 6, "c" * 40, "d" * 40))
    service.accept("pull_request", "k-2", pull_request_payload(REPO, 6, "c" * 40, "d" * 40))
    service.ledger.mark("k-2", Outcome.REVIEWED, "reviewed after GitHub's redelivery")

    assert service.recover() == 0  # nothing was left unfinished in the ledger itself
    assert [job.delivery_id for job in queue.jobs] == ["k-1"]
    assert service.ledger.get("k-1").outcome is Outcome.QUEUED
    assert service.ledger.get("k-2").outcome is Outcome.REVIEWED
    assert list(spool.pending()) == []
    assert service.drain_spool() == 0 and len(queue.jobs) == 1
    service.store.close()
