"""Snapshot tests: the JSON review of each commit of the bundled example history, and of the whole range.

Set AFTERSHOCK_UPDATE_SNAPSHOTS=1 to rewrite the snapshots after an intended change, then read the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from aftershock.pipeline import ReviewRequest, review_change
from aftershock.report.canonical import review_document
from example_states import RANGES, SNAPSHOTS
from gitrepo import git

SCHEMA = (
    Path(__file__).resolve().parents[2] / "src" / "aftershock" / "schema" / "review.schema.json"
)


def stable(doc: dict) -> dict:
    """Drop what differs between machines: the checkout folder, the Helm build."""
    doc = json.loads(json.dumps(doc))
    doc["repository"] = "<repository>"
    doc["options"]["renderer_version"] = "<renderer version>"
    return doc


@pytest.mark.parametrize("base, head", RANGES, ids=[b for _, b in RANGES])
def test_example_review_matches_snapshot(example_repo, renderer, base, head):
    result = review_change(ReviewRequest(repo=example_repo, base=base, head=head), renderer)
    doc = stable(review_document(result.review, result.judgement))
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(doc)
    path = SNAPSHOTS / f"{head}.json"
    if os.environ.get("AFTERSHOCK_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    assert doc == json.loads(path.read_text())


def test_snapshots_say_what_each_commit_did():
    """The snapshots themselves must show the story of the history, so a wrong snapshot cannot hide."""

    def load(name):
        return json.loads((SNAPSHOTS / f"{name}.json").read_text())

    def outcome(doc):
        return {r["chart"]: r["outcome"] for r in doc["chart_reviews"]}

    assert outcome(load("state-01-orders-replicas")) == {"charts/apps/orders": "changed"}
    lib = load("state-02-lib-part-of-label")
    assert outcome(lib) == {"charts/apps/orders": "changed", "charts/apps/payments": "changed"}
    assert all(
        len(a["path"]) == 3 for a in lib["affected_charts"] if a["chart"].startswith("charts/apps/")
    )
    refactor = outcome(load("state-03-lib-security-context-helpers"))
    assert refactor and set(refactor.values()) == {"unchanged"}
    secret = load("state-06-payments-webhook-key")
    assert "whk-sandbox" not in json.dumps(secret)
    assert load("state-07-docs-release-overrides")["objects"] == []

    def merge(name):
        return load(name)["findings"]["verdicts"]["merge"]["level"]

    assert merge("state-03-lib-security-context-helpers") == "minimal"
    assert merge("state-05-node-metrics-process-collector") == "high"
    rules = {
        i["rule"]
        for i in load("state-05-node-metrics-process-collector")["findings"]["items"]
        if i["actionable"]
    }
    assert "pss-host-namespaces" in rules


def test_example_history_is_the_one_snapshotted(example_repo):
    assert (
        git(example_repo, "rev-parse", "demo-head")
        == json.loads((SNAPSHOTS / "demo-head.json").read_text())["head"]["sha"]
    )
