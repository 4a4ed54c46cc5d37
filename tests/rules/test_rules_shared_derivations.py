"""What the rules derive once per evaluation and share (a render's objects for release rules, the
service accounts of a render) answers for the right chart and side: a cache hit for another chart,
or for the other side of the same chart, would change these verdicts."""

from __future__ import annotations

from aftershock.config.settings import AftershockConfig
from aftershock.diff.objects import diff_objects
from aftershock.findings.model import Delta, Finding
from aftershock.ingest.object_documents import parse_manifests
from aftershock.model.objects import RenderedObject
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
from aftershock.model.units import AffectedChart, AffectStep
from aftershock.rules.engine import evaluate
from aftershock.rules.registry import RULES

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: web
      containers: [{name: web, image: "registry.example.com/web:1.2.3"}]
"""
ACCOUNT = "---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: web, namespace: team}\n"
ACCOUNT_WITHOUT_TOKEN = ACCOUNT + "automountServiceAccountToken: false\n"


def _objects(chart: str, text: str) -> tuple[RenderedObject, ...]:
    return parse_manifests({f"{chart}/templates/all.yaml": text}, chart=chart, namespace="team")


def _chart_review(chart: str, base_text: str | None, head_text: str) -> ChartReview:
    base = _objects(chart, base_text) if base_text is not None else ()
    head = _objects(chart, head_text)
    affected = AffectedChart(chart, (AffectStep("file", f"{chart}/values.yaml", "changed"),))
    return ChartReview(
        chart,
        chart.rsplit("/", 1)[-1],
        affected,
        ChartRender(Side.BASE, RenderStatus.OK if base else RenderStatus.ABSENT, len(base)),
        ChartRender(Side.HEAD, RenderStatus.OK, len(head)),
        ChartOutcome.CHANGED,
        diff_objects(base, head),
        base_objects=base,
        head_objects=head,
    )


def _findings(rule_id: str, *charts: ChartReview) -> list[Finding]:
    return _findings_of((rule_id,), *charts)


def _findings_of(rule_ids: tuple[str, ...], *charts: ChartReview) -> list[Finding]:
    review = Review(
        "test",
        RefInfo("base", "0" * 40),
        RefInfo("head", "1" * 40),
        ReviewOptions("test", "team", "none", "0"),
        (),
        (),
        (),
        (),
        (),
        tuple(c.affected for c in charts),
        charts,
    )
    rules = [rule for rule in RULES if rule.id in rule_ids]
    return list(evaluate(review, AftershockConfig(), rules=rules))


def test_each_chart_is_judged_with_its_own_render() -> None:
    """Chart a creates the account its Deployment runs as, chart b does not: only b's is missing."""
    with_account = _chart_review("charts/a", None, DEPLOYMENT + ACCOUNT)
    without = _chart_review("charts/b", None, DEPLOYMENT)
    for charts in ((with_account, without), (without, with_account)):
        found = _findings("service-account-missing", *charts)
        assert [f.subject.id for f in found] == ["charts/b::apps/Deployment/team/web"]


def test_each_side_is_judged_with_its_own_service_accounts() -> None:
    """The account disables the token at base only: the token mount is introduced at head."""
    chart = _chart_review("charts/a", DEPLOYMENT + ACCOUNT_WITHOUT_TOKEN, DEPLOYMENT + ACCOUNT)
    found = _findings("sa-token-automount", chart)
    assert [(f.subject.id, f.delta) for f in found] == [
        ("charts/a::apps/Deployment/team/web", Delta.INTRODUCED)
    ]
    reverted = _chart_review("charts/a", DEPLOYMENT + ACCOUNT, DEPLOYMENT + ACCOUNT_WITHOUT_TOKEN)
    found = _findings("sa-token-automount", reverted)
    assert [(f.subject.id, f.delta) for f in found] == [
        ("charts/a::apps/Deployment/team/web", Delta.RESOLVED)
    ]


def test_each_side_of_a_chart_is_judged_with_its_own_render() -> None:
    """The account is removed at head: the missing account is introduced, not pre-existing."""
    chart = _chart_review("charts/a", DEPLOYMENT + ACCOUNT, DEPLOYMENT)
    found = _findings("service-account-missing", chart)
    assert [(f.subject.id, f.delta) for f in found] == [
        ("charts/a::apps/Deployment/team/web", Delta.INTRODUCED)
    ]


INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: team}
spec:
  rules:
    - host: web.example.com
      http:
        paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]
"""
WILD_ROLE = """\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: everything, namespace: team}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
"""


def test_rules_of_different_kinds_each_visit_their_own_objects() -> None:
    """Two rules that visit only their kinds' pairs in one evaluation: each finds its object."""
    chart = _chart_review("charts/a", None, INGRESS + WILD_ROLE)
    review_rules = ("ingress-without-tls", "rbac-wildcard")
    found = _findings_of(review_rules, chart)
    assert sorted((f.rule_id, f.subject.id) for f in found) == [
        ("ingress-without-tls", "charts/a::networking.k8s.io/Ingress/team/web"),
        ("rbac-wildcard", "charts/a::rbac.authorization.k8s.io/Role/team/everything"),
    ]


ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: binder, namespace: team}}
rules: [{{apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [{verbs}]}}]
"""


def test_the_policy_rules_rbac_rules_share_are_each_sides_own() -> None:
    """Several RBAC rules read one role's policy rules in an evaluation: the head role's, gaining
    `bind` and a wildcard, is judged by its own rules, not by the base role's."""
    chart = _chart_review("charts/a", ROLE.format(verbs="get"), ROLE.format(verbs="bind, '*'"))
    rules = ("rbac-escalation-verbs", "rbac-wildcard", "rbac-webhook-configuration")
    found = _findings_of(rules, chart)
    assert sorted((f.rule_id, f.subject.facet, f.delta) for f in found) == [
        ("rbac-escalation-verbs", "bind", Delta.INTRODUCED),
        ("rbac-escalation-verbs", "escalate", Delta.INTRODUCED),
        ("rbac-wildcard", "wildcard", Delta.INTRODUCED),
    ]
