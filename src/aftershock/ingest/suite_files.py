"""Where each chart's helm-unittest suites are: the `-f` patterns a review runs them with.

In order: `.aftershock.yaml` `tests: {files: [...]}` (every chart); else the repository's CI
(GitHub workflows `.github/workflows/*.y*ml`, `.gitlab-ci.yml`, `.circleci/config.yml`, a root
`Makefile`, chart-testing's `ct.yaml` `additional-commands` with `{{ .Path }}` for each chart of
its `chart-dirs`) calling `helm unittest … -f PATTERN … CHART`; else helm-unittest's default
`tests/*_test.yaml`. A command's chart arguments are read relative to its working directory
(`working-directory`, `defaults.run.working-directory`, an unconditional `cd DIR`). A command
whose chart could be several (a glob) names each chart the glob matches; one whose chart or
working directory holds a variable (`${{ matrix.chart }}`, `$CHART`), or follows a conditional
`cd`, could mean any chart, so its patterns apply to every chart, together with the default (the
review would rather run a suite CI may not run than miss one it does). A CI pattern leaving the
repository is left out (and said so); `.aftershock.yaml` refuses one. Nothing is executed: the
files are only read.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from aftershock.gocompat.yamlio import load_one
from aftershock.helmtest.filepatterns import DEFAULT_PATTERN
from aftershock.model.errors import AftershockError

_WORKFLOWS = re.compile(r"\.github/workflows/[^/]+\.ya?ml")
# chart-testing's configuration: its `additional-commands` run for each chart of its `chart-dirs`
_CHART_TESTING = re.compile(r"(?:\.github/|\.ci/|ci/)?ct(?:[-_][\w-]+)?\.ya?ml")
_CHART_PATH = re.compile(r"\{\{-?\s*\.Path\s*-?\}\}")
_OTHER_CI = (".gitlab-ci.yml", ".circleci/config.yml", "Makefile")
_VALUE_FLAGS = {
    "-f",
    "--file",
    "-v",
    "--values",
    "-o",
    "--output-file",
    "-t",
    "--output-type",
    "--chart-tests-path",
}
_SEPARATORS = {"&&", "||", ";", "|", "then", "do", "else"}


@dataclass(frozen=True)
class SuitePatterns:
    """The suite file patterns of one chart, and where they come from (for the report)."""

    patterns: tuple[str, ...]
    source: str  # "default", ".aftershock.yaml", or "<ci file>" with what the command named


@dataclass(frozen=True)
class UnittestCommand:
    """One `helm unittest` call: its patterns and the charts it names (None: it could be any)."""

    file: str
    patterns: tuple[str, ...]
    charts: tuple[str, ...] | None
    named: str  # the chart arguments as written, for the report


def suite_patterns(
    ci_texts: dict[str, str], configured: tuple[str, ...], chart_paths: Iterable[str]
) -> dict[str, SuitePatterns]:
    """The patterns of each chart in `chart_paths`, from the configuration, the CI, or the default."""
    charts = sorted(set(chart_paths))
    if configured:
        return {chart: SuitePatterns(tuple(configured), ".aftershock.yaml") for chart in charts}
    commands = [
        command for path in sorted(ci_texts) for command in unittest_commands(path, ci_texts[path])
    ]
    commands = resolve_globs(commands, charts)
    return {chart: _inside(chart, _chart_patterns(chart, commands, charts)) for chart in charts}


def _inside(chart: str, found: SuitePatterns) -> SuitePatterns:
    """The patterns that stay inside the repository: they are globbed in the review's workspace, where
    one leaving it (`/etc/*`, `../../../**`) would walk the host's filesystem."""
    kept = tuple(p for p in found.patterns if _stays_inside(chart, p))
    if kept == found.patterns:
        return found
    left = ", ".join(p for p in found.patterns if p not in kept)
    return SuitePatterns(
        kept or (DEFAULT_PATTERN,), f"{found.source} (left out, outside the repository: {left})"
    )


def _stays_inside(chart: str, pattern: str) -> bool:
    joined = posixpath.normpath(posixpath.join(chart or ".", pattern))
    return not pattern.startswith("/") and joined != ".." and not joined.startswith("../")


def _chart_patterns(
    chart: str, commands: list[UnittestCommand], charts: list[str]
) -> SuitePatterns:
    literal = [c for c in commands if c.charts is not None and chart in c.charts]
    if literal:
        return SuitePatterns(_union(c.patterns for c in literal), _sources(literal, ""))
    vague = [c for c in commands if c.charts is None]
    if vague:
        return SuitePatterns(
            _union([*(c.patterns for c in vague), (DEFAULT_PATTERN,)]),
            _sources(vague, " (could mean any chart)"),
        )
    return SuitePatterns((DEFAULT_PATTERN,), "default")


def _union(groups: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(pattern for group in groups for pattern in group))


def _sources(commands: list[UnittestCommand], note: str) -> str:
    return "; ".join(dict.fromkeys(f"{c.file}: helm unittest {c.named}{note}" for c in commands))


def ci_files(paths: Iterable[str]) -> list[str]:
    """The CI files among repository paths that may call `helm unittest`."""
    return sorted(
        p for p in paths if _WORKFLOWS.fullmatch(p) or _CHART_TESTING.fullmatch(p) or p in _OTHER_CI
    )


