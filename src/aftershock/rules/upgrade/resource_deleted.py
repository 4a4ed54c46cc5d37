"""Rule resource-deleted: the change deletes or renames (deletes and recreates) an object, or drops alerts,
with the consequence graded: data left behind or deleted, alerts that stop firing, names that collide."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.diff import ObjectChange, ObjectChangeKind
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, dig, text
from aftershock.rules.support.alerts import about, alert_names, alerts_of, switched_off
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.release import name_words
from aftershock.rules.upgrade.crds_folder import from_crds_folder

KEEP_ANNOTATION = "helm.sh/resource-policy"


def kept(obj: RenderedObject) -> bool:
    return text(as_map(dig(obj.body, "metadata", "annotations")).get(KEEP_ANNOTATION)) == "keep"


@dataclass(frozen=True)
class Deletion:
    """What replaces a deleted object: the renamed object, the alerts the release still declares."""

    renamed: RenderedObject | None = None
    alerts_left: frozenset[str] = frozenset()
    # The release name and namespace the object's name was unique by (a Helm render's own).
    release: tuple[str, str] = ("", "")
    scenario: str = "default"  # the values scenario that rendered the deletion


def _grade(obj: RenderedObject, deletion: Deletion) -> tuple[Severity, str]:
    """Severity and consequence of deleting `obj` (deletion.renamed: a new object replaces it)."""
    renamed = deletion.renamed is not None
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
        return _statefulset(obj, renamed)
    if kind in (("", "Namespace"), ("apiextensions.k8s.io", "CustomResourceDefinition")):
        return Severity.CRITICAL, "deleting it deletes every object it holds"
    if kind == ("", "PersistentVolume"):
        return Severity.HIGH, "with a Delete reclaim policy the storage is deleted"
    if kind in _FLUX_OWNERS:
        return _flux_owner(obj, deletion.renamed)
    lost = _lost_alerts(obj, deletion.alerts_left)
    if lost and _switched_off(deletion.scenario, lost):
        return (
            Severity.INFO,
            f"it held only the alerts of the feature the scenario switches off: {_names(lost)}",
        )
    if lost:
        return Severity.MEDIUM, f"its alerts stop firing: {_names(lost)}"
    if deletion.renamed is not None and _loses_uniqueness(obj, deletion.renamed, deletion.release):
        return (
            Severity.HIGH,
            "its new name no longer holds the release name or namespace that kept it unique: two releases "
            "of the chart now render the same cluster-wide name and collide",
        )
    if renamed:
        return (
            Severity.LOW,
            "the old object is deleted and a new one created: clients of the old name break and pods restart",
        )
    return Severity.INFO, "it is deleted on upgrade"


_FLUX_OWNERS = (
    ("kustomize.toolkit.fluxcd.io", "Kustomization"),
    ("helm.toolkit.fluxcd.io", "HelmRelease"),
)


def _flux_owner(obj: RenderedObject, renamed: RenderedObject | None) -> tuple[Severity, str]:
    """What Flux does with what a deleted Kustomization or HelmRelease applied: a Kustomization with
    `prune: true` garbage-collects it, a HelmRelease uninstalls its release. A renamed one applies
    the same objects again, unless it is a Kustomization whose path changed too: it then applies
    what that path holds (an app replaced by another), not them."""
    path = dig(renamed.body, "spec", "path") if renamed is not None else None
    replaced = (
        renamed is not None
        and obj.key.kind == "Kustomization"
        and path != dig(obj.body, "spec", "path")
    )
    if replaced:
        again = f"; the new one applies {text(path) or 'another path'} instead"
    else:
        again = "; the new one applies them again: deleted, then recreated" if renamed else ""
    if obj.key.kind == "HelmRelease":
        return (
            Severity.HIGH,
            f"Flux uninstalls its release: every object the release installed is deleted{again}",
        )
    if dig(obj.body, "spec", "prune") is True:
        return (
            Severity.HIGH,
            f"with prune: true, Flux garbage-collects every object it applied{again}",
        )
    return (
        Severity.LOW,
        "without prune, what it applied stays in the cluster, no longer reconciled"
        + ("; the new one takes it over" if renamed and not replaced else ""),
    )


def _statefulset(obj: RenderedObject, renamed: bool) -> tuple[Severity, str]:
    if renamed:
        return (
            Severity.CRITICAL,
            "the new StatefulSet's pods start on new, empty claims named after the new name or namespace; "
            "the data stays behind in the old claims",
        )
    policy = dig(obj.body, "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted")
    if policy == "Delete":
        return (
            Severity.HIGH,
            "its claims are deleted with it (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete)",
        )
    return Severity.MEDIUM, "its pods stop; the claims stay but nothing uses them"


def _lost_alerts(obj: RenderedObject, left: frozenset[str]) -> list[str]:
    """The alerts of `obj` that no object of the release declares any more."""
    return sorted({a.split("/", 1)[1] for a in alerts_of(obj)} - left)


def _names(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _alerts_removed(ctx: RuleContext, pair: ObjectPair) -> Iterator[Concern]:
    """Alerting rules a PrometheusRule that stays loses (and no object of the release declares again)."""
    if pair.base is None or pair.head is None or pair.change is None:
        return
    lost = _lost_alerts(pair.base, alert_names(pair.chart.head_objects))
    if lost:
        severity, what = (
            (
                Severity.INFO,
                "no longer renders the alerting rules of the feature the scenario switches off",
            )
            if _switched_off(pair.chart.scenario, lost)
            else (Severity.MEDIUM, "loses alerting rules, which stop firing")
        )
        yield Concern(
            subject=pair.subject("alerts removed"),
            delta=Delta.INTRODUCED,
            severity=severity,
            message=f"{pair.display} {what}: {_names(lost)}",
            location=ctx.index.locate_object(pair, (*lost[:3], "alert"), in_change=True),
            path=pair.impact_path("spec.groups", "removes"),
            facts=(Fact("object", pair.key.id), Fact("alerts", lost)),
            scope_paths=pair.scope_paths,
        )


def _switched_off(scenario: str, lost: list[str]) -> bool:
    """Whether the scenario switches off the feature every lost alert is about: the change gates
    them behind its switch, and nothing runs for them to fire on."""
    feature = switched_off(scenario)
    return feature is not None and about(feature, lost)


def _loses_uniqueness(old: RenderedObject, new: RenderedObject, release: tuple[str, str]) -> bool:
    """A cluster-scoped name that held the release name or namespace (as a word) and no longer does."""
    if old.key.namespace or new.key.namespace:
        return False
    words_old, words_new = name_words(old.key.name), name_words(new.key.name)
    return any(len(w) >= 3 and w in words_old and w not in words_new for w in release)


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
    deletion = Deletion(
        pair.head if renamed else None,
        alert_names(pair.chart.head_objects),
        (
            pair.chart.base_inputs.release_name or ctx.review.options.release_name,
            pair.chart.base_inputs.namespace or ctx.review.options.namespace,
        ),
        pair.chart.scenario,
    )
    severity, consequence = _generated(change) if generated and change else _grade(old, deletion)
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
            and (pair.base.key.name, pair.base.key.namespace)
            != (pair.head.key.name, pair.head.key.namespace)
        ):
            yield _concern(ctx, pair, pair.base, renamed=True)
        else:
            yield from _alerts_removed(ctx, pair)


RULE = Rule(
    id="resource-deleted",
    title="Object deleted or renamed",
    category=Category.RELIABILITY,
    severity=Severity.INFO,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Objects rendered at base that are absent at head, or renamed or moved to another namespace (Helm "
        "deletes the old object and creates the new one). Graded by what the deletion destroys: a StatefulSet "
        "with volumeClaimTemplates renamed or moved is critical (its pods start on new, empty claims; the data "
        "stays behind), deleted with whenDeleted: Delete high; PersistentVolumeClaims and PersistentVolumes "
        "high; Namespaces and CustomResourceDefinitions critical; a Flux Kustomization with prune: true high (Flux "
        "garbage-collects what it applied; without prune it is left, unreconciled: low; renamed, the new one "
        "applies it again, or what its path holds where the path changed too) and a HelmRelease "
        "high (Flux uninstalls its release); a PrometheusRule deleted, or one losing "
        "alerting rules, medium when an alert no object of the release declares any more stops firing (an "
        "alert moved to another group or object is not lost; info when a scenario switching a feature off, "
        "`toggle:logRouter.enabled=false`, loses only alerts named after it); a cluster-scoped object whose new name lost the "
        "release name or namespace it was unique by high (two releases now collide); other renames low; other "
        "deletions info. A ConfigMap or Secret a kustomize generator renamed (a new content hash) is info when "
        "workloads roll with it (kustomize rewrote their references), low when no workload names it. "
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
