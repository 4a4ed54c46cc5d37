"""report/text.py's phrases shared by the comment's chart lines and the scenarios' summaries."""

from __future__ import annotations

from aftershock.report.text import text_diff, without_dependencies


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
