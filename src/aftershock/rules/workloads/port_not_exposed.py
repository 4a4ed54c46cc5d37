"""Rule port-not-exposed: a probe or a Service targetPort names a port the container does not expose."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue, judge_pod_objects
from aftershock.rules.support.pods import containers_of
from aftershock.rules.support.ports import (
    ContainerPort,
    container_ports,
    exposes,
    port_number,
    probe_ports,
)
from aftershock.rules.support.release import ReleaseObjects, judge_in_release
from aftershock.rules.support.selectors import map_selector


def probe_issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    pod = ctx.index.pod_spec(obj)
    if pod is None:
        return
    for container in containers_of(pod):
        ports = container_ports(container)
        for ref in probe_ports(container):
            named = isinstance(ref.port, str) and not ref.port.isdigit()
            if exposes(ports, ref.port) or (not named and not ports):
                continue  # a number is reachable without a declared port; only a declared list can miss it
            yield Issue(
                facet=f"{container.label} {ref.what}",
                message=f"probes port {ref.port} of {container.label} ({ref.path}), which it does not expose"
                f"{'' if named else ' among its declared ports'}",
                field=ref.path,
                tokens=("port",),
                confidence=None if named else Confidence.LOW,
                facts=(Fact("port", str(ref.port)),),
                summary=f"probe on port {ref.port}",
            )


def target_issues(
    obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext
) -> Iterator[Issue]:
    spec = as_map(obj.body.get("spec"))
    selector = map_selector(spec.get("selector"))
    if selector is None or selector.empty:
        return
    pods = release.selected_pods(selector, obj.key.namespace)
    declared: list[ContainerPort] = [
        p for t in pods if t.pod for c in containers_of(t.pod) for p in container_ports(c)
    ]
    if not pods:
        return  # service-selects-nothing says so
    for index, entry in enumerate(as_list(spec.get("ports"))):
        entry = as_map(entry)
        target = entry.get("targetPort", entry.get("port"))
        protocol = text(entry.get("protocol")) or "TCP"
        named = isinstance(target, str) and not target.isdigit()
        if target is None or (
            not named and port_number(target) is None and not str(target).isdigit()
        ):
            continue
        if exposes(declared, target, protocol) or (not named and not declared):
            continue
        path = f"spec.ports[{index}].targetPort"
        yield Issue(
            facet=f"targetPort {target}/{protocol}",
            message=f"sends {path} {target}/{protocol} to pods that do not expose it",
            field=path,
            tokens=("targetPort",),
            confidence=None if named else Confidence.LOW,
            facts=(Fact("port", str(target)),),
            summary=f"targetPort {target}",
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return chain(
        judge_pod_objects(ctx, probe_issues), judge_in_release(ctx, target_issues, ("Service",))
    )


RULE = Rule(
    id="port-not-exposed",
    title="Probe or targetPort names a port the container does not expose",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Liveness, readiness and startup probes (httpGet, tcpSocket, grpc) and Service `targetPort`s that "
        "name a port the container (for a Service: any container of the pods it selects in the release) does "
        "not declare, with the protocol it needs (TCP for probes). A port name that is not declared is a sure "
        "failure; a port number missing from a container's declared ports is reported with low confidence, "
        "since a process may listen on a port it does not declare.",
        why="A probe on a port nobody listens on fails: liveness restarts the pod forever, readiness keeps it "
        "out of rotation. A Service targetPort naming no container port leaves the Service without endpoints.",
        example="    ports:\n      - {name: http, containerPort: 8080}\n    livenessProbe:\n      httpGet: {path: /healthz, "
        "port: metrics}",
        fix="Name the port the process listens on, or declare it under `ports`; name ports once in values and "
        "use the name in probes and Services.",
    ),
)
