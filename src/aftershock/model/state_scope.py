"""What a review examined again, so a finding it did not look at is carried forward, not called resolved (pure).

Subjects follow `aftershock.findings.model.SubjectKind`: an object id is `<chart>::<object>`, a
values key `<values file>#<path>`, a file its repository path, a commit its sha, a chart its path.
"""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.model.state_records import StoredFinding


@dataclass(frozen=True)
class ReviewScope:
    """Either the whole change (`whole`) or only some charts, files and commits, less `skipped_charts`.

    A full review that could not render some charts is `ReviewScope.whole_change(skipped)`; an
    incremental one is `ReviewScope.only(charts affected since the last head, those files, new commits)`.
    """

    whole: bool
    charts: frozenset[str] = frozenset()
    files: frozenset[str] = frozenset()
    commits: frozenset[str] = frozenset()
    skipped_charts: frozenset[str] = frozenset()

    @classmethod
    def whole_change(cls, skipped_charts: frozenset[str] = frozenset()) -> ReviewScope:
        return cls(True, skipped_charts=skipped_charts)

    @classmethod
    def only(
        cls,
        charts: frozenset[str],
        files: frozenset[str],
        commits: frozenset[str],
        skipped_charts: frozenset[str] = frozenset(),
    ) -> ReviewScope:
        return cls(False, charts, files, commits, skipped_charts)

    def covers(self, finding: StoredFinding) -> bool:
        """True when this review looked at the finding's subject again, so its absence means resolved."""
        chart = _chart_of(finding, self.charts | self.skipped_charts)
        if chart is not None and chart in self.skipped_charts:
            return False
        if self.whole:
            return True
        match finding.subject_kind:
            case "object" | "chart" | "values_key":
                in_chart = chart is not None and chart in self.charts
                return in_chart or finding.subject_id.split("#", 1)[0] in self.files
            case "file":
                return finding.subject_id in self.files
            case "commit":
                return finding.subject_id in self.commits
        return False  # an unknown kind of subject: never claim it resolved


def _chart_of(finding: StoredFinding, charts: frozenset[str]) -> str | None:
    """The chart a finding is about: named in object and chart ids, the deepest holding a values file."""
    match finding.subject_kind:
        case "object":
            return finding.subject_id.split("::", 1)[0]
        case "chart":
            return finding.subject_id
        case "values_key":
            file = finding.subject_id.split("#", 1)[0]
            holders = [c for c in charts if c == "" or file.startswith(c.rstrip("/") + "/")]
            return max(holders, key=len) if holders else None
    return None
