"""Rule deprecated-api: objects use an apiVersion deprecated or removed at the target Kubernetes version."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.apis import DEPRECATION_GUIDE, retirement
from aftershock.rules.support.judge import Issue, judge_objects
from aftershock.rules.support.versions import version_text


def issues(obj: RenderedObject, ctx: RuleContext) -> Iterator[Issue]:
    found = retirement(obj.api_version, obj.key.kind)
    if found is None or ctx.kube_version < found.deprecated:
        return
    target = version_text(ctx.kube_version)
    if found.removed is not None and ctx.kube_version >= found.removed:
        yield Issue(
            facet="apiVersion",
            message=f"uses {obj.api_version}, removed in Kubernetes {version_text(found.removed)}: "
            f"it cannot be installed on {target} (use {found.replacement})",
            field="apiVersion",
            tokens=(obj.api_version, "apiVersion"),
            grade=2,
            facts=(
                Fact("api_version", obj.api_version),
                Fact("removed", version_text(found.removed)),
            ),
            summary=f"{obj.api_version} (removed)",
        )
        return
    removal = f", removed in {version_text(found.removed)}" if found.removed else ""
    yield Issue(
        facet="apiVersion",
        message=f"uses {obj.api_version}, deprecated since Kubernetes {version_text(found.deprecated)}{removal} "
        f"(use {found.replacement})",
        field="apiVersion",
        tokens=(obj.api_version, "apiVersion"),
        grade=1,
        severity=Severity.LOW,
        facts=(
            Fact("api_version", obj.api_version),
            Fact("deprecated", version_text(found.deprecated)),
        ),
        summary=f"{obj.api_version} (deprecated)",
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    return judge_objects(ctx, issues)


RULE = Rule(
    id="deprecated-api",
    title="Deprecated or removed apiVersion",
    category=Category.COMPATIBILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(DEPRECATION_GUIDE,),
    doc=RuleDoc(
        what="Rendered objects whose apiVersion and kind appear in the Kubernetes deprecated API migration guide: "
        "removed at or before the target version (high: the API server has no such type) or deprecated at the "
        "target version (low). The target is `kubernetes_version` in .aftershock.yaml, else the review's "
        "`--kube-version`, else the newest version aftershock knows.",
        why="Helm renders whatever apiVersion the template says; on a cluster that no longer serves it, "
        '`helm upgrade` fails with "no matches for kind", and releases that still hold the old manifest '
        "cannot even be upgraded to the fixed chart without mapkubeapis.",
        example="    apiVersion: policy/v1beta1\n    kind: PodDisruptionBudget",
        fix="Switch to the replacement apiVersion (gate on `.Capabilities.APIVersions.Has` only when older "
        "clusters must still be supported) and adjust fields that changed with it.",
    ),
)
