"""Object-level diff: matching, normalisation of Helm noise, unstable values, renames, ordering."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from aftershock.diff.normalize import (
    UNSTABLE_MASK,
    UnstableField,
    find_unstable_paths,
    normalize,
    reordered_paths,
)
from aftershock.diff.objects import diff_objects
from aftershock.model.diff import FieldChange, FieldChangeKind, ObjectChangeKind
from aftershock.model.objects import ObjectKey, RenderedObject

CHART = "charts/web"


def make(
    kind: str,
    name: str,
    content: dict[str, Any] | None = None,
    *,
    api_version: str = "v1",
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    template: str = "web/templates/all.yaml",
    document_index: int = 0,
) -> RenderedObject:
    group = api_version.rpartition("/")[0]
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels is not None:
        metadata["labels"] = labels
    if annotations is not None:
        metadata["annotations"] = annotations
    body = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": metadata,
        **copy.deepcopy(content or {}),
    }
    return RenderedObject(
        key=ObjectKey(group, kind, namespace, name),
        api_version=api_version,
        body=body,
        chart=CHART,
        template=template,
        document_index=document_index,
    )


def config_map(name: str, data: dict[str, str], **options: Any) -> RenderedObject:
    return make("ConfigMap", name, {"data": data}, **options)


def deployment(
    image: str = "web:1", *, pod_annotations: dict[str, str] | None = None, **options: Any
) -> RenderedObject:
    pod_metadata: dict[str, Any] = {
        "labels": {"app": "web", "helm.sh/chart": options.pop("pod_chart", "web-1.0.0")}
    }
    if pod_annotations is not None:
        pod_metadata["annotations"] = pod_annotations
    content = {
        "spec": {
            "replicas": 2,
            "template": {
                "metadata": pod_metadata,
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        }
    }
    return make("Deployment", "web", content, api_version="apps/v1", **options)


BIG_DATA = {f"key{i}": f"value{i}" for i in range(10)}


def test_identical_renders_have_no_change():
    objects = [deployment(), config_map("settings", BIG_DATA)]
    assert diff_objects(objects, list(reversed(objects))) == ()


def test_changed_object_lists_its_fields_templates_and_chart():
    base = [deployment("web:1", template="web/templates/old.yaml")]
    head = [deployment("web:2", template="web/templates/deploy.yaml")]
    (change,) = diff_objects(base, head)
    assert change.kind is ObjectChangeKind.CHANGED
    assert change.key == ObjectKey("apps", "Deployment", "default", "web")
    assert change.chart == CHART and change.api_version == "apps/v1"
    assert change.templates == ("web/templates/deploy.yaml", "web/templates/old.yaml")
    assert change.fields == (
        FieldChange(
            "spec.template.spec.containers[name=web].image",
            FieldChangeKind.MODIFIED,
            "web:1",
            "web:2",
        ),
    )
    assert change.previous_api_version is None and change.previous_key is None


def test_helm_chart_label_and_checksum_annotations_are_noise_everywhere():
    claim = {
        "metadata": {"name": "data", "labels": {"helm.sh/chart": "db-1.0.0"}},
        "spec": {"resources": {}},
    }
    cron = {
        "spec": {
            "jobTemplate": {
                "spec": {"template": {"metadata": {"annotations": {"checksum/a": "1"}}}}
            }
        }
    }
    base = [
        deployment(
            pod_annotations={"checksum/config": "aaa"},
            labels={"helm.sh/chart": "web-1.0.0", "app": "web"},
        ),
        make(
            "StatefulSet", "db", {"spec": {"volumeClaimTemplates": [claim]}}, api_version="apps/v1"
        ),
        make("CronJob", "tick", cron, api_version="batch/v1", annotations={"checksum/secret": "x"}),
    ]
    new_claim = copy.deepcopy(claim)
    new_claim["metadata"]["labels"] = {"helm.sh/chart": "db-2.0.0"}
    new_cron = copy.deepcopy(cron)
    new_cron["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["annotations"] = {
        "checksum/a": "2"
    }
    head = [
        deployment(
            pod_annotations={"checksum/config": "bbb"},
            pod_chart="web-2.0.0",
            labels={"helm.sh/chart": "web-2.0.0", "app": "web"},
        ),
        make(
            "StatefulSet",
            "db",
            {"spec": {"volumeClaimTemplates": [new_claim]}},
            api_version="apps/v1",
        ),
        make("CronJob", "tick", new_cron, api_version="batch/v1"),
    ]
    assert diff_objects(base, head) == ()


def test_version_label_is_content_not_noise():
    base = [
        config_map("c", {}, labels={"app.kubernetes.io/version": "1.0", "helm.sh/chart": "web-1.0"})
    ]
    head = [
        config_map("c", {}, labels={"app.kubernetes.io/version": "1.1", "helm.sh/chart": "web-1.1"})
    ]
    (change,) = diff_objects(base, head)
    assert [c.path for c in change.fields] == ['metadata.labels["app.kubernetes.io/version"]']


def test_normalize_drops_noise_without_touching_the_original():
    original = deployment(pod_annotations={"checksum/config": "aaa", "keep": "me"})
    normal = normalize(original)
    assert normal.body["spec"]["template"]["metadata"] == {
        "labels": {"app": "web"},
        "annotations": {"keep": "me"},
    }
    assert original.body["spec"]["template"]["metadata"]["annotations"]["checksum/config"] == "aaa"
    claim = {"metadata": {"name": "data", "labels": {"helm.sh/chart": "db-1.0.0", "tier": "db"}}}
    stateful = make(
        "StatefulSet", "db", {"spec": {"volumeClaimTemplates": [claim]}}, api_version="apps/v1"
    )
    assert normalize(stateful).body["spec"]["volumeClaimTemplates"][0]["metadata"]["labels"] == {
        "tier": "db"
    }
    assert claim["metadata"]["labels"] == {"helm.sh/chart": "db-1.0.0", "tier": "db"}
    quiet = config_map("c", {"a": "b"}, labels={"app": "web"})
    assert normalize(quiet) is quiet  # nothing to drop: nothing copied


def test_added_and_removed_objects_in_kind_then_key_order():
    base = [config_map("b-old", {"x": "1"}), config_map("a-old", {"y": "2"}), deployment()]
    head = [deployment("web:2"), config_map("z-new", {"q": "9"}), config_map("c-new", {"r": "8"})]
    changes = diff_objects(base, head)
    assert [(c.kind, c.key.name) for c in changes] == [
        (ObjectChangeKind.ADDED, "c-new"),
        (ObjectChangeKind.ADDED, "z-new"),
        (ObjectChangeKind.REMOVED, "a-old"),
        (ObjectChangeKind.REMOVED, "b-old"),
        (ObjectChangeKind.CHANGED, "web"),
    ]
    assert changes[0].fields == () and changes[2].templates == ("web/templates/all.yaml",)


def test_similar_object_under_a_new_name_is_renamed():
    head_data = dict(BIG_DATA, key0="changed")
    (change,) = diff_objects(
        [config_map("settings-v1", BIG_DATA)], [config_map("settings-v2", head_data)]
    )
    assert change.kind is ObjectChangeKind.RENAMED
    assert change.previous_key == ObjectKey("", "ConfigMap", "default", "settings-v1")
    assert change.key.name == "settings-v2"
    assert change.similarity == 11 / 12  # leaves: apiVersion, kind, 10 data keys; key0 differs
    assert [(c.path, c.before, c.after) for c in change.fields] == [
        ("metadata.name", "settings-v1", "settings-v2"),
        ("data.key0", "value0", "changed"),
    ]


def test_dissimilar_objects_under_new_names_stay_added_and_removed():
    head_data = {key: f"other{i}" for i, key in enumerate(BIG_DATA)}
    head_data.update(key0="value0", key1="value1")  # 4 of 12 leaves equal: below 0.8
    changes = diff_objects([config_map("a", BIG_DATA)], [config_map("b", head_data)])
    assert [c.kind for c in changes] == [ObjectChangeKind.ADDED, ObjectChangeKind.REMOVED]


@pytest.mark.parametrize(
    ("changed_keys", "expected"), [(2, ["renamed"]), (3, ["added", "removed"])]
)
def test_rename_threshold_is_inclusive_at_four_fifths(changed_keys, expected):
    base_data = {f"k{i}": "same" for i in range(8)}  # 10 leaves with apiVersion and kind
    head_data = dict(base_data, **{f"k{i}": "other" for i in range(changed_keys)})
    changes = diff_objects([config_map("a", base_data)], [config_map("b", head_data)])
    assert [c.kind.value for c in changes] == expected


def test_renames_pair_best_first_and_never_across_kinds():
    near = dict(BIG_DATA, key9="x")
    nearer = dict(BIG_DATA)
    base = [
        config_map("near", near),
        config_map("nearer", nearer),
        make("Secret", "s", {"data": {}}),
    ]
    head = [config_map("new", BIG_DATA), make("ServiceAccount", "nearer", {"data": {}})]
    changes = diff_objects(base, head)
    renamed = [c for c in changes if c.kind is ObjectChangeKind.RENAMED]
    assert [(c.previous_key.name, c.key.name, c.similarity) for c in renamed] == [
        ("nearer", "new", 1.0)
    ]
    assert sorted((c.kind.value, c.key.kind, c.key.name) for c in changes if c not in renamed) == [
        ("added", "ServiceAccount", "nearer"),
        ("removed", "ConfigMap", "near"),
        ("removed", "Secret", "s"),
    ]


def test_api_version_change_keeps_both_versions():
    spec = {"spec": {"maxReplicas": 3}}
    base = [make("HorizontalPodAutoscaler", "web", spec, api_version="autoscaling/v2beta2")]
    head = [make("HorizontalPodAutoscaler", "web", spec, api_version="autoscaling/v2")]
    (change,) = diff_objects(base, head)
    assert change.kind is ObjectChangeKind.CHANGED
    assert (change.previous_api_version, change.api_version) == (
        "autoscaling/v2beta2",
        "autoscaling/v2",
    )
    assert change.fields == (
        FieldChange(
            "apiVersion", FieldChangeKind.MODIFIED, "autoscaling/v2beta2", "autoscaling/v2"
        ),
    )


def test_move_to_another_api_group_is_a_rename_of_the_key():
    old_rule = {
        "spec": {
            "rules": [
                {
                    "host": "a.example",
                    "http": {"paths": [{"path": "/", "backend": {"serviceName": "web"}}]},
                }
            ]
        }
    }
    new_rule = {
        "spec": {
            "rules": [
                {
                    "host": "a.example",
                    "http": {"paths": [{"path": "/", "backend": {"service": {"name": "web"}}}]},
                }
            ]
        }
    }
    base = [make("Ingress", "web", old_rule, api_version="extensions/v1beta1")]
    head = [make("Ingress", "web", new_rule, api_version="networking.k8s.io/v1")]
    (change,) = diff_objects(base, head)
    assert change.kind is ObjectChangeKind.RENAMED
    assert change.previous_key == ObjectKey("extensions", "Ingress", "default", "web")
    assert change.key == ObjectKey("networking.k8s.io", "Ingress", "default", "web")
    assert change.previous_api_version == "extensions/v1beta1"
    assert "spec.rules[host=a.example].http.paths[path=/].backend.serviceName" in [
        c.path for c in change.fields
    ]


def test_duplicate_keys_stay_distinct_and_deterministic():
    first = config_map("dup", {"a": "1"}, template="web/templates/a.yaml")
    second = config_map("dup", {"a": "2"}, template="web/templates/b.yaml")
    changed_second = config_map("dup", {"a": "3"}, template="web/templates/b.yaml")
    changes = diff_objects([second, first], [changed_second, first])
    assert [(c.kind, c.templates, c.fields[0].after) for c in changes] == [
        (ObjectChangeKind.CHANGED, ("web/templates/b.yaml",), "3"),
    ]
    (removed,) = diff_objects([first, second], [first])
    assert removed.kind is ObjectChangeKind.REMOVED and removed.templates == (
        "web/templates/b.yaml",
    )


def test_result_does_not_depend_on_input_order():
    base = [config_map(f"c{i}", dict(BIG_DATA, key0=str(i))) for i in range(4)] + [deployment()]
    head = [config_map(f"d{i}", dict(BIG_DATA, key0=str(i))) for i in range(4)] + [
        deployment("web:3")
    ]
    forward = diff_objects(base, head)
    assert forward == diff_objects(list(reversed(base)), list(reversed(head)))
    assert [(c.previous_key.name, c.key.name) for c in forward if c.previous_key] == [
        (f"c{i}", f"d{i}") for i in range(4)
    ]


def random_render(password: str, token: str, node: str) -> list[RenderedObject]:
    return [
        make("Secret", "creds", {"data": {"password": password, "user": "YWRtaW4="}}),
        deployment(pod_annotations={"rollme": token}),
        make("ConfigMap", "peers", {"data": {"a": "1"}, "spec": {"peers": ["fixed", node]}}),
    ]


def test_unstable_paths_are_found_between_two_renders():
    unstable = find_unstable_paths(
        random_render("cjE=", "t1", "n1"), random_render("cjI=", "t2", "n2")
    )
    assert unstable == frozenset(
        {
            UnstableField(ObjectKey("", "Secret", "default", "creds"), "data.password"),
            UnstableField(
                ObjectKey("apps", "Deployment", "default", "web"),
                "spec.template.metadata.annotations.rollme",
            ),
            UnstableField(ObjectKey("", "ConfigMap", "default", "peers"), "spec.peers[1]"),
        }
    )


def test_unstable_paths_never_show_as_changes():
    unstable = find_unstable_paths(
        random_render("cjE=", "t1", "n1"), random_render("cjI=", "t2", "n2")
    )
    base = random_render("cjM=", "t3", "n3")
    head = random_render("cjQ=", "t4", "n4")
    assert diff_objects(base, head) != ()
    assert diff_objects(base, head, unstable=unstable) == ()
    head[0] = make("Secret", "creds", {"data": {"password": "cjU=", "user": "cm9vdA=="}})
    (change,) = diff_objects(base, head, unstable=unstable)
    assert [c.path for c in change.fields] == ["data.user"]


def test_reordered_texts_and_lists_are_found_and_a_real_change_is_not():
    base = [config_map("peers", {"ips": "10.0.0.1,10.0.0.2", "seed": "a b", "port": "80"})]
    base.append(make("ConfigMap", "zones", {"spec": {"zones": ["a", "b", "c"]}}))
    head = [config_map("peers", {"ips": "10.0.0.2,10.0.0.1", "seed": "a c", "port": "08"})]
    head.append(make("ConfigMap", "zones", {"spec": {"zones": ["c", "a", "b"]}}))
    peers, zones = ObjectKey("", "ConfigMap", "default", "peers"), head[1].key
    found = reordered_paths(base, head)
    # "08" has the pieces of "80" in another order, but one word: a real change, as "a c" is
    assert found == {UnstableField(peers, "data.ips"), UnstableField(zones, "spec.zones")}
    (change,) = diff_objects(base, head, unstable=found)
    assert sorted(c.path for c in change.fields) == ["data.port", "data.seed"]


def test_masked_list_entry_keeps_positions():
    obj = make("ConfigMap", "peers", {"spec": {"peers": ["a", "b", "c"]}})
    masked = normalize(
        obj,
        frozenset(
            {
                UnstableField(obj.key, "spec.peers[1]"),
                UnstableField(obj.key, "spec.nothing[name=x].y"),
            }
        ),
    )
    assert masked.body["spec"]["peers"] == ["a", UNSTABLE_MASK, "c"]


def _script(regions: str, options: str, token: str = "x") -> list[RenderedObject]:
    text = f"#!/bin/sh\nREGIONS='{regions}'\nOPTS='{options}'\nTOKEN={token}\nexec mysqld\n"
    return [config_map("start", {"entrypoint.sh": text})]


def test_a_script_line_in_random_order_is_masked_and_an_edit_to_another_line_still_shows():
    """sapcc's percona_cluster: a startup script joins a map's values in Go's order, so two renders
    of one side differ in that line; the edit to another line of the same script must still show."""
    unstable = find_unstable_paths(_script("a b", "gcache=1G"), _script("b a", "gcache=1G"))
    key = ObjectKey("", "ConfigMap", "default", "start")
    assert {(f.key, f.path) for f in unstable} == {(key, 'data["entrypoint.sh"]')}
    assert all(f.line is not None for f in unstable)  # lines, not the whole text
    (change,) = diff_objects(
        _script("b a", "gcache=1G"), _script("a b", "gcache=2G"), unstable=unstable
    )
    (field,) = change.fields
    assert "OPTS='gcache=2G'" in field.after and "REGIONS" not in field.after
    assert diff_objects(_script("b a", "x"), _script("a b", "x"), unstable=unstable) == ()


def test_a_script_line_with_a_random_value_masks_the_whole_text():
    unstable = find_unstable_paths(_script("a b", "o", "r1"), _script("b a", "o", "r2"))
    assert [f.line for f in unstable] == [None]


def test_base_and_head_lines_in_another_order_are_masked_and_an_edited_line_is_not():
    """In a chart rendered twice whose two renders agreed by chance, a script line whose pieces only
    moved between base and head is masked; a line edited beside it still shows."""
    base, head = _script("a b", "gcache=1G"), _script("b a", "gcache=2G")
    found = reordered_paths(base, head)
    assert len(found) == 1 and next(iter(found)).line is not None
    (change,) = diff_objects(base, head, unstable=found)
    (field,) = change.fields
    assert "OPTS='gcache=1G'" in field.before and "OPTS='gcache=2G'" in field.after
    assert "'a b'" not in field.before and "'b a'" not in field.after
