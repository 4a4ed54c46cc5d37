"""The key changes of each values file a change edits (`values_changes`), and those it cannot read."""

from __future__ import annotations

from aftershock.diff.values_keys import diff_values, parse_values
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.model.change import FileChange, Side
from aftershock.model.errors import MalformedInputError, OverBoundError
from aftershock.model.review import NotReviewed
from aftershock.model.units import Unit, UnitKind, ValuesKeyChange


def values_changes(
    units: tuple[tuple[str, tuple[Unit, ...]], ...],
    files: tuple[FileChange, ...],
    base_tree: RefSnapshot,
    head_tree: RefSnapshot,
) -> tuple[tuple[ValuesKeyChange, ...], tuple[NotReviewed, ...]]:
    """The key changes of each changed values file; one over a bound (an alias bomb) or that is not a
    values document (a pull request that breaks it) is not reviewed, and the review goes on: the
    renders that read it say what it breaks."""
    by_path = {f.path: f for f in files}
    changes: list[ValuesKeyChange] = []
    gaps: list[NotReviewed] = []
    for path, file_units in units:
        for unit in file_units:
            if unit.kind is UnitKind.VALUES_FILE and unit.path == path:
                old_path = by_path[path].old_path or path
                side = Side.BASE
                try:
                    before = parse_values(
                        base_tree.text_or_none(old_path), source=f"{old_path} at {base_tree.label}"
                    )
                    side = Side.HEAD
                    after = parse_values(
                        head_tree.text_or_none(path), source=f"{path} at {head_tree.label}"
                    )
                except (OverBoundError, MalformedInputError) as error:
                    gaps.append(NotReviewed(f"values file {path}", error.line(), side))
                    continue
                changes.extend(diff_values(before, after, chart=unit.chart, file=path))
    return tuple(changes), tuple(gaps)
