"""Helm's `lookup` against a ClusterSnapshot: real SDK renders of small charts in tmp folders.

The semantics pinned here are those of Helm's pkg/engine/lookup_func.go against a real cluster
holding the snapshot's objects: one object by namespace and name, a `<Kind>List` for an empty name,
an empty map when absent, cluster-scoped kinds ignoring the namespace.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from aftershock.gocompat import yamlio
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.render.caching.batch import KEY_FORMAT, request_key
from aftershock.render.caching.cache import CachingRenderer, MemoryRenderCache
from aftershock.render.helm.binary import LOOKUP_UNSUPPORTED, HelmBinaryRenderer, calls_lookup
from aftershock.render.interface import RenderRequest
from aftershock.render.lookup.cluster import (
    ClusterKey,
    KindScope,
    cluster_snapshot,
    snapshot_from_objects,
    snapshot_from_rendered,
)

PLATFORM_CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "platform-config", "namespace": "platform-system"},
    "data": {"host": "db.internal"},
}
APPS_CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "a", "namespace": "apps"},
    "data": {"k": "1"},
}
KUBE_SYSTEM = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}}
READER = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "reader"},
}
DEPLOY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "apps"},
    "spec": {"replicas": 3},
}

PLATFORM_TEMPLATE = """\
{{- $cfg := lookup "v1" "ConfigMap" "platform-system" "platform-config" }}
{{- if not $cfg }}{{ fail "platform-config not found in platform-system" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  host: {{ index $cfg.data "host" | quote }}
"""


def write_chart(
    root: Path, name: str, templates: dict[str, str], *, kind: str = "application"
) -> Path:
    chart = root / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        f"apiVersion: v2\nname: {name}\nversion: 0.1.0\ntype: {kind}\n"
    )
    for path, text in templates.items():
        (chart / "templates" / path).write_text(text)
    return chart


def probe_chart(root: Path, expressions: dict[str, str]) -> Path:
    """A chart whose one ConfigMap shows each expression's value as JSON."""
    lines = "".join(
        f"  {key}: {{{{ {expr} | toJson | quote }}}}\n" for key, expr in expressions.items()
    )
    return write_chart(
        root,
        "probe",
        {
            "probe.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n{lines}"
        },
    )


def rendered_data(outcome) -> dict[str, object]:
    assert outcome.ok, outcome.error
    (text,) = outcome.manifests.values()
    return {
        key: json.loads(value)
        for key, value in yamlio.load_one(text, source="probe")["data"].items()
    }


def render_one(renderer, request: RenderRequest):
    (outcome,) = renderer.render_many([request])
    return outcome


SNAPSHOT = snapshot_from_objects([PLATFORM_CONFIG, APPS_CONFIG, KUBE_SYSTEM, READER, DEPLOY])


def test_an_object_is_found_by_namespace_and_name_and_reported(renderer, tmp_path):
    chart = write_chart(tmp_path, "app", {"cm.yaml": PLATFORM_TEMPLATE})
    outcome = render_one(renderer, RenderRequest(str(chart), cluster=SNAPSHOT))
    assert outcome.ok, outcome.error
    assert 'host: "db.internal"' in outcome.manifests["app/templates/cm.yaml"]
    assert outcome.lookups == (ClusterKey("v1", "ConfigMap", "platform-system", "platform-config"),)


def test_an_absent_object_is_an_empty_map_and_fail_gives_helms_error(renderer, tmp_path):
    chart = write_chart(tmp_path, "app", {"cm.yaml": PLATFORM_TEMPLATE})
    elsewhere = snapshot_from_objects(
        [{**PLATFORM_CONFIG, "metadata": {"name": "platform-config", "namespace": "other"}}]
    )
    for cluster in (None, elsewhere):
        outcome = render_one(renderer, RenderRequest(str(chart), cluster=cluster))
        assert not outcome.ok and outcome.lookups == ()
        assert "execution error at (app/templates/cm.yaml:2:" in outcome.error
        assert "platform-config not found in platform-system" in outcome.error
    probe = probe_chart(
        tmp_path / "p",
        {
            "absent": 'lookup "v1" "ConfigMap" "apps" "nope"',
            "kind": 'lookup "example.com/v1" "Widget" "apps" "w"',
        },
    )
    assert rendered_data(render_one(renderer, RenderRequest(str(probe), cluster=SNAPSHOT))) == {
        "absent": {},
        "kind": {},
    }


def test_an_empty_name_lists_one_namespace_or_all(renderer, tmp_path):
    probe = probe_chart(
        tmp_path,
        {
            "apps": 'lookup "v1" "ConfigMap" "apps" ""',
            "all": 'lookup "v1" "ConfigMap" "" ""',
            "none": 'lookup "v1" "Secret" "apps" ""',
        },
    )
    outcome = render_one(renderer, RenderRequest(str(probe), cluster=SNAPSHOT))
    data = rendered_data(outcome)
    assert data["apps"] == {
        "apiVersion": "v1",
        "kind": "ConfigMapList",
        "metadata": {"resourceVersion": ""},
        "items": [APPS_CONFIG],
    }
    assert [item["metadata"]["namespace"] for item in data["all"]["items"]] == [
        "apps",
        "platform-system",
    ]
    assert data["none"]["items"] == [] and data["none"]["kind"] == "SecretList"
    assert set(outcome.lookups) == {
        ClusterKey("v1", "ConfigMap", "apps", "a"),
        ClusterKey("v1", "ConfigMap", "platform-system", "platform-config"),
    }


def test_cluster_scoped_kinds_ignore_the_namespace(renderer, tmp_path):
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "tenants.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Cluster",
            "names": {"kind": "Tenant", "plural": "tenants"},
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    tenant = {
        "apiVersion": "example.com/v1",
        "kind": "Tenant",
        "metadata": {"name": "blue", "namespace": "ignored"},
    }
    snapshot = snapshot_from_objects([KUBE_SYSTEM, READER, crd, tenant, DEPLOY])
    probe = probe_chart(
        tmp_path,
        {
            "ns": 'lookup "v1" "Namespace" "anything" "kube-system"',
            "role": 'lookup "rbac.authorization.k8s.io/v1" "ClusterRole" "apps" "reader"',
            "tenant": '(lookup "example.com/v1" "Tenant" "apps" "blue").metadata',
            "roles": '(lookup "rbac.authorization.k8s.io/v1" "ClusterRole" "apps" "").items',
            # a namespaced kind asked without a namespace: Helm GETs it cluster-wide, which finds nothing
            "deploy": 'lookup "apps/v1" "Deployment" "" "web"',
        },
    )
    data = rendered_data(render_one(renderer, RenderRequest(str(probe), cluster=snapshot)))
    assert data["ns"] == KUBE_SYSTEM and data["role"] == READER and data["roles"] == [READER]
    assert data["tenant"] == {"name": "blue"}
    assert data["deploy"] == {}


def test_values_keep_helms_types(renderer, tmp_path):
    # Helm decodes the API server's JSON into unstructured maps: integers are int64, not float64.
    probe = probe_chart(
        tmp_path, {"kind": 'kindOf (lookup "apps/v1" "Deployment" "apps" "web").spec.replicas'}
    )
    assert rendered_data(render_one(renderer, RenderRequest(str(probe), cluster=SNAPSHOT))) == {
        "kind": "int64"
    }


def test_lookup_inside_a_library_named_template(renderer, tmp_path):
    chart = write_chart(
        tmp_path,
        "app",
        {
            "cm.yaml": (
                'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  host: {{ include "lib.host" . | quote }}\n'
            )
        },
    )
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n"
        "  - name: lib\n    version: 0.1.0\n"
    )
    write_chart(
        chart / "charts",
        "lib",
        {
            "_host.tpl": (
                '{{- define "lib.host" -}}\n'
                '{{- dig "data" "host" "unset" (lookup "v1" "ConfigMap" "platform-system" "platform-config") -}}\n'
                "{{- end -}}\n"
            )
        },
        kind="library",
    )
    with_snapshot = render_one(renderer, RenderRequest(str(chart), cluster=SNAPSHOT))
    without = render_one(renderer, RenderRequest(str(chart)))
    assert 'host: "db.internal"' in with_snapshot.manifests["app/templates/cm.yaml"]
    assert with_snapshot.lookups == (
        ClusterKey("v1", "ConfigMap", "platform-system", "platform-config"),
    )
    assert 'host: "unset"' in without.manifests["app/templates/cm.yaml"]


def test_a_chart_without_lookup_renders_the_same_and_keys_as_before(renderer, tmp_path):
    chart = write_chart(
        tmp_path,
        "plain",
        {
            "cm.yaml": (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
                "  namespace: {{ .Release.Namespace }}\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
                "  upgrade: {{ .Release.IsUpgrade | quote }}\n  revision: {{ .Release.Revision | quote }}\n"
                "  apis: {{ len .Capabilities.APIVersions | quote }}\n"
            )
        },
    )
    plain = RenderRequest(
        str(chart),
        release_name="r",
        namespace="ns",
        kube_version="v1.30.0",
        revision=4,
        is_upgrade=True,
    )
    defaults = RenderRequest(str(chart))
    outcomes = renderer.render_many(
        [
            plain,
            dataclasses.replace(plain, cluster=SNAPSHOT),
            defaults,
            dataclasses.replace(defaults, cluster=SNAPSHOT),
        ]
    )
    assert outcomes[0].ok and outcomes[0].manifests == outcomes[1].manifests
    assert outcomes[2].ok and outcomes[2].manifests == outcomes[3].manifests
    assert all(outcome.lookups == () for outcome in outcomes)
    # The key of a request without a snapshot is the formula used before snapshots existed.
    options = {
        "release_name": "r",
        "namespace": "ns",
        "kube_version": "v1.30.0",
        "api_versions": (),
        "revision": 4,
        "is_upgrade": True,
    }
    before = hashlib.sha256(
        json.dumps([KEY_FORMAT, "id", "chart", "{}", options], sort_keys=True, default=str).encode(
            "utf-8"
        )
    ).hexdigest()
    assert request_key(plain, "chart", "{}", "id") == before
    assert request_key(dataclasses.replace(plain, cluster=SNAPSHOT), "chart", "{}", "id") != before


def test_the_cache_key_follows_the_snapshot_content(renderer, tmp_path):
    chart = write_chart(tmp_path, "app", {"cm.yaml": PLATFORM_TEMPLATE})
    cache = CachingRenderer(renderer, MemoryRenderCache())
    moved = snapshot_from_objects([{**PLATFORM_CONFIG, "data": {"host": "db2.internal"}}])
    same = snapshot_from_objects(
        [DEPLOY, READER, KUBE_SYSTEM, APPS_CONFIG, PLATFORM_CONFIG]
    )  # other order
    requests = [RenderRequest(str(chart), cluster=s) for s in (SNAPSHOT, moved, same)]
    keys = cache.keys_for(requests)
    assert keys[0] != keys[1] and keys[0] == keys[2] and None not in keys
    first = cache.render_many(requests)
    again = cache.render_many(requests[:1])
    assert cache.stats.hits == 1 and cache.stats.merged == 1
    assert "db2.internal" in first[1].manifests["app/templates/cm.yaml"]
    assert (
        again[0].lookups
        == first[0].lookups
        == (ClusterKey("v1", "ConfigMap", "platform-system", "platform-config"),)
    )


def test_snapshots_place_objects_as_an_api_server_stores_them():
    rendered = RenderedObject(
        ObjectKey("", "ConfigMap", "team", "cm"),
        "v1",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}},
        "charts/a",
        "a/templates/cm.yaml",
    )
    assert snapshot_from_rendered([rendered]).get("v1", "ConfigMap", "team", "cm") is not None
    snapshot = snapshot_from_objects(
        [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n", "namespace": "y"}},
            {"kind": "NoApiVersion", "metadata": {"name": "z"}},
        ],
        default_namespace="dflt",
    )
    assert list(snapshot.objects) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "dflt"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}},
    ]
    # later sources replace earlier ones of the same key: plain manifests, rendered, then extra
    extra = {
        **rendered.body,
        "metadata": {"name": "cm", "namespace": "team"},
        "data": {"from": "config"},
    }
    combined = cluster_snapshot([{**extra, "data": {"from": "plain"}}], [rendered], [extra])
    assert combined.get("v1", "ConfigMap", "team", "cm")["data"] == {"from": "config"}
    assert (
        cluster_snapshot([rendered]).get("v1", "ConfigMap", "team", "cm") is not None
    )  # parsed plain manifests
    scoped = snapshot_from_objects(
        [KUBE_SYSTEM], scopes=[KindScope("v1", "Namespace", True)], only_scoped_kinds=True
    )
    assert scoped.kinds("v1") == [("Namespace", True)] and scoped.kinds("apps/v1") == []
    assert scoped.digest != snapshot_from_objects([KUBE_SYSTEM]).digest


