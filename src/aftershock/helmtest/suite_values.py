"""The value sets a chart's helm-unittest suites render with, read from the tree (as scenarios)."""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from aftershock.gocompat.gofmt import stringify_keys, stringify_keys_deep
from aftershock.gocompat.goyaml import GoYamlError, load_first
from aftershock.helmtest.selection import ALL_TEMPLATES
from aftershock.helmtest.suite import (
    SPLITTER,
    SuiteError,
    TestJob,
    TestSuite,
    effective_release,
    parse_suite_text,
)
from aftershock.helmtest.values import SetPathError, user_values
from aftershock.model.change import FileChange
from aftershock.model.contexts import TemplateSelection
from aftershock.model.review import FAILURE_PROBE_PREFIX

TextReader = Callable[[str], str | None]
MAX_FAILING = 4  # tests written to fail rendered per chart: each is a render per ref, cut short
_IT = re.compile(r"^\s*-?\s*it:\s*(.*?)\s*$")


class SuiteValueSet(NamedTuple):
    """One test's values, the templates its suite renders, and the release it sets (or None)."""

    name: str
    values: dict[str, Any]
    templates: TemplateSelection
    release_name: str | None = None
    namespace: str | None = None


def suite_value_sets(
    chart_path: str,
    paths: Iterable[str],
    read: TextReader,
    changed_templates: Iterable[str] = (),
    suites: Collection[str] | None = None,
) -> list[SuiteValueSet]:
    """Each distinct set of values (and release) the chart's own suites (`suites`, the repository
    paths its helm-unittest patterns name; by default `tests/*_test.yaml`) give their tests, merged
    as helm-unittest merges them: first those of suites that test a changed template
    (chart-relative paths), then the rest, each in file order. Tests with no values of their
    own render the default scenario and are left out, and so are tests expecting the render to
    fail; a suite that cannot be read contributes nothing."""
    changed = set(changed_templates)
    near: dict[str, SuiteValueSet] = {}
    far: dict[str, SuiteValueSet] = {}
    for path, suite, test, values in _suite_tests(chart_path, paths, read, False, suites):
        bucket = near if _tests_changed(suite, changed) else far
        if values:  # a test of the defaults alone is the default scenario's
            # the release alone makes no other scenario: it matters where values do
            bucket.setdefault(
                _key(values), _value_set("test:", chart_path, path, suite, test, values)
            )
    return list(near.values()) + [v for k, v in far.items() if k not in near]


def failing_value_sets(
    chart_path: str,
    paths: Iterable[str],
    read: TextReader,
    messages: Sequence[str],
    suites: Collection[str] | None = None,
) -> list[SuiteValueSet]:
    """The value sets of tests written to fail (`failedTemplate`) whose expected error message is
    one of `messages` (those of the `fail` calls a change edits), named `fails:<suite file>/<test>`:
    each renders the failure it expects, which exercises that `fail` line. At most MAX_FAILING, in
    file order."""
    if not messages:
        return []
    found: dict[str, SuiteValueSet] = {}
    for path, suite, test, values in _suite_tests(chart_path, paths, read, True, suites):
        if values and _expects_one_of(test, messages):
            found.setdefault(
                _key(values),
                _value_set(FAILURE_PROBE_PREFIX, chart_path, path, suite, test, values),
            )
    return list(found.values())[:MAX_FAILING]


def _suite_tests(
    chart_path: str,
    paths: Iterable[str],
    read: TextReader,
    failing: bool,
    suites: Collection[str] | None,
) -> Iterator[tuple[str, TestSuite, TestJob, dict[str, Any]]]:
    """(suite file, suite, test, its values) of every test of the chart's own suites (`suites`, else
    `tests/*_test.yaml`; in file order) that expects the render to pass, or with `failing`, to
    fail."""
    for path in sorted(p for p in paths if is_suite(chart_path, p, suites)):
        for suite in chart_suites(path, read):
            for test, values in _test_values(suite, path, read, failing):
                yield path, suite, test, values


def is_suite(chart_path: str, path: str, suites: Collection[str] | None) -> bool:
    """Whether `path` is one of the chart's `suites`, or with none given, of `tests/*_test.yaml`."""
    if suites is not None:
        return path in suites
    prefix = f"{chart_path}/tests/" if chart_path else "tests/"
    return (
        path.startswith(prefix) and path.endswith("_test.yaml") and "/" not in path[len(prefix) :]
    )


def suite_name(chart_path: str, path: str) -> str:
    """A suite file's name in a test's name: its path in the chart, less helm-unittest's default
    folder (`tests/a_test.yaml` is `a_test.yaml`; `unittests/pod/a_test.yaml` keeps its folders,
    which tell apart the suites of one name)."""
    prefix = f"{chart_path}/" if chart_path else ""
    return path.removeprefix(prefix).removeprefix("tests/")


def _value_set(
    prefix: str,
    chart_path: str,
    path: str,
    suite: TestSuite,
    test: TestJob,
    values: dict[str, Any],
) -> SuiteValueSet:
    """A test's value set, named `<prefix><suite file>/<test>`, as the release it sets."""
    release = effective_release(suite, test)
    return SuiteValueSet(
        f"{prefix}{suite_name(chart_path, path)}/{test.name}",
        values,
        suite_templates(suite),
        release.name or None,
        release.namespace or None,
    )


