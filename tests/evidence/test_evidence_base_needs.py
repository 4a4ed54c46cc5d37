"""Which base outcomes a review runs: real git histories, real Helm, the charts' real suites.

At head every test runs; at base only those some evidence reads (failing at head, an edited suite, a
template the change removes a field from). The rest are *not compared*, never *unchanged*.
"""

from __future__ import annotations

import pytest

from aftershock.evidence.base_needs import Removals, base_not_needed
from aftershock.evidence.documents import DocumentMap
from aftershock.model.test_results import (
    AssertionResult,
    ChartResult,
    CheckedValue,
    SuiteResult,
    TestResult,
)
from aftershock.model.tests import GuardTarget, RunStatus, TestChange
from aftershock.pipeline import ReviewRequest, run_review
from charts import chart_yaml
from gitrepo import commit, make_repo

SETTINGS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  level: {{ .Values.level | quote }}
  {{- if .Values.extra }}
  extra: {{ .Values.extra | quote }}
  {{- end }}
"""
NAMES = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-names
data:
  owner: {{ .Values.owner | quote }}
"""
SETTINGS_SUITE = """\
suite: settings
templates: [templates/settings.yaml]
tests:
  - it: logs at info
    asserts:
      - isSubset: {path: data, content: {level: info}}
  - it: has a level
    asserts:
      - equal: {path: data.level, value: info}
"""
NAMES_SUITE = """\
suite: names
templates: [templates/names.yaml]
tests:
  - it: names its owner
    asserts:
      - equal: {path: data.owner, value: team-a}
  - it: is a ConfigMap
    asserts:
      - isKind: {of: ConfigMap}
"""


def _files(values: str) -> dict[str, str]:
    return {
        "c/Chart.yaml": chart_yaml("c"),
        "c/values.yaml": values,
        "c/templates/settings.yaml": SETTINGS,
        "c/templates/names.yaml": NAMES,
        "c/tests/settings_test.yaml": SETTINGS_SUITE,
        "c/tests/names_test.yaml": NAMES_SUITE,
    }


@pytest.fixture(scope="module")
def removal(tmp_path_factory, renderer):
    """A default that removes `data.extra`, which a passing test's `isSubset data` held at base,
    and changes the owner that a test asserts (it fails at head)."""
    repo = make_repo(tmp_path_factory.mktemp("base-needs"))
    base = commit(repo, _files("level: info\nextra: yes-please\nowner: team-a\n"), "base")
    head = commit(repo, {"c/values.yaml": "level: info\nextra: ''\nowner: team-b\n"}, "head")
    return run_review(ReviewRequest(repo=repo, base=base, head=head), renderer)


def test_only_the_tests_some_evidence_reads_run_at_base(removal):
    (chart,) = removal.tests.charts
    changes = {t.test: t.change for t in chart.tests}
    assert changes == {
        "logs at info": TestChange.UNCHANGED,  # `isSubset data` holds the removed data.extra: ran
        "has a level": TestChange.NOT_COMPARED,  # the same document, but data.level only
        "names its owner": TestChange.NEWLY_FAILING,  # failing at head: ran at base
        "is a ConfigMap": TestChange.NOT_COMPARED,  # passes at head, guards nothing removed
    }
    assert (chart.base.passed, chart.base.not_run, chart.head.passed) == (2, 2, 3)
    assert removal.tests.tests_rendered == 6  # 4 at head, 2 at base


def test_a_removed_field_is_still_mapped_to_the_base_test_that_held_it(removal):
    (chart,) = removal.tests.charts
    (guard,) = [g for g in chart.guards if g.target is GuardTarget.FIELD_REMOVED]
    assert guard.field_path == "data.extra"
    assert [p.assertion.test for p in guard.pins] == ["logs at info"]


def test_all_base_tests_run_when_asked(tmp_path, renderer):
    repo = make_repo(tmp_path)
    base = commit(repo, _files("level: info\nextra: ''\nowner: team-a\n"), "base")
    head = commit(repo, {"c/values.yaml": "level: debug\nextra: ''\nowner: team-a\n"}, "head")
    needed = run_review(ReviewRequest(repo=repo, base=base, head=head), renderer).tests
    every = run_review(
        ReviewRequest(repo=repo, base=base, head=head, base_tests="all"), renderer
    ).tests
    assert needed is not None and every is not None
    ((lean,), (full,)) = needed.charts, every.charts
    assert (lean.base.not_run, full.base.not_run, full.base.status) == (2, 0, RunStatus.RAN)
    # (level: debug fails both settings tests at head: those ran at base)
    assert {t.change for t in lean.tests} == {TestChange.NEWLY_FAILING, TestChange.NOT_COMPARED}
    assert {t.change for t in full.tests} == {TestChange.NEWLY_FAILING, TestChange.UNCHANGED}


def test_a_head_run_that_could_not_load_its_chart_needs_every_base_outcome():
    broken = ChartResult("c", "/w/c", False, "Chart.yaml: invalid")
    assert base_not_needed(broken, Removals(DocumentMap(())), {}, frozenset()) == frozenset()


def test_edited_suites_and_failing_tests_are_needed_the_rest_is_not():
    def test(name: str, passed: bool) -> TestResult:
        checked = (CheckedValue("c/templates/a.yaml", 0, "data.x", 1, passed),)
        assertion = AssertionResult(
            0, "equal", False, passed, templates=("c/templates/a.yaml",), checked=checked
        )
        return TestResult(name, 0, passed, assertions=(assertion,))

    suites = (
        SuiteResult(
            "a", "tests/a_test.yaml", "c", False, tests=(test("ok", True), test("no", False))
        ),
        SuiteResult("b", "tests/b_test.yaml", "c", True, tests=(test("ok", True),)),
    )
    head = ChartResult("c", "/w/c", False, suites=suites)
    templates = {"c/templates/a.yaml": "c/templates/a.yaml"}
    edited = frozenset({"tests/b_test.yaml"})
    nothing = Removals(DocumentMap(()))
    assert base_not_needed(head, nothing, templates, edited) == {("tests/a_test.yaml", "ok")}

    def removed(template: str) -> Removals:
        return Removals(DocumentMap(()), templates=frozenset({template}))

    # a template whose documents moved: every test that looked at it is needed
    assert base_not_needed(head, removed("c/templates/a.yaml"), templates, edited) == set()
    # one the run names but the review cannot place is decided by running it
    assert base_not_needed(head, removed("c/templates/z.yaml"), {}, edited) == set()
    assert base_not_needed(head, removed("c/templates/z.yaml"), templates, edited) == {
        ("tests/a_test.yaml", "ok")
    }
