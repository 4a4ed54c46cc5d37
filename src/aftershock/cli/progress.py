"""A render progress bar on stderr (only when stderr is a terminal; the caller decides)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aftershock.pipeline import RenderCallbacks


@contextmanager
def render_progress() -> Iterator[RenderCallbacks]:
    # loaded only when a bar is shown: a review writing JSON or run in CI loads no console library
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    columns = (TextColumn("rendering"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("render", total=None)
        yield RenderCallbacks(
            planned=lambda total: progress.update(task, total=total),
            rendered=lambda _outcome: progress.advance(task),
        )
