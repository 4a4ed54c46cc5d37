"""Rule crd-version-removed: a CustomResourceDefinition drops a version or changes its storage version."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_list, as_map, text


def _versions(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {
        text(as_map(v).get("name")): as_map(v)
        for v in as_list(as_map(body.get("spec")).get("versions"))
        if text(as_map(v).get("name"))
    }


def _storage(versions: dict[str, Mapping[str, Any]]) -> str | None:
    return next((name for name, v in sorted(versions.items()) if v.get("storage") is True), None)


def _problems(
    before: dict[str, Mapping[str, Any]], after: dict[str, Mapping[str, Any]]
) -> Iterator[tuple[str, str, Severity]]:
    for name in sorted(before):
        if name not in after:
            yield (
                f"version {name}",
                f"removes version {name}: objects stored or requested as {name} become unreadable",
                Severity.HIGH,
            )
        elif before[name].get("served") is not False and after[name].get("served") is False:
            yield (
                f"version {name}",
                f"stops serving version {name}: clients and manifests using it fail",
                Severity.MEDIUM,
            )
    old, new = _storage(before), _storage(after)
    if old and new and old != new:
        yield (
            "storage",
            f"moves the storage version from {old} to {new}: existing objects stay stored as {old} until migrated",
            Severity.MEDIUM,
        )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.base is None or pair.head is None or pair.change is None:
            continue
        if pair.key.group != "apiextensions.k8s.io" or pair.key.kind != "CustomResourceDefinition":
            continue
        for facet, message, severity in _problems(
            _versions(pair.base.body), _versions(pair.head.body)
        ):
            yield Concern(
                subject=pair.subject(facet),
                delta=Delta.INTRODUCED,
                severity=severity,
                message=f"{pair.display} {message}",
                location=ctx.index.locate_object(
                    pair, ("versions", "storage", "served", facet.split()[-1]), in_change=True
                ),
                path=pair.impact_path("spec.versions", "changes"),
                facts=(Fact("problem", facet),),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="crd-version-removed",
    title="CRD version removed or storage version changed",
    category=Category.COMPATIBILITY,
    severity=Severity.HIGH,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="CustomResourceDefinitions rendered at both refs whose `spec.versions` loses an entry (high), stops "
        "serving one (`served: false`, medium), or moves `storage: true` to another version (medium).",
        why="Objects in etcd stay in the version they were written in (`status.storedVersions`); removing that "
        "version makes them unreadable and the API server refuses the CRD update, and clients still asking "
        "for an unserved version get 404s. A storage move needs a storage migration before the old version "
        "can go.",
        example="    versions:\n    -   - name: v1alpha1\n    -     served: true\n          - name: v1\n            storage: true",
        fix="Keep the old version served with a conversion webhook until every stored object has been migrated "
        "(kube-storage-version-migrator), then stop serving it, then remove it from storedVersions and the CRD.",
    ),
)
