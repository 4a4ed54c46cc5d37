"""Static provenance of a review (pure): for each changed field, the changed values keys its template
(or a named template it calls) reads, and the templates that produce it.

Values live in one space per render, the rendered chart's: a subchart's template reads its values
under the subchart's name (or alias) there, except `global`; a dependency's `condition` is read in its
parent's values. A values key change applies to a chart review when it is in the values.yaml of a
chart of the rendered tree, in the values a release passes (`release <key>`), or in the values file
of the review's `file:` scenario. A key and a read match when one path is a prefix of the other.

An object whose templates read more than MAX_KEYS_PER_OBJECT of the changed keys (a `range` over a
map of thousands) gets no values links: listing them all would be quadratic in keys and objects and
tell a reader nothing; `Provenance.too_broad` names it, for the review to report.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from aftershock.model.diff import ObjectChange
from aftershock.model.provenance import FieldProvenance, TemplateLink, ValuesLink
from aftershock.model.releases import Evidence, release_label
from aftershock.model.review import ChartReview, Review
from aftershock.model.units import Chart, ValuesKeyChange
from aftershock.provenance.keyindex import KeyIndex
from aftershock.provenance.reads import WILDCARD
from aftershock.provenance.templates import (
    EMPTY,
    BodyMemo,
    ParsedFile,
    TemplateAnalysis,
    TemplateIndex,
    TemplateRead,
    parse_file,
)

DEFAULT_SCENARIO = "default"
MAX_KEYS_PER_OBJECT = 64


@dataclass(frozen=True)
class Provenance:
    """The static provenance of a review's changed fields, and the ids of the objects left unlinked
    (their templates read more than MAX_KEYS_PER_OBJECT changed keys)."""

    fields: tuple[FieldProvenance, ...]
    too_broad: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValueScope:
    """The chart tree of one render: chart path -> its values' prefix in the rendered chart's values,
    and the condition reads on the way to it."""

    root: str
    prefixes: Mapping[str, tuple[str, ...]]
    conditions: Mapping[str, tuple[TemplateRead, ...]]

    def owner(self, path: str) -> str | None:
        """The innermost chart of the tree holding a repository path."""
        holders = [c for c in self.prefixes if c == "" or path.startswith(c + "/")]
        return max(holders, key=len) if holders else None

    def in_root(self, chart: str, path: tuple[str, ...]) -> tuple[str, ...]:
        """A path read in `chart`'s values, as a path of the rendered chart's values."""
        return path if path[:1] == ("global",) else self.prefixes[chart] + path


def value_scope(root: str, charts: Mapping[str, Chart]) -> ValueScope:
    """Walk the dependencies from the rendered chart, breadth first (the first route to a chart wins)."""
    prefixes: dict[str, tuple[str, ...]] = {root: ()}
    conditions: dict[str, tuple[TemplateRead, ...]] = {root: ()}
    queue = [root]
    while queue:
        parent = queue.pop(0)
        chart = charts.get(parent)
        for dep in chart.dependencies if chart is not None else ():
            child = dep.resolved_path
            if child is None or child in prefixes:
                continue
            target = charts.get(child)
            prefixes[child] = prefixes[parent] + (
                dep.alias or (target.name if target else dep.name),
            )
            metadata = posixpath.join(parent, "Chart.yaml")
            reads = tuple(
                TemplateRead(prefixes[parent] + split_key(c.strip()), metadata)
                for c in (dep.condition or "").split(",")
                if c.strip()
            )
            conditions[child] = conditions[parent] + reads
            queue.append(child)
    return ValueScope(root, prefixes, conditions)


def split_key(path: str) -> tuple[str, ...]:
    """`a."b.c".d` -> ("a", "b.c", "d"), the inverse of the values diff's path text; `""` is the empty
    key (kept), an unquoted empty segment (`a..b`) is dropped."""
    if '"' not in path:
        return tuple(p for p in path.split(".") if p != "")
    parts: list[str] = []
    current: list[str] = []
    i, quoted, was_quoted = 0, False, False
    while i < len(path):
        ch = path[i]
        if quoted and ch == "\\" and i + 1 < len(path):
            current.append(path[i + 1])
            i += 2
            continue
        if ch == '"':
            quoted, was_quoted = not quoted, True
        elif ch == "." and not quoted:
            if current or was_quoted:
                parts.append("".join(current))
            current, was_quoted = [], False
        else:
            current.append(ch)
        i += 1
    if current or was_quoted:
        parts.append("".join(current))
    return tuple(parts)


def matches(read: tuple[str, ...], key: tuple[str, ...]) -> bool:
    """One path is a prefix of the other (`*` in a read matches any key)."""
    return all(r in (k, WILDCARD) for r, k in zip(read, key))


def review_id(review: ChartReview) -> str:
    """The id the review document gives a chart review (report.canonical.review_id)."""
    base = f"{review.chart}@{review.release}" if review.release else review.chart
    return base if review.scenario == DEFAULT_SCENARIO else f"{base}#{review.scenario}"


def release_values_file(release_id: str) -> str:
    """The `file` of the values key changes of a release's values (model.releases.release_label)."""
    return release_label(release_id)


