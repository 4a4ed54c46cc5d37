"""The comment's "Not reviewed" lines (report/overview.py): a chart's dependencies that one command
fetches share one line, and so do its scenarios failing alike; every other part keeps its own."""

from __future__ import annotations

from aftershock.report.gaps import labelled_gaps, not_reviewed_lines

FETCH = "run `aftershock charts fetch --repo . --chart-cache DIR apps/a` and review with that --chart-cache"


def gap(part: str, reason: str = FETCH, side: str | None = None) -> dict[str, object]:
    return {"part": part, "side": side, "reason": reason}


def test_a_charts_missing_dependencies_share_one_line_and_other_parts_keep_theirs():
    doc = {
        "not_reviewed": [
            gap("dependency cert-manager v1.21.1 of chart apps/a"),
            gap("dependency reloader 2.2.14 of chart apps/a"),
            gap("dependency reloader 2.2.14 of chart apps/b", FETCH.replace("apps/a", "apps/b")),
            gap("template apps/a/templates/x.yaml of chart apps/a", "it fails", "head"),
        ]
    }
    assert not_reviewed_lines(doc) == (
        f"dependencies cert-manager v1.21.1, reloader 2.2.14 of chart apps/a: {FETCH}",
        f"dependency reloader 2.2.14 of chart apps/b: {FETCH.replace('apps/a', 'apps/b')}",
        "template apps/a/templates/x.yaml of chart apps/a at head: it fails",
    )


def test_a_charts_scenarios_failing_alike_share_one_line():
    broken = "rendered template is not valid YAML"
    doc = {
        "not_reviewed": [
            gap("chart apps/a", broken, "head"),
            gap("chart apps/a in scenario file:ci/test-values.yaml", broken, "head"),
            gap("chart apps/a in scenario toggle:rbac.create=false", broken, "head"),
            gap("chart apps/a in scenario toggle:x=true", "another error", "head"),
            gap("chart apps/b in scenario toggle:y=true", broken, "base"),
            gap("chart apps/b", broken, "head"),
        ]
    }
    assert not_reviewed_lines(doc) == (
        "chart apps/a in 3 scenarios (default, file:ci/test-values.yaml, toggle:rbac.create=false)"
        f" at head: {broken}",
        "chart apps/a in scenario toggle:x=true at head: another error",
        f"chart apps/b in scenario toggle:y=true at base: {broken}",
        f"chart apps/b at head: {broken}",
    )


def test_a_part_over_its_time_is_labelled_apart_from_a_part_that_failed():
    doc = {
        "not_reviewed": [
            {"part": "chart apps/web", "reason": "render timed out after 60 s", "side": "head"},
            {
                "part": "kustomization apps",
                "reason": "kustomize build took longer than 60 s, twice (the second time in a "
                "fresh worker); the machine may be busy: review again",
                "side": None,
            },
            {"part": "chart apps/api", "reason": 'template: no template "x"', "side": None},
        ]
    }
    assert [(label, group.part) for label, group in labelled_gaps(doc)] == [
        ("not reviewed (timed out)", "chart apps/web"),
        ("not reviewed (timed out)", "kustomization apps"),
        ("not reviewed", "chart apps/api"),
    ]
