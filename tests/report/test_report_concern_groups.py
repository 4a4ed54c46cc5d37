"""Findings that say the same thing of many objects are one entry in the comment and the reasons."""

from __future__ import annotations

from aftershock.report.comment.findings_markdown import concerns_markdown
from aftershock.report.concern_groups import grouped


def finding(name: str, said: str = "no longer depends on rook-ceph/cluster", rule: str = "r"):
    display = f"Kustomization.kustomize.toolkit.fluxcd.io default/{name}"
    return {
        "fingerprint": name,
        "rule": rule,
        "severity": "medium",
        "category": "reliability",
        "evidence": "observed",
        "delta": "introduced",
        "actionable": True,
        "subject": {"display": display},
        "message": f"{display} {said}",
        "location": None,
    }


def test_three_findings_saying_the_same_thing_are_one_entry_where_the_first_stood():
    items = [finding("a"), finding("b", "is exposed"), finding("c"), finding("d"), finding("e")]
    out = grouped(items)
    assert [i.get("grouped") for i in out] == [4, None]
    assert out[0]["message"] == (
        "4 Kustomization.kustomize.toolkit.fluxcd.io objects, each: no longer depends on "
        "rook-ceph/cluster (default/a, default/c, default/d and 1 more)"
    )
    assert out[1] is items[1]


def test_one_alike_or_other_rules_stay_apart():
    items = [finding("a"), finding("b", "is exposed"), finding("c", rule="other")]
    assert grouped(items) == items


def test_the_comment_lists_a_group_once():
    section = {"items": [finding(n) for n in "abcdef"], "headline": "", "notices": []}
    text = concerns_markdown(section)
    assert text.count("no longer depends on") == 1 and "6 Kustomization" in text


def test_a_colon_joining_the_subject_to_its_message_is_said_once():
    """`X: the change edits spec.selector` on many objects reads `each: the change edits`, never
    `each: : the change`; a dash or a semicolon joining them is dropped the same way."""
    for join in (":", ";", ",", " —", " -"):
        items = [finding(n, f"{join} the change edits spec.selector").copy() for n in "abc"]
        for item in items:  # the join follows the name directly, as rules write it
            item["message"] = item["message"].replace(f" {join}", join, 1)
        (entry,) = grouped(items)
        assert entry["message"].startswith(
            "3 Kustomization.kustomize.toolkit.fluxcd.io objects, each: the change edits"
        ), (join, entry["message"])


def test_a_message_that_says_nothing_after_its_subject_or_runs_on_from_it_stays_apart():
    """`X's selector …` (no subject and predicate) and `X:` alone (nothing said) are not grouped."""
    runs_on = [finding(n, "") for n in "abc"]
    for item in runs_on:
        item["message"] = item["subject"]["display"] + "'s selector changes"
    said_nothing = [finding(n, "") for n in "def"]
    for item in said_nothing:
        item["message"] = item["subject"]["display"] + ":"
    assert grouped(runs_on) == runs_on and grouped(said_nothing) == said_nothing
