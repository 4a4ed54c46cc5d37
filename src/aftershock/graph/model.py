"""The impact graph's vocabulary: typed nodes and edges, the layers they sit in, and the graph itself.

Node ids are `<kind>:<natural id>` (e.g. `commit:<sha>`, `file:<path>`, `object:<chart>::<key id>`), so an id
says what it names and later kinds (scenario, release, cluster) can join without clashing.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import assert_never


class Layer(str, enum.Enum):
    """The columns of the graph, upstream first; `LAYER_ORDER` gives their order."""

    COMMIT = "commit"
    FILE = "file"
    UNIT = "unit"
    CHART = "chart"
    OBJECT = "object"
    RELEASE = "release"
    DOWNSTREAM_CHART = "downstream_chart"
    DOWNSTREAM_OBJECT = "downstream_object"
    WORKLOAD = "workload"
    NAMESPACE = "namespace"
    CLUSTER = "cluster"


LAYER_ORDER: tuple[Layer, ...] = tuple(Layer)


class NodeKind(str, enum.Enum):
    COMMIT = "commit"
    FILE = "file"
    UNIT = "unit"  # a unit that is neither a template nor a values key: metadata, docs, tests, ...
    TEMPLATE = "template"  # a template file of a chart, with the named templates it defines
    VALUES_KEY = "values_key"  # one changed key path of one values file
    CHART = "chart"
    OBJECT = "object"  # a rendered object that changed between base and head
    RELEASE = "release"  # a Flux HelmRelease or Argo CD Application whose chart was followed
    RELEASE_VALUE = "release_value"  # one changed key path of the values a release passes
    DOWNSTREAM_CHART = (
        "downstream_chart"  # a chart as one release installs it, with that release's values
    )
    DOWNSTREAM_OBJECT = "downstream_object"  # a changed object of a downstream chart
    WORKLOAD = "workload"  # a pod-running object a changed object is, or feeds
    NAMESPACE = "namespace"
    CLUSTER = "cluster"  # the cluster a release deploys to (its kubeConfig or Argo destination, else in-cluster)


def layer_of(kind: NodeKind) -> Layer:
    match kind:
        case NodeKind.COMMIT:
            return Layer.COMMIT
        case NodeKind.FILE:
            return Layer.FILE
        case NodeKind.UNIT | NodeKind.TEMPLATE | NodeKind.VALUES_KEY:
            return Layer.UNIT
        case NodeKind.CHART:
            return Layer.CHART
        case NodeKind.OBJECT:
            return Layer.OBJECT
        case NodeKind.RELEASE | NodeKind.RELEASE_VALUE:
            return Layer.RELEASE
        case NodeKind.DOWNSTREAM_CHART:
            return Layer.DOWNSTREAM_CHART
        case NodeKind.DOWNSTREAM_OBJECT:
            return Layer.DOWNSTREAM_OBJECT
        case NodeKind.WORKLOAD:
            return Layer.WORKLOAD
        case NodeKind.NAMESPACE:
            return Layer.NAMESPACE
        case NodeKind.CLUSTER:
            return Layer.CLUSTER
        case _:
            assert_never(kind)


class EdgeKind(str, enum.Enum):
    """Every edge points downstream: from a cause to what it affects."""

    TOUCHES = "touches"  # commit -> file it changed
    MAPS_TO = "maps_to"  # file -> unit, template or values key it holds
    IN_CHART = "in_chart"  # unit, template, values key or release value -> the chart it belongs to
    INCLUDES = "includes"  # library or subchart -> the parent chart that includes it
    RENDERS = "renders"  # chart (or the template file itself) -> rendered object
    DEFINES = "defines"  # rendered object -> the workload, namespace or release it is
    INSTALLS = "installs"  # release -> the downstream chart it installs
    INSTALLED_AS = "installed_as"  # chart -> the same chart as a release installs it
    PASSES = "passes"  # release -> a values key it passes that changed
    FEEDS = "feeds"  # ConfigMap, Secret, ServiceAccount, Service, ... -> workload that uses it
    IN_NAMESPACE = "in_namespace"  # workload (or object feeding none) -> its namespace
    PRODUCES = "produces"  # values key or release value -> object with a field it produces (see provenance)
    TARGETS = "targets"  # release -> the cluster it deploys to
    IN_CLUSTER = "in_cluster"  # namespace -> the cluster a release put it in


@dataclass(frozen=True)
class Node:
    """One node. `ref` is the id of the matching entry of the review document (sha, path, unit id,
    values file and key, chart path, object id), so a reader can look the details up there."""

    id: str
    kind: NodeKind
    label: str
    ref: str = ""
    chart: str | None = None
    facts: tuple[
        tuple[str, str], ...
    ] = ()  # short facts to show beside the label, e.g. ("change", "changed")

    @property
    def layer(self) -> Layer:
        return layer_of(self.kind)

    def fact(self, name: str) -> str | None:
        return next((value for key, value in self.facts if key == name), None)


@dataclass(frozen=True)
class Edge:
    """`source` affects `target`; `via` is the evidence in words, e.g. "envFrom configMapRef".

    `weak` marks a link that holds but rarely explains a change, e.g. a chart holding a README: paths
    that justify a node avoid weak links when they can.
    """

    source: str
    target: str
    kind: EdgeKind
    via: str = ""
    weak: bool = False


@dataclass(frozen=True)
class ImpactGraph:
    """Nodes in layer order, edges in a stable order, and the change roots (the commits)."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    roots: tuple[str, ...]

    def node(self, node_id: str) -> Node | None:
        return next((n for n in self.nodes if n.id == node_id), None)

    def outgoing(self) -> dict[str, tuple[Edge, ...]]:
        """node id -> edges leaving it, in graph order."""
        return _index(self.edges, lambda e: e.source)

    def incoming(self) -> dict[str, tuple[Edge, ...]]:
        """node id -> edges entering it, in graph order."""
        return _index(self.edges, lambda e: e.target)


