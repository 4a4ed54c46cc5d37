"""`.helmignore` rules as Helm applies them when it loads a chart (pkg/ignore): files it never sees."""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class IgnoreRule:
    pattern: str
    negate: bool
    must_dir: bool
    regex: re.Pattern[str]
    anchored: bool  # matched against the whole relative path rather than the base name


@dataclass(frozen=True)
class HelmIgnore:
    rules: tuple[IgnoreRule, ...]
    # (path, is_dir) -> ignored: the same rules judge the same paths in every copy of a chart
    _seen: dict[tuple[str, bool], bool] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def ignores(self, rel_path: str) -> bool:
        """True when Helm leaves this chart-relative file out, itself or through an ignored folder."""
        parts = rel_path.split("/")
        folders = ["/".join(parts[: i + 1]) for i in range(len(parts) - 1)]
        return any(self._ignored(f, is_dir=True) for f in folders) or self._ignored(
            rel_path, is_dir=False
        )

    def ignores_folder(self, rel_path: str) -> bool:
        """True when Helm skips this chart-relative folder (and everything in it) as it walks the chart."""
        return self._ignored(rel_path, is_dir=True)

    def ignores_file(self, rel_path: str) -> bool:
        """True for a file Helm leaves out, its folders already walked (see `ignores_folder`)."""
        return self._ignored(rel_path, is_dir=False)

    def _ignored(self, path: str, *, is_dir: bool) -> bool:
        key = (path, is_dir)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._judged(path, is_dir)
        return found

    def _judged(self, path: str, is_dir: bool) -> bool:
        if path.startswith("templates/.") and not is_dir:
            return True  # Helm's built-in rule: hidden files under templates/
        for rule in self.rules:
            if rule.negate:
                if rule.must_dir and not is_dir:
                    return True
                if not _matches(rule, path):
                    return True
                continue
            if rule.must_dir and not is_dir:
                continue
            if _matches(rule, path):
                return True
        return False


@functools.lru_cache(maxsize=256)  # most charts of a repository share one .helmignore
def parse_helmignore(text: str | None) -> HelmIgnore:
    rules = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "**" in line:
            continue  # Helm rejects `**`; such a line ignores nothing here
        negate = line.startswith("!")
        line = line[1:] if negate else line
        must_dir = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        rules.append(
            IgnoreRule(line, negate, must_dir, re.compile(_go_glob(line.lstrip("/"))), anchored)
        )
    return HelmIgnore(tuple(rules))


def _matches(rule: IgnoreRule, path: str) -> bool:
    target = path if rule.anchored else posixpath.basename(path)
    return rule.regex.fullmatch(target) is not None


def _go_glob(pattern: str) -> str:
    """Go's filepath.Match syntax as a regex: `*` and `?` never cross a `/`."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("^") else body) + "]")
                i = end
        elif ch == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)
