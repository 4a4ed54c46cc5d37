"""Rule values-undefined-reference: a comment or doc the change writes names a values path no chart defines."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Mapping
from typing import Any

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
from aftershock.model.change import FileChange, FileStatus
from aftershock.model.units import ValuesKeyChangeKind
from aftershock.rules.inputs import is_readme
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.sources import line_of, load_yaml_documents

_SEGMENT = r"\.[A-Za-z_][\w-]*"
TEMPLATE_REF = re.compile(r"(?<![\w])\.Values((?:" + _SEGMENT + r")+)")
DOC_REF = re.compile(r"(?<![\w.$/-])values((?:" + _SEGMENT + r")+)")
_FILE_WORDS = frozenset(
    {"yaml", "yml", "json", "schema", "toml"}
)  # values.yaml, values.schema.json, ...
_TEMPLATE_COMMENT = re.compile(r"\{\{-?\s*/\*(.*?)\*/\s*-?\}\}", re.S)
_YAML_COMMENT = re.compile(r"(?m)^[ \t]*#(.*)$")
_ACTION = re.compile(r"\{\{.*?\}\}")
_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl", ".txt")
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".gotmpl", ".adoc")
_MAX_SUGGESTION_PATHS = 20_000


def chart_values(ctx: RuleContext) -> dict[str, Mapping[str, Any]]:
    """Each chart's values.yaml at head (values file path -> document), when the sources hold it."""
    found: dict[str, Mapping[str, Any]] = {}
    for chart in ctx.review.charts:
        path = f"{chart.path}/values.yaml" if chart.path else "values.yaml"
        documents = load_yaml_documents(ctx.sources.head.get(path, ""))
        if documents and isinstance(documents[0], dict):
            found[path] = documents[0]
    return found


def defined(values: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    """Whether `path` exists in a values document; an empty map or null stands for free-form keys."""
    node: Any = values
    for key in path:
        if node is None or (isinstance(node, dict) and not node):
            return True
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def added_lines(change: FileChange) -> set[int]:
    """Head line numbers the change adds or rewrites."""
    return {line for hunk in change.hunks for line, _ in hunk.added()}


def references(text: str, kind: str) -> Iterator[tuple[int, str]]:
    """(line, dotted path) of each values path a template comment or a document names."""
    if kind == "template":
        spans = [(m.start(1), m.group(1)) for m in _TEMPLATE_COMMENT.finditer(text)]
        spans += [
            (m.start(1), _ACTION.sub(lambda a: " " * len(a.group(0)), m.group(1)))
            for m in _YAML_COMMENT.finditer(text)
        ]
        patterns: tuple[re.Pattern[str], ...] = (TEMPLATE_REF,)
    else:
        spans, patterns = [(0, text)], (TEMPLATE_REF, DOC_REF)
    for offset, span in spans:
        for pattern in patterns:
            for match in pattern.finditer(span):
                segments = tuple(s.rstrip("-") for s in match.group(1)[1:].split("."))
                if pattern is DOC_REF and _FILE_WORDS & set(segments):
                    continue
                yield line_of(text, offset + match.start()), ".".join(segments)


def _kind(path: str, chart_paths: frozenset[str]) -> str | None:
    if _in_templates(path, chart_paths) and path.endswith(_TEMPLATE_SUFFIXES):
        return "template"
    if is_readme(path):
        return "readme"
    if path.startswith("docs/") and path.endswith(_DOC_SUFFIXES):
        return "docs"
    return None


def _in_templates(path: str, chart_paths: frozenset[str]) -> bool:
    """Whether the path is under the `templates/` folder of one of the charts: the folder before
    each `/templates/` in it looked up, not every chart tried for every changed file."""
    if path.startswith("templates/") and "" in chart_paths:
        return True
    start = path.find("/templates/")
    while start != -1:
        if path[:start] in chart_paths:
            return True
        start = path.find("/templates/", start + 1)
    return False


def _all_paths(values: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        yield path
        if isinstance(value, dict):
            yield from _all_paths(value, path)


def _candidates(ctx: RuleContext) -> Iterator[tuple[Any, str, int, str]]:
    """(file change, kind of line, line, values path) for each path named on a line the change adds."""
    removed = {c.path for c in ctx.review.values_changes if c.kind is ValuesKeyChangeKind.REMOVED}
    chart_paths = frozenset(c.path for c in ctx.review.charts)
    for change in ctx.review.files:
        text = ctx.sources.head.get(change.path)
        kind = _kind(change.path, chart_paths)
        if change.status is FileStatus.DELETED or text is None or kind is None:
            continue
        added, seen = added_lines(change), set()
        for line, ref in sorted(references(text, kind)):
            if (
                line not in added
                or ref in seen
                or any(ref == r or ref.startswith(r + ".") for r in removed)
            ):
                continue  # a key the change removes is the removed-key rules' concern
            seen.add(ref)
            yield change, kind, line, ref


def _suggestion_paths(documents: dict[str, Mapping[str, Any]]) -> list[str]:
    """The values paths a suggestion is chosen from, the same for every reference of the review."""
    paths = {p for values in documents.values() for p in _all_paths(values)}
    return sorted(paths)[:_MAX_SUGGESTION_PATHS]


def _suggestion(ref: str, paths: list[str]) -> str:
    close = difflib.get_close_matches(ref, paths, n=1, cutoff=0.8)
    return f"; did you mean {close[0]}?" if close else ""


def check(ctx: RuleContext) -> Iterator[Concern]:
    candidates = list(_candidates(ctx))
    if not candidates:
        return  # nothing the change adds names a values path: no need to read every chart's values
    documents = chart_values(ctx)
    if not documents:
        return  # no chart's values to compare with: nothing can be said
    paths: list[str] | None = None  # for suggestions, listed once when the first is wanted
    for change, kind, line, ref in candidates:
        if any(defined(values, tuple(ref.split("."))) for values in documents.values()):
            continue
        if paths is None:
            paths = _suggestion_paths(documents)
        yield Concern(
            subject=Subject(SubjectKind.FILE, change.path, change.path, ref),
            message=f"{change.path}:{line} names the values path {ref}, which no chart's values.yaml defines at head"
            + _suggestion(ref, paths),
            delta=Delta.INTRODUCED,
            location=Location(change.path, line),
            path=(
                PathStep("file", change.path, "changed"),
                PathStep("values_key", ref, f"named in a {kind} line, defined nowhere"),
            ),
            facts=(Fact("reference", ref), Fact("kind", kind)),
            scope_paths=(change.path,),
        )


RULE = Rule(
    id="values-undefined-reference",
    title="Values path named nowhere",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="Lines the change adds or rewrites in a template comment (`{{/* ... */}}` or a `#` line of a "
        "template), a README or a page under docs/ that name a values path (`.Values.a.b`, or `values.a.b` "
        "in READMEs and docs) which no chart's values.yaml defines at head. An empty map or null in the "
        "values stands for free-form keys below it. Keys the change removes are left to "
        "values-removed-key-used and values-removed-key-documented. Static text matching, hence medium "
        "confidence.",
        why="Users copy values paths from the README, the docs and the comments above a template. A path "
        "that exists nowhere (a typo, a key renamed before the doc was written, another chart's key) is "
        "set, ignored by Helm without an error, and the behaviour it promises never happens.",
        example="    # README.md (added)\n    Set `.Values.image.digest` to pin the image.\n"
        "    # values.yaml defines image.repository and image.tag only",
        fix="Name the path the chart actually reads (the message suggests a close one when there is), or add "
        "the key to the chart's values.yaml with its default and use it in the templates.",
    ),
)
