"""The lifecycle of findings between two reviews of a target: new, retained, resolved, dismissed (pure).

Findings are matched by fingerprint (rule + subject). A dismissal holds for the evidence it was
made on: when the finding's evidence digest changes, the finding is raised again and the report
can say which dismissal lapsed. A previous finding that is absent now is only called resolved when
the new review looked at it (`in_scope`); otherwise it is carried forward, never silently dropped.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from aftershock.state.records import Decision


class Matchable(Protocol):
    @property
    def fingerprint(self) -> str: ...

    @property
    def evidence_digest(self) -> str: ...


class LifecycleState(str, enum.Enum):
    NEW = "new"
    RETAINED = "retained"  # present at the previous reviewed head and still present
    RESOLVED = "resolved"  # present at the previous reviewed head, gone now
    DISMISSED = "dismissed"  # present, but refused with a reason on this same evidence


@dataclass(frozen=True)
class LifecycleEntry:
    """One finding's place in the lifecycle.

    `finding` is the current finding (NEW, RETAINED, DISMISSED) or the previous one (RESOLVED, and
    RETAINED when `carried_forward`: this review did not look at it again). `dismissal` is the active
    dismissal of a DISMISSED finding; `lapsed_dismissal` a dismissal made on other evidence.
    """

    state: LifecycleState
    finding: Matchable
    carried_forward: bool = False
    resolved_since: str | None = None  # RESOLVED: gone somewhere after this head
    dismissal: Decision | None = None
    lapsed_dismissal: Decision | None = None

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
    def current(self) -> tuple[LifecycleEntry, ...]:
        """Everything still present at the new head (all but RESOLVED): the next review's baseline."""
        return tuple(entry for entry in self.entries if entry.state is not LifecycleState.RESOLVED)


def compare(
    previous: Sequence[Matchable],
    current: Sequence[Matchable],
    dismissals: Mapping[str, Decision],
    *,
    previous_head: str | None = None,
    in_scope: Callable[[Matchable], bool] | None = None,
) -> Lifecycle:
    """The lifecycle of `current` against `previous` (the findings at the last reviewed head).

    `dismissals` maps a fingerprint to its active dismissal. `in_scope(previous_finding)` says
    whether the new review examined that finding's subject again; None means it examined everything.
    Current findings keep their order, then carried-forward ones, then resolved ones.
    """
    current_prints = {finding.fingerprint for finding in current}
    previous_prints = {finding.fingerprint for finding in previous}
    entries = [
        _current_entry(f, f.fingerprint in previous_prints, dismissals.get(f.fingerprint))
        for f in current
    ]
    gone = [f for f in _unique(previous) if f.fingerprint not in current_prints]
    examined = in_scope or (lambda _finding: True)
    carried = [
        _current_entry(f, True, dismissals.get(f.fingerprint), carried=True)
        for f in gone
        if not examined(f)
    ]
    resolved = [
        LifecycleEntry(LifecycleState.RESOLVED, f, resolved_since=previous_head)
        for f in gone
        if examined(f)
    ]
    return Lifecycle(previous_head, tuple(entries + carried + resolved))


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


def _unique(findings: Sequence[Matchable]) -> list[Matchable]:
    """The first finding of each fingerprint, in order."""
    seen: dict[str, Matchable] = {}
    for finding in findings:
        seen.setdefault(finding.fingerprint, finding)
    return list(seen.values())