KeyedChanges = Mapping[str, Sequence[tuple[int, ValuesKeyChange, tuple[str, ...]]]]


def keyed_changes(changes: Iterable[ValuesKeyChange]) -> KeyedChanges:
    """Each values file's key changes, with their position and split path: gathered once per review,
    as every chart review asks for the few files that feed it among thousands of changes."""
    found: dict[str, list[tuple[int, ValuesKeyChange, tuple[str, ...]]]] = {}
    for position, change in enumerate(changes):
        found.setdefault(change.file, []).append((position, change, split_key(change.path)))
    return found


def scoped_keys(
    keyed: KeyedChanges, chart_review: ChartReview, scope: ValueScope
) -> tuple[tuple[ValuesKeyChange, tuple[str, ...]], ...]:
    """The values key changes that feed this render, each with its path in the rendered chart's
    values, in the review's order."""
    found: list[tuple[int, ValuesKeyChange, tuple[str, ...]]] = []
    for chart in scope.prefixes:
        for position, change, path in keyed.get(posixpath.join(chart, "values.yaml"), ()):
            found.append((position, change, scope.in_root(chart, path)))
    own = {release_values_file(chart_review.release) if chart_review.release else None}
    if chart_review.scenario.startswith("file:"):
        own.add(posixpath.join(chart_review.chart, chart_review.scenario[len("file:") :]))
    for file in own - {None} - {posixpath.join(c, "values.yaml") for c in scope.prefixes}:
        found.extend(keyed.get(file or "", ()))
    return tuple((change, path) for _, change, path in sorted(found, key=lambda item: item[0]))


class _Texts:
    """Parsed template files of one side, and one index per rendered chart tree."""

    def __init__(self, texts: Mapping[str, str], memo: BodyMemo) -> None:
        self.parsed = {path: parse_file(text) for path, text in texts.items()}
        self._memo = memo
        self._indexes: dict[tuple[str, ...], TemplateIndex] = {}
        # folder -> the files under it, for every folder on every file's path ("" holds them all)
        self._under: dict[str, list[str]] = {}
        for path in self.parsed:
            parts = path.split("/")[:-1]
            for folder in ["", *("/".join(parts[: i + 1]) for i in range(len(parts)))]:
                self._under.setdefault(folder, []).append(path)

    def index(self, scope: ValueScope) -> TemplateIndex:
        """The templates of every chart in the scope's tree (those `scope.owner` places in it)."""
        charts = tuple(sorted(scope.prefixes))
        if charts not in self._indexes:
            inside = {p for chart in charts for p in self._under.get(chart, ())}
            files: dict[str, ParsedFile] = {p: self.parsed[p] for p in sorted(inside)}
            self._indexes[charts] = TemplateIndex(files, self._memo)
        return self._indexes[charts]


def provenance(
    review: Review, template_texts: Mapping[str, str], base_texts: Mapping[str, str] | None = None
) -> tuple[FieldProvenance, ...]:
    """Static provenance of every changed field (see `static_provenance`)."""
    return static_provenance(review, template_texts, base_texts).fields