def _key(values: dict[str, Any]) -> str:
    return json.dumps(values, sort_keys=True, default=str)


def _expects_one_of(test: TestJob, messages: Sequence[str]) -> bool:
    expected = [
        str(a.params.get("ErrorMessage") or "")
        for a in test.assertions
        if a.assert_type == "failedTemplate" and not a.negated
    ]
    return any(e and (e in m or m in e) for e in expected for m in messages if m)


def suite_templates(suite: TestSuite) -> TemplateSelection:
    """The templates helm-unittest renders for the suite (with every partial): those it names, less
    those it excludes; the whole chart when it names none or `**`."""
    include = () if suite.templates == (ALL_TEMPLATES,) else tuple(suite.templates)
    return TemplateSelection(include=include, exclude=tuple(suite.exclude_templates))


def _tests_changed(suite: TestSuite, changed: set[str]) -> bool:
    """Whether the suite renders one of the changed templates (all templates when it names none)."""
    if not suite.templates:
        return bool(changed)
    return any(
        fnmatch.fnmatchcase(path, f"templates/{pattern}") or fnmatch.fnmatchcase(path, pattern)
        for path in changed
        for pattern in suite.templates
    )


def chart_suites(path: str, read: TextReader) -> list[TestSuite]:
    """The suites of one suite file (several documents may share it); none when one cannot be read."""
    text = read(path)
    suites = []
    for part in SPLITTER.split(text or ""):
        try:
            suite = parse_suite_text(part, path, "chart") if part.strip() else None
        except SuiteError:
            return []
        if suite is not None:
            suites.append(suite)
    return suites


def expects_render_failure(test: TestJob) -> bool:
    """Whether the test passes only when the render fails (`failedTemplate`, or `notFailedTemplate` negated):
    its values are a failure on purpose, not a scenario of the chart."""
    return any(
        (a.assert_type == "failedTemplate") != a.negated
        and a.assert_type in ("failedTemplate", "notFailedTemplate")
        for a in test.assertions
    )


def suite_file_values(path: str, read: TextReader) -> Iterable[tuple[str, dict[str, Any]]]:
    """(test name, user values) of every test of one suite file that does not expect a render failure:
    its values files, then the suite's and the test's `set`, merged as helm-unittest merges them."""
    for suite in chart_suites(path, read):
        for test, values in _test_values(suite, path, read):
            yield test.name, values


def _test_values(
    suite: TestSuite, path: str, read: TextReader, failing: bool = False
) -> Iterable[tuple[TestJob, dict[str, Any]]]:
    """(test, its values) of the tests that expect the render to pass, or with `failing`, to fail."""
    for test in suite.tests:
        if expects_render_failure(test) is not failing:
            continue
        try:
            files = [_values_file(path, given, read) for given in suite.values + test.values]
            values = stringify_keys_deep(
                user_values(files, dict(suite.set), dict(test.set), "chart")
            )
        except (ValueError, SetPathError, GoYamlError):
            continue
        yield test, values


def _values_file(suite_path: str, given: str, read: TextReader) -> dict[str, Any]:
    """helm-unittest reads a suite's values files relative to the suite file."""
    return suite_values_file(
        posixpath.normpath(posixpath.join(posixpath.dirname(suite_path), given)), read, given
    )


def suite_values_file(path: str, read: TextReader, given: str | None = None) -> dict[str, Any]:
    """A values file as helm-unittest loads it (go-yaml, keys as strings); ValueError when unreadable."""
    given = given or path
    text = read(path)
    if text is None:
        raise ValueError(f"no values file {given}")
    loaded = load_first(text)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValueError(f"values file {given} is not a mapping")
    return stringify_keys(loaded)


def edited_test_names(
    files: Iterable[FileChange],
    chart_path: str,
    read: TextReader,
    suites: Collection[str] | None = None,
) -> frozenset[str]:
    """`<suite file>/<test>` of each test of the chart's own suites (`suites`, else
    `tests/*_test.yaml`) that holds a line the change adds (the test whose `it:` is the nearest
    above it at head): the tests the change writes or edits, which exercise what it is for."""
    names: set[str] = set()
    for change in files:
        if not is_suite(chart_path, change.path, suites):
            continue
        rest = suite_name(chart_path, change.path)
        owners = _test_of_each_line(read(change.path) or "")
        numbers = (number for hunk in change.hunks for number, _ in hunk.added())
        names.update(
            f"{rest}/{owners[n - 1]}" for n in numbers if 0 < n <= len(owners) and owners[n - 1]
        )
    return frozenset(names)


def _test_of_each_line(text: str) -> list[str]:
    """Per line, the name of the test whose `it:` is the nearest at or above it ("" before any)."""
    owners, current = [], ""
    for line in text.splitlines():
        if found := _IT.match(line):
            current = found.group(1).strip("\"'")
        owners.append(current)
    return owners
