"""Value probes: a value the change re-expresses, rendered with a text the usual string functions alter.

An edit such as `{{ .Values.image.tag }}` → `{{ .Values.image.tag | replace "." "-" }}` renders
identically whenever the context's tag has no dot, so every scenario shows nothing of it while the
line ran. A values path read on both a removed and an added line of one hunk of a chart's templates,
by actions (`{{ … }}`) that differ between the two, is *re-expressed*: the change alters what is made
of it (a path read by the same action on both sides, on a line edited elsewhere, is not). Each such
path whose value in the render is a non-empty string is rendered once more, at base and head, with
that string plus `.Probe_1` (a dot, an underscore, a capital and a digit: what `replace`, `lower`,
`trimSuffix` or a regular expression act on), as the scenario `probe:<path>=<value>`. Where such a line gives the value a `default`
(`{{ .Values.port | default 8080 }}` → `default 9090`), a value the render sets hides the default
instead, so the probe unsets it (`probe:<path>=null`: Helm drops a key given as null). A probe is a
made-up value, as a guard's is: its objects show what the edit does and no rule judges them
(`ChartReview.probe`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aftershock.diff.edited_templates import template_hunks
from aftershock.model.change import FileChange
from aftershock.model.review import VALUE_PROBE_PREFIX
from aftershock.releases.values import value_at
from aftershock.render.scenarios import Scenario, nested, values_read

PROBE_SUFFIX = ".Probe_1"
MAX_PROBES = 2  # per chart: re-expressed values are few, and each probe is a render per ref
_DEFAULT = re.compile(r"\bdefault\b")
_ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")


@dataclass(frozen=True)
class Reexpressed:
    """A values path the change re-expresses; `defaulted` when a changed line reading it gives a
    `default`."""

    path: str
    defaulted: bool = False


def reexpressed_reads(files: Iterable[FileChange], chart_folder: str) -> tuple[Reexpressed, ...]:
    """Values paths read on both a removed and an added line of one hunk of the chart's templates by
    actions that differ, in the order the hunks give them."""
    found: dict[str, bool] = {}
    for hunk in template_hunks(files, chart_folder):
        removed = _reads(line[1:] for line in hunk.lines if line.startswith("-"))
        added = _reads(line[1:] for line in hunk.lines if line.startswith("+"))
        for path, actions in added.items():
            if path in removed and actions != removed[path]:
                edited = actions ^ removed[path]
                defaulted = any(_DEFAULT.search(action) for action in edited)
                found[path] = found.get(path, False) or defaulted
    return tuple(Reexpressed(path, defaulted) for path, defaulted in found.items())


def probe_scenarios(reads: Iterable[Reexpressed], values: Mapping[str, Any]) -> list[Scenario]:
    """One `probe:` scenario per re-expressed path (at most `MAX_PROBES`): a defaulted one the render
    sets, unset; another whose rendered value is a non-empty string, that string with
    `PROBE_SUFFIX` appended."""
    probes = []
    for read in reads:
        value = value_at(values, read.path.split("."))
        probed: Any
        if read.defaulted and value not in (None, "", False, 0, {}, []):
            probed = None
        elif isinstance(value, str) and value and not value.endswith(PROBE_SUFFIX):
            probed = value + PROBE_SUFFIX
        else:
            continue
        shown = "null" if probed is None else probed
        probes.append(
            Scenario(
                name=f"{VALUE_PROBE_PREFIX}{read.path}={shown}",
                overrides=nested({read.path: probed}),
            )
        )
    return probes[:MAX_PROBES]


def _reads(lines: Iterable[str]) -> dict[str, frozenset[str]]:
    """Path -> the actions that read it, blanks closed up (a line with no whole action, one that
    continues an action over lines, stands as one)."""
    found: dict[str, frozenset[str]] = {}
    for line in lines:
        for action in _ACTION.findall(line) or [line]:
            action = " ".join(action.split())
            for path in values_read(action):
                found[path] = found.get(path, frozenset()) | {action}
    return found
