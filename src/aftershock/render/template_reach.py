"""Which of a chart's template files a render of some of its templates runs, read from their texts:
the templates a helm-unittest suite selects, and the files defining what they `include` or
`template` by a literal name, transitively. A define included on a branch the render does not take
counts as run: it is what the render may run, an upper bound, never less."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping

from aftershock.helmtest.selection import template_selected
from aftershock.model.contexts import TemplateSelection

_DEFINE = re.compile(r'\{\{-?\s*define\s+"([^"]+)"')
_INCLUDED = re.compile(r'\b(?:include|template)\s+"([^"]+)"')


def files_run(
    selection: TemplateSelection, chart: str, texts: Mapping[str, str]
) -> frozenset[str] | None:
    """The files of `texts` (chart `chart`'s templates, by repository path) that a render of
    `selection` may run; None for the whole chart (a selection naming no template)."""
    if not (selection.include or selection.exclude):
        return None
    route = posixpath.basename(chart) if chart else ""
    include = selection.include or ("**",)
    selected = [
        path
        for path in texts
        if not posixpath.basename(path).startswith("_")
        and template_selected(_helm_name(path, chart, route), route, include, selection.exclude)
    ]
    return _with_includes(selected, texts)


def _helm_name(path: str, chart: str, route: str) -> str:
    """`<chart name>/templates/x.yaml`, as Helm names a template (the folder's name stands in)."""
    return f"{route}/{path[len(chart) + 1 :]}" if chart else path


def _with_includes(selected: Iterable[str], texts: Mapping[str, str]) -> frozenset[str]:
    defined_in: dict[str, str] = {}
    for path, text in texts.items():
        for name in _DEFINE.findall(text):
            defined_in.setdefault(name, path)
    seen = set(selected)
    pending = list(seen)
    while pending:
        for name in _INCLUDED.findall(texts.get(pending.pop(), "")):
            found = defined_in.get(name)
            if found is not None and found not in seen:
                seen.add(found)
                pending.append(found)
    return frozenset(seen)
