"""The secret taint: what it collects from a review's Secrets, and the one scrub over every output."""

from __future__ import annotations

import base64

import pytest

from aftershock.diff.values_keys import describe_change
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
from aftershock.model.units import ValuesKeyChange, ValuesKeyChangeKind
from aftershock.safety.secret_taint import SecretTaint, secret_object_texts


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
    taint = SecretTaint(frozenset({"c0nn-5tr1ng"}))
    encoded = base64.b64encode(b"c0nn-5tr1ng").decode()
    doc = {"c0nn-5tr1ng": ["x c0nn-5tr1ng y", {"v": encoded}], "n": 3}
    assert taint.scrub(doc) == {
        "c0nn-5tr1ng": ["x <redacted: 11 bytes> y", {"v": f"<redacted: {len(encoded)} bytes>"}],
        "n": 3,
    }


def test_short_texts_are_not_searched():
    taint = SecretTaint(frozenset({"abc", "Xk29fQ7mLwTq"}))
    assert taint.scrub({"x": "abcd", "y": "at Xk29fQ7mLwTq."}) == {
        "x": "abcd",
        "y": "at <redacted: 12 bytes>.",
    }


def test_a_multiline_values_document_is_hidden_line_by_line_and_leaf_by_leaf():
    from aftershock.safety.secret_taint import _expanded

    texts = set(_expanded(["mode: leaf-value-1\nnested:\n  deep: leaf-value-2\n"]))
    assert {"leaf-value-1", "leaf-value-2"} <= texts


def test_a_script_in_a_secret_hides_its_tokens_and_assignments_not_its_code():
    from aftershock.safety.secret_taint import _expanded

    script = (
        "#!/bin/sh\nexport TOKEN=t0k3n-value\npassword = pa55-value\n"
        "if [ -z $TOKEN ]; then\n  exit 1\nfi\nXk29fQ7mLwTq\n"
    )
    texts = set(_expanded([script]))
    assert {script, "t0k3n-value", "pa55-value", "Xk29fQ7mLwTq"} <= texts
    assert "export TOKEN=t0k3n-value" in texts  # a credential-named line, whatever its value
    columns = set(_expanded(["CREATE TABLE t (\n  status,\n  Xk29fQ7mLwTq;\n)\n"]))
    assert "status" in columns and "Xk29fQ7mLwTq" in columns and "status," not in columns
    assert not {"exit 1", "if [ -z $TOKEN ]; then"} & texts  # ("fi": one word, ordinary)
    taint = SecretTaint(frozenset(t for t in texts if len(t) > 2))
    assert taint.scrub("run: |\n  exit 1\n  echo Xk29fQ7mLwTq") == (
        "run: |\n  exit 1\n  echo <redacted: 12 bytes>"
    )


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
    from aftershock.model.change import Side
    from aftershock.model.objects import ObjectKey, RenderedObject
    from aftershock.model.review import (
        ChartOutcome,
        ChartRender,
        ChartReview,
        RefInfo,
        RenderStatus,
        Review,
        ReviewOptions,
    )
    from aftershock.model.units import AffectedChart
    from aftershock.safety.secret_taint import test_expectations

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


@pytest.mark.parametrize(
    "suite",
    [
        "templates: [secret.yaml]\ntests: 5\n",
        "templates: [secret.yaml]\ntests:\n  - it: x\n    asserts: 5\n",
        "templates: secret.yaml\ntests:\n  - it: x\n    asserts: [{equal: {path: a, value: b}}]\n",
        "l0: &l0 [a, a, a, a, a, a, a, a, a]\n"
        + "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 9)),
    ],
)
def test_expectations_of_a_suite_helm_unittest_refuses_are_none(suite):
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
    )  # fmt: skip
    from aftershock.model.units import AffectedChart
    from aftershock.safety.secret_taint import test_expectations

    secret = RenderedObject(
        ObjectKey("", "Secret", "d", "s"), "v1", {"kind": "Secret"}, "c", "c/templates/secret.yaml"
    )
    ok = ChartRender(Side.BASE, RenderStatus.OK)
    chart = ChartReview(
        "c", "c", AffectedChart("c", ()), ok, ok, ChartOutcome.CHANGED, base_objects=(secret,)
    )
    review = Review(
        "r", RefInfo("a", "a"), RefInfo("b", "b"), ReviewOptions("r", "d", "sdk", "1"),
        (), (), (), (), (), (), (chart,),
    )  # fmt: skip
    assert test_expectations(review, [{"c/tests/s_test.yaml": suite}]) == frozenset()


