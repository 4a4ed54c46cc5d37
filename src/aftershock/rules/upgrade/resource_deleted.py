"""Rule resource-deleted: the change deletes or renames (deletes and recreates) an object, with data loss graded."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.diff import ObjectChange, ObjectChangeKind
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig, text
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.upgrade.crds_folder import from_crds_folder

KEEP_ANNOTATION = "helm.sh/resource-policy"


def kept(obj: RenderedObject) -> bool:
    return text(as_map(dig(obj.body, "metadata", "annotations")).get(KEEP_ANNOTATION)) == "keep"


def _grade(obj: RenderedObject, renamed: bool) -> tuple[Severity, str]:
    """Severity and consequence of deleting `obj` (renamed: a new object replaces it under another name)."""
    kind = (obj.key.group, obj.key.kind)
    if kept(obj) and not renamed:
        return (
            Severity.INFO,
            "Helm keeps it (helm.sh/resource-policy: keep); it is left behind, no longer managed",
        )
    if kind == ("", "PersistentVolumeClaim"):
        if renamed:
            return (
                Severity.HIGH,
                "the workload gets a new, empty claim; the old claim's data is "
                + ("left behind" if kept(obj) else "deleted with it"),
            )
        return (
            Severity.HIGH,
            "the claim and, with a Delete reclaim policy, its volume's data are deleted",
        )
    if kind == ("apps", "StatefulSet") and as_map(obj.body.get("spec")).get("volumeClaimTemplates"):
        if renamed:
            return (
                Severity.HIGH,
                "the new StatefulSet's pods get new, empty claims named after the new name",
            )
        policy = dig(obj.body, "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted")
        if policy == "Delete":
            return (
                Severity.HIGH,
                "its claims are deleted with it (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete)",
            )
        return Severity.MEDIUM, "its pods stop; the claims stay but nothing uses them"
    if kind in (("", "Namespace"), ("apiextensions.k8s.io", "CustomResourceDefinition")):
        return Severity.CRITICAL, "deleting it deletes every object it holds"
    if kind == ("", "PersistentVolume"):
        return Severity.HIGH, "with a Delete reclaim policy the storage is deleted"
    if renamed:
        return (
            Severity.LOW,
            "the old object is deleted and a new one created: clients of the old name break and pods restart",
        )
    return Severity.INFO, "it is deleted on upgrade"


def _generated(change: ObjectChange) -> tuple[Severity, str]:
    """A kustomize generator's rename: kustomize rewrote the references in the build, whose workloads roll."""
    why = f"a new content hash of its {change.generator}; kustomize rewrote the references in the build"
    if not change.rolls:
        return (
            Severity.LOW,
            f"{why}, and no workload's pod template names it: a client outside the build using the old "
            "name breaks when the old object is pruned",
        )
    rolled = ", ".join(str(k) for k in change.rolls)
    return Severity.INFO, f"{why}: the rename rolls {rolled} (pod template changed)"


def _concern(ctx: RuleContext, pair: ObjectPair, old: RenderedObject, renamed: bool) -> Concern:
    change = pair.change
    generated = renamed and change is not None and change.generator is not None
    severity, consequence = _generated(change) if generated and change else _grade(old, renamed)
    what = f"is renamed to {pair.head.key.name}" if renamed and pair.head else "is deleted"
    return Concern(
        subject=pair.subject("deleted" if not renamed else "renamed"),
        delta=Delta.INTRODUCED,
        severity=severity,
        message=f"{old.key}{pair.where} {what}: {consequence}",
        location=ctx.index.locate_object(pair, ("name", old.key.name), in_change=True),
        path=pair.impact_path("metadata.name", "removes" if not renamed else "renames"),
        facts=(Fact("object", old.key.id), Fact("renamed", renamed), Fact("kept", kept(old))),
        scope_paths=pair.scope_paths,
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if pair.base is None or from_crds_folder(pair.base):
            continue  # Helm never deletes what it installed from a chart's crds/ (see crds-not-upgraded)
        if pair.head is None:
            yield _concern(ctx, pair, pair.base, renamed=False)
        elif (
            pair.change is not None
            and pair.change.kind is ObjectChangeKind.RENAMED
            and pair.base.key.name != pair.head.key.name
        ):
            yield _concern(ctx, pair, pair.base, renamed=True)


RULE = Rule(
    id="resource-deleted",
    title="Object deleted or renamed",
    category=Category.RELIABILITY,
    severity=Severity.INFO,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Objects rendered at base that are absent at head, or renamed (Helm deletes the old name and "
        "creates the new one). Graded by what the deletion destroys: PersistentVolumeClaims, StatefulSets "
        "with volumeClaimTemplates (renamed, or deleted with whenDeleted: Delete) and PersistentVolumes are "
        "high; Namespaces and CustomResourceDefinitions critical; other renames low; other deletions info. A "
        "ConfigMap or Secret a kustomize generator renamed (a new content hash) is info when workloads roll "
        "with it (kustomize rewrote their references), low when no workload names it. "
        "`helm.sh/resource-policy: keep` makes a deletion info (Helm leaves the object in place), but not a "
        "rename of a claim: the workload still starts on an empty one. Objects from files under a chart's root "
        "`crds/` folder are left out: Helm never deletes them (`crds-not-upgraded` reports their changes); a "
        "CRD from a template (`templates/crds/`) is deleted with its custom resources, so critical.",
        why="Helm deletes what a chart stops rendering. A renamed claim or StatefulSet looks like a refactor in "
        "the diff but starts the workload on empty storage; deleting a CRD deletes every custom resource of "
        "its kind.",
        example="    # base: PersistentVolumeClaim data-orders\n    # head: PersistentVolumeClaim orders-data",
        fix="Keep the old name (use `fullnameOverride` or a name helper that preserves it), annotate stateful "
        "objects with `helm.sh/resource-policy: keep`, or migrate the data before the rename.",
    ),
)
