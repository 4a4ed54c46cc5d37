"""Rule ingress-backend-missing: an Ingress or HTTPRoute sends traffic to a Service or port its release
does not define."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text
from aftershock.rules.support.judge import Issue
from aftershock.rules.support.ports import port_number
from aftershock.rules.support.release import ReleaseObjects, judge_in_release


def backends(obj: RenderedObject) -> Iterator[tuple[str, str, Any]]:
    """(field path, service name, port number or name) of every Service backend of an Ingress or HTTPRoute."""
    spec = as_map(obj.body.get("spec"))
    if obj.key.kind == "Ingress":
        default = as_map(as_map(spec.get("defaultBackend")).get("service"))
        if default:
            yield "spec.defaultBackend.service", text(default.get("name")), _ingress_port(default)
        for i, rule in enumerate(as_list(spec.get("rules"))):
            for j, path in enumerate(as_list(as_map(as_map(rule).get("http")).get("paths"))):
                service = as_map(as_map(as_map(path).get("backend")).get("service"))
                if service:
                    yield (
                        f"spec.rules[{i}].http.paths[{j}].backend.service",
                        text(service.get("name")),
                        _ingress_port(service),
                    )
        return
    for i, rule in enumerate(as_list(spec.get("rules"))):
        for j, ref in enumerate(as_list(as_map(rule).get("backendRefs"))):
            ref = as_map(ref)
            if (
                text(ref.get("kind")) in ("", "Service")
                and text(ref.get("group")) == ""
                and not text(ref.get("namespace"))
            ):
                yield f"spec.rules[{i}].backendRefs[{j}]", text(ref.get("name")), ref.get("port")


def _ingress_port(service: Mapping[str, Any]) -> Any:
    port = as_map(service.get("port"))
    return port.get("number") if "number" in port else port.get("name")


def issues(obj: RenderedObject, release: ReleaseObjects, ctx: RuleContext) -> Iterator[Issue]:
    for path, name, port in backends(obj):
        if not name:
            continue
        services = release.named("Service", obj.key.namespace, name)
        if not services:
            yield Issue(
                facet=f"service {name}",
                message=f"routes to Service {name}, which the release does not create ({path})",
                field=path,
                tokens=(name,),
                facts=(Fact("service", name),),
                summary=f"a missing Service {name}",
            )
        elif port is not None and not any(_defines(s, port) for s in services):
            yield Issue(
                facet=f"service {name} port {port}",
                message=f"routes to port {port} of Service {name}, which "
                f"it does not define ({path})",
                field=path,
                tokens=(str(port),),
                facts=(Fact("service", name), Fact("port", str(port))),
                summary=f"a missing port {port}",
            )


def _defines(service: RenderedObject, port: Any) -> bool:
    ports = [as_map(p) for p in as_list(as_map(service.body.get("spec")).get("ports"))]
    if port_number(port) is not None:
        return any(port_number(p.get("port")) == port for p in ports)
    return any(text(p.get("name")) == text(port) for p in ports)


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_in_release(ctx, issues, ("Ingress", "HTTPRoute"))


RULE = Rule(
    id="ingress-backend-missing",
    title="Ingress or HTTPRoute names a missing Service or port",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    check=check,
    doc=RuleDoc(
        what="Ingress backends (rules and defaultBackend) and Gateway API HTTPRoute `backendRefs` (Services of "
        "the same namespace) naming a Service that no object rendered with them is, or a port (number or name) "
        "that Service does not define. Resource backends are left alone. Inferred: the Service could come from "
        "another release.",
        why="The route is accepted and answers 503 (or 500 for an HTTPRoute): the outage appears only when "
        "traffic arrives.",
        example="    backend:\n      service:\n        name: web\n        port: {number: 8080}   # the Service web "
        "defines port 80 only",
        fix="Name the Service and its port from the same values or helper the Service uses.",
    ),
)
