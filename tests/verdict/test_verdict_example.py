"""The example repository's commits, reviewed for real (git, Helm, diff, rules), give the expected verdicts."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import tarfile
from pathlib import Path

import jsonschema
import pytest

from aftershock.config.settings import AftershockConfig
from aftershock.findings.model import Delta
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.report.comment.findings_markdown import findings_markdown
from aftershock.report.findings_document import findings_document
from aftershock.report.sarif import sarif_document
from aftershock.rules.engine import evaluate
from aftershock.rules.inputs import source_files, source_folders, wanted
from aftershock.rules.model import SourceTexts
from aftershock.verdict import verdicts

SARIF_SCHEMA = Path(__file__).resolve().parents[1] / "data" / "sarif-schema-2.1.0.json"

# head tag -> (merge risk, security risk, actionable rule ids)
EXPECTED = {
    "state-01-orders-replicas": (
        "high",
        "minimal",
        ["tests-newly-failing", "tests-stale-assertion"],
    ),  # the test pins replicas
    "state-02-lib-part-of-label": ("low", "minimal", []),  # labels alone: no security surface
    "state-03-lib-security-context-helpers": ("minimal", "minimal", []),
    "state-04-orders-release-tracing": ("medium", "minimal", ["values-override-trap"]),
    "state-05-node-metrics-process-collector": (
        "high",
        "high",
        ["pss-host-namespaces", "rollout-everywhere"],
    ),
    "state-06-payments-webhook-key": ("medium", "medium", ["secret-value-committed"]),
    "state-07-docs-release-overrides": ("minimal", "minimal", []),
}
STATES = ["state-00-initial", *EXPECTED]


def texts_at(
    repo: Path, ref: str, folders: tuple[str, ...], files: tuple[str, ...] = ()
) -> dict[str, str]:
    """The source files rules read (under `folders`, and `files`: every chart's values.yaml), from
    `git archive` of one ref, as the pipeline reads its snapshot."""
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref], capture_output=True, check=True
    ).stdout
    texts = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile() and (wanted(member.name, folders) or member.name in files):
                texts[member.name] = tar.extractfile(member).read().decode("utf-8")
    return texts


def review_range(repo, renderer, base, head):
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    folders, files = source_folders(review), source_files(review)
    sources = SourceTexts(
        base=texts_at(repo, base, folders, files), head=texts_at(repo, head, folders, files)
    )
    findings = evaluate(review, AftershockConfig(), sources=sources)
    return review, findings, verdicts(review, findings)


@pytest.mark.parametrize("base, head", list(itertools.pairwise(STATES)), ids=list(EXPECTED))
def test_each_commit_gets_the_expected_verdicts(example_repo, renderer, base, head):
    _, findings, result = review_range(example_repo, renderer, base, head)
    merge, security, rules = EXPECTED[head]
    assert (result.merge.level.value, result.security.level.value) == (merge, security), (
        result.merge.reasons
    )
    assert [f.rule_id for f in findings if f.actionable] == rules
    assert result.merge.up_to == result.security.up_to and len(result.merge.up_to) == 7


def test_host_pid_on_the_daemonset_is_a_widened_exposure_located_in_the_values_change(
    example_repo, renderer
):
    review, findings, _ = review_range(
        example_repo,
        renderer,
        "state-04-orders-release-tracing",
        "state-05-node-metrics-process-collector",
    )
    # rollout-everywhere says the DaemonSet rolls every node; the exposure is pss-host-namespaces'
    [found] = [f for f in findings if f.actionable and f.rule_id == "pss-host-namespaces"]
    assert found.delta is Delta.INTRODUCED and found.subject.facet == "hostPID"
    assert "DaemonSet" in found.subject.display and "node-metrics" in found.subject.display
    assert found.location.file == "charts/wrappers/node-metrics/values.yaml"
    values = next(f for f in review.files if f.path == found.location.file)
    added = [line for hunk in values.hunks for line in hunk.lines if line.startswith("+")]
    assert any("hostPID" in line for line in added)


def test_the_secret_value_is_never_shown(example_repo, renderer):
    review, findings, result = review_range(
        example_repo,
        renderer,
        "state-05-node-metrics-process-collector",
        "state-06-payments-webhook-key",
    )
    secret = subprocess.run(
        [
            "git",
            "-C",
            str(example_repo),
            "show",
            "state-06-payments-webhook-key:charts/apps/payments/values.yaml",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    value = next(
        line.split(":", 1)[1].strip()
        for line in secret.splitlines()
        if "WEBHOOK_SIGNING_KEY" in line
    )
    outputs = json.dumps(findings_document(findings, result)) + json.dumps(
        sarif_document(review, findings)
    )
    assert value and value.strip("'\"") not in outputs


def test_the_whole_range_reads_as_high_with_every_concern(example_repo, renderer):
    review, findings, result = review_range(example_repo, renderer, "demo-base", "demo-head")
    assert result.merge.level.value == "high" and result.security.level.value == "high"
    assert {f.rule_id for f in findings if f.actionable} == {
        "pss-host-namespaces",
        "rollout-everywhere",
        "secret-value-committed",
        "tests-newly-failing",
        "tests-stale-assertion",
        "values-override-trap",
    }
    sarif = sarif_document(review, findings)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(sarif)
    changed = {f.path for f in review.files}
    for entry in sarif["runs"][0]["results"]:
        if entry["baselineState"] == "new":
            assert entry["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] in changed
    text = findings_markdown(findings_document(findings, result))
    assert (
        text.index("Merge risk: High")
        < text.index("Security architecture risk: High")
        < text.index("### Concerns")
    )
    assert len(text) < 65_536
