"""Rule values-stale-key-reference: a comment, NOTES.txt or test description names a values key the change
removed (values-removed-key-documented covers the README, docs and schema; values-removed-key-used the
templates and tests that read or set it)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.units import ValuesKeyChange, ValuesKeyChangeKind
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.removed_keys import removed_default_keys, removed_key_named_at
from aftershock.rules.support.sources import files_under
from aftershock.rules.values.removed_key_documented import doc_pattern

SUFFIXES = (".yaml", ".yml", ".tpl", ".txt")
_TEMPLATE_COMMENT = re.compile(r"\{\{-?\s*/\*(.*?)\*/\s*-?\}\}", re.S)
_LINE_COMMENT = re.compile(r"(?m)^[ \t]*#(.*)$")
_TEST_TEXT = re.compile(r"(?m)^[ \t]*(?:-[ \t]*)?(?:it|suite|description)[ \t]*:(.*)$")
_ACTION = re.compile(r"\{\{.*?\}\}", re.S)
# A line that names the old key on purpose: a deprecation or migration note.
_ON_PURPOSE = re.compile(
    r"deprecat|renamed|moved|removed|replaced|instead|formerly|previously|legacy|no longer|migrat",
    re.IGNORECASE,
)


def _spans(path: str, text: str) -> Iterator[tuple[int, str]]:
    """(offset, prose) of the parts of a file that describe rather than configure."""
    name = path.rsplit("/", 1)[-1]
    if "/tests/" in path:
        patterns = [_TEST_TEXT, _LINE_COMMENT]
    elif name == "NOTES.txt":
        yield (
            0,
            _ACTION.sub(lambda m: " " * len(m.group(0)), text),
        )  # the text users read, not its actions
        return
    else:
        patterns = [_TEMPLATE_COMMENT, _LINE_COMMENT]
    for pattern in patterns:
        for match in pattern.finditer(text):
            yield match.start(1), match.group(1)


def first_mention(path: str, text: str, pattern: re.Pattern[str]) -> int | None:
    """The first line of the file's prose naming the key, unless that line is a deprecation note."""
    lines = text.split("\n")
    found = sorted(
        {
            text.count("\n", 0, offset + match.start()) + 1
            for offset, prose in _spans(path, text)
            for match in pattern.finditer(prose)
        }
    )
    return next((n for n in found if not _ON_PURPOSE.search(lines[n - 1])), None)


def _mentions(ctx: RuleContext, chart: str, key: str) -> Iterator[tuple[str, int, str]]:
    """(file, line, what) of each head comment, NOTES.txt text or test description naming `key`."""
    pattern = doc_pattern(key)
    files = [
        (path, text, "NOTES.txt" if path.endswith("/NOTES.txt") else what)
        for folder, what in (("templates", "template comment"), ("tests", "test"))
        for path, text in files_under(ctx.sources.head, f"{chart}/{folder}", SUFFIXES)
    ]
    files += [
        (path, text, "values comment")
        for path, text in files_under(ctx.sources.head, chart, (".yaml", ".yml"))
        if "/" not in path[len(chart) + 1 :] and path.rsplit("/", 1)[-1].startswith("values")
    ]
    for path, text, what in files:
        line = first_mention(path, text, pattern)
        if line is not None:
            yield path, line, what


def moved_to(ctx: RuleContext, removed: ValuesKeyChange) -> str | None:
    """The key the change added in the same file under the same last name, or with the same value."""
    leaf = removed.path.rsplit(".", 1)[-1]
    added = [
        c
        for c in ctx.review.values_changes
        if c.kind is ValuesKeyChangeKind.ADDED and c.file == removed.file and '"' not in c.path
    ]
    same_name = [c.path for c in added if c.path.rsplit(".", 1)[-1] == leaf]
    if len(same_name) == 1:
        return same_name[0]
    if removed.before not in (None, "", {}, [], True, False):
        same_value = [c.path for c in added if c.after == removed.before]
        if len(same_value) == 1:
            return same_value[0]
    return None


def check(ctx: RuleContext) -> Iterator[Concern]:
    for change in removed_default_keys(ctx):
        target = moved_to(ctx, change)
        went = f"; the change adds {target}, perhaps its new name" if target else ""
        for path, line, what in _mentions(ctx, change.chart or "", change.path):
            yield removed_key_named_at(
                change,
                (path, line),
                f"{what} names it",
                f"{change.path} is removed from {change.file}, but the {what} at {path}:{line} "
                f"still names it{went}",
                (Fact("key", change.path), Fact("mention", path), Fact("moved_to", target)),
            )


RULE = Rule(
    id="values-stale-key-reference",
    title="Comment, NOTES or test description names a removed values key",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.INFERRED,
    needs_sources=True,
    check=check,
    doc=RuleDoc(
        what="Keys the change removes from a chart's values.yaml that head still names in prose: comments "
        "of templates (`{{/* */}}`, `#`) and of the chart's values files, the text of templates/NOTES.txt "
        "(outside its actions), and helm-unittest `suite`/`it`/`description` lines and comments. A dotted "
        "path is matched anywhere, a single-segment key only in `backticks` or a table cell. When the change "
        "adds one key with the same last name or the same value, the message names it as the likely new "
        "place. README, docs and schema are `values-removed-key-documented`'s; `.Values` reads are "
        "`values-removed-key-used`'s.",
        why="Comments and NOTES are what users and reviewers read to configure the chart; a test whose "
        "description names the old key claims to cover something that no longer exists. After a rename "
        "they send people to a key that does nothing.",
        example="    # templates/deployment.yaml\n    {{/* replicas come from autoscaling.minReplicas */}}\n"
        "    # values.yaml: autoscaling.minReplicas renamed to autoscaling.min",
        fix="Rename the key in the comment, NOTES.txt or test description in the same change, or say where "
        "it moved.",
    ),
)
