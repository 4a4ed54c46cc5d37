"""Test evidence on the bundled example history: the orders replica change and the library label."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from aftershock.evidence import document
from aftershock.model.tests import Coverage, ProblemKind, TestChange, TestStatus
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.pipeline.testing.tests import collect_test_evidence_for_refs
from aftershock.report.comment import evidence_markdown as markdown

FRAGMENT = (
    Path(__file__).resolve().parents[2] / "src" / "aftershock" / "evidence" / "schema_fragment.json"
)
ORDERS_SUITE = "tests/deployment_test.yaml"
ORDERS_DEPLOYMENT = "apps/Deployment/orders/orders"


def _evidence(repo, renderer, base, head):
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    return collect_test_evidence_for_refs(
        repo, review.base.sha, review.head.sha, review.chart_reviews, renderer
    )


@pytest.fixture(scope="module")
def replicas(example_repo, renderer):
    return _evidence(example_repo, renderer, "state-00-initial", "state-01-orders-replicas")


@pytest.fixture(scope="module")
def labels(example_repo, renderer):
    return _evidence(
        example_repo, renderer, "state-01-orders-replicas", "state-02-lib-part-of-label"
    )


def test_replica_default_change_makes_its_untouched_test_newly_failing(replicas):
    (orders,) = replicas.charts
    assert orders.chart == "charts/apps/orders"
    changed = [
        (t.suite_file, t.test, t.change)
        for t in orders.tests
        if t.change not in (TestChange.UNCHANGED, TestChange.NOT_COMPARED)
    ]
    assert changed == [(ORDERS_SUITE, "runs two replicas by default", TestChange.NEWLY_FAILING)]
    (test,) = [t for t in orders.tests if t.change is TestChange.NEWLY_FAILING]
    assert test.head.failure == "asserts[0] equal spec.replicas: expected 2, got 3"
    assert (orders.head.passed, orders.head.failed) == (4, 1)
    # at base only the test failing at head ran: the others pass at head, nothing needs their base run
    assert (orders.base.passed, orders.base.not_run, orders.base.tests) == (1, 4, 5)
    assert {t.change for t in orders.tests if t.head.status is TestStatus.PASSED} == {
        TestChange.NOT_COMPARED
    }


def test_every_base_outcome_is_run_when_asked(example_repo, renderer):
    review = run_review(
        ReviewRequest(repo=example_repo, base="state-00-initial", head="state-01-orders-replicas"),
        renderer,
    )
    found = collect_test_evidence_for_refs(
        example_repo,
        review.base.sha,
        review.head.sha,
        review.chart_reviews,
        renderer,
        base_tests="all",
    )
    (orders,) = found.charts
    assert (orders.base.passed, orders.base.not_run) == (5, 0)
    assert {t.change for t in orders.tests} == {TestChange.NEWLY_FAILING, TestChange.UNCHANGED}
    assert found.tests_rendered == 10


def test_the_replica_assertion_is_stale_and_pins_the_field(replicas):
    (orders,) = replicas.charts
    (stale,) = [p for p in orders.problems if p.kind is ProblemKind.STALE]
    assert (stale.object_id, stale.field_path) == (ORDERS_DEPLOYMENT, "spec.replicas")
    assert (stale.assertion.test, stale.assertion.assert_type, stale.assertion.path) == (
        "runs two replicas by default",
        "equal",
        "spec.replicas",
    )
    assert stale.assertion.template == "charts/apps/orders/templates/deployment.yaml"
    (guard,) = orders.guards
    assert {(p.assertion.test, p.coverage, p.same_value) for p in guard.pins} == {
        ("runs two replicas by default", Coverage.EXACT, True),
        # the autoscaling test renders with its own values: same location, not the rendered value
        (
            "leaves the replica count to the autoscaler when autoscaling is enabled",
            Coverage.EXACT,
            False,
        ),
    }
    assert [p.kind for p in orders.problems] == [ProblemKind.STALE]  # guarded: not unguarded


def test_a_label_no_test_asserts_is_unguarded_on_every_object(labels):
    by_chart = {c.chart: c for c in labels.charts}
    assert sorted(by_chart) == ["charts/apps/orders", "charts/apps/payments"]
    for chart in by_chart.values():
        unguarded = [p for p in chart.problems if p.kind is ProblemKind.UNGUARDED]
        assert unguarded and all(
            p.field_path.endswith('labels["app.kubernetes.io/part-of"]') for p in unguarded
        )
        assert len(unguarded) == len(chart.guards)
    payments = by_chart["charts/apps/payments"]
    # every payments test passes at head and nothing is removed: no base outcome was needed
    assert {t.change for t in payments.tests} == {TestChange.NOT_COMPARED}
    # the replica test broke one commit earlier: still failing, not newly failing
    orders_changes = {t.test: t.change for t in by_chart["charts/apps/orders"].tests}
    assert orders_changes["runs two replicas by default"] is TestChange.STILL_FAILING


def test_document_follows_its_schema_and_is_deterministic(replicas, labels):
    schema = json.loads(FRAGMENT.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for evidence in (replicas, labels):
        doc = document.test_evidence_document(evidence)
        jsonschema.Draft202012Validator(schema).validate(doc)
        assert json.loads(json.dumps(doc)) == doc == document.test_evidence_document(evidence)
    doc = document.test_evidence_document(replicas)
    assert doc["summary"]["tests"]["newly_failing"] == 1
    assert doc["summary"]["problems"] == {"unguarded": 0, "stale": 1, "vacuous": 0}
    assert (doc["summary"]["changed_fields"], doc["summary"]["guarded_fields"]) == (1, 1)
    assert doc["untested_charts"] == []
    assert doc["run"]["renders"] >= 2 and doc["run"]["tests_rendered"] == 6  # 5 at head, 1 at base
    assert doc["summary"]["tests"]["not_compared"] == 4
    assert (doc["charts"][0]["not_compared_tests"], doc["charts"][0]["base"]["not_run"]) == (4, 4)


def test_schema_fragment_rejects_a_wrong_document(replicas):
    doc = document.test_evidence_document(replicas)
    doc["charts"][0]["problems"][0]["kind"] = "flaky"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(json.loads(FRAGMENT.read_text())).validate(doc)


def test_markdown_gives_counts_then_failures_then_unguarded_fields(replicas, labels):
    text = markdown.test_evidence_markdown(document.test_evidence_document(replicas))
    assert text.splitlines()[:3] == [
        "### Tests",
        "",
        "5 tests in 1 chart(s) at head: 1 newly failing. 1 of 1 changed field(s) asserted by a test"
        " (0 unguarded); 1 stale and 0 vacuous assertion(s). 4 passing at head were not run at base"
        " (no finding needs them): newly passing tests are not looked for (`--base-tests all`).",
    ]
    assert (
        "- `charts/apps/orders/tests/deployment_test.yaml` · runs two replicas by default:"
        " `asserts[0] equal spec.replicas: expected 2, got 3` (stale: still expects the base render)"
    ) in text
    assert "no test asserts" not in text
    label_text = markdown.test_evidence_markdown(
        document.test_evidence_document(labels), max_items=3
    )
    assert "**Changed fields no test asserts**" in label_text
    # the label added on every object of the chart is one line, with the count, as "What changed" lists it
    (line,) = [line for line in label_text.splitlines() if line.startswith("- `metadata.labels")]
    assert line.startswith(
        '- `metadata.labels["app.kubernetes.io/part-of"]` on 12 objects: added as "platform"; '
        "no test assertion pins it (`apps/Deployment/orders/orders`, "
    ) and line.endswith(" and 9 more)")
    assert "core/ConfigMap/orders/orders` `metadata.labels" not in label_text


def test_markdown_says_which_suites_could_not_run():
    section = {
        "summary": {
            "charts": 1,
            "head_tests": 0,
            "suite_errors": 1,
            "changed_fields": 0,
            "guarded_fields": 0,
            "tests": dict.fromkeys(
                (
                    "newly_failing",
                    "newly_passing",
                    "added",
                    "removed",
                    "still_failing",
                    "unchanged",
                ),
                0,
            ),
            "problems": {"unguarded": 0, "stale": 0, "vacuous": 0},
        },
        "untested_charts": [],
        "charts": [
            {
                "chart": "c",
                "tests": [],
                "problems": [],
                "base": {"status": "ran", "error": None, "suite_errors": []},
                "head": {
                    "status": "errored",
                    "error": "no asserts found",
                    "suite_errors": [
                        {"suite_file": "tests/a_test.yaml", "error": "no asserts found"}
                    ],
                },
            }
        ],
    }
    text = markdown.test_evidence_markdown(section)
    assert "**Could not run**\n\n- `c` at head: `no asserts found`\n" in text
    assert "1 suite(s) could not run." in text
