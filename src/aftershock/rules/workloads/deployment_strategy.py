"""Rule deployment-strategy-recreate: switching a Deployment to Recreate that existing releases reject."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if (
            pair.base is None
            or pair.head is None
            or pair.key.group != "apps"
            or pair.key.kind != "Deployment"
        ):
            continue
        before = dig(pair.base.body, "spec", "strategy", "type") or "RollingUpdate"
        strategy = as_map(dig(pair.head.body, "spec", "strategy"))
        if before == "Recreate" or strategy.get("type") != "Recreate":
            continue
        if "rollingUpdate" in strategy and strategy["rollingUpdate"] is None:
            continue  # an explicit null clears the live object's rollingUpdate
        yield Concern(
            subject=pair.subject("strategy"),
            delta=Delta.INTRODUCED,
            message=f"{pair.display}: the strategy changes from {before} to Recreate; upgrading an existing release "
            'fails with "spec.strategy.rollingUpdate: Forbidden" because the live object keeps its defaulted '
            "rollingUpdate",
            location=ctx.index.locate_object(pair, ("Recreate", "strategy"), in_change=True),
            path=pair.impact_path("spec.strategy.type", "changes"),
            facts=(Fact("from", before), Fact("to", "Recreate")),
            scope_paths=pair.scope_paths,
        )


RULE = Rule(
    id="deployment-strategy-recreate",
    title="Deployment switched to Recreate",
    category=Category.RELIABILITY,
    severity=Severity.HIGH,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Deployments whose `spec.strategy.type` changes from RollingUpdate (or unset) to Recreate without "
        "`rollingUpdate: null` in the head manifest.",
        why="The API server defaulted `spec.strategy.rollingUpdate` on the live object. Helm's three-way merge "
        "patch sets `type: Recreate` but leaves that field, and validation rejects the result, so `helm "
        "upgrade` fails on every existing release while fresh installs work. Confidence is medium because a "
        "server-side apply with a field manager that owns rollingUpdate may clear it.",
        example="    spec:\n      strategy:\n        type: Recreate",
        fix="Render `rollingUpdate: null` next to `type: Recreate` for the upgrade, or delete and recreate the "
        "Deployment in a planned step.",
    ),
)
