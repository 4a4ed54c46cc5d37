"""What rules look up in a review, computed once: object pairs (base and head of each object),
changed lines of each file, and where a concern points to in the change.

Objects are paired as the diff pairs them: by key and occurrence, then RENAMED changes pair their
previous key at base with their key at head. An object only at head is ADDED, only at base REMOVED,
except in a test harness (installed nowhere) or from a template that failed at base: those are judged
as they stand. Charts not reviewed give no pairs, nor scenarios the chart rejects alike at both refs.
A chart rendered in several scenarios gives one pair per scenario, sharing their subject id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from aftershock.diff.matching import pair_by_key, slot_order, slots_of
from aftershock.findings.model import Location, PathStep, Subject, SubjectKind
from aftershock.model.change import FileChange
from aftershock.model.diff import ObjectChange, ObjectChangeKind
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.releases import split_release_id
from aftershock.model.review import ChartOutcome, ChartReview, Review
from aftershock.model.units import dependency_closure, test_harnesses
from aftershock.rules.support.access import mapping_keys
from aftershock.rules.support.added_lines import (
    AddedLine,
    AddedText,
    added_lines,
    first_naming,
    lines_beside,
    word_pattern,
)
from aftershock.rules.support.cached import cached
from aftershock.rules.support.globs import is_values_file, paths_in_folder
from aftershock.rules.support.pods import Container, PodSpec, containers_of, pod_spec_of

T = TypeVar("T")
DEFAULT_SCENARIO = "default"
REVIEWED = (ChartOutcome.CHANGED, ChartOutcome.UNCHANGED)


@dataclass(frozen=True)
class ObjectPair:
    """One object at base and head (either may be None) with its change, if it changed."""

    chart: ChartReview
    base: RenderedObject | None
    head: RenderedObject | None
    change: ObjectChange | None

    @cached
    def key(self) -> ObjectKey:
        return self.current.key

    @cached
    def current(self) -> RenderedObject:
        current = self.head or self.base
        assert current is not None
        return current

    @cached
    def install(self) -> str:
        """The chart, as `path@release` when a release installs it with its own values."""
        return (
            f"{self.chart.chart}@{self.chart.release}" if self.chart.release else self.chart.chart
        )

    @cached
    def object_id(self) -> str:
        """Identity of the object across scenarios: the same object in two scenarios is one subject."""
        return f"{self.install}::{self.key.id}"

    @cached
    def display(self) -> str:
        return f"{self.key}{self.where}"

    @cached
    def where(self) -> str:
        """` (release R in cluster C, scenario S)`, or "" for a chart's defaults as it stands."""
        where = []
        if self.chart.release:
            key, tree = split_release_id(self.chart.release)
            where.append(f"release {key.name}" + (f" in cluster {tree}" if tree else ""))
        if self.chart.scenario != DEFAULT_SCENARIO:
            where.append(f"scenario {self.chart.scenario}")
        return f" ({', '.join(where)})" if where else ""

    @cached
    def templates(self) -> tuple[str, ...]:
        """The files it came from: templates, and a kustomize build's patches and generator files."""
        sides = [o for o in (self.base, self.head) if o is not None]
        return tuple(sorted({path for o in sides for path in (o.template, *o.shaped_by)}))

    @cached
    def unchanged(self) -> bool:
        return self.base is not None and self.head is not None and self.change is None

    def subject(self, facet: str = "") -> Subject:
        return Subject(SubjectKind.OBJECT, self.object_id, self.display, facet)

    def impact_path(self, field: str | None = None, relation: str = "sets") -> tuple[PathStep, ...]:
        """Changed file -> chart(s) -> this object [-> field]: the path that justifies a finding."""
        return (
            (*self._object_path, PathStep("field", field, relation)) if field else self._object_path
        )

    @cached
    def _object_path(self) -> tuple[PathStep, ...]:
        """The impact path up to this object, the same for every finding about it."""
        steps = [PathStep(step.kind, step.id, step.relation) for step in self.chart.affected.path]
        return (*steps, PathStep("object", self.object_id, "renders"))

    @property
    def scope_paths(self) -> tuple[str, ...]:
        return (self.chart.chart, *self.templates)


