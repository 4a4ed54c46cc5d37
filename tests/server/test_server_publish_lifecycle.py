"""The App's "Since the last review" line: suppressed findings are counted apart, never as resolved."""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.model.state_lifecycle import Lifecycle, LifecycleEntry, LifecycleState
from aftershock.server.publish import _lifecycle_lines


@dataclass(frozen=True)
class _Finding:
    fingerprint: str
    evidence_digest: str = "d"


def _lifecycle(*states: LifecycleState) -> Lifecycle:
    entries = tuple(LifecycleEntry(s, _Finding(f"f{i:02d}")) for i, s in enumerate(states))
    return Lifecycle(previous_head="0123456789abcdef", entries=entries)


def test_suppressed_findings_are_counted_apart_from_resolved():
    (line, _) = _lifecycle_lines(
        _lifecycle(LifecycleState.RETAINED, LifecycleState.SUPPRESSED, LifecycleState.SUPPRESSED)
    )
    assert line == (
        "**Since the last review (0123456):** 0 new, 1 still present, 0 resolved, 0 dismissed, "
        "2 suppressed by the repository."
    )


def test_no_suppressed_findings_say_nothing_of_suppression():
    (line, _) = _lifecycle_lines(_lifecycle(LifecycleState.NEW, LifecycleState.RESOLVED))
    assert line.endswith("1 new, 0 still present, 1 resolved, 0 dismissed.")
