"""report/text.py's phrases shared by the comment's chart lines and the scenarios' summaries."""

from __future__ import annotations

from aftershock.report.text import without_dependencies


def test_one_dependency_or_several():
    assert without_dependencies("redis 18.1.0", 1) == "rendered without dependency redis 18.1.0"
    assert (
        without_dependencies("redis 18.1.0, traefik 39.0.5", 2)
        == "rendered without dependencies redis 18.1.0, traefik 39.0.5"
    )
