"""Ports a container declares and ports that name them (probes, lifecycle handlers, Service targetPorts)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from aftershock.diff.paths import IndexSegment, KeySegment
from aftershock.rules.support.access import as_list, as_map, is_map, text
from aftershock.rules.support.pods import Container, PodSpec, containers_of, extended_path

PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("httpGet", "tcpSocket", "grpc")


@dataclass(frozen=True)
class ContainerPort:
    path: str
    name: str
    number: int | None
    protocol: str  # TCP unless set, as the API server defaults it


@dataclass(frozen=True)
class PortReference:
    """A port named by a probe of a container: a number or a port name."""

    path: str
    what: str  # e.g. "livenessProbe.httpGet"
    port: int | str


def port_number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def is_port_reference(value: Any) -> TypeGuard[int | str]:
    """A port number (an int, not a bool) or a non-empty port name."""
    return port_number(value) is not None or (isinstance(value, str) and value != "")


def declared_ports(pod: PodSpec) -> Iterator[tuple[Container, ContainerPort]]:
    """Every port the containers of a pod declare, with its container."""
    for container in containers_of(pod):
        for port in container_ports(container):
            yield container, port


def container_ports(container: Container) -> tuple[ContainerPort, ...]:
    """The ports a container declares, read once for every rule that asks."""
    found = container.derived.get("ports")
    if found is None:
        found = container.derived["ports"] = tuple(_declared(container))
    return found


def _declared(container: Container) -> Iterator[ContainerPort]:
    for index, entry in enumerate(as_list(container.body.get("ports"))):
        if is_map(entry):
            path = extended_path(container.prefix_text, (KeySegment("ports"), IndexSegment(index)))
            protocol = text(entry.get("protocol")) or "TCP"
            yield ContainerPort(
                path, text(entry.get("name")), port_number(entry.get("containerPort")), protocol
            )


def probe_ports(container: Container) -> Iterator[PortReference]:
    """The port of each probe handler (httpGet, tcpSocket, grpc) of the container."""
    for probe in PROBES:
        handlers = container.body.get(probe)
        if not is_map(handlers):
            continue  # no such probe (most containers lack one): none of its handlers to read
        for handler in PROBE_HANDLERS:
            port = as_map(handlers.get(handler)).get("port")
            if is_port_reference(port):
                yield PortReference(
                    container.path(probe, handler, "port"), f"{probe}.{handler}", port
                )


def exposes(ports: Sequence[ContainerPort], port: int | str, protocol: str = "TCP") -> bool:
    """Whether `port` (a number or a name) is one of `ports` with that protocol."""
    if isinstance(port, str) and not port.isdigit():
        return any(p.name == port and p.protocol == protocol for p in ports)
    number = int(port)
    return any(p.number == number and p.protocol == protocol for p in ports)
