"""What a NetworkPolicy opens: its effective policy types and the peers that match anything."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aftershock.model.objects import RenderedObject
from aftershock.rules.support.access import as_list, as_map, text

OPEN_CIDRS = ("0.0.0.0/0", "::/0")


def is_network_policy(obj: RenderedObject) -> bool:
    return obj.key.group == "networking.k8s.io" and obj.key.kind == "NetworkPolicy"


def policy_types(spec: Mapping[str, Any]) -> frozenset[str]:
    """Declared types, or as Kubernetes defaults them: Ingress, plus Egress when egress rules exist."""
    declared = {text(t) for t in as_list(spec.get("policyTypes"))}
    if declared:
        return frozenset(declared)
    return frozenset({"Ingress"} | ({"Egress"} if spec.get("egress") is not None else set()))


def openings(spec: Mapping[str, Any], direction: str) -> frozenset[str]:
    """Descriptions of the rules of one direction ("ingress"/"egress") that let anything through."""
    peers_key = "from" if direction == "ingress" else "to"
    found: set[str] = set()
    for index, rule in enumerate(as_list(spec.get(direction))):
        rule = as_map(rule)
        ports = "any port" if not as_list(rule.get("ports")) else "some ports"
        peers = as_list(rule.get(peers_key))
        if not peers:
            found.add(f"{direction}[{index}]: every peer on {ports}")
            continue
        for peer in map(as_map, peers):
            cidr = text(as_map(peer.get("ipBlock")).get("cidr"))
            if cidr in OPEN_CIDRS:
                found.add(f"{direction}[{index}]: every address ({cidr}) on {ports}")
            if (
                "namespaceSelector" in peer
                and not as_map(peer.get("namespaceSelector"))
                and "podSelector" not in peer
            ):
                found.add(f"{direction}[{index}]: every namespace on {ports}")
    return frozenset(found)
