"""A repository without `.aftershock.yaml` or a dismissals file reviews with the defaults, without
importing pydantic (~0.2 CPU-s of every review's start-up); the defaults equal what validating an
empty document gives, and a file is still validated."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aftershock.config.settings import AftershockConfig, RuleSettings, default_config, parse_config
from aftershock.findings.dismissals import DismissalsFile, no_dismissals, parse_dismissals
from aftershock.model.errors import ConfigError
from aftershock.model.validated import validated

DEFAULTS = """
import sys
from aftershock.config import settings
from aftershock.findings import dismissals
from aftershock.pipeline import review
from aftershock.rules.engine import check_config
config = settings.default_config()
check_config(config)
config.settings_for("any-rule"); dismissals.parse_dismissals(None)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")))
"""


def test_the_defaults_import_no_pydantic():
    done = subprocess.run(
        [sys.executable, "-c", DEFAULTS], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_defaults_equal_a_validated_empty_configuration():
    assert default_config() == validated(AftershockConfig, {})
    assert default_config().settings_for("x") == validated(RuleSettings, {})
    assert no_dismissals() == validated(DismissalsFile, {}) == parse_dismissals("")


def test_a_configuration_file_is_still_validated():
    config = parse_config("rules:\n  some-rule: {enabled: false, level: high}\n")
    assert config.settings_for("some-rule").enabled is False
    assert config.settings_for("some-rule").level is not None
    assert config.releases == default_config().releases


@pytest.mark.parametrize(
    "text, message",
    [
        ("rulez: {}\n", "invalid configuration at rulez: unknown key"),
        ("scenarios: [{name: ''}]\n", "at scenarios.0.name: String should have at least 1"),
        ("scenarios: [{name: 'a b'}]\n", "at scenarios.0.name: String should match pattern"),
        ("review: {max_scenarios: 0}\n", "at review.max_scenarios: Input should be greater than"),
        ("kubernetes_version: one\n", "'one' is not a Kubernetes version"),
        ("sources: [{name: x, path: ../up}]\n", "'../up' is not a folder inside the repository"),
        ("review: {base_tests: some}\n", "at review.base_tests: Input should be 'needed' or 'all'"),
    ],
)
def test_a_wrong_setting_is_named_in_one_line(text, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    line = caught.value.line()
    assert message in line and "\n" not in line
