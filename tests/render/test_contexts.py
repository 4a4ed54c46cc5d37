"""Candidate render contexts from a chart's helm-unittest suites: one per group of suites loading the same."""

from __future__ import annotations

from aftershock.model.contexts import ContextKind
from aftershock.render import contexts
from aftershock.render.contexts import ChartFiles


def suite(values: list[str], release: str = "", sets: str = "") -> str:
    lines = ["suite: s", "templates: [templates/cm.yaml]"]
    if values:
        lines += ["values:"] + [f"  - {v}" for v in values]
    if release:
        lines += ["release:", f"  name: {release}", f"  namespace: {release}"]
    if sets:
        lines += ["set:", f"  {sets}"]
    lines += ["tests:", "  - it: renders", "    asserts:", "      - isKind: {of: ConfigMap}"]
    return "\n".join(lines) + "\n"


def candidates(files: dict[str, str]):
    chart = ChartFiles("c", tuple(sorted(files)), files.get, "base")
    suites = sorted(p for p in files if p.endswith("_test.yaml"))
    return contexts.tests_context({"base": chart, "head": chart}, lambda _: suites)


SPLIT = {
    "c/tests/values-ci.yaml": "a: 1\n",
    "c/tests/values/common.yaml": "b: 2\n",
    **{f"c/tests/ci{i}_test.yaml": suite(["values-ci.yaml"]) for i in range(3)},
    **{f"c/tests/common{i}_test.yaml": suite(["values/common.yaml"]) for i in range(4)},
    "c/tests/own_test.yaml": suite([], release="tenant-a", sets="c: 3"),
}


def test_each_group_of_suites_is_a_candidate_the_largest_first():
    found = candidates(SPLIT)
    assert [(c.kind, c.name) for c in found] == [
        (ContextKind.TESTS, "tests"),
        (ContextKind.TESTS, "tests:2"),
        (ContextKind.TESTS, "tests:3"),
    ]
    common, ci, own = found
    assert common.base is not None and dict(common.base.values) == {"b": 2}
    assert ci.base is not None and dict(ci.base.values) == {"a": 1}
    assert own.base is not None and dict(own.base.values) == {"c": 3}
    assert common.reason.startswith("values of tests/values/common.yaml, loaded by 4 of 8 suites")
    assert own.reason == (
        "1 `set` value(s) of 1 of 8 suites; release tenant-a in namespace tenant-a from 1 of 8 suites"
    )


def test_a_group_without_a_release_borrows_one_from_any_suite():
    common, _, own = candidates(SPLIT)
    assert common.base is not None
    assert (common.base.release_name, common.base.namespace) == ("tenant-a", "tenant-a")
    assert "release tenant-a in namespace tenant-a, borrowed from 1 of 8 suites" in common.reason
    assert own.base is not None and own.base.release_name == "tenant-a"


def test_suites_that_load_nothing_give_no_candidate():
    files = {f"c/tests/t{i}_test.yaml": suite([]) for i in range(2)}
    assert candidates(files) == []


def test_at_most_three_groups_are_candidates():
    files = {f"c/tests/v{i}.yaml": f"k{i}: 1\n" for i in range(5)}
    files |= {f"c/tests/t{i}_test.yaml": suite([f"v{i}.yaml"]) for i in range(5)}
    assert [c.name for c in candidates(files)] == ["tests", "tests:2", "tests:3"]


def test_a_group_fewer_suites_use_than_load_nothing_is_no_candidate():
    """Most suites render the defaults: one suite's extra values file is its edge case, not the
    chart's context (seen on traefik: 14 of 15 suites load nothing)."""
    files = {
        "c/tests/values/extra.yaml": "a: 1\n",
        **{f"c/tests/plain{i}_test.yaml": suite([]) for i in range(3)},
        "c/tests/extra_test.yaml": suite(["values/extra.yaml"]),
    }
    assert candidates(files) == []
    files.update({f"c/tests/more{i}_test.yaml": suite(["values/extra.yaml"]) for i in range(3)})
    assert [c.name for c in candidates(files)] == ["tests"]
