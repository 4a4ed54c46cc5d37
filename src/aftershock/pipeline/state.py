"""A review that remembers: the target's lock, full or incremental, one recorded transaction, the lifecycle.

    stateful = review_with_state(request, renderer, callbacks, StateOptions(requested=RequestedMode.SINCE_LAST))

Under the target's review lock: read the last review, decide the mode (a force-push means a full
review), review, then record the review with its findings, lifecycle and verdicts in one transaction.
A review that raises is recorded as failed and the error goes on. What the report raises is this
review's findings, plus those an incremental review carried forward, less the dismissed ones; the
verdicts are computed over exactly that. The findings the repository suppresses are recorded too
(suppressed, never resolved), and those carried forward stay suppressed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from aftershock import __version__
from aftershock.config.settings import AftershockConfig
from aftershock.ingest.repository.git import GitRepository
from aftershock.ingest.repository.snapshot import RefSnapshot
from aftershock.judgement.result import Judgement, ReviewResult
from aftershock.judgement.stateful import StatefulReview
from aftershock.model.errors import AftershockError, GitError
from aftershock.model.review import Review
from aftershock.model.state_mode import (
    DEFAULT_LOCK_TIMEOUT_SECONDS,
    Ancestry,
    CurrentReview,
    RequestedMode,
    ReviewPlan,
    StateOptions,
    decide_review_mode,
)
from aftershock.model.state_records import (
    ReviewMode,
    ReviewRecord,
    ReviewStatus,
    ReviewSummary,
    ReviewTarget,
    StoredVerdict,
    UnreviewedPart,
    normalize_repository,
)
from aftershock.model.state_scope import ReviewScope
from aftershock.model.validated import plain
from aftershock.pipeline.judge import review_config
from aftershock.pipeline.presented import carried_suppressed, raised_findings, suppressed_findings
from aftershock.pipeline.review import (
    RenderCallbacks,
    ReviewRequest,
    base_ref,
    review_change,
)
from aftershock.render.interface import Renderer
from aftershock.report.findings_document import finding_document
from aftershock.safety.secret_taint import secret_taint
from aftershock.state.store import StateStore, open_store
from aftershock.verdict import verdicts as judge_verdicts
from aftershock.verdict.model import Verdict, Verdicts

# The sentence `verdict.rationale` ends a review without gaps with; untrue of an incremental review.
_ALL_RENDERED = "Every affected chart was rendered and compared at both refs."


@dataclass(frozen=True)
class TargetState:
    """An open store, and the repository key and target the commands read and write in it."""

    store: StateStore
    repository: str
    target: ReviewTarget


@dataclass(frozen=True)
class _Subject:
    """What is about to be reviewed, known before the review runs."""

    base_sha: str
    head_sha: str
    config_hash: str
    started_at: datetime


def resolve_target(repo: GitRepository, head: str, explicit: str | None) -> ReviewTarget:
    """`--target` when given; else the branch HEAD is on, or the head ref as given, or (detached) its sha."""
    if explicit is not None:
        return ReviewTarget.parse(explicit)
    if head != "HEAD":
        return ReviewTarget.branch(head.removeprefix("refs/heads/"))
    try:
        return ReviewTarget.branch(
            repo.run("symbolic-ref", "--quiet", "--short", "HEAD").decode("utf-8").strip()
        )
    except GitError:
        return ReviewTarget.branch(repo.resolve("HEAD"))


def repository_key(repo: GitRepository) -> str:
    """`host/owner/name` of the origin remote, so every clone shares one key; else the folder."""
    try:
        url = repo.run("config", "--get", "remote.origin.url").decode("utf-8", "replace").strip()
    except GitError:
        url = None
    return normalize_repository(url, str(repo.root))


def ancestry(repo: GitRepository, last_head: str, head_sha: str) -> Ancestry:
    """How the last reviewed head relates to the new head in this repository."""
    try:
        repo.resolve(last_head)
    except GitError:
        return Ancestry.MISSING
    try:
        return (
            Ancestry.ANCESTOR
            if repo.merge_base(last_head, head_sha) == last_head
            else Ancestry.NOT_ANCESTOR
        )
    except GitError:
        return Ancestry.NOT_ANCESTOR


def config_hash(config: AftershockConfig, request: ReviewRequest, renderer: Renderer) -> str:
    """sha256 of the configuration's JSON and the options that change what a review finds."""
    document = {
        "config": plain(config),
        "review": {
            "release_name": request.release_name,
            "namespace": request.namespace,
            "kube_version": request.kube_version,
            "max_scenarios": request.max_scenarios,
            "renderer": renderer.name,
            "renderer_version": renderer.version,
        },
    }
    return hashlib.sha256(
        json.dumps(document, sort_keys=True, separators=(",", ":")).encode("utf-8")
    ).hexdigest()


