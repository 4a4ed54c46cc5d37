"""`.aftershock.yaml` values that would make the review read outside the repository are refused."""

from __future__ import annotations

import pytest

from aftershock.config.settings import parse_config
from aftershock.model.errors import ConfigError


@pytest.mark.parametrize("pattern", ["../../**/x", "/proc/**", "unit/../../x"])
def test_a_suite_glob_leaving_the_chart_is_refused_in_one_line(pattern):
    with pytest.raises(ConfigError) as caught:
        parse_config(f"tests:\n  files: ['{pattern}']\n")
    line = caught.value.line()
    assert "not a glob inside the chart folder" in line and pattern in line
    assert "\n" not in line


def test_a_suite_glob_inside_the_chart_is_kept():
    config = parse_config("tests:\n  files: ['unittests/**/*_test.yaml', 'a..b/*.yaml']\n")
    assert config.tests.files == ("unittests/**/*_test.yaml", "a..b/*.yaml")
