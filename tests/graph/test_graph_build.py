"""The impact graph built from real reviews: the example history and small repositories rendered by Helm."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from aftershock.graph import (
    EdgeKind,
    Layer,
    NodeKind,
    blast_radius,
    build_graph,
    document_path,
    expand_graph,
    explain,
    find_node,
    graph_document,
    graph_section,
)
from aftershock.model.errors import ConfigError
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.provenance.document import provenance_edges
from aftershock.report.canonical import review_document
from aftershock.report.comment.mermaid import mermaid
from aftershock.report.reading import readable_document
from charts import chart_yaml
from gitrepo import commit, make_repo

FRAGMENT = (
    Path(__file__).resolve().parents[2] / "src" / "aftershock" / "graph" / "schema_fragment.json"
)
LIB = "charts/library/platform-lib"
ORDERS_WORKLOAD = "workload:charts/apps/orders::apps/Deployment/orders/orders"


@pytest.fixture(scope="module")
def lib_review(example_repo, renderer):
    """The example's library change: a label added in platform-lib's _labels.tpl."""
    request = ReviewRequest(
        repo=example_repo, base="state-01-orders-replicas", head="state-02-lib-part-of-label"
    )
    return run_review(request, renderer)


def kinds(graph, node_ids):
    return [graph.node(i).kind for i in node_ids]


def test_library_change_reaches_workload_and_namespace_through_the_app_chart(lib_review):
    graph = build_graph(lib_review)
    reach = blast_radius(graph).get("namespace:orders")
    assert reach is not None
    assert kinds(graph, reach.nodes) == [
        NodeKind.COMMIT,
        NodeKind.FILE,
        NodeKind.TEMPLATE,
        NodeKind.CHART,
        NodeKind.CHART,
        NodeKind.OBJECT,
        NodeKind.WORKLOAD,
        NodeKind.NAMESPACE,
    ]
    assert reach.nodes[2:5] == (
        f"template:{LIB}/templates/_labels.tpl",
        f"chart:{LIB}",
        "chart:charts/apps/orders",
    )
    assert [e.kind for e in reach.path] == [
        EdgeKind.TOUCHES,
        EdgeKind.MAPS_TO,
        EdgeKind.IN_CHART,
        EdgeKind.INCLUDES,
        EdgeKind.RENDERS,
        EdgeKind.DEFINES,
        EdgeKind.IN_NAMESPACE,
    ]


def test_a_chart_is_justified_by_its_template_rather_than_its_readme(lib_review):
    """The commit changed platform-lib's README too; the README is a weak link and loses."""
    graph = build_graph(lib_review)
    readme = f"unit:docs:{LIB}/README.md"
    assert any(e.source == readme and e.weak for e in graph.edges)
    assert readme not in blast_radius(graph).get(f"chart:{LIB}").nodes
    # the document says `weak` only of a weak link
    edges = graph_document(graph, blast_radius(graph))["edges"]
    assert {e["source"] for e in edges if "weak" in e} == {readme}
    assert all(e["weak"] is True for e in edges if "weak" in e)


def test_explain_names_every_object_feeding_the_workload_and_what_it_reaches(lib_review):
    graph = build_graph(lib_review)
    why = explain(graph, ORDERS_WORKLOAD)
    last_hops = {(p[-1].kind, graph.node(p[-1].source).label, p[-1].via) for p in why.causes}
    assert (EdgeKind.DEFINES, "Deployment.apps orders/orders", "is this workload") in last_hops
    assert (EdgeKind.FEEDS, "ConfigMap orders/orders", "volume configMap") in last_hops
    assert (EdgeKind.FEEDS, "ServiceAccount orders/orders", "serviceAccountName") in last_hops
    assert (EdgeKind.FEEDS, "Service orders/orders", "Service selector") in last_hops
    assert (
        why.causes[0] == blast_radius(graph).get(ORDERS_WORKLOAD).path
    )  # the justification comes first
    assert [r.node for r in why.effects] == ["namespace:orders"]
    assert f"chart:{LIB}" in why.upstream and "chart:charts/apps/payments" not in why.upstream


def test_radius_counts_every_layer_and_refs_match_the_review_document(lib_review):
    graph = build_graph(lib_review)
    radius = blast_radius(graph)
    counts = dict(radius.counts)
    assert list(counts) == list(Layer)
    assert sum(counts.values()) == radius.total == len(radius.reached)
    assert (
        counts[Layer.COMMIT] == 1 and counts[Layer.CHART] == 3 and counts[Layer.NAMESPACE] == 2
    )  # orders, payments
    doc = review_document(lib_review)
    objects = {n.ref for n in graph.nodes if n.kind is NodeKind.OBJECT}
    assert objects and objects <= {o["id"] for o in doc["objects"]}
    assert {f["path"] for f in doc["files"]} == {
        n.ref for n in graph.nodes if n.kind is NodeKind.FILE
    }


