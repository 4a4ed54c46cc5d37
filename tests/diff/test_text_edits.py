"""diff/text_edits.py: two scenarios' changes of a text are one change when their edit is."""

from __future__ import annotations

from aftershock.diff.text_edits import comparable_change, text_edit
from aftershock.model.diff import FieldChange, FieldChangeKind, ObjectChange, ObjectChangeKind
from aftershock.model.objects import ObjectKey
from aftershock.report.text import comparable_field, value_text

SCRIPT = "#!/bin/sh\nIPS={}\nA=1\nB=1\nC=1\nOPTS={}\nexec db\n"


def _change(listing: str, after: str) -> ObjectChange:
    field = FieldChange(
        'data["run.sh"]',
        FieldChangeKind.MODIFIED,
        SCRIPT.format(listing, "a"),
        SCRIPT.format(listing, after),
    )
    key = ObjectKey("", "ConfigMap", "default", "start")
    return ObjectChange(ObjectChangeKind.CHANGED, key, "v1", "db", ("t.yaml",), fields=(field,))


def test_the_same_edit_is_the_same_change_whatever_another_line_holds():
    assert comparable_change(_change("<unstable>", "b")) == comparable_change(_change("y,x", "b"))
    assert comparable_change(_change("<unstable>", "b")) != comparable_change(_change("x", "c"))
    assert _change("<unstable>", "b") != _change("y,x", "b")  # as written, they differ


def test_the_graph_and_the_document_compare_alike():
    """The graph compares changes, the document their JSON: both must merge the same scenarios,
    or the graph names an object entry the document left out."""
    one, other = _change("<unstable>", "b"), _change("y,x", "b")

    def as_json(change: ObjectChange) -> dict:
        (f,) = change.fields
        return comparable_field(
            {"path": f.path, "change": f.kind.value, "before": f.before, "after": f.after}
        )

    assert as_json(one) == as_json(other)
    (field,) = comparable_change(one).fields
    assert as_json(one)["after"] == list(field.after)


def test_a_line_that_starts_with_dashes_is_part_of_the_edit():
    assert text_edit("x\n--a\n", "x\n--b\n") == ("@@", "---a", "+--b")
    assert text_edit("a", "b") is None


def test_the_same_line_added_beside_lines_a_scenario_renders_otherwise_is_one_edit():
    # the default logs to stderr, a scenario to stdout: the change adds the same line to both
    before = "\nErrorLog /dev/{}\nLogFormat x\n"
    after = "\nServerName api.example\nErrorLog /dev/{}\nLogFormat x\n"
    default = text_edit(before.format("stderr"), after.format("stderr"))
    assert default == text_edit(before.format("stdout"), after.format("stdout"))
    assert default != text_edit(
        before.format("stderr"), after.replace("api", "web").format("stderr")
    )


def _annotation(before: str, after: str) -> ObjectChange:
    field = FieldChange(
        "spec.template.metadata.annotations.checksum/config",
        FieldChangeKind.MODIFIED,
        before,
        after,
    )
    key = ObjectKey("apps", "Deployment", "default", "api")
    return ObjectChange(
        ObjectChangeKind.CHANGED, key, "apps/v1", "api", ("d.yaml",), fields=(field,)
    )


def test_a_digest_that_changes_is_one_change_whatever_its_values():
    one = _annotation("a" * 64, "b" * 64)
    other = _annotation("c" * 64, "d" * 64)
    assert comparable_change(one) == comparable_change(other)
    assert comparable_change(one) != comparable_change(_annotation("a" * 64, "v2"))
    (field,) = one.fields
    as_json = {
        "path": field.path,
        "change": "modified",
        "before": field.before,
        "after": field.after,
    }
    (comparable,) = comparable_change(one).fields
    assert comparable_field(as_json)["after"] == comparable.after


def test_a_digest_shows_its_first_characters():
    assert value_text("0123456789abcdef" * 4) == '"0123456789ab…"'
    assert value_text("sha256:" + "f" * 64) == '"sha256:ffffffffffff…"'
    assert value_text("v1.2.3") == '"v1.2.3"'
