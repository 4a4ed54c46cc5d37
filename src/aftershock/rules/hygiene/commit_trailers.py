"""Rule commit-trailers: commits carry the trailers the project requires (e.g. Signed-off-by)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.change import Commit
from aftershock.model.validated import FORBID_EXTRA
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.commits import commit_path, commit_subject, is_merge


@dataclass(frozen=True)
class Options:
    __pydantic_config__: ClassVar[dict[str, Any]] = FORBID_EXTRA

    required: tuple[str, ...] = ()  # trailer keys, e.g. ["Signed-off-by"]; none by default
    signoff_matches_author: bool = True  # a required Signed-off-by must name the author's email


def _problems(commit: Commit, options: Options) -> list[str]:
    present = {t.key.lower(): t for t in commit.trailers}
    missing = [key for key in options.required if key.lower() not in present]
    problems = [f"has no {key} trailer" for key in missing]
    signoff = "signed-off-by"
    if (
        options.signoff_matches_author
        and signoff in {k.lower() for k in options.required}
        and signoff in present
    ):
        emails = {
            t.value.rsplit("<", 1)[-1].rstrip(">").strip().lower()
            for t in commit.trailers
            if t.key.lower() == signoff
        }
        if commit.author.email.lower() not in emails:
            problems.append(f"is not signed off by its author <{commit.author.email}>")
    return problems


def check(ctx: RuleContext) -> Iterator[Concern]:
    options = ctx.options if isinstance(ctx.options, Options) else Options()
    if not options.required:
        return
    for commit in ctx.review.commits:
        if is_merge(commit):
            continue
        problems = _problems(commit, options)
        if problems:
            yield Concern(
                subject=commit_subject(commit, "trailers"),
                delta=Delta.INTRODUCED,
                message=f'commit {commit.short_sha} "{commit.title}" {" and ".join(problems)}',
                path=commit_path(commit),
                facts=(Fact("problems", problems),),
            )


RULE = Rule(
    id="commit-trailers",
    title="Required commit trailers",
    category=Category.HYGIENE,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    options_model=Options,
    check=check,
    doc=RuleDoc(
        what="Non-merge commits of the range that lack a trailer listed in the `required` option (none by "
        "default, so the rule is silent until configured), compared case-insensitively. When Signed-off-by is "
        "required, it must also name the commit author's email (option `signoff_matches_author`, default true).",
        why="Projects under the Developer Certificate of Origin, or that link commits to tickets or reviewers, "
        "reject commits without their trailers at merge time; catching it in review saves a rebase later.",
        example="    # .aftershock.yaml\n    rules:\n      commit-trailers:\n        options: {required: [Signed-off-by]}",
        fix="`git commit --amend --signoff` (or `git rebase --signoff base`) and push again.",
    ),
)
