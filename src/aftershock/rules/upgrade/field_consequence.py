"""Rule field-consequence: a field of an operator or storage resource changes in a way that has a
documented consequence (the table in rules/support/field_meanings.py)."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.support.access import dig
from aftershock.rules.support.field_meanings import MEANINGS

KINDS = frozenset((m.group, m.kind) for m in MEANINGS)


def check(ctx: RuleContext) -> Iterator[Concern]:
    for pair in ctx.index.pairs_of(KINDS):
        if pair.head is None or (pair.base is not None and pair.change is None):
            continue  # deleted, or unchanged: nothing this change does to the field
        for meaning in MEANINGS:
            if (pair.key.group, pair.key.kind) != (meaning.group, meaning.kind):
                continue
            if pair.base is None and not meaning.on_create:
                continue  # a new object: the consequence is of changing one
            before = dig(pair.base.body, *meaning.field) if pair.base is not None else None
            after = dig(pair.head.body, *meaning.field)
            if not meaning.matters(before, after):
                continue
            field = ".".join(meaning.field)
            yield Concern(
                subject=pair.subject(field),
                message=f"{pair.display} {field} changes: {meaning.consequence}",
                delta=Delta.INTRODUCED,
                severity=meaning.severity,
                facts=(Fact("field", field), Fact("before", before), Fact("after", after)),
                location=ctx.index.locate_object(pair, (meaning.field[-1],), in_change=True),
                path=pair.impact_path(field),
                scope_paths=pair.scope_paths,
            )


RULE = Rule(
    id="field-consequence",
    title="Field change with a documented consequence",
    category=Category.RELIABILITY,
    severity=Severity.MEDIUM,
    confidence=Confidence.HIGH,
    evidence=Evidence.OBSERVED,
    check=check,
    doc=RuleDoc(
        what="Fields of common operator and storage resources whose change has a consequence the diff "
        "does not show, from one documented table (rules/support/field_meanings.py): a new default "
        "StorageClass, a reclaim policy turned to Delete, a StorageClass's immutable parameters; a "
        "cert-manager Certificate's Secret or issuer, an ACME server; a Flux Kustomization that starts "
        "pruning or moves namespace, a HelmRelease renamed or moved; a Cluster API machine template "
        "or control-plane version; a MetalLB pool opened to whole namespaces, a Calico pool's range. "
        "Each entry has its own severity.",
        why="The change reads as one line of YAML; the controller that owns the resource turns it into "
        "deleted releases, replaced machines, reissued certificates or claims bound elsewhere.",
        example="    kind: StorageClass\n    metadata:\n      annotations:\n"
        '        storageclass.kubernetes.io/is-default-class: "true"   # added',
        fix="Make the consequence part of the change: migrate what it moves, say it in the release notes, "
        "or stage it (a new resource beside the old one) when it cannot be undone.",
    ),
)
