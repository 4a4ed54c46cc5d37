"""Rule rbac-cluster-scope-widening: permissions move from one namespace to the whole cluster."""

from __future__ import annotations

from collections.abc import Iterator

from aftershock.findings.model import Category, Confidence, Delta, Evidence, Fact, Severity
from aftershock.rules.model import Concern, Rule, RuleContext, RuleDoc
from aftershock.rules.rbac.wildcard import RBAC_REFERENCE
from aftershock.rules.support.index import ObjectPair
from aftershock.rules.support.rbac import RBAC_GROUP, is_binding, role_ref


def _lone(pairs: list[ObjectPair], kind: str, side: str) -> dict[str, ObjectPair]:
    """Objects of `kind` present on one side only ("base": removed, "head": added), by name."""
    found: dict[str, ObjectPair] = {}
    for pair in pairs:
        obj = pair.base if side == "base" else pair.head
        other = pair.head if side == "base" else pair.base
        if (
            obj is not None
            and other is None
            and obj.key.group == RBAC_GROUP
            and obj.key.kind == kind
        ):
            found.setdefault(obj.key.name, pair)
    return found


def _concern(ctx: RuleContext, pair: ObjectPair, message: str, was: str) -> Concern:
    location = ctx.index.locate_object(
        pair, ("ClusterRoleBinding", "ClusterRole", "kind"), in_change=True
    )
    return Concern(
        subject=pair.subject("scope"),
        message=message,
        delta=Delta.INTRODUCED,
        facts=(Fact("was", was),),
        location=location,
        path=pair.impact_path("kind", "changes"),
        scope_paths=pair.scope_paths,
    )


def check(ctx: RuleContext) -> Iterator[Concern]:
    by_chart: dict[str, list[ObjectPair]] = {}
    for pair in ctx.index.pairs:
        by_chart.setdefault(pair.chart.chart, []).append(pair)
    for pairs in by_chart.values():
        yield from _moved(
            ctx, pairs, "Role", "ClusterRole", "its rules can now be granted in every namespace"
        )
        moved_bindings = set()
        for name, pair in _moved_pairs(pairs, "RoleBinding", "ClusterRoleBinding"):
            moved_bindings.add(name)
            _, role = role_ref(pair.current)  # an added object: `current` is its head
            yield _concern(
                ctx,
                pair,
                f"{pair.display} replaces RoleBinding {pair_namespace(pairs, name)}/{name}: "
                f"{role or 'its role'} is now granted in every namespace",
                "RoleBinding",
            )
        yield from _newly_cluster_bound(ctx, pairs, moved_bindings)


def _moved(
    ctx: RuleContext, pairs: list[ObjectPair], old: str, new: str, what: str
) -> Iterator[Concern]:
    for name, pair in _moved_pairs(pairs, old, new):
        yield _concern(
            ctx,
            pair,
            f"{pair.display} replaces {old} {pair_namespace(pairs, name, old)}/{name}: {what}",
            old,
        )


def _moved_pairs(pairs: list[ObjectPair], old: str, new: str) -> Iterator[tuple[str, ObjectPair]]:
    removed, added = _lone(pairs, old, "base"), _lone(pairs, new, "head")
    for name in sorted(removed.keys() & added.keys()):
        yield name, added[name]


def pair_namespace(pairs: list[ObjectPair], name: str, kind: str = "RoleBinding") -> str:
    removed = _lone(pairs, kind, "base").get(name)
    return removed.key.namespace if removed else "?"


def _newly_cluster_bound(
    ctx: RuleContext, pairs: list[ObjectPair], skip: set[str]
) -> Iterator[Concern]:
    """A new ClusterRoleBinding of a ClusterRole that base bound only through RoleBindings."""
    base_bindings = [p.base for p in pairs if p.base is not None and is_binding(p.base)]
    namespaced_at_base = {
        role_ref(b)[1]
        for b in base_bindings
        if b.key.kind == "RoleBinding" and role_ref(b)[0] == "ClusterRole"
    }
    cluster_at_base = {role_ref(b)[1] for b in base_bindings if b.key.kind == "ClusterRoleBinding"}
    for name, pair in sorted(_lone(pairs, "ClusterRoleBinding", "head").items()):
        kind, role = role_ref(pair.current)  # an added object: `current` is its head
        if (
            name in skip
            or kind != "ClusterRole"
            or role not in namespaced_at_base - cluster_at_base
        ):
            continue
        yield _concern(
            ctx,
            pair,
            f"{pair.display} binds ClusterRole {role} cluster-wide; at base it was granted "
            "only inside namespaces by RoleBindings",
            "RoleBinding",
        )


RULE = Rule(
    id="rbac-cluster-scope-widening",
    title="RBAC widened from a namespace to the cluster",
    category=Category.SECURITY,
    severity=Severity.HIGH,
    confidence=Confidence.MEDIUM,
    evidence=Evidence.OBSERVED,
    check=check,
    references=(RBAC_REFERENCE,),
    doc=RuleDoc(
        what="Within one chart: a Role removed while a ClusterRole of the same name is added; a RoleBinding "
        "removed while a ClusterRoleBinding of the same name is added; or a new ClusterRoleBinding of a "
        "ClusterRole that base granted only through RoleBindings. Matching by name is a heuristic, hence "
        "medium confidence.",
        why="The same rules granted through a ClusterRoleBinding apply in every namespace, present and future, "
        "including kube-system; a change that reads as a rename can multiply what a service account reaches.",
        example="    # base\n    kind: RoleBinding\n    metadata: {name: reader, namespace: apps}\n    # head\n    kind: ClusterRoleBinding\n    metadata: {name: reader}",
        fix="Keep the Role/RoleBinding, and add RoleBindings in the other namespaces that need the access.",
    ),
)
