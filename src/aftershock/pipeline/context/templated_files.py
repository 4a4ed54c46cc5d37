"""Chart files kept outside `templates/` that the chart renders as templates: alert rules or config
snippets a template reads through `.Files` (`Get`, `Glob`) and passes to `tpl`. An edit to one is an
edit to a template: its guards are the scenarios that reach the edit, and the values paths its
changed lines read rank them. The templates that read it are edited too, for their guards: an
`if .Values.alerts.enabled` around the `.Files.Glob` decides whether the file renders at all.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence

from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.pipeline.context.refused import readable_text
from aftershock.render.plan import TEMPLATE_SUFFIXES

_TPL_CALL = re.compile(r"\btpl\b")
# the quoted text after `.Files.Get` / `.Files.Glob`, through a `printf` ("alerts/%s/*.tpl")
_FILES_PATTERN = re.compile(r'\.Files\.(?:Get|Glob)\s+\(?\s*(?:printf\s+)?"([^"]+)"')
_VERB = re.compile(r"%[-+# 0-9.]*[a-zA-Z]")


def templated_files(tree: RefSnapshot, chart_path: str, changed: Iterable[str]) -> list[str]:
    """The changed paths of the chart (repository paths) that its templates may render through
    `tpl` from `.Files`: outside `templates/` and `charts/`, holding a template action, in a chart
    one of whose templates reads `.Files` and calls `tpl`."""
    prefix = f"{chart_path}/" if chart_path else ""
    found = [
        path
        for path in changed
        if path.startswith(prefix)
        and path.endswith(TEMPLATE_SUFFIXES)
        and not path[len(prefix) :].startswith("charts/")
        and "/templates/" not in f"/{path[len(prefix) :]}"
    ]
    if not found or not _renders_files(tree, chart_path):
        return []
    return [path for path in found if "{{" in (readable_text(tree, path) or "")]


def _renders_files(tree: RefSnapshot, chart_path: str) -> bool:
    """Whether one of the chart's own templates reads `.Files` and calls `tpl` (read once per ref)."""
    memo, key = tree.facts, f"tpl-files:{chart_path}"
    if key not in memo:
        prefix = f"{chart_path}/templates" if chart_path else "templates"
        memo[key] = any(
            ".Files." in text and _TPL_CALL.search(text) is not None
            for text in tree.texts_under([prefix], suffixes=TEMPLATE_SUFFIXES)
        )
    return memo[key]


def reading_templates(tree: RefSnapshot, chart_path: str, files: Sequence[str]) -> list[str]:
    """The chart's own templates (repository paths) whose `.Files.Get` or `.Files.Glob` names one of
    `files` (repository paths), a `printf` verb in the name matching any one folder or name."""
    if not files:
        return []
    prefix = f"{chart_path}/" if chart_path else ""
    wanted = [path[len(prefix) :] for path in files]
    folder = f"{prefix}templates"
    found = []
    for path in tree.tree.paths_under(folder):
        text = readable_text(tree, path) if path.endswith(TEMPLATE_SUFFIXES) else None
        patterns = [_VERB.sub("*", p) for p in _FILES_PATTERN.findall(text or "")]
        if any(_names(pattern, file) for pattern in patterns for file in wanted):
            found.append(path)
    return found


def _names(pattern: str, file: str) -> bool:
    """Whether `.Files` given `pattern` reads `file` (both relative to the chart): `*` within one
    folder or name, as Helm's glob has it."""
    parts, names = pattern.split("/"), file.split("/")
    return len(parts) == len(names) and all(
        fnmatch.fnmatchcase(name, part) for part, name in zip(parts, names, strict=True)
    )
