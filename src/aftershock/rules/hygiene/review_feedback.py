"""Rule commit-review-feedback: a commit that addresses review feedback, where the guide asks for squashed commits."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.commits import commit_path, commit_subject, is_merge

# "address review feedback", "apply PR comments", "review remarks", "fixes from code review"
FEEDBACK = re.compile(
    r"\b(?:address(?:es|ed|ing)?|apply|applied|incorporate[sd]?|fix(?:es|ed)?|resolve[sd]?)\b"
    r"[^.\n]{0,40}\b(?:code )?review\b|\b(?:review|PR|pull request)\s+(?:feedback|comments?|remarks|"
    r"suggestions|findings)\b",
    re.IGNORECASE,
)


def check(ctx: RuleContext) -> Iterator[Concern]:
    conventions = ctx.review.conventions
    if conventions is None or conventions.squash_asked is None:
        return  # no convention is invented where the repository writes none
    guide, sentence = conventions.squash_asked
    for commit in ctx.review.commits:
        if is_merge(commit):
            continue
        match = FEEDBACK.search(f"{commit.title}\n{commit.body}")
        if match is None:
            continue
        yield Concern(
            subject=commit_subject(commit, "review-feedback"),
            delta=Delta.INTRODUCED,
            message=f'commit {commit.short_sha} "{commit.title}" addresses review feedback '
            f'("{match.group(0)}") as a commit of its own, and {guide} asks: "{sentence}"',
            path=commit_path(commit),
            facts=(Fact("guide", guide), Fact("says", match.group(0))),
        )


RULE = Rule(
    id="commit-review-feedback",
    title="Review-feedback commit where the guide asks for squashed commits",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what='Commits whose title or body says they address review feedback ("address review comments", '
        '"PR feedback"), in a repository whose contributing guide (CONTRIBUTING.md, '
        ".github/CONTRIBUTING.md, docs/contributing.md) asks for squashed commits or one commit per "
        "change. Silent where no guide says so: no convention is invented.",
        why="The repository asked for a history of one commit per change; a feedback commit records the "
        "review, not a change, and makes `git log` and `git bisect` land between half-done states.",
        example="    feat(orders): run three replicas\n    address review comments",
        fix="Fold the commit into the one it corrects (`git commit --fixup`, then "
        "`git rebase --autosquash`) before merging.",
    ),
)
