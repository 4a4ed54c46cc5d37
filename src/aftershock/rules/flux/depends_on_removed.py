"""Rule flux-dependson-removed: a HelmRelease or Kustomization loses a dependsOn entry."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, dig, text
from aftershock.rules.support.flux import is_helm_release, is_kustomization


def dependencies(obj: RenderedObject) -> frozenset[str]:
    found = set()
    for entry in as_list(dig(obj.body, "spec", "dependsOn")):
        entry = as_map(entry)
        name = text(entry.get("name"))
        if name:
            found.add(f"{text(entry.get('namespace')) or obj.key.namespace}/{name}")
    return frozenset(found)


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.base is None or pair.head is None or pair.change is None:
            continue
        if not (is_helm_release(pair.head) or is_kustomization(pair.head)):
            continue
        for dependency in sorted(dependencies(pair.base) - dependencies(pair.head)):
            yield Concern(
                subject=pair.subject(f"dependsOn {dependency}"),
                delta=Delta.INTRODUCED,
                message=f"{pair.display} no longer depends on {dependency}: Flux may now reconcile it before {dependency} is ready",
                location=ctx.index.locate_object(
                    pair, ("dependsOn", dependency.split("/")[-1]), in_change=True
                ),
                path=pair.impact_path("spec.dependsOn", "removes"),
                facts=(Fact("dependency", dependency),),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="flux-dependson-removed",
    title="Flux dependsOn removed",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="HelmReleases (helm.toolkit.fluxcd.io) and Kustomizations (kustomize.toolkit.fluxcd.io) whose "
        "`spec.dependsOn` loses an entry (matched by namespace/name, the namespace defaulting to the object's).",
        why="dependsOn orders installs and upgrades: without it, Flux may apply the release before the CRDs, "
        "operators or databases it needs, which fails on a fresh cluster or during disaster recovery even "
        "when it works on the cluster where the dependency already runs.",
        example="    spec:\n      dependsOn:\n    -   - name: cert-manager\n          namespace: cert-manager",
        fix="Keep the dependency, or remove it only together with the dependency itself.",
    ),
)
