"""Rule flux-remediation-weakened: a HelmRelease or Kustomization retries, waits or tests less."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, dig
from aftershock.rules.support.flux import is_helm_release, is_kustomization


def _retries(spec: Mapping[str, Any], phase: str) -> int:
    value = dig(spec, phase, "remediation", "retries")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _remediate_last(spec: Mapping[str, Any]) -> bool:
    value = dig(spec, "upgrade", "remediation", "remediateLastFailure")
    return value if isinstance(value, bool) else _retries(spec, "upgrade") > 0  # Flux's default


def helm_release_settings(spec: Mapping[str, Any]) -> dict[str, tuple[Any, bool]]:
    """setting -> (value, safe?) for each remediation setting of a HelmRelease spec."""
    return {
        "install.remediation.retries": (_retries(spec, "install"), True),
        "upgrade.remediation.retries": (_retries(spec, "upgrade"), True),
        "upgrade.remediation.remediateLastFailure": (_remediate_last(spec), _remediate_last(spec)),
        "install.disableWait": (
            dig(spec, "install", "disableWait") is True,
            dig(spec, "install", "disableWait") is not True,
        ),
        "upgrade.disableWait": (
            dig(spec, "upgrade", "disableWait") is True,
            dig(spec, "upgrade", "disableWait") is not True,
        ),
        "test.enable": (dig(spec, "test", "enable") is True, dig(spec, "test", "enable") is True),
        "test.ignoreFailures": (
            dig(spec, "test", "ignoreFailures") is True,
            dig(spec, "test", "ignoreFailures") is not True,
        ),
    }


def _weakened_helm_release(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> Iterator[tuple[str, str]]:
    old, new = helm_release_settings(before), helm_release_settings(after)
    for setting in old:
        (was, was_safe), (now, now_safe) = old[setting], new[setting]
        if setting.endswith("retries") and now < was:
            yield setting, f"{setting} goes from {was} to {now}"
        elif not setting.endswith("retries") and was_safe and not now_safe:
            yield setting, f"{setting} goes from {str(was).lower()} to {str(now).lower()}"


def _weakened_kustomization(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> Iterator[tuple[str, str]]:
    if before.get("wait") is True and after.get("wait") is not True:
        yield (
            "wait",
            "wait goes from true to false: readiness of the applied objects is no longer checked",
        )
    old = {str(sorted(as_map(c).items())) for c in as_list(before.get("healthChecks"))}
    new = {str(sorted(as_map(c).items())) for c in as_list(after.get("healthChecks"))}
    if old - new:
        yield "healthChecks", f"{len(old - new)} health check(s) removed"


def _weakenings(before: RenderedObject, after: RenderedObject) -> Iterator[tuple[str, str]]:
    old, new = as_map(before.body.get("spec")), as_map(after.body.get("spec"))
    if is_helm_release(after):
        yield from _weakened_helm_release(old, new)
    elif is_kustomization(after):
        yield from _weakened_kustomization(old, new)


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.base is None or pair.head is None or pair.change is None:
            continue
        for setting, description in _weakenings(pair.base, pair.head):
            yield Concern(
                subject=pair.subject(setting),
                delta=Delta.INTRODUCED,
                message=f"{pair.display}: {description}",
                location=ctx.index.locate_object(
                    pair, tuple(setting.split(".")[::-1]), in_change=True
                ),
                path=pair.impact_path(f"spec.{setting}", "weakens"),
                facts=(Fact("setting", setting), Fact("change", description)),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="flux-remediation-weakened",
    title="Flux remediation weakened",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="HelmReleases whose install or upgrade `remediation.retries` decreases, whose effective "
        "`upgrade.remediation.remediateLastFailure` (Flux defaults it to true when retries > 0) turns false, "
        "that start disabling waits (`install/upgrade.disableWait`), stop running tests (`test.enable`) or "
        "start ignoring test failures (`test.ignoreFailures`); Kustomizations that stop waiting (`wait`) or "
        "lose health checks.",
        why="These settings are what turns a bad release into an automatic rollback; weakening them means the "
        "next failed upgrade stays half-applied in production until someone notices.",
        example="    upgrade:\n      remediation:\n    -   retries: 3\n    +   retries: 0",
        fix="Keep the remediation; if a flaky test or a slow hook motivated the change, fix that instead.",
    ),
)