def _index(edges: tuple[Edge, ...], key: Callable[[Edge], str]) -> dict[str, tuple[Edge, ...]]:
    grouped: dict[str, list[Edge]] = {}
    for edge in edges:
        grouped.setdefault(key(edge), []).append(edge)
    return {k: tuple(v) for k, v in grouped.items()}


def node_id(kind: NodeKind, natural: str) -> str:
    return f"{kind.value}:{natural}"


def chart_node_id(path: str) -> str:
    return node_id(NodeKind.CHART, path or ".")


def template_node_id(path: str) -> str:
    return node_id(NodeKind.TEMPLATE, path)


def namespace_node_id(name: str) -> str:
    return node_id(NodeKind.NAMESPACE, name)


def file_facts(
    status: str, additions: int, deletions: int, old_path: str | None
) -> tuple[tuple[str, str], ...]:
    """A changed file's facts: its status, its line counts and the path it was renamed from. The
    review document leaves them out of a file's node (graph/compact.py): its `files` entry says them."""
    facts = (("status", status), ("lines", f"+{additions} -{deletions}"))
    return facts + ((("from", old_path),) if old_path else ())


VALUES_KEY_VIA = "values key"  # the evidence of the edge from a values file to a key it changes


def values_key_edges(key_id: str, file: str, chart: str | None) -> tuple[Edge, ...]:
    """The edges a changed values key has by what it is: its file maps to it, and it is in its
    chart (the evidence naming the file). The review document leaves them out of its edges
    (graph/compact.py), since they follow from the key's node."""
    holds = Edge(node_id(NodeKind.FILE, file), key_id, EdgeKind.MAPS_TO, via=VALUES_KEY_VIA)
    if chart is None:
        return (holds,)
    return holds, Edge(key_id, chart_node_id(chart), EdgeKind.IN_CHART, via=file)
