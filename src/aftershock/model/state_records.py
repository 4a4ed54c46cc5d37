"""What the state store keeps and returns: review targets, review records, stored findings and verdicts,
and the suppressions the repository applied to findings.

The store depends on findings only through `FindingLike` (satisfied by
`aftershock.findings.model.Finding`), and keeps a flat `StoredFinding` copy of each, so a
finding that disappears later can still be reported as resolved.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, assert_never

from aftershock.model.errors import ConfigError


class TargetKind(str, enum.Enum):
    PULL_REQUEST = "pr"
    BRANCH = "branch"


@dataclass(frozen=True)
class ReviewTarget:
    """What is reviewed again and again: a pull request (by number) or a branch (by name)."""

    kind: TargetKind
    name: str

    @classmethod
    def pull_request(cls, number: int) -> ReviewTarget:
        return cls(TargetKind.PULL_REQUEST, str(number))

    @classmethod
    def branch(cls, name: str) -> ReviewTarget:
        return cls(TargetKind.BRANCH, name)

    @classmethod
    def parse(cls, text: str) -> ReviewTarget:
        """`12`, `#12` or `pr:12` name a pull request; `branch:x` or any other text names a branch."""
        stripped = text.strip()
        if match := re.fullmatch(r"(?:pr:|#)?(\d+)", stripped):
            return cls.pull_request(int(match.group(1)))
        name = stripped.removeprefix("branch:")
        if not name:
            raise ConfigError(
                "empty review target", hint="pass a pull-request number or a branch name"
            )
        return cls.branch(name)

    def __str__(self) -> str:
        match self.kind:
            case TargetKind.PULL_REQUEST:
                return f"PR #{self.name}"
            case TargetKind.BRANCH:
                return f"branch {self.name}"
        assert_never(self.kind)


class ReviewStatus(str, enum.Enum):
    COMPLETE = "complete"
    PARTIAL = "partial"  # some parts were not reviewed; they are listed
    FAILED = "failed"  # the review did not run to the end; nothing it found is kept


class ReviewMode(str, enum.Enum):
    FULL = "full"  # base..head reviewed again as a whole
    INCREMENTAL = (
        "incremental"  # only what changed since the last reviewed head; the rest carried forward
    )


class _EnumLike(Protocol):
    """An enum member, as far as the store cares: its value."""

    @property
    def value(self) -> str: ...


class _SubjectLike(Protocol):
    @property
    def kind(self) -> _EnumLike: ...

    @property
    def id(self) -> str: ...

    @property
    def display(self) -> str: ...


class FindingLike(Protocol):
    """The parts of a finding the store keeps; `aftershock.findings.model.Finding` has them all."""

    @property
    def fingerprint(self) -> str: ...

    @property
    def evidence_digest(self) -> str: ...

    @property
    def rule_id(self) -> str: ...

    @property
    def severity(self) -> _EnumLike: ...

    @property
    def title(self) -> str: ...

    @property
    def subject(self) -> _SubjectLike: ...

    @property
    def message(self) -> str: ...

    @property
    def actionable(self) -> bool: ...


@dataclass(frozen=True)
class StoredFinding:
    """A finding as the store keeps it. `payload` is the finding's JSON document, when the caller gave one."""

    fingerprint: str
    evidence_digest: str
    rule_id: str
    severity: str
    title: str
    subject_kind: str
    subject_id: str
    subject_display: str
    message: str
    actionable: bool = True
    payload: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)


def stored_finding(
    finding: FindingLike | StoredFinding, payload: Mapping[str, Any] | None = None
) -> StoredFinding:
    """The flat copy of `finding` that the store keeps."""
    if isinstance(finding, StoredFinding):
        return finding
    return StoredFinding(
        fingerprint=finding.fingerprint,
        evidence_digest=finding.evidence_digest,
        rule_id=finding.rule_id,
        severity=finding.severity.value,
        title=finding.title,
        subject_kind=finding.subject.kind.value,
        subject_id=finding.subject.id,
        subject_display=finding.subject.display,
        message=finding.message,
        actionable=finding.actionable,
        payload=payload,
    )


