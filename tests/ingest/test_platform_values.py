"""The index of the values a repository's CI and tests give its charts: which file sets a key."""

from __future__ import annotations

from aftershock.ingest.platform_values import IndexedChart, gives_any_values, platform_values

SUITE = """\
suite: s
values: [values/ci.yaml]
tests:
  - it: renders
    values: [values/extra.yaml]
    asserts: [{isKind: {of: ConfigMap}}]
"""

FILES = {
    "a/ci/test-values.yaml": "global:\n  registry: a.example\nown: {x: 1}\n",
    "a/tests/s_test.yaml": SUITE,
    "a/tests/values/ci.yaml": "fromsuite: 1\n",
    "a/tests/values/extra.yaml": "fromtest: 2\n",
    "b/ci/test-values.yaml": "global:\n  registry: b.example\n  only_b: 1\nown: {y: 2}\n",
    "lib/ci/test-values.yaml": "url: https://lib.example\nglobal: {only_lib: 3}\n",
    "c/ci/broken-values.yaml": "a: [\n",
}


def index():
    charts = [
        IndexedChart("b", ("b/ci/test-values.yaml",), ()),
        IndexedChart(
            "a",
            tuple(p for p in FILES if p.startswith("a/")),
            ("a/tests/s_test.yaml",),
            {"lib": "lib"},
        ),
        IndexedChart("lib", ("lib/ci/test-values.yaml",), ()),
        IndexedChart("c", ("c/ci/broken-values.yaml",), ()),
    ]
    return platform_values(charts, FILES.get)


def test_a_charts_own_files_come_first_ci_then_suites():
    found = index()
    assert [s.file for s in found.sources if s.chart == "a"] == [
        "a/ci/test-values.yaml",
        "a/tests/values/ci.yaml",
        "a/tests/values/extra.yaml",
    ]
    assert (f := found.find("a", ("global", "registry"))) and f.value == "a.example"
    assert (f := found.find("a", ("fromtest",))) and f.file == "a/tests/values/extra.yaml"


def test_a_global_comes_from_a_dependency_then_any_chart():
    found = index()
    assert (f := found.find("a", ("global", "only_lib"))) and f.file == "lib/ci/test-values.yaml"
    assert (f := found.find("a", ("global", "only_b"))) and f.file == "b/ci/test-values.yaml"


def test_a_key_under_a_dependencys_name_comes_from_its_files():
    found = index()
    f = found.find("a", ("lib", "url"))
    assert f is not None and (f.key, f.value) == (("lib", "url"), "https://lib.example")


def test_another_charts_own_keys_are_not_taken():
    assert index().find("a", ("own", "y")) is None


def test_an_unreadable_file_is_left_out():
    assert not [s for s in index().sources if s.chart == "c"]


def test_the_maps_a_suite_sets_for_all_its_tests_are_found_too():
    suite = (
        "suite: s\nset:\n  _cluster.domain: shop.example\n  _namespace: {name: shop}\n"
        "tests:\n  - it: renders\n    asserts: [{isKind: {of: ConfigMap}}]\n"
    )
    files = {"a/tests/s_test.yaml": suite}
    found = platform_values([IndexedChart("a", tuple(files), tuple(files))], files.get)
    assert (f := found.find("a", ("_cluster", "domain"))) and f.value == "shop.example"
    assert f.file == "a/tests/s_test.yaml (set)"
    assert (f := found.find("a", ("_namespace",))) and f.value == {"name": "shop"}


def test_whether_any_values_are_given_reads_charts_only_until_one_gives_some():
    read: list[str] = []

    def reading(path: str) -> str | None:
        read.append(path)
        return FILES.get(path)

    broken = IndexedChart("c", ("c/ci/broken-values.yaml",), ())
    charts = [
        broken,
        IndexedChart("b", ("b/ci/test-values.yaml",), ()),
        IndexedChart("lib", ("lib/ci/test-values.yaml",), ()),
    ]
    assert gives_any_values(charts, reading)
    assert read == ["c/ci/broken-values.yaml", "b/ci/test-values.yaml"]
    assert not gives_any_values([broken], FILES.get)
    assert not gives_any_values([], FILES.get)


def test_a_key_the_asking_chart_sets_reads_no_other_charts_files():
    read: list[str] = []

    def reading(path: str) -> str | None:
        read.append(path)
        return FILES.get(path)

    charts = [
        IndexedChart("b", ("b/ci/test-values.yaml",), ()),
        IndexedChart("lib", ("lib/ci/test-values.yaml",), ()),
    ]
    found = platform_values(charts, reading)
    assert (f := found.find("lib", ("url",))) and f.value == "https://lib.example"
    assert read == ["lib/ci/test-values.yaml"]
    assert (f := found.find("lib", ("global", "only_b"))) and f.file == "b/ci/test-values.yaml"
    assert read == ["lib/ci/test-values.yaml", "b/ci/test-values.yaml"]  # each file read once
