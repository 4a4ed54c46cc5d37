"""What a render batch carries through Redis, both ways, as JSON (no pickles); which renders of a
review stay in its own process; how a review's renders are cut into batches.

A batch names each request's chart folder by its absolute path, so the workers that render it must
see the reviewer's disk (the same host, or storage both mount). Values travel as the JSON Helm reads
(`render.helm.values.values_json`), a cluster snapshot once per batch by its digest, and the outcome
back with its manifests, parsed documents and lookups; the reviewer puts each outcome back on its
own request, so a spread review's outcomes equal a local one's. What travels is the repository's
content and its renders (a chart's Secrets, the cluster snapshot of the repository's objects);
renders from values a Secret supplied, and values that are not JSON, never leave the reviewer's
process (`stays_local`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aftershock.render.helm.values import values_json
from aftershock.render.interface import RenderOutcome, RenderRequest
from aftershock.render.limits import Deadline
from aftershock.render.lookup.cluster import (
    ClusterKey,
    ClusterSnapshot,
    snapshot_from_message,
    snapshot_message,
)

FORMAT = 1  # of a batch's payload and result; a worker refuses another
KEY_PREFIX = "aftershock:renders"
KEY_TTL_SECONDS = 3600  # results and the done list, should their review stop reading them


@dataclass(frozen=True)
class RenderSpec:
    """What renders a batch on a worker: the backend (`open_renderer`'s kind), its bounds, and the
    reviewer's renderer version, which the worker's must equal."""

    kind: str
    timeout_seconds: float
    max_memory_mib: int
    version: str = ""


@dataclass(frozen=True)
class BatchPlan:
    """Request indices rendered in the reviewer's own process, and those of each batch."""

    local: tuple[int, ...]
    batches: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Batch:
    """A batch as a worker reads it."""

    token: str
    index: int
    spec: RenderSpec
    deadline: Deadline | None
    requests: tuple[RenderRequest, ...]


def done_key(token: str) -> str:
    """The list a worker pushes a batch's index to once its result is written."""
    return f"{KEY_PREFIX}:{token}:done"


def result_key(token: str, index: int) -> str:
    return f"{KEY_PREFIX}:{token}:{index}"


def job_id(queue_name: str, token: str, index: int) -> str:
    return f"{queue_name}-{token}-{index}"


def stays_local(request: RenderRequest) -> bool:
    """True for a render that must not leave the reviewer's process: values a Secret supplied, or
    values Helm could not be given (the local render gives the error)."""
    if request.private:
        return True
    try:
        values_json(request.values)
    except (TypeError, ValueError):
        return True
    return False


def plan_batches(requests: Sequence[RenderRequest], batch_count: int) -> BatchPlan:
    """About `batch_count` batches of similar size, in request order, the renders of one chart folder
    kept together; the renders that stay local apart."""
    local = tuple(i for i, r in enumerate(requests) if stays_local(r))
    kept = set(local)
    groups: dict[str, list[int]] = {}
    for i, request in enumerate(requests):
        if i not in kept:
            groups.setdefault(request.chart_dir, []).append(i)
    spread = len(requests) - len(local)
    size = -(-spread // max(batch_count, 1)) if spread else 0
    batches: list[tuple[int, ...]] = []
    current: list[int] = []
    for indices in groups.values():
        current.extend(indices)
        if len(current) >= size:
            batches.append(tuple(current))
            current = []
    if current:
        batches.append(tuple(current))
    return BatchPlan(local, tuple(batches))


def batch_payload(
    token: str,
    index: int,
    spec: RenderSpec,
    requests: Sequence[RenderRequest],
    deadline: Deadline | None,
) -> dict[str, Any]:
    """The JSON of one batch (none of its requests `stays_local`)."""
    clusters: dict[str, Any] = {}
    for request in requests:
        if request.cluster is not None and request.cluster.digest not in clusters:
            clusters[request.cluster.digest] = snapshot_message(request.cluster)
    return {
        "format": FORMAT,
        "token": token,
        "index": index,
        "spec": {
            "kind": spec.kind,
            "timeout_seconds": spec.timeout_seconds,
            "max_memory_mib": spec.max_memory_mib,
            "version": spec.version,
        },
        "deadline": _deadline_json(deadline),
        "clusters": clusters,
        "requests": [_request_json(r) for r in requests],
    }


def _deadline_json(deadline: Deadline | None) -> dict[str, float] | None:
    """The deadline as the seconds left when sent (monotonic clocks differ between hosts)."""
    if deadline is None:
        return None
    return {"remaining": deadline.remaining(), "seconds": deadline.seconds, "sent": time.time()}


def _request_json(request: RenderRequest) -> dict[str, Any]:
    return {
        "chart_dir": request.chart_dir,
        "values": values_json(request.values),
        "release_name": request.release_name,
        "namespace": request.namespace,
        "kube_version": request.kube_version,
        "api_versions": list(request.api_versions),
        "revision": request.revision,
        "is_upgrade": request.is_upgrade,
        "cluster": request.cluster.digest if request.cluster is not None else None,
    }


def batch_from_payload(data: Mapping[str, Any]) -> Batch:
    """A batch read back; ValueError when it is of another format or malformed."""
    if data.get("format") != FORMAT:
        raise ValueError(f"render batch format {data.get('format')!r}, this worker reads {FORMAT}")
    try:
        spec = RenderSpec(**data["spec"])
        clusters = {d: snapshot_from_message(m) for d, m in data["clusters"].items()}
        requests = tuple(_request_from_json(r, clusters) for r in data["requests"])
        return Batch(
            str(data["token"]),
            int(data["index"]),
            spec,
            _deadline_from_json(data["deadline"]),
            requests,
        )
    except (KeyError, TypeError) as error:
        raise ValueError(f"malformed render batch: {error!r}") from None


def _deadline_from_json(data: Mapping[str, float] | None) -> Deadline | None:
    if data is None:
        return None
    remaining = float(data["remaining"]) - max(time.time() - float(data["sent"]), 0.0)
    return Deadline(time.monotonic() + remaining, float(data["seconds"]))


def _request_from_json(
    data: Mapping[str, Any], clusters: Mapping[str, ClusterSnapshot]
) -> RenderRequest:
    return RenderRequest(
        chart_dir=str(data["chart_dir"]),
        values=json.loads(data["values"]),
        release_name=str(data["release_name"]),
        namespace=str(data["namespace"]),
        kube_version=data["kube_version"],
        api_versions=tuple(data["api_versions"]),
        revision=int(data["revision"]),
        is_upgrade=bool(data["is_upgrade"]),
        cluster=clusters[data["cluster"]] if data["cluster"] is not None else None,
    )


def outcomes_json(outcomes: Sequence[RenderOutcome]) -> str:
    """A batch's outcomes, in its request order, as the text its result key holds."""
    return json.dumps(
        {"format": FORMAT, "outcomes": [_outcome_json(o) for o in outcomes]},
        separators=(",", ":"),
    )


def _outcome_json(outcome: RenderOutcome) -> dict[str, Any]:
    documents = outcome.documents
    return {
        "manifests": dict(outcome.manifests),
        "error": outcome.error,
        "seconds": outcome.seconds,
        "documents": None if documents is None else [list(d) for d in documents],
        "lookups": [list(key) for key in outcome.lookups],
    }


def outcomes_from_json(text: str | bytes, requests: Sequence[RenderRequest]) -> list[RenderOutcome]:
    """The outcomes a worker wrote, each on the reviewer's own request; ValueError when they do not
    match the batch."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("a render result of another format")
    items = data["outcomes"]
    if len(items) != len(requests):
        raise ValueError(f"{len(items)} outcomes for {len(requests)} renders")
    return [_outcome_from_json(item, request) for item, request in zip(items, requests)]


def _outcome_from_json(data: Mapping[str, Any], request: RenderRequest) -> RenderOutcome:
    documents = data["documents"]
    return RenderOutcome(
        request,
        manifests=data["manifests"],
        error=data["error"],
        seconds=float(data["seconds"]),
        documents=None if documents is None else tuple((t, i, b) for t, i, b in documents),
        lookups=tuple(ClusterKey(*key) for key in data["lookups"]),
    )
