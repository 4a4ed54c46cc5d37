"""report/text.py's phrases shared by the comment's chart lines and the scenarios' summaries."""

from __future__ import annotations

import json

from aftershock.report.text import (
    field_line,
    fixed_phrases,
    scenario_label,
    text_diff,
    without_dependencies,
)


def test_one_dependency_or_several():
    assert without_dependencies("redis 18.1.0", 1) == "rendered without dependency redis 18.1.0"
    assert (
        without_dependencies("redis 18.1.0, traefik 39.0.5", 2)
        == "rendered without dependencies redis 18.1.0, traefik 39.0.5"
    )


def test_a_removed_line_that_starts_with_dashes_stays_in_a_text_diff():
    """A shell script's `--flag` line removed reads `---flag` in a unified diff: it is a line of
    the diff, not its header (sapcc's percona_cluster lost it, and showed an addition only)."""
    field = {
        "path": 'data["entrypoint.sh"]',
        "change": "modified",
        "before": "exec mysqld \\\n--opts=a \\\n--log-bin\n",
        "after": "exec mysqld \\\n--opts=b \\\n--log-bin\n",
    }
    lines = text_diff(field)
    assert lines is not None
    assert [line for line in lines if line[:1] in "+-"] == ["---opts=a \\", "+--opts=b \\"]


def test_a_json_annotation_says_which_keys_changed():
    """A one-line JSON text longer than a value's cut read `{"healthCheck": {"interval": …` at both
    sides, the edit past the cut; its inner changes are named instead."""
    before = {"healthCheck": {"interval": "10s", "path": "/healthz", "port": 8080}, "tier": "a"}
    after = {"healthCheck": {"interval": "30s", "path": "/healthz", "port": 8080}, "zone": "b"}
    field = {
        "path": 'metadata.annotations["lb.example.com/config"]',
        "change": "modified",
        "before": json.dumps(before),
        "after": json.dumps(after),
    }
    assert field_line(field) == (
        'metadata.annotations["lb.example.com/config"]: JSON changed: '
        'healthCheck.interval: "10s" → "30s"; tier: removed (was "a"); zone: added "b"'
    )
    short = {**field, "before": '{"a": 1}', "after": '{"a": 2}'}  # shown whole, as any value
    assert field_line(short).endswith(': "{\\"a\\": 1}" → "{\\"a\\": 2}"')
    not_json = {**field, "before": "{" + "x" * 90, "after": "{" + "y" * 90}
    assert "JSON" not in field_line(not_json)


def test_a_template_fixed_in_a_tests_values_only_names_that_scenario():
    # bjw-s 72cbacc: "1 template(s) fixed …, renders identically by default" left out where it was fixed
    fixed = [{"template": "c/templates/common.yaml", "base_error": "nil pointer"}]
    reviews = [
        {"scenario": "default", "outcome": "unchanged", "templates_fixed_at_head": []},
        {"scenario": "test:a_test.yaml/x", "outcome": "changed", "templates_fixed_at_head": fixed},
        {"scenario": "test:b_test.yaml/y", "outcome": "changed", "templates_fixed_at_head": fixed},
    ]
    assert fixed_phrases(reviews) == [
        "1 template(s) fixed in scenario test:a_test.yaml/x (and 1 more): failed at base, render at "
        "head: c/templates/common.yaml"
    ]
    reviews[0]["templates_fixed_at_head"] = fixed
    assert fixed_phrases(reviews)[0].startswith("1 template(s) fixed: failed at base")


def test_a_long_tests_label_keeps_its_own_words_rather_than_its_suites_folders():
    # bjw-s: two tests of unittests/route/field_backendRefs_test.yaml both read "automatic serv…"
    name = "test:unittests/route/backends_test.yaml/automatic service and port reference"
    assert scenario_label(name) == "test:backends_test.yaml/automatic service and port reference"
    longer = "test:unittests/route/field_backendRefs_test.yaml/automatic service and port reference"
    assert scenario_label(longer) == (
        "test:field_backendRefs_test.yaml/automatic service and port ref…"
    )
    assert scenario_label("test:a_test.yaml/short") == "test:a_test.yaml/short"
