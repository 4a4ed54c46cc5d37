"""Rule commit-title-convention: commit titles follow Conventional Commits (or a configured pattern)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.conventions import CommitConventions
from aftershock.model.validated import FORBID_EXTRA, Checked
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.commits import commit_path, commit_subject, is_merge

DEFAULT_TYPES = (
    "build",
    "chore",
    "ci",
    "docs",
    "feat",
    "fix",
    "perf",
    "refactor",
    "revert",
    "style",
    "test",
)


def _compiles(value: str | None) -> str | None:
    if value is not None:
        re.compile(value)
    return value


@dataclass(frozen=True)
class Options:
    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    types: tuple[str, ...] = DEFAULT_TYPES
    # a full regular expression for the title; replaces the Conventional Commits check
    pattern: Annotated[str | None, Checked(_compiles)] = None
    max_length: int | None = None


def title_pattern(options: Options) -> re.Pattern[str]:
    if options.pattern:
        return re.compile(options.pattern)
    types = "|".join(re.escape(t) for t in options.types)
    return re.compile(rf"(?:{types})(?:\([^()\s][^()]*\))?!?: \S.*")


def repository_follows(conventions: CommitConventions | None, pattern: re.Pattern[str]) -> bool:
    """Whether the repository keeps the convention: a commit-message tool configured at base, or most of
    its recent titles following the pattern. Unknown (no conventions read) counts as kept."""
    if conventions is None or conventions.config_files:
        return True
    titles = [
        t
        for t in conventions.recent_titles
        if not t.startswith(("fixup! ", "squash! ", "amend! ", 'Revert "'))
    ]
    return len(titles) > 0 and sum(bool(pattern.fullmatch(t)) for t in titles) * 2 > len(titles)


def check(ctx: RuleContext) -> Iterator[Concern]:
    options = ctx.options if isinstance(ctx.options, Options) else Options()
    pattern = title_pattern(options)
    if not ctx.configured and not repository_follows(ctx.review.conventions, pattern):
        return  # a convention the repository never used is not its authors' to follow
    for commit in ctx.review.commits:
        if is_merge(commit) or commit.title.startswith(
            ("fixup! ", "squash! ", "amend! ", 'Revert "')
        ):
            continue  # fixups are commit-fixup's; git's own revert titles are fine
        problems = []
        if not pattern.fullmatch(commit.title):
            problems.append(
                "does not follow "
                + (
                    "the configured pattern"
                    if options.pattern
                    else "Conventional Commits (`type(scope): summary`)"
                )
            )
        if options.max_length and len(commit.title) > options.max_length:
            problems.append(
                f"is {len(commit.title)} characters long (at most {options.max_length})"
            )
        if problems:
            yield Concern(
                subject=commit_subject(commit, "title"),
                delta=Delta.INTRODUCED,
                message=f'commit {commit.short_sha} title "{commit.title}" {" and ".join(problems)}',
                path=commit_path(commit),
                facts=(Fact("title", commit.title),),
            )


RULE = Rule(
    id="commit-title-convention",
    title="Commit title convention",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    options_model=Options,
    check=check,
    doc=RuleDoc(
        what="Titles of the non-merge commits in the range: by default Conventional Commits, "
        "`type(scope)!: summary` with type one of build, chore, ci, docs, feat, fix, perf, refactor, revert, "
        "style, test. Options: `types` (the allowed types), `pattern` (a full regular expression that replaces "
        'the check), `max_length`. Git\'s own `Revert "..."` titles and fixup!/squash! commits (see '
        "commit-fixup) are skipped. Runs only where the repository keeps the convention: a commitlint or "
        "commitizen configuration at base, or most of the last 100 commit titles up to base following it; "
        "naming the rule in `.aftershock.yaml` runs it regardless.",
        why="Release notes, changelogs and semantic version bumps are generated from titles; a title outside "
        "the convention drops the change from them or bumps the wrong version.",
        example="    Update values        ->  fix(orders): raise the database pool to 20",
        fix="Reword the commit (`git rebase -i`, `reword`) before merging, or squash-merge with a conforming "
        "title.",
    ),
)