def static_provenance(
    review: Review, template_texts: Mapping[str, str], base_texts: Mapping[str, str] | None = None
) -> Provenance:
    """Static provenance of every changed field: `template_texts` are the template files at head
    (repository path -> text), `base_texts` at base; reads found on either side count."""
    charts: dict[str, Chart] = {}
    for chart in review.charts:
        charts.setdefault(chart.path, chart)
    changed = {p for f in review.files for p in (f.path, f.old_path) if p}
    memo = BodyMemo()  # both sides and every chart tree: unchanged texts are read once
    sides = [_Texts(template_texts, memo)] + (
        [_Texts(base_texts, memo)] if base_texts is not None else []
    )
    defaults = {
        (r.chart, r.release): r.changes
        for r in review.chart_reviews
        if r.scenario == DEFAULT_SCENARIO
    }
    found: list[FieldProvenance] = []
    too_broad: list[str] = []
    keyed = keyed_changes(review.values_changes)
    for chart_review in review.chart_reviews:
        shown = (
            defaults.get((chart_review.chart, chart_review.release), ())
            if chart_review.scenario != DEFAULT_SCENARIO
            else ()
        )
        changes = [c for c in chart_review.changes if c not in shown]
        if not changes:
            continue
        scope = value_scope(chart_review.chart, charts)
        keys = scoped_keys(keyed, chart_review, scope)
        key_index = KeyIndex([path for _, path in keys])
        indexes = [side.index(scope) for side in sides]
        for change in changes:
            analysis = _object_analysis(change, scope, indexes)
            links = _values_links(analysis, keys, key_index)
            if links is None:
                too_broad.append(f"{review_id(chart_review)}::{change.key.id}")
                links = ()
            found.extend(
                _fields(chart_review, change, links, _template_links(change, analysis, changed))
            )
    return Provenance(tuple(found), tuple(too_broad))


def _object_analysis(
    change: ObjectChange, scope: ValueScope, indexes: Sequence[TemplateIndex]
) -> TemplateAnalysis:
    """Everything the object's templates read, in the rendered chart's values."""
    result = EMPTY
    for template in change.templates:
        owner = scope.owner(template)
        if owner is None:
            continue
        # A subchart renders at all only when the conditions on its way are true.
        result = result.union(
            TemplateAnalysis(frozenset(scope.conditions.get(owner, ())), frozenset())
        )
        for index in indexes:
            found = index.analyse(template, owner)
            reads = frozenset(
                TemplateRead(scope.in_root(owner, r.path), r.source) for r in found.reads
            )
            metadata = (
                frozenset({posixpath.join(owner, "Chart.yaml")})
                if found.chart_fields
                else frozenset()
            )
            result = result.union(TemplateAnalysis(reads, found.files | metadata))
    return result


def _values_links(
    analysis: TemplateAnalysis,
    keys: Sequence[tuple[ValuesKeyChange, tuple[str, ...]]],
    key_index: KeyIndex,
) -> tuple[ValuesLink, ...] | None:
    """The links of the keys the analysis reads, in key order; None when over MAX_KEYS_PER_OBJECT."""
    read: set[int] = set()
    for item in analysis.reads:
        matched = key_index.matching(item.path, MAX_KEYS_PER_OBJECT)
        if matched is None:
            return None
        read |= matched
        if len(read) > MAX_KEYS_PER_OBJECT:
            return None
    links = []
    for change, path in (keys[position] for position in sorted(read)):
        hits = [r for r in analysis.reads if matches(r.path, path)]
        if hits:
            reads = tuple(sorted({".".join(r.path) for r in hits}))
            templates = tuple(sorted({r.source for r in hits}))
            links.append(ValuesLink(change.file, change.path, change.kind.value, reads, templates))
    return tuple(links)


def _template_links(
    change: ObjectChange, analysis: TemplateAnalysis, changed: set[str]
) -> tuple[TemplateLink, ...]:
    """The object's own template files (Helm names them: observed), then the changed files defining
    named templates they call, and a changed Chart.yaml whose fields they read (inferred)."""
    own = [TemplateLink(t, t in changed, Evidence.OBSERVED) for t in change.templates]
    called = [
        TemplateLink(f, True, Evidence.INFERRED)
        for f in sorted(analysis.files)
        if f in changed and f not in change.templates
    ]
    return tuple(own + called)


def _fields(
    chart_review: ChartReview,
    change: ObjectChange,
    values: tuple[ValuesLink, ...],
    templates: tuple[TemplateLink, ...],
) -> list[FieldProvenance]:
    scope_id = review_id(chart_review)
    scenario = chart_review.scenario
    object_id = f"{scope_id}::{change.key.id}"
    if not change.fields:
        return [
            FieldProvenance(
                scope_id, object_id, change.key, "", change.kind.value, scenario, values, templates
            )
        ]
    return [
        FieldProvenance(
            scope_id, object_id, change.key, f.path, f.kind.value, scenario, values, templates
        )
        for f in change.fields
    ]
