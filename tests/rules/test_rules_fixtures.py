"""Every rule against its base/head fixture cases, and the meta-test that every rule has docs and fixtures."""

from __future__ import annotations

import pytest

from aftershock.rules.model import DOC_SECTIONS
from aftershock.rules.registry import RULES
from rulecases import FIXTURES, all_cases, describe, findings_of, matches

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_rule_case(case, tmp_path):
    findings, expected = findings_of(case, tmp_path)
    shown = "\n".join(describe(f) for f in findings) or "(no findings)"
    assert len(findings) == len(expected), (
        f"{case.id}: expected {len(expected)} finding(s), got:\n{shown}"
    )
    unmatched = [entry for entry in expected if not any(matches(f, entry) for f in findings)]
    assert not unmatched, f"{case.id}: no finding matches {unmatched}; got:\n{shown}"


def test_every_fixture_folder_names_a_registered_rule():
    known = {rule.id for rule in RULES}
    folders = {path.name for path in FIXTURES.iterdir() if path.is_dir()}
    assert folders <= known, f"fixtures for unknown rules: {sorted(folders - known)}"


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_every_rule_has_documentation_and_fixtures(rule):
    for title, text in rule.doc.sections():
        assert text.strip(), f"{rule.id}: documentation section {title!r} is empty"
    assert len(rule.doc.sections()) == len(DOC_SECTIONS)
    cases = [case for case in CASES if case.rule_id == rule.id]
    assert len(cases) >= 2, (
        f"{rule.id}: fewer than two fixture cases under tests/fixtures/rules/{rule.id}/"
    )
    firing = [
        case
        for case in cases
        if (case.folder / "expected.yaml").read_text().strip() not in ("[]", "")
    ]
    assert firing, f"{rule.id}: no fixture case where the rule finds something"