@contextmanager
def open_target_state(
    repo_path: Path,
    location: str | None,
    target: str | None,
    *,
    head: str = "HEAD",
    lock_timeout_seconds: float = DEFAULT_LOCK_TIMEOUT_SECONDS,
) -> Iterator[TargetState]:
    """The store (migrated on open) with the repository key and the review target; closed afterwards."""
    repo = GitRepository.open(repo_path)
    resolved = resolve_target(repo, head, target)
    store = open_store(location, repo_root=repo.root, lock_timeout_seconds=lock_timeout_seconds)
    try:
        yield TargetState(store, repository_key(repo), resolved)
    finally:
        store.close()


def review_with_state(
    request: ReviewRequest,
    renderer: Renderer,
    callbacks: RenderCallbacks | None,
    options: StateOptions,
    beside_judge: Callable[[Review], None] | None = None,
) -> StatefulReview:
    """Review under the target's lock, full or incremental as decided, and record it (or its failure);
    `beside_judge` as `review_change` takes it."""
    repo = GitRepository.open(request.repo)
    head_sha = repo.resolve(request.head)
    base_sha = base_ref(repo, request, head_sha).sha
    subject = _Subject(
        base_sha, head_sha, _config_hash_at(repo, request, base_sha, renderer), datetime.now(UTC)
    )
    with open_target_state(
        request.repo,
        options.location,
        options.target,
        head=request.head,
        lock_timeout_seconds=options.lock_timeout_seconds,
    ) as state:
        with state.store.review_lock(state.repository, state.target):
            plan = _plan(state, repo, subject, options.requested)
            since = plan.since_sha if plan.mode is ReviewMode.INCREMENTAL else None
            try:
                result = review_change(
                    replace(request, since=since), renderer, callbacks, beside_judge=beside_judge
                )
            except (Exception, KeyboardInterrupt) as error:
                _record_failure(state, subject, plan, error)
                raise
            return _record(state, subject, plan, result)


def _config_hash_at(
    repo: GitRepository, request: ReviewRequest, base_sha: str, renderer: Renderer
) -> str:
    with RefSnapshot.open(
        repo, base_sha, f"base {base_sha[:7]}", request.max_file_bytes
    ) as base_tree:
        config, _ = review_config(request.config_file, base_tree)
    return config_hash(config, request, renderer)


def _plan(
    state: TargetState, repo: GitRepository, subject: _Subject, requested: RequestedMode
) -> ReviewPlan:
    last: ReviewSummary | None = state.store.latest_review(state.repository, state.target)
    relation = ancestry(repo, last.head_sha, subject.head_sha) if last is not None else None
    current = CurrentReview(subject.head_sha, subject.base_sha, subject.config_hash, __version__)
    plan = decide_review_mode(requested, last, current, relation)
    if last is None or not _starts_inside(repo, last, subject.base_sha):
        return plan
    return replace(
        plan,
        narrowed=True,
        reason=f"{plan.reason}; the range starts at {subject.base_sha[:7]}, after the last "
        f"review's base {last.base_sha[:7]}: findings of the commits before it are carried forward",
    )


def _starts_inside(repo: GitRepository, last: ReviewSummary, base_sha: str) -> bool:
    """Whether `base_sha` lies within the last review's range: past its base, up to its head."""
    return (
        base_sha != last.base_sha
        and ancestry(repo, last.base_sha, base_sha) is Ancestry.ANCESTOR
        and ancestry(repo, base_sha, last.head_sha) is Ancestry.ANCESTOR
    )


def presented_judgement(
    store: StateStore,
    repository: str,
    target: ReviewTarget,
    result: ReviewResult,
    since_sha: str | None,
) -> Judgement:
    """What a report of `result` raises: its findings and those carried forward from the last review,
    less the dismissed, and verdicts over exactly those (an incremental review says what it rendered);
    what it suppresses: this review's suppressed findings and those carried forward suppressed."""
    judgement = result.judgement
    preview = store.preview(
        repository,
        target,
        judgement.findings,
        result.scope or ReviewScope.whole_change(),
        suppressed_findings(judgement),
    )
    raised = raised_findings(judgement.findings, preview)
    judged = judge_verdicts(result.review, raised)
    if since_sha:
        judged = incremental_rationale(judged, result.review, since_sha)
    suppressed = judgement.suppressed + carried_suppressed(preview)
    return replace(judgement, findings=raised, verdicts=judged, suppressed=suppressed)


