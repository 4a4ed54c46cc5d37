"""What the pull request shows: the sticky comment, the check run's output and conclusion (pure), and posting them.

The comment starts with a hidden marker so the next review finds and edits it in place. The check
run fails only when the merge risk reaches the configured level; a partial review is neutral.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aftershock.model.review import Review
from aftershock.model.state_lifecycle import Lifecycle, LifecycleState
from aftershock.report.comment.markdown import render_markdown
from aftershock.report.escape import html_text, markdown_text
from aftershock.server.assess import Assessment, check_run_annotations, reaches
from aftershock.server.github.github_api import GitHubClient

COMMENT_MARKER = "<!-- aftershock:review-comment -->"
_SUMMARY_CHARS = 60_000


@dataclass(frozen=True)
class Publication:
    """Where and how to publish one review."""

    repository: str
    number: int
    fail_on: str
    mention: str
    note: str = ""  # one line on how the review was chosen (full, incremental, force-push)
    sarif_ref: str | None = None  # refs/pull/N/head when SARIF goes to code scanning
    commands: bool = True  # offer the chat commands: only the App (`aftershock serve`) answers them


def comment_body(
    review: Review, assessment: Assessment, lifecycle: Lifecycle | None, publication: Publication
) -> str:
    parts = [COMMENT_MARKER, render_markdown(assessment.document).rstrip(), ""]
    if lifecycle is not None:
        parts += _lifecycle_lines(lifecycle)
    if publication.note:
        parts += [f"<sub>{html_text(publication.note, name=False)}</sub>", ""]
    if publication.commands:
        parts.append(
            f"<sub>Reply `@{publication.mention} help` for commands (dismiss, explain, full review, pause).</sub>"
        )
    return "\n".join(parts) + "\n"


def _lifecycle_lines(lifecycle: Lifecycle) -> list[str]:
    counts = {state: len(lifecycle.in_state(state)) for state in LifecycleState}
    if lifecycle.previous_head is None:
        return []
    lines = [
        f"**Since the last review ({lifecycle.previous_head[:7]}):** {counts[LifecycleState.NEW]} new, "
        f"{counts[LifecycleState.RETAINED]} still present, {counts[LifecycleState.RESOLVED]} resolved, "
        f"{counts[LifecycleState.DISMISSED]} dismissed"
        + _suppressed_count(counts[LifecycleState.SUPPRESSED])
        + ".",
        "",
    ]
    for entry in lifecycle.dismissed:
        if entry.dismissal is not None:
            lines.append(
                f"- dismissed `{entry.fingerprint[:12]}` by @{entry.dismissal.by}: {markdown_text(entry.dismissal.reason)}"
            )
    return lines + ([""] if lifecycle.dismissed else [])


def _suppressed_count(count: int) -> str:
    """Silenced by the repository, not resolved: said only when some are."""
    return f", {count} suppressed by the repository" if count else ""


def conclusion(review: Review, assessment: Assessment, fail_on: str) -> str:
    if reaches(assessment.verdicts.merge.level, fail_on):
        return "failure"
    return "success" if review.complete else "neutral"


def check_output(review: Review, assessment: Assessment) -> dict[str, Any]:
    merge, security = assessment.verdicts.merge, assessment.verdicts.security
    lines = [
        f"**{assessment.verdicts.headline}**",
        "",
        f"**{merge.title}**",
        markdown_text(merge.rationale),
        "",
        f"**{security.title}**",
        markdown_text(security.rationale),
        "",
    ]
    if review.not_reviewed:
        lines.append(
            f"{len(review.not_reviewed)} part(s) could not be reviewed; they are listed in the review comment."
        )
    return {"title": merge.title, "summary": "\n".join(lines)[:_SUMMARY_CHARS]}


def publish_review(
    client: GitHubClient,
    publication: Publication,
    review: Review,
    assessment: Assessment,
    lifecycle: Lifecycle | None,
    check_run_id: int | None,
) -> int:
    """Post or update the sticky comment, complete the check run, upload SARIF when asked; the comment id."""
    comment_id = client.upsert_sticky_comment(
        publication.repository,
        publication.number,
        COMMENT_MARKER,
        comment_body(review, assessment, lifecycle, publication),
    )
    if check_run_id is not None:
        client.complete_check_run(
            publication.repository,
            check_run_id,
            conclusion(review, assessment, publication.fail_on),
            check_output(review, assessment),
            check_run_annotations(assessment),
        )
    if publication.sarif_ref:
        client.upload_sarif(
            publication.repository, review.head.sha, publication.sarif_ref, assessment.sarif
        )
    return comment_id


def failure_output(line: str) -> dict[str, Any]:
    return {"title": "aftershock could not review this change", "summary": line[:_SUMMARY_CHARS]}
