"""`aftershock dismiss`, `reopen` and `history`: decisions on findings and the past reviews of a target."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from aftershock.cli.formats import format_option
from aftershock.findings.dismissals import DISMISSALS_FILE, file_dismissal, write_dismissal
from aftershock.ingest.repository.git import GitRepository
from aftershock.model.errors import GitError
from aftershock.model.state_records import ReviewSummary, ReviewTarget
from aftershock.pipeline.state import open_target_state
from aftershock.state.errors import StateError

Command = TypeVar("Command", bound=Callable[..., Any])
_COUNTED = ("new", "retained", "resolved", "dismissed", "suppressed")


def _target_options(command: Command) -> Command:
    """--repo, --state and --target, as `aftershock review` takes them."""
    for option in reversed(
        (
            click.option("--repo", "repo", default=".", show_default=True, help="The repository."),
            click.option(
                "--state",
                "state",
                metavar="PATH|URL",
                default=None,
                help="Review-state database [default: .aftershock/state.db in the repository].",
            ),
            click.option(
                "--target",
                "target",
                metavar="NAME",
                default=None,
                help="A pull request (`pr:42`, `42`) or a branch [default: the branch HEAD is on].",
            ),
        )
    ):
        command = option(command)
    return command


@click.command("dismiss")
@click.argument("fingerprint")
@click.option(
    "--reason",
    "reason",
    required=True,
    help="Why the finding is refused (shown in every later report).",
)
@click.option("--by", "by", default=None, help="Who decides [default: git user.name, else $USER].")
@click.option(
    "--write-file",
    "write_file",
    is_flag=True,
    help=f"Also write it to {DISMISSALS_FILE} in the work tree, to commit: honoured once merged, for everyone.",
)
@_target_options
def dismiss_command(
    fingerprint: str,
    reason: str,
    by: str | None,
    write_file: bool,
    repo: str,
    state: str | None,
    target: str | None,
) -> None:
    """Dismiss a finding of the target's last review: it is not raised again until its evidence changes.
    FINGERPRINT may be a unique prefix of at least 8 characters (the full one with --write-file and no
    review state)."""
    who = by or _who(Path(repo))
    try:
        with open_target_state(Path(repo), state, target) as opened:
            decision = opened.store.dismiss(
                opened.repository, opened.target, fingerprint, reason, who
            )
        entry = file_dismissal(
            decision.fingerprint, decision.reason, who, decision.evidence_digest or None
        )
        click.echo(
            f"dismissed {decision.fingerprint} in {opened.target}: {decision.reason} "
            f"(raised again if its evidence changes)"
        )
    except StateError:
        if not (write_file and re.fullmatch(r"[0-9a-f]{32}", fingerprint)):
            raise
        entry = file_dismissal(fingerprint, reason.strip(), who)  # no review to take evidence from
    if write_file:
        path = write_dismissal(GitRepository.open(Path(repo)).root, entry)
        _unignore(path.parent)
        click.echo(f"wrote {path}: commit it; reviews honour it once it is on the base branch")


def _unignore(folder: Path) -> None:
    """Let git see the dismissals file in a folder whose .gitignore aftershock wrote to ignore everything."""
    ignore = folder / ".gitignore"
    if ignore.is_file() and ignore.read_text(encoding="utf-8").strip().endswith("*"):
        ignore.write_text(
            ignore.read_text(encoding="utf-8").rstrip("\n") + f"\n!{Path(DISMISSALS_FILE).name}\n",
            encoding="utf-8",
        )


@click.command("reopen")
@click.argument("fingerprint")
@click.option("--by", "by", default=None, help="Who decides [default: git user.name, else $USER].")
@_target_options
def reopen_command(
    fingerprint: str, by: str | None, repo: str, state: str | None, target: str | None
) -> None:
    """Withdraw the dismissal of a finding: the next review raises it again."""
    with open_target_state(Path(repo), state, target) as opened:
        decision = opened.store.reopen(
            opened.repository, opened.target, fingerprint, by or _who(Path(repo))
        )
    click.echo(
        f"reopened {decision.fingerprint} in {opened.target}: the next review raises it again"
    )


# Typed here, as the other decorators are: format_option itself returns Any.
_history_format: Callable[[Callable[..., Any]], Callable[..., Any]] = format_option(
    ["text", "json"]
)


@click.command("history")
@_target_options
@_history_format
@click.option(
    "--limit",
    "limit",
    type=click.IntRange(min=1),
    default=None,
    help="Show only the newest N reviews.",
)
def history_command(
    repo: str, state: str | None, target: str | None, fmt: str, limit: int | None
) -> None:
    """The past reviews of a target, newest first: when, base..head, mode, status, counts, verdicts."""
    with open_target_state(Path(repo), state, target) as opened:
        reviews = opened.store.history(opened.repository, opened.target, limit)
        where = opened.store.where
    if fmt == "json":
        click.echo(
            json.dumps(history_document(opened.repository, opened.target, reviews), indent=2)
        )
        return
    if not reviews:
        click.echo(f"no review of {opened.target} is recorded in {where}")
    for summary in reviews:
        click.echo(history_line(summary))
        for part in summary.not_reviewed:
            click.echo(f"    not reviewed: {part.part}: {part.reason}")


def history_line(summary: ReviewSummary) -> str:
    """`#3  2026-11-01 12:00Z  1a2b3c4..5d6e7f8  incremental since 9a8b7c6  complete  new 1 · ... · merge low`."""
    when = summary.started_at.strftime("%Y-%m-%d %H:%M:%SZ")
    mode = summary.mode.value + (f" since {summary.since_sha[:7]}" if summary.since_sha else "")
    counts = " · ".join(f"{state} {summary.counts.get(state, 0)}" for state in _COUNTED)
    levels = (
        " · ".join(f"{v.kind.removesuffix('_risk')} {v.level}" for v in summary.verdicts)
        or "no verdicts"
    )
    return (
        f"#{summary.id}  {when}  {summary.base_sha[:7]}..{summary.head_sha[:7]}  {mode}  {summary.status.value}  "
        f"{counts}  {levels}"
    )


def history_document(
    repository: str, target: ReviewTarget, reviews: tuple[ReviewSummary, ...]
) -> dict[str, Any]:
    return {
        "repository": repository,
        "target": {"kind": target.kind.value, "name": target.name, "display": str(target)},
        "reviews": [_summary_document(s) for s in reviews],
    }


def _summary_document(summary: ReviewSummary) -> dict[str, Any]:
    return {
        "id": summary.id,
        "started_at": summary.started_at.isoformat(),
        "recorded_at": summary.recorded_at.isoformat(),
        "base": summary.base_sha,
        "head": summary.head_sha,
        "mode": summary.mode.value,
        "since": summary.since_sha,
        "status": summary.status.value,
        "not_reviewed": [{"part": p.part, "reason": p.reason} for p in summary.not_reviewed],
        "counts": {state: summary.counts.get(state, 0) for state in _COUNTED},
        "verdicts": {v.kind: {"level": v.level, "up_to": v.up_to_sha} for v in summary.verdicts},
        "aftershock_version": summary.aftershock_version,
        "config_hash": summary.config_hash,
    }


def _who(repo: Path) -> str:
    """The deciding person's name: git's user.name in this repository, else the login name."""
    try:
        name = (
            GitRepository.open(repo).run("config", "user.name").decode("utf-8", "replace").strip()
        )
    except GitError:
        name = ""
    return name or os.environ.get("USER", "")
