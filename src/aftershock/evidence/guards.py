"""The guard map: for every changed rendered field, the assertions that pin it.

Both sides resolve to concrete locations in the same rendered body (see `locations`): the field
by walking its diff path, the assertion by evaluating its helm-unittest path on the document it
checked (see `documents`). An assertion pins a field when the locations are equal (exact), when
the assertion's location holds the field (enclosing: `spec.template.spec.containers[0]` pins
everything below it, the image included), or when it lies below the field (partial: one key of an
added map). Fields added, modified or reordered are resolved on the head render against the head
tests; removed fields on the base render against the base tests. A whole added (removed) object
is one entry with field path "", pinned by any assertion on its document. Each pin also says whether
the test saw the value the review renders there (`same_value`): tests set their own values, and a
test that checks a location only under other values does not guard the default rendered there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, assert_never

from aftershock.diff.values import deep_equal
from aftershock.evidence.documents import CheckedDocument, DocumentMap, checked_documents
from aftershock.evidence.locations import (
    Location,
    assertion_locations,
    comparable,
    coverage,
    field_location,
    location_text,
    value_at,
)
from aftershock.evidence.outcomes import keyed_results
from aftershock.model.change import Side
from aftershock.model.diff import FieldChange, FieldChangeKind, ObjectChange, ObjectChangeKind
from aftershock.model.objects import ObjectKey, RenderedObject
from aftershock.model.review import ChartReview
from aftershock.model.test_results import ChartResult, TestResult
from aftershock.model.tests import AssertionRef, FieldGuard, GuardTarget, Pin

_IDENTITY_LOCATIONS: tuple[Location, ...] = (
    ("kind",),
    ("apiVersion",),
    ("metadata", "name"),
    ("metadata", "namespace"),
)
_FIELD_TARGETS = {
    FieldChangeKind.ADDED: GuardTarget.FIELD_ADDED,
    FieldChangeKind.REMOVED: GuardTarget.FIELD_REMOVED,
    FieldChangeKind.MODIFIED: GuardTarget.FIELD_MODIFIED,
    FieldChangeKind.REORDERED: GuardTarget.FIELD_REORDERED,
}


@dataclass(frozen=True)
class SideRun:
    """One side of a chart: its test run, the review's rendered objects, and the template name map.

    `templates` maps a template as the test run names it (`orders/templates/x.yaml`) to its
    repository path (as RenderedObject.template names it).
    """

    result: ChartResult | None
    objects: tuple[RenderedObject, ...]
    templates: Mapping[str, str]


@dataclass(frozen=True)
class Located:
    """A checked document's assertion at one concrete location of its object."""

    doc: CheckedDocument
    ref: AssertionRef
    location: Location


@dataclass(frozen=True)
class Pairing:
    """An object change with its rendered object on each side (None where it has none)."""

    change: ObjectChange
    base: RenderedObject | None
    head: RenderedObject | None


class SideIndex:
    """One side's tests mapped onto the review's objects, located on the changed objects only."""

    def __init__(self, side: SideRun, changed: set[RenderedObject]) -> None:
        self.results: dict[tuple[str, str], tuple[str, TestResult]] = keyed_results(side.result)
        self.documents = tuple(
            checked_documents(side.result, self.results, side.templates, DocumentMap(side.objects))
        )
        self.located: dict[RenderedObject, list[Located]] = {}
        self.views: dict[RenderedObject, Any] = {}  # changed objects as the assertions compare them
        for doc in self.documents:
            if doc.obj is None or doc.obj not in changed:
                continue
            self.views.setdefault(doc.obj, comparable(doc.obj.body))
            for location in document_locations(doc, doc.obj):
                self.located.setdefault(doc.obj, []).append(
                    Located(doc, assertion_ref(doc, location), location)
                )

    @property
    def unresolved(self) -> int:
        return sum(1 for doc in self.documents if doc.obj is None)


def document_locations(doc: CheckedDocument, obj: RenderedObject) -> tuple[Location, ...]:
    """Where an assertion looks in an object: its path's locations, or what a path-less type reads."""
    if doc.path is not None:
        return assertion_locations(obj.body, doc.path) or ()
    if doc.assertion.assert_type == "containsDocument":
        return _IDENTITY_LOCATIONS
    if doc.assertion.assert_type == "matchSnapshot":
        return ((),)  # a snapshot of the whole document
    return ()  # failedTemplate, *Raw: no field of an object