class ReviewIndex:
    """Lookups over one Review; build once per evaluation."""

    def __init__(self, review: Review) -> None:
        self.review = review
        self._pods: dict[int, tuple[RenderedObject, PodSpec | None]] = {}
        # What a helper derives once for every rule that asks (a render's ReleaseObjects), under a
        # key naming the helper and the objects it derives from; the helper checks identity.
        self.derived: dict[tuple[Any, ...], Any] = {}
        self._pairs_of: dict[frozenset[tuple[str, str]], tuple[ObjectPair, ...]] = {}
        self._chart_files: dict[int, tuple[ObjectPair, tuple[str, ...]]] = {}
        self._chart_dirs_files: dict[str, tuple[str, ...]] = {}
        self._pairs_named: dict[frozenset[str], tuple[ObjectPair, ...]] = {}
        self._pod_pairs_with: dict[frozenset[str], tuple[ObjectPair, ...]] = {}

    def pairs_of(self, kinds: frozenset[tuple[str, str]]) -> tuple[ObjectPair, ...]:
        """The pairs with an object of one of `kinds` ((group, kind)) at either side, for a rule
        about those kinds only: it then visits them, not every object of the review."""
        found = self._pairs_of.get(kinds)
        if found is None:
            by_kind = self._positions_by_kind
            positions = sorted({p for kind in kinds for p in by_kind.get(kind, ())})
            found = self._pairs_of[kinds] = tuple(self.pairs[p] for p in positions)
        return found

    def pairs_named(self, kinds: frozenset[str]) -> tuple[ObjectPair, ...]:
        """The pairs whose object (at head, else base) is of one of `kinds` (kind names, any group)."""
        found = self._pairs_named.get(kinds)
        if found is None:
            by_name = self._positions_by_name
            positions = sorted(p for kind in kinds for p in by_name.get(kind, ()))
            found = self._pairs_named[kinds] = tuple(self.pairs[p] for p in positions)
        return found

    @cached
    def _positions_by_name(self) -> dict[str, list[int]]:
        """Kind name -> the positions in `pairs` of the pairs whose object is of that kind."""
        by_name: dict[str, list[int]] = {}
        for position, pair in enumerate(self.pairs):
            by_name.setdefault(pair.key.kind, []).append(position)
        return by_name

    @cached
    def _positions_by_kind(self) -> dict[tuple[str, str], list[int]]:
        """(group, kind) -> the positions in `pairs` of the pairs with such an object at either side:
        the pairs are looked at once, however many kinds the rules ask for."""
        by_kind: dict[tuple[str, str], list[int]] = {}
        for position, pair in enumerate(self.pairs):
            kinds = {(o.key.group, o.key.kind) for o in (pair.base, pair.head) if o is not None}
            for kind in kinds:
                by_kind.setdefault(kind, []).append(position)
        return by_kind

    def per_object(
        self, name: str, obj: RenderedObject, derive: Callable[[RenderedObject], T]
    ) -> T:
        """`derive(obj)`, computed once per object for every rule that asks under `name`."""
        key = (name, id(obj))
        entry = self.derived.get(key)
        if entry is None or entry[0] is not obj:
            entry = self.derived[key] = (obj, derive(obj))
        result: T = entry[1]
        return result

    def pod_spec(self, obj: RenderedObject) -> PodSpec | None:
        """`pod_spec_of(obj)`, computed once per object for all rules."""
        cached = self._pods.get(id(obj))
        if cached is None or cached[0] is not obj:
            cached = (obj, pod_spec_of(obj))
            self._pods[id(obj)] = cached
        return cached[1]

    @cached
    def pairs(self) -> tuple[ObjectPair, ...]:
        pairs: list[ObjectPair] = []
        harnesses = test_harnesses(self.review.charts)
        for chart in self.review.chart_reviews:
            if chart.outcome in REVIEWED and not chart.probe:  # made-up values: no consequence
                pairs.extend(pair_objects(chart, chart.chart in harnesses and not chart.release))
        return tuple(pairs)

    @cached
    def pod_pairs(self) -> tuple[ObjectPair, ...]:
        """The pairs with a pod spec on either side: all a rule about pods needs to look at."""
        return tuple(
            p
            for p in self.pairs
            if any(o is not None and self.pod_spec(o) is not None for o in (p.base, p.head))
        )

    def pod_pairs_with(self, keys: frozenset[str]) -> tuple[ObjectPair, ...]:
        """The pod pairs an object of which has one of `keys` as a mapping key anywhere in its pod
        spec: all a rule needs each issue of which is a field so named (most pods have no hostPath)."""
        found = self._pod_pairs_with.get(keys)
        if found is None:
            found = self._pod_pairs_with[keys] = tuple(
                pair
                for pair, held in zip(self.pod_pairs, self._pod_pair_keys, strict=True)
                if not keys.isdisjoint(held)
            )
        return found

    @cached
    def _pod_pair_keys(self) -> tuple[frozenset[str], ...]:
        """Per pod pair, every mapping key of its pod specs at either side, found once (the fields
        those rules judge are in the pod spec; its object's metadata and selector are not read)."""
        found = []
        for pair in self.pod_pairs:
            specs = [self.pod_spec(o) for o in (pair.base, pair.head) if o is not None]
            found.append(frozenset().union(*(mapping_keys(p.spec) for p in specs if p is not None)))
        return tuple(found)

    def kept_containers(self) -> Iterator[tuple[ObjectPair, Container, Container]]:
        """(pair, container at base, the same container at head) for each container a changed
        workload has at both refs (matched by its list and name)."""
        for pair in self.pod_pairs:
            if pair.base is None or pair.head is None or pair.change is None:
                continue
            base_pod, head_pod = self.pod_spec(pair.base), self.pod_spec(pair.head)
            if base_pod is None or head_pod is None:
                continue
            head_containers = {(c.list_name, c.name): c for c in containers_of(head_pod)}
            for container in containers_of(base_pod):
                kept = head_containers.get((container.list_name, container.name))
                if kept is not None:
                    yield pair, container, kept

    @cached
    def files(self) -> dict[str, FileChange]:
        return {change.path: change for change in self.review.files}

    @cached
    def _sorted_files(self) -> tuple[str, ...]:
        return tuple(sorted(self.files))

    @cached
    def _added_lines(self) -> dict[str, tuple[AddedLine, ...]]:
        return {change.path: tuple(added_lines(change.hunks)) for change in self.review.files}

    @cached
    def _added_texts(self) -> dict[str, AddedText]:
        return {path: AddedText(lines) for path, lines in self._added_lines.items() if lines}

    @cached
    def _beside_texts(self) -> dict[str, AddedText]:
        """Per changed file, its hunks' unchanged and removed lines (none in a file added whole)."""
        found = {change.path: tuple(lines_beside(change.hunks)) for change in self.review.files}
        return {path: AddedText(lines) for path, lines in found.items() if lines}

    @cached
    def _dependency_dirs(self) -> dict[str, tuple[str, ...]]:
        """chart path -> its own folder and every local dependency's folder, transitively."""
        by_path = {chart.path: chart for chart in self.review.charts}
        return {path: dependency_closure(chart, by_path) for path, chart in by_path.items()}

    def added_lines(self, path: str) -> tuple[AddedLine, ...]:
        return self._added_lines.get(path, ())

    def chart_files(self, pair: ObjectPair) -> list[str]:
        """Changed files that can shape this object: its templates, then files of its chart and of
        the charts it includes (values files first), then the files on its impact path. Found once
        per pair, for all its concerns."""
        found = self._chart_files.get(id(pair))
        if found is None or found[0] is not pair:
            found = self._chart_files[id(pair)] = (pair, self._find_chart_files(pair))
        return list(found[1])

    def _find_chart_files(self, pair: ObjectPair) -> tuple[str, ...]:
        ordered: list[str] = [t for t in pair.templates if t in self.files]
        ordered += self._files_of_chart(pair.chart.chart)
        ordered += [
            step.id
            for step in pair.chart.affected.path
            if step.kind == "file" and step.id in self.files
        ]
        return tuple(dict.fromkeys(ordered))

    def _files_of_chart(self, chart: str) -> tuple[str, ...]:
        """Changed files of a chart and the charts it includes, values files first; once a chart."""
        found = self._chart_dirs_files.get(chart)
        if found is None:
            dirs = self._dependency_dirs.get(chart, (chart,))
            inside = {p for folder in dirs for p in paths_in_folder(self._sorted_files, folder)}
            found = tuple(sorted(inside, key=lambda p: (not is_values_file(p), p)))
            self._chart_dirs_files[chart] = found
        return found

    def locate_in_change(self, files: Sequence[str], tokens: Iterable[str]) -> Location | None:
        """The first added line of `files` naming a token (as a word); else the change beside the
        first unchanged or removed line of their hunks naming one; else the first added line."""
        # a line holds no line break: nor does a token found on one
        patterns = [word_pattern(t) for t in tokens if t and "\n" not in t]
        # a word beside a change (second): the change that encloses or drops it
        for texts in (self._added_texts, self._beside_texts):
            if found := first_naming(texts, files, patterns):
                return Location(found[0], found[1].line)
        for path in files:
            lines = self.added_lines(path)
            if lines:
                return Location(path, lines[0].line)
        return Location(files[0]) if files else None

    def locate_object(
        self, pair: ObjectPair, tokens: Iterable[str], *, in_change: bool
    ) -> Location | None:
        """Where a concern about `pair` points: a changed line when the change made it (in the
        object's own file first: a build of many files changes them all), else the template."""
        if in_change:
            own = [f for f in self.chart_files(pair) if f in pair.templates]
            if found := self.locate_in_change(own or self.chart_files(pair), tokens):
                return found
        templates = pair.templates
        return Location(templates[0]) if templates else None


