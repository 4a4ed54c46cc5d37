"""Where a review finds each chart's helm-unittest suites: configuration, CI commands, or the default;
and a review that finds none says "0 suites", never "passed"."""

from __future__ import annotations

import textwrap

from aftershock.ingest.suite_files import suite_patterns, unittest_commands
from aftershock.pipeline import ReviewRequest, run_review
from aftershock.report.canonical import review_document
from aftershock.report.comment.markdown import render_markdown
from charts import chart_yaml
from gitrepo import commit, make_repo

CHARTS = ["charts/a", "charts/b", "lib/test-chart", ""]


def _workflow(run: str, working_directory: str = "") -> str:
    step = {"run": run}
    lines = [
        "jobs:",
        "  test:",
        "    runs-on: ubuntu-24.04",
        "    steps:",
        "      - name: Run tests",
    ]
    if working_directory:
        lines.append(f'        working-directory: "{working_directory}"')
    lines.append("        run: |")
    lines += [f"          {line}" for line in textwrap.dedent(step["run"]).splitlines()]
    return "\n".join(lines) + "\n"


def test_configuration_wins_for_every_chart():
    ci = {".github/workflows/t.yaml": _workflow("helm unittest -f 'x/*.yaml' charts/a")}
    found = suite_patterns(ci, ("unittests/**/*_test.yaml",), CHARTS)
    assert {p.patterns for p in found.values()} == {("unittests/**/*_test.yaml",)}
    assert found["charts/a"].source == ".aftershock.yaml"


def test_a_literal_chart_gets_the_commands_patterns_and_others_the_default():
    ci = {
        ".github/workflows/t.yaml": _workflow(
            "helm unittest -f 'unittests/**/*_test.yaml' --file=more/*_test.yaml charts/a"
        )
    }
    found = suite_patterns(ci, (), CHARTS)
    assert found["charts/a"].patterns == ("unittests/**/*_test.yaml", "more/*_test.yaml")
    assert found["charts/a"].source.startswith(".github/workflows/t.yaml: helm unittest charts/a")
    assert (found["charts/b"].patterns, found["charts/b"].source) == (
        ("tests/*_test.yaml",),
        "default",
    )


def test_working_directory_and_an_unconditional_cd_locate_the_chart():
    ci = {
        ".github/workflows/t.yaml": _workflow(
            "cd test-chart\nhelm unittest -f 'u/*_test.yaml' .", "lib"
        )
    }
    assert suite_patterns(ci, (), CHARTS)["lib/test-chart"].patterns == ("u/*_test.yaml",)
    other = {".gitlab-ci.yml": "test:\n  script:\n    - helm unittest -f 'u/*_test.yaml' .\n"}
    assert suite_patterns(other, (), CHARTS)[""].patterns == ("u/*_test.yaml",)


def test_a_variable_or_conditional_cd_could_mean_any_chart():
    # bjw-s: working-directory "charts/${{ matrix.chart }}", then `cd test-chart` when it exists
    run = 'if [[ -d "test-chart" ]]; then\n  cd "test-chart"\nfi\nhelm unittest -f "unittests/**/*_test.yaml" .'
    ci = {".github/workflows/t.yaml": _workflow(run, "charts/${{ matrix.chart }}")}
    (command,) = unittest_commands(".github/workflows/t.yaml", ci[".github/workflows/t.yaml"])
    assert command.charts is None
    found = suite_patterns(ci, (), CHARTS)
    assert all(
        p.patterns == ("unittests/**/*_test.yaml", "tests/*_test.yaml") for p in found.values()
    )
    assert "could mean any chart" in found["charts/b"].source
    conditional = {
        ".github/workflows/t.yaml": _workflow("test -d x && cd x\nhelm unittest -f 'u/*.yaml' .")
    }
    assert (
        unittest_commands(".github/workflows/t.yaml", conditional[".github/workflows/t.yaml"])[
            0
        ].charts
        is None
    )


def test_a_glob_of_charts_names_each_chart_it_matches():
    ci = {"Makefile": "test:\n\thelm unittest -f 'u/*_test.yaml' charts/*\n"}
    found = suite_patterns(ci, (), CHARTS)
    assert found["charts/a"].patterns == found["charts/b"].patterns == ("u/*_test.yaml",)
    assert found["lib/test-chart"].patterns == ("tests/*_test.yaml",)


CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {level: {{ .Values.level | quote }}}\n"
SUITE = "suite: s\ntemplates: [cm.yaml]\ntests:\n  - it: has a level\n    asserts: [{exists: {path: data.level}}]\n"


