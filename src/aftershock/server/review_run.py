"""One review job: fetch base and head, choose full or incremental, review, record, and publish.

Reviews of a pull request hold its review lock from the supersede check to the recorded review, so
two pushes never review in parallel and an older head never lands after a newer one.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from aftershock import __version__
from aftershock.config.settings import load_config
from aftershock.judgement.result import ReviewResult
from aftershock.model.errors import AftershockError
from aftershock.model.review import Review
from aftershock.model.state_mode import Ancestry, CurrentReview, ReviewPlan, decide_review_mode
from aftershock.model.state_records import (
    ReviewMode,
    ReviewRecord,
    ReviewStatus,
    StoredVerdict,
    UnreviewedPart,
)
from aftershock.model.state_scope import ReviewScope
from aftershock.model.validated import json_text
from aftershock.pipeline import RenderCallbacks, ReviewRequest, review_change
from aftershock.pipeline.config_defaults import with_config_defaults
from aftershock.pipeline.state import presented_judgement
from aftershock.report.findings_document import finding_document
from aftershock.server.assess import Assessment, assess
from aftershock.server.context import JobContext
from aftershock.server.github.fetch import (
    FetchedCommits,
    clone_url,
    fetch_commits,
    fetch_more,
    file_at,
    head_order,
    is_ancestor,
    job_folder,
)
from aftershock.server.github.github_api import GitHubClient
from aftershock.server.metrics import observe_review, sample
from aftershock.server.publish import Publication, failure_output, publish_review
from aftershock.server.queue.jobspec import ReviewJob, Trigger, job_to_json
from aftershock.server.queue.ledger import Outcome
from aftershock.server.queue.supersede import RivalReview, superseding
from aftershock.state.errors import StateError, StateUnavailableError

_log = logging.getLogger("aftershock.server")
CONFIG_FILE = ".aftershock.yaml"
FETCH_DEPTH = 50


def run_review_job(ctx: JobContext, job: ReviewJob) -> tuple[Outcome, str]:
    client = ctx.access.client(job.pull.installation_id)
    if job.head_sha is None or job.base_sha is None:
        pull = client.pull_request(job.pull.repository, job.pull.number)
        if pull.get("state") == "closed":
            return Outcome.IGNORED, "the pull request is closed"
        job = replace(job, head_sha=pull["head"]["sha"], base_sha=pull["base"]["sha"])
    key = ctx.settings.repository_key(job.pull.repository)
    with (
        ctx.store.review_lock(
            key, job.pull.target, timeout_seconds=ctx.settings.job_timeout_seconds
        ),
        job_folder(ctx.settings.work_dir, job.delivery_id) as folder,
    ):
        try:
            return _review_in_folder(ctx, client, job, key, folder)
        except StateUnavailableError:
            raise  # the runner tries the job again, and fails its check run only when it gives up
        except Exception as error:
            fail_check_run(ctx, job, _failure_line(error))
            raise


def _review_in_folder(
    ctx: JobContext, client: GitHubClient, job: ReviewJob, key: str, folder: Path
) -> tuple[Outcome, str]:
    assert job.head_sha is not None and job.base_sha is not None
    head = job.head_sha
    started_at = datetime.now(UTC)
    url = clone_url(ctx.settings.clone_base, job.pull.repository)
    token = ctx.access.token(job.pull.installation_id)
    fetched = fetch_commits(folder, url, token, [head, job.base_sha], depth=FETCH_DEPTH)
    rival = superseding(
        head,
        ctx.ledger.rival_reviews(job.delivery_id),
        lambda other: head_order(fetched.path, url, token, head, other),
    )
    if rival is not None:
        return _skip_superseded(client, job, rival)
    base = fetched.merge_base or job.base_sha
    config_file = _base_config(folder, fetched, base)
    plan = _plan(ctx, job, key, fetched, url, token, base, _config_hash(config_file))
    nothing_new = plan.mode is ReviewMode.INCREMENTAL and plan.since_sha == head
    if nothing_new and job.trigger is Trigger.PUSH:  # a redelivered push still gets its check run
        plan = ReviewPlan(
            ReviewMode.FULL,
            f"no new commits since the last review of {head[:7]}: reviewing the whole range",
        )
    elif nothing_new:
        client.post_comment(
            job.pull.repository,
            job.pull.number,
            f"No new commits since the last review of {head[:7]}: the review comment is current. "
            f"`@{ctx.settings.mention} full review` reviews everything again.",
        )
        return Outcome.REPLIED, plan.reason
    return _review_and_publish(
        ctx,
        client,
        _start_check_run(ctx, client, job),
        key,
        fetched.path,
        base,
        config_file,
        plan,
        started_at,
    )


def _skip_superseded(
    client: GitHubClient, job: ReviewJob, rival: RivalReview
) -> tuple[Outcome, str]:
    if job.check_run_id is not None:
        client.update_check_run(
            job.pull.repository,
            job.check_run_id,
            {
                "status": "completed",
                "conclusion": "skipped",
                "output": {
                    "title": "Superseded",
                    "summary": "A review of a newer head of this pull request replaced this one.",
                },
            },
        )
    newer = f"head {rival.head_sha[:7]}" if rival.head_sha else "the current head"
    return Outcome.SUPERSEDED, f"superseded by delivery {rival.delivery_id}, a review of {newer}"


def _review_and_publish(
    ctx: JobContext,
    client: GitHubClient,
    job: ReviewJob,
    key: str,
    repo: Path,
    base: str,
    config_file: Path,
    plan: ReviewPlan,
    started_at: datetime,
) -> tuple[Outcome, str]:
    assert job.head_sha is not None
    # An incremental review still reviews base..head; it renders only what since..head reaches.
    since = plan.since_sha if plan.mode is ReviewMode.INCREMENTAL else None
    request = _with_review_settings(
        ReviewRequest(repo=repo, base=base, head=job.head_sha, config_file=config_file, since=since)
    )
    result = review_change(request, ctx.renderers.get(), _render_callbacks(ctx))
    # The comment shows what the CLI shows: carried-forward findings too, the dismissed left out.
    shown = presented_judgement(ctx.store, key, job.pull.target, result, since)
    review, assessment = result.review, assess(replace(result, judgement=shown))
    stored = replace(assessment, findings=result.judgement.findings)
    recorded = ctx.store.record_review(
        _record(key, job, base, review, stored, plan, started_at), _scope(result)
    )
    publication = Publication(
        job.pull.repository,
        job.pull.number,
        ctx.settings.fail_on,
        ctx.settings.mention,
        plan.reason,
        f"refs/pull/{job.pull.number}/head" if ctx.settings.upload_sarif else None,
    )
    publish_review(client, publication, review, assessment, recorded.lifecycle, job.check_run_id)
    status = "complete" if review.complete else "partial"
    observe_review(ctx.metrics, (datetime.now(UTC) - started_at).total_seconds(), status)
    return (
        Outcome.REVIEWED,
        f"{plan.mode.value} review of {job.head_sha[:7]}: merge risk {assessment.verdicts.merge.level.value}",
    )


def _base_config(folder: Path, fetched: FetchedCommits, base: str) -> Path:
    """The configuration as it is at the merge base, in a file: an incremental review starts from the
    last reviewed head, but its rules still run with the configuration the change did not write."""
    path = folder / "aftershock-config.yaml"
    path.write_text(file_at(fetched.path, base, CONFIG_FILE) or "", encoding="utf-8")
    return path


def _with_review_settings(request: ReviewRequest) -> ReviewRequest:
    """The request with the `review:` settings of the configuration at base (the App has no flags
    that could win over them); an invalid configuration is reported by the review itself."""
    assert request.config_file is not None
    try:
        defaults = load_config(request.config_file).review
    except AftershockError:
        return request
    return with_config_defaults(request, defaults, frozenset())


def _config_hash(config_file: Path) -> str:
    try:
        config = load_config(config_file)
    except AftershockError:
        return "invalid"  # the review reports the configuration error itself
    return hashlib.sha256(json_text(config).encode("utf-8")).hexdigest()[:16]


def _plan(
    ctx: JobContext,
    job: ReviewJob,
    key: str,
    fetched: FetchedCommits,
    url: str,
    token: str,
    base: str,
    config_hash: str,
) -> ReviewPlan:
    assert job.head_sha is not None
    last = ctx.store.latest_review(key, job.pull.target)
    ancestry = None
    if last is not None:
        answer = is_ancestor(fetched.path, last.head_sha, job.head_sha)
        if answer is None and fetch_more(fetched.path, url, token, last.head_sha):
            answer = is_ancestor(fetched.path, last.head_sha, job.head_sha)
        ancestry = (
            Ancestry.MISSING
            if answer is None
            else Ancestry.ANCESTOR
            if answer
            else Ancestry.NOT_ANCESTOR
        )
    current = CurrentReview(job.head_sha, base, config_hash, __version__)
    return decide_review_mode(job.requested, last, current, ancestry)


def _start_check_run(ctx: JobContext, client: GitHubClient, job: ReviewJob) -> ReviewJob:
    """Move the announced check run to in progress, or the one an earlier attempt made and could not
    record (found on GitHub by the delivery's GUID), or create one; the ledger keeps its id."""
    assert job.head_sha is not None
    repository = job.pull.repository
    summary = {"title": "Reviewing", "summary": f"Rendering {job.head_sha[:7]} and its base."}
    check_run_id, fresh = job.check_run_id, False
    if check_run_id is None:
        check_run_id, fresh = client.check_run_for(
            repository, job.head_sha, job.delivery_id, "in_progress", **summary
        )
    if not fresh:
        client.update_check_run(
            repository, check_run_id, {"status": "in_progress", "output": summary}
        )
    if check_run_id != job.check_run_id:
        job = replace(job, check_run_id=check_run_id)
        ctx.ledger.mark(job.delivery_id, Outcome.RUNNING, job=job_to_json(job))
    return job


def _failure_line(error: Exception) -> str:
    if isinstance(error, AftershockError):
        return error.line()
    return f"internal error: {type(error).__name__}: {error}"


def fail_check_run(
    ctx: JobContext, job: ReviewJob, line: str, *, create_missing: bool = False
) -> None:
    """Complete the job's check run as failed with `line` (best effort): the one the ledger knows,
    else the job's, else the one GitHub has of this delivery, else (with `create_missing`, when the
    head is known) a new one."""
    check_run_id = job.check_run_id
    try:
        row = ctx.ledger.get(job.delivery_id)
        if row is not None and (row.job or {}).get("check_run_id") is not None:
            check_run_id = int((row.job or {})["check_run_id"])
    except StateError:
        pass  # the database is what failed: the job's own copy is what there is
    try:
        client = ctx.access.client(job.pull.installation_id)
        if check_run_id is None and job.head_sha is not None:
            check_run_id = client.find_check_run(job.pull.repository, job.head_sha, job.delivery_id)
            if check_run_id is None and create_missing:
                check_run_id = client.create_check_run(
                    job.pull.repository,
                    job.head_sha,
                    "in_progress",
                    "Reviewing",
                    line[:200],
                    external_id=job.delivery_id,
                )
        if check_run_id is None:
            return
        client.update_check_run(
            job.pull.repository,
            check_run_id,
            {"status": "completed", "conclusion": "failure", "output": failure_output(line)},
        )
    except Exception as error:
        _log.warning("could not fail the check run of %s: %s", job.delivery_id, error)


def _render_callbacks(ctx: JobContext) -> RenderCallbacks:
    def rendered(outcome: object) -> None:
        ok = getattr(outcome, "ok", False)
        ctx.metrics.increment(sample("aftershock_renders_total", result="ok" if ok else "error"))

    return RenderCallbacks(planned=lambda _count: None, rendered=rendered)


def _record(
    key: str,
    job: ReviewJob,
    base: str,
    review: Review,
    assessment: Assessment,
    plan: ReviewPlan,
    started_at: datetime,
) -> ReviewRecord:
    head = review.head.sha
    merge, security = assessment.verdicts.merge, assessment.verdicts.security
    return ReviewRecord(
        repository=key,
        target=job.pull.target,
        base_sha=base,
        head_sha=head,
        status=ReviewStatus.COMPLETE if review.complete else ReviewStatus.PARTIAL,
        aftershock_version=__version__,
        config_hash=assessment.config_hash,
        started_at=started_at,
        mode=plan.mode,
        since_sha=plan.since_sha,
        not_reviewed=tuple(UnreviewedPart(n.part, n.reason) for n in review.not_reviewed),
        findings=assessment.findings,
        verdicts=(
            StoredVerdict("merge_risk", merge.level.value, head, merge.rationale),
            StoredVerdict("security_risk", security.level.value, head, security.rationale),
        ),
        payloads={f.fingerprint: finding_document(f) for f in assessment.findings},
    )


def _scope(result: ReviewResult) -> ReviewScope | None:
    """What the review examined (the pipeline says: the whole change, or what since..head reaches);
    None for a complete full review, which the store reads as the whole change."""
    scope = result.scope or ReviewScope.whole_change()  # as the CLI reads a result without one
    if not scope.whole or not result.review.complete:
        return scope
    return None
