"""Which base outcomes a chart's test evidence needs, decided from the head run and the review.

A review runs every suite at head; at base it runs only the tests whose outcome some evidence reads:
- a test failing at head (newly failing or still failing; stale assertions compare its base run);
- a test of a suite file the change edits or that only base has (the reviewer sees it move);
- a test that may have pinned at base what the change removes (the guard map resolves removals on
  the base render against the base tests): its suite is the same at both refs, so its head
  assertions, laid on the base objects at the same documents (template and helm-unittest document
  index, as `documents` maps them), are what its base run would check; it is needed when one of
  them reaches a removed field's location. Where that cannot be decided it is needed: a template
  where the change removes or adds whole objects (the documents' positions move), a removed
  object, a field not located in the base body, a template the review cannot place.
Every other test passes (or is skipped) at head, so its base outcome could only make it *newly
passing*; it is left out and reported as not compared, never as unchanged. A head run that could
not load the chart needs the whole base run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from aftershock.evidence.documents import DocumentMap, checked_documents
from aftershock.evidence.guards import document_locations, pair_changes
from aftershock.evidence.locations import Location, coverage, field_location
from aftershock.evidence.outcomes import keyed_results
from aftershock.model.diff import FieldChangeKind, ObjectChangeKind
from aftershock.model.objects import RenderedObject
from aftershock.model.review import ChartReview
from aftershock.model.test_results import ChartResult, JobStatus, TestKey, TestResult

_NOT_NEEDED = (JobStatus.PASSED, JobStatus.SKIPPED)


@dataclass(frozen=True)
class Removals:
    """Where the base render holds what the change removes: field locations in base objects, or whole
    templates (repository paths) where any look counts."""

    base_map: DocumentMap
    fields: Mapping[RenderedObject, tuple[Location, ...]] = field(default_factory=dict)
    templates: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.fields or self.templates)

    def holds(self, template: str) -> bool:
        return template in self.templates or any(o.template == template for o in self.fields)


def removals(review: ChartReview) -> Removals:
    """Where the base render holds what the change removes (see the module docstring)."""
    pairings = pair_changes(review)
    moved = {
        t
        for p in pairings
        if p.change.kind in (ObjectChangeKind.ADDED, ObjectChangeKind.REMOVED)
        for t in (*p.change.templates, *(o.template for o in (p.base, p.head) if o is not None))
    }
    base_map = DocumentMap(review.base_objects)
    fields: dict[RenderedObject, tuple[Location, ...]] = {}
    templates: set[str] = set()
    for pairing in pairings:
        change, base = pairing.change, pairing.base
        removed = [f.path for f in change.fields if f.kind is FieldChangeKind.REMOVED]
        if change.kind is not ObjectChangeKind.REMOVED and not removed:
            continue
        found = [field_location(base.body, path) for path in removed] if base is not None else []
        located = tuple(loc for loc in found if loc is not None)
        if (
            base is None
            or change.kind is ObjectChangeKind.REMOVED
            or base.template in moved
            or base_map.index_of(base) is None
            or len(located) < len(removed)
        ):
            templates.update(change.templates)
            templates.update([base.template] if base is not None else [])
        else:
            fields[base] = located
    return Removals(base_map, fields, frozenset(templates))


def base_not_needed(
    head: ChartResult | None,
    removed: Removals,
    templates: Mapping[str, str],
    edited_suites: frozenset[str],
) -> frozenset[TestKey]:
    """The head tests whose base outcome no evidence needs (see the module docstring).

    `head` has chart-relative suite files; `removed` says where the base render holds what the
    change removes (`removals`); `templates` maps a template as the run names it to its repository
    path (`SideRun.templates`); `edited_suites` are the chart-relative suite files that differ
    between the refs.
    """
    if head is None or head.error is not None:
        return frozenset()
    keyed = keyed_results(head)
    pinning = _may_have_pinned(head, keyed, templates, removed) if removed else set()
    return frozenset(
        key
        for key, (_, test) in keyed.items()
        if test.status in _NOT_NEEDED and key[0] not in edited_suites and key not in pinning
    )


def _may_have_pinned(
    head: ChartResult,
    keyed: Mapping[TestKey, tuple[str, TestResult]],
    templates: Mapping[str, str],
    removed: Removals,
) -> set[TestKey]:
    """Tests whose head assertions, laid on the base render at the same documents (their suite is
    the same at both refs), reach what the change removes there."""
    needed = set()
    for doc in checked_documents(head, keyed, templates, removed.base_map):
        if not doc.template or doc.template in removed.templates:
            needed.add(doc.key)  # a template the review cannot place, or whose documents moved
        elif doc.obj is not None and doc.obj in removed.fields:
            looks = document_locations(doc, doc.obj)
            if any(coverage(look, loc) for look in looks for loc in removed.fields[doc.obj]):
                needed.add(doc.key)
    for key, (_, test) in keyed.items():
        named = {n for a in test.assertions for n in a.templates} - {
            c.template for a in test.assertions for c in a.checked
        }
        if any(name not in templates or removed.holds(templates[name]) for name in named):
            needed.add(key)  # it looked there and checked no document: decided by running it
    return needed