def test_a_review_runs_the_suites_ci_names_and_says_0_suites_for_a_chart_without(
    tmp_path, renderer
):
    repo = make_repo(tmp_path)
    files = {
        "a/Chart.yaml": chart_yaml("a"),
        "a/values.yaml": "level: info\n",
        "a/templates/cm.yaml": CONFIGMAP,
        "a/unittests/cm/level_test.yaml": SUITE,
        "b/Chart.yaml": chart_yaml("b"),
        "b/values.yaml": "level: info\n",
        "b/templates/cm.yaml": CONFIGMAP,
        ".github/workflows/test.yaml": _workflow("helm unittest -f 'unittests/**/*_test.yaml' a"),
    }
    base = commit(repo, files, "feat: charts")
    head = commit(
        repo, {"a/values.yaml": "level: debug\n", "b/values.yaml": "level: debug\n"}, "feat: debug"
    )
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    assert [c.chart for c in review.tests.charts] == ["a"]
    (chart,) = review.tests.charts
    assert (chart.head.suites, chart.head.passed) == (1, 1)
    assert review.tests.untested == ("b",)
    document = review_document(review)
    assert {s["chart"]: s["patterns"] for s in document["tests"]["suite_files"]} == {
        "a": ["unittests/**/*_test.yaml"],
        "b": ["tests/*_test.yaml"],
    }
    markdown = render_markdown(document)
    assert "0 suites (not tested): `b` (looked for `tests/*_test.yaml`)" in markdown


def test_terminal_output_says_0_suites_for_a_chart_without(tmp_path, renderer):
    import io

    from rich.console import Console

    from aftershock.report.terminal import print_terminal

    repo = make_repo(tmp_path)
    files = {
        "b/Chart.yaml": chart_yaml("b"),
        "b/values.yaml": "level: info\n",
        "b/templates/cm.yaml": CONFIGMAP,
    }
    base = commit(repo, files, "feat: b")
    head = commit(repo, {"b/values.yaml": "level: debug\n"}, "feat: debug")
    document = review_document(run_review(ReviewRequest(repo=repo, base=base, head=head), renderer))
    out = io.StringIO()
    print_terminal(document, Console(file=out, width=200, color_system=None))
    assert (
        "tests No affected chart has helm-unittest suites: 0 suites ran. 0 suites (not tested): b"
        in out.getvalue()
    )
    assert "passed" not in out.getvalue()


def test_a_ci_pattern_leaving_the_repository_is_left_out_and_said_so():
    ci = {
        ".github/workflows/t.yaml": _workflow(
            "helm unittest -f '../../../**/x' -f /etc/passwd -f 'unit/*_test.yaml' charts/a"
        )
    }
    found = suite_patterns(ci, (), CHARTS)["charts/a"]
    assert found.patterns == ("unit/*_test.yaml",)
    assert "left out, outside the repository: ../../../**/x, /etc/passwd" in found.source
    ci = {".github/workflows/t.yaml": _workflow("helm unittest -f '../**/x' charts/a")}
    assert suite_patterns(ci, (), CHARTS)["charts/a"].patterns == ("../**/x",)  # still inside


def test_the_suites_chart_testing_declares_are_found_and_run(tmp_path, renderer):
    """Issue 32, item 4: `ct.yaml` `additional-commands` run `helm unittest` on each chart of its
    `chart-dirs` (`{{ .Path }}`); a change that adds a suite there is tested, not "0 suites"."""
    repo = make_repo(tmp_path)
    files = {
        "charts/a/Chart.yaml": chart_yaml("a"),
        "charts/a/values.yaml": "level: info\n",
        "charts/a/templates/cm.yaml": CONFIGMAP,
        "elsewhere/c/Chart.yaml": chart_yaml("c"),
        "elsewhere/c/values.yaml": "level: info\n",
        "elsewhere/c/templates/cm.yaml": CONFIGMAP,
        "ct.yaml": "chart-dirs: [charts]\nadditional-commands:\n"
        "  - helm unittest --file 'unittests/**/*.yaml' {{ .Path }}\n",
    }
    base = commit(repo, files, "feat: charts")
    head = commit(
        repo,
        {
            "charts/a/values.yaml": "level: debug\n",
            "charts/a/unittests/cm/level_test.yaml": SUITE,
            "elsewhere/c/values.yaml": "level: debug\n",
        },
        "feat: debug, tested",
    )
    review = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)
    (chart,) = review.tests.charts
    assert chart.chart == "charts/a" and (chart.head.suites, chart.head.passed) == (1, 1)
    document = review_document(review)
    assert {s["chart"]: s["patterns"] for s in document["tests"]["suite_files"]} == {
        "charts/a": ["unittests/**/*.yaml"],
        "elsewhere/c": ["tests/*_test.yaml"],
    }
