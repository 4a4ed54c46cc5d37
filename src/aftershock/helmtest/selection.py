"""Which templates a suite renders and which documents an assertion looks at.

Suite `templates`/`excludeTemplates` entries are paths relative to the chart's `templates/`
folder (the `templates/` prefix may be omitted) with `*` and `**` wildcards; helm-unittest turns
each into a regular expression searched (unanchored) in Helm's template names, and always keeps
partials (`_*`). Assertions then pick documents by `documentIndex` or `documentSelector`.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from aftershock.gocompat.gofmt import deep_equal
from aftershock.gocompat.goregex import GoRegex, compile_go
from aftershock.gocompat.jsonpath import PathError
from aftershock.helmtest.assertions.common import Doc, path_values
from aftershock.helmtest.suite import DocumentSelector

ALL_TEMPLATES = "**"
_PREFIXES = ("templates", "charts", "crds", "**")
_ESCAPES = (
    (".", "\\."),
    ("+", "\\+"),
    ("[", "\\["),
    ("]", "\\]"),
    ("**", "[0-9a-zA-Z_\\-/\\.]+"),
    ("*", "[0-9a-zA-Z_\\-_/\\.]*"),
    ("?", "\\?"),
    ("(", "\\("),
    (")", "\\)"),
    ("|", "\\|"),
    ("{", "\\{"),
    ("}", "\\}"),
    ("^", "\\^"),
    ("$", "\\$"),
)


class SelectionError(ValueError):
    """An assertion's documentIndex or documentSelector found no usable document."""


def template_file_name(name: str) -> str:
    """getTemplateFileName: `deployment.yaml` -> `templates/deployment.yaml`."""
    if name.startswith(_PREFIXES):
        return name
    return _join("templates", name)


def _join(*parts: str) -> str:
    """filepath.Join with slashes: joined and cleaned, empty parts skipped."""
    joined = "/".join(part for part in parts if part)
    return posixpath.normpath(joined) if joined else ""


def prefixed_template(chart_route: str, name: str) -> str:
    """The Helm template name an assertion's `template` refers to."""
    return _join(chart_route, template_file_name(name))


@functools.lru_cache(maxsize=1024)
def _pattern(chart_route: str, name: str) -> GoRegex:
    text = _join(chart_route, template_file_name(name))
    for old, new in _ESCAPES:
        text = text.replace(old, new)
    return compile_go(text)


def template_selected(
    template: str, chart_route: str, include: tuple[str, ...], exclude: tuple[str, ...]
) -> bool:
    """Whether helm-unittest's filtered chart would render `template` (partials aside)."""
    if not any(_pattern(chart_route, name).search(template) for name in include):
        return False
    return not any(_pattern(chart_route, name).search(template) for name in exclude)


def selected_outputs(
    outputs: Mapping[str, str], chart_route: str, include: tuple[str, ...], exclude: tuple[str, ...]
) -> dict[str, str]:
    """The part of a full render that rendering only the selected templates would produce."""
    return {
        name: text
        for name, text in outputs.items()
        if not posixpath.basename(name).startswith("_")
        and template_selected(name, chart_route, include, exclude)
    }


def _matches_selector(selector: DocumentSelector, doc: Doc) -> bool:
    try:
        values = path_values(doc, selector.path)
    except PathError as exc:
        raise SelectionError(str(exc)) from None
    return any(selector.value is None or deep_equal(selector.value, value) for value in values)


def _select_in_template(selector: DocumentSelector, docs: tuple[Doc, ...]) -> tuple[Doc, ...]:
    chosen: list[Doc] = []
    for doc in docs:
        if _matches_selector(selector, doc):
            if not selector.match_many and chosen:
                raise SelectionError("multiple indexes found")
            chosen.append(doc)
    if selector.skip_empty_templates or chosen:
        return tuple(chosen)
    raise SelectionError("document not found")


def select_by_selector(
    selector: DocumentSelector, docs: Mapping[str, tuple[Doc, ...]]
) -> dict[str, tuple[Doc, ...]]:
    """DocumentSelector.SelectDocuments over every template of the assertion."""
    selected: dict[str, tuple[Doc, ...]] = {}
    total = 0
    for template, template_docs in docs.items():
        chosen = _select_in_template(selector, template_docs)
        total += len(chosen)
        if not selector.match_many and total > 1:
            raise SelectionError("multiple indexes found")
        if chosen or not selector.skip_empty_templates:
            selected[template] = chosen
    return selected


def select_by_index(index: int, docs: Mapping[str, tuple[Doc, ...]]) -> dict[str, tuple[Doc, ...]]:
    """The `documentIndex`-th document of every template; an error when one has too few."""
    selected: dict[str, tuple[Doc, ...]] = {}
    for template, template_docs in docs.items():
        if index >= len(template_docs) or index < 0:
            raise SelectionError(f"document index {index} is out of range")
        selected[template] = (template_docs[index],)
    return selected


@dataclass(frozen=True)
class DocumentFilter:
    """What an assertion selects documents by, after the test's settings were applied."""

    index: int = -1
    selector: DocumentSelector | None = None

    def apply(self, docs: Mapping[str, tuple[Doc, ...]]) -> dict[str, tuple[Doc, ...]]:
        if self.selector is not None and self.selector.path:
            return select_by_selector(self.selector, docs)
        if self.index != -1:
            return select_by_index(self.index, docs)
        return dict(docs)
