"""Rule pss-host-path: a pod mounts a path of the node (hostPath volume, PSS baseline)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import volumes_of
from aftershock.rules.support.pss import PSS_REFERENCE, SENSITIVE_HOST_PATHS


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for path, name, volume in volumes_of(pod):
        if "hostPath" not in volume:
            continue
        host_path = text(as_map(volume.get("hostPath")).get("path")) or "?"
        sensitive = host_path.rstrip("/") in SENSITIVE_HOST_PATHS or host_path == "/"
        yield Issue(
            facet=f"volume {name}",
            message=f"mounts the node's {host_path} (volume {name}, {path}.hostPath)",
            field=f"{path}.hostPath",
            tokens=("hostPath", host_path),
            items=frozenset({host_path}),
            grade=2 if sensitive else 1,
            severity=Severity.CRITICAL if sensitive else None,
            facts=(Fact("host_path", host_path),),
            summary=f"hostPath {host_path}",
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"hostPath"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-host-path",
    title="hostPath volume",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Volumes of type `hostPath` (Pod Security Standards, baseline, control "HostPath Volumes": '
        "`spec.volumes[*].hostPath` must be undefined). The root, /etc, /proc, /sys, the kubelet's and the "
        "container runtimes' folders and sockets are graded critical. A changed path is a widening.",
        why="A hostPath volume reads or writes the node's filesystem. The container runtime socket or the "
        "kubelet's folder give control of every container on the node; /etc or / give the node itself. "
        "Even a harmless-looking path ties the pod to one node's state.",
        example="    volumes:\n      - name: docker\n        hostPath:\n          path: /var/run/docker.sock",
        fix="Use an emptyDir, a PersistentVolumeClaim, a projected or CSI volume instead. For node agents that "
        "must read the node, mount the narrowest path read-only and run them in a namespace that allows it.",
    ),
)
