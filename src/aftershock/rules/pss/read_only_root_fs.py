"""Rule pss-read-only-root-fs: a container's root filesystem is writable (a hardening control beyond PSS)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of, is_windows_pod


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None or is_windows_pod(
        pod
    ):  # Windows containers cannot have a read-only root filesystem
        return
    for container in containers_of(pod):
        if container.list_name == "ephemeralContainers":
            continue
        value = container.security_context.get("readOnlyRootFilesystem")
        if value is not True:
            path = container.path("securityContext", "readOnlyRootFilesystem")
            state = "false" if value is False else "not set"
            yield Issue(
                facet=container.label,
                message=f"gives {container.label} a writable root filesystem ({path}: {state})",
                field=path,
                tokens=("readOnlyRootFilesystem", container.name),
                summary=f"readOnlyRootFilesystem {state}",
            )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues)


RULE = Rule(
    id="pss-read-only-root-fs",
    title="Writable root filesystem",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=("https://kubernetes.io/docs/tasks/configure-pod-container/security-context/",),
    doc=RuleDoc(
        what="Containers and init containers of Linux pods whose `securityContext.readOnlyRootFilesystem` is "
        "not `true` (false or not set). Not a Pod Security Standards control: a hardening check, as in "
        "kube-linter, Polaris and checkov (CKV_K8S_22).",
        why="A writable root filesystem lets an intruder replace binaries and drop tools that survive until the "
        "container restarts; a read-only one confines writes to the volumes the pod declares.",
        example="    containers:\n      - name: app\n        securityContext:\n          readOnlyRootFilesystem: false",
        fix="Set `readOnlyRootFilesystem: true` and mount an `emptyDir` where the process must write "
        "(`/tmp`, a cache folder).",
    ),
)
