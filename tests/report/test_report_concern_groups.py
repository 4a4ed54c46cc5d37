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
