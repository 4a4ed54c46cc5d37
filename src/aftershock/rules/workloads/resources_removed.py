"""Rule resources-removed: the change removes CPU or memory requests or limits."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig

ENTRIES = (("requests", "memory"), ("requests", "cpu"), ("limits", "memory"), ("limits", "cpu"))


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair, container, kept in ctx.index.kept_containers():
        gone = [
            f"{kind}.{name}"
            for kind, name in ENTRIES
            if dig(container.body, "resources", kind, name) is not None
            and dig(kept.body, "resources", kind, name) is None
        ]
        if not gone:
            continue
        memory = any(entry.endswith("memory") for entry in gone)
        field = kept.path("resources")
        yield Concern(
            subject=pair.subject(container.label),
            delta=Delta.INTRODUCED,
            message=f"{pair.display}: the change removes resources {', '.join(gone)} of {container.label}",
            severity=Severity.MEDIUM if memory else None,
            location=ctx.index.locate_object(
                pair, ("resources", "requests", "limits", "memory", "cpu"), in_change=True
            ),
            path=pair.impact_path(field, "removes"),
            facts=(Fact("removed", gone), Fact("was", as_map(container.body.get("resources")))),
            scope_paths=pair.scope_paths,
        )


RULE = Rule(
    id="resources-removed",
    title="Resource requests or limits removed",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Containers that had `resources.requests` or `resources.limits` for cpu or memory at base and lose "
        "any of them at head. Losing a memory entry is graded medium.",
        why="Without requests the scheduler packs the pod anywhere and it is evicted first under pressure; "
        "without a memory limit one leak can push the node into out-of-memory kills of its neighbours.",
        example="    resources:\n    -   requests:\n    -     memory: 256Mi",
        fix="Keep requests sized from observed usage, and a memory limit; a LimitRange can give defaults.",
    ),
)
