"""helm-unittest's `-f` patterns: which suite files of a chart a pattern names, and in what order."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

from aftershock.helmtest.filepatterns import expand, suite_paths
from aftershock.testrun import cli_entry


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")


def _relative(root: Path, paths: list[Path]) -> list[str]:
    return [path.relative_to(root).as_posix() for path in paths]


def test_doublestar_matches_every_depth_in_walk_order(tmp_path: Path):
    _touch(
        tmp_path,
        "unittests/z_test.yaml",
        "unittests/a/b_test.yaml",
        "unittests/a/deep/c_test.yaml",
        "unittests/a/values.yaml",
        "unittests/b/d_test.yaml",
        "tests/e_test.yaml",
    )
    found = suite_paths(tmp_path, ("unittests/**/*_test.yaml",))
    # filepath.Walk visits a folder before its entries: files directly in unittests/ come first
    assert _relative(tmp_path, found) == [
        "unittests/z_test.yaml",
        "unittests/a/b_test.yaml",
        "unittests/a/deep/c_test.yaml",
        "unittests/b/d_test.yaml",
    ]


def test_single_star_stays_in_one_folder_and_the_default_is_tests(tmp_path: Path):
    _touch(tmp_path, "tests/a_test.yaml", "tests/sub/b_test.yaml", "tests/c.yaml")
    assert _relative(tmp_path, suite_paths(tmp_path, ("tests/*_test.yaml",))) == [
        "tests/a_test.yaml"
    ]


def test_only_consecutive_duplicate_patterns_are_dropped(tmp_path: Path):
    _touch(tmp_path, "tests/a_test.yaml")
    once = ("tests/*_test.yaml", "tests/*_test.yaml")
    twice = ("tests/*_test.yaml", "tests/a*.yaml", "tests/*_test.yaml")
    assert len(suite_paths(tmp_path, once)) == 1
    assert len(suite_paths(tmp_path, twice)) == 3  # slices.Compact, as upstream


def test_go_match_syntax_classes_and_negation(tmp_path: Path):
    _touch(tmp_path, "t/a1_test.yaml", "t/b2_test.yaml", "t/c3_test.yaml")
    assert [Path(p).name for p in expand(f"{tmp_path}/t/[ab]?_test.yaml")] == [
        "a1_test.yaml",
        "b2_test.yaml",
    ]
    assert [Path(p).name for p in expand(f"{tmp_path}/t/[^ab]*_test.yaml")] == ["c3_test.yaml"]


SUITE = """\
suite: nested
templates: [cm.yaml]
tests:
  - it: renders
    asserts: [{isKind: {of: ConfigMap}}]
"""


def test_cli_runs_suites_the_patterns_name(tmp_path: Path):
    chart = tmp_path / "chart"
    files = {
        "Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
        "unittests/one/a_test.yaml": SUITE,
        "unittests/two/deeper/b_test.yaml": SUITE,
    }
    for name, text in files.items():
        (chart / name).parent.mkdir(parents=True, exist_ok=True)
        (chart / name).write_text(textwrap.dedent(text), encoding="utf-8")
    out = io.StringIO()
    code = cli_entry.run(
        [str(chart)],
        junit=None,
        workers=1,
        color=False,
        out=out,
        test_files=("unittests/**/*_test.yaml",),
    )
    assert code == 0, out.getvalue()
    assert "Test Suites: 2 passed, 2 total" in out.getvalue()
    out = io.StringIO()
    cli_entry.run([str(chart)], junit=None, workers=1, color=False, out=out)
    assert "Test Suites: 0 passed, 0 total" in out.getvalue()  # tests/*_test.yaml by default
