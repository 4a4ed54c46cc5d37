"""What the guard map says is wrong: unguarded changes, stale assertions and vacuous assertions.

- unguarded: a field added, modified or reordered (or a whole object added) that no assertion pins
  at head with the value the review renders: a test that checks the location only under its own
  values (`set: {port: 1234}` then `equal port 1234`) does not guard the default that changed.
  Only decided where the field's location was found in the head render.
- stale: a test still expecting the base value. Either an `equal` at head that pins a changed field
  (exactly or enclosing it), saw what the review renders there (not a value of its own) and expects
  what the base render has at its path while head renders something else; or, from the runs alone, an assertion that passed at base and fails at head with
  the same type, path and parameters (the test was not updated for the change).
- vacuous: an assertion whose path selected something in the base render of its object and selects
  nothing in the head render (a `notExists`/`isNull` then passes trivially; any other assertion
  fails on a path that is gone), or an assertion on an object head no longer renders that still passes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from aftershock.diff.redact import is_secret
from aftershock.diff.values import deep_equal
from aftershock.evidence.guards import Located, Pairing, SideIndex, assertion_ref, same_value
from aftershock.evidence.locations import (
    Location,
    assertion_locations,
    comparable,
    coverage,
    field_location,
    value_at,
)
from aftershock.model.diff import FieldChange, FieldChangeKind, RedactedValue
from aftershock.model.objects import RenderedObject
from aftershock.model.test_results import AssertionResult
from aftershock.model.tests import (
    AssertionRef,
    Coverage,
    FieldGuard,
    GuardProblem,
    GuardTarget,
    ProblemKind,
)

_GUARDED_TARGETS = (
    GuardTarget.FIELD_ADDED,
    GuardTarget.FIELD_MODIFIED,
    GuardTarget.FIELD_REORDERED,
    GuardTarget.OBJECT_ADDED,
)


def find_problems(
    pairings: tuple[Pairing, ...], guards: tuple[FieldGuard, ...], base: SideIndex, head: SideIndex
) -> tuple[GuardProblem, ...]:
    stale = list(_stale_by_value(pairings, head))
    stale += _stale_by_runs(
        base, head, guards, {_ref_key(p.assertion) for p in stale if p.assertion}
    )
    return (
        tuple(_unguarded(pairings, guards)) + tuple(stale) + tuple(_vacuous(pairings, guards, head))
    )


def _unguarded(
    pairings: tuple[Pairing, ...], guards: tuple[FieldGuard, ...]
) -> Iterator[GuardProblem]:
    fields = {(p.change.key.id, f.path): f for p in pairings for f in p.change.fields}
    for guard in guards:
        if (
            guard.target not in _GUARDED_TARGETS
            or guard.location is None
            or any(p.same_value for p in guard.pins)
        ):
            continue
        field = fields.get((guard.object_id, guard.field_path))
        what = "is new at head" if guard.target is GuardTarget.OBJECT_ADDED else _change_text(field)
        if guard.pins:
            subject = f"{len(guard.pins)} assertion(s) check this location only under other values"
        elif guard.target is GuardTarget.OBJECT_ADDED:
            subject = "no assertion checks its document"
        else:
            subject = "no test assertion pins it"
        yield GuardProblem(
            ProblemKind.UNGUARDED, f"{what}; {subject}", guard.object_id, guard.field_path
        )


def _change_text(field: FieldChange | None) -> str:
    if field is None or field.kind is FieldChangeKind.REORDERED:
        return "reordered"
    if field.kind is FieldChangeKind.ADDED:
        return f"added as {_shown(field.after)}"
    return f"changed from {_shown(field.before)} to {_shown(field.after)}"


def _stale_by_value(pairings: tuple[Pairing, ...], head: SideIndex) -> Iterator[GuardProblem]:
    """`equal` assertions at head expecting the base render's value at their path."""
    seen: set[tuple[Any, ...]] = set()
    for pairing in pairings:
        if pairing.base is None or pairing.head is None:
            continue
        fields = [
            (f, field_location(pairing.head.body, f.path))
            for f in pairing.change.fields
            if f.kind is not FieldChangeKind.REMOVED
        ]
        base_body, head_body = comparable(pairing.base.body), comparable(pairing.head.body)
        for located in head.located.get(pairing.head, []):
            assertion = located.doc.assertion
            if not _is_plain_equal(assertion) or _ref_key(located.ref) in seen:
                continue
            field = next(
                (
                    f
                    for f, loc in fields
                    if loc is not None
                    and coverage(located.location, loc) in (Coverage.EXACT, Coverage.ENCLOSING)
                ),
                None,
            )
            expected = assertion.parameters.get("Value")
            if field is None or not same_value(located, located.location, head_body):
                continue  # the test renders its own values there: it does not assert the base default
            if not _expects_base(expected, base_body, located, head_body):
                continue
            seen.add(_ref_key(located.ref))
            _, now = value_at(head_body, located.location)
            fails = "" if assertion.passed else "; the test fails at head"
            if is_secret(pairing.change.key):
                detail = f"`equal {located.doc.path}` still expects the base value of this Secret field{fails}"
            else:
                detail = f"`equal {located.doc.path}` still expects {_shown(expected)}, the base value; head renders {_shown(now)}{fails}"
            yield GuardProblem(
                ProblemKind.STALE, detail, pairing.change.key.id, field.path, located.ref
            )


