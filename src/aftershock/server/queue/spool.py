"""The delivery spool: verified deliveries kept on disk while the state database is down.

A delivery that cannot be recorded in the ledger (the database refuses or drops the connection) is
written here, one file per delivery GUID (`<hash>.json`, written whole and synced, then renamed in),
and answered 202; the service records and dispatches what the spool holds once the database answers
again (`WebhookService.drain_spool`), on start and from the reconciler. A GUID sent twice while down
is one file.

Several services may share the folder (replicas on one host, or a folder on shared storage). A
drainer first claims a file by renaming it to `<hash>.<ms>.<token>.claim`: a rename succeeds for one
of them only, so one service records it; the claim is removed once the ledger has the delivery (the
ledger deduplicates GUIDs, so a claim finished twice records it once) and renamed back when the
database refuses it. A claim older than `claim_timeout_seconds` was left by a service that died
before finishing it and is taken again. Each file names the state database it is for (`owner`, a
hash of its location without a password): a service whose database is another one leaves it, so
two services on one host that share the default folder never take each other's deliveries.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from aftershock.safety.private_files import private_folder

MAX_SPOOLED = 10_000  # beyond this many waiting deliveries, a new one is refused (503), not kept
CLAIM_TIMEOUT_SECONDS = 300.0  # a claim this old belongs to a service that died: taken again


@dataclass(frozen=True)
class SpooledDelivery:
    path: Path  # the claim: this service's until it is dropped or released
    event: str
    delivery_id: str
    payload: object
    owner: str = ""  # the state database it is for; empty from an older service (anyone's)


class SpoolFull(Exception):
    pass


def spool_owner(state_where: str) -> str:
    """The name a spool file gives its state database: a hash of its path or password-less URL."""
    return hashlib.sha256(state_where.encode("utf-8")).hexdigest()[:16]


class DeliverySpool:
    def __init__(
        self,
        folder: Path,
        owner: str = "",
        limit: int = MAX_SPOOLED,
        claim_timeout_seconds: float = CLAIM_TIMEOUT_SECONDS,
    ) -> None:
        self.folder = folder
        self._owner = owner
        self._limit = limit
        self._claim_timeout = claim_timeout_seconds
        self._token = uuid.uuid4().hex[:12]

    def keep(self, event: str, delivery_id: str, payload: object) -> Path:
        """Write the delivery (atomically, replacing one with the same GUID); its file. SpoolFull, OSError."""
        private_folder(self.folder)
        path = self.folder / f"{_name(delivery_id)}.json"
        if not path.exists() and self.waiting() >= self._limit:
            raise SpoolFull(f"{self._limit} deliveries already wait in {self.folder}")
        data = {"event": event, "delivery": delivery_id, "payload": payload, "owner": self._owner}
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".incoming-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(json.dumps(data))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        _sync_folder(self.folder)  # the rename itself survives a crash too
        return path

    def claim(self) -> Iterator[SpooledDelivery]:
        """The deliveries waiting for this service, oldest first, each claimed as it is reached: the
        caller drops it once recorded or releases it. Others' files, others' live claims and
        unreadable files (left for a person) are passed over."""
        for path in self._candidates():
            waiting = _read(path)
            if waiting is None or not self._ours(waiting):
                continue  # gone meanwhile, unreadable (left for a person), or another's
            claim = self.folder / f"{path.name.split('.')[0]}.{_now_ms()}.{self._token}.claim"
            try:
                os.rename(path, claim)
            except OSError:
                continue  # another service claimed it first
            delivery = _read(claim)
            if delivery is None:
                self._put_back(claim)
                continue
            yield delivery

    def drop(self, delivery: SpooledDelivery) -> None:
        """The delivery is in the ledger: its claim goes."""
        delivery.path.unlink(missing_ok=True)

    def release(self, delivery: SpooledDelivery) -> None:
        """The ledger refused the delivery: it waits again (a redelivery kept meanwhile is the same)."""
        self._put_back(delivery.path)

    def waiting(self) -> int:
        """How many deliveries wait here, claimed ones included."""
        try:
            return sum(1 for p in self.folder.iterdir() if p.suffix in (".json", ".claim"))
        except OSError:
            return 0

    def _candidates(self) -> list[Path]:
        try:
            waiting = list(self.folder.glob("*.json"))
            stale = [p for p in self.folder.glob("*.claim") if self._stale(p)]
        except OSError:
            return []
        return sorted(waiting + stale, key=_age)

    def _stale(self, claim: Path) -> bool:
        parts = claim.name.split(".")
        claimed_at = int(parts[1]) if len(parts) == 4 and parts[1].isdigit() else 0
        return _now_ms() - claimed_at > self._claim_timeout * 1000

    def _ours(self, delivery: SpooledDelivery) -> bool:
        return not delivery.owner or not self._owner or delivery.owner == self._owner

    def _put_back(self, claim: Path) -> None:
        try:
            os.replace(claim, self.folder / f"{claim.name.split('.')[0]}.json")
        except FileNotFoundError:
            pass  # taken again as stale meanwhile: the other service has it


def _name(delivery_id: str) -> str:
    return hashlib.sha256(delivery_id.encode()).hexdigest()[:32]


def _read(path: Path) -> SpooledDelivery | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        owner = str(data.get("owner") or "")
        return SpooledDelivery(path, data["event"], data["delivery"], data["payload"], owner)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _sync_folder(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass  # not every file system syncs a folder
    finally:
        os.close(handle)
