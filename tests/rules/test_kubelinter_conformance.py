"""Conformance with kube-linter's per-check fixtures (skipped when the shared corpus bundle is absent).

Every kube-linter check with an aftershock counterpart is reviewed from its fixture as a chart, with
real git and real Helm (tests/kubelinter.py); the figures are recorded in docs/rules.md.
"""

from __future__ import annotations

import pytest

import kubelinter

pytestmark = pytest.mark.skipif(
    not kubelinter.BUNDLE.is_file(), reason=f"kube-linter bundle not found at {kubelinter.BUNDLE}"
)


@pytest.fixture(scope="module")
def conformance(tmp_path_factory, renderer):
    work = tmp_path_factory.mktemp("kubelinter")
    clone = kubelinter.clone_bundle(work / "kube-linter")
    scores, wanted = kubelinter.run_conformance(clone, work / "repo", renderer)
    return clone, scores, wanted


def test_every_published_check_is_mapped_or_explained(conformance):
    clone, scores, wanted = conformance
    published = set(kubelinter.published_checks(clone))
    listed = set(wanted["mapped"]) | set(wanted["unmapped"])
    assert published == listed, (
        f"not listed: {sorted(published - listed)}; unknown: {sorted(listed - published)}"
    )
    assert len({s.check for s in scores}) >= 40, (
        "fewer than 40 kube-linter checks have a counterpart"
    )


def test_every_mapped_fixture_renders_without_rule_errors_and_names_registered_rules(conformance):
    from aftershock.rules.registry import RULES_BY_ID

    _, scores, wanted = conformance
    assert [s.check for s in scores if not s.rendered] == []
    assert wanted["rule_errors"] == []
    unknown = sorted({rule for s in scores for rule in s.rules} - set(RULES_BY_ID))
    assert unknown == []


def test_recall_and_precision_meet_the_targets(conformance):
    _, scores, _ = conformance
    missed = {s.check: sorted(s.expected - s.flagged) for s in scores if s.false_negatives}
    wrong = {s.check: sorted(s.flagged - s.expected) for s in scores if s.false_positives}
    recall, precision = kubelinter.totals(scores)
    assert recall >= 0.97, f"recall {recall:.3f}; missed {missed}"
    assert precision >= 0.95, f"precision {precision:.3f}; wrongly flagged {wrong}"
