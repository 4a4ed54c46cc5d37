"""parse_manifests splits rendered templates as Helm does and keys every object."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from aftershock.ingest import object_documents as manifests
from aftershock.ingest.object_documents import parse_manifests
from aftershock.model.errors import MalformedInputError
from aftershock.model.objects import ObjectKey

DEPLOYMENT = """\
# Source comment Helm users often leave
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
"""


def _keys(manifests: dict[str, str], namespace: str = "prod") -> list[ObjectKey]:
    return [obj.key for obj in parse_manifests(manifests, chart="charts/app", namespace=namespace)]


def test_documents_become_objects_with_group_kind_namespace_and_name() -> None:
    objects = parse_manifests(
        {
            "app/templates/deploy.yaml": DEPLOYMENT,
            "app/templates/svc.yaml": "---\napiVersion: v1\nkind: Service\nmetadata:\n"
            "  name: web\n  namespace: other\n---\n",
        },
        chart="charts/app",
        namespace="prod",
    )
    assert [obj.key for obj in objects] == [
        ObjectKey("apps", "Deployment", "prod", "web"),
        ObjectKey("", "Service", "other", "web"),
    ]
    deploy = objects[0]
    assert deploy.api_version == "apps/v1"
    assert deploy.body["spec"] == {"replicas": 2}
    assert (deploy.chart, deploy.template, deploy.document_index) == (
        "charts/app",
        "app/templates/deploy.yaml",
        0,
    )


def test_skips_notes_partials_empty_comment_only_and_kindless_documents() -> None:
    keys = _keys(
        {
            "app/templates/NOTES.txt": "kind: ConfigMap\nmetadata: {name: notes}\n",
            "app/charts/sub/templates/NOTES.txt": "Thanks: for installing\n",
            "app/templates/_helpers.tpl": "kind: ConfigMap\n",
            "app/templates/empty.yaml": "\n  \n",
            "app/templates/comments.yaml": "# nothing here\n---\n# nor here\n",
            "app/templates/scalar.yaml": "just text\n---\n- a list\n",
            "app/templates/nokind.yaml": "apiVersion: v1\nmetadata: {name: x}\n",
            "app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\n",
        }
    )
    assert keys == [ObjectKey("", "ConfigMap", "prod", "kept")]


def test_splits_like_helm_including_a_separator_glued_to_content() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
        "---apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"
        "--- \n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
        "data:\n  script: |\n    ---\n    not a separator\n"
    )
    objects = parse_manifests({"app/templates/cm.yaml": text}, chart="c", namespace="ns")
    assert [obj.key.name for obj in objects] == ["a", "b", "c"]
    assert [obj.document_index for obj in objects] == [0, 1, 2]
    assert objects[2].body["data"]["script"] == "---\nnot a separator\n"


def test_cluster_scoped_kinds_have_no_namespace() -> None:
    keys = _keys(
        {
            "app/templates/rbac.yaml": "apiVersion: rbac.authorization.k8s.io/v1\n"
            "kind: ClusterRole\nmetadata: {name: r, namespace: ignored}\n",
            "app/templates/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n",
            "app/templates/issuer.yaml": "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\n"
            "metadata: {name: le}\n",
        }
    )
    assert keys == [
        ObjectKey("cert-manager.io", "ClusterIssuer", "", "le"),
        ObjectKey("", "Namespace", "", "team"),
        ObjectKey("rbac.authorization.k8s.io", "ClusterRole", "", "r"),
    ]


def test_scope_declared_by_a_rendered_crd_is_honoured() -> None:
    crd = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata: {name: widgets.example.com}\n"
        "spec: {group: example.com, scope: Cluster, names: {kind: Widget}}\n"
    )
    keys = _keys(
        {
            "app/templates/crd.yaml": crd,
            "app/templates/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\n"
            "metadata: {name: w}\n---\napiVersion: other.io/v1\nkind: Widget\n"
            "metadata: {name: w}\n",
        }
    )
    assert ObjectKey("example.com", "Widget", "", "w") in keys
    assert ObjectKey("other.io", "Widget", "prod", "w") in keys


def test_list_kinds_expand_into_their_items() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one}\n"
        "- apiVersion: v1\n  kind: ConfigMapList\n  items:\n"
        "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: two, namespace: x}}\n"
        "- not an object\n"
    )
    objects = parse_manifests({"app/templates/list.yaml": text}, chart="c", namespace="ns")
    assert [obj.key for obj in objects] == [
        ObjectKey("", "ConfigMap", "ns", "one"),
        ObjectKey("", "ConfigMap", "x", "two"),
    ]


def test_yaml_is_read_with_helm_semantics() -> None:
    (obj,) = parse_manifests(
        {
            "app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
            "data:\n  enabled: yes\n  mode: 0777\n  n: 1\n"
        },
        chart="c",
        namespace="ns",
    )
    assert obj.body["data"] == {"enabled": True, "mode": 511, "false": 1}


def test_invalid_yaml_names_template_and_line() -> None:
    text = "\n\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n\nkind: Pod\nb: c: d\n"
    with pytest.raises(MalformedInputError) as caught:
        parse_manifests({"app/templates/cm.yaml": text}, chart="c", namespace="ns")
    message = str(caught.value)
    assert message.startswith("rendered template is not valid YAML: mapping values are not allowed")
    assert message.endswith("(app/templates/cm.yaml:9); fix the template so it renders valid YAML")


def _documents_by_regex(text: str) -> Iterator[tuple[int, str]]:
    """The documents as Helm's regex cuts them (the splitter before the literal search)."""
    position = 0
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    for match in [*manifests._SEPARATOR.finditer(stripped), None]:
        end = match.start() if match is not None else len(stripped)
        chunk = stripped[position:end]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            yield text.count("\n", 0, offset + position + lead), chunk.lstrip()
        if match is not None:
            position = match.end()


def test_documents_are_cut_where_helms_separator_regex_cuts_them() -> None:
    rng = random.Random(24)
    pieces = ["---", "-", "\n", " ", "\t", "\r", "\f", "a", "a: 1", "---x", "\n---\n"]
    texts = ["", "---", "---\n---", "a\n---", " \n---\n \n", "\n\n--- \na\n  \n---\n---"]
    texts += ["".join(rng.choices(pieces, k=rng.randint(1, 30))) for _ in range(3000)]
    for text in texts:
        spans = list(manifests.separator_spans(text))
        assert spans == [m.span() for m in manifests._SEPARATOR.finditer(text)], repr(text)
        assert list(manifests._documents(text)) == list(_documents_by_regex(text)), repr(text)
