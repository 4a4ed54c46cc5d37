"""What a verdict could not verify, and the floor an unrendered chart bump puts under it.

A part not reviewed says nothing of the change's consequences, so it does not raise the level: it
lowers the confidence, shown on the verdict line ("partly verified (2 parts)"). Two exceptions
raise the level, each from what was observed:
- a chart or template that renders at base and fails at head (the change breaks rendering): High,
  in `levels`;
- a chart whose version the change bumps and that could not be rendered (an archive not at hand):
  the bump itself is the observation, so the merge level is at least Low for a patch or digest-only
  bump, Medium for a minor, High for a major one. The security level takes that floor only where
  something rendered touches the security surface.
Context gaps (`NotReviewed.context`: a part failing alike at both refs that the change reaches only
through `lookup`, or a build whose edited files render elsewhere) count in neither.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from aftershock.findings.model import RULE_ERROR_ID, Finding
from aftershock.model.diff import VERSION_FIELDS
from aftershock.model.review import NotReviewed, Review
from aftershock.verdict.model import RiskLevel

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$")
_DIGEST = re.compile(r"(?:^|@)sha256:[0-9a-f]{12,}$")


def unverified_parts(review: Review, findings: Sequence[Finding]) -> tuple[str, ...]:
    """The parts of the change that could not be verified (context gaps aside), and the rules that
    could not run."""
    gaps = [_shown(gap) for gap in review.not_reviewed if not gap.context]
    gaps += [f"{f.subject.display} could not run" for f in findings if f.rule_id == RULE_ERROR_ID]
    return tuple(dict.fromkeys(gaps))


def _shown(gap: NotReviewed) -> str:
    return f"{gap.part} ({gap.side.value if gap.side else 'both refs'})"


def bump_floors(review: Review) -> list[tuple[RiskLevel, str]]:
    """A floor for each chart bump that names a part not reviewed, by the kind of bump."""
    gaps = [gap.part for gap in review.not_reviewed if not gap.context]
    floors = []
    for name, before, after in _bumps(review):
        named = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])")
        if any(named.search(part) for part in gaps):
            level, kind = bump_level(before, after)
            floors.append((level, f"{name} bumped {before} → {after} ({kind}) was not rendered"))
    return floors


def bump_level(before: str, after: str) -> tuple[RiskLevel, str]:
    """The floor of a version change: major High, minor Medium, patch or digest-only Low; a change
    that is not two versions is taken as a major one (nothing says it is small)."""
    if _DIGEST.search(before) and _DIGEST.search(after):
        return RiskLevel.LOW, "digest"
    old, new = _VERSION.match(before.strip()), _VERSION.match(after.strip())
    if old is None or new is None:
        return RiskLevel.HIGH, "not a version"
    if old.group(1) != new.group(1):
        return RiskLevel.HIGH, "major"
    if (old.group(2) or "0") != (new.group(2) or "0"):
        return RiskLevel.MEDIUM, "minor"
    return RiskLevel.LOW, "patch"


def _bumps(review: Review) -> Iterator[tuple[str, str, str]]:
    """(name, before, after) of each version the change bumps: a chart's dependency, or the
    version field of an object a release reads (its name)."""
    base = {c.path: c for c in review.base_charts}
    for chart in review.charts:
        old = base.get(chart.path)
        if old is None:
            continue
        before = {d.name: d.version for d in old.dependencies}
        for dep in chart.dependencies:
            if dep.name in before and before[dep.name] != dep.version:
                yield dep.name, str(before[dep.name]), str(dep.version)
    for chart_review in review.chart_reviews:
        for change in chart_review.changes:
            for field in change.fields:
                last = field.path.rsplit(".", 1)[-1]
                if last in VERSION_FIELDS and _texts(field.before, field.after):
                    yield change.key.name, str(field.before), str(field.after)


def _texts(*values: object) -> bool:
    return all(isinstance(v, str) and v for v in values)