def _review(chart_reviews, values_changes=(), files=()):
    from aftershock.model.review import RefInfo, Review, ReviewOptions

    return Review(
        "r",
        RefInfo("a", "a"),
        RefInfo("b", "b"),
        ReviewOptions("release", "default", "sdk", "1"),
        (),
        tuple(files),
        (),
        (),
        tuple(values_changes),
        (),
        tuple(chart_reviews),
    )


def _chart_review(base_objects=(), head_objects=(), **fields):
    from aftershock.model.change import Side
    from aftershock.model.review import ChartOutcome, ChartRender, ChartReview, RenderStatus
    from aftershock.model.units import AffectedChart

    ok = ChartRender(Side.BASE, RenderStatus.OK)
    return ChartReview(
        "apps/backup",
        "backup",
        AffectedChart("apps/backup", ()),
        ok,
        ok,
        ChartOutcome.CHANGED,
        base_objects=tuple(base_objects),
        head_objects=tuple(head_objects),
        **fields,
    )


def _object(kind, name, body):
    from aftershock.model.objects import ObjectKey, RenderedObject

    return RenderedObject(
        ObjectKey("", kind, "monitoring", name),
        "v1",
        {"kind": kind, "metadata": {"name": name}, **body},
        "apps/backup",
        f"apps/backup/templates/{name}.yaml",
    )


VALUES_DOCUMENT = (
    "cluster: eu-de-1\nnamespace: monitoring\nbackup:\n  enabled: true\n  schedule: '0 3 * * *'\n"
    "  issuer: cert-manager\n  path: /var/lib/backup\n  service: .spec.clusterIP\n"
    "  bucket: shared-bucket-x9Q2\n  password: Xk29fQ7mLwTq\n"
)


def test_a_values_document_in_a_secret_taints_its_secrets_not_its_ordinary_names():
    """The rule: from a Secret, not observed outside every Secret, and not an ordinary token."""
    from aftershock.safety.secret_taint import secret_taint

    secret = _object("Secret", "backup-etc", {"stringData": {"config.yaml": VALUES_DOCUMENT}})
    config = _object("ConfigMap", "backup-bucket", {"data": {"bucket": "shared-bucket-x9Q2"}})
    texts = secret_taint(_review([_chart_review([secret, config], [secret, config])])).texts
    assert "Xk29fQ7mLwTq" in texts and VALUES_DOCUMENT in texts
    for ordinary in ("eu-de-1", "monitoring", "backup", "cert-manager", "/var/lib/backup"):
        assert ordinary not in texts, ordinary
    assert ".spec.clusterIP" not in texts and "cluster: eu-de-1" not in texts
    assert "shared-bucket-x9Q2" not in texts  # a ConfigMap shows it in clear anyway
    assert "password: Xk29fQ7mLwTq" in texts  # a credential-named line is never ordinary


def test_a_value_from_a_secret_stays_tainted_in_a_render_a_secret_supplied_values_to():
    from aftershock.model.contexts import RenderInputs
    from aftershock.safety.secret_taint import secret_taint

    secret = _object("Secret", "backup-etc", {"stringData": {"bucket": "shared-bucket-x9Q2"}})
    config = _object("ConfigMap", "backup-bucket", {"data": {"bucket": "shared-bucket-x9Q2"}})
    private = RenderInputs(private=True)
    review = _review([_chart_review([secret, config], [], base_inputs=private)])
    assert "shared-bucket-x9Q2" in secret_taint(review).texts


def test_credential_named_values_outside_secrets_are_tainted_and_so_is_the_key_feeding_them():
    from aftershock.safety.secret_taint import secret_taint

    config = _object(
        "ConfigMap", "env", {"data": {"DB_PASSWORD": "Qw7rTz9pLm2x", "MODE": "q7Zr9xW2"}}
    )
    deploy = _object(
        "Deployment", "app", {"spec": {"env": [{"name": "API_KEY", "value": "Zt8mQ2pLk9"}]}}
    )
    change = ValuesKeyChange(
        "apps/backup",
        "apps/backup/values.yaml",
        "db.pw",
        ValuesKeyChangeKind.CHANGED,
        "Qw7rTz9pLm2x",
        "Hy6uJk3nBv8c",
    )
    taint = secret_taint(_review([_chart_review([config, deploy], [])], [change]))
    assert {"Qw7rTz9pLm2x", "Zt8mQ2pLk9", "Hy6uJk3nBv8c"} <= taint.texts
    assert "q7Zr9xW2" not in taint.texts  # MODE names no credential, and a ConfigMap shows it
    assert taint.feeds_secret("apps/backup/values.yaml", "db.pw")


