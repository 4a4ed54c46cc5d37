"""Rule values-unknown-reference: a line the change adds to documentation names a values path that no
chart has.

A reference is a values path written as one (`.Values.a.b`), or a `--set a.b=…` or dotted code span
(`` `a.b.c` ``) whose first key is (or is one typo from) a chart's top-level key, in a README, a docs
page, NOTES.txt or a values file's comment (not a changelog: history names the paths of its time).
It exists when some chart of the repository (at head) has it in its values.yaml or
values.schema.json, reads it (or a map above it) in a template, or defines a named template so
called; `<name>`, `*` and `[0]` stand for any key or entry. What matches nothing is said with the
nearest path that exists, preferring one that ends the same way.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.diff.values_keys import parse_values
from aftershock.findings.model import (
    Category,
    Confidence,
    Delta,
    Evidence,
    Fact,
    Location,
    PathStep,
    Severity,
    Subject,
    SubjectKind,
)
from aftershock.model.errors import AftershockError
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc

DOC_SUFFIXES = (".md", ".txt", ".rst")
_SEGMENT = r"(?:[A-Za-z_][\w-]*|<[\w-]+>|\*|\[\d+\])"
_PATH = rf"{_SEGMENT}(?:\.{_SEGMENT}|\[\d+\])+"
_REFERENCES = (
    re.compile(rf"\.Values\.({_SEGMENT}(?:\.{_SEGMENT}|\[\d+\])*)"),
    re.compile(rf"--set(?:-string|-json)?[ =]({_PATH})="),
    re.compile(rf"`({_PATH})`"),
)
_READS = re.compile(r"\.Values\.([A-Za-z_][\w]*(?:\.[A-Za-z_][\w-]*)*)")
_DEFINES = re.compile(r"\{\{-?\s*define\s+\"([^\"]+)\"")
_ANY = re.compile(r"<[\w-]+>|\*|\[\d+\]")
_NOT_VALUES = re.compile(
    r"\.(?:ya?ml|json|md|tpl|txt|sh|io|com|org|dev|net|local|crt|pem|cert|conf|cfg|ini|sql|lock)$|/"
)


def check(ctx: RuleContext) -> Iterator[Concern]:
    known: KnownPaths | None = None
    for file in ctx.review.files:
        path = file.path
        if not _documentation(path):
            continue
        for added in ctx.index.added_lines(path):
            for reference, explicit in references(added.text, path):
                if known is None:
                    known = KnownPaths(ctx.sources.head)
                if known.has(reference) or not (explicit or known.rooted(reference)):
                    continue
                yield _concern(path, added.line, reference, known.nearest(reference))


def _documentation(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    if name.upper().startswith(("CHANGELOG", "CHANGES", "HISTORY")):
        return False  # a history names the paths of its time
    return name.endswith(DOC_SUFFIXES) or name == "values.yaml"


def references(line: str, path: str) -> Iterator[tuple[str, bool]]:
    """The values paths a line names, each with whether it is written as one (`.Values.`,
    `--set`) or only a dotted code span; in a values file, only in its comment."""
    if path.endswith("values.yaml"):
        if "#" not in line:
            return
        line = line.split("#", 1)[1]
    seen = set()
    for index, pattern in enumerate(_REFERENCES):
        for match in pattern.finditer(line):
            found = match.group(1).rstrip(".")
            if found not in seen and not _NOT_VALUES.search(found) and "." in found:
                seen.add(found)
                yield found, index == 0  # `--set` in a doc may be another chart's


class KnownPaths:
    """Every values path the repository's charts know at head: their values trees, schema
    properties, and the paths their templates read."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.trees: list[Any] = []
        self.paths: set[str] = set()
        self._roots: set[str] | None = None
        self.reads: set[str] = set()  # what templates read: below it, a map passed whole
        self.defines: set[str] = set()  # named templates: `app.fullname` in a doc is one
        for path, text in texts.items():
            name = path.rsplit("/", 1)[-1]
            if name == "values.yaml":
                self._values(path, text)
            elif name == "values.schema.json":
                self._schema(text)
            elif "/templates/" in path:
                self.reads.update(_READS.findall(text))
                self.defines.update(_DEFINES.findall(text))
        self.paths.update(self.reads)
        for tree in self.trees:
            self.paths.update(_flatten(tree))

    def _values(self, path: str, text: str) -> None:
        try:
            self.trees.append(parse_values(text, source=path))
        except AftershockError:
            pass

    def _schema(self, text: str) -> None:
        try:
            self.trees.append(_schema_tree(json.loads(text)))
        except (ValueError, RecursionError):
            pass

    def has(self, reference: str) -> bool:
        if reference in self.defines:
            return True  # a named template, not a values path
        segments = _segments(reference)
        if ".".join(segments) in self.paths:
            return True
        if any(_within(tree, segments) for tree in self.trees):
            return True
        plain = ".".join(s for s in segments if not _ANY.fullmatch(s))
        if any(p == plain or p.startswith(plain + ".") for p in self.paths):
            return True
        # below a path a template reads whole (`toYaml .Values.extraConfig`), any key may be meant
        return any(".".join(segments[:n]) in self.reads for n in range(1, len(segments)))

    def rooted(self, reference: str) -> bool:
        """Whether a dotted code span starts like a values path: its first key is a top-level key
        of some chart, or one letter or two from one (a typo); `vm.max_map_count`, `ca.crt` and
        `Chart.lock` are not values."""
        if self._roots is None:
            self._roots = {p.split(".", 1)[0] for p in self.paths}
        first = _segments(reference)[0]
        return first in self._roots or bool(
            difflib.get_close_matches(first, sorted(self._roots), n=1, cutoff=0.85)
        )

    def nearest(self, reference: str) -> str | None:
        """A path that ends as the reference does (the same last key), else the closest in spelling."""
        last = _segments(reference)[-1]
        same_end = sorted(p for p in self.paths if p == last or p.endswith("." + last))
        if same_end:
            return min(same_end, key=lambda p: (-_ratio(p, reference), len(p)))
        close = difflib.get_close_matches(reference, sorted(self.paths), n=1, cutoff=0.6)
        return close[0] if close else None


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _segments(reference: str) -> list[str]:
    return [s for s in re.split(r"\.|(?=\[)", reference) if s]


