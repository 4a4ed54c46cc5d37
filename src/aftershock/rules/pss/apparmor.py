"""Rule pss-apparmor: a pod or container overrides the default AppArmor profile (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.diff.paths import KeySegment, format_path
from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE

ANNOTATION_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
ALLOWED_FIELD_TYPES = ("RuntimeDefault", "Localhost")


def allowed_annotation(value: str) -> bool:
    return value in ("", "runtime/default") or value.startswith("localhost/")


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    annotations = as_map(pod.metadata.get("annotations"))
    for key in sorted(
        k for k in annotations if isinstance(k, str) and k.startswith(ANNOTATION_PREFIX)
    ):
        value = text(annotations[key])
        if not allowed_annotation(value):
            container = key.removeprefix(ANNOTATION_PREFIX)
            path = format_path((*pod.metadata_prefix, KeySegment("annotations"), KeySegment(key)))
            yield Issue(
                facet=f"annotation {container}",
                message=f"sets AppArmor profile {value!r} for container {container} ({path})",
                field=path,
                tokens=(value,),
                facts=(Fact("profile", value),),
                summary=f"AppArmor {value}",
            )
    if ctx.kube_version < (1, 30):
        return
    sources = [
        ("pod", pod.path("securityContext", "appArmorProfile", "type"), pod_security_context(pod))
    ]
    sources += [
        (c.label, c.path("securityContext", "appArmorProfile", "type"), c.security_context)
        for c in containers_of(pod)
    ]
    for label, path, context in sources:
        kind = dig(context, "appArmorProfile", "type")
        if kind is not None and kind not in ALLOWED_FIELD_TYPES:
            yield Issue(
                facet=f"field {label}",
                message=f"sets AppArmor profile type {text(kind)!r} for the {label} ({path})",
                field=path,
                tokens=("appArmorProfile", text(kind)),
                facts=(Fact("type", text(kind)),),
                summary=f"AppArmor {text(kind)}",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-apparmor",
    title="AppArmor profile overridden",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, baseline, control "AppArmor". All versions: pod template annotations '
        "`container.apparmor.security.beta.kubernetes.io/*` must be empty, `runtime/default` or `localhost/*`. "
        "From Kubernetes 1.30 (the target version decides): `securityContext.appArmorProfile.type` of the pod "
        "and of each container must be undefined, `RuntimeDefault` or `Localhost`.",
        why="`unconfined` removes the mandatory access control the runtime applies to every container, which "
        "blocks writes to /proc and /sys, mounts and raw sockets; it is a common step in container escapes.",
        example="    securityContext:\n      appArmorProfile:\n        type: Unconfined",
        fix="Remove the override, or use `RuntimeDefault`, or a `Localhost` profile written for the workload.",
    ),
)
