"""Commit subjects and impact paths for hygiene rules."""

from __future__ import annotations

from aftershock.findings.model import PathStep, Subject, SubjectKind
from aftershock.model.change import Commit


def commit_subject(commit: Commit, facet: str = "") -> Subject:
    return Subject(
        SubjectKind.COMMIT, commit.sha, f'commit {commit.short_sha} "{commit.title}"', facet
    )


def commit_path(commit: Commit) -> tuple[PathStep, ...]:
    return (PathStep("commit", commit.sha, "in the range"),)


def is_merge(commit: Commit) -> bool:
    return len(commit.parents) > 1
