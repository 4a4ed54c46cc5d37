"""A repository without `.aftershock.yaml` or a dismissals file reviews with the defaults, built without
pydantic's validators (their building is ~0.1 CPU-s of every review's start-up); the defaults equal
what validating an empty document gives."""

from __future__ import annotations

import subprocess
import sys

from aftershock.config.settings import AftershockConfig, RuleSettings, default_config, parse_config
from aftershock.findings.dismissals import DismissalsFile, no_dismissals, parse_dismissals

UNBUILT = """
from aftershock.config import settings
from aftershock.findings import dismissals
from aftershock.rules.engine import check_config
from aftershock.rules.support import rbac
config = settings.default_config()
check_config(config)
config.settings_for("any-rule"); dismissals.parse_dismissals(None)
models = (settings.AftershockConfig, settings.RuleSettings, dismissals.DismissalsFile,
          rbac.ReservedRoles)
print(" ".join(str(m.__pydantic_complete__) for m in models))
"""


def test_the_defaults_build_no_validator():
    done = subprocess.run(
        [sys.executable, "-c", UNBUILT], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False"] * 4


def test_the_defaults_equal_a_validated_empty_configuration():
    assert default_config() == AftershockConfig.model_validate({})
    assert default_config().settings_for("x") == RuleSettings.model_validate({})
    assert no_dismissals() == DismissalsFile.model_validate({}) == parse_dismissals("")


def test_a_configuration_file_is_still_validated():
    config = parse_config("rules:\n  some-rule: {enabled: false}\n")
    assert config.settings_for("some-rule").enabled is False
    assert config.releases == default_config().releases
