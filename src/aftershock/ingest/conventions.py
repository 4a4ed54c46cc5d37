"""Reading a repository's commit conventions at base: commit-message tool configuration and recent titles."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from aftershock.ingest.repository.git import GitRepository
from aftershock.model.conventions import CommitConventions

RECENT_COMMITS = 100
# Files whose presence configures a commit-message convention (commitlint, commitizen).
CONFIG_FILES = (
    ".commitlintrc",
    ".commitlintrc.json",
    ".commitlintrc.yaml",
    ".commitlintrc.yml",
    ".commitlintrc.js",
    ".commitlintrc.cjs",
    ".commitlintrc.mjs",
    ".commitlintrc.ts",
    "commitlint.config.js",
    "commitlint.config.cjs",
    "commitlint.config.mjs",
    "commitlint.config.ts",
    ".czrc",
    ".cz.json",
    ".cz.toml",
    ".cz.yaml",
    "cz.json",
    "cz.toml",
)

CONTRIBUTING_FILES = (
    "CONTRIBUTING.md",
    ".github/CONTRIBUTING.md",
    "docs/CONTRIBUTING.md",
    "docs/contributing.md",
    "CONTRIBUTING.rst",
    "CONTRIBUTING",
)
# A sentence of a contributing guide asking for squashed commits or one commit per change.
SQUASH_SENTENCE = re.compile(
    r"[^.\n]*(?:\bsquash(?:ed|ing)?\b[^.\n]*\bcommits?\b|\bone commit per\b|\bsingle commit\b)[^.\n]*",
    re.IGNORECASE,
)


def commit_conventions(
    repo: GitRepository, base_sha: str, read: Callable[[str], str | None]
) -> CommitConventions:
    """The convention files present at base and the titles of the last RECENT_COMMITS non-merge commits up to it."""
    found = [path for path in CONFIG_FILES if read(path) is not None]
    if _package_json_configures(read("package.json")):
        found.append("package.json")
    if "[tool.commitizen]" in (read("pyproject.toml") or ""):
        found.append("pyproject.toml")
    log = repo.run("log", "--no-merges", f"-n{RECENT_COMMITS}", "--format=%s", base_sha)
    titles = tuple(line for line in log.decode("utf-8", "replace").split("\n") if line)
    return CommitConventions(tuple(found), titles, squash_asked(read))


def squash_asked(read: Callable[[str], str | None]) -> tuple[str, str] | None:
    """The first contributing guide that asks for squashed commits, with the sentence that asks."""
    for path in CONTRIBUTING_FILES:
        text = read(path)
        match = SQUASH_SENTENCE.search(text or "")
        if match is not None:
            return path, " ".join(match.group(0).split())[:200]
    return None


def _package_json_configures(text: str | None) -> bool:
    """A `commitlint` key, or commitizen under `config`, in package.json."""
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    config = data.get("config")
    return "commitlint" in data or (isinstance(config, dict) and "commitizen" in config)
