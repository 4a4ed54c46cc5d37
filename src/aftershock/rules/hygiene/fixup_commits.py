"""Rule commit-fixup: fixup!, squash! or amend! commits left in the range."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.commits import commit_path, commit_subject

PREFIXES = ("fixup! ", "squash! ", "amend! ")


def check(ctx: RuleContext) -> Iterator[Concern]:
    for commit in ctx.review.commits:
        prefix = next((p for p in PREFIXES if commit.title.startswith(p)), None)
        if prefix is not None:
            yield Concern(
                subject=commit_subject(commit, "fixup"),
                delta=Delta.INTRODUCED,
                message=f'commit {commit.short_sha} "{commit.title}" is a {prefix.strip()} commit meant to be squashed before merging',
                path=commit_path(commit),
                facts=(Fact("kind", prefix.strip()),),
            )


RULE = Rule(
    id="commit-fixup",
    title="fixup!/squash! commit left in the range",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Commits whose title starts with `fixup! `, `squash! ` or `amend! ` (as `git commit --fixup` writes "
        "them).",
        why="They exist to be folded into an earlier commit by `git rebase --autosquash`; merged as they are, "
        "they leave half-commits in history that break bisecting and changelogs.",
        example="    fixup! feat(orders): run three replicas by default",
        fix="`git rebase -i --autosquash <base>` and push again, or squash-merge.",
    ),
)
