"""Rule config-change-not-rolled: a ConfigMap or Secret changes, and the workloads reading it are not rolled.

A workload reads the object by a fixed name (env, envFrom, a volume, a projected volume); when the
object's data changes and the workload's pod template does not, Kubernetes starts no new pod.
"""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, dig, text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.pods import PodSpec, containers_of
from aftershock.rules.workloads.env_reference_missing import references

CONFIG_KINDS = frozenset({"ConfigMap", "Secret"})
DATA_PREFIXES = ("data", "binaryData", "stringData")
# Annotations of controllers that restart a workload when what it reads changes.
RELOADERS = ("reloader.stakater.com/", "configmap.reloader.stakater.com/", "secret.reloader")
ROLLED_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Rollout"})
VOLUME_SOURCES = (("configMap", "name", "ConfigMap"), ("secret", "secretName", "Secret"))


def reads(pod: PodSpec) -> Iterator[tuple[str, str, bool]]:
    """(kind, name, whether a running pod ever sees a new value) of each ConfigMap and Secret the
    pod reads: env never updates, nor a subPath mount; a mounted volume's files do, eventually."""
    for container in containers_of(pod):
        for _, kind, name, _ in references(container):
            yield kind, name, False
    sub_path_mounts = {
        text(as_map(m).get("name"))
        for c in containers_of(pod)
        for m in as_list(c.body.get("volumeMounts"))
        if as_map(m).get("subPath")
    }
    for volume in map(as_map, as_list(pod.spec.get("volumes"))):
        updates = text(volume.get("name")) not in sub_path_mounts
        for field, name_field, kind in VOLUME_SOURCES:
            source = as_map(volume.get(field))
            if source:
                yield kind, text(source.get(name_field)), updates
        for item in map(as_map, as_list(as_map(volume.get("projected")).get("sources"))):
            for field, _, kind in VOLUME_SOURCES:
                source = as_map(item.get(field))
                if source:
                    yield kind, text(source.get("name")), updates


def check(ctx: RuleContext) -> Iterator[Concern]:
    changed = {
        (p.chart.chart, p.chart.release, p.chart.scenario, p.key.kind, p.key.namespace, p.key.name)
        for p in ctx.index.pairs_named(CONFIG_KINDS)
        if p.change is not None
        and p.base is not None
        and p.head is not None
        and any(f.path.startswith(DATA_PREFIXES) for f in p.change.fields)
    }
    if not changed:
        return
    for pair in ctx.index.pod_pairs:
        if pair.key.kind not in ROLLED_KINDS:
            continue
        pod = ctx.index.pod_spec(pair.head) if pair.head is not None else None
        if pod is None or pair.base is None or _rolled(pair, pod) or _reloaded(pair.head, pod):
            continue
        where = (pair.chart.chart, pair.chart.release, pair.chart.scenario)
        stale = sorted(
            {
                (kind, name, updates)
                for kind, name, updates in reads(pod)
                if (*where, kind, pair.key.namespace, name) in changed
            }
        )
        if stale:
            yield _concern(ctx, pair, stale)


def _rolled(pair: ObjectPair, pod: PodSpec) -> bool:
    """Whether the pod template differs between the refs, so the workload rolls anyway (a checksum
    annotation the report leaves out as noise included)."""
    assert pair.base is not None and pair.head is not None
    keys = [str(getattr(segment, "key", "")) for segment in pod.metadata_prefix[:-1]]
    return bool(dig(pair.base.body, *keys) != dig(pair.head.body, *keys))


def _reloaded(obj: RenderedObject | None, pod: PodSpec) -> bool:
    annotations = {
        **as_map(as_map(obj.body.get("metadata") if obj else None).get("annotations")),
        **as_map(pod.metadata.get("annotations")),
    }
    return any(str(k).startswith(RELOADERS) for k in annotations)


def _concern(ctx: RuleContext, pair: ObjectPair, stale: list[tuple[str, str, bool]]) -> Concern:
    named = ", ".join(f"{kind} {name}" for kind, name, _ in stale)
    never = not all(updates for _, _, updates in stale)
    how = (
        "its pods keep the old values until they restart (read as env or through a subPath)"
        if never
        else "the mounted files update in place, but the process may not read them again"
    )
    return Concern(
        subject=pair.subject("config-not-rolled"),
        message=f"{pair.display} reads {named}, which the change edits, and its pod template does "
        f"not change, so no new pod starts: {how}",
        delta=Delta.INTRODUCED,
        severity=Severity.MEDIUM if never else Severity.LOW,
        facts=(Fact("reads", named),),
        location=ctx.index.locate_object(pair, ("configMap", "secret", "envFrom"), in_change=False),
        path=pair.impact_path(),
        scope_paths=pair.scope_paths,
    )


RULE = Rule(
    id="config-change-not-rolled",
    title="Config change does not roll the workloads that read it",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="A ConfigMap or Secret whose data the change edits, read by a workload of the same render by "
        "its fixed name (env `valueFrom`, `envFrom`, a volume, a projected volume), where the workload's "
        "pod template does not change. Medium when it is read as env or through a `subPath` mount (a "
        "running pod never sees the new value); Low when only mounted as a volume (the files update, "
        "the process may not re-read them). Workloads annotated for a reloader "
        "(`reloader.stakater.com/…`) are left alone.",
        why="Kubernetes rolls a workload only when its pod template changes. The review shows the new "
        "configuration, the cluster keeps running the old one until some pod restarts for another "
        "reason: the change seems deployed and is not, and the next unrelated restart applies it by "
        "surprise.",
        example="    # configmap.yaml changes LOG_LEVEL; deployment.yaml reads it with envFrom and has no\n"
        "    # checksum/config annotation",
        fix="Add a checksum of the object to the pod template "
        '(`checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}`), '
        "name the object by its content hash, or run a reloader.",
    ),
)
