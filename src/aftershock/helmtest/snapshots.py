"""Snapshot files of helm-unittest suites: `__snapshot__/<suite file>.snap` beside the suite.

A file maps each test name to its numbered snapshots (the n-th `matchSnapshot` comparison of the
test), each the yaml.v3 text of the compared value. A value is compared with the stored text;
a missing entry passes, as upstream, and is counted as created, but the file is only written
when the run was asked to update snapshots: a review never rewrites a repository's snapshots.
The file must stay inside `__snapshot__` beside its suite (a `snapshotId` cannot climb out of it)
and inside the run's sandbox, for reads and writes alike (aftershock.safety.sandbox).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from aftershock.gocompat.goregex import GoRegexError, compile_go
from aftershock.gocompat.goyaml import GoYamlError, load_first
from aftershock.helmtest.assertions.common import SnapshotAnswer
from aftershock.helmtest.goyaml_emit import marshal, trusted_marshal
from aftershock.model.test_results import SnapshotCounts
from aftershock.safety.sandbox import Sandbox, SandboxError

if TYPE_CHECKING:
    from aftershock.helmtest.suite import TestSuite


class SnapshotFileError(ValueError):
    """A snapshot file that is not a map of test names to numbered texts."""


def read_snapshot_file(path: Path) -> dict[str, dict[int, str]]:
    """The stored snapshots; {} when the file does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        loaded = load_first(text)
    except GoYamlError as exc:
        raise SnapshotFileError(str(exc)) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise SnapshotFileError(f"yaml: unmarshal errors: {path.name} is not a map")
    stored: dict[str, dict[int, str]] = {}
    for test, entries in loaded.items():
        if not isinstance(entries, dict):
            raise SnapshotFileError(f"yaml: unmarshal errors: entry {test!r} is not a map")
        stored[str(test)] = {
            int(index): str(snapshot)
            for index, snapshot in entries.items()
            if isinstance(index, int) and not isinstance(index, bool)
        }
    return stored


def snapshot_path(suite: TestSuite, sandbox: Sandbox) -> Path:
    """The suite's snapshot file, resolved; SandboxError when it leaves `__snapshot__` or the sandbox."""
    folder = Path(suite.file).parent / "__snapshot__"
    path = suite.snapshot_file
    if path.parent != folder:  # e.g. snapshotId "/../../x"
        raise SandboxError(
            f"snapshot file {path.name!r} (snapshotId {suite.snapshot_id!r}) leaves {folder}: refused"
        )
    resolved = sandbox.resolve(path)
    Sandbox.at(sandbox.resolve(folder)).resolve(resolved)  # __snapshot__ itself may be a link
    return resolved


class SnapshotStore:
    """One suite's snapshot file during a run (snapshot.Cache): comparisons and their counts."""

    def __init__(self, path: Path, updating: bool = False, sandbox: Sandbox | None = None) -> None:
        self.path = path
        self.sandbox = sandbox or Sandbox.at(path.parent)
        self.updating = updating
        self.cached = read_snapshot_file(path)
        self.current: dict[str, dict[int, str]] = {}
        self.compared = self.created = self.mismatched = 0

    def for_test(self, test_name: str) -> JobSnapshots:
        return JobSnapshots(self, test_name)

    def compare(
        self, test: str, index: int, content: Any, match_pattern: str, not_match_pattern: str
    ) -> SnapshotAnswer:
        self.compared += 1
        cached = self.cached.get(test, {}).get(index)
        if cached is None:
            self.created += 1
        new = trusted_marshal(content)
        matched, message = True, ""
        if match_pattern or not_match_pattern:
            matched, message = _pattern_check(new, match_pattern, not_match_pattern)
        elif cached is not None and new != cached:
            matched = False
            self.mismatched += 1
        keep = new if self.updating or cached is None else cached
        self.current.setdefault(test, {})[index] = keep
        return SnapshotAnswer(self.updating or matched, index, cached or "", new, message)

    def vanished(self) -> int:
        return sum(
            1
            for test, entries in self.cached.items()
            for index in entries
            if index not in self.current.get(test, {})
        )

    def counts(self) -> SnapshotCounts:
        failed = 0 if self.updating else self.mismatched
        return SnapshotCounts(self.compared, failed, self.created, self.vanished())

    def write_if_updating(self) -> bool:
        """With update on, store the snapshots as helm-unittest would; whether it wrote."""
        changed = self.mismatched or self.created or self.vanished()
        if not self.updating or not changed:
            return False
        self.sandbox.write_text(self.path, marshal(self.current))
        return True


def _pattern_check(snapshot: str, match_pattern: str, not_match_pattern: str) -> tuple[bool, str]:
    matched, message = True, ""
    if match_pattern:
        matched = _search(match_pattern, snapshot)
        if not matched:
            message = f" pattern '{match_pattern}' not found in snapshot"
    if not_match_pattern and matched and _search(not_match_pattern, snapshot):
        matched, message = False, f" pattern '{not_match_pattern}' should not be in snapshot"
    return matched, message


def _search(pattern: str, text: str) -> bool:
    try:
        return compile_go(pattern).search(text)
    except GoRegexError:
        return False


class JobSnapshots:
    """orderedSnapshotComparer: numbers one test's comparisons 1, 2, 3..."""

    def __init__(self, store: SnapshotStore, test_name: str) -> None:
        self.store = store
        self.test_name = test_name
        self.counter = 0

    def compare(self, content: Any, match_pattern: str, not_match_pattern: str) -> SnapshotAnswer:
        self.counter += 1
        return self.store.compare(
            self.test_name, self.counter, content, match_pattern, not_match_pattern
        )