def test_graph_section_follows_its_schema_fragment_and_names_nodes_by_index(lib_review):
    graph = build_graph(lib_review)
    section = graph_section(graph, blast_radius(graph))
    fragment = json.loads(FRAGMENT.read_text())
    jsonschema.Draft202012Validator(fragment).validate(section)
    ids = [n["id"] for n in section["nodes"]]
    node = section["nodes"][ids.index("namespace:orders")]
    assert node["via"] == [ids.index(ORDERS_WORKLOAD), "in_namespace"]
    assert all("via" not in n for n in section["nodes"] if n["id"] in section["roots"])
    # an edge is [source, target, kind, via] by node index, and says it is weak only when it is
    readme = f"unit:docs:{LIB}/README.md"
    weak = [e for e in section["edges"] if len(e) == 5]
    assert [(ids[e[0]], e[4]) for e in weak] == [(readme, True)]
    touches = next(e for e in section["edges"] if e[2] == "touches")
    assert ids[touches[0]] in section["roots"] and ids[touches[1]].startswith("file:")
    # following `via` by index back to a root rebuilds the radius's path, as the explorer does
    at, path = ids.index(ORDERS_WORKLOAD), []
    while "via" in section["nodes"][at]:
        path.insert(
            0, (ids[section["nodes"][at]["via"][0]], section["nodes"][at]["via"][1], ids[at])
        )
        at = section["nodes"][at]["via"][0]
    justified = blast_radius(graph).get(ORDERS_WORKLOAD).path
    assert path == [(e.source, e.kind.value, e.target) for e in justified]
    bad = json.loads(json.dumps(section))
    bad["edges"][0][0] = ids[bad["edges"][0][0]]  # a node by its id: not the section's form
    assert not jsonschema.Draft202012Validator(fragment).is_valid(bad)


def test_the_graph_section_expands_to_every_field_of_the_graph(example_repo, renderer):
    """What the section leaves out (layers, distances, a node's label, ref and chart where its id
    says them, a file's and a values key's facts, the values keys' edges) comes back, in order, from
    what the review document keeps: the section expands to the whole graph document."""
    request = ReviewRequest(repo=example_repo, base="demo-base", head="demo-head")
    review = run_review(request, renderer)
    graph = build_graph(review, provenance_edges(review.provenance))
    radius = blast_radius(graph)
    doc = review_document(review)
    keys = [n for n in doc["graph"]["nodes"] if n["kind"] == "values_key"]
    assert keys and all(set(n) == {"id", "kind"} for n in keys)
    assert doc["graph"]["values_key_edges_at"] > 0
    assert len(doc["graph"]["edges"]) < len(graph.edges)
    whole = expand_graph(doc["graph"], doc["values_changes"], doc["files"])
    assert whole == graph_document(graph, radius)
    assert readable_document(doc)["graph"] == whole


def test_each_nodes_last_step_rebuilds_the_path_that_justifies_it(lib_review):
    """A node's document says only its last step (`via`); followed back to a root, the steps are the
    radius's path, node for node and edge for edge."""
    graph = build_graph(lib_review)
    radius = blast_radius(graph)
    doc = graph_document(graph, radius)
    nodes = {n["id"]: n for n in doc["nodes"]}
    for node in graph.nodes:
        reach = radius.get(node.id)
        path, kinds = document_path(nodes, node.id)
        if reach is None:
            assert (path, kinds) == ([], []) and nodes[node.id]["via"] is None
        else:
            assert path == list(reach.nodes) and kinds == [e.kind.value for e in reach.path]
    path, kinds = document_path(nodes, "namespace:orders")
    assert kinds[-2:] == ["defines", "in_namespace"] and path[-1] == "namespace:orders"
    assert len(path) == nodes["namespace:orders"]["distance"] + 1 and path[0] in doc["roots"]


def test_schema_fragment_names_every_node_edge_and_layer_kind():
    props = json.loads(FRAGMENT.read_text())["properties"]
    assert props["nodes"]["items"]["properties"]["kind"]["enum"] == [k.value for k in NodeKind]
    assert props["edges"]["items"]["prefixItems"][2]["enum"] == [k.value for k in EdgeKind]
    assert props["layers"]["items"]["properties"]["id"]["enum"] == [k.value for k in Layer]
    kinds = props["layers"]["items"]["properties"]["kinds"]["items"]["enum"]
    assert kinds == [k.value for k in NodeKind]
    via = props["nodes"]["items"]["properties"]["via"]["prefixItems"][1]
    assert via["enum"] == [k.value for k in EdgeKind]


