"""What a repository shows of its own commit conventions at the base ref, for the hygiene rules."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommitConventions:
    """Commit-message tooling configured at base (commitlint, commitizen) and the titles of the last
    commits up to base, so a convention is checked only where the repository keeps it."""

    config_files: tuple[
        str, ...
    ] = ()  # repository paths that configure a commit-message convention
    recent_titles: tuple[
        str, ...
    ] = ()  # titles of the last non-merge commits up to base, newest first
    # The contributing guide (path, and the sentence) that asks for one commit per change, if any.
    squash_asked: tuple[str, str] | None = None