def _record(
    state: TargetState, subject: _Subject, plan: ReviewPlan, result: ReviewResult
) -> StatefulReview:
    if plan.narrowed:  # what the earlier commits did is not looked at again: carried, not resolved
        commits = frozenset(c.sha for c in result.review.commits)
        result = replace(result, scope=ReviewScope.only(frozenset(), frozenset(), commits))
    review, judgement = result.review, result.judgement
    scope = result.scope or ReviewScope.whole_change()
    since = plan.since_sha if plan.mode is ReviewMode.INCREMENTAL else None
    final = presented_judgement(state.store, state.repository, state.target, result, since)
    status = ReviewStatus.COMPLETE if review.complete else ReviewStatus.PARTIAL
    record = _base_record(state, subject, plan, status)
    hide = secret_taint(review).scrub_text  # findings are scrubbed already (pipeline.judge)
    record = replace(
        record,
        not_reviewed=tuple(
            UnreviewedPart(hide(n.part + (f" at {n.side.value}" if n.side else "")), hide(n.reason))
            for n in review.not_reviewed
        ),
        findings=judgement.findings,
        suppressed=suppressed_findings(judgement),
        verdicts=(
            StoredVerdict(
                "merge_risk",
                final.verdicts.merge.level.value,
                subject.head_sha,
                hide(final.verdicts.merge.rationale),
            ),
            StoredVerdict(
                "security_risk",
                final.verdicts.security.level.value,
                subject.head_sha,
                hide(final.verdicts.security.rationale),
            ),
        ),
        payloads={
            f.fingerprint: finding_document(f)
            for f in judgement.findings + tuple(s.finding for s in judgement.suppressed)
        },
    )
    recorded = state.store.record_review(record, scope)
    return StatefulReview(
        replace(result, judgement=final),
        state.target,
        plan,
        status,
        recorded.review_id,
        recorded.lifecycle,
    )


def _record_failure(
    state: TargetState, subject: _Subject, plan: ReviewPlan, error: BaseException
) -> None:
    """Record that the review did not run to the end; a failure to record does not hide the first error."""
    if isinstance(error, AftershockError):
        line = error.line()
    elif isinstance(error, KeyboardInterrupt):
        line = "interrupted"
    else:
        line = f"internal error: {type(error).__name__}: {error}"
    record = replace(
        _base_record(state, subject, plan, ReviewStatus.FAILED),
        not_reviewed=(UnreviewedPart("review", line),),
    )
    try:
        state.store.record_review(record)
    except AftershockError as record_error:
        error.add_note(f"recording the failed review failed too: {record_error.line()}")


def _base_record(
    state: TargetState, subject: _Subject, plan: ReviewPlan, status: ReviewStatus
) -> ReviewRecord:
    return ReviewRecord(
        repository=state.repository,
        target=state.target,
        base_sha=subject.base_sha,
        head_sha=subject.head_sha,
        status=status,
        aftershock_version=__version__,
        config_hash=subject.config_hash,
        started_at=subject.started_at,
        mode=plan.mode,
        since_sha=plan.since_sha if plan.mode is ReviewMode.INCREMENTAL else None,
    )


def incremental_rationale(verdicts: Verdicts, review: Review, since_sha: str) -> Verdicts:
    """Say what an incremental review rendered, instead of claiming every affected chart was."""
    rendered = {r.chart for r in review.chart_reviews}
    others = sum(a.chart not in rendered for a in review.affected)
    short = since_sha[:7]
    if rendered:
        sentence = (
            f"The charts changed since {short} were rendered and compared at both refs; "
            f"{others} other affected chart(s) were carried forward from the review of {short}."
        )
    else:
        sentence = f"Nothing was rendered again: all {others} affected chart(s) were carried forward from the review of {short}."

    def reworded(verdict: Verdict) -> Verdict:
        return replace(verdict, rationale=verdict.rationale.replace(_ALL_RENDERED, sentence))

    return replace(verdicts, merge=reworded(verdicts.merge), security=reworded(verdicts.security))
