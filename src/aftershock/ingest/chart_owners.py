"""Which chart of a tree holds a repository path: the innermost chart folder above it."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from aftershock.model.units import Chart


def owning_chart(path: str, charts: Iterable[Chart]) -> Chart | None:
    """The innermost chart whose folder holds `path`: `path` itself, then each folder above it."""
    by_path = _by_path(charts)
    folder = path
    while True:
        if folder in by_path:
            return by_path[folder]
        if not folder:
            return None
        folder = posixpath.dirname(folder)


# The charts of the last few sides asked about, by identity (each kept, so its id stays its own):
# a review asks for the owner of every changed file in the same two tuples.
_INDEXES: dict[int, tuple[tuple[Chart, ...], dict[str, Chart]]] = {}


def _by_path(charts: Iterable[Chart]) -> Mapping[str, Chart]:
    if not isinstance(charts, tuple):
        return _indexed(charts)
    known = _INDEXES.get(id(charts))
    if known is None or known[0] is not charts:
        if len(_INDEXES) >= 4:
            _INDEXES.pop(next(iter(_INDEXES), 0), None)
        known = _INDEXES[id(charts)] = (charts, _indexed(charts))
    return known[1]


def _indexed(charts: Iterable[Chart]) -> dict[str, Chart]:
    by_path: dict[str, Chart] = {}
    for chart in charts:
        by_path.setdefault(chart.path, chart)  # the first of equal paths, as a scan finds it
    return by_path
