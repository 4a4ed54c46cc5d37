"""`aftershock rules` and `aftershock explain RULE`: the rule list and each rule's documentation."""

from __future__ import annotations

import pytest

from aftershock.model.errors import ConfigError
from aftershock.rules.catalog import explain, list_rules, rule_catalog
from aftershock.rules.model import DOC_SECTIONS
from aftershock.rules.registry import RULES


def test_list_names_every_rule_once_in_registry_order():
    lines = list_rules().splitlines()
    listed = [line.split()[0] for line in lines[1 : len(RULES) + 1]]
    assert listed == [rule.id for rule in RULES]
    assert f"{len(RULES)} rules." in lines[-1]


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_explain_prints_the_fixed_sections_in_order(rule):
    text = explain(rule.id)
    positions = [text.index(f"\n{title}\n") for title in DOC_SECTIONS]
    assert positions == sorted(positions)
    assert text.startswith(f"{rule.id}: {rule.title}\n")


def test_explain_lists_options_of_configurable_rules():
    assert "required (default: [])" in explain("commit-trailers")
    assert "Options" not in explain("pss-privileged")


def test_explain_unknown_rule_suggests_the_closest():
    with pytest.raises(ConfigError, match="did you mean rbac-wildcard"):
        explain("rbac-wildcards")


def test_catalog_is_plain_data():
    entry = next(e for e in rule_catalog() if e["id"] == "values-schema-violation")
    assert entry["needs_sources"] is True
    assert list(entry["documentation"]) == list(DOC_SECTIONS)


def test_docs_page_lists_every_rule():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    missing = [rule.id for rule in RULES if f"`{rule.id}`" not in page]
    assert not missing, f"docs/rules.md does not list {missing}"
