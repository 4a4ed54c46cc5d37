"""The real webhook payloads of ../shared/corpus/github-webhooks, re-signed, drive the service: every one
gets the outcome its event and action call for, and the review ones (pointed at a real repository
served by the fake GitHub) are reviewed."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import httpx
import pytest

from aftershock.server.github.events import IntakeKind, RoutingOptions, route
from charts import app_chart
from conftest import CORPUS
from gitrepo import commit, make_repo
from server_fakes import AppKey, FakeGitHub
from server_harness import deliver, service_settings, start_service, wait_for

WEBHOOKS = CORPUS / "github-webhooks"
pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not WEBHOOKS.is_dir(), reason=f"webhook corpus absent: {WEBHOOKS}"),
]
REVIEWED = {"opened", "reopened", "synchronize", "ready_for_review"}


def _payloads() -> list[tuple[str, Path]]:
    return sorted((path.parent.name, path) for path in WEBHOOKS.glob("*/*.json"))


def _expected(event: str, payload: dict) -> IntakeKind:
    if event == "ping":
        return IntakeKind.PONG
    if event == "pull_request" and payload["action"] in REVIEWED and payload.get("installation"):
        return IntakeKind.JOB
    return IntakeKind.IGNORE  # other events and actions, issue comments on issues, no installation


def test_every_corpus_payload_routes_as_expected():
    payloads = _payloads()
    assert len(payloads) >= 50
    for event, path in payloads:
        payload = json.loads(path.read_text())
        intake = route(event, path.name, payload, RoutingOptions())
        assert intake.kind is _expected(event, payload), (path, intake.reason)
        if intake.kind is IntakeKind.JOB:
            assert (
                intake.job.pull.repository == "Codertocat/Hello-World"
                and intake.job.pull.number == 2
            )
            assert intake.job.head_sha == payload["pull_request"]["head"]["sha"]


def test_corpus_deliveries_drive_the_service(tmp_path):
    key = AppKey.generate()
    fake = FakeGitHub.start(tmp_path / "git", "42", key.public_pem)
    repo = make_repo(tmp_path / "work")
    base = commit(repo, app_chart("charts/app", "app"), "base")
    head = commit(
        repo,
        {"charts/app/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        "fix: replicas",
    )
    fake.serve_repository("Codertocat/Hello-World", repo)
    fake.set_pull("Codertocat/Hello-World", 1, head, base)
    running = start_service(service_settings(fake, key, tmp_path))
    outcomes = {}
    try:
        with httpx.Client() as client:
            for event, path in _payloads():
                payload = json.loads(path.read_text())
                if event == "pull_request":
                    payload = copy.deepcopy(payload)
                    (
                        payload["pull_request"]["head"]["sha"],
                        payload["pull_request"]["base"]["sha"],
                    ) = head, base
                if path.name == "created.with-installation.payload.json":
                    payload["comment"]["body"] = "@aftershock help"
                    payload["issue"]["pull_request"] = {"url": "https://example.invalid/pulls/1"}
                delivery = f"{event}/{path.name}"
                assert deliver(client, running.url, event, payload, delivery).status_code in (
                    200,
                    202,
                )
                row = wait_for(
                    lambda delivery=delivery: (
                        (r := running.service.ledger.get(delivery)) and r.outcome.final and r
                    ),
                    120,
                    delivery,
                )
                outcomes[delivery] = row.outcome.value
    finally:
        running.stop()
        fake.stop()
    reviewed = {d for d, o in outcomes.items() if o == "reviewed"}
    assert reviewed == {
        d
        for d in outcomes
        if d.startswith("pull_request/")
        and d.split("/")[1].split(".")[0] in REVIEWED
        and json.loads((WEBHOOKS / d).read_text()).get("installation")
    }
    assert outcomes["issue_comment/created.with-installation.payload.json"] == "replied"
    assert fake.comments_on("Codertocat/Hello-World", 1)[-1]["body"].startswith(
        "Commands for @aftershock"
    )
    assert set(outcomes.values()) == {"pong", "ignored", "reviewed", "replied"}
