"""`.aftershock.yaml` `cluster:`: inline objects and repository files, read at a ref from a real git
repository, become the extra objects of the review's cluster snapshot that `lookup` sees."""

from __future__ import annotations

import pytest

from aftershock.config.settings import parse_config
from aftershock.ingest.gitops.cluster_objects import parse_cluster_objects, read_cluster_objects
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.errors import ConfigError
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.render.interface import RenderRequest
from aftershock.render.lookup.cluster import ClusterKey, cluster_snapshot
from gitrepo import commit, make_repo

CONFIG = """\
cluster:
  objects:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: platform-config, namespace: platform-system}
      data: {host: db.internal}
  files: [cluster/namespaces.yaml]
"""
NAMESPACES = """\
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Namespace, metadata: {name: platform-system}}
  - {apiVersion: v1, kind: Namespace, metadata: {name: apps}}
---
# an empty document is skipped
---
apiVersion: v1
kind: Secret
metadata: {name: pull, namespace: apps}
"""


def read_at_head(tmp_path, files: dict[str, str], config: str):
    repo = make_repo(tmp_path)
    sha = commit(repo, files, "cluster")
    with RefSnapshot.open(GitRepository.open(repo), sha, "base", 2**20) as tree:
        return read_cluster_objects(parse_config(config).cluster, tree)


def test_inline_objects_and_files_become_the_snapshots_extra_objects(tmp_path, renderer):
    objects = read_at_head(tmp_path, {"cluster/namespaces.yaml": NAMESPACES}, CONFIG)
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("ConfigMap", "platform-config"),
        ("Namespace", "platform-system"),
        ("Namespace", "apps"),
        ("Secret", "pull"),
    ]
    rendered = RenderedObject(
        ObjectKey("", "ConfigMap", "platform-system", "platform-config"),
        "v1",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "platform-config"},
            "data": {"host": "rendered.internal"},
        },
        "charts/platform",
        "platform/templates/cm.yaml",
    )
    snapshot = cluster_snapshot([], [rendered], objects)
    chart = tmp_path / "app"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: app\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n"
        '  host: {{ (lookup "v1" "ConfigMap" "platform-system" "platform-config").data.host | quote }}\n'
        '  namespaces: {{ len (lookup "v1" "Namespace" "" "").items | quote }}\n'
    )
    (outcome,) = renderer.render_many([RenderRequest(str(chart), cluster=snapshot)])
    assert outcome.ok, outcome.error
    text = outcome.manifests["app/templates/cm.yaml"]
    assert (
        'host: "db.internal"' in text and 'namespaces: "2"' in text
    )  # the configuration wins over the render
    assert ClusterKey("v1", "ConfigMap", "platform-system", "platform-config") in outcome.lookups


def test_no_cluster_section_means_no_objects():
    assert parse_cluster_objects(parse_config("rules: {}\n").cluster, {}) == ()


@pytest.mark.parametrize(
    ("config", "files", "message"),
    [
        ("cluster: {files: [missing.yaml]}\n", {}, "cluster file not found at base: missing.yaml"),
        (
            "cluster: {files: [bad.yaml]}\n",
            {"bad.yaml": "a: [\n"},
            "cannot read cluster file: invalid YAML",
        ),
        (
            "cluster: {files: [bad.yaml]}\n",
            {"bad.yaml": "---\n---\napiVersion: v1\nkind: ConfigMap\n"},
            "a cluster object needs apiVersion, kind and metadata.name (bad.yaml: document 2)",
        ),
        (
            "cluster: {objects: [{kind: Namespace, metadata: {name: x}}]}\n",
            {},
            "a cluster object needs apiVersion, kind and metadata.name (.aftershock.yaml: cluster.objects[0])",
        ),
    ],
)
def test_bad_cluster_input_is_one_clear_line(tmp_path, config, files, message):
    with pytest.raises(ConfigError) as caught:
        read_at_head(tmp_path, {"README.md": "x\n", **files}, config)
    assert message in caught.value.line() and "\n" not in caught.value.line()


def test_unknown_cluster_keys_are_refused():
    with pytest.raises(ConfigError, match="cluster.object"):
        parse_config("cluster: {object: []}\n")