def test_mermaid_summary_is_bounded_and_keeps_whole_paths(lib_review):
    graph = build_graph(lib_review)
    radius = blast_radius(graph)
    text = mermaid(graph, radius, max_nodes=10)
    declared = [line for line in text.splitlines() if line.startswith("    n")]
    assert text.startswith("flowchart LR\n") and 0 < len(declared) <= 10
    assert (
        '["orders"]' in text or '["payments"]' in text
    ) and "-->|in_namespace|" in text  # the deepest layer survives the cut
    assert f"%% {radius.total - len(declared)} more node(s)" in text
    assert len(
        [line for line in mermaid(graph, radius).splitlines() if line.startswith("    n")]
    ) == min(40, radius.total)


def test_find_node_takes_an_id_or_a_unique_part_and_says_when_it_cannot(lib_review):
    graph = build_graph(lib_review)
    assert find_node(graph, ORDERS_WORKLOAD).id == ORDERS_WORKLOAD
    assert find_node(graph, "Deployment orders").id == ORDERS_WORKLOAD
    with pytest.raises(ConfigError, match="2 nodes match"):
        find_node(graph, "_labels.tpl")
    with pytest.raises(ConfigError, match="no node"):
        find_node(graph, "no-such-thing")
    with pytest.raises(ConfigError, match="no node"):
        explain(graph, "object:nope")


def test_release_values_reach_the_downstream_chart_objects_through_the_release(
    example_repo, renderer
):
    request = ReviewRequest(
        repo=example_repo,
        base="state-03-lib-security-context-helpers",
        head="state-04-orders-release-tracing",
    )
    graph = build_graph(run_review(request, renderer))
    radius = blast_radius(graph)
    downstream = [
        r for r in radius.reached if graph.node(r.node).kind is NodeKind.DOWNSTREAM_OBJECT
    ]
    assert downstream
    path = kinds(graph, downstream[0].nodes)
    assert path[:6] == [
        NodeKind.COMMIT,
        NodeKind.FILE,
        NodeKind.VALUES_KEY,
        NodeKind.CHART,
        NodeKind.OBJECT,
        NodeKind.RELEASE,
    ]
    assert path[6:] == [NodeKind.DOWNSTREAM_CHART, NodeKind.DOWNSTREAM_OBJECT]
    assert any(n.kind is NodeKind.RELEASE_VALUE and radius.get(n.id) for n in graph.nodes)


CONSUMER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: nginx
          envFrom: [{configMapRef: {name: settings}}]
          env:
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: token, key: value}}
"""


def test_a_changed_configmap_reaches_the_unchanged_workload_that_reads_it(tmp_path, renderer):
    repo = make_repo(tmp_path)
    files = {
        "app/Chart.yaml": chart_yaml("app"),
        "app/values.yaml": "level: info\n",
        "app/templates/deploy.yaml": CONSUMER,
        "app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata:\n  LEVEL: {{ .Values.level }}\n",
        "app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: token}\nstringData: {value: s3cr3t}\n",
        "app/templates/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unused}\ndata: {a: b}\n",
    }
    base = commit(repo, files, "feat: app")
    commit(
        repo,
        {
            "app/values.yaml": "level: debug\n",
            "app/templates/other.yaml": files["app/templates/other.yaml"].replace("b}", "c}"),
        },
        "chore: debug",
    )
    graph = build_graph(run_review(ReviewRequest(repo=repo, base=base), renderer))
    workload = "workload:app::apps/Deployment/default/api"
    feeds = [e for e in graph.edges if e.target == workload and e.kind is EdgeKind.FEEDS]
    assert [(e.source, e.via) for e in feeds] == [
        ("object:app::core/ConfigMap/default/settings", "envFrom configMapRef")
    ]
    assert graph.node(workload).fact("object changed") == "no"
    assert (
        graph.node("object:app::apps/Deployment/default/api") is None
    )  # the Deployment itself did not change
    lone = [e for e in graph.edges if e.source == "object:app::core/ConfigMap/default/unused"]
    assert [(e.kind, e.target) for e in lone] == [(EdgeKind.IN_NAMESPACE, "namespace:default")]
    assert blast_radius(graph).get(workload) is not None