def unittest_commands(path: str, text: str) -> list[UnittestCommand]:
    """Every `helm unittest` call in one CI file (an unreadable file has none)."""
    scripts: list[tuple[str, str]] = []
    if _WORKFLOWS.fullmatch(path):
        scripts = list(_workflow_scripts(path, text))
    elif _CHART_TESTING.fullmatch(path):
        scripts = list(_chart_testing_scripts(path, text))
    else:
        scripts = [("", text)]
    return [
        command
        for directory, script in scripts
        for command in _script_commands(path, directory, script)
    ]


def _workflow_scripts(path: str, text: str) -> Iterator[tuple[str, str]]:
    """(working directory, script) of each `run` step of a GitHub workflow."""
    try:
        workflow = load_one(text, source=path)
    except AftershockError:
        return
    if not isinstance(workflow, dict) or not isinstance(workflow.get("jobs"), dict):
        return
    top = _default_directory(workflow)
    for job in workflow["jobs"].values():
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list):
            continue
        job_directory = _default_directory(job) or top
        for step in job["steps"]:
            if isinstance(step, dict) and isinstance(step.get("run"), str):
                directory = step.get("working-directory")
                yield (str(directory) if directory else job_directory), step["run"]


def _chart_testing_scripts(path: str, text: str) -> Iterator[tuple[str, str]]:
    """Each `additional-commands` entry of a chart-testing configuration, once per chart folder of
    its `chart-dirs` (default `charts`): `{{ .Path }}` is each chart there, a glob the charts match."""
    try:
        config = load_one(text, source=path)
    except AftershockError:
        return
    if not isinstance(config, dict) or not isinstance(config.get("additional-commands"), list):
        return
    dirs = config.get("chart-dirs")
    folders = [str(d).rstrip("/") for d in dirs] if isinstance(dirs, list) else ["charts"]
    for command in config["additional-commands"]:
        if isinstance(command, str) and "unittest" in command:
            for folder in folders:
                yield "", _CHART_PATH.sub(shlex.quote(f"{folder}/*"), command)


def _default_directory(node: dict[str, Any]) -> str:
    run = (
        (node.get("defaults") or {}).get("run") if isinstance(node.get("defaults"), dict) else None
    )
    return str(run.get("working-directory") or "") if isinstance(run, dict) else ""


def _script_commands(path: str, directory: str, script: str) -> Iterator[UnittestCommand]:
    vague = _is_variable(directory)
    current = "" if vague else posixpath.normpath(directory or ".")
    for line in script.replace("\\\n", " ").splitlines():
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError:
            continue
        for position, command in enumerate(_commands(tokens)):
            if command[:1] == ["cd"]:
                target = command[1] if len(command) > 1 else ""
                if position > 0 or _is_variable(target) or not target:
                    vague = True  # conditional or computed: the chart could then be anywhere
                elif not vague:
                    current = posixpath.normpath(posixpath.join(current, target))
            elif command[:2] == ["helm", "unittest"]:
                yield _unittest(path, current, vague, command[2:])


def _commands(tokens: list[str]) -> list[list[str]]:
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS or token in (
            "if",
            "[[",
            "]]",
            "fi",
            "!",
            "-",
        ):  # "-": a YAML list item
            commands.append([])
        else:
            commands[-1].append(token)
    return [command for command in commands if command]


def _unittest(path: str, directory: str, vague: bool, args: list[str]) -> UnittestCommand:
    patterns: list[str] = []
    charts: list[str] = []
    iterator = iter(args)
    for arg in iterator:
        flag, _, inline = arg.partition("=")
        if flag in _VALUE_FLAGS:
            value = inline if inline else next(iterator, "")
            if flag in ("-f", "--file") and value and not _is_variable(value):
                patterns.append(value)
        elif not arg.startswith("-"):
            charts.append(arg)
    named = " ".join(charts) or "."
    if vague or any(_is_variable(chart) for chart in charts):
        return UnittestCommand(path, tuple(patterns) or (DEFAULT_PATTERN,), None, named)
    resolved = tuple(
        _repository_path(posixpath.join(directory, chart)) for chart in charts or ["."]
    )
    return UnittestCommand(path, tuple(patterns) or (DEFAULT_PATTERN,), resolved, named)


def resolve_globs(commands: list[UnittestCommand], chart_paths: list[str]) -> list[UnittestCommand]:
    """Commands whose chart arguments are globs, with the charts each glob matches."""
    out = []
    for command in commands:
        if command.charts is None or not any(_is_glob(c) for c in command.charts):
            out.append(command)
            continue
        matched = tuple(
            chart
            for chart in chart_paths
            for given in command.charts
            if fnmatch.fnmatchcase(chart, given)
        )
        out.append(UnittestCommand(command.file, command.patterns, matched, command.named))
    return out


def _repository_path(path: str) -> str:
    normal = posixpath.normpath(path)
    return "" if normal == "." else normal  # the root chart's path is ""


def _is_variable(text: str) -> bool:
    return "$" in text or "%" in text


def _is_glob(text: str) -> bool:
    return any(char in text for char in "*?[")
