"""The secret taint: what it collects from a review's Secrets, and the one scrub over every output."""

from __future__ import annotations

import base64
from dataclasses import replace

from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Finding,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.ingest.values import describe_change
from aftershock.model.units import ValuesKeyChange, ValuesKeyChangeKind
from aftershock.secret_taint import SecretTaint, secret_object_texts


def test_a_secret_gives_its_data_decoded_its_string_data_and_its_annotations():
    body = {
        "kind": "Secret",
        "metadata": {
            "annotations": {
                "note": "annotated-value",
                "kubectl.kubernetes.io/last-applied-configuration": '{{"kind":"Secret","data":{{"k":"{}"}}}}'.format(
                    base64.b64encode(b"applied-value").decode()
                ),
            }
        },
        "data": {"a": base64.b64encode(b"decoded-value").decode()},
        "stringData": {"b": "string-value"},
    }
    texts = set(secret_object_texts(body))
    assert {"annotated-value", "applied-value", "decoded-value", "string-value"} <= texts


def test_scrub_hides_each_text_and_its_base64_in_every_string_but_not_keys():
    taint = SecretTaint(frozenset({"conn-string-1"}))
    encoded = base64.b64encode(b"conn-string-1").decode()
    doc = {"conn-string-1": ["x conn-string-1 y", {"v": encoded}], "n": 3}
    assert taint.scrub(doc) == {
        "conn-string-1": ["x <redacted: 13 bytes> y", {"v": f"<redacted: {len(encoded)} bytes>"}],
        "n": 3,
    }


def test_short_texts_and_the_documents_vocabulary_are_not_searched():
    taint = SecretTaint(frozenset({"abc", "default", "added"}))
    assert taint.scrub({"scenario": "default", "change": "added", "x": "abcd"}) == {
        "scenario": "default",
        "change": "added",
        "x": "abcd",
    }


def test_a_multiline_values_document_is_hidden_line_by_line_and_leaf_by_leaf():
    from aftershock.secret_taint import _expanded

    texts = set(_expanded(["mode: leaf-value-1\nnested:\n  deep: leaf-value-2\n"]))
    assert {"mode: leaf-value-1", "leaf-value-1", "leaf-value-2"} <= texts


def test_a_finding_is_scrubbed_everywhere_it_can_quote():
    taint = SecretTaint(frozenset({"planted-value"}))
    finding = Finding(
        rule_id="r",
        title="t planted-value",
        severity=Severity.LOW,
        confidence=Confidence.LOW,
        category=Category.TESTS,
        evidence=Evidence.INFERRED,
        delta=Delta.INTRODUCED,
        subject=Subject(SubjectKind.FILE, "f", "d planted-value", "x"),
        message="asserts planted-value",
        facts=(Fact("v", "planted-value"),),
    )
    text = repr(taint.scrub_finding(finding))
    assert "planted-value" not in text and "<redacted: 13 bytes>" in text


def test_a_values_key_that_feeds_a_secret_is_described_by_size():
    change = ValuesKeyChange(
        "c", "c/values.yaml", "db.conn", ValuesKeyChangeKind.CHANGED, "old-conn", "new-conn-x"
    )
    assert describe_change(change) == "db.conn changed from 'old-conn' to 'new-conn-x'"
    assert (
        describe_change(change, secret=True)
        == "db.conn changed from <redacted: 8 bytes> to <redacted: 10 bytes>"
    )


