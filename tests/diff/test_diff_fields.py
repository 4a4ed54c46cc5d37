"""Field-level diff: identity matching of lists, order-only changes, strict types, path syntax."""

from __future__ import annotations

import math

import pytest

from aftershock.diff.fields import diff_documents
from aftershock.diff.paths import IndexSegment, KeySegment, MatchSegment, format_path, parse_path
from aftershock.model.diff import FieldChange, FieldChangeKind
from aftershock.model.errors import ConfigError

ADDED, REMOVED = FieldChangeKind.ADDED, FieldChangeKind.REMOVED
MODIFIED, REORDERED = FieldChangeKind.MODIFIED, FieldChangeKind.REORDERED


def summary(changes: tuple[FieldChange, ...]) -> list[tuple[str, FieldChangeKind]]:
    return [(change.path, change.kind) for change in changes]


def pod_spec(containers: list[dict]) -> dict:
    return {"spec": {"template": {"spec": {"containers": containers}}}}


def test_equal_documents_have_no_change_whatever_the_key_order():
    before = {"a": 1, "b": {"c": [1, 2], "d": None}}
    after = {"b": {"d": None, "c": [1, 2]}, "a": 1}
    assert diff_documents(before, after) == ()


def test_containers_and_env_are_matched_by_name():
    before = pod_spec(
        [
            {"name": "sidecar", "image": "proxy:1"},
            {
                "name": "app",
                "image": "app:1",
                "env": [{"name": "FOO", "value": "1"}, {"name": "BAR", "value": "x"}],
            },
        ]
    )
    after = pod_spec(
        [
            {"name": "sidecar", "image": "proxy:1"},
            {
                "name": "app",
                "image": "app:2",
                "env": [{"name": "FOO", "value": "2"}, {"name": "BAR", "value": "x"}],
            },
        ]
    )
    changes = diff_documents(before, after)
    assert changes == (
        FieldChange("spec.template.spec.containers[name=app].image", MODIFIED, "app:1", "app:2"),
        FieldChange(
            "spec.template.spec.containers[name=app].env[name=FOO].value", MODIFIED, "1", "2"
        ),
    )
    assert changes[1].path_parts == (
        "spec",
        "template",
        "spec",
        "containers",
        "[name=app]",
        "env",
        "[name=FOO]",
        "value",
    )


def test_inserting_a_container_in_front_does_not_shift_the_others():
    app = {"name": "app", "image": "app:1"}
    changes = diff_documents(pod_spec([app]), pod_spec([{"name": "init", "image": "busybox"}, app]))
    assert changes == (
        FieldChange(
            "spec.template.spec.containers[name=init]",
            ADDED,
            None,
            {"name": "init", "image": "busybox"},
        ),
    )


def test_removed_env_entry_carries_the_whole_entry():
    before = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
    after = {"env": [{"name": "A", "value": "1"}]}
    assert diff_documents(before, after) == (
        FieldChange("env[name=B]", REMOVED, {"name": "B", "value": "2"}, None),
    )


def test_ports_are_matched_by_container_port_when_unnamed():
    before = {"ports": [{"containerPort": 80}, {"containerPort": 443, "protocol": "TCP"}]}
    after = {
        "ports": [
            {"containerPort": 80},
            {"containerPort": 443, "protocol": "UDP"},
            {"containerPort": 9090},
        ]
    }
    assert summary(diff_documents(before, after)) == [
        ("ports[containerPort=443].protocol", MODIFIED),
        ("ports[containerPort=9090]", ADDED),
    ]


def test_identity_falls_back_when_name_is_not_on_every_entry():
    before = {"ports": [{"name": "http", "containerPort": 80}, {"containerPort": 81}]}
    after = {
        "ports": [{"name": "http", "containerPort": 80}, {"containerPort": 81, "hostPort": 81}]
    }
    assert summary(diff_documents(before, after)) == [("ports[containerPort=81].hostPort", ADDED)]


def test_volume_mounts_are_matched_by_mount_path():
    before = {"volumeMounts": [{"mountPath": "/etc/app", "readOnly": True}, {"mountPath": "/data"}]}
    after = {"volumeMounts": [{"mountPath": "/data"}, {"mountPath": "/etc/app", "readOnly": False}]}
    assert diff_documents(before, after) == (
        FieldChange("volumeMounts", REORDERED, ["/etc/app", "/data"], ["/data", "/etc/app"]),
        FieldChange("volumeMounts[mountPath=/etc/app].readOnly", MODIFIED, True, False),
    )


def test_order_only_change_of_identity_list_is_one_reordered_change():
    before = {
        "env": [
            {"name": "A", "value": "1"},
            {"name": "B", "value": "2"},
            {"name": "C", "value": "3"},
        ]
    }
    after = {"env": [before["env"][2], before["env"][0], before["env"][1]]}
    assert diff_documents(before, after) == (
        FieldChange("env", REORDERED, ["A", "B", "C"], ["C", "A", "B"]),
    )


def test_insertion_alone_is_not_a_reorder():
    before = {"env": [{"name": "A"}, {"name": "B"}]}
    after = {"env": [{"name": "A"}, {"name": "NEW"}, {"name": "B"}]}
    assert summary(diff_documents(before, after)) == [("env[name=NEW]", ADDED)]


