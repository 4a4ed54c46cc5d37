"""`.helmignore` matching as Helm's pkg/ignore does it."""

from __future__ import annotations

import pytest

from aftershock.ingest.helmignore import HelmIgnore, parse_helmignore

RULES = """\
# comment
tests/
crds/kustomization.yaml
*.orig
/ci
docs/*.md
"""


@pytest.mark.parametrize(
    "path, ignored",
    [
        ("tests/deployment_test.yaml", True),
        ("tests/__snapshot__/a.snap", True),
        ("crds/kustomization.yaml", True),
        ("crds/a.yaml", False),
        ("templates/x.yaml.orig", True),
        ("ci/values.yaml", True),
        ("docs/a.md", True),
        ("docs/deep/a.md", False),  # `*` never crosses a `/`
        ("templates/.hidden.yaml", True),  # Helm's built-in rule
        ("templates/deployment.yaml", False),
        ("values.yaml", False),
    ],
)
def test_helmignore_rules(path, ignored):
    assert parse_helmignore(RULES).ignores(path) is ignored


def test_no_file_ignores_only_hidden_templates():
    assert not parse_helmignore(None).ignores("crds/a.yaml")
    assert parse_helmignore(None).ignores("templates/.x")


def test_negation_keeps_helms_own_quirk():
    """Helm's Ignore() ignores every path a `!` rule does NOT match (verified: with only `!keep.orig`,
    the SDK fails to load the chart, "Chart.yaml file is missing")."""
    rules = parse_helmignore("!keep.orig\n")
    assert rules.ignores("Chart.yaml") and not rules.ignores("keep.orig")


def test_charts_sharing_a_helmignore_share_its_rules_and_each_path_is_judged_once(monkeypatch):
    text = "# shared\n*.md\nci/\n"
    rules = parse_helmignore(text)
    assert parse_helmignore(text) is rules  # every copy of every chart with this file
    judged: list[tuple[str, bool]] = []
    real = HelmIgnore._judged

    def counted(self: HelmIgnore, path: str, is_dir: bool) -> bool:
        judged.append((path, is_dir))
        return real(self, path, is_dir)

    monkeypatch.setattr(HelmIgnore, "_judged", counted)
    fresh = parse_helmignore(text + "# another text\n")
    for _ in range(3):
        assert fresh.ignores_file("README.md") and fresh.ignores_folder("ci")
        assert not fresh.ignores_file("templates/a.yaml")
    assert sorted(judged) == [("README.md", False), ("ci", True), ("templates/a.yaml", False)]