def same_value(located: Located, field: Location, view: Any) -> bool:
    """Whether the test saw the value the review renders: at the field's location when the assertion
    encloses it (its compared value walked down to the field), else at the assertion's location."""
    if len(field) > len(located.location) and field[: len(located.location)] == located.location:
        found, rendered = value_at(view, field)
        below = field[len(located.location) :]
        seen = [
            value for actual in located.doc.actuals for ok, value in [value_at(actual, below)] if ok
        ]
    else:
        found, rendered = value_at(view, located.location)
        seen = list(located.doc.actuals)
        if located.doc.assertion.assert_type in ("lengthEqual", "notLengthEqual"):
            return found and isinstance(rendered, list) and len(rendered) in seen
    return found and any(deep_equal(value, rendered) for value in seen)


def assertion_ref(doc: CheckedDocument, location: Location | None) -> AssertionRef:
    assertion = doc.assertion
    return AssertionRef(
        suite_file=doc.key[0],
        suite=doc.suite,
        test=doc.key[1],
        index=assertion.index,
        assert_type=assertion.assert_type,
        negated=assertion.negated,
        path=doc.path,
        template=doc.template,
        document_index=doc.document_index,
        location="" if location is None else location_text(location),
        passed=assertion.passed,
    )


def pair_changes(review: ChartReview) -> tuple[Pairing, ...]:
    """Each object change of the review with its base and head objects."""
    return tuple(
        Pairing(
            change,
            _find(review.base_objects, change.previous_key or change.key, change.templates)
            if change.kind is not ObjectChangeKind.ADDED
            else None,
            _find(review.head_objects, change.key, change.templates)
            if change.kind is not ObjectChangeKind.REMOVED
            else None,
        )
        for change in review.changes
    )


def _find(
    objects: tuple[RenderedObject, ...], key: ObjectKey, templates: tuple[str, ...]
) -> RenderedObject | None:
    same_key = [o for o in objects if o.key == key]
    return next((o for o in same_key if o.template in templates), same_key[0] if same_key else None)


def build_guards(
    pairings: tuple[Pairing, ...], base: SideIndex, head: SideIndex
) -> tuple[FieldGuard, ...]:
    guards: list[FieldGuard] = []
    for pairing in pairings:
        change = pairing.change
        object_id = change.key.id
        match change.kind:
            case ObjectChangeKind.ADDED:
                guards.append(
                    _guard(object_id, "", GuardTarget.OBJECT_ADDED, Side.HEAD, pairing.head, head)
                )
            case ObjectChangeKind.REMOVED:
                guards.append(
                    _guard(object_id, "", GuardTarget.OBJECT_REMOVED, Side.BASE, pairing.base, base)
                )
            case ObjectChangeKind.CHANGED | ObjectChangeKind.RENAMED:
                guards.extend(
                    _field_guard(object_id, f, pairing, base, head) for f in change.fields
                )
            case _:
                assert_never(change.kind)
    return tuple(guards)


def _field_guard(
    object_id: str, field: FieldChange, pairing: Pairing, base: SideIndex, head: SideIndex
) -> FieldGuard:
    target = _FIELD_TARGETS[field.kind]
    if field.kind is FieldChangeKind.REMOVED:
        return _guard(object_id, field.path, target, Side.BASE, pairing.base, base)
    return _guard(object_id, field.path, target, Side.HEAD, pairing.head, head)


def _guard(
    object_id: str,
    path: str,
    target: GuardTarget,
    side: Side,
    obj: RenderedObject | None,
    index: SideIndex,
) -> FieldGuard:
    location = field_location(obj.body, path) if obj is not None else None
    if obj is None or location is None:
        return FieldGuard(object_id, path, target, side, None)
    pins: dict[AssertionRef, Pin] = {}
    for located in index.located.get(obj, []):
        relation = coverage(located.location, location)
        if relation is not None and located.ref not in pins:
            pins[located.ref] = Pin(
                located.ref, relation, same_value(located, location, index.views[obj])
            )
    return FieldGuard(object_id, path, target, side, location_text(location), tuple(pins.values()))