@dataclass(frozen=True)
class Suppression:
    """Why the repository silences a finding: an `aftershock.io/ignore` annotation or its dismissals
    file, read at the base ref (`aftershock.findings.suppressions`)."""

    reason: str
    source: str  # "annotation aftershock.io/ignore at base", "dismissals file, by ops"


@dataclass(frozen=True)
class SuppressedFinding:
    """A finding the review found and the repository silenced: not raised, never resolved by it."""

    finding: FindingLike | StoredFinding
    suppression: Suppression

    @property
    def fingerprint(self) -> str:
        return self.finding.fingerprint


@dataclass(frozen=True)
class StoredVerdict:
    """One verdict of a review, e.g. kind "merge_risk", level "low", up to the head sha."""

    kind: str
    level: str
    up_to_sha: str
    rationale: str = ""
    payload: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True)
class UnreviewedPart:
    """A part of the change the review could not cover, and why (from `model.review.NotReviewed`)."""

    part: str
    reason: str


@dataclass(frozen=True)
class ReviewRecord:
    """One finished (or failed) review of a target, as the pipeline hands it to the store.

    `findings` are the current findings (FindingLike or StoredFinding), `suppressed` those the
    repository silenced; `payloads` optionally maps a fingerprint to the finding's JSON document.
    A FAILED review's findings are ignored.
    """

    repository: str
    target: ReviewTarget
    base_sha: str
    head_sha: str
    status: ReviewStatus
    aftershock_version: str
    config_hash: str
    started_at: datetime
    mode: ReviewMode = ReviewMode.FULL
    since_sha: str | None = None  # the head an incremental review started from
    not_reviewed: tuple[UnreviewedPart, ...] = ()
    findings: tuple[FindingLike | StoredFinding, ...] = ()
    suppressed: tuple[SuppressedFinding, ...] = ()
    verdicts: tuple[StoredVerdict, ...] = ()
    payloads: Mapping[str, Mapping[str, Any]] = field(
        default_factory=dict, compare=False, hash=False
    )


@dataclass(frozen=True)
class Decision:
    """A dismissal (reason, by, at, and the evidence it was made on) or a reopening of a fingerprint."""

    fingerprint: str
    dismissed: bool
    reason: str
    by: str
    at: datetime
    evidence_digest: str


@dataclass(frozen=True)
class ReviewSummary:
    """One past review of a target, for `aftershock history` and for choosing the next review's mode."""

    id: int
    repository: str
    target: ReviewTarget
    base_sha: str
    head_sha: str
    status: ReviewStatus
    mode: ReviewMode
    since_sha: str | None
    aftershock_version: str
    config_hash: str
    started_at: datetime
    recorded_at: datetime
    not_reviewed: tuple[UnreviewedPart, ...]
    counts: Mapping[str, int]  # lifecycle state value -> number of findings
    verdicts: tuple[StoredVerdict, ...]


def normalize_repository(remote_url: str | None, root: str) -> str:
    """A stable repository key: `host/owner/name` from the remote URL when there is one, else `root`.

    `git@github.com:org/repo.git`, `https://user@github.com/org/repo` and `ssh://git@github.com/org/repo`
    all give `github.com/org/repo`, so one shared database keys every clone of a repository alike.
    """
    if not remote_url:
        return root
    url = remote_url.strip()
    if (match := re.fullmatch(r"[\w.-]+@([\w.-]+):(.+)", url)) or (
        match := re.fullmatch(r"[a-z+]+://(?:[^@/]+@)?([^/:]+)(?::\d+)?/(.+)", url)
    ):  # scp-like syntax
        host, path = match.groups()
    else:
        return url
    return f"{host.lower()}/{path.strip('/').removesuffix('.git')}"