def test_the_secrets_of_a_side_whose_other_side_failed_stay_tainted():
    from aftershock.safety.secret_taint import rendered_secret_texts, secret_taint

    secret = _object("Secret", "backup-etc", {"stringData": {"config.yaml": VALUES_DOCUMENT}})
    kept = rendered_secret_texts([secret])
    change = ValuesKeyChange(
        "apps/backup",
        "apps/backup/values.yaml",
        "backup.password",
        ValuesKeyChangeKind.CHANGED,
        "Xk29fQ7mLwTq",
        "Rt55pZ0qVnWe",
    )
    taint = secret_taint(_review([_chart_review(secret_texts=kept)], [change]))
    assert {"Xk29fQ7mLwTq", "Rt55pZ0qVnWe"} <= taint.texts  # the head value of the same key too
    assert taint.feeds_secret("apps/backup/values.yaml", "backup.password")


def test_a_tainted_text_that_is_an_objects_kind_name_or_chart_name_is_identity_not_hidden():
    """A test on a Secret template expecting `traefik` must not turn `Service default/release-traefik`
    into `<redacted> default/release-<redacted>`: those words are printed as identity anyway."""
    from aftershock.model.change import Side
    from aftershock.model.objects import ObjectKey, RenderedObject
    from aftershock.model.review import (
        ChartOutcome,
        ChartRender,
        ChartReview,
        RefInfo,
        RenderStatus,
        Review,
        ReviewOptions,
    )
    from aftershock.model.units import AffectedChart
    from aftershock.safety.secret_taint import secret_taint

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
    tainted = frozenset({"traefik", "Service", "Qx7#hunter22zz"})
    review = Review(
        "r", RefInfo("a", "a"), RefInfo("b", "b"), options, (), (), (), (), (), (), (chart,)
    )
    from dataclasses import replace

    review = replace(review, secret_texts=tainted)
    taint = secret_taint(review)
    text = "Service default/release-traefik reads Qx7#hunter22zz"
    assert taint.scrub_text(text) == "Service default/release-traefik reads <redacted: 14 bytes>"


def test_a_crds_schema_prose_under_credential_named_properties_is_not_tainted():
    """traefik's CRDs describe `apiKey`, `token` and `certSecret` properties: their descriptions were
    tainted (78 texts) and hidden wherever a review quoted them; a schema's default stays tainted."""
    from aftershock.safety.secret_taint import secret_taint

    description = "KeySource defines where to extract the API key from requests."
    crd = _object(
        "CustomResourceDefinition",
        "middlewares.example.io",
        {
            "spec": {
                "versions": [
                    {
                        "name": "v1",
                        "schema": {
                            "openAPIV3Schema": {
                                "properties": {
                                    "apiKey": {"description": description, "type": "object"},
                                    "token": {"type": "string", "default": "Zq8#hunter2long"},
                                }
                            }
                        },
                    }
                ]
            }
        },
    )
    texts = secret_taint(_review([_chart_review([crd], [crd])])).texts
    assert description not in texts
    assert "Zq8#hunter2long" in texts


def test_a_reviews_taint_is_found_once_and_a_new_review_gets_its_own():
    import gc
    from dataclasses import replace

    from aftershock.safety.secret_taint import _TAINTS, secret_taint

    first = _review(
        [_chart_review([_object("Secret", "a", {"stringData": {"k": "Xk29fQ7mLwTq"}})])]
    )
    assert secret_taint(first) is secret_taint(first)
    second = replace(
        first,
        chart_reviews=(
            _chart_review([_object("Secret", "a", {"stringData": {"k": "Pq83zR5nVbWe"}})]),
        ),
    )
    assert secret_taint(second).texts == {"Pq83zR5nVbWe"}
    assert secret_taint(first).texts == {"Xk29fQ7mLwTq"}
    key = id(second)
    del second
    gc.collect()
    assert (
        key not in _TAINTS
    )  # freed with its review: a later review given the same id finds its own
