"""Rule pss-volume-types: volume types outside the restricted set (PSS restricted)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import volumes_of
from aftershock.rules.support.pss import PSS_REFERENCE, RESTRICTED_VOLUME_SOURCES


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for path, name, volume in volumes_of(pod):
        sources = sorted(k for k in volume if isinstance(k, str) and k != "name")
        if (
            not sources
            or "hostPath" in sources
            or any(s in RESTRICTED_VOLUME_SOURCES for s in sources)
        ):
            continue  # hostPath is reported by pss-host-path
        kind = sources[0]
        yield Issue(
            facet=f"volume {name}",
            message=f"uses a {kind} volume ({path}.{kind})",
            field=f"{path}.{kind}",
            tokens=(kind,),
            items=frozenset({kind}),
            facts=(Fact("volume_type", kind),),
            summary=f"{kind} volume",
        )


# Every issue is a field so named: pods without one are not read.
NEEDS = frozenset({"volumes"})


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_pod_objects(ctx, issues, NEEDS)


RULE = Rule(
    id="pss-volume-types",
    title="Volume type outside the restricted set",
    category=Category.SECURITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(PSS_REFERENCE,),
    doc=RuleDoc(
        what='Pod Security Standards, restricted, control "Volume Types": each volume must be one of configMap, '
        "csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected or secret. hostPath volumes are "
        "reported by pss-host-path instead, so they are not reported twice.",
        why="Inline volume sources (nfs, iscsi, rbd, gitRepo, cloud disks, flexVolume, ...) let a pod attach "
        "storage directly with credentials or node-side drivers, bypassing the PersistentVolume layer the "
        "cluster administrators control; gitRepo runs git on the node.",
        example="    volumes:\n      - name: share\n        nfs:\n          server: 10.0.0.5\n          path: /exports",
        fix="Declare the storage as a PersistentVolume (or a StorageClass) and mount it through a "
        "PersistentVolumeClaim; replace gitRepo with an init container that clones into an emptyDir.",
    ),
)
