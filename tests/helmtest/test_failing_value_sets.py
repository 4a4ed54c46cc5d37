"""The tests written to fail with a message a change edits, as scenarios (helmtest/suite_values.py)."""

from __future__ import annotations

from aftershock.diff.edited_templates import failure_messages
from aftershock.helmtest.suite_values import MAX_FAILING, edited_test_names, failing_value_sets
from aftershock.model.change import FileChange, Hunk

SUITE = """\
suite: guards
templates: [guards.yaml]
tests:
  - it: rejects tls without ingress
    set: {tls: true}
    asserts: [{failedTemplate: {errorMessage: "tls needs ingress.enabled"}}]
  - it: rejects an old image
    set: {image: {tag: v2}}
    asserts: [{failedTemplate: {errorMessage: "v3 or later"}}]
  - it: renders with tls and ingress
    set: {tls: true, ingress: {enabled: true}}
    asserts: [{notFailedTemplate: {}}]
"""


def test_a_test_expecting_a_message_the_change_edits_is_a_failure_probe():
    texts = {"c/tests/guards_test.yaml": SUITE, "c/tests/nested/x_test.yaml": SUITE}
    (found,) = failing_value_sets("c", list(texts), texts.get, ["tls needs ingress.enabled"])
    assert found.name == "fails:guards_test.yaml/rejects tls without ingress"
    assert found.values == {"tls": True}
    assert found.templates.include == ("guards.yaml",)
    assert failing_value_sets("c", list(texts), texts.get, []) == []
    # a passing test, or a message no changed line holds, is no failure probe
    assert failing_value_sets("c", list(texts), texts.get, ["needs a namespace"]) == []


def test_failure_probes_are_bounded_per_chart():
    many = "suite: s\ntests:\n" + "".join(
        f'  - it: t{n}\n    set: {{k{n}: true}}\n    asserts: [{{failedTemplate: {{errorMessage: "bad"}}}}]\n'
        for n in range(MAX_FAILING + 2)
    )
    texts = {"tests/s_test.yaml": many}
    assert len(failing_value_sets("", list(texts), texts.get, ["bad"])) == MAX_FAILING


def test_the_messages_of_the_fail_calls_a_change_edits():
    hunk = Hunk(
        1,
        2,
        1,
        2,
        "",
        (
            '-{{- fail "tls needs ingress" }}',
            '+{{- fail "tls needs ingress.enabled" }}',
            ' {{- fail "unchanged" }}',
        ),
    )
    change = FileChange(path="c/templates/guards.yaml", status="M", hunks=(hunk,))
    outside = FileChange(path="d/templates/x.yaml", status="M", hunks=(hunk,))
    assert failure_messages([change, outside], "c") == (
        "tls needs ingress",
        "tls needs ingress.enabled",
    )


def test_the_tests_a_change_writes_or_edits_are_named_by_their_nearest_it():
    text = (
        "suite: s\ntests:\n"  # 1-2
        "  - it: first\n    set: {a: 1}\n"  # 3-4
        '  - it: "second one"\n    set: {b: 2}\n'  # 5-6
        "  - it: third\n    set: {c: 3}\n"  # 7-8
    )
    edit = Hunk(4, 3, 4, 4, "", (" set: {a: 1}", '+  - it: "second one"', "+    set: {b: 2}", " "))
    files = [
        FileChange(path="c/tests/s_test.yaml", status="M", hunks=(edit,)),
        FileChange(path="c/tests/sub/x_test.yaml", status="M", hunks=(edit,)),  # not a suite
    ]
    read = {"c/tests/s_test.yaml": text}.get
    assert edited_test_names(files, "c", read) == frozenset({"s_test.yaml/second one"})
