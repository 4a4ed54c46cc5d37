"""Rule pss-seccomp-baseline: seccomp explicitly disabled (PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.diff.paths import KeySegment, format_path
from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, pod_security_context
from aftershock.rules.support.pss import PSS_REFERENCE

POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
CONTAINER_ANNOTATION_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    if ctx.kube_version < (1, 19):
        annotations = as_map(pod.metadata.get("annotations"))
        for key in sorted(k for k in annotations if isinstance(k, str)):
            if (
                key == POD_ANNOTATION or key.startswith(CONTAINER_ANNOTATION_PREFIX)
            ) and annotations[key] == "unconfined":
                path = format_path(
                    (*pod.metadata_prefix, KeySegment("annotations"), KeySegment(key))
                )
                yield Issue(
                    facet=f"annotation {key}",
                    message=f"disables seccomp ({path}: unconfined)",
                    field=path,
                    tokens=("unconfined",),
                    summary="seccomp unconfined",
                )
        return
    sources = [
        ("pod", pod.path("securityContext", "seccompProfile", "type"), pod_security_context(pod))
    ]
    sources += [
        (c.label, c.path("securityContext", "seccompProfile", "type"), c.security_context)
        for c in containers_of(pod)
    ]
    for label, path, context in sources:
        if dig(context, "seccompProfile", "type") == "Unconfined":
            yield Issue(
                facet=label,
                message=f"disables seccomp for the {label} ({path}: Unconfined)",
                field=path,
                tokens=("Unconfined",),
                summary=f"{label} seccomp Unconfined",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-seccomp-baseline",
    title="Seccomp disabled",
    category=Category.SECURITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, baseline, control "Seccomp": `securityContext.seccompProfile.type` of '
        "the pod or any container must not be `Unconfined` (Kubernetes 1.19 and later); before 1.19 the "
        "annotations `seccomp.security.alpha.kubernetes.io/pod` and "
        "`container.seccomp.security.alpha.kubernetes.io/*` must not be `unconfined`.",
        why="Seccomp filters the system calls a container may make. `Unconfined` lets it call everything the "
        "kernel offers, including the calls most kernel exploits need.",
        example="    securityContext:\n      seccompProfile:\n        type: Unconfined",
        fix="Use `type: RuntimeDefault`, or a `Localhost` profile that allows what the workload needs.",
    ),
)
