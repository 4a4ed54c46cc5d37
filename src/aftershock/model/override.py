"""Override-trap probes: a default list that a template merges with user overrides, rendered again
with a synthetic partial override to see which default entries disappear.

A probe sets the override side of one merge (e.g. `overrides.orders.env`) to a list holding one new
entry (`{name: aftershock-probe}`) and compares that render of the chart at head with its default
render: a default entry the override render no longer holds is "dropped by a partial override".
The same probe at base (when the list and the merge exist there) tells what the change did to it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

PROBE_NAME = "aftershock-probe"


class ProbeStatus(str, enum.Enum):
    DROPPED = "dropped"  # the override render lost default entries
    KEPT = "kept"  # no default entry disappeared (the merge keeps them, or they are not rendered)
    FAILED = "failed"  # the override render failed: nothing observed
    CUT = "cut"  # not rendered: over the review's bound on probe renders


@dataclass(frozen=True)
class MergeSite:
    """A merge call of a template: `defaults` is the values path it takes defaults from and
    `overrides` the path merged over them, as written (`$name` for a key a variable chooses)."""

    template: str  # repository path
    line: int
    function: str  # merge, mergeOverwrite, mustMerge or mustMergeOverwrite
    defaults: str
    overrides: str


@dataclass(frozen=True)
class DroppedEntry:
    """A default entry present in the default render and absent from the override render."""

    entry: str  # the entry's identity value (e.g. an env name), or the entry itself for a list of strings
    object_id: str  # ObjectKey.id of the rendered object
    object: str  # the object as shown, e.g. "HelmRelease.helm.toolkit.fluxcd.io flux-system/orders"
    field: str  # the list in the object, e.g. "spec.values.env"
    template: str  # repository path of the template that rendered the object


@dataclass(frozen=True)
class OverrideProbe:
    """One default list probed with a partial override of the merge site's override side.

    `base_dropped` is what the same override drops at base: None when the base was not probed
    (`base_present` says whether the list and its merge exist there at all).
    """

    chart: str
    values_file: str  # repository path of the chart's values.yaml
    values_path: str  # the default list, e.g. "defaults.orders.env"
    override_path: str  # where the synthetic override was set, e.g. "overrides.orders.env"
    site: MergeSite
    status: ProbeStatus
    probe_entry: Any = field(
        default=None, hash=False, compare=False
    )  # the one entry of the override list
    values_line: int | None = None  # line of the list's key in values_file at head
    dropped: tuple[DroppedEntry, ...] = ()
    base_present: bool = False
    base_dropped: tuple[str, ...] | None = None
    error: str | None = None
    renders: int = 0  # the probe renders it took: 0 (cut), 1 (head) or 2 (head and base)

    @property
    def dropped_entries(self) -> tuple[str, ...]:
        """The dropped default entries, sorted, each once."""
        return tuple(sorted({d.entry for d in self.dropped}))


def probe_summary(probes: tuple[OverrideProbe, ...]) -> str:
    """One line for a report: how many probes ran, in how many renders, and how many the bound cut."""
    ran = [p for p in probes if p.status is not ProbeStatus.CUT]
    cut = len(probes) - len(ran)
    renders = sum(p.renders for p in probes)
    return (
        f"{len(ran)} override probe(s) rendered in {renders} render(s), "
        f"{sum(p.status is ProbeStatus.DROPPED for p in ran)} dropping defaults; {cut} cut by the render bound"
    )
