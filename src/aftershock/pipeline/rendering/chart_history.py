"""The dependencies a review resolves from history, chart by chart, as it comes to render them.

The review's plan resolves those of the charts the change reaches; a release it follows or a chart
that looks up what the change alters comes later, and `DependencyHistory.resolve` resolves theirs
then (at both refs, each chart once) and writes the folders they resolve to. A dependency the chart
cache holds was resolved to its archive before. Side effects: git reads and those files.
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from aftershock.ingest.dependency_history import materialize_history, resolve_sides_from_history
from aftershock.ingest.repository.blobs import BlobReader
from aftershock.ingest.repository.git import GitRepository
from aftershock.model.units import Chart

ChartSides = tuple[tuple[Chart, ...], tuple[Chart, ...]]


@dataclass
class DependencyHistory:
    git: GitRepository
    shas: tuple[str, str]  # base, head
    dest: Path  # where the folders resolved from history are written
    max_file_bytes: int
    blobs: BlobReader | None = None
    _asked: set[str] = field(default_factory=set)

    def resolve(self, sides: ChartSides, paths: Collection[str]) -> ChartSides:
        """Both sides' charts with the dependencies of `paths` (and of the charts they include)
        resolved; the same tuples when every one was resolved before."""
        new = set(paths) - self._asked
        if not new:
            return sides
        self._asked |= new
        with ExitStack() as stack:
            blobs = self.blobs or stack.enter_context(BlobReader(self.git))
            base, head = resolve_sides_from_history(self.git, self.shas, sides, blobs, new)
        for charts in (base, head):
            materialize_history(self.git, charts, self.dest, self.max_file_bytes)
        return base, head
