"""Answering chat commands: help, dismiss, reopen, explain, pause and resume, each with one reply comment.

Write commands ask GitHub for the author's permission first; without write access the author gets
a polite refusal and nothing changes. Review commands are review jobs (see `events.route`).
"""

from __future__ import annotations

from typing import assert_never

from aftershock.model.errors import AftershockError
from aftershock.model.state_records import ReviewTarget
from aftershock.rules.catalog import explain
from aftershock.rules.registry import RULES
from aftershock.server.context import JobContext
from aftershock.server.github.commands import (
    ChatCommand,
    CommandKind,
    help_text,
    refusal,
    usage_hint,
)
from aftershock.server.queue.jobspec import CommandJob
from aftershock.server.queue.ledger import Outcome

_MIN_PREFIX = 8


def run_command_job(ctx: JobContext, job: CommandJob) -> tuple[Outcome, str]:
    client = ctx.access.client(job.pull.installation_id)
    command = job.command
    if command.needs_write_access and not client.has_write_access(job.pull.repository, job.author):
        client.post_comment(job.pull.repository, job.pull.number, refusal(job.author, command))
        return Outcome.REPLIED, f"refused {command.kind.value} to {job.author} (no write access)"
    try:
        reply = _answer(ctx, job, command)
    except AftershockError as error:
        reply = f"@{job.author} {error.line()}"
    client.post_comment(job.pull.repository, job.pull.number, reply)
    return Outcome.REPLIED, f"answered {command.kind.value} of {job.author}"


def _answer(ctx: JobContext, job: CommandJob, command: ChatCommand) -> str:
    key = ctx.settings.repository_key(job.pull.repository)
    target = job.pull.target
    mention = ctx.settings.mention
    match command.kind:
        case CommandKind.HELP:
            return help_text(mention)
        case CommandKind.DISMISS:
            decision = ctx.store.dismiss(key, target, command.argument, command.reason, job.author)
            return (
                f"Dismissed `{decision.fingerprint[:12]}` on its current evidence: {decision.reason}. "
                "It is not raised again unless its evidence changes; the next review shows it as dismissed."
            )
        case CommandKind.REOPEN:
            decision = ctx.store.reopen(key, target, command.argument, job.author)
            return f"Reopened `{decision.fingerprint[:12]}`: the next review raises it again if it is still present."
        case CommandKind.EXPLAIN:
            return _explain(ctx, key, target, command.argument)
        case CommandKind.PAUSE:
            done = (
                "Paused automatic reviews on push for this pull request."
                if ctx.ledger.pause(key, target, job.author)
                else "Automatic reviews were already paused."
            )
            return f"{done} `@{mention} review` still works; `@{mention} resume` restarts them."
        case CommandKind.RESUME:
            changed = ctx.ledger.resume(key, target)
            return (
                "Resumed automatic reviews on push."
                if changed
                else "Automatic reviews were not paused."
            )
        case CommandKind.UNKNOWN | CommandKind.REVIEW | CommandKind.FULL_REVIEW:
            return usage_hint(command, mention)
        case _:
            assert_never(command.kind)


def _explain(ctx: JobContext, key: str, target: ReviewTarget, wanted: str) -> str:
    rule_ids = {rule.id for rule in RULES}
    if wanted in rule_ids:
        return f"```\n{explain(wanted)}```"
    last = ctx.store.latest_review(key, target)
    findings = ctx.store.review_findings(last.id) if last is not None else ()
    matches = [
        (state, f)
        for state, f in findings
        if f.fingerprint == wanted
        or (len(wanted) >= _MIN_PREFIX and f.fingerprint.startswith(wanted))
    ]
    if len(matches) != 1:
        what = "is ambiguous" if matches else "matches no rule and no finding of the last review"
        return f"`{wanted}` {what}. Pass a rule id or a fingerprint from the review comment."
    state, finding = matches[0]
    lines = [
        f"**{finding.title}** (`{finding.rule_id}`, {finding.severity}, {state.value})",
        "",
        f"{finding.subject_display}: {finding.message}",
        "",
    ]
    if finding.rule_id in rule_ids:
        lines += ["```", explain(finding.rule_id).rstrip(), "```"]
    return "\n".join(lines)