def test_the_binary_backend_refuses_lookup_against_a_snapshot_it_cannot_serve(tmp_path):
    with_lookup = write_chart(tmp_path, "app", {"cm.yaml": PLATFORM_TEMPLATE})
    library = write_chart(
        tmp_path / "lib",
        "lib",
        {"_x.tpl": '{{ define "x" }}{{ lookup "v1" "Pod" "" "" }}{{ end }}'},
    )
    plain = write_chart(tmp_path, "plain", {"cm.yaml": "kind: ConfigMap # no lookup here\n"})
    (plain / "charts").mkdir()
    assert calls_lookup(str(with_lookup)) and not calls_lookup(str(plain))
    (plain / "charts" / "lib").symlink_to(library, target_is_directory=True)
    assert calls_lookup(str(plain))
    if shutil.which("helm") is None:
        pytest.skip("the helm binary is not installed on this machine (calls_lookup was checked)")
    with HelmBinaryRenderer() as binary:
        (outcome,) = binary.render_many([RenderRequest(str(with_lookup), cluster=SNAPSHOT)])
    assert outcome.error == LOOKUP_UNSUPPORTED


def test_a_worker_holds_snapshots_by_digest_and_is_sent_them_again_when_it_has_dropped_them(
    tmp_path,
):
    from aftershock.render.helm.sdk import SdkRenderer
    from aftershock.render.helm.sdk_worker import MAX_SNAPSHOTS

    chart = write_chart(tmp_path, "app", {"cm.yaml": PLATFORM_TEMPLATE})
    hosts = [f"db{i}.internal" for i in range(MAX_SNAPSHOTS + 2)]
    snapshots = [
        snapshot_from_objects([{**PLATFORM_CONFIG, "data": {"host": host}}]) for host in hosts
    ]
    order = [
        0,
        1,
        0,
        *range(2, len(hosts)),
        0,
        1,
    ]  # 0 and 1 are dropped by the worker before they return
    with SdkRenderer(workers=1) as single:
        outcomes = [
            single.render_many([RenderRequest(str(chart), cluster=snapshots[i])])[0] for i in order
        ]
    for index, outcome in zip(order, outcomes):
        assert outcome.ok, outcome.error
        assert f'host: "{hosts[index]}"' in outcome.manifests["app/templates/cm.yaml"]


