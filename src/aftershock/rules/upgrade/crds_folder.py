"""Rule crds-not-upgraded: a change to a file under a chart's root `crds/`, which `helm upgrade` never applies.

Helm installs the files under `crds/` once, on `helm install`, untemplated; it never upgrades nor
deletes them (https://helm.sh/docs/chart_best_practices/custom_resource_definitions/). So a change
there reaches only new installs: an existing release keeps the old definition.
"""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.model.objects import RenderedObject
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import as_map, text
from aftershock.rules.support.index import ObjectPair


def from_crds_folder(obj: RenderedObject | None) -> bool:
    """Whether Helm read the object from a chart's root `crds/` folder (or a subchart's, under `charts/<name>/`).

    A `crds` folder inside `templates/` (`templates/crds/crds.yaml`) is an ordinary template: Helm
    upgrades and deletes its objects like any other.
    """
    if obj is None:
        return False
    prefix = f"{obj.chart}/" if obj.chart else ""
    inside = obj.template.startswith(prefix)
    parts = (obj.template[len(prefix) :] if inside else obj.template).split("/")[:-1]
    if inside:
        while parts[:1] == ["charts"] and len(parts) > 2:
            parts = parts[2:]  # a vendored subchart's own root
        return parts[:1] == ["crds"]
    # a dependency outside the chart's folder (file://../lib): crds/ not under any templates/ folder
    return "crds" in parts and "templates" not in parts[: parts.index("crds")]


_WHAT = {
    "added": (
        Severity.MEDIUM,
        "is added under crds/: `helm upgrade` does not install it, only a new install does",
    ),
    "changed": (
        Severity.MEDIUM,
        "changes under crds/: `helm upgrade` does not apply the change, existing releases keep the old definition",
    ),
    "removed": (
        Severity.INFO,
        "is removed from crds/: Helm never deletes it, so it and its custom resources stay in the cluster",
    ),
}


def _change(pair: ObjectPair) -> str | None:
    if pair.base is None and pair.head is not None:
        return "added"
    if pair.head is None and pair.base is not None:
        return "removed"
    return "changed" if pair.change is not None else None


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs:
        if not (from_crds_folder(pair.base) or from_crds_folder(pair.head)):
            continue
        if pair.chart.base.object_count == 0 and pair.base is None:
            continue  # the chart is new: its first install applies crds/
        change = _change(pair)
        if change is None:
            continue
        severity, consequence = _WHAT[change]
        users = _relying(ctx, pair) if change != "removed" else []
        if users:
            severity = Severity.HIGH
            consequence += (
                f"; the release's own {', '.join(users[:3])}"
                + (f" and {len(users) - 3} more" if len(users) > 3 else "")
                + " that the change adds or edits rely on the new definition"
            )
        yield Concern(
            subject=pair.subject(change),
            delta=Delta.INTRODUCED,
            severity=severity,
            message=f"{pair.display} {consequence}",
            location=ctx.index.locate_object(pair, (pair.key.name,), in_change=True),
            path=pair.impact_path(None, change),
            facts=(Fact("object", pair.key.id), Fact("change", change)),
            scope_paths=pair.scope_paths,
        )


def _relying(ctx: RuleContext, crd: ObjectPair) -> list[str]:
    """The custom resources of the CRD's kind, in the same render, that the change adds or edits."""
    head = crd.head
    if head is None or head.key.kind != "CustomResourceDefinition":
        return []
    spec = as_map(head.body.get("spec"))
    group, kind = text(spec.get("group")), text(as_map(spec.get("names")).get("kind"))
    return sorted(
        str(p.key)
        for p in ctx.index.pairs
        if p.chart is crd.chart
        and p.key.group == group
        and p.key.kind == kind
        and p.head is not None
        and (p.base is None or p.change is not None)
    )


RULE = Rule(
    id="crds-not-upgraded",
    title="Change under crds/ is not applied on upgrade",
    category=Category.COMPATIBILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Objects read from files under a chart's root `crds/` folder (or a subchart's) that the change adds, "
        "modifies or removes, in a chart that exists at base. Helm applies `crds/` only on a first install and "
        "never upgrades or deletes those files' objects, so the change reaches no existing release. Removals are "
        "info (nothing is deleted). High when the same render adds or edits custom resources of the "
        "changed CRD's kind: the release relies on a definition existing releases will not get. `resource-deleted` ignores these files for the same reason. A CRD rendered "
        "from a template, even one under `templates/crds/`, is not this rule's: Helm upgrades it, and deletes it "
        "with every custom resource when it is removed (`resource-deleted`, critical).",
        why="A CRD change under `crds/` looks shipped in the diff, but every existing release keeps the old "
        "schema until someone applies it by hand, and custom resources using the new fields are rejected.",
        example="    # crds/traefik.io_middlewares.yaml: a new property in spec.versions[0].schema",
        fix="Apply the CRDs out of band (`kubectl apply --server-side -f crds/`), ship them in a separate CRD "
        "chart under templates/, or say in the release notes that the upgrade needs it.",
    ),
)
