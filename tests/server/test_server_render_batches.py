"""What a render batch carries through Redis (`server.queue.render_batches`): requests and outcomes
read back equal to what was sent, batches that keep a chart folder's renders together, and the
renders that never leave the reviewer's process."""

from __future__ import annotations

import json

from aftershock.render.interface import RenderOutcome, RenderRequest
from aftershock.render.limits import Deadline
from aftershock.render.lookup.cluster import ClusterKey, snapshot_from_objects
from aftershock.server.queue.render_batches import (
    RenderSpec,
    batch_from_payload,
    batch_payload,
    outcomes_from_json,
    outcomes_json,
    plan_batches,
)

SPEC = RenderSpec("sdk", 30.0, 512, "helm-python-sdk 0.2.2 (Helm v4.2.3)")
CLUSTER = snapshot_from_objects(
    [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"}, "data": {"a": "1"}}]
)


def test_requests_read_back_as_they_were_sent_through_json():
    requests = [
        RenderRequest(
            "/work/head/charts/api",
            values={"replicas": 3, "nested": {"list": [1, 2.5, None, True]}, "text": "é"},
            release_name="api",
            namespace="apps",
            kube_version="v1.30.0",
            api_versions=("monitoring.coreos.com/v1",),
            revision=2,
            is_upgrade=True,
            cluster=CLUSTER,
        ),
        RenderRequest("/work/head/charts/web", cluster=CLUSTER),
    ]
    payload = json.loads(json.dumps(batch_payload("t0", 3, SPEC, requests, Deadline.after(90.0))))
    batch = batch_from_payload(payload)
    assert (batch.token, batch.index, batch.spec) == ("t0", 3, SPEC)
    assert list(batch.requests) == requests
    assert [dict(r.values) for r in batch.requests] == [dict(r.values) for r in requests]
    assert batch.requests[0].cluster is not None and batch.requests[0].cluster.digest == (
        CLUSTER.digest
    )
    assert len(payload["clusters"]) == 1  # one snapshot per batch, named by each request
    assert batch.deadline is not None and 0 < batch.deadline.remaining() <= 90.0
    assert batch.deadline.reason == Deadline.after(90.0).reason


def test_outcomes_come_back_on_the_reviewers_own_requests():
    requests = [RenderRequest("/a", values={"x": 1}), RenderRequest("/b")]
    sent = [
        RenderOutcome(
            RenderRequest("/a", values={"x": 1}),
            manifests={"a/templates/cm.yaml": "kind: ConfigMap\n"},
            seconds=0.25,
            documents=(("a/templates/cm.yaml", 0, {"kind": "ConfigMap", "n": 1.5}),),
            lookups=(ClusterKey("v1", "Secret", "default", "db"),),
        ),
        RenderOutcome(RenderRequest("/b"), error="template: b/templates/x.yaml:1: boom"),
    ]
    back = outcomes_from_json(outcomes_json(sent), requests)
    assert back == sent
    assert [o.request for o in back] == requests and back[0].request is requests[0]
    assert back[0].documents == sent[0].documents
    assert back[0].lookups == sent[0].lookups


def test_batches_keep_a_charts_renders_together_and_secret_values_at_home():
    requests = [
        RenderRequest("/base/a"),
        RenderRequest("/base/a", values={"toggle": True}),
        RenderRequest("/base/b"),
        RenderRequest("/head/a", values={"password": "from a Secret"}, private=True),
        RenderRequest("/head/a"),
        RenderRequest("/head/b"),
        RenderRequest("/head/c", values={"nan": float("nan")}),
    ]
    plan = plan_batches(requests, 3)
    assert plan.local == (3, 6)  # Secret-supplied values; values Helm cannot take (JSON has no NaN)
    assert plan.batches == ((0, 1), (2, 4), (5,))
    spread = sorted(i for batch in plan.batches for i in batch)
    assert sorted(spread + list(plan.local)) == list(range(len(requests)))