def test_expectations_of_tests_on_a_secret_template_are_tainted_not_their_paths():
    from aftershock.model.objects import ObjectKey, RenderedObject
    from aftershock.model.review import (
        ChartOutcome,
        ChartRender,
        ChartReview,
        RefInfo,
        RenderStatus,
        Review,
        ReviewOptions,
        Side,
    )
    from aftershock.model.units import AffectedChart
    from aftershock.secret_taint import test_expectations

    secret = RenderedObject(
        ObjectKey("", "Secret", "d", "s"), "v1", {"kind": "Secret"}, "c", "c/templates/secret.yaml"
    )
    ok = ChartRender(Side.BASE, RenderStatus.OK)
    chart = ChartReview(
        "c", "c", AffectedChart("c", ()), ok, ok, ChartOutcome.CHANGED, base_objects=(secret,)
    )
    review = Review(
        "r",
        RefInfo("a", "a"),
        RefInfo("b", "b"),
        ReviewOptions("r", "d", "sdk", "1"),
        (),
        (),
        (),
        (),
        (),
        (),
        (chart,),
    )
    suite = (
        "templates: [secret.yaml]\ntests:\n  - it: x\n    set: {db.conn: set-value-1}\n"
        "    asserts:\n      - equal: {path: stringData.dsn, value: expected-value-1}\n"
        "  - it: y\n    template: other.yaml\n    asserts:\n      - equal: {path: data.x, value: not-a-secret-1}\n"
    )
    found = test_expectations(review, [{"c/tests/s_test.yaml": suite}])
    assert found == {"set-value-1", "expected-value-1"}


def test_flow_style_lines_of_a_secret_file_hide_each_literal_value():
    from aftershock.report.redaction import redact_hunk_line

    line = "+stringData: {note: {{ .Values.note | quote }}, literal: flow-value-1}"
    assert (
        redact_hunk_line(line, secret_file=True)
        == "+stringData: {note: {{ .Values.note | quote }}, literal: <redacted: 12 bytes>}"
    )
    assert (
        redact_hunk_line("+metadata: {name: extra}", secret_file=True) == "+metadata: {name: extra}"
    )
    assert redact_hunk_line(line, secret_file=False) == line


def test_env_lines_of_a_file_feeding_a_secret_hide_each_value():
    from aftershock.report.redaction import redact_hunk_line

    assert redact_hunk_line("+TOKEN=zq9", secret_file=True) == "+TOKEN=<redacted: 3 bytes>"
    assert redact_hunk_line("-  - pw=ab", secret_file=True) == "-  - pw=<redacted: 2 bytes>"
    assert redact_hunk_line("+TOKEN=zq9", secret_file=False) == "+TOKEN=zq9"
    assert redact_hunk_line("+# MODE=x", secret_file=True) == "+# MODE=x"


def test_a_values_line_of_a_key_that_feeds_a_secret_is_hidden_however_short():
    from aftershock.report.redaction import redact_hunk_line

    assert (
        redact_hunk_line("+  conn: ab1", secret_file=False, secret_keys=frozenset({"conn"}))
        == "+  conn: <redacted: 3 bytes>"
    )
    assert (
        redact_hunk_line("+  mode: ab1", secret_file=False, secret_keys=frozenset({"conn"}))
        == "+  mode: ab1"
    )


def test_a_tainted_text_that_is_an_objects_kind_name_or_chart_name_is_identity_not_hidden():
    """A test on a Secret template expecting `traefik` must not turn `Service default/release-traefik`
    into `<redacted> default/release-<redacted>`: those words are printed as identity anyway."""
    from aftershock.model.objects import ObjectKey, RenderedObject
    from aftershock.model.review import (
        ChartOutcome,
        ChartRender,
        ChartReview,
        RefInfo,
        RenderStatus,
        Review,
        ReviewOptions,
        Side,
    )
    from aftershock.model.units import AffectedChart
    from aftershock.secret_taint import secret_taint

    service = RenderedObject(
        ObjectKey("", "Service", "default", "release-traefik"), "v1", {}, "traefik", "t/s.yaml"
    )
    ok = ChartRender(Side.BASE, RenderStatus.OK)
    chart = ChartReview(
        "traefik",
        "traefik",
        AffectedChart("traefik", ()),
        ok,
        ok,
        ChartOutcome.CHANGED,
        base_objects=(service,),
    )
    options = ReviewOptions("release", "default", "sdk", "1")
    tainted = frozenset({"traefik", "Service", "hunter22-token"})
    review = Review(
        "r", RefInfo("a", "a"), RefInfo("b", "b"), options, (), (), (), (), (), (), (chart,)
    )
    review = replace(review, secret_texts=tainted)
    taint = secret_taint(review)
    text = "Service default/release-traefik reads hunter22-token"
    assert taint.scrub_text(text) == "Service default/release-traefik reads <redacted: 14 bytes>"
