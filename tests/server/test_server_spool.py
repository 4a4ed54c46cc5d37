"""The delivery spool on its own, with real SQLite ledgers: what a previous process kept while the
database was down is recorded and queued on start, once; a kept delivery the ledger already has
(GitHub redelivered it after the database came back) is dropped, not reviewed again. Services that
share the folder take each delivery once (a claim is a rename), take again what a service that died
had claimed, and leave what was kept for another state database."""

from __future__ import annotations

import os
import time

from aftershock.server.metrics import MemoryMetrics
from aftershock.server.queue.ledger import Outcome
from aftershock.server.queue.spool import DeliverySpool
from aftershock.server.service import WebhookService
from aftershock.server.settings import ServiceSettings
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


def _service(tmp_path, queue: _ListQueue, state: str = "state.db", spool: str = "jobs/spool"):
    settings = ServiceSettings(
        b"s", str(tmp_path / state), work_dir=tmp_path / "jobs", spool_dir=tmp_path / spool
    )
    store = open_store(settings.state)
    return WebhookService(settings, store, queue, None, MemoryMetrics(), embedded_queue=False)


def _payload(number: int):
    return pull_request_payload(REPO, number, f"{number:040x}", "b" * 40)


def _duplicates(service) -> int:
    counts = service.metrics.snapshot()
    return sum(v for k, v in counts.items() if 'outcome="duplicate"' in str(k))


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
    assert spool.waiting() == 0
    assert service.drain_spool() == 0 and len(queue.jobs) == 1
    service.store.close()


def test_services_sharing_the_spool_take_each_delivery_once(tmp_path):
    one, other = _ListQueue(), _ListQueue()
    first, second = _service(tmp_path, one), _service(tmp_path, other)
    for number in range(1, 6):
        first.spool.keep("pull_request", f"s-{number}", _payload(number))
    taken = next(first.spool.claim())  # the first service holds the oldest while it records it
    assert second.drain_spool() == 4  # the others, not the one claimed
    first.accept(taken.event, taken.delivery_id, taken.payload)
    first.spool.drop(taken)
    assert first.drain_spool() == 0 and first.spool.waiting() == 0
    assert sorted(j.delivery_id for j in other.jobs) == ["s-2", "s-3", "s-4", "s-5"]
    assert _duplicates(first) == _duplicates(second) == 0  # no delivery was recorded twice
    for service in (first, second):
        service.store.close()


def test_a_claim_left_by_a_service_that_died_is_taken_again(tmp_path):
    queue = _ListQueue()
    service = _service(tmp_path, queue)
    service.spool.keep("pull_request", "c-1", _payload(1))
    claimed = next(service.spool.claim())  # ... and the service died before recording it
    assert service.drain_spool() == 0  # a live claim is another's
    old = time.time() - 600
    renamed = claimed.path.with_name(f"{claimed.path.name.split('.')[0]}.{int(old * 1000)}.x.claim")
    os.rename(claimed.path, renamed)  # as it stands ten minutes on
    assert service.drain_spool() == 1
    assert [j.delivery_id for j in queue.jobs] == ["c-1"] and service.spool.waiting() == 0
    service.store.close()


def test_a_service_leaves_what_was_kept_for_another_state_database(tmp_path):
    """Two services on one host share the default folder (`aftershock-spool` in the temporary
    folder), each with its own database: neither records the other's deliveries."""
    mine, theirs = _ListQueue(), _ListQueue()
    service = _service(tmp_path, mine, "mine.db")
    other = _service(tmp_path, theirs, "theirs.db")
    service.spool.keep("pull_request", "m-1", _payload(1))
    assert other.drain_spool() == 0 and service.spool.waiting() == 1
    assert service.drain_spool() == 1
    assert [j.delivery_id for j in mine.jobs] == ["m-1"] and theirs.jobs == []
    assert other.ledger.get("m-1") is None
    for each in (service, other):
        each.store.close()