def _within(node: Any, segments: list[str]) -> bool:
    if not segments:
        return True
    head, rest = segments[0], segments[1:]
    if isinstance(node, list):
        return any(_within(entry, segments if not _ANY.fullmatch(head) else rest) for entry in node)
    if not isinstance(node, dict):
        return False
    if _ANY.fullmatch(head):
        return any(_within(child, rest) for child in node.values())
    return head in node and _within(node[head], rest)


def _flatten(tree: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(tree, dict):
        for key, value in tree.items():
            path = f"{prefix}{key}"
            yield path
            yield from _flatten(value, path + ".")


def _schema_tree(schema: Any, depth: int = 0) -> Any:
    """A JSON Schema's properties as a tree of keys (what `_within` walks); items' properties too."""
    if not isinstance(schema, dict) or depth > 32:
        return None
    tree: dict[str, Any] = {}
    for key, sub in (schema.get("properties") or {}).items():
        tree[str(key)] = _schema_tree(sub, depth + 1)
    items = schema.get("items")
    if isinstance(items, dict) and items.get("properties"):
        return [_schema_tree(items, depth + 1)]
    return tree


def _concern(path: str, line: int, reference: str, nearest: str | None) -> Concern:
    hint = f"; the nearest path that exists is {nearest}" if nearest else ""
    return Concern(
        subject=Subject(SubjectKind.FILE, f"{path}#{reference}", path, reference),
        message=f"{path}:{line} names values path {reference}, which no chart of the repository "
        f"has (in its values, schema or templates){hint}",
        delta=Delta.INTRODUCED,
        location=Location(path, line),
        path=(PathStep("file", path, "changed"), PathStep("values_key", reference, "names")),
        facts=(Fact("reference", reference), Fact("nearest", nearest or "")),
        scope_paths=(path,),
    )


RULE = Rule(
    id="values-unknown-reference",
    title="Documentation names a values path no chart has",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Lines the change adds to a README, a docs page, NOTES.txt or a values file's comment that "
        "name a values path (`.Values.a.b`, `--set a.b=`, or a dotted path in a code span) which no "
        "chart of the repository has at head: not in any values.yaml, values.schema.json, nor read by a "
        "template (`<name>`, `*` and `[0]` match any key or entry). The nearest path that exists is "
        "suggested, one with the same last key first (it is often in a sibling chart, or top-level).",
        why="Users copy documented paths into their values. A path no chart reads is accepted silently "
        "by Helm (without a schema) and does nothing, so the documented setting never takes effect.",
        example="    README.md: set `items.<name>.feature` to turn it on\n"
        "    # list entries have no `feature`: the chart reads the top-level `feature.enabled`",
        fix="Write the path the chart reads (see the suggestion), or add the key where the docs say it is.",
    ),
)
