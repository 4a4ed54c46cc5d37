"""SARIF 2.1.0 output, validated against the official OASIS schema (tests/data), with locations in changed files."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from aftershock.config.settings import parse_config
from aftershock.findings.model import Delta
from aftershock.report.sarif import sarif_document
from aftershock.rules.engine import evaluate
from aftershock.rules.model import SourceTexts
from aftershock.rules.registry import RULES
from rulecases import FIXTURES, build_review, read_manifests

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json").read_text()
)


@pytest.fixture()
def reviewed(tmp_path):
    base = read_manifests(
        FIXTURES / "pss-host-namespaces" / "pre-existing-and-resolved" / "base.yaml"
    )
    head = read_manifests(
        FIXTURES / "pss-host-namespaces" / "pre-existing-and-resolved" / "head.yaml"
    )
    review = build_review(
        base,
        head,
        tmp_path=tmp_path,
        commits=["update the agent", "fixup! update the agent"],
        base_files={"charts/app/values.yaml": "agent: {}\n"},
        head_files={"charts/app/values.yaml": "agent:\n  hostIPC: false\n"},
    )
    config = parse_config("rules:\n  commit-trailers: {options: {required: [Signed-off-by]}}\n")
    return review, evaluate(review, config)


def test_document_is_valid_sarif_2_1_0(reviewed):
    review, findings = reviewed
    doc = sarif_document(review, findings)
    jsonschema.Draft4Validator(SCHEMA).validate(doc)
    assert doc["version"] == "2.1.0"


def test_an_invalid_document_fails_the_schema(reviewed):
    doc = sarif_document(*reviewed)
    doc["runs"][0]["results"][0]["level"] = "fatal"
    assert not jsonschema.Draft4Validator(SCHEMA).is_valid(doc)


def test_every_registered_rule_is_described_and_indexed(reviewed):
    doc = sarif_document(*reviewed)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][: len(RULES)] == [r.id for r in RULES]
    for result in doc["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    security = next(r for r in rules if r["id"] == "pss-privileged")
    assert (
        security["properties"]["security-severity"] == "9.5"
        and security["defaultConfiguration"]["level"] == "error"
    )
    assert "What it checks" in security["help"]["markdown"]


def test_results_are_what_the_change_introduced_or_widened(reviewed):
    """By default only what the change introduced or widened is a result: what was there before is left out."""
    review, findings = reviewed
    results = sarif_document(review, findings)["runs"][0]["results"]
    actionable = [f for f in findings if f.actionable]
    assert len(results) == len(actionable) and any(f.delta is Delta.PRE_EXISTING for f in findings)
    assert {r["baselineState"] for r in results} <= {"new", "updated"}
    for result, finding in zip(results, actionable):
        assert result["partialFingerprints"] == {"aftershock/v1": finding.fingerprint}
        assert result["message"]["text"] == finding.headline


def test_with_baseline_unchanged_the_rest_is_kept_as_unchanged(reviewed):
    review, findings = reviewed
    results = sarif_document(review, findings, baseline="unchanged")["runs"][0]["results"]
    present = [f for f in findings if f.delta is not Delta.RESOLVED]
    assert len(results) == len(present) and any(f.delta is Delta.RESOLVED for f in findings)
    states = {r["ruleId"] + ":" + r["baselineState"] for r in results}
    assert "pss-host-namespaces:unchanged" in states and "commit-fixup:new" in states
    for result, finding in zip(results, present):
        assert result["partialFingerprints"] == {"aftershock/v1": finding.fingerprint}


def test_a_concern_the_change_did_not_touch_gets_a_line_of_its_template(reviewed):
    """Pre-existing concerns used to have no region: the template line holding the field is found at head."""
    review, _ = reviewed
    template = "charts/app/templates/daemonset.yaml"
    text = "apiVersion: apps/v1\nkind: DaemonSet\nspec:\n  template:\n    spec:\n      hostNetwork: {{ .Values.hostNetwork }}\n"
    findings = evaluate(review, parse_config("{}"), sources=SourceTexts(head={template: text}))
    results = sarif_document(review, findings, baseline="unchanged")["runs"][0]["results"]
    [network] = [
        r
        for r in results
        if r["ruleId"] == "pss-host-namespaces" and r["baselineState"] == "unchanged"
    ]
    assert network["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": template, "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 6},
    }


def test_commit_findings_point_at_a_file_the_commit_changed(reviewed):
    review, findings = reviewed
    results = sarif_document(review, findings)["runs"][0]["results"]
    fixup = next(r for r in results if r["ruleId"] == "commit-fixup")
    assert fixup["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "charts/app/values.yaml",
        "uriBaseId": "%SRCROOT%",
    }


def test_output_is_deterministic(reviewed):
    review, findings = reviewed
    first = json.dumps(sarif_document(review, findings), sort_keys=True)
    again = json.dumps(
        sarif_document(
            review,
            evaluate(
                review,
                parse_config("rules:\n  commit-trailers: {options: {required: [Signed-off-by]}}\n"),
            ),
        ),
        sort_keys=True,
    )
    assert first == again