_Changes = dict[tuple[ObjectChangeKind, ObjectKey], ObjectChange]


def pair_objects(chart: ChartReview, standing: bool = False) -> Iterator[ObjectPair]:
    """Every object of a reviewed chart as a base/head pair, in key order. One at a single ref is
    judged as it stands there (base = head) when its template failed at base (nothing there to
    compare with), and with `standing`, always: a test harness's fixture is no object of a cluster."""
    changes = {(c.kind, c.key): c for c in chart.changes}
    one_sided = not chart.base_objects or not chart.head_objects  # a chart added or removed
    paired = (_one_sided if one_sided else _paired)(chart, changes)
    fixed = {t.template for t in chart.templates_fixed_at_head}
    for pair in paired:
        lone = pair.base is None or pair.head is None
        if lone and (standing or (pair.base is None and pair.current.template in fixed)):
            yield ObjectPair(chart, pair.current, pair.current, None)
        else:
            yield pair


def _paired(chart: ChartReview, changes: _Changes) -> list[ObjectPair]:
    base_slots, head_slots = slots_of(chart.base_objects), slots_of(chart.head_objects)
    kept, lone_base, lone_head = pair_by_key(base_slots, head_slots)
    moved = (c for c in chart.changes if c.kind is ObjectChangeKind.RENAMED and c.previous_key)
    renamed = {c.previous_key: c for c in moved}
    head_by_key = {slot.key: slot for slot in lone_head}
    out: list[ObjectPair] = []
    for pair in kept:
        change = changes.get((ObjectChangeKind.CHANGED, pair.head.key))
        out.append(ObjectPair(chart, pair.base.obj, pair.head.obj, change))
    used_head: set[ObjectKey] = set()
    for slot in lone_base:
        change = renamed.get(slot.key)
        if change is not None and change.key in head_by_key and change.key not in used_head:
            used_head.add(change.key)
            out.append(ObjectPair(chart, slot.obj, head_by_key[change.key].obj, change))
        else:
            out.append(
                ObjectPair(chart, slot.obj, None, changes.get((ObjectChangeKind.REMOVED, slot.key)))
            )
    added = ObjectChangeKind.ADDED
    out += [
        ObjectPair(chart, None, s.obj, changes.get((added, s.key)))
        for s in lone_head
        if s.key not in used_head
    ]
    out.sort(key=_pair_order)
    return out


def _one_sided(chart: ChartReview, changes: _Changes) -> list[ObjectPair]:
    """The pairs of a chart with objects at one ref only, in the order `pair_objects` gives them."""
    added = bool(chart.head_objects)
    kind = ObjectChangeKind.ADDED if added else ObjectChangeKind.REMOVED
    objects = chart.head_objects if added else chart.base_objects
    out = [
        ObjectPair(chart, None if added else o, o if added else None, changes.get((kind, o.key)))
        for _, o in sorted(enumerate(objects), key=slot_order)
    ]
    out.sort(key=_pair_order)
    return out


def _pair_order(pair: ObjectPair) -> tuple[str, str, str, str, bool, bool]:
    """By key (as its fields: no Python comparison per pair of keys), then sides."""
    k = pair.key
    return (k.group, k.kind, k.namespace, k.name, pair.base is None, pair.head is None)
