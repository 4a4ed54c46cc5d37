"""helm-unittest's `-f PATTERN`: which files of a chart folder a suite pattern names.

Hand-written for fidelity with helm-unittest's GetFiles (pkg/unittest/files.go), which joins a
relative pattern to the chart folder and expands it with `filepathx.Glob`: the pattern is split
at each `**`; every piece is matched with Go's `filepath.Glob` below each match of the previous
pieces, and every hit is then walked (itself and everything below it, lexically, without
following symlinked folders), so `unittests/**/*_test.yaml` finds suites at any depth, including
directly in `unittests/`. Patterns are tried in order; only consecutive duplicates are dropped
(`slices.Compact`), so two patterns naming one file run it twice, as upstream.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

DEFAULT_PATTERN = "tests/*_test.yaml"


def suite_paths(chart_dir: Path, patterns: tuple[str, ...]) -> list[Path]:
    """The files the patterns name in `chart_dir`, in helm-unittest's order (folders excluded)."""
    found: list[Path] = []
    previous: str | None = None
    for pattern in patterns:
        if pattern == previous:
            continue
        previous = pattern
        if os.path.isabs(pattern):
            found.append(Path(pattern))
            continue
        found += [Path(hit) for hit in expand(os.path.join(str(chart_dir), pattern))]
    return [path for path in found if path.is_file()]


def expand(pattern: str) -> list[str]:
    """filepathx.Glob: each `**`-separated piece globbed below the previous hits, hits walked."""
    matches = [""]
    for piece in pattern.split("**"):
        hits: dict[str, None] = {}
        for match in matches:
            for path in go_glob(match + piece):
                for walked in _walk(path):
                    hits.setdefault(walked, None)
        matches = list(hits)
    return matches


def _walk(root: str) -> list[str]:
    """filepath.Walk's visiting order: the root, then each entry by name, depth first."""
    found = [root]
    if os.path.isdir(root) and not os.path.islink(root):
        for name in sorted(os.listdir(root)):
            found += _walk(os.path.join(root, name))
    return found


def go_glob(pattern: str) -> list[str]:
    """Go's filepath.Glob: a pattern without magic is returned when it exists; else each
    folder level is matched with filepath.Match (`*` never crosses a `/`), names sorted."""
    if not _has_magic(pattern):
        return [pattern] if os.path.lexists(pattern) else []
    folder, name = os.path.split(pattern)
    folder = _clean_folder(folder)
    folders = go_glob(folder) if _has_magic(folder) else [folder]
    hits: list[str] = []
    for base in folders:
        if not os.path.isdir(base):
            continue
        regex = _name_regex(name)
        hits += [
            os.path.join(base, entry)
            for entry in sorted(os.listdir(base or "."))
            if regex.fullmatch(entry)
        ]
    return hits


def _clean_folder(folder: str) -> str:
    """Go's cleanGlobPath: an empty folder is ".", a trailing separator is dropped."""
    if folder == "":
        return "."
    return folder.rstrip("/") or "/"


def _has_magic(pattern: str) -> bool:
    return any(char in pattern for char in "*?[\\")


@lru_cache(maxsize=256)
def _name_regex(name: str) -> re.Pattern[str]:
    """filepath.Match's syntax: `*`, `?`, `[a-z]`, `[^a-z]` and `\\` escapes, never across `/`."""
    out: list[str] = []
    position = 0
    while position < len(name):
        char = name[position]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and position + 1 < len(name):
            position += 1
            out.append(re.escape(name[position]))
        elif char == "[" and (end := name.find("]", position + 2)) != -1:
            body = name[position + 1 : end]
            negate = body.startswith("^")
            body = body[1:] if negate else body
            out.append(("[^/" if negate else "[") + body + "]")
            position = end
        else:
            out.append(re.escape(char))
        position += 1
    return re.compile("".join(out), re.DOTALL)
