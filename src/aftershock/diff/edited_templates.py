"""What a change edits of a chart's templates, read from its diff: the hunks, their added and
removed lines, the field names they read (which rank the scenarios that may reach them, per edited
file) and the messages of the `fail` calls they hold (which the tests expecting them exercise)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from aftershock.diff.exercise import FAIL_CALL
from aftershock.model.change import FileChange, Hunk

_FIELD = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")
# Field names too common to say which scenario reaches a change.
_COMMON = frozenset(
    {
        "Values",
        "Release",
        "Chart",
        "Capabilities",
        "enabled",
        "name",
        "value",
        "values",
        "type",
        "labels",
        "annotations",
        "spec",
        "metadata",
        "Name",
        "Namespace",
    }
)


def changed_fields(
    files: Iterable[FileChange], chart_folder: str, templated: Iterable[str] = ()
) -> frozenset[str]:
    """Field names (`.providers.ec2.enabled` gives providers, ec2) read on the added and removed lines
    of a chart's templates, and of the files it renders through `tpl` (`templated`, repository
    paths): a scenario setting a values path through one of them may reach the change."""
    return frozenset().union(*changed_fields_by_file(files, chart_folder, templated).values())


def changed_fields_by_file(
    files: Iterable[FileChange], chart_folder: str, templated: Iterable[str] = ()
) -> dict[str, frozenset[str]]:
    """`changed_fields` of each edited file, by its repository path (the head's, for a rename)."""
    found = {}
    for change in _edited_files(files, chart_folder, templated):
        lines = (line for hunk in change.hunks for line in hunk.lines if line[:1] in "+-")
        found[change.path] = field_names(lines)
    return found


def field_names(lines: Iterable[str]) -> frozenset[str]:
    """The field names template `lines` read that may say which scenario reaches them."""
    names = {name for line in lines for name in _FIELD.findall(line)}
    return frozenset(n for n in names if n not in _COMMON and len(n) > 2)


def failure_messages(files: Iterable[FileChange], chart_folder: str) -> tuple[str, ...]:
    """The messages of the `fail "…"` calls on the added and removed lines of a chart's templates,
    each once: a test expecting one of them exercises its line."""
    found = (
        m for line in edited_template_lines(files, chart_folder) for m in FAIL_CALL.findall(line)
    )
    return tuple(dict.fromkeys(found))


def edited_template_lines(
    files: Iterable[FileChange], chart_folder: str, templated: Iterable[str] = ()
) -> Iterator[str]:
    """The added and removed lines of `template_hunks`, with their `+` or `-`."""
    for hunk in template_hunks(files, chart_folder, templated):
        yield from (line for line in hunk.lines if line[:1] in "+-")


def template_hunks(
    files: Iterable[FileChange], chart_folder: str, templated: Iterable[str] = ()
) -> Iterator[Hunk]:
    """The hunks of the changes to a chart's templates (at either path of a rename), and to the
    files it renders through `tpl` (`templated`, repository paths)."""
    for change in _edited_files(files, chart_folder, templated):
        yield from change.hunks


def _edited_files(
    files: Iterable[FileChange], chart_folder: str, templated: Iterable[str]
) -> Iterator[FileChange]:
    prefix = f"{chart_folder}/templates/" if chart_folder else "templates/"
    also = set(templated)
    for change in files:
        if (
            change.path.startswith(prefix)
            or (change.old_path or "").startswith(prefix)
            or change.path in also
        ):
            yield change
