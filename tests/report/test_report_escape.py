"""Repository text is inert in every human format: no HTML, no mention, no control byte, no line
break taken from a name (aftershock.report.escape), from the functions up to the real CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC

from aftershock.report.escape import (
    ZERO_WIDTH_JOINER,
    html_text,
    markdown_code,
    markdown_text,
    terminal_text,
    visible_name,
)
from charts import app_chart
from gitrepo import commit, make_repo

AFTERSHOCK = [sys.executable, "-m", "aftershock.cli"]
TITLE = "feat: <img src=x onerror=alert(1)> @everyone [click](javascript:x) \x1b[31mred\x07"
CODE = re.compile(r"^\s*```.*?^\s*```$|(`+).+?\1", re.S | re.M)
EVIL_NAME = "apps/web/evil\nname @here <b>x</b>.md"


def test_markdown_prose_is_inert():
    text = markdown_text(TITLE + "\nsecond line")
    assert "<img" not in text and "&lt;img" in text
    assert "@everyone" not in text and f"@{ZERO_WIDTH_JOINER}everyone" in text
    assert "\x1b" not in text and "\x07" not in text and "\n" not in text
    assert "](" not in text  # no link can be formed


def test_code_spans_cannot_be_closed_and_show_line_breaks():
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`x`") == "`` `x` ``"
    assert markdown_code("a\nb|c", in_table=True) == "`a\\nb\\|c`"


def test_names_show_line_breaks_and_lose_control_bytes():
    assert visible_name("a\nb\r\x1b[2Jc\x00") == "a\\nb\\r[2Jc"
    assert (
        html_text('<a href="x">@team</a>')
        == f"&lt;a href=&quot;x&quot;&gt;@{ZERO_WIDTH_JOINER}team&lt;/a&gt;"
    )
    assert terminal_text("[bold]x\x1b]0;title\x07") == "\\[bold]x]0;title"


def test_the_review_comment_and_terminal_output_are_inert(tmp_path):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("apps/web", "web"), "feat: web")
    commit(
        repo,
        {
            **app_chart("apps/web", "web", image="nginx:1.28.0"),
            EVIL_NAME: "x\n",
            "apps/web/values.yaml": "replicas: 2\nimage: nginx:1.28.0\nmode: '<script>alert(1)</script> @org/team'\n",
        },
        TITLE,
    )
    env = {**os.environ, "CI": "true"}
    outputs = {}
    for fmt in ("markdown", "terminal"):
        proc = subprocess.run(
            [
                *AFTERSHOCK,
                "review",
                "--repo",
                str(repo),
                "--base",
                base,
                "--format",
                fmt,
                "--no-state",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert proc.returncode in (0, 3, 4), proc.stderr
        outputs[fmt] = proc.stdout + proc.stderr
    markdown = outputs["markdown"]
    prose = CODE.sub(
        "", markdown
    )  # code spans and blocks show text as it is: no HTML, no mention there
    assert "feat: &lt;img" in prose and "<img" not in prose and "<script>" not in prose
    assert (
        "@everyone" not in prose
        and "@here" not in prose
        and "@org/team" not in prose
        and "](" not in prose
    )
    assert "evil\\nname" in markdown and not any(
        line.startswith("name @") for line in markdown.splitlines()
    )
    for text in outputs.values():
        assert "\x1b" not in text and "\x07" not in text


def test_a_dismissal_reason_is_inert_in_the_sticky_comment():
    from datetime import datetime

    from aftershock.model.state_lifecycle import Lifecycle, LifecycleEntry, LifecycleState
    from aftershock.model.state_records import Decision, StoredFinding
    from aftershock.server.publish import _lifecycle_lines

    finding = StoredFinding("f" * 32, "e", "r", "low", "t", "file", "x", "x", "m")
    decision = Decision(
        "f" * 32, True, "ok <img src=x onerror=1> @everyone", "ada", datetime.now(UTC), "e"
    )
    lifecycle = Lifecycle(
        "a" * 40, (LifecycleEntry(LifecycleState.DISMISSED, finding, dismissal=decision),)
    )
    text = "\n".join(_lifecycle_lines(lifecycle))
    assert "<img" not in text and "@everyone" not in text and "&lt;img" in text


def test_only_the_reports_own_colours_reach_the_terminal():
    from aftershock.report.escape import drop_control

    text = "\x1b[31m- test \x1b]0;owned\x07name\x1b[0m\x08"
    assert drop_control(text, keep_colors=True) == "\x1b[31m- test ]0;ownedname\x1b[0m"
    assert drop_control(text) == "[31m- test ]0;ownedname[0m"


def test_aftershock_test_prints_no_control_byte_from_a_suite(tmp_path, renderer):
    import io

    from aftershock.testrun.runner import run_suites
    from aftershock.testrun.summary import write_report

    chart = tmp_path / "c"
    for name, text in {
        "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
        "tests/cm_test.yaml": 'suite: "s \\e]0;owned\\a"\ntests:\n  - it: "fails \\e[2J"\n    asserts: [{isKind: {of: Pod}}]\n',
    }.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(text)
    out = io.StringIO()
    write_report(run_suites([str(chart)], renderer), out, color=False)
    assert (
        "fails [2J" in out.getvalue()
        and "\x1b" not in out.getvalue()
        and "\x07" not in out.getvalue()
    )
