"""helm-unittest's `kubernetesProvider`: the fake cluster a test's `lookup` sees (as a ClusterSnapshot: `testrun.provider_cluster`).

Upstream (pkg/unittest/k8s_fake_client.go) gives `lookup` a client-go fake dynamic client holding
`objects`, and resolves each lookup's kind through `scheme` (keyed `<apiVersion>/<kind>`) to a
GroupVersionResource and whether it is namespaced; a kind missing from the scheme finds nothing.
The fake stores each object under the resource client-go guesses from its kind
(`meta.UnsafeGuessKindToResource`), so a scheme entry whose resource differs from that guess finds
nothing either. A test's provider is its objects followed by its suite's, and its scheme updated
by its suite's (`polishKubernetesProviderSettings`: the suite's entry wins); only a provider with
objects is used at all (`TestJob.renderV3Chart`). Objects are kept as written (no namespace is
added or dropped), and a list answer carries the fake's `metadata` (`continue` and
`resourceVersion`, both empty).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from aftershock.gocompat.goyaml import build_value
from aftershock.helmtest.structdecode import Decoder


@dataclass(frozen=True)
class SchemeEntry:
    group: str = ""
    version: str = ""
    resource: str = ""
    namespaced: bool = False


@dataclass(frozen=True)
class KubernetesProvider:
    scheme: tuple[
        tuple[str, SchemeEntry], ...
    ] = ()  # "<apiVersion>/<kind>" -> entry, in file order
    objects: tuple[Any, ...] = ()


def parse_provider(decoder: Decoder, node: Node | None) -> KubernetesProvider:
    """The `kubernetesProvider` field, decoded as upstream's struct is (unknown keys ignored)."""
    fields = decoder.fields(node, "unittest.KubernetesFakeClientProvider")
    scheme = []
    scheme_node = fields.get("scheme")
    if isinstance(scheme_node, MappingNode):
        for key, value in scheme_node.value:
            props = decoder.fields(value, "unittest.KubernetesFakeKindProps")
            gvr = decoder.fields(props.get("gvr"), "schema.GroupVersionResource")
            scheme.append(
                (
                    decoder.string(key),
                    SchemeEntry(
                        decoder.string(gvr.get("group")),
                        decoder.string(gvr.get("version")),
                        decoder.string(gvr.get("resource")),
                        decoder.boolean(props.get("namespaced")),
                    ),
                )
            )
    elif scheme_node is not None:
        decoder.fields(scheme_node, "map[string]unittest.KubernetesFakeKindProps")
    objects_node = fields.get("objects")
    objects: tuple[Any, ...] = ()
    if isinstance(objects_node, SequenceNode):
        objects = tuple(build_value(item) for item in objects_node.value)
    elif objects_node is not None and build_value(objects_node) is not None:
        decoder.fail(objects_node, "[]map[string]interface {}")
    return KubernetesProvider(tuple(scheme), objects)


def effective_provider(suite: KubernetesProvider, test: KubernetesProvider) -> KubernetesProvider:
    scheme = dict(test.scheme)
    scheme.update(dict(suite.scheme))
    return KubernetesProvider(tuple(scheme.items()), test.objects + suite.objects)


def guessed_resource(kind: str) -> str:
    """client-go's meta.UnsafeGuessKindToResource: the plural a fake client stores a kind under."""
    singular = kind.lower()
    if not singular:
        return ""
    if singular.endswith("s"):
        return singular + "es"
    if singular.endswith("y"):
        return singular[:-1] + "ies"
    return singular + "s"


def split_key(key: str) -> tuple[str, str] | None:
    """("<apiVersion>", "<kind>") of a scheme key, as path.Join(apiVersion, kind) made it."""
    api_version, _, kind = posixpath.normpath(key).rpartition("/")
    return (api_version, kind) if api_version and kind else None
