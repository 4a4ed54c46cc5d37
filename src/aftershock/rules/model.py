"""What a rule is, what it gets and what it returns.

A rule is a `Rule` value: metadata (id, title, category, default severity and confidence,
documentation in four fixed sections) and a `check` function from a `RuleContext` to `Concern`s.
The engine turns concerns into `Finding`s by adding the rule's metadata and the configuration's
overrides, so a rule never builds a Finding itself.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import abc
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

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
)
from aftershock.model.review import Review
from aftershock.rules.support.index import ReviewIndex

DOC_SECTIONS = ("What it checks", "Why it matters", "Example", "How to fix")


@dataclass(frozen=True)
class RuleDoc:
    """A rule's documentation, in the fixed sections `aftershock explain` prints."""

    what: str
    why: str
    example: str
    fix: str

    def sections(self) -> tuple[tuple[str, str], ...]:
        return tuple(zip(DOC_SECTIONS, (self.what, self.why, self.example, self.fix)))


@dataclass(frozen=True)
class SourceTexts:
    """Repository files as text at base and head (repository path -> text), for rules that read
    sources (values, templates, tests, schema, docs). Empty when the caller provides none; rules
    needing a file that is absent here skip it. Kept as `SourceFiles`, which list a folder fast."""

    base: Mapping[str, str] = field(default_factory=dict)
    head: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for side in ("base", "head"):
            texts = getattr(self, side)
            if not isinstance(texts, SourceFiles):
                object.__setattr__(self, side, SourceFiles(texts))


class SourceFiles(abc.Mapping[str, str]):
    """An unchanging path -> text map whose paths are kept sorted, so a folder's files are a slice."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self._texts = dict(texts)
        self._paths = sorted(self._texts)

    def __getitem__(self, path: str) -> str:
        return self._texts[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def under(self, prefix: str) -> list[str]:
        """The paths starting with `prefix`, sorted."""
        start = bisect.bisect_left(self._paths, prefix)
        end = start
        while end < len(self._paths) and self._paths[end].startswith(prefix):
            end += 1
        return self._paths[start:end]


@dataclass(frozen=True)
class Concern:
    """One concern a rule found; the engine makes it a Finding.

    `severity`/`confidence`/`evidence` override the rule's defaults when a rule grades its concerns.
    `scope_paths` are the repository paths the concern is about (chart, templates, files),
    matched against a rule's configured path scopes.
    """

    subject: Subject
    message: str
    delta: Delta
    facts: tuple[Fact, ...] = ()
    location: Location | None = None
    path: tuple[PathStep, ...] = ()
    severity: Severity | None = None
    confidence: Confidence | None = None
    scope_paths: tuple[str, ...] = ()
    evidence: Evidence | None = None
    title: str | None = None  # a concern of another nature than the rule's title says


@dataclass(frozen=True)
class RuleContext:
    """Everything a rule may read. `index` is built once per review (see support.index)."""

    review: Review
    kube_version: tuple[int, int]
    options: object | None  # an instance of the rule's options_model, None when it has none
    sources: SourceTexts
    index: ReviewIndex
    configured: bool = False  # the configuration names this rule (enabled), beyond the defaults


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    category: Category
    severity: Severity
    confidence: Confidence
    evidence: Evidence
    doc: RuleDoc
    check: Callable[[RuleContext], Iterable[Concern]] = dataclasses.field(repr=False)
    options_model: type | None = None  # a frozen dataclass (aftershock.model.validated)
    needs_sources: bool = False  # reads SourceTexts; finds nothing without them
    references: tuple[str, ...] = ()
