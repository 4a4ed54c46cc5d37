"""The delivery spool: verified deliveries kept on disk while the state database is down.

A delivery that cannot be recorded in the ledger (the database refuses or drops the connection) is
written here, one file per delivery GUID, and answered 202; the service records and dispatches
what the spool holds once the database answers again (`WebhookService.drain_spool`), on start and
from the reconciler. A GUID sent twice while down is one file; a file is removed only after its
delivery is in the ledger, which deduplicates it, so a delivery is neither lost nor reviewed twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from aftershock.safety.private_files import private_folder

MAX_SPOOLED = 10_000  # beyond this many waiting deliveries, a new one is refused (503), not kept


@dataclass(frozen=True)
class SpooledDelivery:
    path: Path
    event: str
    delivery_id: str
    payload: object


class SpoolFull(Exception):
    pass


class DeliverySpool:
    def __init__(self, folder: Path, limit: int = MAX_SPOOLED) -> None:
        self._folder = folder
        self._limit = limit

    def keep(self, event: str, delivery_id: str, payload: object) -> None:
        """Write the delivery (atomically, replacing one with the same GUID); SpoolFull, OSError."""
        private_folder(self._folder)
        path = self._folder / f"{hashlib.sha256(delivery_id.encode()).hexdigest()[:32]}.json"
        if not path.exists() and self._count() >= self._limit:
            raise SpoolFull(f"{self._limit} deliveries already wait in {self._folder}")
        data = json.dumps({"event": event, "delivery": delivery_id, "payload": payload})
        handle, temporary = tempfile.mkstemp(dir=self._folder, prefix=".incoming-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def pending(self) -> Iterator[SpooledDelivery]:
        """The deliveries waiting, oldest first; an unreadable file is skipped (and left for a person)."""
        try:
            paths = sorted(self._folder.glob("*.json"), key=_age)
        except OSError:
            return
        for path in paths:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                yield SpooledDelivery(path, data["event"], data["delivery"], data["payload"])
            except (OSError, ValueError, KeyError, TypeError):
                continue

    def drop(self, delivery: SpooledDelivery) -> None:
        delivery.path.unlink(missing_ok=True)

    def _count(self) -> int:
        try:
            return sum(1 for _ in self._folder.glob("*.json"))
        except OSError:
            return 0


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
