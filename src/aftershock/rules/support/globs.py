"""Path scopes: repository-path globs of rule settings (`*` within a folder, `**` across folders),
the paths inside a folder, and which paths are values files.

A pattern matches a path when it matches the path itself or one of its parent folders, so
`charts/apps`, `charts/apps/*` and `charts/apps/**` all cover `charts/apps/orders/values.yaml`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from functools import lru_cache


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    out, index = [], 0
    text = pattern.strip().strip("/")
    while index < len(text):
        if text.startswith("**", index):
            out.append(".*")
            index += 2
        elif text[index] == "*":
            out.append("[^/]*")
            index += 1
        elif text[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(text[index]))
            index += 1
    return re.compile("".join(out))


def glob_matches(pattern: str, path: str) -> bool:
    compiled = _compile(pattern)
    parts = path.strip("/").split("/")
    return any(compiled.fullmatch("/".join(parts[:end])) for end in range(len(parts), 0, -1))


def any_matches(patterns: Iterable[str], paths: Iterable[str]) -> bool:
    paths = tuple(paths)
    return any(glob_matches(pattern, path) for pattern in patterns for path in paths)


def paths_in_folder(paths: Sequence[str], folder: str) -> list[str]:
    """The sorted `paths` inside `folder` ("" for all): a slice, from `folder` to `folder + "0"`
    ('/' sorts just before '0'; `folder-x/` sorts there too, hence the filter)."""
    if not folder:
        return list(paths)
    inside = paths[bisect_left(paths, folder) : bisect_left(paths, folder + "0")]
    return [p for p in inside if p == folder or p.startswith(folder + "/")]


def is_values_file(path: str) -> bool:
    """`values.yaml`, `values-prod.yml` and the like, in any folder."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith("values") and name.endswith((".yaml", ".yml"))
