"""Rule flux-timeout-shortened: a HelmRelease or Kustomization gets less time to become ready."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig, text
from aftershock.rules.support.flux import duration_seconds, is_helm_release, is_kustomization

HELM_RELEASE_DEFAULT = 300.0  # Flux: spec.timeout defaults to 5m0s
PHASES = ("install", "upgrade", "rollback", "uninstall", "test")


def timeouts(spec: Mapping[str, Any], helm_release: bool) -> dict[str, float | None]:
    default = HELM_RELEASE_DEFAULT if helm_release else duration_seconds(spec.get("interval"))
    main = duration_seconds(spec.get("timeout"))
    main = main if main is not None else default
    found: dict[str, float | None] = {"timeout": main}
    if helm_release:
        for phase in PHASES:
            own = duration_seconds(dig(spec, phase, "timeout"))
            found[f"{phase}.timeout"] = own if own is not None else main
    return found


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.base is None or pair.head is None or pair.change is None:
            continue
        helm_release = is_helm_release(pair.head)
        if not (helm_release or is_kustomization(pair.head)):
            continue
        old_spec, new_spec = as_map(pair.base.body.get("spec")), as_map(pair.head.body.get("spec"))
        old, new = timeouts(old_spec, helm_release), timeouts(new_spec, helm_release)
        shortened = [
            k
            for k, before in old.items()
            if before is not None and (after := new.get(k)) is not None and after < before
        ]
        if shortened:
            parts = [f"{k} {_show(old[k])} → {_show(new[k])}" for k in shortened]
            yield Concern(
                subject=pair.subject("timeout"),
                delta=Delta.INTRODUCED,
                message=f"{pair.display}: shorter timeouts ({', '.join(parts)}); slow installs or upgrades now fail and remediate",
                location=ctx.index.locate_object(pair, ("timeout",), in_change=True),
                path=pair.impact_path("spec.timeout", "shortens"),
                facts=(
                    Fact("shortened", parts),
                    Fact("head_timeout", text(new_spec.get("timeout"))),
                ),
                scope_paths=pair.scope_paths,
            )


def _show(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{int(seconds // 60)}m"
    return f"{seconds:g}s"


RULE = Rule(
    id="flux-timeout-shortened",
    title="Flux timeout shortened",
    category=Category.RELIABILITY,
    severity=Severity.LOW,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="HelmReleases whose effective `spec.timeout` (default 5m) or install/upgrade/rollback/uninstall/test "
        "timeout (default: spec.timeout) decreases, and Kustomizations whose `spec.timeout` (default: the "
        "interval) decreases. Medium confidence: whether the new timeout is too short depends on how long the "
        "release really takes.",
        why="Helm waits up to the timeout for hooks and for workloads to become ready; a shorter timeout turns a "
        "slow but healthy rollout (image pulls, migrations, PodDisruptionBudgets) into a failure, a rollback or "
        "an uninstall.",
        example="    spec:\n    - timeout: 15m\n    + timeout: 2m",
        fix="Measure the release's real install and upgrade times (Flux events show them) and keep the timeout "
        "comfortably above them.",
    ),
)
