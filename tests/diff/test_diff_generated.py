"""Objects a kustomize generator renamed (a new content hash suffix): paired as one rename with their data
diff, the workloads whose pod template follows the new name listed as rolled, Secrets still redacted."""

from __future__ import annotations

from typing import Any

from aftershock.diff.generated import generated_stem
from aftershock.diff.objects import diff_objects
from aftershock.model.diff import ObjectChangeKind, RedactedValue
from aftershock.model.objects import ObjectKey, RenderedObject

KUSTOMIZATION = "apps/base/kustomization.yaml"


def generated(
    kind: str,
    name: str,
    data: dict[str, str],
    *,
    generator: str | None = "ConfigMapGenerator",
    template: str = KUSTOMIZATION,
) -> RenderedObject:
    body = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, "data": data}
    return RenderedObject(
        ObjectKey("", kind, "web", name), "v1", body, "apps/prod", template, generator=generator
    )


def deployment(config: str) -> RenderedObject:
    body: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"name": "web", "envFrom": [{"configMapRef": {"name": config}}]}]
                }
            }
        },
    }
    return RenderedObject(
        ObjectKey("apps", "Deployment", "web", "web"),
        "apps/v1",
        body,
        "apps/prod",
        "apps/base/deployment.yaml",
    )


OLD, NEW = "web-config-h44g56h6gg", "web-config-7h26k9t9b4"
BEFORE = {"A": "1", "B": "2"}
AFTER = {"A": "9", "C": "3"}  # too different to pair by similarity


def test_a_generated_config_map_with_a_new_hash_is_one_rename_that_rolls_its_deployment():
    base = [generated("ConfigMap", OLD, BEFORE), deployment(OLD)]
    head = [generated("ConfigMap", NEW, AFTER), deployment(NEW)]
    changes = {c.key.kind: c for c in diff_objects(base, head)}
    config = changes["ConfigMap"]
    assert config.kind is ObjectChangeKind.RENAMED
    assert (config.previous_key, config.key) == (
        ObjectKey("", "ConfigMap", "web", OLD),
        ObjectKey("", "ConfigMap", "web", NEW),
    )
    assert config.generator == "ConfigMapGenerator"
    assert config.rolls == (ObjectKey("apps", "Deployment", "web", "web"),)
    assert {(f.path, f.before, f.after) for f in config.fields} == {
        ("data.A", "1", "9"),
        ("data.B", "2", None),
        ("data.C", None, "3"),
        ("metadata.name", OLD, NEW),
    }


def test_without_a_workload_naming_it_the_rename_rolls_nothing():
    (change,) = diff_objects(
        [generated("ConfigMap", OLD, BEFORE)], [generated("ConfigMap", NEW, AFTER)]
    )
    assert change.kind is ObjectChangeKind.RENAMED and change.rolls == ()


def test_a_generated_secret_pairs_and_its_values_stay_redacted():
    base = [generated("Secret", OLD, {"password": "aHVudGVyMg=="}, generator="SecretGenerator")]
    head = [generated("Secret", NEW, {"password": "c3dvcmRmaXNo"}, generator="SecretGenerator")]
    (change,) = diff_objects(base, head)
    assert change.kind is ObjectChangeKind.RENAMED and change.generator == "SecretGenerator"
    (data,) = [f for f in change.fields if f.path == "data.password"]
    assert isinstance(data.before, RedactedValue) and isinstance(data.after, RedactedValue)
    assert "hunter2" not in repr(change) and "aHVudGVyMg" not in repr(change)


def test_only_a_generator_s_objects_with_kustomize_s_hash_alphabet_pair():
    plain = generated("ConfigMap", OLD, BEFORE, generator=None)  # declared, not generated
    assert generated_stem(plain) is None
    assert generated_stem(generated("ConfigMap", "web-config-abcdefghij", BEFORE)) is None
    assert generated_stem(generated("ConfigMap", OLD, BEFORE)) == "web-config"
    changes = diff_objects([plain], [generated("ConfigMap", NEW, AFTER, generator=None)])
    kinds = sorted(c.kind.value for c in changes)
    assert kinds == ["added", "removed"]  # a Helm object is never paired by its name's shape


def test_two_generators_of_one_name_pair_by_the_kustomization_that_generates_each():
    other = "apps/other/kustomization.yaml"
    base = [
        generated("ConfigMap", "web-config-bbbbbbbbbb", {"x": "1"}),
        generated("ConfigMap", "web-config-cccccccccc", {"y": "1"}, template=other),
    ]
    head = [
        generated("ConfigMap", "web-config-dddddddddd", {"x": "2", "z": "3"}),
        generated("ConfigMap", "web-config-ffffffffff", {"y": "2", "w": "3"}, template=other),
    ]
    pairs = {(c.previous_key.name, c.key.name) for c in diff_objects(base, head) if c.previous_key}
    assert pairs == {
        ("web-config-bbbbbbbbbb", "web-config-dddddddddd"),
        ("web-config-cccccccccc", "web-config-ffffffffff"),
    }
