"""Rule values-removed-key-documented: a removed values key is still named by the schema, README, docs or comments."""

from __future__ import annotations

import re
from collections.abc import Iterator
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
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map
from aftershock.rules.support.removed_keys import removed_default_keys
from aftershock.rules.support.sources import files_under, find_lines, load_json

DOC_SUFFIXES = (".md", ".md.gotmpl", ".rst", ".txt")


def doc_pattern(path: str) -> re.Pattern[str]:
    if "." in path:
        return re.compile(r"(?<![\w.-])" + re.escape(path) + r"(?![\w-])")
    return re.compile(r"`" + re.escape(path) + r"`|\|[ \t]*" + re.escape(path) + r"[ \t]*\|")


def in_schema(schema: Any, path: str) -> bool:
    node = schema
    for key in path.split("."):
        node = as_map(as_map(node).get("properties")).get(key)
        if node is None:
            return False
    return True


def _documents(ctx: RuleContext, chart: str, key: str) -> Iterator[tuple[str, int | None]]:
    schema_file = f"{chart}/values.schema.json"
    schema = (
        load_json(ctx.sources.head.get(schema_file, ""))
        if schema_file in ctx.sources.head
        else None
    )
    if schema is not None and in_schema(schema, key):
        lines = find_lines(
            ctx.sources.head[schema_file],
            re.compile(r'"' + re.escape(key.split(".")[-1]) + r'"\s*:'),
        )
        yield schema_file, lines[0] if lines else None
    pattern = doc_pattern(key)
    folders = [chart, "docs"]
    for folder in folders:
        for path, text in files_under(ctx.sources.head, folder, DOC_SUFFIXES):
            if folder == chart and "/templates/" in path:
                continue
            lines = find_lines(text, pattern)
            if lines:
                yield path, lines[0]


def _comments(ctx: RuleContext, chart: str, key: str) -> Iterator[tuple[str, int]]:
    """Comment lines of the chart's values files that still name the key (`# image.digest pins …`)."""
    pattern = doc_pattern(key)
    for path, text in files_under(ctx.sources.head, chart, (".yaml", ".yml")):
        if "/templates/" in path or not path.rsplit("/", 1)[-1].startswith("values"):
            continue
        for number, line in enumerate(text.split("\n"), 1):
            if line.lstrip().startswith("#") and pattern.search(line):
                yield path, number
                break


def _places(ctx: RuleContext, chart: str, key: str) -> list[tuple[str, int | None, str]]:
    return [(path, line, "") for path, line in _documents(ctx, chart, key)] + [
        (path, line, " (comment)") for path, line in _comments(ctx, chart, key)
    ]


def _place_text(place: tuple[str, int | None, str]) -> str:
    path, line, what = place
    return f"{path}{':' + str(line) if line else ''}{what}"


MAX_PLACES_SHOWN = 10


def check(ctx: RuleContext) -> Iterator[Concern]:
    for change in removed_default_keys(ctx):
        places = _places(ctx, change.chart or "", change.path)
        if not places:
            continue
        shown = ", ".join(_place_text(p) for p in places[:MAX_PLACES_SHOWN]) + (
            f" and {len(places) - MAX_PLACES_SHOWN} more" if len(places) > MAX_PLACES_SHOWN else ""
        )
        yield Concern(
            subject=Subject(
                SubjectKind.VALUES_KEY,
                f"{change.file}#{change.path}",
                f"{change.path} in {change.file}",
            ),
            message=f"{change.path} is removed from {change.file}, but {len(places)} place(s) still name it: "
            f"{shown}",
            delta=Delta.INTRODUCED,
            location=Location(places[0][0], places[0][1]),
            path=(
                PathStep("file", change.file, "changed"),
                PathStep("values_key", change.path, "removed"),
                *(PathStep("file", p[0], "names it") for p in places),
            ),
            facts=(Fact("key", change.path), Fact("places", [_place_text(p) for p in places])),
            scope_paths=(change.file, *dict.fromkeys(p[0] for p in places)),
        )


RULE = Rule(
    id="values-removed-key-documented",
    title="Removed values key still documented",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="Keys the change removes from a chart's own `values.yaml` that head sources still name: a "
        "`properties` path in the chart's values.schema.json, a mention in the chart's Markdown/text files "
        "or under the repository's docs/, or a comment in the chart's values files (a dotted path anywhere; a "
        "single-segment key only in `backticks` or a table cell). Low: nothing breaks, users are misled. "
        "One finding per key, listing every place that still names it.",
        why="Users configure charts from the README and the schema; documenting a key that does nothing makes "
        "them set it and believe it works, and a schema that still accepts it hides the mistake.",
        example="    README.md: | `podAnnotations` | Annotations for the pods | `{}` |",
        fix="Remove or rename the key in the schema and docs in the same change (helm-docs can regenerate the "
        "README table).",
    ),
)
