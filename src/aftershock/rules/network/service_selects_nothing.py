"""Rule service-selects-nothing: a Service's selector matches no pod template of its release."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, text
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.release import ReleaseObjects, judge_in_release
from aftershock.rules.support.selectors import map_selector


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    spec = as_map(obj.body.get("spec"))
    selector = map_selector(spec.get("selector"))
    if selector is None or selector.empty or text(spec.get("type")) == "ExternalName":
        return
    if not release.selected_pods(selector, obj.key.namespace):
        yield Issue(
            facet="selector",
            message=f"selects {selector.describe()}, which no pod template of the release carries",
            field="spec.selector",
            tokens=("selector",),
            facts=(Fact("selector", selector.describe()),),
            summary="a selector matching no pod",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("Service",))


RULE = Rule(
    id="service-selects-nothing",
    title="Service selects no pod of the release",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="Services with a `selector` that no pod template rendered with them (in the same namespace) "
        "matches. Inferred: pods of another release could match, so the confidence is medium. ExternalName "
        "Services and Services without a selector are left alone.",
        why="A Service without endpoints accepts connections and drops them: clients see timeouts, and an "
        "Ingress in front of it answers 503, while the render looks complete.",
        example="    kind: Service\n    spec:\n      selector: {app.kubernetes.io/name: web}\n    # the Deployment's "
        "pods are labelled app.kubernetes.io/name: frontend",
        fix="Render the Service's selector and the pod labels from the same named template.",
    ),
)
