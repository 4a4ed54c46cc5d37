"""diff/text_edits.py: two scenarios' changes of a text are one change when their edit is."""

from __future__ import annotations

from aftershock.diff.text_edits import comparable_change, text_edit
from aftershock.model.diff import FieldChange, FieldChangeKind, ObjectChange, ObjectChangeKind
from aftershock.model.objects import ObjectKey
from aftershock.report.text import comparable_field

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
    assert text_edit("x\n--a\n", "x\n--b\n") == ("@@", " x", "---a", "+--b")
    assert text_edit("a", "b") is None
