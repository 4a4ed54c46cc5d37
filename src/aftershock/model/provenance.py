"""The vocabulary of provenance: which values keys and templates produce each changed rendered field.

A link is `inferred` when static analysis of the templates finds that the field's template (or a
named template it calls) reads a changed values key; `observed` when a perturbation render (the chart
at base with only that key at its head value) gave the field its head value. Template links are
`observed` for the template file Helm names as the object's source, `inferred` for the changed files
defining named templates it calls.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from aftershock.model.objects import ObjectKey
from aftershock.model.releases import Evidence


class Check(str, enum.Enum):
    """What a perturbation render said about one link."""

    NOT_RUN = (
        "not_run"  # no render was planned for it (a non-default scenario, or nothing to tell apart)
    )
    CUT = "cut"  # planned, but over the render budget
    PRODUCED = "produced"  # the key alone gave the field its head value
    NOT_PRODUCED = (
        "not_produced"  # the key alone did not (another key, a template change, or keys together)
    )
    FAILED = "failed"  # the perturbation render failed (e.g. the key alone breaks the chart)
    UNAVAILABLE = (
        "unavailable"  # the base render cannot be rebuilt (see ProvenanceReport.not_perturbed)
    )


@dataclass(frozen=True)
class ValuesLink:
    """A changed values key that may produce a field. `file` and `key` are the ValuesKeyChange's;
    `reads` the paths as the templates read them (in the rendered chart's values, `*` for any key);
    `templates` the files whose text reads them."""

    file: str
    key: str
    change: str  # added, removed or changed
    reads: tuple[str, ...]
    templates: tuple[str, ...]
    evidence: Evidence = Evidence.INFERRED
    check: Check = Check.NOT_RUN

    @property
    def ref(self) -> str:
        """The id the review document and the graph give the values key: `<file>::<key>`."""
        return f"{self.file}::{self.key}"


@dataclass(frozen=True)
class TemplateLink:
    path: str
    changed: bool  # the file changed between base and head
    evidence: Evidence


@dataclass(frozen=True)
class FieldProvenance:
    """One changed field of one chart review; `field` is "" for an object added or removed whole.

    `review` and `object_id` are the ids the review document gives the chart review and the object.
    """

    review: str
    object_id: str
    key: ObjectKey
    field: str
    change: str  # the field change kind, or the object change kind for a whole object
    scenario: str = "default"
    values: tuple[ValuesLink, ...] = ()
    templates: tuple[TemplateLink, ...] = ()

    @property
    def standing(self) -> tuple[ValuesLink, ...]:
        """The values links that still hold. A key a render showed not to produce the field alone is
        dropped when something else explains the field: another key observed producing it, or a changed
        template; otherwise it stays (inferred: keys may produce a field only together)."""
        explained = any(link.evidence is Evidence.OBSERVED for link in self.values)
        explained = explained or any(t.changed for t in self.templates)
        if explained:
            return tuple(link for link in self.values if link.check is not Check.NOT_PRODUCED)
        return self.values


@dataclass(frozen=True)
class Perturbation:
    """One planned render: a chart review at base with one values key at its head value."""

    review: str
    file: str
    key: str

    @property
    def ref(self) -> str:
        return f"{self.file}::{self.key}"


@dataclass(frozen=True)
class ProvenanceReport:
    """Every changed field's provenance, and what the perturbation renders did.

    `cut` lists the perturbations over the budget; `not_perturbed` chart reviews whose base render
    could not be rebuilt, with the reason.
    """

    fields: tuple[FieldProvenance, ...]
    max_renders: int = 0
    renders: int = 0
    failed: int = 0
    cut: tuple[Perturbation, ...] = ()
    not_perturbed: tuple[tuple[str, str], ...] = ()
    unlinked: tuple[
        str, ...
    ] = ()  # objects whose templates read too many changed keys to link them


@dataclass(frozen=True)
class ProvenanceEdge:
    """A values key producing a field of an object, for the impact graph: `values_ref` is
    `<values file>::<key>` (a values key or a release value), `object_id` the review document's object id."""

    values_ref: str
    object_id: str
    field: str
    evidence: Evidence
