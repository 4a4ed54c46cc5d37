"""The lifecycle of findings between two reviews of a target: new, retained, resolved, dismissed,
suppressed (pure).

Findings are matched by fingerprint (rule + subject). A dismissal holds for the evidence it was
made on: when the finding's evidence digest changes, the finding is raised again and the report
can say which dismissal lapsed. A finding the repository silences (an annotation or its dismissals
file at the base ref) is suppressed, not resolved: it is still there, and it is new or retained
again once the suppression goes. A previous finding that is absent now is only called resolved when
the new review looked at it (`in_scope`); otherwise it is carried forward, never silently dropped.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from aftershock.model.state_records import Decision, Suppression


class Matchable(Protocol):
    @property
    def fingerprint(self) -> str: ...

    @property
    def evidence_digest(self) -> str: ...


class SilencedMatchable(Protocol):
    """A finding with the suppression that silences it (`aftershock.model.state_records.SuppressedFinding`)."""

    @property
    def finding(self) -> Matchable: ...

    @property
    def suppression(self) -> Suppression: ...


class LifecycleState(str, enum.Enum):
    NEW = "new"
    RETAINED = "retained"  # present at the previous reviewed head and still present
    RESOLVED = "resolved"  # present at the previous reviewed head, gone now
    DISMISSED = "dismissed"  # present, but refused with a reason on this same evidence
    SUPPRESSED = "suppressed"  # present, but silenced by the repository at the base ref


@dataclass(frozen=True)
class LifecycleEntry:
    """One finding's place in the lifecycle.

    `finding` is the current finding (NEW, RETAINED, DISMISSED, SUPPRESSED) or the previous one
    (RESOLVED, and any other state when `carried_forward`: this review did not look at it again).
    `dismissal` is the active dismissal of a DISMISSED finding; `lapsed_dismissal` a dismissal made
    on other evidence; `suppression` what silences a SUPPRESSED one.
    """

    state: LifecycleState
    finding: Matchable
    carried_forward: bool = False
    resolved_since: str | None = None  # RESOLVED: gone somewhere after this head
    dismissal: Decision | None = None
    lapsed_dismissal: Decision | None = None
    suppression: Suppression | None = None
    suppressed_since: str | None = None  # SUPPRESSED: raised (not suppressed) at this previous head

    @property
    def fingerprint(self) -> str:
        return self.finding.fingerprint


@dataclass(frozen=True)
class Lifecycle:
    """Every finding of the new review, and every previous one it resolved, in a stable order."""

    previous_head: str | None
    entries: tuple[LifecycleEntry, ...]

    def in_state(self, state: LifecycleState) -> tuple[LifecycleEntry, ...]:
        return tuple(entry for entry in self.entries if entry.state is state)

    @property
    def new(self) -> tuple[LifecycleEntry, ...]:
        return self.in_state(LifecycleState.NEW)

    @property
    def retained(self) -> tuple[LifecycleEntry, ...]:
        return self.in_state(LifecycleState.RETAINED)

    @property
    def resolved(self) -> tuple[LifecycleEntry, ...]:
        return self.in_state(LifecycleState.RESOLVED)

    @property
    def dismissed(self) -> tuple[LifecycleEntry, ...]:
        return self.in_state(LifecycleState.DISMISSED)

    @property
    def suppressed(self) -> tuple[LifecycleEntry, ...]:
        return self.in_state(LifecycleState.SUPPRESSED)

    @property
    def current(self) -> tuple[LifecycleEntry, ...]:
        """Everything still present at the new head (all but RESOLVED): the next review's baseline."""
        return tuple(entry for entry in self.entries if entry.state is not LifecycleState.RESOLVED)


def compare(
    previous: Sequence[Matchable],
    current: Sequence[Matchable],
    dismissals: Mapping[str, Decision],
    *,
    suppressed: Sequence[SilencedMatchable] = (),
    previous_suppressions: Mapping[str, Suppression] | None = None,
    previous_head: str | None = None,
    in_scope: Callable[[Matchable], bool] | None = None,
) -> Lifecycle:
    """The lifecycle of `current` and `suppressed` against `previous` (the findings at the last
    reviewed head, `previous_suppressions` those of them that were suppressed there, by fingerprint).

    `dismissals` maps a fingerprint to its active dismissal. `in_scope(previous_finding)` says
    whether the new review examined that finding's subject again; None means it examined everything.
    Current findings keep their order, then suppressed, carried-forward and resolved ones.
    """
    before = previous_suppressions or {}
    previous_prints = {finding.fingerprint for finding in previous}
    entries = [
        _current_entry(f, f.fingerprint in previous_prints, dismissals.get(f.fingerprint))
        for f in current
    ]
    raised_before = previous_prints - set(before) - _dismissed(dismissals, previous)
    entries += [
        _suppressed_entry(
            s.finding,
            s.suppression,
            raised_at=previous_head if s.finding.fingerprint in raised_before else None,
        )
        for s in suppressed
    ]
    present = {entry.fingerprint for entry in entries}
    gone = [f for f in _unique(previous) if f.fingerprint not in present]
    examined = in_scope or (lambda _finding: True)
    carried = [
        _suppressed_entry(f, before[f.fingerprint], carried=True)
        if f.fingerprint in before
        else _current_entry(f, True, dismissals.get(f.fingerprint), carried=True)
        for f in gone
        if not examined(f)
    ]
    resolved = [
        LifecycleEntry(LifecycleState.RESOLVED, f, resolved_since=previous_head)
        for f in gone
        if examined(f)
    ]
    return Lifecycle(previous_head, tuple(entries + carried + resolved))


def _suppressed_entry(
    finding: Matchable,
    suppression: Suppression,
    *,
    raised_at: str | None = None,
    carried: bool = False,
) -> LifecycleEntry:
    return LifecycleEntry(
        LifecycleState.SUPPRESSED,
        finding,
        carried_forward=carried,
        suppression=suppression,
        suppressed_since=raised_at,
    )


def _current_entry(
    finding: Matchable, seen_before: bool, dismissal: Decision | None, *, carried: bool = False
) -> LifecycleEntry:
    state = LifecycleState.RETAINED if seen_before else LifecycleState.NEW
    if dismissal is None or not dismissal.dismissed:
        return LifecycleEntry(state, finding, carried_forward=carried)
    if dismissal.evidence_digest == finding.evidence_digest:
        return LifecycleEntry(
            LifecycleState.DISMISSED, finding, carried_forward=carried, dismissal=dismissal
        )
    return LifecycleEntry(state, finding, carried_forward=carried, lapsed_dismissal=dismissal)


def _dismissed(dismissals: Mapping[str, Decision], previous: Sequence[Matchable]) -> set[str]:
    """The previous findings an active dismissal covers: they were not raised at the previous head."""
    return {
        f.fingerprint
        for f in previous
        if (d := dismissals.get(f.fingerprint)) is not None
        and d.dismissed
        and d.evidence_digest == f.evidence_digest
    }


def _unique(findings: Sequence[Matchable]) -> list[Matchable]:
    """The first finding of each fingerprint, in order."""
    seen: dict[str, Matchable] = {}
    for finding in findings:
        seen.setdefault(finding.fingerprint, finding)
    return list(seen.values())
