"""Secret redaction: values under data/stringData never appear in a diff, only their sizes."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from aftershock.diff.fields import diff_documents
from aftershock.diff.objects import diff_objects
from aftershock.diff.redact import redact_secret_changes, shown_body
from aftershock.model.diff import (
    FieldChange,
    FieldChangeKind,
    ObjectChange,
    ObjectChangeKind,
    RedactedValue,
)
from aftershock.model.objects import ObjectKey, RenderedObject

OLD_PLAIN = "hunter2-old-s3cret"
NEW_PLAIN = "correct-horse-battery"
OLD_B64 = base64.b64encode(OLD_PLAIN.encode()).decode()
NEW_B64 = base64.b64encode(NEW_PLAIN.encode()).decode()
UNICODE_PLAIN = "pässwörd-ünïcode"
SECRETS = (OLD_PLAIN, NEW_PLAIN, OLD_B64, NEW_B64, UNICODE_PLAIN)

ADDED, REMOVED, MODIFIED = FieldChangeKind.ADDED, FieldChangeKind.REMOVED, FieldChangeKind.MODIFIED


def secret(
    content: dict[str, Any], *, name: str = "creds", kind: str = "Secret", api_version: str = "v1"
) -> RenderedObject:
    group = api_version.rpartition("/")[0]
    body = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": "prod"},
        **content,
    }
    return RenderedObject(
        key=ObjectKey(group, kind, "prod", name),
        api_version=api_version,
        body=body,
        chart="charts/app",
        template="app/templates/secret.yaml",
    )


def diff_one(before: dict[str, Any], after: dict[str, Any], **options: Any) -> ObjectChange:
    (change,) = diff_objects([secret(before, **options)], [secret(after, **options)])
    assert_no_leak(change)
    return change


def assert_no_leak(result: Any) -> None:
    text = repr(result)
    for value in SECRETS:
        assert value not in text


def test_changed_data_value_shows_decoded_sizes_only():
    change = diff_one({"data": {"password": OLD_B64}}, {"data": {"password": NEW_B64}})
    assert change.fields == (
        FieldChange(
            "data.password", MODIFIED, RedactedValue(len(OLD_PLAIN)), RedactedValue(len(NEW_PLAIN))
        ),
    )


def test_added_and_removed_data_keys_show_names_and_sizes():
    change = diff_one(
        {"data": {"old-key": OLD_B64, "kept": "a2VwdA=="}},
        {"data": {"kept": "a2VwdA==", "tls.crt": NEW_B64}},
    )
    assert change.fields == (
        FieldChange("data.old-key", REMOVED, RedactedValue(len(OLD_PLAIN)), None),
        FieldChange('data["tls.crt"]', ADDED, None, RedactedValue(len(NEW_PLAIN))),
    )


def test_string_data_sizes_are_utf8_bytes():
    change = diff_one(
        {"stringData": {"a": OLD_PLAIN, "gone": NEW_PLAIN}},
        {"stringData": {"a": UNICODE_PLAIN, "b": NEW_PLAIN}},
    )
    assert change.fields == (
        FieldChange(
            "stringData.a",
            MODIFIED,
            RedactedValue(len(OLD_PLAIN)),
            RedactedValue(len(UNICODE_PLAIN.encode())),
        ),
        FieldChange("stringData.gone", REMOVED, RedactedValue(len(NEW_PLAIN)), None),
        FieldChange("stringData.b", ADDED, None, RedactedValue(len(NEW_PLAIN))),
    )
    assert len(UNICODE_PLAIN.encode()) > len(UNICODE_PLAIN)


@pytest.mark.parametrize("field", ["data", "stringData"])
def test_whole_map_added_or_removed_becomes_per_key_changes(field):
    values = {"data": {"u": OLD_B64, "p": NEW_B64}, "stringData": {"u": OLD_PLAIN, "p": NEW_PLAIN}}[
        field
    ]
    added = diff_one({"type": "Opaque"}, {"type": "Opaque", field: values})
    assert [(c.path, c.kind, c.before, c.after) for c in added.fields] == [
        (f"{field}.u", ADDED, None, RedactedValue(len(OLD_PLAIN))),
        (f"{field}.p", ADDED, None, RedactedValue(len(NEW_PLAIN))),
    ]
    removed = diff_one({field: values}, {field: None})
    assert [(c.path, c.kind) for c in removed.fields] == [
        (f"{field}.u", REMOVED),
        (f"{field}.p", REMOVED),
    ]


def test_invalid_base64_counts_raw_length():
    raw = OLD_PLAIN + "!"  # not base64
    change = diff_one({"data": {"k": raw}}, {"data": {"k": NEW_B64}})
    assert change.fields[0].before == RedactedValue(len(raw))
    assert raw not in repr(change)


def test_base64_with_line_breaks_is_decoded_like_kubernetes():
    wrapped = OLD_B64[:8] + "\n" + OLD_B64[8:]
    change = diff_one({"data": {"k": wrapped}}, {"data": {"k": NEW_B64}})
    assert change.fields[0].before == RedactedValue(len(OLD_PLAIN))


def test_nested_or_malformed_values_never_leak_through_paths():
    before = {"stringData": {"x": [{"name": OLD_PLAIN, "v": NEW_PLAIN}]}, "data": OLD_B64}
    after = {"stringData": {"x": [{"name": OLD_PLAIN, "v": UNICODE_PLAIN}]}, "data": {"k": NEW_B64}}
    change = diff_one(before, after)
    assert [(c.path, c.kind, type(c.before), type(c.after)) for c in change.fields] == [
        ("stringData.x", MODIFIED, RedactedValue, RedactedValue),
        ("data", MODIFIED, RedactedValue, RedactedValue),
    ]


def test_other_fields_of_a_secret_are_shown():
    change = diff_one(
        {"type": "Opaque", "data": {"k": OLD_B64}},
        {"type": "kubernetes.io/tls", "data": {"k": OLD_B64}},
    )
    assert change.fields == (FieldChange("type", MODIFIED, "Opaque", "kubernetes.io/tls"),)


def test_renamed_secret_is_redacted_too():
    data = {f"k{i}": OLD_B64 for i in range(9)}
    (change,) = diff_objects(
        [secret({"data": data}, name="a")], [secret({"data": dict(data, k0=NEW_B64)}, name="b")]
    )
    assert change.kind is ObjectChangeKind.RENAMED
    assert [(c.path, c.after) for c in change.fields] == [
        ("metadata.name", "b"),
        ("data.k0", RedactedValue(len(NEW_PLAIN))),
    ]
    assert_no_leak(change)


def test_added_and_removed_secrets_carry_no_values():
    changes = diff_objects(
        [secret({"data": {"k": OLD_B64}}, name="old")],
        [secret({"stringData": {"k": NEW_PLAIN}}, name="new")],
    )
    assert [c.kind for c in changes] == [ObjectChangeKind.ADDED, ObjectChangeKind.REMOVED]
    assert all(c.fields == () for c in changes)
    assert_no_leak(changes)


def test_only_core_secrets_are_redacted():
    change = diff_one({"data": {"k": "a"}}, {"data": {"k": "b"}}, kind="ConfigMap")
    assert change.fields == (FieldChange("data.k", MODIFIED, "a", "b"),)
    other = diff_one({"data": {"k": "a"}}, {"data": {"k": "b"}}, api_version="example.com/v1")
    assert other.fields == (FieldChange("data.k", MODIFIED, "a", "b"),)


def test_redaction_of_changes_is_idempotent_and_ignores_other_kinds():
    key = ObjectKey("", "Secret", "prod", "creds")
    before, after = {"data": {"k": OLD_B64}}, {"data": {"k": NEW_B64, "j": OLD_B64}}
    once = redact_secret_changes(key, before, after, diff_documents(before, after))
    assert redact_secret_changes(key, before, after, once) == once
    assert_no_leak(once)
    config = ObjectKey("", "ConfigMap", "prod", "creds")
    assert redact_secret_changes(
        config, before, after, diff_documents(before, after)
    ) == diff_documents(before, after)


def test_annotations_of_a_secret_show_sizes_only():
    applied = '{"apiVersion":"v1","kind":"Secret","stringData":{"password":"%s"}}'
    before = {
        "metadata": {
            "name": "creds",
            "namespace": "prod",
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": applied % OLD_PLAIN
            },
        }
    }
    after = {
        "metadata": {
            "name": "creds",
            "namespace": "prod",
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": applied % NEW_PLAIN
            },
        }
    }
    (field,) = diff_one(before, after).fields
    assert field.path.startswith("metadata.annotations")
    assert field.before == RedactedValue(len(applied % OLD_PLAIN)) and field.after == RedactedValue(
        len(applied % NEW_PLAIN)
    )


def test_credential_named_fields_outside_secrets_show_sizes_only():
    def config(password: str, key: str) -> dict[str, Any]:
        env = [{"name": "API_KEY", "value": key}, {"name": "MODE", "value": "fast"}]
        return {"data": {"DB_PASSWORD": password, "region": "eu"}, "spec": {"env": env}}

    change = diff_one(config(OLD_PLAIN, OLD_PLAIN), config(NEW_PLAIN, NEW_PLAIN), kind="ConfigMap")
    assert change.fields == (
        FieldChange("data.DB_PASSWORD", MODIFIED, RedactedValue(18), RedactedValue(21)),
        FieldChange("spec.env[name=API_KEY].value", MODIFIED, RedactedValue(18), RedactedValue(21)),
    )


def test_credentials_inside_an_added_map_or_entry_show_sizes_only():
    before = {"spec": {"env": [{"name": "MODE", "value": "fast"}]}}
    after = {
        "spec": {"env": [{"name": "MODE", "value": "fast"}, {"name": "TOKEN", "value": OLD_PLAIN}]},
        "data": {"DB_PASSWORD": NEW_PLAIN, "region": "eu"},
    }
    change = diff_one(before, after, kind="ConfigMap")
    by_path = {f.path: f.after for f in change.fields}
    assert by_path["data"] == {"DB_PASSWORD": RedactedValue(21), "region": "eu"}
    assert by_path["spec.env[name=TOKEN]"] == RedactedValue(
        len(f'{{"name": "TOKEN", "value": "{OLD_PLAIN}"}}')
    )


def test_where_a_credential_comes_from_is_shown():
    def ref(key: str) -> dict[str, Any]:
        return {"secretKeyRef": {"name": "db", "key": key}}

    before = {"spec": {"env": [{"name": "DB_PASSWORD", "valueFrom": ref("password")}]}}
    after = {"spec": {"env": [{"name": "DB_PASSWORD", "valueFrom": ref("pw")}]}}
    (field,) = diff_one(before, after, kind="Deployment").fields
    assert (field.before, field.after) == ("password", "pw")


def test_the_key_a_selector_toleration_or_key_reference_names_is_shown():
    def spec(label: str, taint: str, item: str, ref: str) -> dict[str, Any]:
        expression = {"key": label, "operator": "In", "values": ["helm"]}
        return {
            "spec": {
                "selector": {"matchExpressions": [expression]},
                "tolerations": [{"key": taint, "operator": "Exists"}],
                "volumes": [
                    {"name": "v", "configMap": {"name": "c", "items": [{"key": item, "path": "p"}]}}
                ],
                "env": [
                    {"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "c", "key": ref}}}
                ],
                "tls": {"key": OLD_PLAIN},
            }
        }

    change = diff_one(
        spec("owner", "gpu", "a.conf", "mode"),
        spec("team", "cpu", "b.conf", "m"),
        kind="Deployment",
    )
    shown = {f.path: f.before or f.after for f in change.fields}
    assert shown["spec.selector.matchExpressions[key=owner]"]["key"] == "owner"
    assert shown["spec.selector.matchExpressions[key=team]"]["key"] == "team"
    assert shown["spec.tolerations[key=gpu]"] == {"key": "gpu", "operator": "Exists"}
    assert shown["spec.volumes[name=v].configMap.items[key=b.conf]"]["key"] == "b.conf"
    assert shown["spec.env[name=MODE].valueFrom.configMapKeyRef.key"] == "mode"
    body = shown_body(ObjectKey("apps", "Deployment", "prod", "a"), spec("owner", "gpu", "f", "m"))
    assert body["spec"]["selector"]["matchExpressions"][0]["key"] == "owner"
    assert body["spec"]["tolerations"][0]["key"] == "gpu"
    assert body["spec"]["tls"]["key"] == RedactedValue(len(OLD_PLAIN))  # a key, not a name


def _crd(password_schema: dict[str, Any], *, validation: bool = False) -> dict[str, Any]:
    schema = {
        "openAPIV3Schema": {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {"password": password_schema, "host": {"type": "string"}},
                }
            },
        }
    }
    if validation:  # apiextensions.k8s.io/v1beta1
        return {"spec": {"group": "db.example.com", "validation": schema}}
    return {"spec": {"group": "db.example.com", "versions": [{"name": "v1", "schema": schema}]}}


CRD = {"kind": "CustomResourceDefinition", "api_version": "apiextensions.k8s.io/v1"}
PROPERTY = "schema.openAPIV3Schema.properties.spec.properties.password"


def test_credential_named_fields_of_a_crd_schema_are_shown_in_clear():
    """A CRD's schema describes a `password` field; it holds none."""
    before = _crd({"type": "string", "description": "The database password."})
    after = _crd({"type": "string", "description": "The admin password.", "minLength": 12})
    change = diff_one(before, after, **CRD)
    assert change.fields == (
        FieldChange(
            f"spec.versions[name=v1].{PROPERTY}.description",
            MODIFIED,
            "The database password.",
            "The admin password.",
        ),
        FieldChange(f"spec.versions[name=v1].{PROPERTY}.minLength", ADDED, None, 12),
    )
    old = diff_one(
        _crd({"type": "string"}, validation=True),
        _crd({"type": "integer"}, validation=True),
        **{**CRD, "api_version": "apiextensions.k8s.io/v1beta1"},
    )
    assert old.fields == (
        FieldChange(
            "spec.validation.openAPIV3Schema.properties.spec.properties.password.type",
            MODIFIED,
            "string",
            "integer",
        ),
    )