def _is_plain_equal(assertion: AssertionResult) -> bool:
    return (
        assertion.assert_type == "equal"
        and not assertion.negated
        and not assertion.parameters.get("DecodeBase64")
    )


def _expects_base(expected: Any, base_body: Any, located: Located, head_body: Any) -> bool:
    base_locations = assertion_locations(base_body, located.doc.path) or ()
    base_values = [value_at(base_body, loc)[1] for loc in base_locations]
    found, now = value_at(head_body, located.location)
    return (
        bool(base_values)
        and all(deep_equal(expected, v) for v in base_values)
        and not (found and deep_equal(expected, now))
    )


def _stale_by_runs(
    base: SideIndex, head: SideIndex, guards: tuple[FieldGuard, ...], reported: set[tuple[Any, ...]]
) -> list[GuardProblem]:
    """Assertions passing at base and failing at head, unchanged: they still assert the old render."""
    pinned = {_ref_key(p.assertion)[:3]: g for g in guards for p in g.pins}
    done = {key[:3] for key in reported}
    problems: list[GuardProblem] = []
    for key, (_, test) in head.results.items():
        before = base.results.get(key)
        for assertion in test.assertions:
            old = _counterpart(before[1].assertions if before else (), assertion.index)
            if (
                assertion.passed
                or assertion.skipped
                or old is None
                or not old.passed
                or not _same(old, assertion)
            ):
                continue
            doc = next(
                (d for d in head.documents if d.key == key and d.assertion is assertion), None
            )
            if doc is None:
                continue  # nothing was rendered to check: a missing document, not an old value
            ref = assertion_ref(doc, None)
            if _ref_key(ref)[:3] in done:
                continue
            guard = pinned.get(_ref_key(ref)[:3])
            name = (
                f"{assertion.assert_type} {assertion.path}"
                if assertion.path
                else assertion.assert_type
            )
            detail = f"`{name}` passed at base and fails at head unchanged: it still asserts the base render"
            problems.append(
                GuardProblem(
                    ProblemKind.STALE,
                    detail,
                    guard.object_id if guard else None,
                    guard.field_path if guard else None,
                    ref,
                )
            )
    return problems


def _counterpart(assertions: tuple[AssertionResult, ...], index: int) -> AssertionResult | None:
    return next((a for a in assertions if a.index == index), None)


def _same(old: AssertionResult, new: AssertionResult) -> bool:
    return (old.assert_type, old.negated, old.path) == (
        new.assert_type,
        new.negated,
        new.path,
    ) and deep_equal(dict(old.parameters), dict(new.parameters))


def _vacuous(
    pairings: tuple[Pairing, ...], guards: tuple[FieldGuard, ...], head: SideIndex
) -> Iterator[GuardProblem]:
    paired = {p.head: (p, p.base) for p in pairings if p.head is not None and p.base is not None}
    for doc in head.documents:
        if doc.obj is None or doc.obj not in paired or not doc.path:
            continue
        pairing, base_obj = paired[doc.obj]
        if assertion_locations(doc.obj.body, doc.path) != ():
            continue  # still there at head (or not a path at all)
        was = assertion_locations(base_obj.body, doc.path) or ()
        if not was:
            continue
        field = _removed_field(pairing, base_obj, was[0])
        how = (
            "passes only because the path no longer exists at head"
            if doc.assertion.passed
            else "asserts a path that no longer exists at head"
        )
        detail = f"`{doc.assertion.assert_type} {doc.path}` {how}"
        yield GuardProblem(
            ProblemKind.VACUOUS, detail, pairing.change.key.id, field, assertion_ref(doc, was[0])
        )
    yield from _vacuous_documents(guards, head)


def _removed_field(pairing: Pairing, base_obj: RenderedObject, location: Location) -> str | None:
    for field in pairing.change.fields:
        if field.kind is FieldChangeKind.REMOVED:
            where = field_location(base_obj.body, field.path)
            if where is not None and coverage(location, where) is not None:
                return field.path
    return None


def _vacuous_documents(guards: tuple[FieldGuard, ...], head: SideIndex) -> Iterator[GuardProblem]:
    """Assertions on an object head no longer renders that still pass at head (checking nothing)."""
    for guard in guards:
        if guard.target is not GuardTarget.OBJECT_REMOVED:
            continue
        for pin in guard.pins:
            ref = pin.assertion
            current = head.results.get((ref.suite_file, ref.test))
            now = _counterpart(current[1].assertions, ref.index) if current else None
            if (
                now is not None
                and now.passed
                and not now.skipped
                and not any(c.document_index is not None for c in now.checked)
            ):
                detail = f"`{now.assert_type}` passes at head although the object it checked is no longer rendered"
                yield GuardProblem(ProblemKind.VACUOUS, detail, guard.object_id, "", ref)


def _ref_key(ref: AssertionRef) -> tuple[Any, ...]:
    return (ref.suite_file, ref.test, ref.index, ref.template, ref.document_index)


def _shown(value: Any) -> str:
    if isinstance(value, RedactedValue):
        return f"<redacted, {value.bytes} bytes>"
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."