def test_the_api_server_answers_only_under_the_prefix_its_kubeconfig_names():
    import urllib.error
    import urllib.request

    from aftershock.render.lookup.kubeapi import SnapshotServer

    server = SnapshotServer()
    try:
        server.use(SNAPSHOT)
        url = json.loads(server.kubeconfig())["clusters"][0]["cluster"]["server"]
        path = "/api/v1/namespaces/platform-system/configmap/platform-config"
        unprefixed = url.rsplit("/", 1)[0]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(unprefixed + path, timeout=10)
        assert refused.value.code == 401 and server.returned() == ()
        with urllib.request.urlopen(url + path, timeout=10) as answer:
            assert json.loads(answer.read()) == PLATFORM_CONFIG
    finally:
        server.close()


def test_a_restarted_worker_is_sent_the_snapshot_whole(tmp_path):
    import os
    import signal

    from aftershock.render.helm.sdk import SdkRenderer

    chart = write_chart(tmp_path, "app", {"cm.yaml": PLATFORM_TEMPLATE})
    request = RenderRequest(str(chart), cluster=SNAPSHOT)
    with SdkRenderer(workers=1) as single:
        assert single.render_many([request])[0].ok
        (process,) = [worker._process for worker in single._processes]
        os.kill(process.pid, signal.SIGKILL)  # the worker this renderer started
        process.wait()
        (again,) = single.render_many([request])
    assert again.ok, again.error
    assert 'host: "db.internal"' in again.manifests["app/templates/cm.yaml"]