def test_a_property_added_to_a_crd_schema_is_shown_but_the_values_it_gives():
    """A default (or example, enum) of a credential-named property is a value: its size only."""
    before = _crd({"type": "string"})
    after = {
        "spec": {
            "group": "db.example.com",
            "versions": [
                before["spec"]["versions"][0],
                {
                    "name": "v2",
                    "schema": _crd({"type": "string", "default": NEW_PLAIN})["spec"]["versions"][0][
                        "schema"
                    ],
                },
            ],
        }
    }
    (field,) = diff_one(before, after, **CRD).fields
    assert field.path == "spec.versions[name=v2]" and field.kind is ADDED
    password = field.after["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
        "password"
    ]
    assert password == {"type": "string", "default": RedactedValue(len(NEW_PLAIN))}
    (default,) = diff_one(
        _crd({"type": "string", "default": OLD_PLAIN}),
        _crd({"type": "string", "default": NEW_PLAIN}),
        **CRD,
    ).fields
    assert default.path == f"spec.versions[name=v1].{PROPERTY}.default"
    assert (default.before, default.after) == (
        RedactedValue(len(OLD_PLAIN)),
        RedactedValue(len(NEW_PLAIN)),
    )


def test_only_a_crd_schema_is_shown_in_clear():
    """The same layout in another kind, or a CRD's other fields, still show credential sizes."""
    before, after = _crd({"type": OLD_PLAIN}), _crd({"type": NEW_PLAIN})
    for options in ({"kind": "ConfigMap"}, {**CRD, "kind": "Schema"}):
        (field,) = diff_one(before, after, **options).fields
        assert (field.before, field.after) == (
            RedactedValue(len(OLD_PLAIN)),
            RedactedValue(len(NEW_PLAIN)),
        )
    (token,) = diff_one(
        {"spec": {"token": OLD_PLAIN}}, {"spec": {"token": NEW_PLAIN}}, **CRD
    ).fields
    assert token.after == RedactedValue(len(NEW_PLAIN))
    (key,) = diff_one({"data": {"password": OLD_B64}}, {"data": {"password": NEW_B64}}).fields
    assert key.after == RedactedValue(len(NEW_PLAIN))  # a Secret's key: a size, as ever
    (config,) = diff_one(
        {"data": {"password": OLD_PLAIN}}, {"data": {"password": NEW_PLAIN}}, kind="ConfigMap"
    ).fields
    assert config.after == RedactedValue(len(NEW_PLAIN))