def test_order_only_change_of_plain_list_is_one_reordered_change():
    changes = diff_documents({"args": ["--a", "--b", "--c"]}, {"args": ["--c", "--a", "--b"]})
    assert changes == (
        FieldChange("args", REORDERED, ["--a", "--b", "--c"], ["--c", "--a", "--b"]),
    )


def test_plain_lists_are_compared_by_position():
    changes = diff_documents({"args": ["--a", "--b", "--c"]}, {"args": ["--a", "--x"]})
    assert changes == (
        FieldChange("args[1]", MODIFIED, "--b", "--x"),
        FieldChange("args[2]", REMOVED, "--c", None),
    )
    assert summary(diff_documents({"args": ["--a"]}, {"args": ["--a", "--b"]})) == [
        ("args[1]", ADDED)
    ]


def test_duplicate_names_fall_back_to_position():
    before = {"items": [{"name": "x", "v": 1}, {"name": "x", "v": 2}]}
    after = {"items": [{"name": "x", "v": 1}, {"name": "x", "v": 3}]}
    assert summary(diff_documents(before, after)) == [("items[1].v", MODIFIED)]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (1, 1.0),
        (1, "1"),
        (True, 1),
        (False, 0),
        (1.0, True),
        (None, False),
        ("true", True),
        ({}, []),
        (0, None),
    ],
)
def test_values_of_different_kinds_are_never_equal(before, after):
    changes = diff_documents({"v": before}, {"v": after})
    assert changes == (FieldChange("v", MODIFIED, before, after),)
    assert type(changes[0].before) is type(before) and type(changes[0].after) is type(after)


def test_bool_and_int_are_told_apart_inside_lists():
    assert summary(diff_documents({"l": [1, True]}, {"l": [True, 1]})) == [("l", REORDERED)]
    assert summary(diff_documents({"l": [1, 1]}, {"l": [True, 1]})) == [("l[0]", MODIFIED)]
    assert summary(diff_documents({"m": {"a": 1}}, {"m": {"a": True}})) == [("m.a", MODIFIED)]


def test_same_values_of_the_same_kind_are_equal():
    assert (
        diff_documents({"v": 1.5, "n": math.nan, "z": 0.0}, {"v": 1.5, "n": math.nan, "z": -0.0})
        == ()
    )


def test_dotted_and_special_keys_are_quoted():
    before = {
        "metadata": {
            "labels": {"app.kubernetes.io/name": "a"},
            "annotations": {"checksum/config": "1"},
        }
    }
    after = {"metadata": {"labels": {"app.kubernetes.io/name": "b"}, "annotations": {'a"b c': "x"}}}
    changes = diff_documents(before, after)
    assert [change.path for change in changes] == [
        'metadata.labels["app.kubernetes.io/name"]',
        'metadata.annotations["checksum/config"]',
        'metadata.annotations["a\\"b c"]',
    ]
    assert changes[0].path_parts == ("metadata", "labels", '["app.kubernetes.io/name"]')


def test_string_and_integer_identity_values_are_written_apart():
    before = {"ports": [{"port": 80, "x": 1}, {"port": "80", "x": 1}]}
    after = {"ports": [{"port": 80, "x": 2}, {"port": "80", "x": 3}]}
    assert [change.path for change in diff_documents(before, after)] == [
        "ports[port=80].x",
        'ports[port="80"].x',
    ]


def test_output_follows_before_order_then_after_only_entries():
    before = {"z": 1, "a": 1, "m": 1}
    after = {"new": 1, "m": 2, "a": 2}
    assert summary(diff_documents(before, after)) == [
        ("z", REMOVED),
        ("a", MODIFIED),
        ("m", MODIFIED),
        ("new", ADDED),
    ]


@pytest.mark.parametrize(
    "segments",
    [
        (
            KeySegment("spec"),
            KeySegment("containers"),
            MatchSegment("name", "app"),
            KeySegment("image"),
        ),
        (KeySegment("metadata"), KeySegment("annotations"), KeySegment("checksum/config")),
        (KeySegment("a.b"), IndexSegment(3), KeySegment("")),
        (
            KeySegment("v"),
            MatchSegment("port", 80),
            MatchSegment("port", "80"),
            MatchSegment("path", "/a b]"),
        ),
        (
            KeySegment("x"),
            MatchSegment("name", "007"),
            MatchSegment("name", "true"),
            MatchSegment("name", "-"),
        ),
        (KeySegment('we"ird\\key\n'), MatchSegment("mountPath", "/var/lib/data")),
    ],
)
def test_paths_round_trip(segments):
    assert parse_path(format_path(segments)) == segments


@pytest.mark.parametrize("path", ["a..b", "a[", "a[name=]", 'a["x"', "a b", ".a", "a[1", "a]"])
def test_malformed_paths_are_refused_with_a_clear_error(path):
    with pytest.raises(ConfigError, match="invalid field path"):
        parse_path(path)


def test_inserted_list_entries_do_not_shift_later_positions():
    before = {"args": ["--a", "--b", "--c", "--d"]}
    after = {"args": ["--a", "--new1", "--b", "--c", "--new2", "--d"]}
    changes = diff_documents(before, after)
    assert [(c.path, c.kind, c.after) for c in changes] == [
        ("args[1]", ADDED, "--new1"),
        ("args[4]", ADDED, "--new2"),
    ]
    removed = diff_documents(after, before)
    assert [(c.path, c.kind, c.before) for c in removed] == [
        ("args[1]", REMOVED, "--new1"),
        ("args[4]", REMOVED, "--new2"),
    ]
